"""IQL, VDN and QMIX for every registered jaxmarl environment with discrete actions.

    python baselines/qlearning.py                                 # VDN on MPE_simple_spread_v3
    python baselines/qlearning.py alg=qmix env=mpe_simple_spread NUM_SEEDS=4
    python baselines/qlearning.py alg=iql env=mpe_simple_tag      # two teams, trained apart

Value-based MARL as in the JaxMARL paper's Appendix D (after PyMARL): recurrent agents
(dense embedding, GRU, linear Q head) with parameters shared by the agents of a team and
a one-hot agent id in their inputs; epsilon-greedy exploration decayed linearly; rollouts
stored in a Flashbax replay buffer on the device; double Q-learning targets from a target
network updated every ``TARGET_UPDATE_INTERVAL`` rollouts with rate ``TAU``; Adam with
gradient clipping; ``NUM_EPOCHS`` gradient steps per rollout. The three methods differ
only in the mixer that turns the agents' Q-values into what is regressed:

- ``iql``: none; every agent learns from its own reward;
- ``vdn``: a team's Q-values are summed (Sunehag et al., 2018);
- ``qmix``: a monotonic mixing network whose non-negative weights are produced by
  hypernetworks from ``env.get_global_state`` (Rashid et al., 2018).

Agents are grouped into teams (``TEAMS``; one team by default). Each team has its own
agent network and mixer, and learns from the sum of its members' rewards, so competitive
games such as ``simple_tag`` train predators and prey independently. Heterogeneous agents
are padded to common shapes with masks (``jaxmarl.wrappers.RolloutManager``).

Every stored step keeps the observation it led to (``info["final_obs"]``, before the
automatic reset), so targets bootstrap through time limits (truncations) and only real
terminations cut the return. Every stored step also keeps its reset flag: the hidden
state is zeroed before reading step ``t`` iff an episode started at ``t``, in acting and
in training alike.

The file reads top to bottom: networks, mixers, rollout, buffer, targets, loss, update,
``make_learner(config)`` (the loop as ``init`` and ``update``, which the command line
runs in checkpointed slices) and ``make_train(config)`` returning a pure ``train(rng)``,
acting, and the hydra ``main``.
Configuration: ``baselines/config/qlearning`` (``alg/``, ``env/`` and ``hparams/`` groups).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, NamedTuple, cast

import flashbax as fbx
import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax.linen.initializers import constant
from flax.training.train_state import TrainState

import jaxmarl
from baselines import runs
from baselines.common import Dense, Learner, ScannedGRU, env_state_of, episode_metrics, orthogonal
from jaxmarl.wrappers import LogWrapper, RolloutManager

MIXERS = ("none", "vdn", "qmix")

# ----------------------------------------------------------------------- networks
# Inputs are time-major, (time, batch, features).


class QNetwork(nn.Module):
    """A recurrent Q-network: dense embedding (ReLU), GRU, linear head.

    ``(hidden (batch, width), obs (time, batch, obs_dim), resets (time, batch))`` ->
    ``(hiddens (time, batch, width), q (time, batch, action_dim))``, where ``hiddens[t]``
    is the GRU state after step ``t`` (zeroed before step ``t`` where ``resets[t]``).
    """

    width: int
    action_dim: int

    @nn.compact
    def __call__(self, hidden: jax.Array, obs: jax.Array, resets: jax.Array) -> tuple[jax.Array, jax.Array]:
        dense = functools.partial(Dense, kernel_init=orthogonal(1.0), bias_init=constant(0.0))
        x = nn.relu(dense(self.width)(obs))
        _, hiddens = ScannedGRU(self.width)(hidden, (x, resets))
        return hiddens, dense(self.action_dim)(hiddens)


# ------------------------------------------------------------------------- mixers


class HyperNetwork(nn.Module):
    """Two-layer MLP with ReLU, mapping the global state to mixer weights."""

    width: int
    out: int
    init_scale: float

    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        dense = functools.partial(nn.Dense, kernel_init=orthogonal(self.init_scale), bias_init=constant(0.0))
        return dense(self.out)(nn.relu(dense(self.width)(x)))


class QMixer(nn.Module):
    """QMIX's mixing network: ``Q_tot = elu(q W1 + b1) . w2 + V(s)`` with ``W1 = |hyper(s)|``
    ``(n, embedding)`` and ``w2 = |hyper(s)|`` ``(embedding,)``, so ``dQ_tot/dq_i >= 0``.

    ``(q (..., n), state (..., state_dim))`` -> ``Q_tot (...)``.
    """

    embedding: int
    hypernet_width: int
    init_scale: float

    @nn.compact
    def __call__(self, q: jax.Array, state: jax.Array) -> jax.Array:
        n, e, scale = q.shape[-1], self.embedding, self.init_scale
        w1 = jnp.abs(HyperNetwork(self.hypernet_width, n * e, scale)(state)).reshape(*q.shape, e)
        b1 = nn.Dense(e, kernel_init=orthogonal(scale), bias_init=constant(0.0))(state)
        w2 = jnp.abs(HyperNetwork(self.hypernet_width, e, scale)(state))
        v = HyperNetwork(e, 1, scale)(state)[..., 0]  # state-dependent bias V(s)
        hidden = nn.elu(jnp.einsum("...n,...ne->...e", q, w1) + b1)
        return jnp.sum(hidden * w2, axis=-1) + v


# -------------------------------------------------------------- setup and acting


class Setup(NamedTuple):
    """What ``make_train`` derives from the config (the config itself is not changed)."""

    config: dict
    env: Any  # the LogWrapper-ed environment
    manager: RolloutManager
    network: QNetwork
    mixer: QMixer | None
    mixer_kind: str  # none (IQL), vdn or qmix
    buffer: Any  # a flashbax item buffer whose items are rollouts of one environment
    num_envs: int
    num_steps: int
    num_updates: int
    first_learning_update: int  # index of the first update that takes gradient steps


def setup(config: dict) -> Setup:
    """Environment, rollout manager, networks and buffer for ``config``."""
    mixer_kind = str(config["MIXER"])
    if mixer_kind not in MIXERS:
        raise ValueError(f"MIXER must be one of {MIXERS} (none = IQL), got {mixer_kind!r}")
    env = LogWrapper(jaxmarl.make(config["ENV_NAME"], **config.get("ENV_KWARGS", {})))
    num_envs, num_steps = int(config["NUM_ENVS"]), int(config["NUM_STEPS"])
    manager = RolloutManager(env, num_envs, config.get("AGENT_IDS", True), config.get("TEAMS"))
    if not manager.batcher.discrete:
        raise ValueError(
            f"Q-learning needs Discrete actions; {config['ENV_NAME']} has "
            f"{manager.batcher.kind.replace('_', '-')} ones here (for MPE set "
            "ENV_KWARGS.action_type=Discrete; for multi-discrete actions use PPO or A2C)"
        )
    steps_per_update = num_steps * num_envs
    num_updates = int(config["TOTAL_TIMESTEPS"]) // steps_per_update
    if num_updates < 1:
        raise ValueError("TOTAL_TIMESTEPS must cover at least one rollout of NUM_STEPS * NUM_ENVS steps")
    batch, size = int(config["BUFFER_BATCH_SIZE"]), int(config["BUFFER_SIZE"])
    if not 1 <= batch <= size or size < num_envs:
        raise ValueError(
            f"need 1 <= BUFFER_BATCH_SIZE ({batch}) <= BUFFER_SIZE ({size}) and NUM_ENVS <= BUFFER_SIZE"
        )
    # Learn once the buffer holds a batch of rollouts and LEARNING_STARTS steps were taken.
    first = max(-(-batch // num_envs), -(-int(config["LEARNING_STARTS"]) // steps_per_update), 1) - 1
    mixer = None
    if mixer_kind == "qmix":
        mixer = QMixer(
            int(config["MIXER_EMBEDDING_DIM"]),
            int(config["MIXER_HYPERNET_DIM"]),
            float(config["MIXER_INIT_SCALE"]),
        )
    buffer = fbx.make_item_buffer(
        max_length=size, min_length=batch, sample_batch_size=batch, add_sequences=True
    )
    network = QNetwork(int(config["HIDDEN_SIZE"]), manager.action_dim)
    return Setup(
        config, env, manager, network, mixer, mixer_kind, buffer, num_envs, num_steps, num_updates, first
    )


def agent_q(s: Setup, params: dict, hidden: jax.Array, obs: jax.Array, resets: jax.Array) -> tuple:
    """Q-values of every agent, each team through its own network.

    Args:
        params: agent-network parameters keyed by team name.
        hidden: ``(batch, num_agents, width)``; obs: ``(time, batch, num_agents, obs_dim)``;
        resets: ``(time, batch)``, a new episode starts at this step.

    Returns:
        ``(hiddens (time, batch, num_agents, width), q (time, batch, num_agents, action_dim))``.
    """
    time, batch = obs.shape[:2]
    outs, order = [], []
    for team in s.manager.teams:
        idx, n = list(team.agents), len(team.agents)
        h = hidden[:, idx].reshape(batch * n, -1)
        x = obs[:, :, idx].reshape(time, batch * n, -1)
        hs, q = cast(tuple, s.network.apply(params[team.name], h, x, jnp.repeat(resets, n, axis=1)))
        outs.append((hs.reshape(time, batch, n, -1), q.reshape(time, batch, n, -1)))
        order += idx
    hiddens, q = (jnp.concatenate(parts, axis=2) for parts in zip(*outs, strict=True))
    if order != list(range(len(order))):  # teams are not contiguous: back to agent order
        inverse = np.argsort(order)
        hiddens, q = hiddens[:, :, inverse], q[:, :, inverse]
    return hiddens, q


def greedy(q: jax.Array, avail: jax.Array) -> jax.Array:
    """The best legal action, ``(...)`` from ``q`` and ``avail`` ``(..., action_dim)``."""
    return jnp.argmax(jnp.where(avail, q, -jnp.inf), axis=-1).astype(jnp.int32)


class Exploration(NamedTuple):
    """The random numbers of epsilon-greedy acting, drawn ahead of the steps that use
    them (one draw for a whole rollout rather than several per step inside its loop)."""

    gumbel: jax.Array  # (..., action_dim) Gumbel noise: its best legal entry is a uniform legal action
    uniform: jax.Array  # (...) in [0, 1): explore where it is below epsilon


def draw_exploration(key: jax.Array, shape: tuple[int, ...], action_dim: int) -> Exploration:
    """Exploration noise for acting ``shape`` agent-steps."""
    key_action, key_explore = jax.random.split(key)
    return Exploration(
        jax.random.gumbel(key_action, (*shape, action_dim)), jax.random.uniform(key_explore, shape)
    )


def epsilon_greedy(noise: Exploration, q: jax.Array, avail: jax.Array, eps: jax.Array | float) -> jax.Array:
    """Where ``noise.uniform < eps`` (probability ``eps`` for each agent) a uniformly random
    legal action (Gumbel-max: the legal action of largest noise), else the greedy one."""
    random = greedy(noise.gumbel, avail)
    return jnp.where(noise.uniform < eps, random, greedy(q, avail))


def epsilon(s: Setup, update: jax.Array) -> jax.Array:
    """Exploration rate of rollout ``update``: linear from EPS_START to EPS_FINISH over the
    first EPS_DECAY fraction of TOTAL_TIMESTEPS, then constant."""
    c = s.config
    decay_steps = max(float(c["EPS_DECAY"]) * float(c["TOTAL_TIMESTEPS"]), 1.0)
    frac = jnp.clip(update * s.num_steps * s.num_envs / decay_steps, 0.0, 1.0)
    return c["EPS_START"] + frac * (c["EPS_FINISH"] - c["EPS_START"])


# ------------------------------------------------------------------------ rollout


class Transition(NamedTuple):
    """One step of the rollout; arrays are ``(num_envs, num_agents, ...)`` when acting
    (the time and batch axes come first in training)."""

    obs: jax.Array  # (num_agents, obs_dim) the step's input
    resets: jax.Array  # () a new episode starts at this step: the hidden state is zeroed first
    avail: jax.Array  # (num_agents, action_dim) legal actions
    action: jax.Array  # (num_agents,) int32
    reward: jax.Array  # (num_agents,)
    terminated: jax.Array  # (num_agents,) the agent's episode ended for good (not a time limit)
    next_obs: jax.Array  # (num_agents, obs_dim) where the step led, before any automatic reset
    next_avail: jax.Array  # (num_agents, action_dim) legal actions there
    state: jax.Array  # (state_dim,) global state for QMIX's mixer; (0,) otherwise
    next_state: jax.Array  # (state_dim,) global state where the step led; (0,) otherwise


class Episodes(NamedTuple):
    """Episodes that ended at one step (from the LogWrapper), ``(num_envs, num_agents)``."""

    returned: jax.Array
    returns: jax.Array
    lengths: jax.Array
    metrics: dict  # the env's episode metrics (win_rate, score ...), name -> (num_envs,)


class Actors(NamedTuple):
    """Where the environments and the agents' memories are between steps."""

    env_state: Any
    obs: jax.Array  # (num_envs, num_agents, obs_dim)
    resets: jax.Array  # (num_envs,) the next step starts an episode
    hidden: jax.Array  # (num_envs, num_agents, width)


