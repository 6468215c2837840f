"""Rendering of MPE worlds, in pure JAX.

The camera is centred on the origin and zooms out just enough to show every entity
(never closer than the ``[-1, 1]`` square agents start in); entities are drawn to
scale, agents on top of landmarks.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.viz.raster import blank_canvas, draw_circles, to_uint8


def render_world(
    p_pos: jax.Array,
    radius: np.ndarray,
    colours: jax.Array,
    size: int,
    visible: jax.Array | None = None,
) -> jax.Array:
    """Draw entities at ``p_pos`` (``(E, 2)``) with radii ``radius`` and ``colours``
    (``(E, 3)``) on a white ``size`` x ``size`` canvas. Entities where ``visible``
    (bool ``(E,)``, default all) is false are neither drawn nor counted in the camera's
    extent. Returns ``uint8 (size, size, 3)``."""
    radii = jnp.asarray(radius)
    shown = jnp.ones(radii.shape, bool) if visible is None else jnp.asarray(visible)
    extent = jnp.max(jnp.where(shown[:, None], jnp.abs(p_pos) + radii[:, None], 0.0))
    cam_range = jnp.maximum(extent, 1.0)
    scale = (size / 2) * 0.95 / cam_range
    centres = jnp.stack([p_pos[:, 0] * scale + size / 2, -p_pos[:, 1] * scale + size / 2], axis=-1)
    centres = jnp.where(shown[:, None], centres, -4.0 * size)  # hidden: far off the canvas
    radii = jnp.where(shown, radii, 0.0)
    # Landmarks first, agents last (on top): reverse the world order.
    order = jnp.arange(p_pos.shape[0])[::-1]
    canvas = draw_circles(blank_canvas(size, size), centres[order], radii[order] * scale, colours[order])
    return to_uint8(canvas)
