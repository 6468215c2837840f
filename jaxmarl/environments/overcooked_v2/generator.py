"""Initial states of an Overcooked V2 episode.

- :func:`layout_start`: the cooks on their layout cells facing up, empty-handed, in an
  empty kitchen.
- :func:`random_positions`: each cook moved to a random free floor cell of the region it
  starts in (so it never leaves a closed-off room), facing a random way.
- :func:`random_state`: random positions, and random contents: each cook holds nothing,
  a plate, a random ingredient or a dish of a possible recipe (probabilities 0.5, 0.1,
  0.25, 0.15); every counter carries nothing, a plate, an ingredient or such a dish (0.5,
  0.1, 0.3, 0.1); every pot is empty, filling (one to three random ingredients, not
  cooking), cooking (three random ingredients, 1-20 steps left) or cooked (0.4, 0.35,
  0.15, 0.1). With ``start_cooking_interaction`` a cooking or cooked pot may hold one to
  three ingredients, as play can make them.
- :func:`sample_recipe`, :func:`sample_permutations`: the episode's recipe and each
  cook's view of the ingredients.

Keys are split and consumed as JaxMARL 0.2.0 does (:func:`initial_state` documents the
order), so the same key gives JaxMARL's initial state: the oracle test compares resets
key for key.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.overcooked_v2 import constants as C
from jaxmarl.environments.overcooked_v2 import objects
from jaxmarl.environments.overcooked_v2.layouts import Layout
from jaxmarl.environments.overcooked_v2.types import State

__all__ = [
    "draw_index",
    "initial_state",
    "layout_start",
    "random_positions",
    "random_state",
    "sample_permutations",
    "sample_recipe",
]


def draw_index(key: jax.Array, p: jax.Array) -> jax.Array:
    """An index drawn with probabilities ``p`` (1-d, summing to 1 or any positive
    total): the draw ``jax.random.choice(key, len(p), p=p)`` makes, computed without its
    sorted search (a loop that is slow to compile)."""
    cumulative = jnp.cumsum(p)
    r = cumulative[-1] * (1 - jax.random.uniform(key, (), dtype=cumulative.dtype))
    return jnp.sum(cumulative < r).astype(jnp.int32)


def layout_start(layout: Layout) -> State:
    """Cooks on their layout cells facing up, empty-handed, in an empty kitchen; the
    recipe is still 0 and every cook sees the ingredients unpermuted."""
    n, shape = layout.num_agents, (layout.height, layout.width)
    return State(
        pos=jnp.asarray(np.array(layout.agent_positions, np.int32).reshape(n, 2)),
        dir=jnp.full((n,), C.FACE_UP, jnp.int32),
        inventory=jnp.zeros((n,), jnp.int32),
        items=jnp.zeros(shape, jnp.int32),
        timer=jnp.zeros(shape, jnp.int32),
        recipe=jnp.zeros((), jnp.int32),
        new_correct_delivery=jnp.zeros((), bool),
        ingredient_permutations=jnp.broadcast_to(
            jnp.arange(layout.num_ingredients, dtype=jnp.int32), (n, layout.num_ingredients)
        ),
        step=jnp.zeros((), jnp.int32),
    )


def sample_recipe(key: jax.Array, layout: Layout) -> jax.Array:
    """A recipe drawn uniformly from the layout's ``possible_recipes``, as an object code
    (with a single possible recipe, that recipe: no random bits are drawn, as the draw
    could only give it)."""
    codes = jnp.asarray(layout.recipe_codes)
    if codes.shape[0] == 1:
        return codes[0]
    return codes[jax.random.randint(key, (), 0, codes.shape[0])]


def sample_permutations(key: jax.Array, layout: Layout, indices: tuple[int, ...]) -> jax.Array:
    """Each cook's view of the ingredients, int32 ``(num_agents, num_ingredients)``: the
    ingredients ``indices`` shuffled among themselves (independently per cook), the
    others in place."""
    order = jnp.asarray(indices, jnp.int32)
    identity = jnp.arange(layout.num_ingredients, dtype=jnp.int32)

    def one(k: jax.Array) -> jax.Array:
        return identity.at[order].set(jax.random.permutation(k, order))

    _, k_cooks = jax.random.split(key)
    return jax.vmap(one)(jax.random.split(k_cooks, layout.num_agents))


def random_positions(key: jax.Array, layout: Layout, state: State) -> State:
    """Each cook, in agent order, on a uniformly random floor cell of the region its
    current cell belongs to, not taken by an earlier cook; facings uniformly random."""
    n, cells = layout.num_agents, layout.height * layout.width
    regions = jnp.asarray(layout.enclosed_spaces.reshape(-1))
    k_rest, k_cells = jax.random.split(key)
    keys = jax.random.split(k_cells, n)
    taken = jnp.zeros((cells,), bool)
    chosen = []
    for i in range(n):
        here = state.pos[i, 1] * layout.width + state.pos[i, 0]
        allowed = (regions == regions[here]) & ~taken
        cell = draw_index(keys[i], allowed / jnp.sum(allowed))
        taken = taken.at[cell].set(True)
        chosen.append(cell)
    cell = jnp.stack(chosen).astype(jnp.int32)
    _, k_dir = jax.random.split(k_rest)
    facing = jax.random.randint(k_dir, (n,), 0, C.NUM_DIRECTIONS).astype(jnp.int32)
    return state.replace(pos=jnp.stack([cell % layout.width, cell // layout.width], -1), dir=facing)


def _dish(key: jax.Array, layout: Layout) -> jax.Array:
    return sample_recipe(key, layout) | C.COOKED | C.PLATE


def _random_ingredient(key: jax.Array, layout: Layout, shape: tuple[int, ...] = ()) -> jax.Array:
    return objects.ingredient(jax.random.randint(key, shape, 0, layout.num_ingredients))


def random_state(key: jax.Array, layout: Layout, interact_to_cook: bool, state: State) -> State:
    """Random positions (:func:`random_positions`) and contents (module docstring)."""
    k_rest, k_pos = jax.random.split(key)
    state = random_positions(k_pos, layout, state)

    def inventory(k: jax.Array) -> jax.Array:
        k_dish, k_ing, k_pick = jax.random.split(k, 3)
        options = jnp.stack(
            [jnp.int32(C.EMPTY), jnp.int32(C.PLATE), _random_ingredient(k_ing, layout), _dish(k_dish, layout)]
        )
        return options[draw_index(k_pick, jnp.asarray(C.INVENTORY_PROBS, jnp.float32))]

    k_rest, k_inv = jax.random.split(k_rest)
    held = jax.vmap(inventory)(jax.random.split(k_inv, layout.num_agents))

    def cell(
        k: jax.Array, item: jax.Array, timer: jax.Array
    ) -> tuple[jax.Array, jax.Array, jax.Array, jax.Array]:
        # A pot's draw ...
        k_pick, k_ing, k_num, k_timer = jax.random.split(k, 4)
        raw = _random_ingredient(k_ing, layout, (C.RECIPE_SIZE,))
        some = jnp.sum(
            raw * (jnp.arange(C.RECIPE_SIZE) < jax.random.randint(k_num, (), 1, C.RECIPE_SIZE + 1))
        )
        full = some if interact_to_cook else jnp.sum(raw)
        left = jax.random.randint(k_timer, (), 0, C.POT_COOK_TIME) + 1
        pick = draw_index(k_pick, jnp.asarray(C.POT_PROBS, jnp.float32))
        pot_item = jnp.stack([item, some, full, full | C.COOKED])[pick]
        pot_timer = jnp.stack([timer, jnp.int32(0), left, jnp.int32(0)])[pick]
        # ... and a counter's, from the same key.
        k_pick, k_ing, k_dish = jax.random.split(k, 3)
        options = jnp.stack(
            [jnp.int32(C.EMPTY), jnp.int32(C.PLATE), _random_ingredient(k_ing, layout), _dish(k_dish, layout)]
        )
        counter_item = options[draw_index(k_pick, jnp.asarray(C.COUNTER_PROBS, jnp.float32))]
        return pot_item, pot_timer, counter_item, timer

    _, k_grid = jax.random.split(k_rest)
    keys = jax.random.split(k_grid, (layout.height, layout.width))
    pot_item, pot_timer, counter_item, _ = jax.vmap(jax.vmap(cell))(keys, state.items, state.timer)
    terrain = jnp.asarray(layout.static_objects)
    items = jnp.select([terrain == C.POT, terrain == C.COUNTER], [pot_item, counter_item], state.items)
    timer = jnp.where(terrain == C.POT, pot_timer, state.timer)
    return state.replace(
        inventory=held.astype(jnp.int32), items=items.astype(jnp.int32), timer=timer.astype(jnp.int32)
    )


def initial_state(
    key: jax.Array,
    layout: Layout,
    *,
    permuted: tuple[int, ...] | None,
    random_reset: bool,
    random_agent_positions: bool,
    interact_to_cook: bool,
) -> State:
    """The first state of an episode.

    Keys, as JaxMARL 0.2.0 uses them: ``key -> (k, k_recipe)``; the recipe from
    ``k_recipe``; the ingredient permutations (if ``permuted`` names ingredients) from
    ``k``; then ``k -> (_, k_random)`` and the random state or random positions from
    ``k_random``.
    """
    k, k_recipe = jax.random.split(key)
    state = layout_start(layout).replace(recipe=sample_recipe(k_recipe, layout))
    if permuted:
        state = state.replace(ingredient_permutations=sample_permutations(k, layout, permuted))
    _, k_random = jax.random.split(k)
    if random_reset:
        state = random_state(k_random, layout, interact_to_cook, state)
    elif random_agent_positions:
        state = random_positions(k_random, layout, state)
    return state
