"""Rendering of Connector, in pure JAX, in the look of Jumanji's viewer.

Each cell is a square with a black edge: white when empty, the agent's colour at its
head, that colour at 25% opacity over white along its wire, and a white cell holding a
half-size square of the colour at its target. Agent ``i``'s colour is Jumanji's: the
``hsv`` colour wheel cut into ``N + 1`` hues, agent ``i`` taking hue
``floor(i (N + 1) / N) / N``. Row 0 is drawn at the top, so the "up" action moves a head
up the image (Jumanji's matplotlib viewer draws row 0 at the bottom).
"""

from __future__ import annotations

import colorsys

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.jumanji.connector import constants as C
from jaxmarl.viz.raster import blank_canvas, to_uint8

__all__ = ["agent_colours", "render_grid"]


def agent_colours(num_agents: int) -> np.ndarray:
    """float32 ``(N, 3)`` RGB in [0, 1]: each agent's colour."""
    hues = [(i * (num_agents + 1) // num_agents) / num_agents for i in range(num_agents)]
    return np.array([colorsys.hsv_to_rgb(h % 1.0, 1.0, 1.0) for h in hues], np.float32)


def render_grid(grid: jax.Array, num_agents: int, cell: int) -> jax.Array:
    """Draw ``grid`` (int32 ``(G, G)``) with ``cell``-pixel cells: uint8 ``(G cell, G cell, 3)``."""
    size = grid.shape[0] * cell
    ys = jnp.arange(size)[:, None]
    xs = jnp.arange(size)[None, :]
    value = grid[ys // cell, xs // cell]  # (H, W)
    owner = jnp.clip((value - 1) // C.NUM_CODES, 0, num_agents - 1)
    kind = (value - 1) % C.NUM_CODES  # 0 wire, 1 head, 2 target (for non-empty cells)
    colour = jnp.asarray(agent_colours(num_agents))[owner]  # (H, W, 3)
    white = jnp.asarray(C.BACKGROUND, jnp.float32)
    faded = C.PATH_OPACITY * colour + (1 - C.PATH_OPACITY) * white
    local_y, local_x = ys % cell, xs % cell
    inner = (
        (local_y >= cell // 4)
        & (local_y < cell - cell // 4)
        & (local_x >= cell // 4)
        & (local_x < cell - cell // 4)
    )
    occupied = value > 0
    paint = jnp.where((occupied & (kind == 0))[..., None], faded, blank_canvas(size, size, C.BACKGROUND))
    paint = jnp.where((occupied & (kind == 1))[..., None], colour, paint)
    paint = jnp.where((occupied & (kind == 2) & inner)[..., None], colour, paint)
    edges = (local_y == 0) | (local_x == 0) | (ys == size - 1) | (xs == size - 1)
    paint = jnp.where(edges[..., None], jnp.asarray(C.EDGE, jnp.float32), paint)
    return to_uint8(paint)
