"""``StrictActions``: turn actions outside their spaces into errors, for debugging.

Under ``jit`` an environment cannot raise on a value, so ``step`` replaces an action
outside its space by the agent's no-op (or clips it) and flags it in
``info["invalid_action"]`` (see :mod:`jaxmarl.environments.actions`). Wrapped in
``StrictActions``, the same step raises instead, naming the agent, the action and the
space, also from inside ``jit``, ``vmap`` and ``lax.scan``: the flags are sent to the host
with ``jax.debug.callback``, which costs a host round trip per step, so use it to find a
bug and take it off to train.
"""

from __future__ import annotations

from typing import Any

import jax
import numpy as np

from jaxmarl.wrappers.base import Wrapper

__all__ = ["InvalidActionError", "StrictActions"]


class InvalidActionError(ValueError):
    """An action outside its space reached a :class:`StrictActions` environment."""


class StrictActions(Wrapper):
    """Raise :class:`InvalidActionError` when an action is outside its space.

    Called eagerly, ``step`` raises the error itself; inside ``jit``, ``vmap`` or
    ``lax.scan`` the check runs on the host as the compiled step runs, and JAX re-raises
    the error as a ``JaxRuntimeError`` whose message holds the same text.

    Example:
        >>> import jax, jax.numpy as jnp, jaxmarl
        >>> from jaxmarl.wrappers import StrictActions
        >>> env = StrictActions(jaxmarl.make("MPE_simple_v3"))
        >>> obs, state = env.reset(jax.random.PRNGKey(0))
        >>> env.step(jax.random.PRNGKey(1), state, {"agent_0": jnp.int32(7)})
        Traceback (most recent call last):
        ...
        jaxmarl.wrappers.strict.InvalidActionError: SimpleMPE.step: the action for 'agent_0' is 7,
        outside its space Discrete(5)
    """

    def step(
        self, key: jax.Array, state: Any, actions: dict[str, jax.Array], reset_state: Any | None = None
    ) -> tuple:
        """``env.step``, raising where the environment would have flagged an invalid action."""
        out = self._inner_step(key, state, actions, reset_state)
        invalid = out[4]["invalid_action"]
        agents = list(self._env.agents)
        flags, given = [invalid[a] for a in agents], [actions[a] for a in agents]
        if any(isinstance(x, jax.core.Tracer) for x in jax.tree.leaves((flags, given))):
            jax.debug.callback(self._raise_if_invalid, flags, given)  # checked when it runs
        else:
            self._raise_if_invalid(flags, given)
        return out

    def _raise_if_invalid(self, invalid: list[Any], actions: list[Any]) -> None:
        for agent, flag, action in zip(self._env.agents, invalid, actions, strict=True):
            flags = np.asarray(flag)
            if flags.any():
                value = np.asarray(action)
                if flags.ndim:  # vmapped: report the first environment that erred
                    index = tuple(np.argwhere(flags)[0])
                    value, where = value[index], f" (batch index {index})"
                else:
                    where = ""
                raise InvalidActionError(
                    f"{self._env.name}.step: the action for {agent!r} is {value.tolist()}{where},\n"
                    f"outside its space {self._env.action_space(agent)!r}"
                )