def env_step(
    s: Setup, params: dict, eps: jax.Array, actors: Actors, inputs: tuple[Exploration, jax.Array]
) -> tuple[Actors, tuple[Transition, Episodes, jax.Array]]:
    """Act epsilon-greedily in every environment (``inputs``: the step's exploration
    noise and environment key) and step them once. Also returns the Q-values acted on,
    ``(num_envs, num_agents, action_dim)``."""
    noise, key_env = inputs
    m = s.manager
    avail = m.avail_actions(actors.env_state)
    hiddens, q = agent_q(s, params, actors.hidden, actors.obs[None], actors.resets[None])
    action = epsilon_greedy(noise, q[0], avail, eps)
    obs, env_state, reward, _, info = m.step(key_env, actors.env_state, action)
    final_state = info["final_state"]
    if s.mixer_kind == "qmix":
        state, next_state = m.global_state(actors.env_state), m.global_state(final_state)
    else:
        state = next_state = jnp.zeros((s.num_envs, 0))
    transition = Transition(
        obs=actors.obs,
        resets=actors.resets,
        avail=avail,
        action=action,
        reward=reward.astype(jnp.float32),
        terminated=info["terminated"],
        next_obs=info["final_obs"],
        next_avail=m.avail_actions(final_state),
        state=state,
        next_state=next_state,
    )
    episodes = Episodes(
        info["returned_episode"],
        info["returned_episode_returns"],
        info["returned_episode_lengths"],
        info["returned_episode_metrics"],
    )
    return Actors(env_state, obs, info["episode_over"], hiddens[0]), (transition, episodes, q[0])


