"""Drive PettingZoo's MPE (``mpe2``) deterministically and record what it does.

For each episode: ``reset(seed=episode_seed)``, read the world state (positions,
velocities, utterances and goal landmarks), then step with uniformly random actions
until the episode ends, recording every observation, reward and done flag. Our
environment is then started from the same state and fed the same actions.

mpe2's ``parallel_env`` is PettingZoo's ``aec_to_parallel_wrapper`` around its wrapped
AEC env (``env``); the recorder drives that AEC env the way the parallel wrapper does,
minus two costs that change nothing recorded (identical recordings, checked): the
wrapper's observation of each agent before it moves (``last()``, thrown away) and the
formatting of out-of-range-action warnings that are suppressed anyway.

Continuous actions are drawn from ``[-0.2, 1.2]`` so that the clipping both
implementations apply to out-of-range actions is exercised too.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

import numpy as np

# Scenario id (ours) -> (mpe2 module, function from mpe2 world to goal indices).


def _landmark_index(world, entity) -> int:
    return next(i for i, lm in enumerate(world.landmarks) if lm is entity)


def _goals_none(world) -> list[int]:
    return []


def _goals_adversary(world) -> list[int]:
    return [_landmark_index(world, world.agents[0].goal_a)]


def _goals_crypto(world) -> list[int]:
    goal = _landmark_index(world, world.agents[0].goal_a)
    key = next(i for i, lm in enumerate(world.landmarks) if np.array_equal(lm.color, world.agents[2].key))
    return [goal, key]


def _goals_reference(world) -> list[int]:
    return [_landmark_index(world, world.agents[0].goal_b), _landmark_index(world, world.agents[1].goal_b)]


def _goals_speaker_listener(world) -> list[int]:
    return [_landmark_index(world, world.agents[0].goal_b)]


def _treasure_state(world) -> dict[str, np.ndarray]:
    """collect_treasure's state beyond positions: what each collector holds (-1: nothing),
    each treasure's type and which treasures are on the map."""
    collectors = [a for a in world.agents if a.collector]
    return {
        "holding": np.array([-1 if a.holding is None else a.holding for a in collectors], np.int64),
        "treasure_type": np.array([lm.type for lm in world.landmarks], np.int64),
        "alive": np.array([lm.alive for lm in world.landmarks], bool),
    }


SCENARIOS = {
    "MPE_simple_v3": ("mpe2.simple_v3", _goals_none),
    "MPE_simple_spread_v3": ("mpe2.simple_spread_v3", _goals_none),
    "MPE_simple_tag_v3": ("mpe2.simple_tag_v3", _goals_none),
    "MPE_simple_world_comm_v3": ("mpe2.simple_world_comm_v3", _goals_none),
    "MPE_simple_adversary_v3": ("mpe2.simple_adversary_v3", _goals_adversary),
    "MPE_simple_crypto_v3": ("mpe2.simple_crypto_v3", _goals_crypto),
    "MPE_simple_push_v3": ("mpe2.simple_push_v3", _goals_adversary),
    "MPE_simple_reference_v3": ("mpe2.simple_reference_v3", _goals_reference),
    "MPE_simple_speaker_listener_v4": ("mpe2.simple_speaker_listener_v4", _goals_speaker_listener),
    "MPE_collect_treasure_v1": ("mpe2.collect_treasure_v1", _goals_none),
    "MPE_simple_formation_v1": ("mpe2.simple_formation_v1", _goals_none),
    "MPE_simple_line_v1": ("mpe2.simple_line_v1", _goals_none),
}
# Scenario state recorded besides the world's positions, velocities and utterances:
# scenario id -> function from mpe2 world to named arrays.
EXTRA_STATE = {"MPE_collect_treasure_v1": _treasure_state}


