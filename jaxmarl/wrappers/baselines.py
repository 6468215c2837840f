"""JaxMARL's ``jaxmarl.wrappers.baselines`` names, for code written against JaxMARL 0.2.0.

- ``JaxMARLWrapper``: the wrapper base class (ours, :class:`jaxmarl.wrappers.Wrapper`,
  plus ``stack_agent_values``).
- ``LogWrapper`` / ``LogEnvState``: ours (:mod:`jaxmarl.wrappers.logging`), with
  ``info`` as JaxMARL 0.2.0's: without the entries this library adds to every step
  (``LIBRARY_INFO_KEYS``), since JaxMARL's scripts reshape every entry to one value per
  agent of the batch.
- Every wrapper's ``get_obs`` and ``get_avail_actions`` take the wrapper's state or, as
  JaxMARL's scripts call them, the environment's own (``state.env_state``).
- ``MPELogWrapper``: reports MPE returns multiplied by the number of agents, as the
  on-policy MAPPO codebase does (only the logged ``returned_episode_returns``; the
  rewards are unchanged).
- ``SMAXLogWrapper`` / ``SMAXLogEnvState``: adds ``info["returned_won_episode"]``, per
  agent, 1.0 when the agent's reward on the episode's last step was at least 1 (the
  win bonus).
- ``OvercookedV2LogWrapper`` / ``OvercookedV2LogEnvState``: adds
  ``info["returned_episode_recipe_returns"]``, for each of the layout's possible recipes
  (keyed ``"a_b_c"`` by its ingredient indices) the returns of the last finished episode
  that asked for that recipe.
- ``CTRolloutManager``: JaxMARL's batched rollout manager for its Q-learning scripts,
  with its constructor and methods (``batch_reset``, ``batch_step``, ``batch_sample``,
  ``get_valid_actions`` ...). New code should use :class:`jaxmarl.wrappers.RolloutManager`.
- ``get_space_dim``, ``save_params`` and ``load_params`` (safetensors files, readable by
  JaxMARL's ``load_params`` and the other way round; needs ``pip install safetensors``).
"""

from __future__ import annotations

import os
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxmarl.environments.spaces import Box, Discrete, MultiDiscrete, Space
from jaxmarl.wrappers.base import Wrapper
from jaxmarl.wrappers.logging import LogEnvState, unwrap_state
from jaxmarl.wrappers.logging import LogWrapper as _LogWrapper

__all__ = [
    "CTRolloutManager",
    "JaxMARLWrapper",
    "LogEnvState",
    "LogWrapper",
    "MPELogWrapper",
    "OvercookedV2LogEnvState",
    "OvercookedV2LogWrapper",
    "SMAXLogEnvState",
    "SMAXLogWrapper",
    "get_space_dim",
    "load_params",
    "save_params",
]


def _safetensors() -> Any:
    try:
        import safetensors.flax
    except ImportError as err:
        raise ImportError("save_params/load_params need safetensors: pip install safetensors") from err
    return safetensors.flax


def save_params(params: Any, filename: str | os.PathLike[str]) -> None:
    """Save a (nested dict) parameter tree as a safetensors file, keys joined by ``,``."""
    from flax.traverse_util import flatten_dict

    _safetensors().save_file(flatten_dict(params, sep=","), str(filename))


def load_params(filename: str | os.PathLike[str]) -> dict[str, Any]:
    """Load a parameter tree written by :func:`save_params` (or JaxMARL's)."""
    from flax.traverse_util import unflatten_dict

    return unflatten_dict(_safetensors().load_file(str(filename)), sep=",")


class JaxMARLWrapper(Wrapper):
    """JaxMARL's wrapper base class: :class:`jaxmarl.wrappers.Wrapper` with
    ``stack_agent_values``."""

    def stack_agent_values(self, x: dict[str, Any]) -> jax.Array:
        """``x[agent]`` stacked in agent order."""
        return jnp.stack([x[a] for a in self._env.agents])


