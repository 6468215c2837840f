"""Rendering of Overcooked V2 kitchens, in pure JAX.

Every pixel is computed from the state by index arithmetic (its cell and its position
inside the cell), so rendering runs under ``jit`` and ``vmap``. Drawn: the terrain
(floor, counters, green serving counters, dark pots, blue recipe indicators, pink recipe
buttons, plate piles with a plate, ingredient piles with their ingredient) with grid
lines; objects as up to three ingredient dots (ingredient ``i`` in
``constants.INGREDIENT_COLOURS[i]``), on a white plate when plated and on a brown soup
when cooked; pots with their contents and a bar (red, growing while cooking; green when
cooked); the recipe on indicators, and on buttons while they show it; cooks as discs in
their colour (``agent_0`` blue, ``agent_1`` red, ...) with a dark dot on the side they
face and what they hold in front of them.

``jaxmarl.viz.save_gif(render_states(env, states), path)`` turns a rollout into a GIF.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.overcooked_v2 import constants as C
from jaxmarl.environments.overcooked_v2 import objects
from jaxmarl.environments.overcooked_v2.layouts import Layout
from jaxmarl.environments.overcooked_v2.types import State
from jaxmarl.viz.raster import to_uint8

__all__ = ["render_kitchen"]

SOUP_COLOUR = (0.55, 0.33, 0.18)
RIM_COLOUR = (0.2, 0.2, 0.2)
# Where the three ingredient dots of an object sit, as fractions of its radius.
SLOTS = ((-0.42, 0.22), (0.42, 0.22), (0.0, -0.45))


def _terrain_colours() -> np.ndarray:
    colours = np.tile(np.asarray(C.FLOOR_COLOUR, np.float32), (C.INGREDIENT_PILE + C.MAX_INGREDIENT_KINDS, 1))
    colours[C.COUNTER] = C.COUNTER_COLOUR
    colours[C.SERVING] = C.SERVING_COLOUR
    colours[C.POT] = C.POT_COLOUR
    colours[C.RECIPE_INDICATOR] = C.INDICATOR_COLOUR
    colours[C.RECIPE_BUTTON] = C.BUTTON_COLOUR
    colours[C.PLATE_PILE] = C.PLATE_PILE_COLOUR
    colours[C.INGREDIENT_PILE :] = 0.55 * np.asarray(C.COUNTER_COLOUR) + 0.45 * C.INGREDIENT_COLOURS
    return colours


def _disc(
    dx: np.ndarray | jax.Array,
    dy: np.ndarray | jax.Array,
    cx: jax.Array | float,
    cy: jax.Array | float,
    r: jax.Array | float,
) -> jax.Array:
    return jnp.asarray((dx - cx) ** 2 + (dy - cy) ** 2 <= r * r)


def _paint(img: jax.Array, mask: jax.Array, colour: jax.Array | tuple) -> jax.Array:
    colour = jnp.asarray(colour, jnp.float32)
    return jnp.where(mask[..., None], jnp.broadcast_to(colour, img.shape), img)


def _slots(obj: jax.Array, num_ingredients: int) -> jax.Array:
    """The ingredient in each of the three dots of ``obj`` (-1: none), int32 ``(..., 3)``."""
    cum = jnp.cumsum(objects.counts(obj, num_ingredients), axis=-1)  # (..., n)
    slot = jnp.arange(C.RECIPE_SIZE)
    which = jnp.sum(cum[..., None, :] <= slot[:, None], axis=-1)  # (..., 3)
    return jnp.where(slot < cum[..., -1:], which, -1)


def _object(
    img: jax.Array,
    obj: jax.Array,
    slots: jax.Array,
    dx: np.ndarray,
    dy: np.ndarray,
    cx: jax.Array | float,
    cy: jax.Array | float,
    r: float,
    plates: bool = True,
) -> jax.Array:
    """Draw objects (per-pixel codes ``obj`` and dot ingredients ``slots``) centred at
    ``(cx, cy)`` with radius ``r``."""
    if plates:
        plate = (obj & C.PLATE) != 0
        img = _paint(img, plate & _disc(dx, dy, cx, cy, r), RIM_COLOUR)
        img = _paint(img, plate & _disc(dx, dy, cx, cy, r - 0.03), C.PLATE_COLOUR)
    img = _paint(img, ((obj & C.COOKED) != 0) & _disc(dx, dy, cx, cy, 0.8 * r), SOUP_COLOUR)
    palette = jnp.asarray(C.INGREDIENT_COLOURS)
    for s, (ox, oy) in enumerate(SLOTS):
        ing = slots[..., s]
        dot = (ing >= 0) & _disc(dx, dy, cx + ox * r, cy + oy * r, 0.36 * r)
        img = _paint(img, dot, RIM_COLOUR)
        inner = (ing >= 0) & _disc(dx, dy, cx + ox * r, cy + oy * r, 0.36 * r - 0.025)
        img = jnp.where(inner[..., None], palette[jnp.maximum(ing, 0)], img)
    return img


def render_kitchen(state: State, layout: Layout, tile_size: int) -> jax.Array:
    """Draw ``state`` of a kitchen with ``layout``.

    Returns:
        uint8 ``(height * tile_size, width * tile_size, 3)``.
    """
    h, w, n = layout.height, layout.width, layout.num_ingredients
    ys, xs = np.meshgrid(np.arange(h * tile_size), np.arange(w * tile_size), indexing="ij")
    cell = (ys // tile_size) * w + xs // tile_size  # (H, W), static
    dx = ((xs % tile_size + 0.5) / tile_size - 0.5).astype(np.float32)
    dy = ((ys % tile_size + 0.5) / tile_size - 0.5).astype(np.float32)
    terrain = layout.static_objects.reshape(-1)[cell]
    line = (xs % tile_size == 0) | (ys % tile_size == 0)

    img = jnp.asarray(_terrain_colours()[terrain])
    serve = (terrain == C.SERVING) & (np.abs(dx) < 0.3) & (np.abs(dy) < 0.3)
    img = _paint(img, jnp.asarray(serve), (0.70, 0.90, 0.70))
    # Piles show what they give.
    pile_obj = np.select(
        [terrain == C.PLATE_PILE, terrain >= C.INGREDIENT_PILE],
        [C.PLATE, 1 << (C.INGREDIENT_SHIFT + 2 * np.clip(terrain - C.INGREDIENT_PILE, 0, 9))],
        0,
    )
    img = _object(
        img,
        jnp.asarray(pile_obj),
        _slots(jnp.asarray(pile_obj), C.MAX_INGREDIENT_KINDS),
        dx,
        dy,
        0.0,
        0.0,
        0.3,
    )

    # Recipe indicators, and buttons while they show the recipe.
    timer = state.timer.reshape(-1)[cell]
    shown = (terrain == C.RECIPE_INDICATOR) | ((terrain == C.RECIPE_BUTTON) & (timer > 0))
    button = jnp.asarray(terrain == C.RECIPE_BUTTON) & _disc(dx, dy, 0.0, 0.0, 0.34)
    img = _paint(img, button & ~shown, (0.62, 0.35, 0.55))
    recipe_obj = jnp.where(shown, state.recipe, 0)
    img = _object(img, recipe_obj, _slots(recipe_obj, n), dx, dy, 0.0, 0.0, 0.34, plates=False)

    # Objects on counters and in pots, and the pots' bars.
    pot = terrain == C.POT
    bowl = jnp.asarray(pot) & _disc(dx, dy, 0.0, -0.05, 0.40)
    img = _paint(img, bowl, (0.45, 0.45, 0.48))
    cell_slots = _slots(state.items.reshape(-1), n)  # (cells, 3)
    items = state.items.reshape(-1)[cell]
    img = _object(img, items, cell_slots[cell], dx, dy, 0.0, -0.05, 0.32)
    cooked = (items & C.COOKED) != 0
    frac = jnp.clip(C.POT_COOK_TIME - timer, 0, C.POT_COOK_TIME) / C.POT_COOK_TIME
    bar = jnp.asarray(pot & (dy > 0.36) & (dy < 0.46) & (np.abs(dx) < 0.4))
    img = _paint(img, bar & (timer > 0) & (dx + 0.4 <= 0.8 * frac), C.TIMER_COLOUR)
    img = _paint(img, bar & cooked, C.READY_COLOUR)

    # Cooks, with what they hold in front of them.
    cook_cell = state.pos[:, 1] * w + state.pos[:, 0]
    here = jnp.asarray(cell)[..., None] == cook_cell  # (H, W, num_agents)
    who = jnp.argmax(here, axis=-1)
    is_cook = jnp.any(here, axis=-1)
    face = jnp.asarray(C.DIR_TO_VEC, jnp.float32)[state.dir[who]]  # (H, W, 2)
    colours = jnp.asarray(C.AGENT_COLOURS)[jnp.arange(layout.num_agents) % len(C.AGENT_COLOURS)]
    img = _paint(img, is_cook & _disc(dx, dy, 0.0, 0.0, 0.36), RIM_COLOUR)
    img = jnp.where((is_cook & _disc(dx, dy, 0.0, 0.0, 0.34))[..., None], colours[who], img)
    img = _paint(
        img, is_cook & _disc(dx, dy, 0.25 * face[..., 0], 0.25 * face[..., 1], 0.08), (0.1, 0.1, 0.1)
    )
    held = jnp.where(is_cook, state.inventory[who], 0)
    held_slots = jnp.where(is_cook[..., None], _slots(state.inventory, n)[who], -1)
    img = _object(img, held, held_slots, dx, dy, 0.3 * face[..., 0], 0.3 * face[..., 1], 0.2)

    img = _paint(img, jnp.asarray(line), C.GRID_LINE_COLOUR)
    return to_uint8(img)
