"""Rendering of Overcooked kitchens, in pure JAX.

Every pixel is computed from the state by index arithmetic (its cell and its position
inside the cell), so rendering runs under ``jit`` and ``vmap``. Drawn: the terrain
(floor, counters, pots, dispensers with their item, serving counters in green) with
grid lines; items on counters (onion: yellow disc; dish: white disc; soup: white disc
filled orange); pots with one yellow dot per onion, an orange fill while a soup cooks
or is ready and a bar under it (red, growing while it cooks; green when ready); cooks
as discs in their colour (``agent_0`` blue, ``agent_1`` red) with a dark dot on the
side they face and what they hold drawn in front of them.

``jaxmarl.viz.save_gif(render_states(env, states), path)`` turns a rollout into a GIF.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.overcooked import constants as C
from jaxmarl.environments.overcooked.layouts import Layout
from jaxmarl.environments.overcooked.types import State
from jaxmarl.viz.raster import to_uint8

__all__ = ["render_kitchen"]

_ITEM_COLOURS = np.array([C.FLOOR_COLOUR, C.ONION_COLOUR, C.DISH_COLOUR, C.SOUP_COLOUR], np.float32)


def _disc(
    dx: np.ndarray, dy: np.ndarray, cx: jax.Array | float, cy: jax.Array | float, r: float
) -> jax.Array:
    return jnp.asarray((dx - cx) ** 2 + (dy - cy) ** 2 <= r * r)


def _paint(img: jax.Array, mask: jax.Array, colour: jax.Array | tuple) -> jax.Array:
    colour = jnp.asarray(colour, jnp.float32)
    if colour.ndim == 1:
        colour = jnp.broadcast_to(colour, img.shape)
    return jnp.where(mask[..., None], colour, img)


def _item(
    img: jax.Array,
    kind: jax.Array,
    dx: np.ndarray,
    dy: np.ndarray,
    cx: jax.Array | float,
    cy: jax.Array | float,
    r: float,
) -> jax.Array:
    """Draw items of ``kind`` (per pixel) centred at ``(cx, cy)`` with radius ``r``."""
    rim = _disc(dx, dy, cx, cy, r)
    img = _paint(img, rim & (kind != C.NOTHING), (0.2, 0.2, 0.2))
    inner = _disc(dx, dy, cx, cy, r - 0.04)
    img = _paint(img, inner & (kind != C.NOTHING), jnp.asarray(_ITEM_COLOURS)[kind])
    plate = inner & (kind == C.SOUP) & ~_disc(dx, dy, cx, cy, r * 0.6)
    return _paint(img, plate, C.DISH_COLOUR)


def render_kitchen(state: State, layout: Layout, tile_size: int) -> jax.Array:
    """Draw ``state`` of a kitchen with ``layout``.

    Returns:
        uint8 ``(height * tile_size, width * tile_size, 3)``.
    """
    h, w = layout.height, layout.width
    ys, xs = np.meshgrid(np.arange(h * tile_size), np.arange(w * tile_size), indexing="ij")
    cell = (ys // tile_size) * w + xs // tile_size  # (H, W), static
    dx = (xs % tile_size + 0.5) / tile_size - 0.5
    dy = (ys % tile_size + 0.5) / tile_size - 0.5
    terrain = layout.terrain.reshape(-1)[cell]
    line = (xs % tile_size == 0) | (ys % tile_size == 0)

    img = jnp.asarray(C.TERRAIN_COLOURS[terrain])
    serve_inner = (terrain == C.SERVING) & (np.abs(dx) < 0.3) & (np.abs(dy) < 0.3)
    img = _paint(img, jnp.asarray(serve_inner), (0.70, 0.90, 0.70))
    dispensed = np.select([terrain == C.ONION_DISPENSER, terrain == C.DISH_DISPENSER], [C.ONION, C.DISH], 0)
    img = _item(img, jnp.asarray(dispensed), dx, dy, 0.0, 0.0, 0.22)

    # Items on counters.
    items = state.items.reshape(-1)[cell]
    img = _item(img, items, dx, dy, 0.0, 0.0, 0.28)

    # Pots: onions waiting, soup cooking or ready, progress bar.
    pot = terrain == C.POT
    onions = state.onions.reshape(-1)[cell]
    tick = state.cook_tick.reshape(-1)[cell]
    bowl = jnp.asarray(pot & _disc(dx, dy, 0.0, -0.05, 0.36))
    img = _paint(img, bowl, (0.45, 0.45, 0.48))
    img = _paint(img, bowl & (tick >= 0) & _disc(dx, dy, 0.0, -0.05, 0.30), C.SOUP_COLOUR)
    for k in range(C.MAX_ONIONS):
        dot = jnp.asarray(pot & _disc(dx, dy, (k - 1) * 0.2, -0.05, 0.08))
        img = _paint(img, dot & (tick < 0) & (onions > k), C.ONION_COLOUR)
    bar = jnp.asarray(pot & (dy > 0.36) & (dy < 0.46) & (np.abs(dx) < 0.4))
    frac = jnp.clip(tick, 0, C.COOK_TIME) / C.COOK_TIME
    done = tick >= C.COOK_TIME
    img = _paint(
        img,
        bar & (tick >= 0) & (dx + 0.4 <= 0.8 * frac),
        jnp.where(done[..., None], jnp.asarray(C.READY_COLOUR), jnp.asarray(C.TIMER_COLOUR)),
    )

    # Cooks, with what they hold in front of them.
    cook_cell = state.pos[:, 1] * w + state.pos[:, 0]
    here = jnp.asarray(cell)[..., None] == cook_cell  # (H, W, 2)
    who = jnp.argmax(here, axis=-1)
    is_cook = jnp.any(here, axis=-1)
    face = jnp.asarray(C.DIR_TO_VEC, jnp.float32)[state.dir[who]]  # (H, W, 2)
    body = is_cook & _disc(dx, dy, 0.0, 0.0, 0.34)
    img = _paint(img, body, jnp.asarray(C.AGENT_COLOURS)[who])
    img = _paint(
        img, is_cook & _disc(dx, dy, 0.24 * face[..., 0], 0.24 * face[..., 1], 0.08), (0.1, 0.1, 0.1)
    )
    held = jnp.where(is_cook, state.held[who], C.NOTHING)
    img = _item(img, held, dx, dy, 0.3 * face[..., 0], 0.3 * face[..., 1], 0.16)

    img = _paint(img, jnp.asarray(line), C.GRID_LINE_COLOUR)
    return to_uint8(img)
