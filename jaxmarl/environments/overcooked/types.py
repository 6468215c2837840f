"""State of an Overcooked kitchen."""

from typing import TYPE_CHECKING, Any

import jax
from flax import struct


@struct.dataclass
class State:
    """State of an Overcooked kitchen. Cooks are in ``env.agents`` order (``agent_0`` is
    cook ``1`` of the layout). Positions are ``(x, y)`` with ``y`` the row of the layout
    (0 at the top); grids are indexed ``[y, x]``. Codes are in ``constants``.

    Attributes:
        pos: cook positions, int32 ``(2, 2)`` as ``(x, y)``.
        dir: cook facings, int32 ``(2,)``: 0 north, 1 south, 2 east, 3 west.
        held: what each cook holds, int32 ``(2,)``: 0 nothing, 1 onion, 2 dish, 3 soup.
        held_onions: onions in the soup a cook holds (0 when it holds no soup), int32
            ``(2,)``.
        items: what lies on each counter, int32 ``(height, width)``, codes as ``held``
            (0 off counters).
        onions: onions in each pot, and in each soup lying on a counter, int32
            ``(height, width)``.
        cook_tick: each pot's cooking tick, int32 ``(height, width)``: -1 while the pot
            has not started cooking (or is empty, or is not a pot), then 0, 1, ... up to
            the cooking time (20), when the soup is ready.
        step: steps taken in the episode, int32 ``()``.
    """

    pos: jax.Array
    dir: jax.Array
    held: jax.Array
    held_onions: jax.Array
    items: jax.Array
    onions: jax.Array
    cook_tick: jax.Array
    step: jax.Array

    if TYPE_CHECKING:  # provided by flax.struct at runtime

        def replace(self, **changes: Any) -> "State": ...
