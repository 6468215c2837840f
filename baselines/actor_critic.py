"""The actor-critic machinery that PPO (``baselines/ppo.py``) and A2C
(``baselines/a2c.py``) share: action distributions, networks, the environments and
networks a config asks for, the rollout, generalised advantage estimation and acting with
trained parameters. Each script keeps what makes it its algorithm: its loss and its
update.

Agents with different spaces are padded to a common shape and masked
(``jaxmarl.wrappers.AgentBatcher``), with a one-hot agent id appended to the observations
so one shared policy can tell them apart. The critic sees the agent's own observation
(``CRITIC: local``) or the environment's centralised state, ``env.get_global_state``,
plus a one-hot agent id (``CRITIC: world``). Networks are feed-forward or GRU
(``NETWORK: ff | rnn``), the actor and the critic separate or, with a local critic, on
one torso (``SHARED_TORSO``, :class:`SharedActorCritic`).

Environments that report a shaped reward in ``info["shaped_reward"]`` (Overcooked) can
train on it: with ``REW_SHAPING_HORIZON`` set, it is added to the reward with a
coefficient annealed linearly from 1 to 0 over that many environment steps (the
JaxMARL paper's Overcooked training); logged returns stay the environment's own.

Time limits are truncations: when an episode is cut short, the critic's value of the
state it ended in (``info["final_obs"]`` / ``info["final_state"]``) is added to the last
reward, so advantages bootstrap correctly instead of treating the cut as an end. That
value is computed only on the steps where some episode was truncated
(:func:`baselines.common.when_any`).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable
from typing import Any, NamedTuple, cast

import distrax
import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import struct
from flax.linen.initializers import constant
from flax.training.train_state import TrainState

import jaxmarl
from baselines import runs
from baselines.common import Dense, ScannedGRU, env_state_of, orthogonal, when_any
from jaxmarl.wrappers import AgentBatcher, LogWrapper

# ------------------------------------------------------------------ distributions


@struct.dataclass
class Policy:
    """An action distribution over ``(..., num_agents)`` actors.

    Discrete: ``logits`` ``(..., n)`` with illegal actions masked out. Multi-discrete
    (factorised): ``logits`` ``(..., sum(head_sizes))``, head after head, masked, and
    ``head_sizes`` (static): one independent categorical per head; an action is ``(...,
    num_heads)`` and its log-probability and entropy are the heads' sums. Continuous: a
    diagonal Gaussian ``mean`` ``(..., d)``, ``log_std`` ``(d,)`` and ``dim_mask``
    ``(..., d)`` marking the dimensions the agent really has (padding is ignored).
    """

    logits: jax.Array | None = None
    mean: jax.Array | None = None
    log_std: jax.Array | None = None
    dim_mask: jax.Array | None = None
    head_sizes: tuple[int, ...] | None = struct.field(pytree_node=False, default=None)

    def _heads(self) -> list[distrax.Categorical]:
        assert self.logits is not None and self.head_sizes is not None
        bounds = np.cumsum((0, *self.head_sizes))
        return [distrax.Categorical(logits=self.logits[..., a:b]) for a, b in itertools.pairwise(bounds)]

    def sample(self, key: jax.Array) -> jax.Array:
        if self.head_sizes is not None:
            # Gumbel-max with one noise draw for every head's entries (on the CPU each
            # jax.random call is its own loop of threefry rounds; 13 heads made 14).
            assert self.logits is not None
            noisy = self.logits + jax.random.gumbel(key, self.logits.shape, self.logits.dtype)
            bounds = np.cumsum((0, *self.head_sizes))
            return jnp.stack([jnp.argmax(noisy[..., a:b], -1) for a, b in itertools.pairwise(bounds)], -1)
        if self.logits is not None:
            return jax.random.categorical(key, self.logits)
        assert self.mean is not None and self.log_std is not None
        return self.mean + jnp.exp(self.log_std) * jax.random.normal(key, self.mean.shape)

    def mode(self) -> jax.Array:
        if self.head_sizes is not None:
            return jnp.stack([jnp.argmax(h.logits, -1) for h in self._heads()], -1)
        return jnp.argmax(self.logits, -1) if self.logits is not None else self.mean  # type: ignore[return-value]

    def log_prob(self, action: jax.Array) -> jax.Array:
        if self.head_sizes is not None:
            return sum(h.log_prob(action[..., i]) for i, h in enumerate(self._heads()))
        if self.logits is not None:
            return distrax.Categorical(logits=self.logits).log_prob(action)
        assert self.mean is not None and self.log_std is not None
        per_dim = distrax.Normal(self.mean, jnp.exp(self.log_std)).log_prob(action)
        return jnp.sum(per_dim * self.dim_mask, axis=-1)

    def entropy(self) -> jax.Array:
        if self.head_sizes is not None:
            return sum(h.entropy() for h in self._heads())
        if self.logits is not None:
            return distrax.Categorical(logits=self.logits).entropy()
        assert self.mean is not None and self.log_std is not None
        per_dim = distrax.Normal(self.mean, jnp.exp(self.log_std)).entropy()
        return jnp.sum(per_dim * self.dim_mask, axis=-1)


# ----------------------------------------------------------------------- networks
# Inputs are time-major, (time, actors, features); feed-forward networks ignore the
# hidden state and the reset flags, recurrent ones reset where a new episode starts.


def activation_fn(name: str) -> Any:
    return {"tanh": nn.tanh, "relu": nn.relu}[name]


def symlog(x: jax.Array) -> jax.Array:
    """``sign(x) * log(1 + |x|)``: compresses raw counts and coordinates (DreamerV3's input
    transform) while keeping small values nearly as they are."""
    return jnp.sign(x) * jnp.log1p(jnp.abs(x))


class Torso(nn.Module):
    """Shared body of the actor and the critic: an MLP (``ff``) or, for ``rnn``, a dense
    embedding, a GRU and a dense layer (the JaxMARL paper's Table 6 layouts). With
    ``symlog`` (config ``OBS_SYMLOG``) the inputs pass through :func:`symlog` first."""

    network: str
    width: int
    layers: int
    activation: str
    symlog: bool = False

    @nn.compact
    def __call__(self, hidden: jax.Array, x: jax.Array, resets: jax.Array) -> tuple[jax.Array, jax.Array]:
        act = activation_fn(self.activation)
        if self.symlog:
            x = symlog(x)
        dense = functools.partial(Dense, kernel_init=orthogonal(np.sqrt(2)), bias_init=constant(0.0))
        if self.network == "ff":
            for _ in range(self.layers):
                x = act(dense(self.width)(x))
            return hidden, x
        x = act(dense(self.width)(x))
        hidden, x = ScannedGRU(self.width)(hidden, (x, resets))
        for _ in range(self.layers - 1):
            x = act(dense(self.width)(x))
        return hidden, x


class Actor(nn.Module):
    """The policy network; ``kind`` and ``head_sizes`` as in ``AgentBatcher`` (``avail``
    is ``(..., action_dim)``)."""

    network: str
    width: int
    layers: int
    activation: str
    action_dim: int
    kind: str  # "discrete", "continuous" or "multi_discrete"
    head_sizes: tuple[int, ...] | None = None
    symlog: bool = False

    @nn.compact
    def __call__(
        self, hidden: jax.Array, obs: jax.Array, resets: jax.Array, avail: jax.Array
    ) -> tuple[jax.Array, Policy]:
        torso = Torso(self.network, self.width, self.layers, self.activation, self.symlog)
        hidden, x = torso(hidden, obs, resets)
        out = Dense(self.action_dim, kernel_init=orthogonal(0.01), bias_init=constant(0.0))(x)
        if self.kind == "discrete":
            return hidden, Policy(logits=jnp.where(avail, out, -1e9))
        if self.kind == "multi_discrete":
            return hidden, Policy(logits=jnp.where(avail, out, -1e9), head_sizes=self.head_sizes)
        log_std = self.param("log_std", nn.initializers.zeros, (self.action_dim,))
        return hidden, Policy(mean=out, log_std=log_std, dim_mask=avail.astype(out.dtype))


class Critic(nn.Module):
    network: str
    width: int
    layers: int
    activation: str
    symlog: bool = False

    @nn.compact
    def __call__(self, hidden: jax.Array, x: jax.Array, resets: jax.Array) -> tuple[jax.Array, jax.Array]:
        torso = Torso(self.network, self.width, self.layers, self.activation, self.symlog)
        hidden, x = torso(hidden, x, resets)
        value = Dense(1, kernel_init=orthogonal(1.0), bias_init=constant(0.0))(x)
        return hidden, jnp.squeeze(value, -1)


class SharedActorCritic(nn.Module):
    """The actor and the critic on one torso (config ``SHARED_TORSO``, JaxMARL's
    ``ActorCriticRNN`` layout): ``torso`` is the first dense layer (``ff``) or the dense
    embedding and the GRU (``rnn``); ``actor`` and ``critic`` are feed-forward branches
    (the torso's remaining ``layers - 1`` dense layers each, then their heads) on its
    output. One hidden state, one pass for the policy and the value."""

    torso: Torso
    actor: Actor
    critic: Critic

    def __call__(
        self, hidden: jax.Array, obs: jax.Array, resets: jax.Array, avail: jax.Array
    ) -> tuple[jax.Array, Policy, jax.Array]:
        hidden, x = self.torso(hidden, obs, resets)
        _, pi = self.actor(hidden, x, resets, avail)
        _, value = self.critic(hidden, x, resets)
        return hidden, pi, value


def run_actor(
    actor: Actor, params: Any, hidden: jax.Array, obs: jax.Array, resets: jax.Array, avail: jax.Array
) -> tuple[jax.Array, Policy]:
    """Apply the actor to time-major inputs ``(time, actors, ...)``."""
    return cast(tuple[jax.Array, Policy], actor.apply(params, hidden, obs, resets, avail))


def run_critic(
    critic: Critic, params: Any, hidden: jax.Array, x: jax.Array, resets: jax.Array
) -> tuple[jax.Array, jax.Array]:
    """Apply the critic to time-major inputs ``(time, actors, ...)``; values ``(time, actors)``."""
    return cast(tuple[jax.Array, jax.Array], critic.apply(params, hidden, x, resets))


def _run_shared(
    s: Setup, params: Any, hidden: jax.Array, obs: jax.Array, resets: jax.Array, avail: jax.Array
) -> tuple[jax.Array, Policy, jax.Array]:
    assert s.shared is not None
    return cast(
        tuple[jax.Array, Policy, jax.Array],
        s.shared.apply(params["actor_critic"], hidden, obs, resets, avail),
    )


def run_networks(
    s: Setup,
    params: Any,
    actor_hidden: jax.Array,
    critic_hidden: jax.Array,
    obs: jax.Array,
    critic_in: jax.Array,
    resets: jax.Array,
    avail: jax.Array,
) -> tuple[jax.Array, jax.Array, Policy, jax.Array]:
    """The policy and the value of time-major inputs ``(time, actors, ...)`` with all of
    a run's parameters: ``(actor_hidden, critic_hidden, policy, values)``. With a shared
    torso one pass gives both, and both hidden states are the torso's."""
    if s.shared is not None:
        hidden, pi, value = _run_shared(s, params, actor_hidden, obs, resets, avail)
        return hidden, hidden, pi, value
    actor_hidden, pi = run_actor(s.actor, params["actor"], actor_hidden, obs, resets, avail)
    critic_hidden, value = run_critic(s.critic, params["critic"], critic_hidden, critic_in, resets)
    return actor_hidden, critic_hidden, pi, value


def run_value(
    s: Setup, params: Any, hidden: jax.Array, critic_in: jax.Array, resets: jax.Array
) -> tuple[jax.Array, jax.Array]:
    """The critic alone on time-major inputs, with all of a run's parameters."""
    if s.shared is not None:
        avail = jnp.ones((*critic_in.shape[:-1], s.batcher.action_dim), bool)
        hidden, _, value = _run_shared(s, params, hidden, critic_in, resets, avail)
        return hidden, value
    return run_critic(s.critic, params["critic"], hidden, critic_in, resets)


def run_policy(
    s: Setup, params: Any, hidden: jax.Array, obs: jax.Array, resets: jax.Array, avail: jax.Array
) -> tuple[jax.Array, Policy]:
    """The actor alone on time-major inputs, with all of a run's parameters."""
    if s.shared is not None:
        hidden, pi, _ = _run_shared(s, params, hidden, obs, resets, avail)
        return hidden, pi
    return run_actor(s.actor, params["actor"], hidden, obs, resets, avail)


class Setup(NamedTuple):
    """What ``make_train`` derives from the config (the config itself is not changed)."""

    env: Any  # the LogWrapper-ed environment
    batcher: AgentBatcher
    actor: Actor
    critic: Critic
    num_envs: int
    num_actors: int  # num_envs * num_agents
    num_updates: int
    hidden_width: int
    critic_dim: int
    shared: SharedActorCritic | None  # SHARED_TORSO: the one network (actor and critic unused)


def setup(config: dict) -> Setup:
    """Environment, batcher and networks for ``config``."""
    env = LogWrapper(jaxmarl.make(config["ENV_NAME"], **config.get("ENV_KWARGS", {})))
    agent_ids = config.get("AGENT_IDS", "auto")
    batcher = AgentBatcher(env, agent_ids if agent_ids == "auto" else bool(agent_ids))
    network = config["NETWORK"]
    if network not in ("ff", "rnn"):
        raise ValueError(f"NETWORK must be 'ff' or 'rnn', got {network!r}")
    if config["CRITIC"] not in ("local", "world"):
        raise ValueError(f"CRITIC must be 'local' (IPPO) or 'world' (MAPPO), got {config['CRITIC']!r}")
    width = config["FF_WIDTH"] if network == "ff" else config["RNN_WIDTH"]
    layers = config["FF_LAYERS"] if network == "ff" else config["RNN_LAYERS"]
    obs_symlog = config.get("OBS_SYMLOG", False)
    if not isinstance(obs_symlog, bool):
        raise ValueError(f"OBS_SYMLOG must be true or false, got {obs_symlog!r}")
    activation = config["ACTIVATION"]
    actor = Actor(
        network, width, layers, activation, batcher.action_dim, batcher.kind, batcher.head_sizes, obs_symlog
    )
    critic = Critic(network, width, layers, activation, obs_symlog)
    shared_torso = config.get("SHARED_TORSO", False)
    if not isinstance(shared_torso, bool):
        raise ValueError(f"SHARED_TORSO must be true or false, got {shared_torso!r}")
    shared = None
    if shared_torso:
        if config["CRITIC"] != "local":
            raise ValueError(
                "SHARED_TORSO needs CRITIC: local (IPPO, IA2C): a world-state critic (MAPPO, MAA2C) "
                "sees other inputs than the actor"
            )
        shared = SharedActorCritic(
            Torso(network, width, 1, activation, obs_symlog),
            Actor("ff", width, layers - 1, activation, batcher.action_dim, batcher.kind, batcher.head_sizes),
            Critic("ff", width, layers - 1, activation),
        )
    num_envs = int(config["NUM_ENVS"])
    num_updates = int(config["TOTAL_TIMESTEPS"]) // int(config["NUM_STEPS"]) // num_envs
    if num_updates < 1:
        raise ValueError("TOTAL_TIMESTEPS must cover at least one update of NUM_STEPS * NUM_ENVS steps")
    if config["CRITIC"] == "world":
        state = jax.eval_shape(env.reset, jax.random.PRNGKey(0))[1]
        critic_dim = jax.eval_shape(env.get_global_state, state).shape[0] + batcher.num_agents
    else:
        critic_dim = batcher.obs_dim
    return Setup(
        env,
        batcher,
        actor,
        critic,
        num_envs,
        num_envs * batcher.num_agents,
        num_updates,
        width,
        critic_dim,
        shared,
    )


def critic_inputs(config: dict, s: Setup, obs: jax.Array, env_state: Any) -> jax.Array:
    """What the critic sees, ``(num_envs, num_agents, critic_dim)``: the agents' own
    (batched) observations for IPPO, or the world state and a one-hot id for MAPPO."""
    if config["CRITIC"] == "local":
        return obs
    world = jax.vmap(s.env.get_global_state)(env_state)  # (num_envs, state_dim)
    n = s.batcher.num_agents
    world = jnp.broadcast_to(world[:, None, :], (world.shape[0], n, world.shape[1]))
    ids = jnp.broadcast_to(jnp.eye(n, dtype=world.dtype), (world.shape[0], n, n))
    return jnp.concatenate([world, ids], axis=-1)


class Transition(NamedTuple):
    """One step of the rollout; arrays are ``(num_actors, ...)`` (envs x agents)."""

    obs: jax.Array  # (num_actors, obs_dim)
    critic_in: jax.Array  # (num_actors, critic_dim) for MAPPO; (num_actors, 0) for IPPO (= obs)
    resets: jax.Array  # (num_actors,) a new episode starts with this step's input
    avail: jax.Array  # (num_actors, action_dim)
    action: jax.Array  # (num_actors,), (num_actors, action_dim) or (num_actors, num_heads)
    log_prob: jax.Array  # (num_actors,)
    value: jax.Array  # (num_actors,)
    reward: jax.Array  # (num_actors,) with the bootstrap value added at truncations
    done: jax.Array  # (num_actors,) the episode ended with this step (done["__all__"])


class Episodes(NamedTuple):
    """Episodes that ended at one step (from the LogWrapper), ``(num_envs, num_agents)``."""

    returned: jax.Array  # an episode finished
    returns: jax.Array  # its return
    lengths: jax.Array  # its length
    metrics: dict  # the env's episode metrics (win_rate, score ...), name -> (num_envs,)


class RunnerState(NamedTuple):
    train_state: TrainState
    env_state: Any
    obs: jax.Array  # (num_actors, obs_dim)
    resets: jax.Array  # (num_actors,)
    actor_hidden: jax.Array  # (num_actors, hidden)
    critic_hidden: jax.Array  # (num_actors, hidden)
    key: jax.Array
    update: jax.Array  # int32 (), updates done


def gae(
    rewards: jax.Array, values: jax.Array, dones: jax.Array, last_value: jax.Array, gamma: float, lam: float
) -> tuple[jax.Array, jax.Array]:
    """Generalised advantage estimates and value targets (Schulman et al., 2016).

    Args:
        rewards, values, dones: ``(num_steps, num_actors)``; ``dones[t]`` is true when the
            actor's episode ended with step ``t`` (nothing is bootstrapped past it).
        last_value: ``(num_actors,)`` value of the observation after the last step.

    Returns:
        ``(advantages, targets)``, each ``(num_steps, num_actors)``.
    """

    # advantage[t] = delta[t] + decay[t] * advantage[t + 1]: a linear recurrence, solved
    # by a parallel (associative) scan of its affine maps: log2(num_steps) vectorised
    # levels instead of a sequential loop of num_steps tiny steps.
    not_done = 1.0 - dones.astype(rewards.dtype)
    next_values = jnp.concatenate([values[1:], last_value[None]])
    deltas = rewards + gamma * next_values * not_done - values
    decays = gamma * lam * not_done

    def compose(later: tuple, earlier: tuple) -> tuple:  # apply ``later``'s map, then ``earlier``'s
        decay_later, advantage_later = later
        decay_earlier, advantage_earlier = earlier
        return decay_earlier * decay_later, advantage_earlier + decay_earlier * advantage_later

    _, advantages = jax.lax.associative_scan(compose, (decays, deltas), reverse=True)
    return advantages, advantages + values


# ------------------------------------------------------------------------ rollout


class Rollout(NamedTuple):
    """The environment side of a training loop (:func:`make_rollout`).

    Attributes:
        init: ``(rng, tx) -> RunnerState``: fresh networks (their optimizer ``tx``) and
            ``NUM_ENVS`` freshly reset environments.
        collect: ``runner -> (runner, trajectory, episodes, last_value)``: ``NUM_STEPS``
            steps of every environment with the current policy; the trajectory and the
            episodes are time-major ``(NUM_STEPS, ...)``, ``last_value`` ``(num_actors,)``
            is the critic's value of the observation after the last step.
    """

    init: Callable[[jax.Array, optax.GradientTransformation], RunnerState]
    collect: Callable[[RunnerState], tuple[RunnerState, Transition, Episodes, jax.Array]]


def make_rollout(config: dict, s: Setup) -> Rollout:
    """The :class:`Rollout` of ``config`` (its environments and networks ``s``)."""
    env, batcher = s.env, s.batcher
    num_envs, num_actors, num_agents = s.num_envs, s.num_actors, batcher.num_agents
    num_steps, gamma = int(config["NUM_STEPS"]), float(config["GAMMA"])
    world_critic = config["CRITIC"] == "world"
    shaping_horizon = float(config.get("REW_SHAPING_HORIZON") or 0)  # env steps; 0: no shaped reward

    def to_actors(x: jax.Array) -> jax.Array:  # (num_envs, num_agents, ...) -> (num_actors, ...)
        return x.reshape((num_actors, *x.shape[2:]))

    def batched_obs(obs: dict) -> jax.Array:
        return jax.vmap(batcher.obs)(obs)  # (num_envs, num_agents, obs_dim)

    def apply_critic(params: Any, hidden: jax.Array, x: jax.Array, resets: jax.Array) -> tuple:
        hidden, value = run_value(s, params, hidden, x[None], resets[None])
        return hidden, value[0]

    def env_step(runner: RunnerState, _: None) -> tuple[RunnerState, tuple[Transition, Episodes]]:
        params = runner.train_state.params
        key, key_act, key_env = jax.random.split(runner.key, 3)
        avail = to_actors(jax.vmap(batcher.avail)(jax.vmap(env.get_avail_actions)(runner.env_state)))
        critic_in = to_actors(
            critic_inputs(config, s, runner.obs.reshape(num_envs, num_agents, -1), runner.env_state)
        )
        actor_hidden, critic_hidden, pi, value = run_networks(
            s,
            params,
            runner.actor_hidden,
            runner.critic_hidden,
            runner.obs[None],
            critic_in[None],
            runner.resets[None],
            avail[None],
        )
        action = pi.sample(key_act)[0]
        log_prob = pi.log_prob(action[None])[0]
        value = value[0]

        env_actions = jax.vmap(batcher.actions)(action.reshape((num_envs, num_agents, *action.shape[1:])))
        obs, env_state, reward, done, info = jax.vmap(env.step)(
            jax.random.split(key_env, num_envs), runner.env_state, env_actions
        )
        reward = to_actors(jax.vmap(batcher.per_agent)(reward))
        if shaping_horizon > 0:  # the env's info["shaped_reward"], annealed from 1 to 0
            coef = jnp.maximum(0.0, 1.0 - runner.update * num_steps * num_envs / shaping_horizon)
            reward = reward + coef * to_actors(jax.vmap(batcher.per_agent)(info["shaped_reward"]))
        truncated = to_actors(jax.vmap(batcher.per_agent)(info["truncated"]))

        # Bootstrap truncated episodes from the state they ended in. Time limits are rare
        # (MPE: one step in 25), so the critic evaluates the final observations only on
        # steps where some episode was truncated (a branch, kept under a seeds' vmap).
        def final_value(params: Any, hidden: jax.Array, final_obs: dict, final_state: Any) -> jax.Array:
            final_in = critic_inputs(config, s, batched_obs(final_obs), final_state)
            return apply_critic(params, hidden, to_actors(final_in), jnp.zeros_like(runner.resets))[1]

        def no_value(params: Any, hidden: jax.Array, final_obs: dict, final_state: Any) -> jax.Array:
            return jnp.zeros((num_actors,), jnp.float32)

        bootstrap = when_any(
            jnp.any(truncated),
            final_value,
            no_value,
            params,
            critic_hidden,
            info["final_obs"],
            info["final_state"],
        )
        reward = reward + gamma * jnp.where(truncated, jax.lax.stop_gradient(bootstrap), 0.0)

        # Returns run to the episode's end for every agent, also one whose own episode ended
        # first (a dead SMAX unit): its earlier actions share the team's later rewards, as in
        # JaxMARL's and MAPPO's scripts. Cut at each agent's own done, the units that die in
        # a won battle never see the win: IPPO-RNN on SMAX 2s3z had half the return after 1e6 steps.
        episode_over = jnp.repeat(done["__all__"], num_agents)
        transition = Transition(
            obs=runner.obs,
            critic_in=critic_in if world_critic else critic_in[:, :0],  # IPPO: the obs, not stored twice
            resets=runner.resets,
            avail=avail,
            action=action,
            log_prob=log_prob,
            value=value,
            reward=reward,
            done=episode_over,
        )
        episodes = Episodes(
            info["returned_episode"],
            info["returned_episode_returns"],
            info["returned_episode_lengths"],
            info["returned_episode_metrics"],
        )
        runner = runner._replace(
            env_state=env_state,
            obs=to_actors(batched_obs(obs)),
            resets=episode_over,
            actor_hidden=actor_hidden,
            critic_hidden=critic_hidden,
            key=key,
        )
        return runner, (transition, episodes)

    def collect(runner: RunnerState) -> tuple[RunnerState, Transition, Episodes, jax.Array]:
        runner, (traj, episodes) = jax.lax.scan(env_step, runner, None, num_steps)
        last_in = to_actors(
            critic_inputs(config, s, runner.obs.reshape(num_envs, num_agents, -1), runner.env_state)
        )
        _, last_value = apply_critic(runner.train_state.params, runner.critic_hidden, last_in, runner.resets)
        return runner, traj, episodes, last_value

    def init(rng: jax.Array, tx: optax.GradientTransformation) -> RunnerState:
        key_actor, key_critic, key_reset, key_run = jax.random.split(rng, 4)
        hidden = jnp.zeros((num_actors, s.hidden_width))
        no_reset = jnp.zeros((1, num_actors), bool)
        obs0 = jnp.zeros((1, num_actors, batcher.obs_dim))
        avail0 = jnp.ones((1, num_actors, batcher.action_dim), bool)
        if s.shared is not None:
            params = {"actor_critic": s.shared.init(key_actor, hidden, obs0, no_reset, avail0)}
        else:
            params = {
                "actor": s.actor.init(key_actor, hidden, obs0, no_reset, avail0),
                "critic": s.critic.init(
                    key_critic, hidden, jnp.zeros((1, num_actors, s.critic_dim)), no_reset
                ),
            }
        train_state = TrainState.create(apply_fn=None, params=params, tx=tx)
        obs, env_state = jax.vmap(env.reset)(jax.random.split(key_reset, num_envs))
        return RunnerState(
            train_state=train_state,
            env_state=env_state,
            obs=to_actors(batched_obs(obs)),
            resets=jnp.ones((num_actors,), bool),
            actor_hidden=hidden,
            critic_hidden=hidden,
            key=key_run,
            update=jnp.zeros((), jnp.int32),
        )

    return Rollout(init, collect)


# --------------------------------------------------------------- acting (evaluation)


def make_policy(config: dict) -> tuple[Any, Any, Any]:
    """``(env, init_hidden, act)`` to run trained parameters of one seed: the environment
    (as ``jaxmarl.make`` builds it),
    ``act(params, hidden, obs_dict, env_state, resets, key, greedy) -> (hidden, actions)``
    for one environment (``env_state`` its state, or a ``LogWrapper``'s around it), and
    ``init_hidden()`` its initial hidden state."""
    s = setup(config)
    env, batcher = s.env.unwrapped, s.batcher

    def init_hidden() -> jax.Array:
        return jnp.zeros((batcher.num_agents, s.hidden_width))

    def act(
        params: Any,
        hidden: jax.Array,
        obs: dict,
        env_state: Any,
        resets: jax.Array,
        key: jax.Array,
        greedy: bool,
    ) -> tuple:
        avail = batcher.avail(env.get_avail_actions(env_state_of(env_state)))
        x = batcher.obs(obs)
        resets = jnp.broadcast_to(resets, (batcher.num_agents,))
        hidden, pi = run_policy(s, params, hidden, x[None], resets[None], avail[None])
        action = pi.mode() if greedy else pi.sample(key)
        return hidden, batcher.actions(action[0])

    return env, init_hidden, act


# ------------------------------------------------------------------------ runs


def train_and_save(make_learner: Callable[..., Any], config: dict, run_dir: Any, resume: bool) -> dict:
    """A script's ``run``: train every seed of ``config`` with ``make_learner(config,
    progress)`` (printing progress) and, if ``run_dir`` is given, write the run folder
    there as it goes (continuing it with ``resume``); see :func:`baselines.runs.train_and_save`."""
    s = setup(config)
    steps = int(config["NUM_STEPS"]) * s.num_envs
    return runs.train_and_save(make_learner, config, run_dir, steps, s.batcher.agents, s.env, resume)
