"""Overcooked V2: cooks make and serve soups of several recipes, with partial
observability and recipe indicators (JaxMARL 0.2.0's ``overcooked_v2``).

Registered as ``overcooked_v2`` (``layout=`` one of :data:`overcooked_v2_layouts`, an
ASCII grid or a :class:`Layout`), built by :class:`OvercookedV2`. JaxMARL's module paths
are kept: ``overcooked`` (the env, ``ObservationType``, ``State``), ``layouts``,
``common`` (object codes and enums) and ``settings`` (rewards and times).
"""

from jaxmarl.environments.overcooked_v2.env import ObservationType, OvercookedV2
from jaxmarl.environments.overcooked_v2.layouts import Layout, LayoutError, get_layout, overcooked_v2_layouts
from jaxmarl.environments.overcooked_v2.types import State

__all__ = [
    "Layout",
    "LayoutError",
    "ObservationType",
    "OvercookedV2",
    "State",
    "get_layout",
    "overcooked_v2_layouts",
]
