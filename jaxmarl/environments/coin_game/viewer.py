"""Rendering of the Coin Game, in pure JAX.

The torus is drawn as a ``grid_size`` x ``grid_size`` board with row 0 at the bottom (so
the "up" action moves a player up the image). Players are squares in their colour,
each taking half of the cell when they share one; coins are discs in a lighter shade of
their owner's colour, drawn on top.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxmarl.environments.coin_game import constants as C
from jaxmarl.environments.coin_game.types import State
from jaxmarl.viz.raster import blank_canvas, draw_circles, to_uint8


def render_grid(state: State, grid_size: int, cell: int) -> jax.Array:
    """Draw ``state`` with ``cell``-pixel cells. Returns ``uint8 (G * cell, G * cell, 3)``."""
    size = grid_size * cell
    ys = jnp.arange(size)[:, None]
    xs = jnp.arange(size)[None, :]
    row = grid_size - 1 - ys // cell  # grid row under each pixel (row 0 at the bottom)
    col = xs // cell
    local_y, local_x = ys % cell, xs % cell
    canvas = blank_canvas(size, size, C.BACKGROUND)
    lines = (local_y == 0) | (local_x == 0) | (ys == size - 1) | (xs == size - 1)
    canvas = jnp.where(lines[..., None], jnp.asarray(C.GRID_LINE, jnp.float32), canvas)

    inset = max(cell // 10, 1)
    in_square = (local_y >= inset) & (local_y < cell - inset) & (local_x >= inset) & (local_x < cell - inset)
    shared = jnp.all(state.agent_pos[0] == state.agent_pos[1])
    halves = (local_x < cell // 2, local_x >= cell // 2)  # red left, blue right when shared
    for i in (C.RED, C.BLUE):
        on_cell = (row == state.agent_pos[i, 0]) & (col == state.agent_pos[i, 1]) & in_square
        on_cell = on_cell & (~shared | halves[i])
        canvas = jnp.where(on_cell[..., None], jnp.asarray(C.AGENT_COLOURS[i], jnp.float32), canvas)

    centres = jnp.stack(
        [(state.coin_pos[:, 1] + 0.5) * cell, (grid_size - 1 - state.coin_pos[:, 0] + 0.5) * cell], axis=-1
    )
    radii = jnp.full((2,), 0.22 * cell)
    canvas = draw_circles(canvas, centres, radii, jnp.asarray(C.COIN_COLOURS, jnp.float32), outline=2.0)
    return to_uint8(canvas)
