"""JaxMARL's module of Overcooked V2 rewards and times (the values live in ``constants``).

``SHAPED_REWARDS`` maps JaxMARL's shaped-reward names to their values; ``URGENCY_CUTOFF``
is kept for compatibility (neither JaxMARL's nor our Overcooked V2 uses it).
"""

from jaxmarl.environments.overcooked_v2.constants import (
    DELIVERY_REWARD,
    INDICATOR_ACTIVATION_COST,
    INDICATOR_ACTIVATION_TIME,
    POT_COOK_TIME,
    SHAPED_REWARDS,
    URGENCY_CUTOFF,
)

__all__ = [
    "DELIVERY_REWARD",
    "INDICATOR_ACTIVATION_COST",
    "INDICATOR_ACTIVATION_TIME",
    "POT_COOK_TIME",
    "SHAPED_REWARDS",
    "URGENCY_CUTOFF",
]
