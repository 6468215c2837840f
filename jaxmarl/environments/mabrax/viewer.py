"""A pure-JAX side view of a MABrax robot: each body's origin is a dot and each body is
drawn as a line of dots from its origin to its children's, coloured by the agent whose
joint moves it (grey: the root and bodies no agent moves), over a ground band. The
camera follows the root body. The image is square, ``size`` pixels a side; everything
scales with it (at the default 200 pixels, one pixel is 1.5 cm and the view spans 3 m)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.viz.raster import blank_canvas, draw_circles, to_uint8

if TYPE_CHECKING:
    from jaxmarl.environments.mabrax.env import MABrax
    from jaxmarl.environments.mabrax.types import State

__all__ = ["render_side_view"]

SIZE = 200
"""Default image side in pixels."""
PIXELS_PER_METRE = 66.0
"""Pixels per metre at ``SIZE``; scaled by ``size / SIZE`` for other sizes."""
GROUND_FRACTION = 0.85
"""Height of the ground line, as a fraction of the image from the top."""
DOTS_PER_LIMB = 10
AGENT_COLOURS = np.array(
    [
        [0.89, 0.10, 0.11],
        [0.22, 0.49, 0.72],
        [0.30, 0.69, 0.29],
        [0.60, 0.31, 0.64],
        [1.00, 0.50, 0.00],
        [0.65, 0.34, 0.16],
    ],
    np.float32,
)
BODY_COLOUR = np.array([0.45, 0.45, 0.45], np.float32)


def _limbs(env: MABrax) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Static drawing plan: child and parent link of every limb, the limb's colour (its
    parent's) and every link's colour."""
    model = env.brax_env.sys.mj_model
    parents = np.asarray(env.brax_env.sys.link_parents)
    colour = np.tile(BODY_COLOUR, (len(parents), 1))
    for i, part in enumerate(env.task.parts):
        for joint in part:
            link = int(model.jnt_bodyid[model.joint(joint).id]) - 1
            colour[link] = AGENT_COLOURS[i % len(AGENT_COLOURS)]
    children = np.array([i for i, p in enumerate(parents) if p >= 0], np.int32)
    limb_parents = parents[children].astype(np.int32)
    return children, limb_parents, colour[limb_parents], colour


def render_side_view(env: MABrax, state: State, size: int = SIZE) -> jax.Array:
    """``uint8`` ``(size, size, 3)`` image of ``state`` seen from the side (x-z plane).

    ``size`` (a Python ``int``) is the side of the square image in pixels; the scale,
    the ground line and the dots grow with it."""
    children, parents, colours, link_colours = _limbs(env)
    zoom = size / SIZE
    pixels_per_metre = PIXELS_PER_METRE * zoom
    ground_row = round(GROUND_FRACTION * size)
    pos = env.brax_state(state).pipeline_state.x.pos  # (num_links, 3)
    t = jnp.linspace(0.0, 1.0, DOTS_PER_LIMB)[None, :, None]
    dots = pos[parents][:, None, :] * (1 - t) + pos[children][:, None, :] * t  # (limbs, dots, 3)
    dots = dots.reshape(-1, 3)
    root_x = pos[0, 0]
    pixels = jnp.stack(
        [size / 2 + (dots[:, 0] - root_x) * pixels_per_metre, ground_row - dots[:, 2] * pixels_per_metre], -1
    )
    origins = jnp.stack(
        [size / 2 + (pos[:, 0] - root_x) * pixels_per_metre, ground_row - pos[:, 2] * pixels_per_metre], -1
    )
    centres = jnp.concatenate([pixels, origins])
    radii = np.concatenate([np.full(len(pixels), 3.0), np.full(len(link_colours), 5.0)])
    radii[len(pixels)] = 7.0  # the root
    radii = radii * zoom
    dot_colours = np.concatenate([np.repeat(colours, DOTS_PER_LIMB, axis=0), link_colours])
    canvas = blank_canvas(size, size, (0.93, 0.95, 1.0))
    rows = jnp.arange(size)[:, None, None]
    canvas = jnp.where(rows >= ground_row, jnp.array([0.75, 0.72, 0.65]), canvas)
    canvas = draw_circles(canvas, centres, jnp.asarray(radii), jnp.asarray(dot_colours), outline=0.0)
    return to_uint8(canvas)