# The ``info`` entries this library adds on every step that JaxMARL 0.2.0 did not have.
# JaxMARL's baseline scripts reshape every entry of ``info`` to ``(num_envs * num_agents,)``,
# which per-environment entries like these break, so the wrappers under JaxMARL's names
# leave them out.
LIBRARY_INFO_KEYS = (
    "truncated",
    "invalid_action",
    "final_obs",
    "final_state",
    "metrics",
    "returned_episode_metrics",
)


class LogWrapper(_LogWrapper):
    """JaxMARL's ``LogWrapper``: :class:`jaxmarl.wrappers.LogWrapper` whose ``info`` has
    the entries JaxMARL 0.2.0's had (the environment's own and the ``returned_episode*``
    arrays, each per agent), without this library's additions (``LIBRARY_INFO_KEYS``:
    ``final_obs`` and ``truncated`` for bootstrapping, the episode metrics ...). Use
    :class:`jaxmarl.wrappers.LogWrapper` for those."""

    def _finish_info(self, info: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in info.items() if k not in LIBRARY_INFO_KEYS}


class MPELogWrapper(LogWrapper):
    """:class:`LogWrapper` whose logged returns are multiplied by the number of agents
    (MPE's shared reward as the on-policy MAPPO codebase reports it)."""

    def _finish_info(self, info: dict[str, Any]) -> dict[str, Any]:
        info = super()._finish_info(info)
        return {**info, "returned_episode_returns": info["returned_episode_returns"] * self._env.num_agents}


@struct.dataclass
class SMAXLogEnvState:
    """State of a :class:`SMAXLogWrapper`: the :class:`LogEnvState` and the win flags."""

    log_state: LogEnvState
    won_episode: jax.Array  # (num_agents,) float32: reward >= 1 on the last step so far
    returned_won_episode: jax.Array  # (num_agents,) float32: the flag of the last finished episode

    @property
    def env_state(self) -> Any:
        return self.log_state.env_state


class SMAXLogWrapper(JaxMARLWrapper):
    """:class:`LogWrapper` plus ``info["returned_won_episode"]`` (JaxMARL's SMAX logger)."""

    def __init__(self, env: Any, replace_info: bool = False) -> None:
        super().__init__(env)
        self._log = LogWrapper(env, replace_info=replace_info)

    @partial(jax.jit, static_argnums=(0,))
    def reset(self, key: jax.Array) -> tuple[Any, SMAXLogEnvState]:
        obs, log_state = self._log.reset(key)
        zeros = jnp.zeros((self._env.num_agents,), jnp.float32)
        return obs, SMAXLogEnvState(log_state, zeros, zeros)

    @partial(jax.jit, static_argnums=(0,))
    def step(
        self, key: jax.Array, state: SMAXLogEnvState, actions: dict[str, jax.Array]
    ) -> tuple[Any, SMAXLogEnvState, Any, Any, dict[str, Any]]:
        obs, log_state, reward, done, info = self._log.step(key, state.log_state, actions)
        won = (self.stack_agent_values(reward) >= 1.0).astype(jnp.float32)
        ep_done = done["__all__"]
        state = SMAXLogEnvState(
            log_state=log_state,
            won_episode=jnp.where(ep_done, 0.0, won),
            returned_won_episode=jnp.where(ep_done, won, state.returned_won_episode),
        )
        info["returned_won_episode"] = state.returned_won_episode
        return obs, state, reward, done, info

    def get_obs(self, state: Any) -> Any:
        """From this wrapper's state or the environment's own, as :class:`LogWrapper`'s."""
        return self._env.get_obs(unwrap_state(state, SMAXLogEnvState))

    def get_avail_actions(self, state: Any) -> Any:
        return self._env.get_avail_actions(unwrap_state(state, SMAXLogEnvState))

    def get_global_state(self, state: Any) -> Any:
        return self._env.get_global_state(unwrap_state(state, SMAXLogEnvState))


@struct.dataclass
class OvercookedV2LogEnvState:
    """State of an :class:`OvercookedV2LogWrapper`: the :class:`LogEnvState` and, per
    recipe, the returns of the last finished episode that asked for it."""

    log_state: LogEnvState
    returned_episode_recipe_returns: dict[str, jax.Array]  # recipe -> (num_agents,) float32

    @property
    def env_state(self) -> Any:
        return self.log_state.env_state


