"""Overcooked: two cooks make and serve onion soup, as in overcooked-ai 1.1.0.

Registered as ``overcooked`` (``layout=`` one of the five classic layouts, an ASCII grid
or one of JaxMARL's layout dicts, ``overcooked_layouts``), built by :class:`Overcooked`.
"""

from jaxmarl.environments.overcooked.env import COOKING_RULES, Overcooked
from jaxmarl.environments.overcooked.layouts import (
    CLASSIC_LAYOUTS,
    Layout,
    LayoutError,
    get_layout,
    layout_from_dict,
    layout_grid_to_dict,
    layout_to_dict,
    overcooked_layouts,
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
    "layout_from_dict",
    "layout_grid_to_dict",
    "layout_to_dict",
    "overcooked_layouts",
    "parse_layout",
]
