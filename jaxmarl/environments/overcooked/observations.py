"""overcooked-ai's lossless state encoding, in JAX, and its exact bounds.

Each cook observes the whole kitchen as a ``(height, width, 26)`` grid of small
integers (``uint8``), the 26 channels of overcooked-ai 1.1.0's
``lossless_state_encoding`` in its order (names in ``constants.CHANNEL_NAMES``): the
observing cook's position and facing come first, then the other cook's, then the
terrain, then pots, soups, loose or held items, and the urgency flag. overcooked-ai
indexes its grids ``[x, y]``; ours are ``[y, x]`` (rows first, like an image), so
``ours == np.transpose(theirs, (1, 0, 2))``.

Objects a cook holds appear in the cell where it stands. A soup outside a pot (held or
on a counter) counts as done with no cooking time left. Tomato channels are always 0
(these kitchens have no tomatoes).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.overcooked import constants as C
from jaxmarl.environments.overcooked.layouts import Layout
from jaxmarl.environments.overcooked.types import State

__all__ = ["encode", "observation_bounds", "reachable_counters"]


def _terrain_channels(layout: Layout) -> np.ndarray:
    """The six static channels (pot, counter, onion, tomato, dish dispensers, serving),
    uint8 ``(6, height * width)``."""
    t = layout.terrain.reshape(-1)
    kinds = [C.POT, C.COUNTER, C.ONION_DISPENSER, -1, C.DISH_DISPENSER, C.SERVING]
    return np.stack([t == k for k in kinds]).astype(np.uint8)


def encode(state: State, layout: Layout, max_steps: int) -> jax.Array:
    """Both cooks' observations, uint8 ``(2, height, width, 26)`` (cook 0's first).

    ``max_steps`` is the horizon the urgency channel counts down to: it is 1 everywhere
    while ``max_steps - state.step < 40``.
    """
    h, w = layout.height, layout.width
    n = h * w
    pot = jnp.asarray(layout.terrain.reshape(-1) == C.POT)
    cell = state.pos[:, 1] * w + state.pos[:, 0]
    here = jnp.arange(n)[:, None] == cell[None, :]  # (n, 2): where each cook stands
    facing = here[:, :, None] & (state.dir[None, :, None] == jnp.arange(C.NUM_DIRECTIONS))  # (n, 2, 4)

    tick = state.cook_tick.reshape(n)
    onions = state.onions.reshape(n)
    idle = tick < 0
    # Loose items (on counters) and held ones (where their cook stands) never share a cell.
    item = state.items.reshape(n) + jnp.sum(jnp.where(here, state.held, 0), axis=1)
    soup_onions = jnp.where(pot, 0, onions) + jnp.sum(jnp.where(here, state.held_onions, 0), axis=1)
    soup = item == C.SOUP
    cooking_or_done = pot & ~idle
    zeros = jnp.zeros(n, jnp.int32)
    dynamic = [
        jnp.where(pot & idle, onions, 0),  # onions in pot
        zeros,  # tomatoes in pot
        jnp.where(cooking_or_done, onions, 0) + jnp.where(soup, soup_onions, 0),  # onions in soup
        zeros,  # tomatoes in soup
        jnp.where(cooking_or_done, C.COOK_TIME - tick, 0),  # cooking time left
        (pot & (tick >= C.COOK_TIME)) | soup,  # soup done
        item == C.DISH,
        item == C.ONION,
        zeros,  # tomatoes
        jnp.broadcast_to(max_steps - state.step < C.URGENCY_STEPS, (n,)),
    ]
    terrain = jnp.asarray(_terrain_channels(layout).T)  # (n, 6)
    shared = jnp.concatenate([terrain, jnp.stack([c.astype(jnp.uint8) for c in dynamic], axis=-1)], -1)
    here, facing = here.astype(jnp.uint8), facing.astype(jnp.uint8)
    # Cook 0 sees itself first; cook 1 sees the cooks' blocks in the other order.
    mine = jnp.concatenate([here, facing.reshape(n, 8), shared], axis=-1)
    theirs = jnp.concatenate([here[:, ::-1], facing[:, ::-1].reshape(n, 8), shared], axis=-1)
    return jnp.stack([mine, theirs]).reshape(2, h, w, C.NUM_CHANNELS)


def reachable_counters(layout: Layout) -> np.ndarray:
    """Counters next to floor some cook can reach (where items can lie), bool ``(H, W)``."""
    floor = layout.regions.any(0)
    padded = np.pad(floor, 1)
    near = np.zeros_like(floor)
    for dx, dy in C.DIR_TO_VEC.tolist():
        near |= padded[1 + dy : 1 + dy + layout.height, 1 + dx : 1 + dx + layout.width]
    return near & (layout.terrain == C.COUNTER)


def observation_bounds(layout: Layout, agent: int) -> tuple[np.ndarray, np.ndarray]:
    """Exact per-cell bounds ``(low, high)`` of cook ``agent``'s observation, each
    uint8 ``(height, width, 26)``: a channel can be non-zero only where its object can be
    (a cook on floor it can reach, a held item there, a loose item on a counter next to
    reachable floor, pot contents on pots), and the terrain channels are fixed."""
    h, w = layout.height, layout.width
    terrain = layout.terrain
    own, other = layout.regions[agent], layout.regions[1 - agent]
    floor = own | other
    pots = terrain == C.POT
    counters = reachable_counters(layout)
    static = _terrain_channels(layout).reshape(6, h, w)
    high = np.zeros((C.NUM_CHANNELS, h, w), np.uint8)
    low = np.zeros_like(high)
    high[C.CH_SELF_POS], high[C.CH_OTHER_POS] = own, other
    high[C.CH_SELF_DIR : C.CH_SELF_DIR + 4] = own
    high[C.CH_OTHER_DIR : C.CH_OTHER_DIR + 4] = other
    high[C.CH_POT : C.CH_SERVE + 1] = static
    low[C.CH_POT : C.CH_SERVE + 1] = static
    high[C.CH_ONIONS_IN_POT] = C.MAX_ONIONS * pots
    high[C.CH_ONIONS_IN_SOUP] = C.MAX_ONIONS * (pots | counters | floor)
    high[C.CH_COOK_TIME_LEFT] = C.COOK_TIME * pots
    high[C.CH_SOUP_DONE] = pots | counters | floor
    high[C.CH_DISHES] = counters | floor
    high[C.CH_ONIONS] = counters | floor
    high[C.CH_URGENCY] = 1
    return np.moveaxis(low, 0, -1), np.moveaxis(high, 0, -1)