@dataclass
class Recording:
    """What mpe2 did over ``R`` episodes of at most ``T`` steps (``A`` agents, ``E`` entities).

    Steps past an episode's end (``length``) are padding: zero actions, NaN
    observations and rewards, false dones, and the last world state repeated.

    Attributes:
        agents: agent names, in world order.
        length: steps in each episode, ``(R,)``.
        p_pos, p_vel: positions and velocities, ``(R, T + 1, E, 2)``; index 0 is the
            initial state, index t the state after step t.
        c: utterances, ``(R, T + 1, A, dim_c)``.
        goal: goal landmark indices, ``(R, G)``.
        actions: per agent, ``(R, T)`` ints or ``(R, T, d)`` floats.
        obs: per agent, ``(R, T + 1, obs_dim)``; index 0 is the reset observation.
        reward: per agent, ``(R, T)``.
        done: per agent, ``(R, T)`` (termination or truncation).
        terminated, truncated: per agent, ``(R, T)``: mpe2's two flags.
        limit_success: ``(R, T)``: a step that reached the time limit (mpe2 truncates)
            while the scenario's own ending held (``is_terminal``: e.g. success with
            ``terminate_on_success``), which mpe2 checks only before the limit.
        extra: scenario state of :data:`EXTRA_STATE`, each ``(R, T + 1, ...)`` like
            ``p_pos`` (empty for the other scenarios).
        entities: entity names, agents then landmarks, ``(E,)``.
        size, max_speed: entity radii and speed caps (``inf``: none), ``(E,)``.
        movable: which entities move, ``(E,)``; silent: which agents cannot speak, ``(A,)``.
        num_actions: per agent, the size of its ``Discrete`` space (0 if continuous).
    """

    agents: list[str]
    length: np.ndarray
    p_pos: np.ndarray
    p_vel: np.ndarray
    c: np.ndarray
    goal: np.ndarray
    actions: dict[str, np.ndarray]
    obs: dict[str, np.ndarray]
    reward: dict[str, np.ndarray]
    done: dict[str, np.ndarray]
    terminated: dict[str, np.ndarray]
    truncated: dict[str, np.ndarray]
    limit_success: np.ndarray
    extra: dict[str, np.ndarray]
    entities: list[str]
    size: np.ndarray
    max_speed: np.ndarray
    movable: np.ndarray
    silent: np.ndarray
    num_actions: dict[str, int]


def _world_state(world) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    entities = world.agents + world.landmarks
    return (
        np.stack([e.state.p_pos for e in entities]),
        np.stack([e.state.p_vel for e in entities]),
        np.stack([a.state.c for a in world.agents]).reshape(len(world.agents), world.dim_c),
    )


def _pad(items: list, length: int, fill: float) -> np.ndarray:
    arr = np.asarray(items)
    if len(items) == length:
        return arr
    pad = np.full((length - len(items), *arr.shape[1:]), fill, arr.dtype)
    return np.concatenate([arr, pad])


class _QuietLogger:
    """Within ``with``: no out-of-range-action warnings from PettingZoo's wrappers.

    The continuous actions are out of range on purpose. ``EnvLogger.suppress_output()``
    hides the warnings but each one still formats the action array first, which costs
    about a fifth of the recording time.
    """

    def __enter__(self) -> None:
        from pettingzoo.utils.env_logger import EnvLogger

        EnvLogger.suppress_output()
        self._saved = EnvLogger.__dict__["warn_action_out_of_bound"]
        EnvLogger.warn_action_out_of_bound = staticmethod(lambda *args, **kwargs: None)

    def __exit__(self, *exc: object) -> None:
        from pettingzoo.utils.env_logger import EnvLogger

        EnvLogger.warn_action_out_of_bound = self._saved


def _parallel_step(aec, actions: dict) -> tuple[dict, dict, dict, dict]:
    """One step of every agent: PettingZoo's ``aec_to_parallel_wrapper.step`` on mpe2's
    wrapped AEC env, without its ``aec_env.last()`` call, which computes an observation
    it throws away (half of mpe2's observation work)."""
    rewards = dict.fromkeys(aec.agents, 0.0)
    for agent in aec.agents:
        assert agent == aec.agent_selection, (agent, aec.agent_selection)
        aec.step(actions[agent])
        for other in aec.agents:
            rewards[other] += aec.rewards[other]
    terminations, truncations = dict(aec.terminations), dict(aec.truncations)
    observations = {agent: aec.observe(agent) for agent in aec.agents}
    while aec.agents and (terminations.get(aec.agent_selection) or truncations.get(aec.agent_selection)):
        aec.step(None)
    return observations, rewards, terminations, truncations


