"""JaxNav: differential-drive robots with lidar navigate to goals on procedurally
generated maps (Rutherford et al., 2024; JaxMARL 0.2.0's ``jaxnav``).

Registered as ``jaxnav``, built by :class:`JaxNav`. Hand-made levels: :class:`JaxNavSingleton`
and ``make_jaxnav_singleton`` / ``make_jaxnav_singleton_collection``; animations:
:class:`JaxNavVisualizer`.
"""

from jaxmarl.environments.jaxnav.env import JaxNav
from jaxmarl.environments.jaxnav.jaxnav_viz import JaxNavVisualizer
from jaxmarl.environments.jaxnav.maps import MapError, make_map, registered_maps
from jaxmarl.environments.jaxnav.singletons import (
    JaxNavSingleton,
    TestCase,
    make_jaxnav_singleton,
    make_jaxnav_singleton_collection,
    registered_singleton_collections,
    registered_singletons,
)
from jaxmarl.environments.jaxnav.types import EnvInstance, Reward, State

__all__ = [
    "EnvInstance",
    "JaxNav",
    "JaxNavSingleton",
    "JaxNavVisualizer",
    "MapError",
    "Reward",
    "State",
    "TestCase",
    "make_jaxnav_singleton",
    "make_jaxnav_singleton_collection",
    "make_map",
    "registered_maps",
    "registered_singleton_collections",
    "registered_singletons",
]
