"""``make_map``: build one of JaxNav's registered map types by id."""

from __future__ import annotations

import difflib
import inspect
from typing import Any

from jaxmarl.environments.jaxnav.constants import MAP_IDS
from jaxmarl.environments.jaxnav.maps.grid_map import (
    GridMapBarn,
    GridMapCircleAgents,
    GridMapFromBuffer,
    GridMapPolygonAgents,
    GridMapPolygonAgentsSingleMap,
)
from jaxmarl.environments.jaxnav.maps.map import Map, MapError

__all__ = ["MAP_CLASSES", "make_map", "registered_maps"]

MAP_CLASSES: dict[str, type[Map]] = {
    "Grid-Rand": GridMapCircleAgents,
    "Grid-Rand-Poly": GridMapPolygonAgents,
    "Grid-Rand-Barn": GridMapBarn,
    "Grid-Rand-Poly-Single": GridMapPolygonAgentsSingleMap,
    "Grid-Buffer": GridMapFromBuffer,
}
registered_maps = list(MAP_IDS)


def _parameters(cls: type[Map]) -> list[str]:
    """The keyword parameters a map class accepts, its bases' included."""
    names: list[str] = []
    for klass in cls.__mro__:
        if klass is object or "__init__" not in vars(klass):
            continue
        for p in inspect.signature(vars(klass)["__init__"]).parameters.values():
            keyword = p.kind is p.POSITIONAL_OR_KEYWORD and p.name not in ("self", "num_agents", "rad")
            if keyword and p.name not in names:
                names.append(p.name)
    return names


def make_map(map_id: str, num_agents: int, rad: float, **map_kwargs: Any) -> Map:
    """The map (level generator) registered as ``map_id``.

    Args:
        map_id: one of ``registered_maps``.
        num_agents: robots per level.
        rad: robot radius (m).
        **map_kwargs: the map type's parameters (``map_size``, ``fill``, ...).

    Raises:
        MapError: (a ``ValueError``) for an unknown id (naming the closest ones), a
            parameter the map type does not take, or a bad value.
    """
    if map_id not in MAP_CLASSES:
        close = difflib.get_close_matches(str(map_id), registered_maps, n=3, cutoff=0.4)
        hint = f" Did you mean {' or '.join(map(repr, close))}?" if close else ""
        raise MapError(
            f"Unknown JaxNav map_id {map_id!r}.{hint} Registered maps: {', '.join(registered_maps)}."
        )
    cls = MAP_CLASSES[map_id]
    accepted = _parameters(cls)
    unknown = sorted(set(map_kwargs) - set(accepted))
    if unknown:
        raise MapError(
            f"map_id {map_id!r} ({cls.__name__}) got unknown map_params {unknown}; it takes {accepted}"
        )
    required = {"map_data"} if cls is GridMapPolygonAgentsSingleMap else {"map_size"}
    missing = sorted(required - set(map_kwargs))
    if missing:
        raise MapError(f"map_id {map_id!r} ({cls.__name__}) needs map_params {missing}")
    return cls(num_agents, rad, **map_kwargs)
