"""What ``MultiAgentEnv.step`` does with the ``actions`` it is given, the same for every env.

Two stages, so that bad input is either a clear error or a documented, flagged no-op,
never a silent wrong result:

1. **Structure, checked when ``step`` is traced** (:func:`check_structure`): ``actions``
   must be a mapping with exactly the environment's agents as keys, and each action must
   have its space's shape and a dtype of the right kind (integer for ``Discrete`` and
   ``MultiDiscrete``, floating point for a floating ``Box``). A ``Discrete`` action may
   also have shape ``(1,)``, read as its one entry: JaxMARL's baseline scripts give
   actions so (their ``unbatchify`` leaves a trailing axis of 1). A violation raises a
   ``ValueError`` (keys, shape) or ``TypeError`` (dtype) naming the environment, the
   agent, the space and what was given. Shapes and dtypes are static under ``jit``, so
   this costs nothing when the compiled step runs.
2. **Values, handled inside the compiled step** (:func:`sanitise`): values cannot raise
   under ``jit``, so every family treats them alike. A discrete action outside
   ``[0, n)`` is replaced by the agent's no-op (``env.noop_action(agent)``: MPE's
   ``no_op``, SMAX's ``stop``, Overcooked's and STORM's ``stay`` ...); a continuous
   action is clipped to its box, and a NaN entry becomes the no-op's entry (zero, clipped
   into the box). Either way ``info["invalid_action"][agent]`` is true for that step.
   :class:`jaxmarl.wrappers.StrictActions` turns such values into errors, for debugging.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.spaces import Box, Discrete, MultiDiscrete, Space

__all__ = ["check_structure", "default_noop", "sanitise"]


def _describe(value: Any) -> str:
    """``shape (3,), dtype int32`` for an array or tracer; the type for anything else."""
    shape, dtype = getattr(value, "shape", None), getattr(value, "dtype", None)
    if shape is None or dtype is None:
        return f"a {type(value).__name__}"
    return f"shape {tuple(shape)}, dtype {dtype}"


def _dtype_kind_ok(space: Space, dtype: Any) -> tuple[bool, str]:
    """Whether an action of ``dtype`` may be given for ``space``, and the kind it needs."""
    if isinstance(space, (Discrete, MultiDiscrete)):
        return jnp.issubdtype(dtype, jnp.integer), "an integer dtype"
    if isinstance(space, Box) and jnp.issubdtype(space.dtype, jnp.floating):
        return jnp.issubdtype(dtype, jnp.floating), "a floating-point dtype"
    if isinstance(space, Box):
        return jnp.issubdtype(dtype, jnp.integer), "an integer dtype"
    return True, ""


def check_structure(env_name: str, agents: list[str], spaces: Mapping[str, Space], actions: Any) -> None:
    """Raise if ``actions`` is not one well-formed action per agent (see the module docstring).

    Args:
        env_name: named in the messages.
        agents: the environment's agents, in order.
        spaces: each agent's action space.
        actions: what ``step`` was given (arrays or tracers).

    Raises:
        TypeError: ``actions`` is not a mapping, or an action has the wrong dtype kind.
        ValueError: agents are missing or unknown, or an action has the wrong shape.
    """
    where = f"{env_name}.step"
    if not isinstance(actions, Mapping):
        given = type(actions).__name__
        raise TypeError(f"{where}: actions must be a dict with one action per agent {agents}, got {given}")
    missing = [a for a in agents if a not in actions]
    extra = [a for a in actions if a not in spaces]
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"no action for {', '.join(map(repr, missing))}")
        if extra:
            parts.append(f"actions for unknown agent(s) {', '.join(map(repr, extra))}")
        raise ValueError(f"{where}: {' and '.join(parts)}; actions must have exactly the keys {agents}")
    for agent in agents:
        space, value = spaces[agent], actions[agent]
        shape = getattr(value, "shape", None)
        dtype = getattr(value, "dtype", None)
        if shape is None or dtype is None:
            what = _describe(value)
            raise TypeError(f"{where}: the action for {agent!r} ({space!r}) is {what}, not an array")
        if tuple(shape) != tuple(space.shape) and not (isinstance(space, Discrete) and tuple(shape) == (1,)):
            ndim = len(space.shape)
            batched = len(shape) > ndim and tuple(shape[len(shape) - ndim :]) == tuple(space.shape)
            hint = " (step takes one environment's actions: jax.vmap it to step a batch)" if batched else ""
            raise ValueError(
                f"{where}: the action for {agent!r} has shape {tuple(shape)} but its space {space!r} "
                f"needs shape {tuple(space.shape)}{hint}"
            )
        ok, needed = _dtype_kind_ok(space, dtype)
        if not ok:
            raise TypeError(
                f"{where}: the action for {agent!r} has dtype {dtype} but its space {space!r} needs {needed}"
            )


def default_noop(space: Space) -> Any:
    """The do-nothing action the base class uses for ``space`` unless the env says otherwise:
    ``0`` for ``Discrete``, zeros for ``MultiDiscrete``, zeros clipped into the bounds for ``Box``."""
    if isinstance(space, Discrete):
        return 0
    if isinstance(space, MultiDiscrete):
        return np.zeros(space.shape, np.int64)
    if isinstance(space, Box):
        return np.clip(np.zeros(space.shape, space.dtype), space.low, space.high)
    raise NotImplementedError(f"no default no-op action for {space!r}; override noop_action")


def sanitise(space: Space, noop: Any, action: jax.Array) -> tuple[jax.Array, jax.Array]:
    """The action the environment acts on, and whether the given one was invalid.

    A ``Discrete``/``MultiDiscrete`` value outside its range is replaced by ``noop``
    (entry by entry for ``MultiDiscrete``); a ``Box`` action is clipped to its bounds and
    its NaN entries replaced by ``noop``'s. The dtype of ``action`` is kept.

    Returns:
        ``(action, invalid)``, ``invalid`` a boolean scalar.
    """
    if isinstance(space, Discrete):
        action = action.reshape(())  # a (1,) action is its one entry (see check_structure)
        valid = (action >= 0) & (action < space.n)
        return jnp.where(valid, action, jnp.asarray(noop, action.dtype)), ~valid
    if isinstance(space, MultiDiscrete):
        valid = (action >= 0) & (action < jnp.asarray(space.nvec))
        return jnp.where(valid, action, jnp.asarray(noop, action.dtype)), ~jnp.all(valid)
    if isinstance(space, Box):
        low, high = jnp.asarray(space.low), jnp.asarray(space.high)
        if jnp.issubdtype(action.dtype, jnp.floating):
            nan = jnp.isnan(action)
            outside = nan | (action < low) | (action > high)
            clipped = jnp.where(nan, jnp.asarray(noop, action.dtype), jnp.clip(action, low, high))
        else:
            outside = (action < low) | (action > high)
            clipped = jnp.clip(action, low, high).astype(action.dtype)
        return clipped.astype(action.dtype), jnp.any(outside)
    return action, jnp.array(False)
