"""SMAX: StarCraft-like unit micromanagement in pure JAX (SMAC and SMACv2 scenarios).

Registered as ``SMAX`` (both teams are agents, for self-play), ``HeuristicEnemySMAX``
(the allies against the decentralised heuristic) and ``LearnedPolicyEnemySMAX`` (the
allies against a given Flax policy); :class:`PolicyEnemySMAX` plays the enemies with any
policy function. Actions are discrete or continuous (``action_type``), observations
unit lists or conic (``observation_type``).

>>> from jaxmarl import make
>>> from jaxmarl.environments.smax import map_name_to_scenario
>>> env = make("HeuristicEnemySMAX", scenario=map_name_to_scenario("2s3z"))
>>> env.agents
['ally_0', 'ally_1', 'ally_2', 'ally_3', 'ally_4']
"""

from jaxmarl.environments.smax.enemy import (
    EnemySMAX,
    HeuristicEnemySMAX,
    LearnedPolicyEnemySMAX,
    PolicyEnemySMAX,
)
from jaxmarl.environments.smax.env import SMAX
from jaxmarl.environments.smax.heuristic import (
    heuristic_actions,
    heuristic_from_obs,
    heuristic_init,
    heuristic_memory,
)
from jaxmarl.environments.smax.scenarios import (
    MAP_NAME_TO_SCENARIO,
    Scenario,
    map_name_to_scenario,
    register_scenario,
)
from jaxmarl.environments.smax.types import EnemyState, HeuristicState, State
from jaxmarl.environments.smax.units import DEFAULT_UNITS, UnitTable

__all__ = [
    "DEFAULT_UNITS",
    "MAP_NAME_TO_SCENARIO",
    "SMAX",
    "EnemySMAX",
    "EnemyState",
    "HeuristicEnemySMAX",
    "HeuristicState",
    "LearnedPolicyEnemySMAX",
    "PolicyEnemySMAX",
    "Scenario",
    "State",
    "UnitTable",
    "heuristic_actions",
    "heuristic_from_obs",
    "heuristic_init",
    "heuristic_memory",
    "map_name_to_scenario",
    "register_scenario",
]
