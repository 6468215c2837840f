"""Drive PettingZoo's MPE (``mpe2``) deterministically and record what it does.

For each episode: ``reset(seed=episode_seed)``, read the world state (positions,
velocities, utterances and goal landmarks), then step with uniformly random actions
until the episode ends, recording every observation, reward and done flag. Our
environment is then started from the same state and fed the same actions.

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
}


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


def record(
    env_id: str,
    num_episodes: int,
    continuous: bool,
    seed: int = 0,
    **kwargs,
) -> Recording:
    """Run ``num_episodes`` full episodes of mpe2's version of ``env_id``."""
    from pettingzoo.utils.env_logger import EnvLogger

    EnvLogger.suppress_output()  # out-of-range continuous actions are clipped, on purpose
    module_name, goals_fn = SCENARIOS[env_id]
    module = importlib.import_module(module_name)
    env = module.parallel_env(continuous_actions=continuous, **kwargs)
    max_steps = env.unwrapped.max_cycles
    rng = np.random.default_rng(seed)
    agents = list(env.possible_agents)
    episodes: list[dict] = []
    for ep in range(num_episodes):
        obs, _ = env.reset(seed=seed * 100_003 + ep)
        world = env.unwrapped.world
        states = [_world_state(world)]
        rec = {
            "goal": np.asarray(goals_fn(world), np.int64),
            "obs": {a: [obs[a]] for a in agents},
            "actions": {a: [] for a in agents},
            "reward": {a: [] for a in agents},
            "done": {a: [] for a in agents},
        }
        while env.agents:
            acts = {}
            for a in agents:
                space = env.action_space(a)
                if continuous:
                    acts[a] = rng.uniform(-0.2, 1.2, space.shape).astype(np.float32)
                else:
                    acts[a] = np.int64(rng.integers(space.n))
            obs, rew, term, trunc, _ = env.step(acts)
            states.append(_world_state(world))
            for a in agents:
                rec["actions"][a].append(acts[a])
                rec["obs"][a].append(obs[a])
                rec["reward"][a].append(rew[a])
                rec["done"][a].append(term[a] or trunc[a])
        n = len(states) - 1
        rec["length"] = n
        states += [states[-1]] * (max_steps - n)
        rec["p_pos"], rec["p_vel"], rec["c"] = (np.stack(x) for x in zip(*states, strict=True))
        for a in agents:
            rec["actions"][a] = _pad(rec["actions"][a], max_steps, 0)
            rec["obs"][a] = _pad(rec["obs"][a], max_steps + 1, np.nan)
            rec["reward"][a] = _pad(rec["reward"][a], max_steps, np.nan)
            rec["done"][a] = _pad(rec["done"][a], max_steps, False)
        episodes.append(rec)
    env.close()

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
    )
