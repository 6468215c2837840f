"""The ``MultiAgentEnv`` base class: the functional, PettingZoo-like environment API.

Every environment in jaxmarl subclasses :class:`MultiAgentEnv`. A subclass describes
one transition (``reset_env`` and ``step_env``) and its spaces; this class owns the
rules that must be the same everywhere, so no environment re-implements them:

- **Automatic reset.** ``step`` resets the episode when ``done["__all__"]`` is true,
  returning the first observation of the next episode (or of ``reset_state`` when one
  is given). One environment (or a vmapped batch of one) samples the new episode only
  when its episode ends. Under ``jax.vmap`` on the CPU, only the environments whose
  episode ended sample one (a gather, a chunked loop and a scatter instead of every
  environment's reset at every step); on accelerators every environment's reset is
  computed and selected, which is faster there. Both give the same result.
- **Done aggregation.** ``done[agent]`` is true once the agent's episode is over and
  ``done["__all__"]`` when the whole episode is.
- **Actions are checked.** ``step`` checks, when it is traced, that ``actions`` holds
  exactly one action per agent with its space's shape and dtype kind, and raises a
  ``ValueError`` or ``TypeError`` naming the agent and the space otherwise. Values outside
  the space cannot raise under ``jit``: an out-of-range discrete action acts as the
  agent's no-op (:meth:`MultiAgentEnv.noop_action`), a continuous one is clipped to its
  box (NaN entries become the no-op's), and ``info["invalid_action"][agent]`` flags the
  step (see :mod:`jaxmarl.environments.actions`; ``jaxmarl.wrappers.StrictActions``
  makes them errors).
- **Time limits are truncations.** When the environment has a ``max_steps`` and its
  state a ``step`` counter, reaching the limit ends the episode, and
  ``info["truncated"][agent]`` says the episode was cut short rather than terminated,
  so learners can bootstrap from ``info["final_obs"]``, the observation the episode
  ended on (before the automatic reset replaced it); ``info["final_state"]`` is the
  matching state (for centralised critics).
- **A termination on the last step wins over the time limit.** When the environment
  terminates an agent (or the episode) on the very step that reaches ``max_steps`` (say
  ``terminate_on_success`` succeeds then), ``done`` is true and ``truncated`` false: the
  episode really ended, so a learner must not bootstrap from ``final_obs``. Truncation
  means only "cut short by the limit, would have gone on". Libraries that check the
  limit first report the opposite on that step: PettingZoo's ``mpe2`` says
  ``truncated=True, terminated=False`` there (``done`` is the same either way).

Everything here is pure: ``reset`` and ``step`` are jitted, take a PRNG key and return
new arrays, and run under ``jax.vmap`` and ``jax.lax.scan``.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any, ClassVar

import jax
import jax.numpy as jnp
from flax import struct

from jaxmarl.environments import actions as action_rules
from jaxmarl.environments.spaces import Box, Discrete, MultiDiscrete, Space

__all__ = ["MultiAgentEnv", "State", "random_actions"]

Obs = dict[str, jax.Array]
Actions = dict[str, jax.Array]
Rewards = dict[str, jax.Array]
Dones = dict[str, jax.Array]
Info = dict[str, Any]
AvailActions = dict[str, jax.Array]
# JaxMARL's names for the same types.
Observations = Obs
Infos = Info
BatchedActions = jax.Array  # (num_agents, ...): one row per agent, before splitting into a dict
BatchedObservations = jax.Array  # (num_agents, *obs_shape)


@struct.dataclass
class State:
    """A minimal environment state, for environments written outside this library.

    Our families define their own state dataclasses; a state only needs a ``step``
    counter for :class:`MultiAgentEnv` to apply ``max_steps``. Subclass this (as a
    ``flax.struct.dataclass``) to add fields.
    """

    done: jax.Array  # () bool: the episode is over
    step: jax.Array  # () int32: steps taken in this episode


class MultiAgentEnv:
    """Base class for multi-agent environments.

    Subclasses set ``self.agents`` (unique names, fixed at construction),
    ``self.observation_spaces`` and ``self.action_spaces`` (dicts keyed by agent) and
    optionally ``self.max_steps``, and implement:

    - ``reset_env(key) -> (obs, state)``
    - ``step_env(key, state, actions) -> (obs, state, reward, terminated, info)``,
      one transition without automatic reset, where ``terminated`` maps each agent
      to whether its episode has ended for a reason other than the time limit (it may
      also carry ``"__all__"``).
    - ``get_obs(state)``, and where they apply ``get_avail_actions``,
      ``get_global_state`` and ``render``.

    **Episode metrics.** An environment with numbers users report besides the return
    (SMAX's win rate, Hanabi's score, Overcooked's deliveries) names them in
    ``episode_metrics``, each with how a step's value adds up over an episode: ``"sum"``
    (counts such as deliveries) or ``"last"`` (the value on the episode's last step, such
    as whether the battle was won). ``step_env`` then returns a float32 scalar for each in
    ``info["metrics"]``; ``step`` checks the names when it is traced, and
    :class:`jaxmarl.wrappers.LogWrapper` reports every finished episode's values next to
    its return, which the baselines write to their metrics file, progress line, plots and
    evaluation.

    Args:
        num_agents: the number of agents.
    """

    agents: list[str]
    observation_spaces: dict[str, Space]
    action_spaces: dict[str, Space]
    max_steps: int | None = None
    episode_metrics: ClassVar[Mapping[str, str]] = {}  # name -> "sum" | "last"; see the class docstring
    # True when an observation is exactly ``get_obs(state)`` (no randomness, no history):
    # ``step`` then observes the state it returns once, instead of observing both the
    # stepped and the reset state and selecting.
    obs_from_state: ClassVar[bool] = False

    def __init__(self, num_agents: int) -> None:
        self.num_agents = num_agents
        self.observation_spaces = {}
        self.action_spaces = {}

    # ------------------------------------------------------------------ public API
    @partial(jax.jit, static_argnums=(0,))
    def reset(self, key: jax.Array) -> tuple[Obs, Any]:
        """Start an episode. Returns ``(obs, state)``."""
        return self.reset_env(key)

    @partial(jax.jit, static_argnums=(0,))
    def step(
        self,
        key: jax.Array,
        state: Any,
        actions: Actions,
        reset_state: Any | None = None,
    ) -> tuple[Obs, Any, Rewards, Dones, Info]:
        """Advance one step, resetting automatically when the episode ends.

        Args:
            key: PRNG key for this step (and for the reset, should the episode end).
            state: the current state.
            actions: one action per agent, keyed by agent name.
            reset_state: optional state to restart from instead of sampling a new
                episode with ``reset``.

        Returns:
            ``(obs, state, reward, done, info)``. ``reward`` and ``done`` are dicts keyed
            by agent; ``done["__all__"]`` marks the end of the episode. ``info`` holds
            ``"truncated"`` (per agent: the episode hit the time limit),
            ``"final_obs"`` and ``"final_state"`` (the observation and state before any
            automatic reset, e.g. to bootstrap a critic at a time limit) and
            ``"invalid_action"`` (per agent: the action was outside its space and was
            replaced, see the class docstring) besides what the environment adds.

        Raises:
            ValueError, TypeError: when ``step`` is traced, if ``actions`` does not hold
                exactly one action per agent of its space's shape and dtype kind.
        """
        actions, invalid = self.sanitise_actions(actions)
        key_step, key_reset = jax.random.split(key)
        obs_step, state_step, reward, terminated, info = self.step_env(key_step, state, actions)

        term_all = terminated.get("__all__")
        if term_all is None:
            term_all = jnp.all(jnp.stack([jnp.asarray(terminated[a]) for a in self.agents]))
        term_all = jnp.asarray(term_all, dtype=bool)
        if self.max_steps is not None:
            time_up = jnp.asarray(state_step.step >= self.max_steps)
        else:
            time_up = jnp.array(False)
        episode_over = term_all | time_up

        done = {a: jnp.asarray(terminated[a], dtype=bool) | episode_over for a in self.agents}
        done["__all__"] = episode_over
        truncated = {a: time_up & ~term_all & ~jnp.asarray(terminated[a], dtype=bool) for a in self.agents}
        info = dict(info)
        self._check_metrics(info)
        info["truncated"] = truncated
        info["invalid_action"] = invalid
        info["final_obs"] = obs_step
        info["final_state"] = state_step

        if self.obs_from_state:
            # The observation is get_obs(state): pick the state, then observe it once.
            def reset_part() -> Any:
                return self.reset_env(key_reset)[1] if reset_state is None else reset_state

            stepped: Any = state_step
        else:

            def reset_part() -> Any:
                if reset_state is None:
                    return self.reset_env(key_reset)
                return self.get_obs(reset_state), reset_state

            stepped = (obs_step, state_step)

        # Both branches must agree leaf by leaf: a reset may build weakly typed leaves
        # (they take the step's dtype), and a state given in float64 keeps float64 where
        # step_env computed a leaf in float32 (as selecting with jnp.where would).
        dtypes = jax.tree.map(_promoted_dtype, jax.eval_shape(reset_part), stepped)

        def cast(tree: Any) -> Any:
            return jax.tree.map(jnp.asarray, tree, dtypes)

        if reset_state is None:
            # Under vmap on the CPU, only the environments whose episode ended sample one.
            def sample(k: jax.Array) -> Any:
                return cast(self._sample_reset(k))

            chosen = _reset_where(sample, episode_over, key_reset, cast(stepped))
        else:
            # A real branch for one environment; under vmap both sides are computed and
            # selected (copying reset_state costs no more than selecting it).
            chosen = jax.lax.cond(episode_over, lambda _: cast(reset_part()), lambda _: cast(stepped), None)
        if self.obs_from_state:
            return self.get_obs(chosen), chosen, reward, done, info
        obs, state = chosen
        return obs, state, reward, done, info

    def _sample_reset(self, key: jax.Array) -> Any:
        """What ``step`` restarts from: the state, or ``(obs, state)`` unless
        ``obs_from_state``."""
        obs, state = self.reset_env(key)
        return state if self.obs_from_state else (obs, state)

    def _check_metrics(self, info: Info) -> None:
        """Trace-time check that ``info["metrics"]`` holds exactly ``episode_metrics``."""
        declared, given = dict(self.episode_metrics), dict(info.get("metrics", {}))
        bad_rules = {name: rule for name, rule in declared.items() if rule not in ("sum", "last")}
        if bad_rules or set(declared) != set(given):
            raise ValueError(
                f"{self.name}: episode_metrics {declared} must map names to 'sum' or 'last', and step_env "
                f"must return exactly those names in info['metrics'] (got {sorted(given)})"
            )

    def sanitise_actions(self, actions: Actions) -> tuple[Actions, dict[str, jax.Array]]:
        """Check the structure of ``actions`` (raising at trace time) and replace values
        outside their spaces (see :mod:`jaxmarl.environments.actions`).

        Returns:
            ``(actions, invalid)``: the actions ``step_env`` receives, in agent order, and
            per agent whether the given action was outside its space.
        """
        spaces = {agent: self.action_space(agent) for agent in self.agents}
        action_rules.check_structure(self.name, self.agents, spaces, actions)
        clean, invalid = {}, {}
        for agent in self.agents:
            clean[agent], invalid[agent] = action_rules.sanitise(
                spaces[agent], self.noop_action(agent), jnp.asarray(actions[agent])
            )
        return clean, invalid

    def noop_action(self, agent: str) -> Any:
        """The action that does nothing, used in place of an action outside the space:
        ``0`` for ``Discrete`` unless the environment says otherwise, zeros for
        ``MultiDiscrete``, zeros clipped into the bounds for ``Box``."""
        return action_rules.default_noop(self.action_space(agent))

    def observation_space(self, agent: str) -> Space:
        """The observation space of ``agent``."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> Space:
        """The action space of ``agent``."""
        return self.action_spaces[agent]

    @property
    def name(self) -> str:
        """The environment's class name."""
        return type(self).__name__

    def agent_classes(self) -> dict[str, list[str]]:
        """The agents grouped by role, from their names: ``{"adversaries": [...],
        "agents": [...]}`` for MPE's ``adversary_i``/``agent_i`` (JaxMARL's keys, with
        ``leadadversary`` for World Comm's leader), otherwise one group per name
        prefix (``ally``/``enemy`` in SMAX, ``agent`` elsewhere)."""
        plural = {"adversary": "adversaries", "agent": "agents"}
        classes: dict[str, list[str]] = {}
        for agent in self.agents:
            prefix = agent.rstrip("0123456789").rstrip("_") or agent
            classes.setdefault(plural.get(prefix, prefix), []).append(agent)
        return classes

    def get_avail_actions(self, state: Any) -> dict[str, jax.Array]:
        """Per-agent boolean masks of legal actions.

        The default says every action is legal: for a ``Discrete(n)`` space a mask of
        shape ``(n,)``, for ``MultiDiscrete`` one of shape ``(sum(nvec),)``, for a
        ``Box`` one of the action's shape.
        """
        del state
        masks = {}
        for agent in self.agents:
            space = self.action_space(agent)
            if isinstance(space, Discrete):
                masks[agent] = jnp.ones((space.n,), dtype=bool)
            elif isinstance(space, MultiDiscrete):
                masks[agent] = jnp.ones((int(space.nvec.sum()),), dtype=bool)
            elif isinstance(space, Box):
                masks[agent] = jnp.ones(space.shape, dtype=bool)
            else:
                raise NotImplementedError(
                    f"{self.name}: no default action mask for {space!r}; override get_avail_actions"
                )
        return masks

    def get_global_state(self, state: Any) -> jax.Array:
        """The centralised state for a MAPPO critic or a QMIX mixer, a 1-d array.

        The default concatenates every agent's flattened observation in agent order (each
        array of a structured observation in turn);
        environments with a true world state override it.
        """
        obs = self.get_obs(state)
        return jnp.concatenate([jnp.ravel(x) for a in self.agents for x in jax.tree.leaves(obs[a])])

    # ------------------------------------------------------------ subclass hooks
    def reset_env(self, key: jax.Array) -> tuple[Obs, Any]:
        """Sample an initial state. Returns ``(obs, state)``."""
        raise NotImplementedError(f"{self.name} must implement reset_env")

    def step_env(self, key: jax.Array, state: Any, actions: Actions) -> tuple[Obs, Any, Rewards, Dones, Info]:
        """One transition without automatic reset; see the class docstring."""
        raise NotImplementedError(f"{self.name} must implement step_env")

    def get_obs(self, state: Any) -> Obs:
        """Observations of ``state``, keyed by agent."""
        raise NotImplementedError(f"{self.name} must implement get_obs")

    def render(self, state: Any, *args: Any, **kwargs: Any) -> jax.Array:
        """An RGB image of ``state``, ``uint8`` of shape ``(height, width, 3)``.

        Every family takes ``size`` (a Python int, static under ``jit``): the length in
        pixels of the image's longer side, exact for continuous worlds; grid and table
        renderers use a whole number of pixels per cell, so their image may be a few
        pixels smaller. Families may take more keywords (Hanabi: ``player``)."""
        del args, kwargs
        raise NotImplementedError(f"{self.name} does not implement render")


def random_actions(env: Any, key: jax.Array, state: Any) -> Actions:
    """Uniformly random legal actions for every agent of one environment.

    Discrete actions are drawn among those ``env.get_avail_actions(state)`` allows;
    other spaces are sampled with ``space.sample``. ``env`` may be a wrapper, with
    ``state`` its own state.
    """
    keys = jax.random.split(key, env.num_agents)
    masks = env.get_avail_actions(state)
    actions = {}
    for i, agent in enumerate(env.agents):
        space = env.action_space(agent)
        if isinstance(space, Discrete):
            logits = jnp.where(masks[agent], 0.0, -jnp.inf)
            actions[agent] = jax.random.categorical(keys[i], logits).astype(space.dtype)
        else:
            actions[agent] = space.sample(keys[i])
    return actions


def _promoted_dtype(reset_leaf: jax.ShapeDtypeStruct, step_leaf: jax.Array) -> Any:
    """The dtype JAX promotes a reset leaf (shape only, weak type kept) and a step leaf to."""
    if getattr(reset_leaf, "weak_type", False):
        # A weakly typed leaf promotes as a Python scalar of its kind would.
        kind = jnp.dtype(reset_leaf.dtype).kind
        return jnp.result_type({"b": False, "i": 0, "u": 0, "f": 0.0, "c": 0j}[kind], step_leaf)
    return jnp.result_type(reset_leaf.dtype, step_leaf)


# On the CPU, _reset_where samples new episodes in chunks of ceil(batch / _RESET_CHUNKS)
# environments, as many chunks as there are finished episodes to fill.
_RESET_CHUNKS = 8


def _reset_only_finished() -> bool:
    """Whether a vmapped ``step`` samples new episodes only for the environments whose
    episode ended (see :func:`_reset_where`): on the CPU, where a step's cost is the
    arithmetic it does. On a GPU or TPU, evaluating every environment's reset in
    parallel and selecting is cheaper than the loop's round trips to the host (measured
    on an H100: the loop halved throughput at 1,000 and 10,000 environments)."""
    return jax.default_backend() == "cpu"


def _reset_where(sample: Any, episode_over: jax.Array, key: jax.Array, stepped: Any) -> Any:
    """``sample(key)`` where ``episode_over``, else ``stepped``.

    For one environment the reset is a ``lax.cond``: it runs only when the episode ends.
    Under ``vmap`` such a ``cond`` becomes a select, running ``sample`` for every
    environment at every step. On the CPU (:func:`_reset_only_finished`) the batched
    version instead gathers the environments whose episode ended and runs ``sample`` on
    them alone, a chunk at a time (no chunk on a step where no episode ends). Each
    environment's reset comes from its own key either way, so both give the same result.

    The new episodes are made from inputs cut off from differentiation and then selected
    with ``jnp.where``: gradients reach the stepped states as through a plain select, and
    reverse-mode differentiation never meets the loop (``custom_vmap`` supports none).
    """
    fresh = _fresh_episodes(sample, episode_over, key, jax.lax.stop_gradient(stepped))
    return jax.tree.map(lambda f, s: jnp.where(episode_over, f, s), fresh, stepped)


def _fresh_episodes(sample: Any, episode_over: jax.Array, key: jax.Array, filler: Any) -> Any:
    """``sample(key)`` where ``episode_over``; elsewhere anything (``filler``, or a new
    episode: :func:`_reset_where` selects)."""

    @jax.custom_batching.custom_vmap
    def fresh(pred: jax.Array, key: jax.Array, filler: Any) -> Any:
        return jax.lax.cond(pred, lambda: sample(key), lambda: filler)

    @fresh.def_vmap
    def fresh_batched(axis_size: int, in_batched: Any, pred: jax.Array, key: jax.Array, filler: Any) -> Any:
        pred_batched, key_batched, filler_batched = in_batched
        filler = jax.tree.map(
            lambda x, b: x if b else jnp.broadcast_to(x, (axis_size, *jnp.shape(x))), filler, filler_batched
        )
        out_batched = jax.tree.map(lambda _: True, filler)
        keys = key if key_batched else jnp.broadcast_to(key, (axis_size, *jnp.shape(key)))
        if not _reset_only_finished() and pred_batched:
            return jax.vmap(sample)(keys), out_batched
        if not pred_batched or axis_size == 1:
            # One decision for the whole batch: a real branch (cheaper than the loop).
            over = pred if not pred_batched else pred[0]
            return jax.lax.cond(over, lambda: jax.vmap(sample)(keys), lambda: filler), out_batched
        chunk = -(-axis_size // _RESET_CHUNKS)
        # The finished environments' indices first, then axis_size (dropped when scattered).
        order = jnp.nonzero(pred, size=chunk * _RESET_CHUNKS, fill_value=axis_size)[0]
        count = jnp.sum(pred, dtype=jnp.int32)

        def more(carry: tuple[jax.Array, Any]) -> jax.Array:
            return carry[0] * chunk < count

        def fill(carry: tuple[jax.Array, Any]) -> tuple[jax.Array, Any]:
            i, out = carry
            idx = jax.lax.dynamic_slice_in_dim(order, i * chunk, chunk)
            new = jax.vmap(sample)(keys[jnp.minimum(idx, axis_size - 1)])
            out = jax.tree.map(lambda o, n: o.at[idx].set(n, mode="drop"), out, new)
            return i + 1, out

        _, out = jax.lax.while_loop(more, fill, (jnp.zeros((), jnp.int32), filler))
        return out, out_batched

    return fresh(episode_over, key, filler)