def record(
    env_id: str,
    num_episodes: int,
    continuous: bool,
    seed: int = 0,
    **kwargs,
) -> Recording:
    """Run ``num_episodes`` full episodes of mpe2's version of ``env_id``."""
    with _QuietLogger():
        return _record(env_id, num_episodes, continuous, seed, **kwargs)


def _record(env_id: str, num_episodes: int, continuous: bool, seed: int, **kwargs) -> Recording:
    module_name, goals_fn = SCENARIOS[env_id]
    extra_fn = EXTRA_STATE.get(env_id, lambda world: {})
    module = importlib.import_module(module_name)
    aec = module.env(continuous_actions=continuous, **kwargs)  # what parallel_env wraps
    max_steps = aec.unwrapped.max_cycles
    rng = np.random.default_rng(seed)
    agents = list(aec.possible_agents)
    spaces = {a: aec.action_space(a) for a in agents}
    episodes: list[dict] = []
    for ep in range(num_episodes):
        aec.reset(seed=seed * 100_003 + ep)
        obs = {a: aec.observe(a) for a in aec.agents}
        world = aec.unwrapped.world
        scenario = aec.unwrapped.scenario
        states = [_world_state(world)]
        extras = [extra_fn(world)]
        rec = {
            "goal": np.asarray(goals_fn(world), np.int64),
            "obs": {a: [obs[a]] for a in agents},
            "actions": {a: [] for a in agents},
            "reward": {a: [] for a in agents},
            "done": {a: [] for a in agents},
            "terminated": {a: [] for a in agents},
            "truncated": {a: [] for a in agents},
            "limit_success": [],
        }
        while aec.agents:
            acts = {}
            for a in agents:
                space = spaces[a]
                if continuous:
                    acts[a] = rng.uniform(-0.2, 1.2, space.shape).astype(np.float32)
                else:
                    acts[a] = np.int64(rng.integers(space.n))
            obs, rew, term, trunc = _parallel_step(aec, acts)
            states.append(_world_state(world))
            extras.append(extra_fn(world))
            # The world is as the step left it: the scenario's ending can be asked.
            rec["limit_success"].append(any(trunc.values()) and bool(scenario.is_terminal(world)))
            for a in agents:
                rec["actions"][a].append(acts[a])
                rec["obs"][a].append(obs[a])
                rec["reward"][a].append(rew[a])
                rec["done"][a].append(term[a] or trunc[a])
                rec["terminated"][a].append(term[a])
                rec["truncated"][a].append(trunc[a])
        n = len(states) - 1
        rec["length"] = n
        states += [states[-1]] * (max_steps - n)
        extras += [extras[-1]] * (max_steps - n)
        rec["p_pos"], rec["p_vel"], rec["c"] = (np.stack(x) for x in zip(*states, strict=True))
        rec["extra"] = {k: np.stack([e[k] for e in extras]) for k in extras[0]}
        rec["limit_success"] = _pad(rec["limit_success"], max_steps, False)
        for a in agents:
            rec["actions"][a] = _pad(rec["actions"][a], max_steps, 0)
            rec["obs"][a] = _pad(rec["obs"][a], max_steps + 1, np.nan)
            rec["reward"][a] = _pad(rec["reward"][a], max_steps, np.nan)
            for flag in ("done", "terminated", "truncated"):
                rec[flag][a] = _pad(rec[flag][a], max_steps, False)
        episodes.append(rec)
    entities = world.agents + world.landmarks
    aec.close()

    def stack(key: str) -> dict[str, np.ndarray]:
        return {a: np.stack([r[key][a] for r in episodes]) for a in agents}

    return Recording(
        agents=agents,
        length=np.array([r["length"] for r in episodes]),
        p_pos=np.stack([r["p_pos"] for r in episodes]),
        p_vel=np.stack([r["p_vel"] for r in episodes]),
        c=np.stack([r["c"] for r in episodes]),
        goal=np.stack([r["goal"] for r in episodes]),
        actions=stack("actions"),
        obs=stack("obs"),
        reward=stack("reward"),
        done=stack("done"),
        terminated=stack("terminated"),
        truncated=stack("truncated"),
        limit_success=np.stack([r["limit_success"] for r in episodes]),
        extra={k: np.stack([r["extra"][k] for r in episodes]) for k in episodes[0]["extra"]},
        entities=[e.name for e in entities],
        size=np.array([e.size for e in entities], np.float64),
        max_speed=np.array([np.inf if e.max_speed is None else e.max_speed for e in entities]),
        movable=np.array([e.movable for e in entities]),
        silent=np.array([a.silent for a in world.agents]),
        num_actions={a: 0 if continuous else int(spaces[a].n) for a in agents},
    )


