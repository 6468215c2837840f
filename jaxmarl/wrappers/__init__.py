"""Environment wrappers. Generic: none of them imports a specific environment."""

from jaxmarl.wrappers.base import Wrapper
from jaxmarl.wrappers.batching import AgentBatcher
from jaxmarl.wrappers.logging import LogEnvState, LogWrapper
from jaxmarl.wrappers.rollout import RolloutManager, Team
from jaxmarl.wrappers.strict import InvalidActionError, StrictActions
from jaxmarl.wrappers.world_state import WorldStateWrapper

__all__ = [
    "AgentBatcher",
    "InvalidActionError",
    "LogEnvState",
    "LogWrapper",
    "RolloutManager",
    "StrictActions",
    "Team",
    "WorldStateWrapper",
    "Wrapper",
]