def rollout(
    s: Setup, params: dict, eps: jax.Array, actors: Actors, key: jax.Array
) -> tuple[Actors, tuple[Transition, Episodes, jax.Array]]:
    """``NUM_STEPS`` steps of every environment; outputs are time-major ``(num_steps, num_envs, ...)``."""
    key_explore, key_env = jax.random.split(key)
    m = s.manager
    noise = draw_exploration(key_explore, (s.num_steps, s.num_envs, m.num_agents), m.action_dim)
    step = functools.partial(env_step, s, params, eps)
    return jax.lax.scan(step, actors, (noise, jax.random.split(key_env, s.num_steps)))


def fresh_actors(s: Setup, key: jax.Array) -> Actors:
    """New episodes in every environment, with zeroed memories."""
    obs, env_state = s.manager.reset(key)
    m = s.manager
    hidden = jnp.zeros((s.num_envs, m.num_agents, s.network.width))
    return Actors(env_state, obs, jnp.ones((s.num_envs,), bool), hidden)


# ------------------------------------------------------------------------- buffer


class Sequence(NamedTuple):
    """A replay item: one environment's rollout and the hidden state it started from."""

    steps: Transition  # (num_steps, ...)
    hidden0: jax.Array  # (num_agents, width)


def to_items(steps: Transition, hidden0: jax.Array) -> Sequence:
    """A rollout ``(num_steps, num_envs, ...)`` as ``num_envs`` replay items."""
    return Sequence(jax.tree.map(lambda x: jnp.swapaxes(x, 0, 1), steps), hidden0)


