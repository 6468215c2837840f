"""JaxNav's maps: the worlds robots drive in and the levels (walls, starts, goals) drawn
on them. ``make_map(map_id, num_agents, rad, **map_params)`` builds a registered one."""

from jaxmarl.environments.jaxnav.maps.grid_map import (
    GridMapBarn,
    GridMapCircleAgents,
    GridMapFromBuffer,
    GridMapPolygonAgents,
    GridMapPolygonAgentsSingleMap,
)
from jaxmarl.environments.jaxnav.maps.map import Map, MapError
from jaxmarl.environments.jaxnav.maps.map_registration import make_map, registered_maps

__all__ = [
    "GridMapBarn",
    "GridMapCircleAgents",
    "GridMapFromBuffer",
    "GridMapPolygonAgents",
    "GridMapPolygonAgentsSingleMap",
    "Map",
    "MapError",
    "make_map",
    "registered_maps",
]
