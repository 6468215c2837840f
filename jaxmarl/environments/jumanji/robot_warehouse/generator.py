"""Instances of RobotWarehouse: the floor layout and :class:`RandomGenerator`.

The floor (Jumanji's, from the original RWARE) is ``shelf_rows`` bands of shelf clusters,
each ``column_height`` cells high, separated by one-cell corridors; each band holds
``shelf_columns`` clusters two cells wide, with a one-cell aisle between clusters and
along both walls. Below the last band a corridor and the delivery row close the floor;
the two goal cells are the middle of the delivery row, and the two middle columns of the
last band are left free so robots can queue in front of the goals. With ``H = (column_height
+ 1) * shelf_rows + 2`` rows and ``W = 3 * shelf_columns + 1`` columns, cell ``(row, col)``
is a *highway* (no shelf starts there, and a robot cannot put a shelf down there) when::

    col % 3 == 0 or row % (column_height + 1) == 0 or row == H - 1
    or (row > H - (column_height + 3) and col in (W // 2 - 1, W // 2))

and every other cell holds a shelf at the start, numbered in row-major order.

A generator is anything keeping the protocol of :mod:`jaxmarl.environments.jumanji.common`
with the attributes in :data:`REQUIRED_ATTRIBUTES`; its ``__call__(key)`` returns a
:class:`~jaxmarl.environments.jumanji.robot_warehouse.types.State` at step 0 whose robots
stand on distinct cells and whose grids agree with ``agent_pos`` and the shelves.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.jumanji.robot_warehouse import constants as C
from jaxmarl.environments.jumanji.robot_warehouse.types import State

__all__ = ["REQUIRED_ATTRIBUTES", "RandomGenerator", "check_int", "choose_distinct", "warehouse_layout"]

REQUIRED_ATTRIBUTES = (
    "grid_size",  # (H, W)
    "num_agents",
    "num_shelves",
    "request_queue_size",
    "sensor_range",
    "highways",  # bool (H, W)
    "goals",  # int (num_goals, 2): (row, col) of each goal cell, in delivery order
)


def check_int(name: str, value: Any, minimum: int) -> int:
    """``value`` as an ``int``; ``ValueError`` unless it is an integer (not a bool) >= ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"RobotWarehouse: {name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


_MAX_SCAN_DRAWS = 64  # choose_distinct: above this many draws, jax.random.choice's sort is cheaper


def _shuffle_rounds(n: int) -> int:
    """How many sorts ``jax.random.permutation`` of ``n`` items makes (JAX's rule)."""
    return int(np.ceil(3 * np.log(max(1, n)) / np.log(np.iinfo(np.uint32).max)))


def choose_distinct(key: jax.Array, n: int, k: int) -> jax.Array:
    """``jax.random.choice(key, n, (k,), replace=False)``, the same values, without sorting.

    JAX shuffles ``arange(n)`` by one stable sort on 32-bit random words drawn with
    ``split(key)[1]`` (for ``n`` up to about 1600; more items take more sorts), and
    ``choice`` keeps the first ``k``: the indices of the ``k`` smallest words, ties to the
    lower index. Picking those ``k`` one at a time costs ``O(n k)`` instead of a sort of
    ``n`` per call, which dominates Jumanji's reset and step under ``vmap`` on CPU. Where
    the shortcut does not apply (several sorts, many draws) this calls ``choice`` itself.
    The tests compare both on thousands of keys, so a change in JAX's algorithm shows.

    Returns:
        int32 ``(k,)``: distinct values in ``[0, n)``.
    """
    if _shuffle_rounds(n) != 1 or k > _MAX_SCAN_DRAWS:
        return jax.random.choice(key, n, (k,), replace=False).astype(jnp.int32)
    _, subkey = jax.random.split(key)
    words = jax.random.bits(subkey, (n,), jnp.uint32)
    if k == 1:
        return jnp.argmin(words)[None].astype(jnp.int32)
    top = jnp.uint32(np.iinfo(np.uint32).max)

    def pick(taken: jax.Array, _: None) -> tuple[jax.Array, jax.Array]:
        smallest = jnp.min(jnp.where(taken, top, words))
        index = jnp.argmax(~taken & (words == smallest))  # the first untaken one holding it
        return taken.at[index].set(True), index

    _, picks = jax.lax.scan(pick, jnp.zeros((n,), bool), None, length=k)
    return picks.astype(jnp.int32)