def empty_item(s: Setup) -> Sequence:
    """A replay item of zeros, with the shapes and dtypes the buffer is built for."""
    key = jax.random.PRNGKey(0)
    params = jax.eval_shape(functools.partial(init_params, s), key)
    actors = jax.eval_shape(functools.partial(fresh_actors, s), key)
    steps = jax.eval_shape(
        lambda p, a: rollout(s, p["agent"], jnp.float32(1.0), a, key)[1][0], params, actors
    )
    return Sequence(
        jax.tree.map(lambda x: jnp.zeros((x.shape[0], *x.shape[2:]), x.dtype), steps),
        jnp.zeros(actors.hidden.shape[1:], actors.hidden.dtype),
    )


def sample_batch(s: Setup, buffer_state: Any, key: jax.Array) -> tuple[Transition, jax.Array]:
    """``BUFFER_BATCH_SIZE`` items drawn uniformly from the buffer: time-major steps
    ``(num_steps, batch, ...)`` and their initial hidden states ``(batch, num_agents, width)``."""
    items: Sequence = s.buffer.sample(buffer_state, key).experience
    return jax.tree.map(lambda x: jnp.swapaxes(x, 0, 1), items.steps), items.hidden0


# ------------------------------------------------------------------------ targets


def double_q(q_next_online: jax.Array, q_next_target: jax.Array, next_avail: jax.Array) -> jax.Array:
    """Double Q-learning's next value: the target network's Q of the online network's best
    legal action, ``(...)`` from ``(..., action_dim)`` inputs."""
    best = greedy(q_next_online, next_avail)
    return jnp.take_along_axis(q_next_target, best[..., None], axis=-1)[..., 0]


