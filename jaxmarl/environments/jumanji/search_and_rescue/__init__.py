"""SearchAndRescue (Jumanji 1.1.2's ``SearchAndRescue-v0``): searchers on a torus find drifting targets."""

from jaxmarl.environments.jumanji.search_and_rescue.dynamics import RandomWalk
from jaxmarl.environments.jumanji.search_and_rescue.env import SearchAndRescue
from jaxmarl.environments.jumanji.search_and_rescue.generator import REQUIRED_ATTRIBUTES, RandomGenerator
from jaxmarl.environments.jumanji.search_and_rescue.observations import AgentAndTargetObservationFn
from jaxmarl.environments.jumanji.search_and_rescue.reward import IndividualRewardFn
from jaxmarl.environments.jumanji.search_and_rescue.types import SearcherState, State, TargetState

__all__ = [
    "REQUIRED_ATTRIBUTES",
    "AgentAndTargetObservationFn",
    "IndividualRewardFn",
    "RandomGenerator",
    "RandomWalk",
    "SearchAndRescue",
    "SearcherState",
    "State",
    "TargetState",
]
