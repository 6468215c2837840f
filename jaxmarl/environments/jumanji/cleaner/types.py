"""State of a Cleaner episode."""

from typing import TYPE_CHECKING, Any

import jax
from flax import struct


@struct.dataclass
class State:
    """The maze, where the cleaners are, and how far the episode has gone.

    Locations are ``(row, col)`` cells, row 0 at the top.

    Attributes:
        grid: the tiles, int8 ``(num_rows, num_cols)``: 0 dirty, 1 clean, 2 wall.
        agents_locations: the cleaners' cells, int32 ``(num_agents, 2)`` as
            ``[agent, (row, col)]``.
        step: steps taken in the episode, int32 ``()`` (Jumanji's ``step_count``).
        action_mask: the legal moves, bool ``(num_agents, 4)``, as Jumanji keeps them: a
            function of ``grid`` and ``agents_locations`` that ``reset`` and ``step`` fill
            in (generators may leave it ``None``; the env then computes it when needed).
            After moving cleaners or walls by hand, refresh it with
            ``state.replace(action_mask=env.compute_action_mask(state))`` (or set ``None``).
    """

    grid: jax.Array  # (num_rows, num_cols) int8
    agents_locations: jax.Array  # (num_agents, 2) int32
    step: jax.Array  # () int32
    action_mask: jax.Array | None = None  # (num_agents, 4) bool

    if TYPE_CHECKING:  # provided by flax.struct at runtime

        def replace(self, **changes: Any) -> "State": ...
