"""``WorldStateWrapper``: the centralised state a MAPPO critic sees, next to the observations."""

from __future__ import annotations

from functools import partial
from typing import Any

import jax
import jax.numpy as jnp

from jaxmarl.environments.spaces import Box
from jaxmarl.wrappers.base import Wrapper

WORLD_STATE = "world_state"


class WorldStateWrapper(Wrapper):
    """Add ``obs["world_state"]``: the environment's ``get_global_state``, one row per agent.

    ``obs["world_state"]`` has shape ``(num_agents, state_dim)`` (with
    ``agent_ids=True``, ``state_dim`` includes a one-hot agent id at the end of each
    row), so a centralised critic evaluates every agent's value from the same world
    state. The agents' own observations are unchanged; ``info["final_obs"]`` gets the
    world state the episode ended in (from ``info["final_state"]``).

    Args:
        env: the environment to wrap.
        agent_ids: append a one-hot agent id to each agent's copy of the state.
    """

    def __init__(self, env: Any, agent_ids: bool = True) -> None:
        super().__init__(env)
        self.agent_ids = agent_ids

    def world_state(self, env_state: Any) -> jax.Array:
        """``(num_agents, state_dim)`` centralised state for ``env_state``."""
        n = self._env.num_agents
        global_state = self._env.get_global_state(env_state)
        rows = jnp.broadcast_to(global_state, (n, global_state.shape[-1]))
        if self.agent_ids:
            rows = jnp.concatenate([rows, jnp.eye(n, dtype=rows.dtype)], axis=-1)
        return rows

    def world_state_space(self) -> Box:
        """The space of one agent's row of ``obs["world_state"]``."""
        dim = jax.eval_shape(
            self.world_state, jax.eval_shape(self._env.reset, jax.random.PRNGKey(0))[1]
        ).shape[-1]
        return Box(-jnp.inf, jnp.inf, (dim,))

    @partial(jax.jit, static_argnums=(0,))
    def reset(self, key: jax.Array) -> tuple[dict[str, jax.Array], Any]:
        obs, state = self._env.reset(key)
        obs = dict(obs)
        obs[WORLD_STATE] = self.world_state(state)
        return obs, state

    @partial(jax.jit, static_argnums=(0,))
    def step(
        self, key: jax.Array, state: Any, actions: dict[str, jax.Array], reset_state: Any | None = None
    ) -> tuple[dict[str, jax.Array], Any, dict[str, jax.Array], dict[str, jax.Array], dict[str, Any]]:
        obs, new_state, reward, done, info = self._inner_step(key, state, actions, reset_state)
        obs = dict(obs)
        obs[WORLD_STATE] = self.world_state(new_state)
        if "final_obs" in info and "final_state" in info:
            info = dict(info)
            info["final_obs"] = {**info["final_obs"], WORLD_STATE: self.world_state(info["final_state"])}
        return obs, new_state, reward, done, info