def mix(s: Setup, mixer_params: Any, q: jax.Array, state: jax.Array) -> jax.Array:
    """What is regressed, ``(..., num_units)`` from per-agent values ``(..., num_agents)``:
    the agents themselves (IQL) or one value per team (VDN: sum, QMIX: mixer)."""
    teams = s.manager.teams
    if s.mixer_kind == "none":
        return q
    if s.mixer_kind == "vdn":
        return s.manager.team_sum(q)
    assert s.mixer is not None
    mixed = [
        cast(jax.Array, s.mixer.apply(mixer_params[t.name], q[..., list(t.agents)], state)) for t in teams
    ]
    return jnp.stack(mixed, axis=-1)


def unit_rewards_discounts(s: Setup, reward: jax.Array, terminated: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Rewards and bootstrap masks per unit: each agent's own (IQL), or per team the sum
    of its members' rewards, bootstrapped unless every member terminated."""
    if s.mixer_kind == "none":
        return reward, 1.0 - terminated
    alive = s.manager.team_sum(1.0 - terminated)
    return s.manager.team_sum(reward), (alive > 0).astype(reward.dtype)


def td_targets(reward: jax.Array, discount: jax.Array, next_value: jax.Array, gamma: float) -> jax.Array:
    """One-step targets ``r + gamma * discount * next_value``."""
    return reward + gamma * discount * next_value


# --------------------------------------------------------------------------- loss


def cut_steps(s: Setup, steps: Transition) -> jax.Array:
    """Time indices ``(max_cuts, batch)`` of the steps whose successor is not the next
    stored step but ``next_obs``: the sequence's last step and truncated episodes' last
    steps (terminations need no successor). Time limits make at most
    ``ceil(time / max_steps)`` truncations per sequence, so ``max_cuts`` covers them all."""
    time = steps.resets.shape[0]
    max_steps = getattr(s.env, "max_steps", None)
    max_cuts = min(time, 1 + (-(-time // max_steps) if max_steps else 0))
    ended = jnp.concatenate([steps.resets[1:], jnp.ones_like(steps.resets[:1])])  # (time, batch)
    cut = ended & ~jnp.all(steps.terminated, axis=-1)
    return jnp.argsort(~cut, axis=0, stable=True)[:max_cuts]  # cut steps first, in order


def successor_q(
    s: Setup, agent_params: dict, hiddens: jax.Array, q: jax.Array, next_obs: jax.Array, cuts: jax.Array
) -> jax.Array:
    """Q-values ``(time, batch, num_agents, action_dim)`` of where each step led: the
    unroll's ``q[t + 1]`` where the episode went on, and one more network step from
    ``hiddens[t]`` on ``next_obs[t]`` at the ``cuts`` (where it is the observation that
    the episode was cut at)."""
    num_cuts, batch = cuts.shape
    b = jnp.arange(batch)[None, :]
    h, x = hiddens[cuts, b], next_obs[cuts, b]  # (num_cuts, batch, num_agents, ...)
    n = h.shape[2]
    rows = num_cuts * batch
    _, q_cut = agent_q(
        s, agent_params, h.reshape(rows, n, -1), x.reshape(1, rows, n, -1), jnp.zeros((1, rows), bool)
    )
    following = jnp.concatenate([q[1:], q[-1:]])  # q[t + 1]; the last step is always a cut
    return following.at[cuts, b].set(q_cut.reshape(num_cuts, batch, n, -1))


def td_errors(
    s: Setup, params: dict, target_params: dict, steps: Transition, hidden0: jax.Array
) -> tuple[jax.Array, jax.Array]:
    """TD errors and Q-values of the taken actions per unit, ``(time, batch, num_units)``.

    Both networks unroll the stored sequences from ``hidden0`` with the stored reset
    flags; the value of where a step led comes from the next step of the unroll, or,
    where the episode was truncated or the sequence ends, from one more network step on
    ``next_obs`` (so truncated episodes bootstrap from the observation they were cut at)."""
    gamma = float(s.config["GAMMA"])
    hiddens, q = agent_q(s, params["agent"], hidden0, steps.obs, steps.resets)
    target_hiddens, target_q = agent_q(s, target_params["agent"], hidden0, steps.obs, steps.resets)
    cuts = cut_steps(s, steps)
    online_hiddens, online_q = jax.lax.stop_gradient((hiddens, q))
    online_params = jax.lax.stop_gradient(params["agent"])  # it only picks actions here
    next_values = double_q(
        successor_q(s, online_params, online_hiddens, online_q, steps.next_obs, cuts),
        successor_q(s, target_params["agent"], target_hiddens, target_q, steps.next_obs, cuts),
        steps.next_avail,
    )
    taken = jnp.take_along_axis(q, steps.action[..., None], axis=-1)[..., 0]
    q_units = mix(s, params.get("mixer"), taken, steps.state)
    next_units = mix(s, target_params.get("mixer"), next_values, steps.next_state)
    reward, discount = unit_rewards_discounts(s, steps.reward, steps.terminated.astype(jnp.float32))
    targets = jax.lax.stop_gradient(td_targets(reward, discount, next_units, gamma))
    return q_units - targets, q_units


def loss_fn(s: Setup, params: dict, target_params: dict, batch: tuple) -> tuple[jax.Array, dict]:
    """Mean squared TD error over steps, sequences and units."""
    errors, q_units = td_errors(s, params, target_params, *batch)
    loss = jnp.mean(jnp.square(errors))
    return loss, {"loss": loss, "q_taken": q_units.mean()}


# ------------------------------------------------------------------------- update


class Runner(NamedTuple):
    train_state: TrainState
    target_params: dict
    buffer_state: Any
    actors: Actors
    key: jax.Array


LEARN_STATS = ("loss", "q_taken", "grad_norm")


def learn(s: Setup, train_state: TrainState, target_params: dict, buffer_state: Any, key: jax.Array) -> tuple:
    """``NUM_EPOCHS`` gradient steps, each on a fresh batch from the buffer."""

    def gradient_step(train_state: TrainState, key: jax.Array) -> tuple[TrainState, dict]:
        batch = sample_batch(s, buffer_state, key)
        grads, stats = jax.grad(functools.partial(loss_fn, s), has_aux=True)(
            train_state.params, target_params, batch
        )
        stats["grad_norm"] = optax.tree.norm(grads)
        return train_state.apply_gradients(grads=grads), stats

    keys = jax.random.split(key, int(s.config["NUM_EPOCHS"]))
    train_state, stats = jax.lax.scan(gradient_step, train_state, keys)
    return train_state, {k: v.mean() for k, v in stats.items()}


def update_step(s: Setup, progress: Any, runner: Runner, update: jax.Array) -> tuple[Runner, dict]:
    """One rollout into the buffer, gradient steps once learning has started, and the
    target network's update. ``update`` (the rollout's index) is not batched over seeds,
    so the branches below are real branches, not both computed and selected."""
    key, key_reset, key_rollout, key_learn = jax.random.split(runner.key, 4)
    actors = runner.actors
    if s.config["RESET_EACH_ROLLOUT"]:  # items are episodes from their first step
        actors = fresh_actors(s, key_reset)
    eps = epsilon(s, update)
    ts = runner.train_state
    actors_end, (steps, episodes, _) = rollout(s, ts.params["agent"], eps, actors, key_rollout)
    buffer_state = s.buffer.add(runner.buffer_state, to_items(steps, actors.hidden))

    nan = {k: jnp.float32(jnp.nan) for k in LEARN_STATS}
    ts, stats = jax.lax.cond(
        update >= s.first_learning_update,
        lambda ts: learn(s, ts, runner.target_params, buffer_state, key_learn),
        lambda ts: (ts, nan),
        ts,
    )
    interval, tau = int(s.config["TARGET_UPDATE_INTERVAL"]), float(s.config["TAU"])
    target_params = jax.lax.cond(
        (update + 1) % interval == 0,
        lambda: optax.incremental_update(ts.params, runner.target_params, tau),
        lambda: runner.target_params,
    )
    metrics = episode_metrics(*episodes) | stats
    metrics["epsilon"] = eps
    metrics["timestep"] = (update + 1) * s.num_steps * s.num_envs
    runs.report_progress(progress, update, metrics, runs.env_metric_names(s.env))
    return Runner(ts, target_params, buffer_state, actors_end, key), metrics


def init_params(s: Setup, key: jax.Array) -> dict:
    """Agent-network (and QMIX mixer) parameters for every team, keyed by team name."""
    m = s.manager
    width = s.network.width
    params: dict = {"agent": {}}
    if s.mixer is not None:
        params["mixer"] = {}
    for team, team_key in zip(m.teams, jax.random.split(key, len(m.teams)), strict=True):
        key_agent, key_mixer = jax.random.split(team_key)
        params["agent"][team.name] = s.network.init(
            key_agent, jnp.zeros((1, width)), jnp.zeros((1, 1, m.obs_dim)), jnp.zeros((1, 1), bool)
        )
        if s.mixer is not None:
            q, state = jnp.zeros((len(team.agents),)), jnp.zeros((m.state_dim,))
            params["mixer"][team.name] = s.mixer.init(key_mixer, q, state)
    return params


def make_learner(config: dict, progress: Any = None) -> Learner:
    """The training loop of ``config`` as a :class:`~baselines.common.Learner`:
    ``init(rng)`` and ``update(runner, index)``, pure and jittable.

    ``progress(update, return_mean, *env_metrics)``, if given, is called from inside the
    loop (through ``jax.debug.callback``) after every update."""
    s = setup(config)
    num_grad_steps = (s.num_updates - s.first_learning_update) * int(config["NUM_EPOCHS"])
    lr: Any = float(config["LR"])
    if config["ANNEAL_LR"]:
        lr = optax.linear_schedule(lr, 0.0, max(num_grad_steps, 1))

    def init(rng: jax.Array) -> Runner:
        key_params, key_actors, key_run = jax.random.split(rng, 3)
        params = init_params(s, key_params)
        tx = optax.chain(optax.clip_by_global_norm(float(config["MAX_GRAD_NORM"])), optax.adam(lr))
        train_state = TrainState.create(apply_fn=None, params=params, tx=tx)
        actors = fresh_actors(s, key_actors)
        return Runner(train_state, params, s.buffer.init(empty_item(s)), actors, key_run)

    update = functools.partial(update_step, s, progress)
    return Learner(init, update, s.num_updates, lambda runner: runner.train_state.params)


def make_train(config: dict, progress: Any = None) -> Any:
    """Build ``train(rng) -> {"params", "metrics"}`` for ``config``: pure and jittable,
    so ``jax.jit(jax.vmap(train))(keys)`` trains one set of agents per key (the whole run
    under one ``jit``)."""
    return make_learner(config, progress).train


# --------------------------------------------------------------- acting (evaluation)


def make_policy(config: dict) -> tuple[Any, Any, Any]:
    """``(env, init_hidden, act)`` to run trained parameters of one seed: the environment
    (as ``jaxmarl.make`` builds it),
    ``act(params, hidden, obs_dict, env_state, resets, key, greedy) -> (hidden, actions)``
    for one environment (``env_state`` its state, or a ``LogWrapper``'s around it;
    ``greedy=False`` explores with ``EPS_FINISH``), and ``init_hidden()``."""
    s = setup(config)
    env, batcher = s.env.unwrapped, s.manager.batcher

    def init_hidden() -> jax.Array:
        return jnp.zeros((batcher.num_agents, s.network.width))

    def act(
        params: dict,
        hidden: jax.Array,
        obs: dict,
        env_state: Any,
        resets: jax.Array,
        key: jax.Array,
        greedy: bool,
    ) -> tuple:
        avail = batcher.avail(env.get_avail_actions(env_state_of(env_state)))
        x = batcher.obs(obs)[None, None]
        hiddens, q = agent_q(s, params["agent"], hidden[None], x, jnp.reshape(resets, (1, 1)))
        eps = 0.0 if greedy else float(config["EPS_FINISH"])
        noise = draw_exploration(key, q.shape[2:3], q.shape[3])
        return hiddens[0, 0], batcher.actions(epsilon_greedy(noise, q[0, 0], avail, eps))

    return env, init_hidden, act


# ------------------------------------------------------------------------- main


def run(config: dict, run_dir: Path | None = None, resume: bool = False) -> dict:
    """Train ``config`` for every seed (printing progress) and, if ``run_dir`` is given,
    write the run folder there as it goes (continuing it with ``resume``). Returns the
    training output (params and metrics ``(num_seeds, num_updates, ...)``)."""
    s = setup(config)
    steps = s.num_steps * s.num_envs
    return runs.train_and_save(make_learner, config, run_dir, steps, s.manager.agents, s.env, resume)


def main() -> None:
    runs.hydra_main("config/qlearning", run)


if __name__ == "__main__":
    main()
