"""State of a LevelBasedForaging episode."""

from typing import TYPE_CHECKING, Any

import jax
from flax import struct


@struct.dataclass
class State:
    """Where the foragers and the food are, their levels, and how far the episode has gone.

    Positions are ``(row, col)`` cells of the ``grid_size`` x ``grid_size`` grid, row 0 at
    the top. Agent ``i`` is ``agent_i`` (Jumanji's agent ``id`` ``i``); food ``f`` is
    Jumanji's food ``id`` ``f``. Jumanji's ``Agent.loading`` is not kept: it only lives
    within a step (the agents whose action is ``LOAD``), and its ``key`` is not used by the
    (deterministic) dynamics.

    Attributes:
        agent_pos: int32 ``(num_agents, 2)``, each forager's ``(row, col)``.
        agent_level: int32 ``(num_agents,)``, each forager's level (``>= 1``).
        food_pos: int32 ``(num_food, 2)``, each food item's ``(row, col)``.
        food_level: int32 ``(num_food,)``, each food item's level.
        food_eaten: bool ``(num_food,)``, whether the item has been eaten (it then leaves
            the board).
        step: int32 ``()``, steps taken in the episode (Jumanji's ``step_count``).
    """

    agent_pos: jax.Array  # (num_agents, 2) int32
    agent_level: jax.Array  # (num_agents,) int32
    food_pos: jax.Array  # (num_food, 2) int32
    food_level: jax.Array  # (num_food,) int32
    food_eaten: jax.Array  # (num_food,) bool
    step: jax.Array  # () int32

    if TYPE_CHECKING:  # provided by flax.struct at runtime

        def replace(self, **changes: Any) -> "State": ...
