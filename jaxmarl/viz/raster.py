"""Pure-JAX drawing helpers: anti-aliased circles on an RGB canvas.

Renderers built on these run under ``jit`` and ``vmap``, so a whole batch of states
becomes frames in one call, on any device.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

__all__ = ["blank_canvas", "draw_circles", "to_uint8"]


def blank_canvas(height: int, width: int, colour: tuple[float, float, float] = (1.0, 1.0, 1.0)) -> jax.Array:
    """A float32 canvas ``(height, width, 3)`` filled with ``colour`` (RGB in [0, 1])."""
    return jnp.broadcast_to(jnp.asarray(colour, jnp.float32), (height, width, 3))


def draw_circles(
    canvas: jax.Array,
    centres: jax.Array,
    radii: jax.Array,
    colours: jax.Array,
    outline: float = 1.0,
    outline_colour: tuple[float, float, float] = (0.0, 0.0, 0.0),
) -> jax.Array:
    """Paint filled, outlined circles onto ``canvas``, later circles on top.

    Args:
        canvas: float32 ``(H, W, 3)``, RGB in [0, 1].
        centres: ``(N, 2)`` pixel coordinates ``(x, y)``, x to the right, y down.
        radii: ``(N,)`` radii in pixels.
        colours: ``(N, 3)`` fill colours in [0, 1].
        outline: outline width in pixels (0 for none).
        outline_colour: RGB of the outline.

    Returns:
        The new canvas, float32 ``(H, W, 3)``.
    """
    height, width = canvas.shape[0], canvas.shape[1]
    ys, xs = jnp.meshgrid(jnp.arange(height) + 0.5, jnp.arange(width) + 0.5, indexing="ij")
    line = jnp.asarray(outline_colour, jnp.float32)

    def paint(img: jax.Array, circle: tuple[jax.Array, jax.Array, jax.Array]) -> tuple[jax.Array, None]:
        centre, radius, colour = circle
        d = jnp.sqrt((xs - centre[0]) ** 2 + (ys - centre[1]) ** 2)
        fill = jnp.clip(radius - d + 0.5, 0.0, 1.0)[..., None]
        img = img * (1.0 - fill) + colour * fill
        if outline > 0:
            edge = jnp.clip(0.5 + outline / 2 - jnp.abs(d - radius + outline / 2), 0.0, 1.0)[..., None]
            img = img * (1.0 - edge) + line * edge
        return img, None

    canvas, _ = jax.lax.scan(paint, canvas, (centres, radii, colours))
    return canvas


def to_uint8(canvas: jax.Array) -> jax.Array:
    """Convert a float canvas in [0, 1] to ``uint8`` in [0, 255]."""
    return jnp.round(jnp.clip(canvas, 0.0, 1.0) * 255.0).astype(jnp.uint8)
