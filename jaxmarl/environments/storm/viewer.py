"""Rendering of STORM grids, in pure JAX.

Every pixel is computed from the state by index arithmetic (its cell, and its position
inside the cell), so rendering runs under ``jit`` and ``vmap``. Drawn, bottom to top:
the background with grid lines; cells covered by an interact beam this step (yellow);
coins as discs (green: cooperate, red: defect); agents as triangles pointing where they
face. An agent is drawn in its own colour when it is ready to interact (holds a coin),
in a pale version of it when it is not, and dark grey with a border of its colour while
it is frozen after an interaction.
"""

from __future__ import annotations

import colorsys

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.storm import constants as C
from jaxmarl.environments.storm.types import State
from jaxmarl.viz.raster import to_uint8

__all__ = ["agent_colours", "render_grid"]

# Inverse rotation of a cell-local offset (dx right, dy down) into the frame of an agent
# facing north, for each facing: rows are (cx from dx, cx from dy, cy from dx, cy from dy).
_UNROTATE = np.array([[1, 0, 0, 1], [0, 1, -1, 0], [-1, 0, 0, -1], [0, -1, 1, 0]], np.float32)
_TIP, _BASE, _HALF_WIDTH = -0.38, 0.32, 0.34  # triangle pointing up, in cell units
_COIN_RADIUS = 0.28


def agent_colours(num_agents: int) -> np.ndarray:
    """RGB colours in [0, 1] of the agents, float32 ``(num_agents, 3)``: JaxMARL's palette,
    then evenly spaced hues."""
    colours = list(C.AGENT_COLOURS[:num_agents])
    extra = num_agents - len(colours)
    for i in range(extra):
        colours.append(colorsys.hsv_to_rgb((i + 0.5) / extra, 0.75, 0.85))
    return np.asarray(colours, np.float32).reshape(num_agents, 3)


def render_grid(state: State, grid_size: int, colours: np.ndarray, tile_size: int) -> jax.Array:
    """Draw the grid of ``state``.

    Args:
        state: the state.
        grid_size: side of the grid.
        colours: RGB of each agent, float32 ``(num_agents, 3)``.
        tile_size: pixels per cell.

    Returns:
        uint8 ``(grid_size * tile_size, grid_size * tile_size, 3)``.
    """
    size = grid_size * tile_size
    ys, xs = np.meshgrid(np.arange(size), np.arange(size), indexing="ij")
    cell = (ys // tile_size) * grid_size + xs // tile_size  # (H, W), static
    dx = (xs % tile_size + 0.5) / tile_size - 0.5
    dy = (ys % tile_size + 0.5) / tile_size - 0.5
    line = (xs % tile_size == 0) | (ys % tile_size == 0)

    n = state.pos.shape[0]
    agent_cell = state.pos[:, 0] * grid_size + state.pos[:, 1]
    here = jnp.arange(grid_size * grid_size)[:, None] == agent_cell[None, :]  # (cells, n)
    occupant = jnp.where(here.any(-1), jnp.argmax(here, -1), n)  # (cells,), n = nobody
    who = occupant[cell]  # (H, W)
    coin = state.coins.reshape(-1)[cell]
    beam = state.beam.reshape(-1)[cell]

    img = jnp.where(line[..., None], jnp.asarray(C.GRID_LINE_COLOUR), jnp.asarray(C.BACKGROUND_COLOUR))
    img = jnp.where(beam[..., None], jnp.asarray(C.BEAM_COLOUR), img)
    disc = jnp.asarray(dx**2 + dy**2 <= _COIN_RADIUS**2)
    coin_colour = jnp.where(
        (coin == C.COOPERATE_COIN)[..., None],
        jnp.asarray(C.COOPERATE_COIN_COLOUR),
        jnp.asarray(C.DEFECT_COIN_COLOUR),
    )
    img = jnp.where((disc & (coin != C.EMPTY))[..., None], coin_colour, img)

    # Agents: a triangle in the occupant's frame, coloured by readiness / freeze.
    frozen = state.freeze > 0
    ready = (state.inventory.sum(-1) > 0) & ~frozen
    own = jnp.asarray(colours)
    body = jnp.where(ready[:, None], own, 0.45 * own + 0.55)
    body = jnp.where(frozen[:, None], jnp.asarray(C.FROZEN_COLOUR), body)
    facing = jnp.append(state.dir, 0)[who]
    rot = jnp.asarray(_UNROTATE)[facing]  # (H, W, 4)
    cx = rot[..., 0] * dx + rot[..., 1] * dy
    cy = rot[..., 2] * dx + rot[..., 3] * dy
    width = _HALF_WIDTH * (cy - _TIP) / (_BASE - _TIP)
    inside = (cy <= _BASE) & (cy >= _TIP) & (jnp.abs(cx) <= width)
    border = 0.08
    core = (cy <= _BASE - border) & (jnp.abs(cx) <= width - 2 * border) & (cy >= _TIP + 2 * border)
    is_agent = who < n
    agent_body = jnp.append(body, jnp.zeros((1, 3)), axis=0)[who]
    agent_edge = jnp.append(own, jnp.zeros((1, 3)), axis=0)[who]
    frozen_here = jnp.append(frozen, False)[who]
    pixel = jnp.where((frozen_here & ~core)[..., None], agent_edge, agent_body)
    img = jnp.where((is_agent & inside)[..., None], pixel, img)
    return to_uint8(img)
