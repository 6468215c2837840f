"""Overcooked: two cooks make and serve onion soup, as in overcooked-ai 1.1.0.

Registered as ``overcooked`` (``layout=`` one of the five classic layouts or an ASCII
grid), built by :class:`Overcooked`.
"""

from jaxmarl.environments.overcooked.env import COOKING_RULES, Overcooked
from jaxmarl.environments.overcooked.layouts import (
    CLASSIC_LAYOUTS,
    Layout,
    LayoutError,
    get_layout,
    parse_layout,
)
from jaxmarl.environments.overcooked.types import State

__all__ = [
    "CLASSIC_LAYOUTS",
    "COOKING_RULES",
    "Layout",
    "LayoutError",
    "Overcooked",
    "State",
    "get_layout",
    "parse_layout",
]
