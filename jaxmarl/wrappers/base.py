"""Base class of environment wrappers."""

from __future__ import annotations

from typing import Any

from jaxmarl.environments.multi_agent_env import MultiAgentEnv


class Wrapper:
    """Wraps an environment and forwards every attribute it does not define.

    Args:
        env: the environment (or another wrapper) to wrap.
    """

    def __init__(self, env: MultiAgentEnv | Wrapper) -> None:
        self._env = env

    def __getattr__(self, name: str) -> Any:
        # Only called for attributes not found normally. Guard "_env" itself so that
        # copying or unpickling a half-built wrapper cannot recurse forever.
        if name == "_env":
            raise AttributeError(name)
        return getattr(self._env, name)

    def _inner_step(self, key: Any, state: Any, actions: Any, reset_state: Any = None) -> Any:
        """``self._env.step``, given ``reset_state`` only when there is one, so that a
        wrapped wrapper written for JaxMARL 0.2.0 (``step(key, state, actions)``) works."""
        if reset_state is None:
            return self._env.step(key, state, actions)
        return self._env.step(key, state, actions, reset_state)

    @property
    def unwrapped(self) -> MultiAgentEnv:
        """The innermost environment."""
        env = self._env
        return env.unwrapped if isinstance(env, Wrapper) else env

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._env!r})"
