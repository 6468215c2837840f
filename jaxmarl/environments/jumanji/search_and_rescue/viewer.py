"""Pure-JAX drawing of a SearchAndRescue state, in the look of Jumanji's viewer.

Jumanji's ``SearchAndRescueViewer`` plots the unit square with matplotlib: searchers as
near-black quiver arrows along their headings, targets as orange dots that turn light
grey once found. Here the same picture is rasterised with JAX, ``y`` up as in the plot.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxmarl.environments.jumanji.search_and_rescue import constants as C
from jaxmarl.environments.jumanji.search_and_rescue.types import State
from jaxmarl.viz.raster import blank_canvas, check_size, draw_circles, to_uint8

__all__ = ["ARROW_LENGTH", "TARGET_RADIUS", "render_state"]

# Sizes as fractions of the image side.
ARROW_LENGTH = 0.05  # a searcher's arrow, centred on its position
HEAD_LENGTH = 0.025
HEAD_WIDTH = 0.03
SHAFT_WIDTH = 0.008
TARGET_RADIUS = 0.007
FRAME = 1.0 / 256  # the axes' frame


def _paint_arrows(canvas: jax.Array, centres: jax.Array, headings: jax.Array, size: int) -> jax.Array:
    """Anti-aliased arrows of Jumanji's quiver shape, centred on ``centres`` (pixels,
    ``(x, y)`` with y down), pointing along ``headings`` (radians, counter-clockwise
    from +x with y up)."""
    height, width = canvas.shape[0], canvas.shape[1]
    ys, xs = jnp.meshgrid(jnp.arange(height) + 0.5, jnp.arange(width) + 0.5, indexing="ij")
    half, head, head_half, shaft_half = (
        ARROW_LENGTH * size / 2,
        HEAD_LENGTH * size,
        HEAD_WIDTH * size / 2,
        SHAFT_WIDTH * size / 2,
    )
    slope = head_half / head
    colour = jnp.asarray(C.SEARCHER_COLOUR, jnp.float32)

    def paint(img: jax.Array, arrow: tuple[jax.Array, jax.Array]) -> tuple[jax.Array, None]:
        centre, heading = arrow
        ux, uy = jnp.cos(heading), -jnp.sin(heading)  # y down in pixels
        dx, dy = xs - centre[0], ys - centre[1]
        along = dx * ux + dy * uy
        across = jnp.abs(-dx * uy + dy * ux)
        base = half - head
        # Signed distances (negative inside) to the shaft rectangle and the head triangle.
        shaft = jnp.maximum(jnp.maximum(across - shaft_half, -half - along), along - base)
        edge = (across + slope * (along - half)) / jnp.sqrt(1.0 + slope**2)
        tip = jnp.maximum(edge, base - along)
        cover = jnp.clip(0.5 - jnp.minimum(shaft, tip), 0.0, 1.0)[..., None]
        return img * (1.0 - cover) + colour * cover, None

    canvas, _ = jax.lax.scan(paint, canvas, (centres, headings))
    return canvas


def render_state(state: State, env_size: float, size: int) -> jax.Array:
    """The picture of ``state``, uint8 ``(size, size, 3)``.

    Args:
        state: the state.
        env_size: side of the torus (the picture shows ``[0, env_size]^2``).
        size: the image side in pixels (a Python int).
    """
    size = check_size(size)
    scale = size / env_size

    def to_pixels(pos: jax.Array) -> jax.Array:
        return jnp.stack([pos[:, 0] * scale, size - pos[:, 1] * scale], axis=-1)

    canvas = blank_canvas(size, size, C.BACKGROUND)
    canvas = _paint_arrows(canvas, to_pixels(state.searchers.pos), state.searchers.heading, size)
    colours = jnp.where(
        state.targets.found[:, None],
        jnp.asarray(C.TARGET_FOUND_COLOUR, jnp.float32),
        jnp.asarray(C.TARGET_LOST_COLOUR, jnp.float32),
    )
    radii = jnp.full(state.targets.found.shape, max(TARGET_RADIUS * size, 1.0), jnp.float32)
    canvas = draw_circles(canvas, to_pixels(state.targets.pos), radii, colours, outline=0.0)
    frame = max(1, round(FRAME * size))
    idx = jnp.arange(size)
    edge = (idx < frame) | (idx >= size - frame)
    canvas = jnp.where((edge[:, None] | edge[None, :])[..., None], 0.0, canvas)
    return to_uint8(canvas)
