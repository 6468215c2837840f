"""Instances of Cleaner: a random maze, every open tile dirty, all cleaners in the top-left cell.

:class:`RandomGenerator` is Jumanji 1.1.2's default (and only) Cleaner generator: for the
same key it builds the same maze as Jumanji's ``RandomGenerator``, with the same
*recursive division* algorithm consuming the key the same way (:func:`generate_maze`).

Any object with ``__call__(key) -> State`` and the attributes in :data:`REQUIRED_ATTRIBUTES`
can serve as a generator (see :mod:`jaxmarl.environments.jumanji.common`).
"""

from __future__ import annotations

import functools
import sys
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.jumanji.cleaner import constants as C
from jaxmarl.environments.jumanji.cleaner.types import State

__all__ = ["REQUIRED_ATTRIBUTES", "RandomGenerator", "generate_maze", "maze_bounds"]

REQUIRED_ATTRIBUTES = ("num_rows", "num_cols", "num_agents")


def _check_int(name: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"Cleaner RandomGenerator: {name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


@functools.lru_cache(maxsize=64)
def maze_bounds(num_rows: int, num_cols: int) -> tuple[int, int]:
    """The most chambers :func:`generate_maze` can split on this grid, and the deepest its
    stack of chambers can grow, over all random draws (a Python computation, once per
    grid size, that fixes the static shapes of the generation)."""
    memo: dict[tuple[int, int], tuple[int, int]] = {}

    def visit(width: int, height: int) -> tuple[int, int]:
        # (splits, stack depth) of the chamber's subtree, the chamber itself on the stack.
        if (width, height) in memo:
            return memo[(width, height)]
        vertical = width >= height
        across, along = (width, height) if vertical else (height, width)
        splits, depth = 1, 1
        for d in range(1, max(across // 2, 1) * 2, 2):  # every wall offset randint can draw
            kids = [
                (side, along) if vertical else (along, side)
                for side in (d, across - d - 1)
                if side > 1 and along > 1
            ]
            sub = [visit(*kid) for kid in kids]
            splits = max(splits, 1 + sum(s for s, _ in sub))
            if len(sub) == 2:  # the second is split first, above the first
                depth = max(depth, 1 + sub[1][1], sub[0][1])
            elif sub:
                depth = max(depth, sub[0][1])
        memo[(width, height)] = (splits, depth)
        return splits, depth

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 4 * (num_rows + num_cols) + 100))
    try:
        return visit(num_cols, num_rows)
    finally:
        sys.setrecursionlimit(limit)


def generate_maze(key: jax.Array, num_rows: int, num_cols: int) -> jax.Array:
    """A random maze by recursive division, the same as Jumanji's ``generate_maze`` for the same key.

    **The algorithm (Jumanji's).** Start from one open chamber, the whole grid, on a
    stack. Until the stack is empty, pop a chamber ``(x, y, width, height)`` (``x`` a
    column, ``y`` a row) and draw ``key, wall_key, passage_key = split(key, 3)``. A
    chamber at least as wide as it is tall gets a vertical wall at the odd column offset
    ``d = 2 * randint(wall_key, (), 0, width // 2) + 1`` with one open passage at the even
    row offset ``p = 2 * randint(passage_key, (), 0, (height + 1) // 2)``; a taller
    chamber gets a horizontal wall at an odd row offset with a passage at an even column
    offset (the same draws, width and height swapped). The sub-chambers on either side
    of the wall (left or top first) are pushed when both their sides exceed 1. Walls lie
    on odd rows or columns and passages on even ones, so every open tile is reachable.

    **How it is computed here.** The ``i``-th chamber split uses the ``i``-th keys of the
    chain ``key -> split(key, 3)``, whatever the chamber, so the chain (for the most
    splits the grid allows, :func:`maze_bounds`) and every ``randint`` the split could
    ask for (each possible span) are drawn first, vectorised. The loop over the stack is
    then integer bookkeeping that records each wall, and the walls are drawn at the end,
    all at once. Jumanji instead draws inside the loop, a wall tile by tile.

    Args:
        key: PRNG key (Jumanji's ``generator_key``).
        num_rows: rows of the grid (Python int).
        num_cols: columns of the grid (Python int); ``num_rows * num_cols >= 2``.

    Returns:
        The maze, int8 ``(num_rows, num_cols)``: ``DIRTY`` (0) open tiles, ``WALL`` (2) walls.
    """
    max_splits, max_depth = maze_bounds(num_rows, num_cols)
    longest = max(num_rows, num_cols)

    def next_keys(key: jax.Array, _: None) -> tuple[jax.Array, tuple[jax.Array, jax.Array]]:
        key, wall_key, passage_key = jax.random.split(key, 3)
        return key, (wall_key, passage_key)

    _, (wall_keys, passage_keys) = jax.lax.scan(next_keys, key, None, length=max_splits)

    def offsets(keys: jax.Array, num_spans: int, odd: int) -> jax.Array:
        # table[i, s - 1] = 2 * randint(keys[i], (), 0, s) + odd for every span s.
        spans = jnp.arange(1, num_spans + 1, dtype=jnp.int32)
        draw = jax.vmap(lambda k: jax.vmap(lambda s: jax.random.randint(k, (), 0, s))(spans))
        return draw(keys) * 2 + odd

    wall_table = offsets(wall_keys, max(longest // 2, 1), 1)  # spans across // 2 >= 1
    passage_table = offsets(passage_keys, (longest + 1) // 2, 0)  # spans (along + 1) // 2 >= 1

    slots = jnp.arange(max_depth)
    stack = jnp.zeros((max_depth, 4), jnp.int32).at[0].set(jnp.array([0, 0, num_cols, num_rows]))
    walls = jnp.zeros((max_splits, 5), jnp.int32)  # vertical, line, first, end, passage
    small = max_splits * num_rows * num_cols <= 4096  # draw walls as dense masks (else as runs)

    def split_chamber(carry: tuple) -> tuple:
        stack, top, i, walls = carry
        top = top - 1
        x, y, width, height = jnp.sum(jnp.where((slots == top)[:, None], stack, 0), axis=0)
        vertical = width >= height
        across = jnp.where(vertical, width, height)
        along = jnp.where(vertical, height, width)
        d = wall_table[i, across // 2 - 1]
        p = passage_table[i, (along + 1) // 2 - 1]
        wall = jnp.where(
            vertical,
            jnp.stack([1, x + d, y, y + height, y + p]),
            jnp.stack([0, y + d, x, x + width, x + p]),
        )
        if small:
            walls = jnp.where((jnp.arange(max_splits) == i)[:, None], wall, walls)
        else:
            walls = walls.at[i].set(wall)
        first = jnp.where(vertical, jnp.stack([x, y, d, height]), jnp.stack([x, y, width, d]))
        second = jnp.where(
            vertical,
            jnp.stack([x + d + 1, y, width - d - 1, height]),
            jnp.stack([x, y + d + 1, width, height - d - 1]),
        )
        for chamber in (first, second):  # the top slot is free: write, then keep it if large enough
            stack = jnp.where((slots == top)[:, None], chamber, stack)
            top = top + ((chamber[2] > 1) & (chamber[3] > 1)).astype(jnp.int32)
        return stack, top, i + 1, walls

    carry = (stack, jnp.int32(1), jnp.int32(0), walls)
    _, _, num_splits, walls = jax.lax.while_loop(lambda c: c[1] > 0, split_chamber, carry)
    draw = _draw_walls_dense if small else _draw_walls_runs
    is_wall = draw(walls, jnp.arange(max_splits) < num_splits, num_rows, num_cols)
    return jnp.where(is_wall, jnp.int8(C.WALL), jnp.int8(C.DIRTY))


def _draw_walls_dense(walls: jax.Array, done: jax.Array, num_rows: int, num_cols: int) -> jax.Array:
    """bool ``(num_rows, num_cols)`` wall tiles from the recorded walls, one mask per wall."""
    vertical, line, first, end, passage = (walls[:, j, None, None] for j in range(5))
    rows = jnp.arange(num_rows)[None, :, None]
    cols = jnp.arange(num_cols)[None, None, :]
    along = jnp.where(vertical == 1, rows, cols)
    across = jnp.where(vertical == 1, cols, rows)
    tiles = (across == line) & (along >= first) & (along < end) & (along != passage)
    return jnp.any(tiles & done[:, None, None], axis=0)


def _draw_walls_runs(walls: jax.Array, done: jax.Array, num_rows: int, num_cols: int) -> jax.Array:
    """The same as :func:`_draw_walls_dense` in ``O(walls + tiles)``: each wall is a run
    along a row or a column, marked +1 at its start and -1 past its end, then summed."""
    vertical, line, first, end, passage = (walls[:, j] for j in range(5))
    horizontal_row = jnp.where(done & (vertical == 0), line, num_rows)  # out of range: dropped
    vertical_col = jnp.where(done & (vertical == 1), line, num_cols)
    runs_h = jnp.zeros((num_rows, num_cols + 1), jnp.int32)
    runs_h = runs_h.at[horizontal_row, first].add(1, mode="drop").at[horizontal_row, end].add(-1, mode="drop")
    runs_v = jnp.zeros((num_rows + 1, num_cols), jnp.int32)
    runs_v = runs_v.at[first, vertical_col].add(1, mode="drop").at[end, vertical_col].add(-1, mode="drop")
    is_wall = (jnp.cumsum(runs_h, axis=1)[:, :num_cols] > 0) | (jnp.cumsum(runs_v, axis=0)[:num_rows] > 0)
    passage_row = jnp.where(done, jnp.where(vertical == 1, passage, line), num_rows)
    passage_col = jnp.where(vertical == 1, line, passage)
    opened = jnp.zeros((num_rows, num_cols), bool).at[passage_row, passage_col].set(True, mode="drop")
    return is_wall & ~opened


class RandomGenerator:
    """Jumanji's default Cleaner generator: a random maze, all cleaners in the top-left cell.

    ``generator_key, _ = split(key)``; the maze is :func:`generate_maze` of
    ``generator_key``, every open tile dirty except the top-left one (always open), which
    is clean; every cleaner starts there.

    Args:
        num_rows: rows of the maze.
        num_cols: columns of the maze.
        num_agents: cleaners.

    Raises:
        ValueError: unless all three are integers with ``num_rows, num_cols, num_agents >=
            1`` and ``num_rows * num_cols >= 2`` (a single tile leaves no move to make).
    """

    def __init__(
        self, num_rows: int = C.NUM_ROWS, num_cols: int = C.NUM_COLS, num_agents: int = C.NUM_AGENTS
    ) -> None:
        self.num_rows = _check_int("num_rows", num_rows, 1)
        self.num_cols = _check_int("num_cols", num_cols, 1)
        self.num_agents = _check_int("num_agents", num_agents, 1)
        if self.num_rows * self.num_cols < 2:
            raise ValueError(
                f"Cleaner RandomGenerator: the grid needs at least 2 tiles, got {num_rows} x {num_cols}"
            )

    def __repr__(self) -> str:
        return (
            f"RandomGenerator(num_rows={self.num_rows}, num_cols={self.num_cols}, "
            f"num_agents={self.num_agents})"
        )

    def __call__(self, key: jax.Array) -> State:
        generator_key, _ = jax.random.split(key)
        grid = generate_maze(generator_key, self.num_rows, self.num_cols)
        return State(
            grid=grid.at[0, 0].set(C.CLEAN),
            agents_locations=jnp.zeros((self.num_agents, 2), jnp.int32),
            step=jnp.zeros((), jnp.int32),
        )