class OvercookedV2LogWrapper(JaxMARLWrapper):
    """:class:`LogWrapper` plus the returns per recipe (JaxMARL's Overcooked V2 logger)."""

    def __init__(self, env: Any, replace_info: bool = False) -> None:
        super().__init__(env)
        self._log = LogWrapper(env, replace_info=replace_info)
        from jaxmarl.environments.overcooked_v2.common import DynamicObject

        recipes = np.asarray(env.possible_recipes)
        self.recipe_dict = {
            "_".join(str(int(i)) for i in recipe): DynamicObject.get_recipe_encoding(recipe)
            for recipe in recipes
        }

    @partial(jax.jit, static_argnums=(0,))
    def reset(self, key: jax.Array) -> tuple[Any, OvercookedV2LogEnvState]:
        obs, log_state = self._log.reset(key)
        zeros = jnp.zeros((self._env.num_agents,), jnp.float32)
        return obs, OvercookedV2LogEnvState(log_state, {r: zeros for r in self.recipe_dict})

    @partial(jax.jit, static_argnums=(0,))
    def step(
        self, key: jax.Array, state: OvercookedV2LogEnvState, actions: dict[str, jax.Array]
    ) -> tuple[Any, OvercookedV2LogEnvState, Any, Any, dict[str, Any]]:
        recipe = state.env_state.recipe  # the finishing episode's recipe (before any reset)
        obs, log_state, reward, done, info = self._log.step(key, state.log_state, actions)
        returns = state.log_state.episode_returns + self.stack_agent_values(reward).astype(jnp.float32)
        ep_done = done["__all__"]
        per_recipe = {
            name: jnp.where(ep_done & (recipe == code), returns, state.returned_episode_recipe_returns[name])
            for name, code in self.recipe_dict.items()
        }
        info["returned_episode_recipe_returns"] = per_recipe
        return obs, OvercookedV2LogEnvState(log_state, per_recipe), reward, done, info

    def get_obs(self, state: Any) -> Any:
        """From this wrapper's state or the environment's own, as :class:`LogWrapper`'s."""
        return self._env.get_obs(unwrap_state(state, OvercookedV2LogEnvState))

    def get_avail_actions(self, state: Any) -> Any:
        return self._env.get_avail_actions(unwrap_state(state, OvercookedV2LogEnvState))

    def get_global_state(self, state: Any) -> Any:
        return self._env.get_global_state(unwrap_state(state, OvercookedV2LogEnvState))


def get_space_dim(space: Space) -> int:
    """The number of actions of a ``Discrete`` space, else the number of entries."""
    if isinstance(space, Discrete):
        return int(space.n)
    if isinstance(space, (Box, MultiDiscrete)):
        return int(np.prod(space.shape))
    raise NotImplementedError(
        f"get_space_dim works for Discrete, MultiDiscrete and Box spaces, not {space!r}"
    )


