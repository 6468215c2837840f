"""State of a Connector episode."""

from typing import TYPE_CHECKING, Any

import jax
import jax.numpy as jnp
from flax import struct


@struct.dataclass
class State:
    """The board and the wires' heads.

    ``N`` is the number of agents (wires), ``G`` the side of the square grid. Positions
    are ``(row, col)``; row 0 is the top row, "up" lowers the row index.

    Attributes:
        grid: int32 ``(G, G)``: Jumanji's cell codes (``constants``): ``0`` empty,
            ``3 i + 1`` a cell of agent ``i``'s wire, ``3 i + 2`` its head, ``3 i + 3``
            its target (until the head reaches it, when the cell becomes the head).
        position: int32 ``(N, 2)``: each agent's head.
        target: int32 ``(N, 2)``: each agent's target.
        action_mask: bool ``(N, 5)``: the legal actions of each agent in this state
            (Jumanji's ``action_mask``; ``Connector.reset`` recomputes it from the other
            fields, so a generator may leave it all true).
        step: int32 ``()``: steps taken in the episode (Jumanji's ``step_count``).
    """

    grid: jax.Array
    position: jax.Array
    target: jax.Array
    action_mask: jax.Array
    step: jax.Array

    @property
    def connected(self) -> jax.Array:
        """bool ``(N,)``: whether each head has reached its target."""
        return jnp.all(self.position == self.target, axis=-1)

    if TYPE_CHECKING:  # provided by flax.struct at runtime

        def replace(self, **changes: Any) -> "State": ...
