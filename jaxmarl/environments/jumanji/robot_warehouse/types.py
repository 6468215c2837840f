"""State of a RobotWarehouse episode."""

from typing import TYPE_CHECKING, Any

import jax
from flax import struct


@struct.dataclass
class State:
    """The warehouse floor: robots, shelves, the requests and the episode's randomness.

    Cells are ``(row, col)`` of the ``H x W`` floor, row 0 at the top (Jumanji's
    ``Position(x=row, y=col)``). Robot ``i`` is ``agent_i``; shelves are numbered in
    row-major order of their home cells, as Jumanji numbers them.

    The two grids hold ids plus one (0: nothing), exactly Jumanji's ``grid[1]`` and
    ``grid[0]``. On every state a step can start from they agree with ``agent_pos`` (robot
    ``i`` is at the one cell holding ``i + 1``); on the step that ends an episode by a
    collision they hold what Jumanji's one-robot-after-another update leaves there (a
    robot that moved onto another overwrote its id, a robot that moved off a cell cleared
    it), which is what that step's observations show.

    Attributes:
        agent_pos: int32 ``(num_agents, 2)``: each robot's ``(row, col)``.
        agent_dir: int32 ``(num_agents,)``: the way it faces, 0 up, 1 right, 2 down, 3 left.
        agent_carrying: bool ``(num_agents,)``: it carries a shelf (the one on its cell).
        agent_grid: int32 ``(H, W)``: ``i + 1`` where robot ``i`` is, 0 elsewhere.
        shelf_grid: int32 ``(H, W)``: ``s + 1`` where shelf ``s`` is, 0 elsewhere.
        request_queue: int32 ``(request_queue_size,)``: the requested shelves' ids, distinct.
        key: uint32 ``(2,)``: the PRNG key that draws new requests (Jumanji's ``state.key``).
        step: int32 ``()``: steps taken in the episode (Jumanji's ``step_count``).
    """

    agent_pos: jax.Array
    agent_dir: jax.Array
    agent_carrying: jax.Array
    agent_grid: jax.Array
    shelf_grid: jax.Array
    request_queue: jax.Array
    key: jax.Array
    step: jax.Array

    if TYPE_CHECKING:  # provided by flax.struct at runtime

        def replace(self, **changes: Any) -> "State": ...
