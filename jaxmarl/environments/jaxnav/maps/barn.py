"""Barn maps (Perille et al., 2020, "Benchmarking Metric Ground Navigation"): random fill
smoothed by a cellular automaton, as in JaxMARL 0.2.0's ``GridMapBarn``.

A level: random fill (as ``Grid-Rand``), ``iters`` rounds of smoothing (an inner cell
becomes a wall when more than ``upper`` of its eight neighbours inside the border are
walls, stays one while more than ``lower`` are, and is free otherwise), then obstacles
inflated by two cells (a 5x5 dilation). The single robot starts in a free cell of the
inflated map and its goal is a cell reachable from it that lies more than
``BARN_MIN_CELLS`` (19) cells away in ``x`` or ``y``; a level without one is redrawn.
Start and goal are the lower-left corners of their cells, the start heading one of the
four axis directions.
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.jaxnav import constants as C
from jaxmarl.environments.jaxnav.maps.graph import reachable_cells

__all__ = ["barn_level", "inflate", "sample_barn_test_case", "smooth"]


def smooth(map_data: jax.Array, upper: int, lower: int) -> jax.Array:
    """One round of the smoothing automaton (the border is kept, and not counted)."""
    h, w = map_data.shape
    inner = jnp.zeros((h, w), map_data.dtype).at[1:-1, 1:-1].set(map_data[1:-1, 1:-1])
    pad = jnp.pad(inner, 1)
    count = sum(pad[1 + dr : 1 + dr + h, 1 + dc : 1 + dc + w] for dr, dc in C.SMOOTHING_OFFSETS.tolist())
    wall = ((count > upper) | (map_data == 1)) & (count > lower)
    return map_data.at[1:-1, 1:-1].set(wall[1:-1, 1:-1].astype(map_data.dtype))


def inflate(map_data: jax.Array) -> jax.Array:
    """Walls grown by two cells in every direction (a 5x5 dilation), bool."""
    h, w = map_data.shape
    pad = jnp.pad(map_data.astype(bool), 2)
    out = jnp.zeros((h, w), bool)
    for dr in range(5):
        for dc in range(5):
            out = out | pad[dr : dr + h, dc : dc + w]
    return out


def barn_level(
    key: jax.Array,
    sample_map: Callable[[jax.Array], jax.Array],
    iters: int,
    upper: int,
    lower: int,
    cell_size: float,
) -> tuple[jax.Array, tuple[jax.Array, jax.Array, jax.Array]]:
    """One attempt: ``(valid, (start, goal, map))``, start and goal in metres."""
    key, key_map = jax.random.split(key)
    grid = sample_map(key_map)
    for _ in range(iters):
        grid = smooth(grid, upper, lower)
    inflated = inflate(grid)
    h, w = grid.shape
    key, _ = jax.random.split(key)
    cells = jnp.arange(h * w)
    start = jax.random.choice(key, cells, p=~inflated.reshape(-1))
    start = jnp.array([start % w, start // w])
    reachable = reachable_cells(inflated, start)
    lo = np.array([-C.BARN_MIN_CELLS, C.BARN_MIN_CELLS + 1])
    x_lim = jnp.clip(start[0] + lo, 0, w)
    y_lim = jnp.clip(start[1] + lo, 0, h)
    near_x = (np.arange(w) >= x_lim[0]) & (np.arange(w) < x_lim[1])
    near_y = (np.arange(h) >= y_lim[0]) & (np.arange(h) < y_lim[1])
    far = ~(near_y[:, None] & near_x[None, :])
    goals = reachable & far
    goal = jax.random.choice(key, cells, p=goals.reshape(-1))  # the same key as the start's
    goal = jnp.array([goal % w, goal // w])
    valid = jnp.any(~inflated) & jnp.any(goals)
    return valid, (start * cell_size, goal * cell_size, grid)


def sample_barn_test_case(
    key: jax.Array,
    sample_map: Callable[[jax.Array], jax.Array],
    shape: tuple[int, int],
    iters: int,
    upper: int,
    lower: int,
    cell_size: float,
) -> tuple[jax.Array, jax.Array]:
    """Draw levels until one is valid: ``(map_data, test_case)``, test case ``(1, 2, 3)``."""
    h, w = shape

    def body(val: tuple) -> tuple:
        _, _, key = val
        key, key_try = jax.random.split(key)
        valid, level = barn_level(key_try, sample_map, iters, upper, lower, cell_size)
        return valid, level, key

    init = (jnp.zeros((2,), jnp.float32), jnp.zeros((2,), jnp.float32), jnp.zeros((h, w), jnp.int32))
    _, (start, goal, grid), key = jax.lax.while_loop(lambda v: ~v[0], body, (jnp.array(False), init, key))
    theta = (jnp.pi / 2) * jax.random.choice(key, jnp.arange(4), (2,))
    case = jnp.concatenate([jnp.stack([start, goal]), theta[:, None]], axis=1)
    return grid, case[None].astype(jnp.float32)
