"""Rendering of RobotWarehouse, in pure JAX, in the look of Jumanji's viewer.

White floor with black cell lines, the goal cells filled dark grey, shelves as squares
inset in their cells (dark slate blue, teal when requested), robots as discs of a third
of a cell's radius (dark orange, red when carrying a shelf) with a black tick from the
centre the way the robot faces. Row 0 is at the top, as in Jumanji's pictures.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.jumanji.robot_warehouse import constants as C
from jaxmarl.environments.jumanji.robot_warehouse.types import State
from jaxmarl.viz.raster import blank_canvas, draw_circles, to_uint8

__all__ = ["render_floor"]


def _colour(rgb: tuple[float, float, float]) -> jax.Array:
    return jnp.asarray(rgb, jnp.float32)


def render_floor(state: State, requested: jax.Array, goals: np.ndarray, cell: int) -> jax.Array:
    """Draw ``state`` with ``cell``-pixel cells. ``requested``: bool ``(num_shelves,)``;
    ``goals``: ``(num_goals, 2)`` cells. Returns ``uint8 (H * cell, W * cell, 3)``."""
    height, width = state.shelf_grid.shape
    ys = jnp.arange(height * cell)[:, None]
    xs = jnp.arange(width * cell)[None, :]
    row, col = ys // cell, xs // cell
    local_y, local_x = ys % cell, xs % cell
    canvas = blank_canvas(height * cell, width * cell, C.BACKGROUND)

    goal_map = np.zeros((height, width), bool)
    goal_map[goals[:, 0], goals[:, 1]] = True
    canvas = jnp.where(jnp.asarray(goal_map)[row, col][..., None], _colour(C.GOAL_COLOUR), canvas)
    lines = (local_y == 0) | (local_x == 0) | (ys == height * cell - 1) | (xs == width * cell - 1)
    canvas = jnp.where(lines[..., None], _colour(C.GRID_COLOUR), canvas)

    inset = max(cell // 15, 1) + 1
    inside = (
        (local_y >= inset) & (local_y < cell - inset + 1) & (local_x >= inset) & (local_x < cell - inset + 1)
    )
    shelf = state.shelf_grid[row, col]
    is_requested = requested[jnp.maximum(shelf - 1, 0)]
    shelf_colour = jnp.where(
        is_requested[..., None], _colour(C.SHELF_REQUESTED_COLOUR), _colour(C.SHELF_COLOUR)
    )
    canvas = jnp.where(((shelf > 0) & inside)[..., None], shelf_colour, canvas)

    centres = (state.agent_pos[:, ::-1].astype(jnp.float32) + 0.5) * cell  # (x, y) pixels
    radius = cell / 3
    colours = jnp.where(
        state.agent_carrying[:, None], _colour(C.AGENT_LOADED_COLOUR), _colour(C.AGENT_COLOUR)
    )
    radii = jnp.full((centres.shape[0],), radius, jnp.float32)
    canvas = draw_circles(canvas, centres, radii, colours, outline=0.0)

    # Direction ticks: a bar of half-width w from the centre to the rim, per robot.
    steps = jnp.asarray(C.MOVES[:, ::-1], jnp.float32)[state.agent_dir]  # (n, 2) as (dx, dy)
    half = max(cell / 30, 0.5)
    dx = (xs + 0.5)[None] - centres[:, 0, None, None]
    dy = (ys + 0.5)[None] - centres[:, 1, None, None]
    along = dx * steps[:, 0, None, None] + dy * steps[:, 1, None, None]
    across = dx * steps[:, 1, None, None] - dy * steps[:, 0, None, None]
    tick = jnp.any((along >= -half) & (along <= radius) & (jnp.abs(across) <= half), axis=0)
    canvas = jnp.where(tick[..., None], _colour(C.AGENT_DIRECTION_COLOUR), canvas)
    return to_uint8(canvas)
