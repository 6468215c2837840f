"""Initial states of an Overcooked episode.

- :func:`standard_start`: overcooked-ai's standard start (cooks on their layout cells,
  empty-handed, empty kitchen), facing north or, as JaxMARL resets, a random way.
- :func:`random_state`: a random state the game can reach: each cook on a random floor
  cell of the region it can walk to from its start cell, facing a random way, holding
  nothing, an onion, a dish or a soup; counters next to reachable floor carry an item
  with probability 0.4 (onion, dish or soup alike); each pot is empty, partly filled,
  cooking (tick 1 to 19) or ready, alike. Soups hold three onions under the automatic
  cooking rule and one to three under the interact rule, where smaller soups can be
  cooked (and are worth nothing).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxmarl.environments.overcooked import constants as C
from jaxmarl.environments.overcooked.layouts import Layout
from jaxmarl.environments.overcooked.observations import reachable_counters
from jaxmarl.environments.overcooked.types import State

__all__ = ["random_state", "standard_start"]

COUNTER_ITEM_PROB = 0.4


def _empty_kitchen(layout: Layout) -> tuple[jax.Array, jax.Array, jax.Array]:
    shape = (layout.height, layout.width)
    return jnp.zeros(shape, jnp.int32), jnp.zeros(shape, jnp.int32), jnp.full(shape, C.IDLE, jnp.int32)


def standard_start(layout: Layout, key: jax.Array, random_orientation: bool) -> State:
    """Cooks on their start cells, empty-handed, in an empty kitchen; facing north
    (overcooked-ai) or each a uniformly random way (``random_orientation``, JaxMARL)."""
    if random_orientation:
        facing = jax.random.randint(key, (2,), 0, C.NUM_DIRECTIONS, jnp.int32)
    else:
        facing = jnp.full((2,), C.NORTH, jnp.int32)
    items, onions, tick = _empty_kitchen(layout)
    return State(
        pos=jnp.asarray(layout.start_pos),
        dir=facing,
        held=jnp.zeros((2,), jnp.int32),
        held_onions=jnp.zeros((2,), jnp.int32),
        items=items,
        onions=onions,
        cook_tick=tick,
        step=jnp.zeros((), jnp.int32),
    )


def _soup_onions(key: jax.Array, shape: tuple[int, ...], small_soups: bool) -> jax.Array:
    if not small_soups:
        return jnp.full(shape, C.MAX_ONIONS, jnp.int32)
    return jax.random.randint(key, shape, 1, C.MAX_ONIONS + 1, jnp.int32)


def random_state(layout: Layout, key: jax.Array, interact_to_cook: bool) -> State:
    """A random reachable state (see the module docstring), at step 0."""
    h, w = layout.height, layout.width
    n = h * w
    keys = jax.random.split(key, 12)
    regions = jnp.asarray(layout.regions.reshape(2, n))
    first = jax.random.categorical(keys[0], jnp.where(regions[0], 0.0, -jnp.inf))
    others = regions[1] & (jnp.arange(n) != first)
    second = jax.random.categorical(keys[1], jnp.where(others, 0.0, -jnp.inf))
    cells = jnp.stack([first, second]).astype(jnp.int32)
    held = jax.random.randint(keys[2], (2,), C.NOTHING, C.SOUP + 1, jnp.int32)
    held_onions = jnp.where(held == C.SOUP, _soup_onions(keys[3], (2,), interact_to_cook), 0)

    counters = jnp.asarray(reachable_counters(layout).reshape(n))
    has_item = counters & (jax.random.uniform(keys[4], (n,)) < COUNTER_ITEM_PROB)
    items = jnp.where(has_item, jax.random.randint(keys[5], (n,), C.ONION, C.SOUP + 1, jnp.int32), 0)
    counter_onions = jnp.where(items == C.SOUP, _soup_onions(keys[6], (n,), interact_to_cook), 0)

    pots = jnp.asarray(layout.terrain.reshape(n) == C.POT)
    status = jax.random.randint(keys[7], (n,), 0, 4)  # empty, filling, cooking, ready
    max_idle = C.MAX_ONIONS if interact_to_cook else C.MAX_ONIONS - 1
    idle_onions = jax.random.randint(keys[8], (n,), 1, max_idle + 1, jnp.int32)
    soup_onions = _soup_onions(keys[9], (n,), interact_to_cook)
    pot_onions = jnp.select([status == 1, status >= 2], [idle_onions, soup_onions], 0)
    cooking_tick = jax.random.randint(keys[10], (n,), 1, C.COOK_TIME, jnp.int32)
    tick = jnp.select([status == 2, status == 3], [cooking_tick, jnp.full((n,), C.COOK_TIME)], C.IDLE)

    return State(
        pos=jnp.stack([cells % w, cells // w], axis=-1),
        dir=jax.random.randint(keys[11], (2,), 0, C.NUM_DIRECTIONS, jnp.int32),
        held=held,
        held_onions=held_onions,
        items=items.reshape(h, w),
        onions=jnp.where(pots, pot_onions, counter_onions).reshape(h, w),
        cook_tick=jnp.where(pots, tick, C.IDLE).reshape(h, w).astype(jnp.int32),
        step=jnp.zeros((), jnp.int32),
    )
