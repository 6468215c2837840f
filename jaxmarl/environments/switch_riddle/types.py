"""State of a Switch Riddle episode."""

from typing import TYPE_CHECKING, Any

import jax
from flax import struct


@struct.dataclass
class State:
    """The whole riddle: the bulb, who is in the room today and who has ever been there.

    Attributes:
        bulb: whether the light is on, bool ``()``.
        in_room: index of the prisoner in the room today, int32 ``()``.
        visited: whether each prisoner has been in the room on some day up to and
            including today, bool ``(num_agents,)`` (today's prisoner counts).
        step: days that have passed in this episode (0 on the first day), int32 ``()``.
    """

    bulb: jax.Array
    in_room: jax.Array
    visited: jax.Array
    step: jax.Array

    if TYPE_CHECKING:  # provided by flax.struct at runtime

        def replace(self, **changes: Any) -> "State": ...
