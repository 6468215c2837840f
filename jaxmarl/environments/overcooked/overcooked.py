"""JaxMARL 0.2.0's ``overcooked.overcooked`` module: the environment, its state, its
actions and its reward constants under JaxMARL's names.

The rules are ours (:mod:`jaxmarl.environments.overcooked.env`, overcooked-ai 1.1.0's);
``docs/environments/overcooked.md`` lists what differs from JaxMARL 0.2.0.
"""

from __future__ import annotations

from enum import IntEnum

from jaxmarl.environments.overcooked import constants as C
from jaxmarl.environments.overcooked.env import Overcooked
from jaxmarl.environments.overcooked.types import State

__all__ = [
    "BASE_REW_SHAPING_PARAMS",
    "DELIVERY_REWARD",
    "MAX_ONIONS_IN_POT",
    "URGENCY_CUTOFF",
    "Overcooked",
    "OvercookedActions",
    "State",
]


class OvercookedActions(IntEnum):
    """The action ids under JaxMARL's names (``up`` is north, the top of the layout)."""

    up = C.NORTH
    down = C.SOUTH
    right = C.EAST
    left = C.WEST
    stay = C.STAY
    interact = C.INTERACT
    done = C.NUM_ACTIONS  # not an action: outside the action space, as in JaxMARL


DELIVERY_REWARD = C.DELIVERY_REWARD  # a three-onion soup served
MAX_ONIONS_IN_POT = C.MAX_ONIONS
URGENCY_CUTOFF = C.URGENCY_STEPS  # the urgency channel is on while fewer steps remain
# The shaped rewards (``info["shaped_reward"]``), overcooked-ai's BASE_REW_SHAPING_PARAMS.
BASE_REW_SHAPING_PARAMS = {
    "PLACEMENT_IN_POT_REW": C.PLACEMENT_IN_POT_REWARD,
    "PLATE_PICKUP_REWARD": C.DISH_PICKUP_REWARD,
    "SOUP_PICKUP_REWARD": C.SOUP_PICKUP_REWARD,
    "DISH_DISP_DISTANCE_REW": 0,
    "POT_DISTANCE_REW": 0,
    "SOUP_DISTANCE_REW": 0,
}
