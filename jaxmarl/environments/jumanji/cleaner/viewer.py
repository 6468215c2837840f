"""Rendering of Cleaner, in pure JAX, in the look of Jumanji's ``CleanerViewer``.

Each tile is a square of whole pixels: dirty tiles green, clean tiles white, walls black.
A tile holding ``k`` cleaners is red with opacity ``1 - 0.5**k`` over white (pink for one
cleaner, deeper red for more), as Jumanji draws them; a one-pixel black frame surrounds
the maze (drawn over the outer pixels of the edge tiles, when tiles are at least 4 pixels).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxmarl.environments.jumanji.cleaner import constants as C
from jaxmarl.viz.raster import to_uint8

__all__ = ["render_grid", "tile_colours"]


def tile_colours(grid: jax.Array, agents_locations: jax.Array) -> jax.Array:
    """The colour of every tile, float32 ``(num_rows, num_cols, 3)`` in [0, 1]."""
    num_rows, num_cols = grid.shape
    base = jnp.asarray(C.TILE_COLOURS, jnp.float32)[
        jnp.clip(grid.astype(jnp.int32), 0, C.NUM_TILE_VALUES - 1)
    ]
    rows = jnp.arange(num_rows)[None, :, None]
    cols = jnp.arange(num_cols)[None, None, :]
    on_tile = (agents_locations[:, 0, None, None] == rows) & (agents_locations[:, 1, None, None] == cols)
    count = jnp.sum(on_tile, axis=0, dtype=jnp.int32)
    alpha = (1.0 - C.AGENT_ALPHA ** count.astype(jnp.float32))[..., None]
    tinted = alpha * jnp.asarray(C.AGENT_COLOUR, jnp.float32) + (1.0 - alpha) * jnp.asarray(C.BACKGROUND)
    return jnp.where((count > 0)[..., None], tinted, base)


def render_grid(grid: jax.Array, agents_locations: jax.Array, cell: int) -> jax.Array:
    """Draw the maze with ``cell``-pixel tiles. Returns ``uint8 (num_rows * cell, num_cols * cell, 3)``."""
    image = jnp.repeat(jnp.repeat(tile_colours(grid, agents_locations), cell, axis=0), cell, axis=1)
    if cell < 4:  # too small for a frame that leaves the edge tiles visible
        return to_uint8(image)
    height, width = image.shape[0], image.shape[1]
    ys = jnp.arange(height)[:, None]
    xs = jnp.arange(width)[None, :]
    frame = (ys == 0) | (ys == height - 1) | (xs == 0) | (xs == width - 1)
    image = jnp.where(frame[..., None], jnp.asarray(C.FRAME, jnp.float32), image)
    return to_uint8(image)
