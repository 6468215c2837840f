"""JaxMARL's module path ``jaxmarl.environments.smax.smax_env``: the two-team environment,
its state and the scenarios, re-exported from where they live here (``env.py``,
``types.py``, ``scenarios.py``)."""

from jaxmarl.environments.smax.env import SMAX
from jaxmarl.environments.smax.scenarios import (
    MAP_NAME_TO_SCENARIO,
    Scenario,
    map_name_to_scenario,
    register_scenario,
)
from jaxmarl.environments.smax.types import State

__all__ = ["MAP_NAME_TO_SCENARIO", "SMAX", "Scenario", "State", "map_name_to_scenario", "register_scenario"]
