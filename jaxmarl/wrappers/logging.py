"""``LogWrapper``: episode returns, lengths and the environment's episode metrics
(win rate, score ...), correct across automatic resets."""

from __future__ import annotations

from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
from flax import struct

from jaxmarl.wrappers.base import Wrapper


@struct.dataclass
class LogEnvState:
    """State of a :class:`LogWrapper`.

    Attributes:
        env_state: the wrapped environment's state.
        episode_returns: running return of each agent in this episode, ``(num_agents,)``.
        episode_lengths: steps taken in this episode, int32 ``()``.
        returned_episode_returns: returns of the last finished episode, ``(num_agents,)``.
        returned_episode_lengths: length of the last finished episode, int32 ``()``.
        episode_metrics: the environment's episode metrics so far in this episode,
            name -> float32 ``()`` (empty if it has none).
        returned_episode_metrics: their values for the last finished episode.
    """

    env_state: Any
    episode_returns: jax.Array
    episode_lengths: jax.Array
    returned_episode_returns: jax.Array
    returned_episode_lengths: jax.Array
    episode_metrics: dict[str, jax.Array] = struct.field(default_factory=dict)
    returned_episode_metrics: dict[str, jax.Array] = struct.field(default_factory=dict)


class LogWrapper(Wrapper):
    """Track per-agent episode returns and episode lengths.

    ``step`` adds to ``info`` (each an array of shape ``(num_agents,)``, in agent order):

    - ``"returned_episode"``: true on the step an episode ends;
    - ``"returned_episode_returns"``: each agent's return of the last finished episode;
    - ``"returned_episode_lengths"``: that episode's length;
    - ``"returned_episode_metrics"``: that episode's values of the environment's
      ``episode_metrics`` (a dict of float32 scalars: summed over the episode or taken
      from its last step, as the environment declares; empty if it has none).

    Until the first episode ends the returned values are 0, so average them only where
    ``returned_episode`` is true, e.g.
    ``(info["returned_episode_returns"] * mask).sum() / mask.sum()``. The bookkeeping is
    per environment, so it is correct under ``vmap`` and across automatic resets.

    Args:
        env: the environment to wrap.
        replace_info: drop the environment's own ``info`` entries, keeping only the
            ones above (JaxMARL's option).
    """

    def __init__(self, env: Any, replace_info: bool = False) -> None:
        super().__init__(env)
        self.replace_info = bool(replace_info)

    @partial(jax.jit, static_argnums=(0,))
    def reset(self, key: jax.Array) -> tuple[dict[str, jax.Array], LogEnvState]:
        obs, env_state = self._env.reset(key)
        zeros = jnp.zeros((self._env.num_agents,), jnp.float32)
        no_metrics = {name: jnp.zeros((), jnp.float32) for name in self._metric_rules()}
        state = LogEnvState(
            env_state=env_state,
            episode_returns=zeros,
            episode_lengths=jnp.zeros((), jnp.int32),
            returned_episode_returns=zeros,
            returned_episode_lengths=jnp.zeros((), jnp.int32),
            episode_metrics=no_metrics,
            returned_episode_metrics=no_metrics,
        )
        return obs, state

    @partial(jax.jit, static_argnums=(0,))
    def step(
        self,
        key: jax.Array,
        state: LogEnvState,
        actions: dict[str, jax.Array],
        reset_state: Any | None = None,
    ) -> tuple[dict[str, jax.Array], LogEnvState, dict[str, jax.Array], dict[str, jax.Array], dict[str, Any]]:
        obs, env_state, reward, done, info = self._inner_step(key, state.env_state, actions, reset_state)
        agents = self._env.agents
        ep_done = done["__all__"]
        rewards = jnp.stack([jnp.asarray(reward[a], jnp.float32) for a in agents])
        returns = state.episode_returns + rewards
        lengths = state.episode_lengths + 1
        step_metrics = info.get("metrics", {})
        metrics = {
            name: jnp.asarray(
                state.episode_metrics[name] + step_metrics[name] if rule == "sum" else step_metrics[name],
                jnp.float32,
            )
            for name, rule in self._metric_rules().items()
        }
        state = LogEnvState(
            env_state=env_state,
            episode_returns=jnp.where(ep_done, 0.0, returns),
            episode_lengths=jnp.where(ep_done, 0, lengths),
            returned_episode_returns=jnp.where(ep_done, returns, state.returned_episode_returns),
            returned_episode_lengths=jnp.where(ep_done, lengths, state.returned_episode_lengths),
            episode_metrics={k: jnp.where(ep_done, 0.0, v) for k, v in metrics.items()},
            returned_episode_metrics={
                k: jnp.where(ep_done, v, state.returned_episode_metrics[k]) for k, v in metrics.items()
            },
        )
        n = self._env.num_agents
        info = {} if self.replace_info else dict(info)
        if "final_state" in info:  # the state the episode ended in, as this wrapper's state
            info["final_state"] = LogEnvState(
                env_state=info["final_state"],
                episode_returns=returns,
                episode_lengths=lengths,
                returned_episode_returns=state.returned_episode_returns,
                returned_episode_lengths=state.returned_episode_lengths,
                episode_metrics=metrics,
                returned_episode_metrics=state.returned_episode_metrics,
            )
        info["returned_episode"] = jnp.full((n,), ep_done)
        info["returned_episode_returns"] = state.returned_episode_returns
        info["returned_episode_lengths"] = jnp.full((n,), state.returned_episode_lengths)
        info["returned_episode_metrics"] = state.returned_episode_metrics
        return obs, state, reward, done, self._finish_info(info)

    def _finish_info(self, info: dict[str, Any]) -> dict[str, Any]:
        """The ``info`` ``step`` returns, from the one it built (subclasses adapt it)."""
        return info

    def _metric_rules(self) -> dict[str, str]:
        """The wrapped environment's ``episode_metrics`` (name -> "sum" | "last")."""
        return dict(getattr(self._env, "episode_metrics", {}) or {})

    # The state-reading methods take this wrapper's state or, as JaxMARL 0.2.0's wrappers
    # (which forwarded them) and its baseline scripts do, the wrapped environment's own
    # (``state.env_state``).
    def get_obs(self, state: Any) -> dict[str, jax.Array]:
        return self._env.get_obs(unwrap_state(state, LogEnvState))

    def get_avail_actions(self, state: Any) -> dict[str, jax.Array]:
        return self._env.get_avail_actions(unwrap_state(state, LogEnvState))

    def get_global_state(self, state: Any) -> jax.Array:
        return self._env.get_global_state(unwrap_state(state, LogEnvState))

    def render(self, state: Any, **render_kwargs: Any) -> jax.Array:
        return self._env.render(unwrap_state(state, LogEnvState), **render_kwargs)


def unwrap_state(state: Any, wrapper_state: type[Any]) -> Any:
    """``state.env_state`` if ``state`` is a ``wrapper_state``, else ``state`` itself
    (already the wrapped environment's state). A type test, so free under ``jit``."""
    return state.env_state if isinstance(state, wrapper_state) else state
