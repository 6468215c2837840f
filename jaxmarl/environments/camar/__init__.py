"""CAMAR: continuous multi-agent path finding (see :mod:`jaxmarl.environments.camar.env`)."""

from jaxmarl.environments.camar.dynamics import DiffDriveDynamic, Dynamic, HolonomicDynamic, MixedDynamic
from jaxmarl.environments.camar.env import MAP_GENERATORS, Camar, make_map
from jaxmarl.environments.camar.grid_maps import batched_string_grid, labmaze_grid, movingai, string_grid
from jaxmarl.environments.camar.maps import MapGenerator, MapSample, caves_cont, random_grid
from jaxmarl.environments.camar.types import State

__all__ = [
    "MAP_GENERATORS",
    "Camar",
    "DiffDriveDynamic",
    "Dynamic",
    "HolonomicDynamic",
    "MapGenerator",
    "MapSample",
    "MixedDynamic",
    "State",
    "batched_string_grid",
    "caves_cont",
    "labmaze_grid",
    "make_map",
    "movingai",
    "random_grid",
    "string_grid",
]
