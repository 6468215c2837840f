"""Validation of JaxNav's keyword values: a clear ``ValueError`` (or a subclass) at
construction, naming the owner and the keyword."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["count", "flag", "real"]


def flag(owner: str, name: str, value: Any, error: type[ValueError] = ValueError) -> bool:
    """``value`` as a bool; it must be one."""
    if not isinstance(value, (bool, np.bool_)):
        raise error(f"{owner}: {name} must be True or False, got {value!r}")
    return bool(value)


def real(
    owner: str,
    name: str,
    value: Any,
    low: float | None = None,
    strict: bool = False,
    error: type[ValueError] = ValueError,
) -> float:
    """``value`` as a finite float, at least ``low`` (above it if ``strict``)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise error(f"{owner}: {name} must be a number, got {value!r}")
    value = float(value)
    if not math.isfinite(value) or (low is not None and (value <= low if strict else value < low)):
        bound = "" if low is None else f" {'>' if strict else '>='} {low}"
        raise error(f"{owner}: {name} must be a finite number{bound}, got {value!r}")
    return value


def count(owner: str, name: str, value: Any, low: int = 1, error: type[ValueError] = ValueError) -> int:
    """``value`` as an int of at least ``low``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise error(f"{owner}: {name} must be an integer >= {low}, got {value!r}")
    return int(value)
