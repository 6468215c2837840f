"""State of a STORM world."""

from typing import TYPE_CHECKING, Any

import jax
from flax import struct


@struct.dataclass
class State:
    """State of a STORM grid. Agents are in ``env.agents`` order; positions are
    ``(row, col)`` with row 0 at the top; facings are 0 north, 1 east, 2 south, 3 west.

    Attributes:
        pos: agent positions, int32 ``(num_agents, 2)``.
        dir: agent facings, int32 ``(num_agents,)``.
        inventory: coins each agent holds, int32 ``(num_agents, 2)``: cooperate, defect.
        freeze: steps each agent stays frozen after an interaction, int32
            ``(num_agents,)`` (0: not frozen).
        partner: the agent each frozen agent interacted with, int32 ``(num_agents,)``
            (-1: none).
        coins: coins lying on the grid, int32 ``(grid_size, grid_size)``: 0 none,
            1 cooperate, 2 defect.
        coin_layout: where coins spawn in this inner episode (and regrow), int32
            ``(grid_size, grid_size)``, same codes as ``coins``.
        beam: cells covered by interact beams fired this step, bool
            ``(grid_size, grid_size)``.
        step: steps taken in this (outer) episode, int32 ``()``.
    """

    pos: jax.Array
    dir: jax.Array
    inventory: jax.Array
    freeze: jax.Array
    partner: jax.Array
    coins: jax.Array
    coin_layout: jax.Array
    beam: jax.Array
    step: jax.Array

    if TYPE_CHECKING:  # provided by flax.struct at runtime

        def replace(self, **changes: Any) -> "State": ...
