"""Rendering of LevelBasedForaging, in pure JAX, after Jumanji's viewer.

A black board with white grid lines, row 0 at the top (Jumanji's orientation, so ``UP``
moves a forager up the image). Foragers are white discs, uneaten food items red apples
(a red disc with a green leaf); every piece carries a black badge with a white rim at the
bottom right of its cell showing its level in white digits (digits are drawn when cells
are at least 20 pixels wide).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.jumanji.lbf import constants as C
from jaxmarl.environments.jumanji.lbf.types import State
from jaxmarl.viz.raster import blank_canvas, draw_circles, to_uint8

__all__ = ["render_grid"]

# A 3x5 pixel font for the digits 0-9: FONT[digit, row, col].
_GLYPHS = (
    "111101101101111",
    "010110010010111",
    "111001111100111",
    "111001111001111",
    "101101111001001",
    "111100111001111",
    "111100111101111",
    "111001001001001",
    "111101111101111",
    "111101111001111",
)
FONT = np.array([[c == "1" for c in g] for g in _GLYPHS], bool).reshape(10, 5, 3)
_OFF_CANVAS = -1e4  # where pieces that are not drawn (eaten food) are sent


def draw_numbers(
    canvas: jax.Array, centres: jax.Array, numbers: jax.Array, scale: int, colour: tuple[float, float, float]
) -> jax.Array:
    """Write each of ``numbers`` (0-99, int ``(E,)``) centred on ``centres`` (``(E, 2)``
    pixel ``(x, y)``) in the 3x5 font, each font pixel ``scale`` pixels wide."""
    height, width = canvas.shape[0], canvas.shape[1]
    ys = jnp.arange(height)[:, None, None]
    xs = jnp.arange(width)[None, :, None]
    two = numbers >= 10
    left = jnp.round(centres[:, 0] - jnp.where(two, 3.5, 1.5) * scale).astype(jnp.int32)
    top = jnp.round(centres[:, 1] - 2.5 * scale).astype(jnp.int32)
    u = jnp.floor_divide(xs - left, scale)  # font column, across the number
    v = jnp.floor_divide(ys - top, scale)  # font row
    inside = (u >= 0) & (u < jnp.where(two, 7, 3)) & (v >= 0) & (v < 5) & ~(two & (u == 3))
    digit = jnp.where(two & (u < 3), (numbers // 10) % 10, numbers % 10)
    col = jnp.where(two & (u >= 4), u - 4, u)
    lit = jnp.asarray(FONT)[digit, jnp.clip(v, 0, 4), jnp.clip(col, 0, 2)] & inside
    return jnp.where(jnp.any(lit, axis=-1)[..., None], jnp.asarray(colour, jnp.float32), canvas)


def render_grid(state: State, grid_size: int, cell: int) -> jax.Array:
    """Draw ``state`` with ``cell``-pixel cells. Returns ``uint8 (G * cell, G * cell, 3)``."""
    size = grid_size * cell
    ys = jnp.arange(size)[:, None]
    xs = jnp.arange(size)[None, :]
    lines = (ys % cell == 0) | (xs % cell == 0) | (ys == size - 1) | (xs == size - 1)
    canvas = blank_canvas(size, size, C.BACKGROUND)
    canvas = jnp.where(lines[..., None], jnp.asarray(C.GRID_LINE, jnp.float32), canvas)

    def centres(pos: jax.Array) -> jax.Array:  # (row, col) cells -> (x, y) pixel centres
        return (pos[:, ::-1].astype(jnp.float32) + 0.5) * cell

    food = jnp.where(state.food_eaten[:, None], _OFF_CANVAS, centres(state.food_pos))
    agents = centres(state.agent_pos)
    num_food, num_agents = food.shape[0], agents.shape[0]

    def discs(at: jax.Array, radius: float, colour: tuple[float, float, float]) -> tuple:
        n = at.shape[0]
        return at, jnp.full((n,), radius * cell), jnp.broadcast_to(jnp.asarray(colour, jnp.float32), (n, 3))

    leaf = food + jnp.array([0.12, -0.3]) * cell
    for at, radius, colour in (
        discs(food, 0.3, C.FOOD_COLOUR),
        discs(leaf, 0.1, C.LEAF_COLOUR),
        discs(agents, 0.3, C.AGENT_COLOUR),
    ):
        canvas = draw_circles(canvas, at, radius, colour, outline=0.0)

    badges = jnp.concatenate([food, agents]) + 0.3 * cell
    levels = jnp.concatenate([state.food_level, state.agent_level])
    radii = jnp.full((num_food + num_agents,), 0.17 * cell)
    colours = jnp.broadcast_to(jnp.asarray(C.BADGE_COLOUR, jnp.float32), (num_food + num_agents, 3))
    canvas = draw_circles(
        canvas, badges, radii, colours, outline=max(cell / 32, 1.0), outline_colour=C.BADGE_TEXT
    )
    scale = cell // 20
    if scale >= 1:
        canvas = draw_numbers(canvas, badges, jnp.clip(levels, 0, 99), scale, C.BADGE_TEXT)
    return to_uint8(canvas)
