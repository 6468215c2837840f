"""State of a Coin Game episode."""

from typing import TYPE_CHECKING, Any

import jax
from flax import struct


@struct.dataclass
class State:
    """Where the two players and the two coins are, and how far the episode has gone.

    Positions are ``(row, col)`` cells of the ``grid_size`` x ``grid_size`` torus; index 0
    is red (``agent_0`` and its coin), index 1 blue (``agent_1`` and its coin).

    Attributes:
        agent_pos: the players' cells, int32 ``(2, 2)`` as ``[agent, (row, col)]``.
        coin_pos: the coins' cells, int32 ``(2, 2)`` as ``[coin, (row, col)]``.
        step: steps taken in the outer episode, int32 ``()``; the inner episode is
            ``step // num_inner_steps`` and its step ``step % num_inner_steps``.
    """

    agent_pos: jax.Array
    coin_pos: jax.Array
    step: jax.Array

    if TYPE_CHECKING:  # provided by flax.struct at runtime

        def replace(self, **changes: Any) -> "State": ...