# ------------------------------------------------------------------- coverage
def _kind(name: str) -> str:
    """``"adversary_0"`` -> ``"adversary"``, ``"landmark 1"`` -> ``"landmark"``."""
    return name.rstrip("0123456789").rstrip("_ ")


# Arena penalty bands of simple_tag and simple_world_comm (per coordinate |x|): 0 below
# 0.9, linear up to 1, exp(2|x| - 2) up to 1 + ln(10) / 2 and capped at 10 beyond.
BOUNDS_BANDS = {
    "linear": (0.9, 1.0),
    "exp": (1.0, 1.0 + np.log(10.0) / 2),
    "capped": (1.0 + np.log(10.0) / 2, np.inf),
}


def coverage(rec: Recording) -> dict[str, np.ndarray]:
    """What happened in each recorded episode: event name -> ``(R,)`` count of steps.

    Events (all on the state after each step; ``A``, ``B``, ``F`` are entity kinds, the
    name without its number):

    - ``overlap A-B``: an agent of kind A overlaps a different entity of kind B
      (distance < sum of radii): a contact force if both collide, a catch, food, a
      landmark reached, being in a forest...
    - ``shared F``: two agents overlap the same entity of kind F (e.g. share a forest);
      ``separate F``: two agents each overlap an entity of kind F, but no common one.
    - ``max speed A``: an agent of kind A moves at its speed cap (velocity rescaled).
    - ``bounds A band``: an agent of kind A has a coordinate in that band of
      :data:`BOUNDS_BANDS`.
    - ``mute A``: an agent of kind A that can speak says all zeros (continuous only).
    - ``action A below`` / ``above``: a continuous action entry of agent A is outside
      ``[0, 1]`` (clipped); ``action A = k``: agent A chose discrete action k.
    - ``terminated`` / ``truncated``: the episode ended early / at the time limit;
      ``success at time limit``: it reached the limit while the scenario's own ending
      held (``Recording.limit_success``).
    - collect_treasure (from ``Recording.extra``): ``pickup``, ``delivery``, ``pickup and
      delivery`` (a collector delivers what it picked up in the same step),
      ``no treasure on the map``; and, with collector positions after the step and
      treasures as they were before it: ``contested treasure`` (two free collectors
      touch one), ``collector on two treasures`` (a free collector touches two) and
      ``busy collector on treasure`` (a collector already carrying touches one).
    """
    T = rec.reward[rec.agents[0]].shape[1]
    valid = np.arange(1, T + 1)[None, :] <= rec.length[:, None]  # (R, T): steps that happened
    pos, vel = rec.p_pos[:, 1:], rec.p_vel[:, 1:]  # (R, T, E, 2)
    kinds = [_kind(n) for n in rec.entities]
    A = len(rec.agents)
    events: dict[str, np.ndarray] = {}

    def add(name: str, happened: np.ndarray) -> None:  # happened: (R, T)
        count = np.sum(happened & valid, axis=1)
        events[name] = events.get(name, 0) + count

    dist = np.linalg.norm(pos[:, :, :, None] - pos[:, :, None, :], axis=-1)  # (R, T, E, E)
    touching = dist < rec.size[:, None] + rec.size[None, :]
    for i in range(A):
        for j in range(len(kinds)):
            if i != j and (rec.movable[i] or rec.movable[j]):
                add(f"overlap {kinds[i]}-{kinds[j]}", touching[:, :, i, j])
    for kind in sorted(set(kinds[A:])):
        inside = touching[:, :, :A, [f for f in range(A, len(kinds)) if kinds[f] == kind]]  # (R, T, A, F)
        common = np.einsum("rtaf,rtbf->rtab", inside, inside) > 0  # a and b in a common one
        some = np.any(inside, axis=-1)  # (R, T, A)
        pairs = ~np.eye(A, dtype=bool)
        add(f"shared {kind}", np.any(common & pairs, axis=(-1, -2)))
        apart = some[:, :, :, None] & some[:, :, None, :] & ~common & pairs
        add(f"separate {kind}", np.any(apart, axis=(-1, -2)))
    speed = np.linalg.norm(vel, axis=-1)
    for i in range(A):
        if np.isfinite(rec.max_speed[i]):
            add(f"max speed {kinds[i]}", speed[:, :, i] >= rec.max_speed[i] * (1 - 1e-6))
        if rec.movable[i]:
            x = np.max(np.abs(pos[:, :, i]), axis=-1)
            for band, (lo, hi) in BOUNDS_BANDS.items():
                add(f"bounds {kinds[i]} {band}", (x >= lo) & (x < hi))
        if not rec.silent[i] and rec.c.shape[-1]:
            add(f"mute {kinds[i]}", np.all(rec.c[:, 1:, i] == 0, axis=-1))
    for a, n in rec.num_actions.items():
        act = rec.actions[a]
        if n:
            for k in range(n):
                add(f"action {a} = {k}", act == k)
        else:
            add(f"action {a} below", np.any(act < 0, axis=-1))
            add(f"action {a} above", np.any(act > 1, axis=-1))
    ends = np.arange(1, T + 1)[None, :] == rec.length[:, None]
    add("terminated", ends & (rec.length[:, None] < T))
    add("truncated", ends & (rec.length[:, None] == T))
    add("success at time limit", ends & rec.limit_success)
    if "holding" in rec.extra:
        for name, happened in _treasure_events(rec, A).items():
            add(name, happened)
    return events


