"""Rendering of the Switch Riddle, in pure JAX.

The image has three bands: the bulb (yellow when on), the prisoners in a row (green once
they have been in the room, grey before; today's prisoner stands on a blue tile), and a
bar filling up as the days pass.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxmarl.environments.switch_riddle import constants as C
from jaxmarl.environments.switch_riddle.types import State
from jaxmarl.viz.raster import blank_canvas, draw_circles, to_uint8


def fill_rect(
    canvas: jax.Array,
    top: jax.Array | float,
    left: jax.Array | float,
    height: jax.Array | float,
    width: jax.Array | float,
    colour: tuple[float, float, float],
) -> jax.Array:
    """Paint the pixels whose centres lie in a rectangle (pixel units, y down) onto a float
    canvas ``(H, W, 3)``; the corners may be traced values."""
    ys = jnp.arange(canvas.shape[0])[:, None] + 0.5
    xs = jnp.arange(canvas.shape[1])[None, :] + 0.5
    inside = (ys >= top) & (ys < top + height) & (xs >= left) & (xs < left + width)
    return jnp.where(inside[..., None], jnp.asarray(colour, jnp.float32), canvas)


def render_room(state: State, num_agents: int, max_steps: int, cell: int) -> jax.Array:
    """Draw ``state`` with ``cell``-pixel tiles. Returns ``uint8 (2 * cell + cell // 4,
    max(num_agents, 3) * cell, 3)``."""
    width = max(num_agents, 3) * cell
    bar = max(cell // 4, 1)
    canvas = blank_canvas(2 * cell + bar, width, C.BACKGROUND)
    offset = (width - num_agents * cell) / 2
    canvas = fill_rect(canvas, cell, offset + state.in_room * cell, cell, cell, C.ROOM_COLOUR)
    canvas = fill_rect(canvas, 2 * cell, 0, bar, width * state.step / max_steps, C.DAY_COLOUR)
    centres = jnp.stack(
        [
            jnp.concatenate([jnp.array([width / 2]), offset + (jnp.arange(num_agents) + 0.5) * cell]),
            jnp.concatenate([jnp.array([cell / 2]), jnp.full((num_agents,), 1.5 * cell)]),
        ],
        axis=-1,
    )
    radii = jnp.concatenate([jnp.array([0.35 * cell]), jnp.full((num_agents,), 0.3 * cell)])
    bulb = jnp.where(state.bulb, jnp.asarray(C.BULB_ON), jnp.asarray(C.BULB_OFF))
    prisoners = jnp.where(
        state.visited[:, None], jnp.asarray(C.VISITED_COLOUR), jnp.asarray(C.NOT_VISITED_COLOUR)
    )
    colours = jnp.concatenate([bulb[None], prisoners]).astype(jnp.float32)
    return to_uint8(draw_circles(canvas, centres, radii, colours))
