"""Shortest action counts in an Overcooked V2 kitchen, for the featurized observation.

A cook's situation is its cell and its facing. Each move action turns it that way and
moves it one cell if that cell is floor (turning only, otherwise). To interact with a
non-floor cell ``t`` a cook must stand on a floor neighbour of ``t`` facing it.
:class:`PathTable` holds, for every floor cell and facing, the fewest actions to reach
each such interaction spot (breadth-first search over cell and facing, once per layout
in NumPy), and answers "which target cell of a mask is closest" under ``jit``.
"""

from __future__ import annotations

from collections import deque

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.overcooked_v2 import constants as C

__all__ = ["PathTable"]


def _action_counts(floor: np.ndarray, start: tuple[int, int], facing: int) -> np.ndarray:
    """Fewest actions from ``start`` (y, x) facing ``facing`` to each (cell, facing),
    float32 ``(height, width, 4)`` (inf: unreachable)."""
    h, w = floor.shape
    dist = np.full((h, w, C.NUM_DIRECTIONS), np.inf, np.float32)
    dist[start[0], start[1], facing] = 0
    queue = deque([(start[0], start[1], facing)])
    while queue:
        y, x, f = queue.popleft()
        d = dist[y, x, f] + 1
        for a, (dx, dy) in enumerate(C.DIR_TO_VEC.tolist()):
            ny, nx = y + dy, x + dx
            if 0 <= ny < h and 0 <= nx < w and floor[ny, nx]:
                nxt = (ny, nx, a)
            else:
                nxt = (y, x, a)
            if d < dist[nxt]:
                dist[nxt] = d
                queue.append(nxt)
    return dist


class PathTable:
    """Fewest actions from each floor cell and facing to face each non-floor cell.

    Args:
        floor: cells cooks can stand on, bool ``(height, width)``.

    Attributes:
        cost: float32 ``(num_floor, 4, height * width)``: actions from floor cell ``i``
            (in row-major order) facing ``f`` until facing cell ``t`` from a neighbour
            (0 when already facing it; inf for floor cells and unreachable ones).
        floor_index: int32 ``(height * width,)``: the row of each floor cell in ``cost``,
            -1 off floor.
    """

    def __init__(self, floor: np.ndarray) -> None:
        floor = np.asarray(floor, bool)
        h, w = floor.shape
        cells = np.argwhere(floor)
        self.floor_index = np.full(h * w, -1, np.int32)
        self.floor_index[cells[:, 0] * w + cells[:, 1]] = np.arange(len(cells), dtype=np.int32)
        cost = np.full((max(len(cells), 1), C.NUM_DIRECTIONS, h * w), np.inf, np.float32)
        for i, (y, x) in enumerate(cells):
            for f in range(C.NUM_DIRECTIONS):
                dist = _action_counts(floor, (int(y), int(x)), f)
                best = np.full((h, w), np.inf, np.float32)
                for d, (dx, dy) in enumerate(C.DIR_TO_VEC.tolist()):
                    # Target t seen from its neighbour n = t + (dx, dy), facing back at t.
                    ys, xs = np.mgrid[0:h, 0:w]
                    ny, nx = ys + dy, xs + dx
                    inside = (ny >= 0) & (ny < h) & (nx >= 0) & (nx < w)
                    val = np.full((h, w), np.inf, np.float32)
                    val[inside] = dist[ny[inside], nx[inside], C.OPPOSITE[d]]
                    best = np.minimum(best, val)
                best[floor] = np.inf
                cost[i, f] = best.reshape(-1)
        self.cost = cost
        self.width = w

    def closest(self, targets: jax.Array, cell: jax.Array, facing: jax.Array) -> tuple[jax.Array, jax.Array]:
        """The target closest in actions to a cook, and whether there is one.

        Args:
            targets: bool ``(height * width,)``.
            cell: the cook's flat cell ``y * width + x``, int32 ``()``.
            facing: its facing, int32 ``()``.

        Returns:
            ``(target_cell, found)``: the cook's own cell if it is a target (found) or
            not floor (not found); else the reachable target with the fewest actions
            (the first in row-major order on ties), and whether one is reachable.
        """
        row = jnp.asarray(self.floor_index)[cell]
        costs = jnp.where(targets, jnp.asarray(self.cost)[jnp.maximum(row, 0), facing], jnp.inf)
        best = jnp.argmin(costs).astype(jnp.int32)
        found = jnp.any(jnp.isfinite(costs))
        own = targets[cell] | (row < 0)
        return jnp.where(own, cell, best), jnp.where(own, row >= 0, found)
