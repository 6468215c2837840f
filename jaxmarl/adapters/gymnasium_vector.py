"""Every agent of ``num_envs`` environment copies as one sub-environment of a Gymnasium
``VectorEnv``: single-agent vectorised learners train on multi-agent environments.

A learner written for Gymnasium's vector API (CleanRL-style PPO, say) sees
``num_envs * num_agents`` independent single-agent environments that share one
observation space and one action space, and so trains one policy for every agent
(parameter sharing). The environment must be homogeneous: all agents have the same
spaces (use :class:`jaxmarl.adapters.PettingZooParallelEnv` otherwise).

Sub-environment ``i`` is agent ``i % num_agents`` (in ``env.agents`` order) of copy
``i // num_agents``. All copies step together in one jitted, vmapped call.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from jaxmarl.adapters._kernels import build_env, discrete_agents, kernels, key_from_seed, to_numpy
from jaxmarl.adapters.spaces import require, to_gymnasium_space
from jaxmarl.environments.spaces import Box, Discrete, MultiDiscrete

try:  # a real subclass when Gymnasium is there; constructing one says what to install otherwise
    from gymnasium.vector import VectorEnv as _VectorEnv
except ImportError:  # pragma: no cover - exercised in a subprocess without gymnasium
    _VectorEnv = object  # type: ignore[misc,assignment]

__all__ = ["GymnasiumVectorEnv"]


class GymnasiumVectorEnv(_VectorEnv):
    """``num_envs`` copies of a homogeneous environment, each agent one sub-environment.

    ``self.num_envs`` is ``num_envs * num_agents``; sub-environment ``i`` is agent
    ``i % num_agents`` of copy ``i // num_agents``. Arrays are NumPy with a leading
    axis of length ``self.num_envs`` (written ``N``):

    - ``reset(seed=None, options=None) -> (obs, infos)``: ``obs`` ``(N, *obs_shape)``
      of the observation space's dtype. ``reset(seed=s)`` starts the key stream at
      ``jax.random.PRNGKey(s)`` (each copy gets its own key split from it), so a seed
      fixes every later step; without a seed the stream continues.
    - ``step(actions) -> (obs, rewards, terminations, truncations, infos)``: ``actions``
      ``(N, *action_shape)`` in the action space (integers for discrete spaces);
      ``rewards`` float64 ``(N,)``; ``terminations`` and ``truncations`` bool ``(N,)``.
    - **Autoreset: same step** (``metadata["autoreset_mode"]`` is
      ``AutoresetMode.SAME_STEP``). When a copy's episode ends (``done["__all__"]``),
      every one of its agents reports ``terminated`` or ``truncated``, the returned
      ``obs`` is the first observation of the copy's next episode, and
      ``infos["final_obs"]`` (an object array ``(N,)``, ``None`` elsewhere, with the
      bool mask ``infos["_final_obs"]``) holds the observation each finished
      sub-environment ended on, to bootstrap from at a time limit.
    - **Terminated vs truncated**: ``truncations`` is ``info["truncated"]`` (the copy hit
      its time limit), ``terminations`` is ``done`` where it is not truncated.
    - **Agents that leave early** (an SMAX unit dying before its battle ends): the
      agent's sub-environment terminates on that step, and, until its copy's episode
      ends, goes on reporting ``terminated`` on every step with the observation the
      environment gives out-of-episode agents (its actions are ignored by the
      environment). ``infos["active"]`` (bool ``(N,)``) is false on those steps: mask
      them out of the loss.
    - **Infos**: besides ``final_obs`` and ``active``, ``infos["action_mask"]`` (``int8``
      ``(N, n)``, discrete action spaces) marks the actions legal in the returned
      observation's state, ``infos["final_info"]["action_mask"]`` those in the final
      state; the environment's per-agent ``info`` entries (``(N, ...)``) are passed on.
      Each key ``k`` comes with Gymnasium's mask ``infos["_k"]``.
    - ``render()``: with ``render_mode="rgb_array"``, a tuple of ``N`` RGB ``uint8``
      frames ``(H, W, 3)`` (the agents of one copy share its frame).

    Example:
        >>> from jaxmarl.adapters import GymnasiumVectorEnv
        >>> envs = GymnasiumVectorEnv("MPE_simple_spread_v3", num_envs=4, seed=0)
        >>> envs.num_envs, envs.single_observation_space.shape, envs.single_action_space
        (12, (18,), Discrete(5, dtype=int32))
        >>> obs, infos = envs.reset(seed=0)
        >>> obs.shape, infos["action_mask"].shape
        ((12, 18), (12, 5))
        >>> obs, rewards, terminations, truncations, infos = envs.step(envs.action_space.sample())
        >>> rewards.shape, terminations.dtype
        ((12,), dtype('bool'))

    Args:
        env_or_id: a registered id (built with ``jaxmarl.make(id, **make_kwargs)``) or
            an environment object.
        num_envs: how many copies of the environment run side by side.
        seed: seeds the key stream for ``reset()`` without a seed (``None``: OS entropy).
        render_mode: ``"rgb_array"`` or ``None``.
        compiler_options: XLA options for the jitted functions (see
            :class:`jaxmarl.adapters.PettingZooParallelEnv`).
        **make_kwargs: keyword arguments of ``jaxmarl.make`` (only with an id).

    Raises:
        ImportError: without Gymnasium (``pip install gymnasium``).
        ValueError: if the agents do not all share one observation space and one action
            space (naming them), for a bad ``num_envs`` or render mode, or an unknown id.
    """

    def __init__(
        self,
        env_or_id: Any,
        num_envs: int,
        *,
        seed: int | None = None,
        render_mode: str | None = None,
        compiler_options: Mapping[str, Any] | None = None,
        **make_kwargs: Any,
    ) -> None:
        gym = require("gymnasium", "GymnasiumVectorEnv")
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"GymnasiumVectorEnv: num_envs must be a positive integer, got {num_envs!r}")
        if render_mode not in (None, "rgb_array"):
            raise ValueError(
                f"GymnasiumVectorEnv: render_mode must be 'rgb_array' or None, got {render_mode!r}"
            )
        self.env, name = build_env(env_or_id, make_kwargs, "GymnasiumVectorEnv")
        self.agents: list[str] = list(self.env.agents)
        self.num_copies = int(num_envs)
        self.num_envs = self.num_copies * len(self.agents)
        self._obs_space = _shared_space(self.env, name, "observation_space")
        self._act_space = _shared_space(self.env, name, "action_space")
        self.single_observation_space = to_gymnasium_space(self._obs_space)
        self.single_action_space = to_gymnasium_space(self._act_space)
        batch_space = gym.vector.utils.batch_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.metadata = {
            "name": name,
            "render_modes": ["rgb_array"],
            "autoreset_mode": gym.vector.AutoresetMode.SAME_STEP,
        }
        self.render_mode = render_mode
        self._masked = bool(discrete_agents(self.env))
        self._kernels = kernels(compiler_options)
        self._key = key_from_seed(seed)
        self._state: Any = None
        self._active = np.ones(self.num_envs, dtype=bool)

    # ------------------------------------------------------------------- API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Reset every copy. Returns ``(obs (N, *obs_shape), infos)``.

        Args:
            seed: restart the key stream at ``jax.random.PRNGKey(seed)``; ``None``
                continues it. (One integer: the sub-environments are agents of shared
                copies, so per-sub-environment seeds do not apply.)
            options: accepted for the API; ``options["reset_mask"]`` (partial resets)
                is not supported, since copies already reset on the step they end.
        """
        if seed is not None and not isinstance(seed, (int, np.integer)):
            raise TypeError(f"GymnasiumVectorEnv.reset: seed must be one integer or None, got {seed!r}")
        if options and "reset_mask" in options:
            raise ValueError(
                "GymnasiumVectorEnv.reset: options['reset_mask'] is not supported "
                "(copies reset on the step they end)"
            )
        super().reset(seed=None if seed is None else int(seed))  # seeds self.np_random
        if seed is not None:
            self._key = key_from_seed(int(seed))
        self._key, obs, self._state, masks = self._kernels.reset_batch(self.env, self._key, self.num_copies)
        obs, masks = to_numpy((obs, masks))
        self._active = np.ones(self.num_envs, dtype=bool)
        infos: dict[str, Any] = {}
        if self._masked:
            _add(infos, "action_mask", self._flat(masks).astype(np.int8))
        return self._typed_obs(self._flat(obs)), infos

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every sub-environment; see the class docstring for what comes back.

        Raises:
            RuntimeError: before ``reset``.
            ValueError: for actions of the wrong shape or outside the action space
                (naming the first offending sub-environment, its copy and agent).
        """
        if self._state is None:
            raise RuntimeError(f"{self.metadata['name']}: call reset() before step()")
        actions = self._checked(actions)
        per_agent = actions.reshape(self.num_copies, len(self.agents), *actions.shape[1:])
        action_dict = {a: per_agent[:, i] for i, a in enumerate(self.agents)}
        key, obs, state, final_obs, reward, done, truncated, masks, final_masks, extras = (
            self._kernels.step_batch(self.env, self._key, self._state, action_dict)
        )
        self._key, self._state = key, state
        obs, final_obs, reward, done, truncated, masks, final_masks, extras = to_numpy(
            (obs, final_obs, reward, done, truncated, masks, final_masks, extras)
        )
        rewards = self._flat(reward).astype(np.float64)
        truncations = self._flat(truncated).astype(bool)
        terminations = self._flat({a: done[a] for a in self.agents}).astype(bool) & ~truncations
        episode_over = np.repeat(np.asarray(done["__all__"], dtype=bool), len(self.agents))
        terminations |= episode_over & ~truncations
        ended = terminations | truncations

        infos: dict[str, Any] = {}
        for key_name, values in extras.items():
            _add(infos, key_name, values.reshape(self.num_envs, *values.shape[2:]))
        _add(infos, "active", self._active.copy())
        final = np.full(self.num_envs, None, dtype=object)
        final_flat = self._typed_obs(self._flat(final_obs))
        for i in np.flatnonzero(ended):
            final[i] = final_flat[i]
        if ended.any():
            infos["final_obs"], infos["_final_obs"] = final, ended.copy()
            final_info: dict[str, Any] = {}
            if self._masked:
                final_info["action_mask"] = self._flat(final_masks).astype(np.int8)
                final_info["_action_mask"] = ended.copy()
            infos["final_info"], infos["_final_info"] = final_info, ended.copy()
        if self._masked:
            _add(infos, "action_mask", self._flat(masks).astype(np.int8))
        # An agent that left keeps "terminating" until its copy's episode ends.
        self._active = (self._active & ~ended) | episode_over
        return self._typed_obs(self._flat(obs)), rewards, terminations, truncations, infos

    def render(self) -> tuple[np.ndarray, ...] | None:
        """One RGB ``uint8`` frame ``(H, W, 3)`` per sub-environment (a copy's agents
        share its frame); ``None`` with a warning without ``render_mode="rgb_array"``."""
        if self.render_mode is None:
            gym = require("gymnasium", "GymnasiumVectorEnv")
            gym.logger.warn("GymnasiumVectorEnv.render() needs render_mode='rgb_array' at construction")
            return None
        if self._state is None:
            raise RuntimeError(f"{self.metadata['name']}: call reset() before render()")
        frames = np.asarray(to_numpy(self._kernels.render_batch(self.env, self._state)), dtype=np.uint8)
        return tuple(frames[i // len(self.agents)] for i in range(self.num_envs))

    def close_extras(self, **kwargs: Any) -> None:
        """Drop the state."""
        del kwargs
        self._state = None

    # --------------------------------------------------------------- helpers
    def _flat(self, per_agent: Any) -> np.ndarray:
        """A dict of ``(num_copies, ...)`` arrays keyed by agent -> ``(N, ...)``."""
        stacked = np.stack([np.asarray(per_agent[a]) for a in self.agents], axis=1)
        return stacked.reshape(self.num_envs, *stacked.shape[2:])

    def _typed_obs(self, obs: np.ndarray) -> np.ndarray:
        return obs.astype(self.single_observation_space.dtype, copy=False)

    def _checked(self, actions: Any) -> np.ndarray:
        name, space = self.metadata["name"], self._act_space
        want = (self.num_envs, *space.shape)
        try:
            value = np.asarray(actions)
        except Exception as err:
            raise ValueError(f"{name}: actions must be an array of shape {want}") from err
        if value.shape != want:
            raise ValueError(
                f"{name}: actions have shape {value.shape}, expected {want} "
                f"(num_envs={self.num_copies} copies x {len(self.agents)} agents, action space {space!r})"
            )

        def where(i: int) -> str:
            copy, agent = divmod(i, len(self.agents))
            return f"sub-environment {i} (copy {copy}, agent {self.agents[agent]!r})"

        if isinstance(space, (Discrete, MultiDiscrete)):
            if value.dtype.kind not in "iu":
                raise ValueError(f"{name}: actions have dtype {value.dtype}; {space!r} needs integers")
            upper = space.n if isinstance(space, Discrete) else space.nvec
            bad = ((value < 0) | (value >= upper)).reshape(self.num_envs, -1).any(axis=1)
        elif isinstance(space, Box):
            if value.dtype.kind not in "iuf":
                raise ValueError(f"{name}: actions have dtype {value.dtype}; {space!r} needs numbers")
            value = value.astype(space.dtype)
            inside = (value >= space.low) & (value <= space.high)
            bad = ~inside.reshape(self.num_envs, -1).all(axis=1)
        else:  # pragma: no cover - _shared_space rejects other spaces
            raise TypeError(f"{name}: unsupported action space {space!r}")
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"{name}: action {value[i]!r} of {where(i)} is not in the action space {space!r}"
            )
        return value.astype(space.dtype)


def _add(infos: dict[str, Any], key: str, values: np.ndarray) -> None:
    """``infos[key] = values`` with Gymnasium's ``infos["_" + key]`` (all true)."""
    infos[key] = values
    infos[f"_{key}"] = np.ones(len(values), dtype=bool)


def _shared_space(env: Any, name: str, kind: str) -> Any:
    """The ``kind`` (``"observation_space"``/``"action_space"``) every agent shares."""
    agents = list(env.agents)
    first = getattr(env, kind)(agents[0])
    for agent in agents[1:]:
        other = getattr(env, kind)(agent)
        if other != first:
            raise ValueError(
                f"GymnasiumVectorEnv needs every agent of {name} to share one {kind.replace('_', ' ')}, "
                f"but {agents[0]!r} has {first!r} and {agent!r} has {other!r}. "
                f"Use jaxmarl.adapters.PettingZooParallelEnv for environments with different agents."
            )
    if kind == "action_space" and not isinstance(first, (Discrete, MultiDiscrete, Box)):
        raise ValueError(f"GymnasiumVectorEnv: {name}'s action space {first!r} is not supported")
    if kind == "observation_space" and not isinstance(first, (Discrete, MultiDiscrete, Box)):
        raise ValueError(f"GymnasiumVectorEnv: {name}'s observation space {first!r} is not supported")
    return first