class CTRolloutManager(JaxMARLWrapper):
    """JaxMARL's rollout manager for centralised training with parameter sharing.

    Steps ``batch_size`` copies of ``env`` at once and, as in JaxMARL 0.2.0: flattens
    each agent's observation, zero-pads it to the longest and appends a one-hot agent
    id (``preprocess_obs``); zeroes the observations of agents that are done; adds
    ``obs["__all__"]`` (the agents' raw observations flattened and concatenated in agent
    order; for SMAX, which put its world state in the observations there, the
    environment's ``get_global_state``) and
    ``reward["__all__"]`` (the sum of the training agents' rewards, or the first
    training agent's for SMAX, Overcooked and Hanabi, whose agents share one reward).
    Discrete action spaces only.
    """

    def __init__(
        self, env: Any, batch_size: int, training_agents: list[str] | None = None, preprocess_obs: bool = True
    ) -> None:
        super().__init__(env)
        self.batch_size = int(batch_size)
        self.training_agents = list(self.agents if training_agents is None else training_agents)
        self.preprocess_obs = bool(preprocess_obs)
        for agent in self.agents:
            if not isinstance(self.action_space(agent), Discrete):
                raise TypeError(
                    f"CTRolloutManager needs Discrete action spaces; {agent} has {self.action_space(agent)!r}"
                )
        self.max_obs_length = max(get_space_dim(self.observation_space(a)) for a in self.agents)
        self.max_action_space = max(get_space_dim(self.action_space(a)) for a in self.agents)
        self.obs_size = self.max_obs_length + (len(self.agents) if self.preprocess_obs else 0)
        self.agents_one_hot = {a: oh for a, oh in zip(self.agents, jnp.eye(len(self.agents)), strict=True)}
        self.valid_actions = {a: jnp.arange(self.action_space(a).n) for a in self.agents}
        # JaxMARL 0.2.0's rules, by environment name: SMAX put its world state in the
        # observations (here: get_global_state); SMAX, Overcooked and Hanabi share one reward.
        name = env.name.lower()
        self.state_from_env = "smax" in name
        shared = any(key in name for key in ("smax", "overcooked", "hanabi"))
        self.global_reward = (
            (lambda reward: reward[self.training_agents[0]])
            if shared
            else (lambda reward: jnp.stack([reward[a] for a in self.training_agents]).sum(axis=0))
        )

    def global_state(self, obs: dict[str, jax.Array], state: Any) -> jax.Array:
        """The centralised state of one environment: JaxMARL's, the concatenated
        observations (SMAX: ``get_global_state``, in place of its ``obs["world_state"]``)."""
        if self.state_from_env:
            return self._env.get_global_state(state)
        return jnp.concatenate([jnp.ravel(obs[a]) for a in self.agents], axis=-1)

    def get_valid_actions(self, state: Any) -> dict[str, jax.Array]:
        """Per-agent legal-action masks of the batch, ``(batch_size, n)`` each."""
        return jax.vmap(self._env.get_avail_actions)(state)

    @partial(jax.jit, static_argnums=0)
    def batch_reset(self, key: jax.Array) -> tuple[dict[str, jax.Array], Any]:
        return jax.vmap(self.wrapped_reset)(jax.random.split(key, self.batch_size))

    @partial(jax.jit, static_argnums=0)
    def batch_step(self, key: jax.Array, states: Any, actions: dict[str, jax.Array]) -> tuple[Any, ...]:
        return jax.vmap(self.wrapped_step)(jax.random.split(key, self.batch_size), states, actions)

    def wrapped_reset(self, key: jax.Array) -> tuple[dict[str, jax.Array], Any]:
        raw, state = self._env.reset(key)
        obs = self._agent_obs(raw)
        obs["__all__"] = self.global_state(raw, state)
        return obs, state

    def wrapped_step(self, key: jax.Array, state: Any, actions: dict[str, jax.Array]) -> tuple[Any, ...]:
        raw, state, reward, done, info = self._env.step(key, state, actions)
        obs = self._agent_obs(raw)
        if self.preprocess_obs:
            obs = {a: jnp.where(done[a], 0.0, obs[a]) for a in self.agents}
        obs["__all__"] = self.global_state(raw, state)
        reward = dict(reward)
        reward["__all__"] = self.global_reward(reward)
        return obs, state, reward, done, info

    def batch_sample(self, key: jax.Array, agent: str) -> jax.Array:
        """Uniformly random actions of ``agent`` for the batch, ``(batch_size,)``."""
        return jax.random.randint(key, (self.batch_size,), 0, self.action_space(agent).n)

    def _agent_obs(self, raw: dict[str, jax.Array]) -> dict[str, jax.Array]:
        if not self.preprocess_obs:
            return {a: raw[a] for a in self.agents}
        out = {}
        for agent in self.agents:
            flat = jnp.ravel(raw[agent]).astype(jnp.float32)
            flat = jnp.pad(flat, (0, self.max_obs_length - flat.shape[0]))
            out[agent] = jnp.concatenate([flat, self.agents_one_hot[agent]])
        return out