def _treasure_events(rec: Recording, num_agents: int) -> dict[str, np.ndarray]:
    """collect_treasure's events of :func:`coverage`, each ``(R, T)``."""
    holding, alive = rec.extra["holding"], rec.extra["alive"]  # (R, T + 1, C), (R, T + 1, L)
    before, after = holding[:, :-1], holding[:, 1:]
    picked = ~alive[:, 1:]  # a treasure off the map after a step was picked up in it
    free = before < 0
    collectors = rec.p_pos[:, 1:, : holding.shape[-1]]  # (R, T, C, 2)
    treasures = rec.p_pos[:, :-1, num_agents:]  # (R, T, L, 2)
    reach = rec.size[0] + rec.size[num_agents]
    touch = np.linalg.norm(collectors[:, :, :, None] - treasures[:, :, None], axis=-1) < reach
    touch &= alive[:, :-1, None, :]  # (R, T, C, L): collector on a treasure that was on the map
    return {
        "pickup": np.any(picked, axis=-1),
        "delivery": np.any((before >= 0) & (after < 0), axis=-1),
        "pickup and delivery": np.sum(picked, axis=-1) > np.sum(free & (after >= 0), axis=-1),
        "no treasure on the map": np.all(picked, axis=-1),
        "contested treasure": np.any(np.sum(touch & free[..., None], axis=2) >= 2, axis=-1),
        "collector on two treasures": np.any(np.sum(touch & free[..., None], axis=3) >= 2, axis=-1),
        "busy collector on treasure": np.any(touch & ~free[..., None], axis=(2, 3)),
    }