def warehouse_layout(
    shelf_rows: int, shelf_columns: int, column_height: int
) -> tuple[np.ndarray, np.ndarray]:
    """The floor of a warehouse: ``(highways, goals)``, a bool ``(H, W)`` map of the
    highway cells and the int32 ``(2, 2)`` goal cells ``(row, col)`` (see the module
    docstring). Shelves start on every cell that is not a highway."""
    height, width = (column_height + 1) * shelf_rows + 2, 3 * shelf_columns + 1
    row, col = np.indices((height, width))
    middle = (col == width // 2 - 1) | (col == width // 2)
    highways = (
        (col % 3 == 0)
        | (row % (column_height + 1) == 0)
        | (row == height - 1)
        | ((row > height - (column_height + 3)) & middle)
    )
    goals = np.array([[height - 1, width // 2 - 1], [height - 1, width // 2]], np.int32)
    return highways, goals


class RandomGenerator:
    """Jumanji's ``RandomGenerator``: robots on distinct uniformly random cells (shelf
    cells included) facing uniformly random ways, every shelf at its home cell, and
    ``request_queue_size`` distinct shelves requested uniformly at random.

    It draws exactly as Jumanji 1.1.2 does, so the same key gives the same instance:
    ``key, k = split(key)`` three times, for the robots' cells (``choice`` without
    replacement among the ``H * W`` cells), their directions (``choice`` with replacement)
    and the request queue (``choice`` without replacement among the shelves); the last
    ``key`` becomes ``State.key``, which later draws the new requests. (The draws without
    replacement go through :func:`choose_distinct`, equal to ``choice`` and faster.)

    Args:
        shelf_rows: bands of shelf clusters (>= 1).
        shelf_columns: shelf clusters per band, odd (>= 1).
        column_height: height of a cluster in cells (>= 1).
        num_agents: robots (>= 1, at most one per cell).
        sensor_range: how far a robot sees around itself, in cells (>= 0): its view is
            ``(2 * sensor_range + 1)`` cells square.
        request_queue_size: shelves requested at any time (>= 1 and below the number of
            shelves, since a delivered shelf is replaced by one not yet requested).

    Raises:
        ValueError: for a setting out of range, an even ``shelf_columns``, a floor without
            shelves, more robots than cells or a request queue as large as the shelves.
    """

    def __init__(
        self,
        shelf_rows: int = C.SHELF_ROWS,
        shelf_columns: int = C.SHELF_COLUMNS,
        column_height: int = C.COLUMN_HEIGHT,
        num_agents: int = C.NUM_AGENTS,
        sensor_range: int = C.SENSOR_RANGE,
        request_queue_size: int = C.REQUEST_QUEUE_SIZE,
    ) -> None:
        self.shelf_rows = check_int("shelf_rows", shelf_rows, 1)
        self.shelf_columns = check_int("shelf_columns", shelf_columns, 1)
        if self.shelf_columns % 2 != 1:
            raise ValueError(f"RobotWarehouse: shelf_columns must be an odd number, got {shelf_columns}")
        self.column_height = check_int("column_height", column_height, 1)
        self.num_agents = check_int("num_agents", num_agents, 1)
        self.sensor_range = check_int("sensor_range", sensor_range, 0)
        self.request_queue_size = check_int("request_queue_size", request_queue_size, 1)

        self.highways, self.goals = warehouse_layout(self.shelf_rows, self.shelf_columns, self.column_height)
        self.grid_size: tuple[int, int] = (int(self.highways.shape[0]), int(self.highways.shape[1]))
        self.shelf_positions = np.argwhere(~self.highways).astype(np.int32)  # (num_shelves, 2), home cells
        self.num_shelves = len(self.shelf_positions)
        cells = self.grid_size[0] * self.grid_size[1]
        if self.num_shelves == 0:
            raise ValueError(
                f"RobotWarehouse: shelf_rows={self.shelf_rows}, shelf_columns={self.shelf_columns}, "
                f"column_height={self.column_height} leave no shelf on the floor (the middle columns of the "
                "last band are kept free in front of the goals); add shelf rows or columns"
            )
        if self.num_agents > cells:
            raise ValueError(
                f"RobotWarehouse: num_agents={self.num_agents} robots do not fit on the "
                f"{self.grid_size[0]} x {self.grid_size[1]} floor ({cells} cells)"
            )
        if self.request_queue_size >= self.num_shelves:
            raise ValueError(
                f"RobotWarehouse: request_queue_size={self.request_queue_size} must be below the number of "
                f"shelves ({self.num_shelves}): a delivered shelf is replaced by one not yet requested"
            )

    def __repr__(self) -> str:
        return (
            f"RandomGenerator(shelf_rows={self.shelf_rows}, shelf_columns={self.shelf_columns}, "
            f"column_height={self.column_height}, num_agents={self.num_agents}, "
            f"sensor_range={self.sensor_range}, request_queue_size={self.request_queue_size})"
        )

    def __call__(self, key: jax.Array) -> State:
        height, width = self.grid_size
        key, position_key = jax.random.split(key)
        cells = choose_distinct(position_key, height * width, self.num_agents)
        key, direction_key = jax.random.split(key)
        directions = jax.random.choice(direction_key, jnp.arange(C.NUM_DIRECTIONS), (self.num_agents,))
        key, queue_key = jax.random.split(key)
        queue = choose_distinct(queue_key, self.num_shelves, self.request_queue_size)

        agent_pos = jnp.stack([cells // width, cells % width], axis=-1).astype(jnp.int32)
        agent_ids = jnp.arange(1, self.num_agents + 1, dtype=jnp.int32)
        agent_grid = jnp.zeros(self.grid_size, jnp.int32).at[agent_pos[:, 0], agent_pos[:, 1]].set(agent_ids)
        shelves = self.shelf_positions
        shelf_grid = np.zeros(self.grid_size, np.int32)
        shelf_grid[shelves[:, 0], shelves[:, 1]] = np.arange(1, self.num_shelves + 1)
        return State(
            agent_pos=agent_pos,
            agent_dir=directions.astype(jnp.int32),
            agent_carrying=jnp.zeros((self.num_agents,), bool),
            agent_grid=agent_grid,
            shelf_grid=jnp.asarray(shelf_grid),
            request_queue=queue,
            key=key,
            step=jnp.zeros((), jnp.int32),
        )
