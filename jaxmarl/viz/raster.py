"""Pure-JAX drawing helpers: anti-aliased circles on an RGB canvas.

Renderers built on these run under ``jit`` and ``vmap``, so a whole batch of states
becomes frames in one call, on any device.

Every ``env.render(state, size=...)`` takes the same ``size``: the length in pixels of
the image's longer side, a Python ``int`` fixed at trace time. Continuous worlds (MPE,
SMAX, MABrax) draw exactly ``size`` pixels; grid, tile and table renderers draw a whole
number of pixels per cell (``pixels_per_cell``), the largest for which the longer side
does not exceed ``size``, so their image may be a few pixels smaller.
"""

from __future__ import annotations

import math
import numbers

import jax
import jax.numpy as jnp

__all__ = ["blank_canvas", "check_size", "draw_circles", "pixels_per_cell", "to_uint8"]


def check_size(size: object, minimum: int = 1) -> int:
    """Validate a renderer's ``size`` (the image's longer side in pixels) and return it.

    Args:
        size: the requested size; must be a Python (or NumPy) integer, not a traced array
            and not a ``bool``.
        minimum: the smallest size the renderer can draw.

    Raises:
        ValueError: when ``size`` is not an integer or is smaller than ``minimum``.
    """
    if isinstance(size, bool) or not isinstance(size, numbers.Integral):
        raise ValueError(
            f"size must be a positive Python int (the image's longer side in pixels, fixed at "
            f"trace time), got {size!r} of type {type(size).__name__}"
        )
    size = int(size)
    if size < minimum:
        if minimum == 1:
            raise ValueError(f"size must be a positive int (pixels of the image's longer side), got {size}")
        raise ValueError(
            f"size={size} is too small for this environment: its image needs at least {minimum} "
            f"pixels on its longer side (one pixel per cell)"
        )
    return size


def pixels_per_cell(size: object, cells: int) -> int:
    """Whole pixels per cell for an image ``cells`` cells long on its longer side: the
    largest ``p`` with ``p * cells <= size``. Raises ``ValueError`` (see ``check_size``)
    for a bad ``size`` or one below ``cells``."""
    return check_size(size, minimum=cells) // cells


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
    max_radius: float | None = None,
) -> jax.Array:
    """Paint filled, outlined circles onto ``canvas``, later circles on top.

    Args:
        canvas: float32 ``(H, W, 3)``, RGB in [0, 1].
        centres: ``(N, 2)`` pixel coordinates ``(x, y)``, x to the right, y down.
        radii: ``(N,)`` radii in pixels.
        colours: ``(N, 3)`` fill colours in [0, 1].
        outline: outline width in pixels (0 for none).
        outline_colour: RGB of the outline.
        max_radius: a Python bound on every radius, in pixels. When given, each circle
            is painted in a square window around its centre instead of over the whole
            canvas: the same image (floats within 1e-6, XLA rounds the two programs
            apart; identical ``uint8`` frames) for far less work when circles are many
            and small (CAMAR's obstacles). A radius above it would be cut to the window.

    Returns:
        The new canvas, float32 ``(H, W, 3)``.
    """
    height, width = canvas.shape[0], canvas.shape[1]
    line = jnp.asarray(outline_colour, jnp.float32)

    def paint_at(
        img: jax.Array, ys: jax.Array, xs: jax.Array, centre: jax.Array, radius: jax.Array, colour: jax.Array
    ) -> jax.Array:
        d = jnp.sqrt((xs - centre[0]) ** 2 + (ys - centre[1]) ** 2)
        fill = jnp.clip(radius - d + 0.5, 0.0, 1.0)[..., None]
        img = img * (1.0 - fill) + colour * fill
        if outline > 0:
            edge = jnp.clip(0.5 + outline / 2 - jnp.abs(d - radius + outline / 2), 0.0, 1.0)[..., None]
            img = img * (1.0 - edge) + line * edge
        return img

    # A circle changes only pixels whose centres lie within radius + 0.5 of its own (fill
    # and outline are 0 beyond), all inside a window of half-side ceil(radius) + 2 around it.
    half = None if max_radius is None else math.ceil(max(float(max_radius), 0.0)) + 2
    if half is None or 2 * half >= min(height, width):
        ys, xs = jnp.meshgrid(jnp.arange(height) + 0.5, jnp.arange(width) + 0.5, indexing="ij")

        def paint(img: jax.Array, circle: tuple[jax.Array, jax.Array, jax.Array]) -> tuple[jax.Array, None]:
            return paint_at(img, ys, xs, *circle), None

    else:
        side = 2 * half
        offsets = jnp.arange(side)

        def paint(img: jax.Array, circle: tuple[jax.Array, jax.Array, jax.Array]) -> tuple[jax.Array, None]:
            centre = circle[0]
            corner = jnp.floor(centre[::-1]).astype(jnp.int32) - half  # (row, column)
            top = jnp.clip(corner[0], 0, height - side)
            left = jnp.clip(corner[1], 0, width - side)
            ys = (top + offsets)[:, None].astype(jnp.float32) + 0.5
            xs = (left + offsets)[None, :].astype(jnp.float32) + 0.5
            patch = jax.lax.dynamic_slice(img, (top, left, 0), (side, side, 3))
            patch = paint_at(patch, ys, xs, *circle)
            return jax.lax.dynamic_update_slice(img, patch, (top, left, 0)), None

    canvas, _ = jax.lax.scan(paint, canvas, (centres, radii, colours))
    return canvas


def to_uint8(canvas: jax.Array) -> jax.Array:
    """Convert a float canvas in [0, 1] to ``uint8`` in [0, 255]."""
    return jnp.round(jnp.clip(canvas, 0.0, 1.0) * 255.0).astype(jnp.uint8)
