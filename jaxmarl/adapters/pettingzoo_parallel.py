"""A jaxmarl environment as a PettingZoo ``ParallelEnv``: NumPy in, NumPy out.

The adapter holds the one thing our functional API leaves to the caller, the state
(and a PRNG key stream), and translates between the two APIs:

- **Agents.** ``possible_agents`` is ``env.agents``; ``agents`` holds those still in
  the episode. An agent whose ``done`` becomes true leaves ``agents`` (SMAX units that
  die mid-episode leave then; everyone leaves when ``done["__all__"]``), so after the
  episode ends ``agents`` is empty until ``reset``. The underlying environment keeps a
  fixed number of agents, so the adapter passes a harmless action for those that left
  (:func:`jaxmarl.adapters.spaces.harmless_action`: the first legal one for discrete
  spaces, zeros clipped into the box for continuous ones).
- **The last step.** Our ``step`` resets automatically; the adapter hides that: on the
  step an episode ends it returns the observation the episode ended on
  (``info["final_obs"]``), keeps the final state (for ``render`` and ``state``), and
  ``step`` raises until ``reset`` is called.
- **Flags.** ``terminations[agent]`` is ``done[agent]`` where the episode was not cut
  short, ``truncations[agent]`` is ``info["truncated"][agent]`` (the time limit).
- **Infos.** ``infos[agent]["action_mask"]`` (for discrete action spaces) is the
  agent's legal actions in the returned observation's state, ``int8`` 0/1 as
  Gymnasium's ``space.sample(mask=...)`` takes it; the env's per-agent ``info``
  entries are passed on (see :func:`jaxmarl.adapters._kernels.per_agent_info`).
- **Seeding.** ``reset(seed=s)`` restarts the key stream at ``jax.random.PRNGKey(s)``;
  every later ``reset`` and ``step`` splits the stream, so a seed fixes the whole run.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Mapping
from typing import Any

import jax
import numpy as np

from jaxmarl.adapters._kernels import build_env, discrete_agents, kernels, key_from_seed, to_numpy
from jaxmarl.adapters.spaces import check_action, gymnasium_mask, harmless_action, require, to_gymnasium_space

try:  # a real subclass when PettingZoo is there; constructing one says what to install otherwise
    from pettingzoo import ParallelEnv as _ParallelEnv
except ImportError:  # pragma: no cover - exercised in a subprocess without pettingzoo
    _ParallelEnv = object

__all__ = ["PettingZooParallelEnv"]

RENDER_MODES = ("rgb_array",)


class PettingZooParallelEnv(_ParallelEnv):
    """A registered environment (or an environment object) as a PettingZoo ``ParallelEnv``.

    Observations are NumPy arrays of their space's dtype (shape ``space.shape``),
    rewards Python floats, terminations and truncations Python bools; actions are
    NumPy or Python values in the agent's action space. The module docstring gives the
    semantics (agents leaving, the hidden automatic reset, masks, seeding).

    Example:
        >>> from jaxmarl.adapters import PettingZooParallelEnv
        >>> env = PettingZooParallelEnv("MPE_simple_spread_v3", max_steps=3)
        >>> obs, infos = env.reset(seed=0)
        >>> env.agents, obs["agent_0"].shape, infos["agent_0"]["action_mask"]
        (['agent_0', 'agent_1', 'agent_2'], (18,), array([1, 1, 1, 1, 1], dtype=int8))
        >>> for _ in range(3):
        ...     obs, rewards, terms, truncs, infos = env.step({a: 0 for a in env.agents})
        >>> truncs, env.agents
        ({'agent_0': True, 'agent_1': True, 'agent_2': True}, [])

    Args:
        env_or_id: a registered id (built with ``jaxmarl.make(id, **make_kwargs)``) or
            an environment object.
        seed: seeds the key stream for ``reset()`` without a seed (``None``: OS
            entropy).
        render_mode: ``"rgb_array"`` to let ``render`` return frames, or ``None``.
        compiler_options: XLA options for the adapter's jitted functions, e.g.
            ``{"xla_backend_optimization_level": 0}`` to compile faster in tests.
        **make_kwargs: keyword arguments of ``jaxmarl.make`` (only with an id).

    Raises:
        ImportError: without PettingZoo (``pip install pettingzoo``).
        ValueError: for an unknown id (through ``jaxmarl.make``) or render mode.
        TypeError: for an unknown keyword (through ``jaxmarl.make``).
    """

    def __init__(
        self,
        env_or_id: Any,
        *,
        seed: int | None = None,
        render_mode: str | None = None,
        compiler_options: Mapping[str, Any] | None = None,
        **make_kwargs: Any,
    ) -> None:
        require("pettingzoo", "PettingZooParallelEnv")
        require("gymnasium", "PettingZooParallelEnv")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(
                f"PettingZooParallelEnv: render_mode must be one of {RENDER_MODES} or None, "
                f"got {render_mode!r}"
            )
        self.env, name = build_env(env_or_id, make_kwargs, "PettingZooParallelEnv")
        self.metadata: dict[str, Any] = {
            "name": name,
            "render_modes": list(RENDER_MODES),
            "is_parallelizable": True,
        }
        self.render_mode = render_mode
        self.possible_agents: list[str] = list(self.env.agents)
        self.agents: list[str] = []
        self.observation_spaces = {
            a: to_gymnasium_space(self.env.observation_space(a)) for a in self.possible_agents
        }
        self.action_spaces = {a: to_gymnasium_space(self.env.action_space(a)) for a in self.possible_agents}
        self._masked = set(discrete_agents(self.env))
        self._kernels = kernels(compiler_options)
        self._key = key_from_seed(seed)
        self._state: Any = None  # the current state (the final one once the episode is over)
        self._masks: dict[str, np.ndarray] = {}

    # ---------------------------------------------------------------- spaces
    def observation_space(self, agent: str) -> Any:
        """The agent's observation space (the same object on every call)."""
        return self.observation_spaces[self._known(agent)]

    def action_space(self, agent: str) -> Any:
        """The agent's action space (the same object on every call)."""
        return self.action_spaces[self._known(agent)]

    @functools.cached_property
    def state_space(self) -> Any:
        """A Gymnasium ``Box`` describing ``state()`` (unbounded)."""
        spaces = require("gymnasium", "PettingZooParallelEnv").spaces
        _, state = jax.eval_shape(self.env.reset, self._key)
        shape = jax.eval_shape(self.env.get_global_state, state)
        dtype = np.dtype(shape.dtype)
        if dtype.kind == "f":
            return spaces.Box(-np.inf, np.inf, shape.shape, dtype.type)
        if dtype.kind in "iu":
            return spaces.Box(np.iinfo(dtype).min, np.iinfo(dtype).max, shape.shape, dtype.type)
        return spaces.Box(0, 1, shape.shape, dtype.type)  # booleans

    # ------------------------------------------------------------------- API
    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, dict[str, Any]]]:
        """Start an episode. Returns ``(observations, infos)`` keyed by every agent.

        Args:
            seed: restart the key stream at ``jax.random.PRNGKey(seed)``; ``None``
                continues it.
            options: accepted for the API; no environment reads any.
        """
        del options
        if seed is not None:
            self._key = key_from_seed(seed)
        self._key, obs, self._state, masks = self._kernels.reset(self.env, self._key)
        obs, self._masks = to_numpy((obs, masks))
        self.agents = list(self.possible_agents)
        infos = {a: self._info(a, {}) for a in self.agents}
        return {a: self._obs(a, obs[a]) for a in self.agents}, infos

    def step(
        self, actions: Mapping[str, Any]
    ) -> tuple[
        dict[str, np.ndarray],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict[str, Any]],
    ]:
        """Act for every agent in ``agents``.

        Args:
            actions: one action per live agent (exactly the keys of ``agents``).

        Returns:
            ``(observations, rewards, terminations, truncations, infos)``, each keyed by
            the agents that acted. On the last step of an episode the observations are
            the ones it ended on, and ``agents`` becomes empty.

        Raises:
            RuntimeError: before ``reset``, or after the episode ended.
            ValueError: for a missing or extra agent, or an action outside its space.
        """
        name = self.metadata["name"]
        if self._state is None or not self.agents:
            raise RuntimeError(f"{name}: call reset() before step() (the episode is over or never started)")
        if not isinstance(actions, Mapping):
            raise ValueError(f"{name}: actions must be a dict keyed by agent, got {type(actions).__name__}")
        live = self.agents
        missing = [a for a in live if a not in actions]
        if missing:
            raise ValueError(f"{name}: no action for live agent(s) {missing}; env.agents is {live}")
        extra = [a for a in actions if a not in live]
        if extra:
            left = [a for a in extra if a in self.possible_agents]
            detail = f"{left} left the episode" if left else "not agents of this environment"
            raise ValueError(f"{name}: actions given for {extra} ({detail}); env.agents is {live}")
        full = {}
        for agent in self.possible_agents:
            space = self.env.action_space(agent)
            if agent in actions:
                full[agent] = check_action(space, actions[agent], f"{name}: agent {agent!r}")
            else:
                full[agent] = harmless_action(space, self._masks.get(agent))

        key, obs, state, reward, done, truncated, masks, extras = self._kernels.step(
            self.env, self._key, self._state, full
        )
        self._key, self._state = key, state
        obs, reward, done, truncated, self._masks, extras = to_numpy(
            (obs, reward, done, truncated, masks, extras)
        )
        over = bool(done["__all__"])
        observations, rewards, terminations, truncations, infos = {}, {}, {}, {}, {}
        for agent in live:
            trunc = bool(truncated[agent])
            term = bool(done[agent]) and not trunc
            if over and not (term or trunc):
                term = True  # the episode ended for everyone
            observations[agent] = self._obs(agent, obs[agent])
            rewards[agent] = float(reward[agent])
            terminations[agent] = term
            truncations[agent] = trunc
            infos[agent] = self._info(agent, extras)
        self.agents = [a for a in live if not (terminations[a] or truncations[a])]
        return observations, rewards, terminations, truncations, infos

    def render(self) -> np.ndarray | None:
        """The current state (the final one after the episode ended) as an RGB
        ``uint8`` array ``(height, width, 3)``; ``None`` with a warning without
        ``render_mode="rgb_array"``."""
        if self.render_mode is None:
            warnings.warn(
                f"{self.metadata['name']}: render() needs render_mode='rgb_array' at construction",
                stacklevel=2,
            )
            return None
        self._require_state("render")
        return np.asarray(to_numpy(self._kernels.render(self.env, self._state)), dtype=np.uint8)

    def state(self) -> np.ndarray:
        """``env.get_global_state`` of the current state, a 1-d NumPy array (see
        ``state_space``)."""
        self._require_state("state")
        return to_numpy(self._kernels.global_state(self.env, self._state))

    def close(self) -> None:
        """Drop the state; ``reset`` starts again."""
        self._state = None
        self.agents = []

    # --------------------------------------------------------------- helpers
    def _known(self, agent: str) -> str:
        if agent not in self.observation_spaces:
            raise KeyError(
                f"{self.metadata['name']}: unknown agent {agent!r}; possible agents: {self.possible_agents}"
            )
        return agent

    def _require_state(self, what: str) -> None:
        if self._state is None:
            raise RuntimeError(f"{self.metadata['name']}: call reset() before {what}()")

    def _obs(self, agent: str, value: Any) -> Any:
        dtype = self.observation_spaces[agent].dtype
        return value if dtype is None else np.asarray(value, dtype=dtype)

    def _info(self, agent: str, extras: Mapping[str, np.ndarray]) -> dict[str, Any]:
        i = self.possible_agents.index(agent)
        info: dict[str, Any] = {name: values[i] for name, values in extras.items()}
        if agent in self._masked:
            info["action_mask"] = gymnasium_mask(self.env.action_space(agent), self._masks[agent])
        return info
