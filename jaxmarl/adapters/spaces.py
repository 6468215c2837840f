"""Our spaces on the host: Gymnasium equivalents, action checks, harmless actions.

The adapters talk NumPy to their users, so what they need about spaces is host-side:

- :func:`to_gymnasium_space` converts a jaxmarl space to the Gymnasium space with the
  same elements (``Discrete``, ``MultiDiscrete``, ``Box`` with its dtype and bounds,
  ``Tuple`` and ``Dict``, recursively).
- :func:`check_action` turns a user's action into the NumPy value the environment
  takes (the space's dtype), or raises a ``ValueError`` naming the agent and the space.
- :func:`harmless_action` is what an agent that has left the episode passes.

Gymnasium is imported only by :func:`to_gymnasium_space` and :func:`require`, so
importing this module needs neither PettingZoo nor Gymnasium.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from types import ModuleType
from typing import Any

import numpy as np

from jaxmarl.environments.spaces import Box, Dict, Discrete, MultiDiscrete, Space, Tuple

__all__ = ["check_action", "harmless_action", "require", "to_gymnasium_space"]


def require(module: str, adapter: str) -> ModuleType:
    """Import ``module`` (``"pettingzoo"`` or ``"gymnasium"``) for ``adapter``.

    Raises:
        ImportError: saying what to install when the module is missing.
    """
    try:
        return importlib.import_module(module)
    except ImportError as err:
        raise ImportError(
            f"{adapter} needs the optional dependency {module!r}: pip install {module} "
            f'(or pip install "jaxmarl[adapters]")'
        ) from err


def to_gymnasium_space(space: Space) -> Any:
    """The Gymnasium space with the same elements as ``space``.

    Example:
        >>> from jaxmarl.environments.spaces import Box, Discrete
        >>> to_gymnasium_space(Discrete(5))
        Discrete(5, dtype=int32)
        >>> to_gymnasium_space(Box(0.0, 1.0, (2,)))
        Box(0.0, 1.0, (2,), float32)

    Raises:
        ImportError: without Gymnasium.
        TypeError: for a space type the adapters do not know.
    """
    spaces = require("gymnasium", "to_gymnasium_space").spaces
    if isinstance(space, Discrete):
        return spaces.Discrete(space.n, dtype=np.dtype(space.dtype).type)
    if isinstance(space, MultiDiscrete):
        return spaces.MultiDiscrete(space.nvec, dtype=np.dtype(space.dtype).type)
    if isinstance(space, Box):
        dtype = np.dtype(space.dtype)
        return spaces.Box(low=space.low.astype(dtype), high=space.high.astype(dtype), dtype=dtype.type)
    if isinstance(space, Tuple):
        return spaces.Tuple([to_gymnasium_space(s) for s in space.spaces])
    if isinstance(space, Dict):
        return spaces.Dict({name: to_gymnasium_space(s) for name, s in space.spaces.items()})
    raise TypeError(f"no Gymnasium equivalent known for {space!r} ({type(space).__name__})")


def _integral(value: np.ndarray) -> bool:
    return value.dtype.kind in "iu"


def check_action(space: Space, action: Any, where: str) -> Any:
    """``action`` as the environment takes it, checked against ``space``.

    Args:
        space: the agent's action space.
        action: a Python or NumPy value (a tuple or dict of them for ``Tuple`` and
            ``Dict`` spaces).
        where: who gives the action, for the message (``"SMAX: agent 'ally_0'"``).

    Returns:
        A NumPy array of the space's shape and dtype (a tuple or dict of them).

    Raises:
        ValueError: naming ``where`` and the space, if ``action`` is not in it
            (discrete actions must have an integer dtype).
    """

    def bad(reason: str) -> ValueError:
        return ValueError(f"{where}: action {action!r} is not in its action space {space!r} ({reason})")

    if isinstance(space, Tuple):
        if not isinstance(action, (tuple, list)) or len(action) != len(space.spaces):
            raise bad(f"expected a tuple of {len(space.spaces)} actions")
        pairs = enumerate(zip(space.spaces, action, strict=True))
        return tuple(check_action(s, a, f"{where}[{i}]") for i, (s, a) in pairs)
    if isinstance(space, Dict):
        if not isinstance(action, Mapping) or set(action) != set(space.spaces):
            raise bad(f"expected a dict with keys {sorted(space.spaces)}")
        return {k: check_action(s, action[k], f"{where}[{k!r}]") for k, s in space.spaces.items()}
    try:
        value = np.asarray(action)
    except Exception as err:  # e.g. ragged nested sequences
        raise bad(f"not an array: {err}") from err
    if value.shape != tuple(space.shape):
        raise bad(f"shape {value.shape}, expected {tuple(space.shape)}")
    if isinstance(space, (Discrete, MultiDiscrete)):
        if not _integral(value):
            raise bad(f"dtype {value.dtype}, expected an integer dtype")
        upper = space.n if isinstance(space, Discrete) else space.nvec
        if np.any(value < 0) or np.any(value >= upper):
            raise bad("out of range")
        return value.astype(space.dtype)
    if isinstance(space, Box):
        float_into_int = value.dtype.kind == "f" and not np.issubdtype(space.dtype, np.floating)
        if value.dtype.kind not in "iuf" or float_into_int:
            raise bad(f"dtype {value.dtype} cannot hold elements of dtype {np.dtype(space.dtype)}")
        cast = value.astype(space.dtype)
        if not np.all((cast >= space.low) & (cast <= space.high)):
            raise bad("outside the bounds (or not a number)")
        return cast
    raise TypeError(f"{where}: unsupported action space {space!r}")


def harmless_action(space: Space, mask: np.ndarray | None = None) -> Any:
    """An action for an agent that has left the episode: for ``Discrete`` the first
    action ``mask`` allows (0 without a mask), for ``MultiDiscrete`` the same per
    dimension (``mask`` flat, of length ``sum(nvec)``), for ``Box`` zeros clipped into
    the box; ``Tuple`` and ``Dict`` recursively."""
    if isinstance(space, Discrete):
        first = int(np.argmax(mask)) if mask is not None and np.any(mask) else 0
        return np.asarray(first, dtype=space.dtype)
    if isinstance(space, MultiDiscrete):
        if mask is None:
            return np.zeros(space.shape, dtype=space.dtype)
        parts = np.split(np.asarray(mask), np.cumsum(space.nvec)[:-1])
        return np.asarray([int(np.argmax(p)) if np.any(p) else 0 for p in parts], dtype=space.dtype)
    if isinstance(space, Box):
        return np.clip(np.zeros(space.shape, space.dtype), space.low, space.high).astype(space.dtype)
    if isinstance(space, Tuple):
        return tuple(harmless_action(s) for s in space.spaces)
    if isinstance(space, Dict):
        return {k: harmless_action(s) for k, s in space.spaces.items()}
    raise TypeError(f"unsupported action space {space!r}")


def gymnasium_mask(space: Space, mask: np.ndarray) -> Any:
    """Our flat boolean mask in the form Gymnasium's ``space.sample(mask=...)`` takes:
    ``int8`` of shape ``(n,)`` for ``Discrete``, a tuple of ``int8`` arrays, one per
    dimension, for ``MultiDiscrete``."""
    mask = np.asarray(mask).astype(np.int8)
    if isinstance(space, MultiDiscrete):
        return tuple(np.split(mask, np.cumsum(space.nvec)[:-1]))
    return mask
