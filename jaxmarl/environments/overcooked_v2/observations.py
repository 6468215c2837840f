"""The grid observation of Overcooked V2 (JaxMARL's ``ObservationType.DEFAULT``), its
view window and its bounds.

Each cook sees a ``(height, width, 25 + 5 n)`` grid of small integers (``uint8``; ``n``
ingredients), channels in JaxMARL 0.2.0's order:

====================  ======  ==========================================================
channels              count   content
====================  ======  ==========================================================
own cook              7 + n   position; facing (up, down, right, left); what it holds:
                              plate, cooked, count of each ingredient (at its cell)
other cooks           7 + n   the same, summed over the other cooks
terrain               6       counter, serving counter, pot, recipe indicator, recipe
                              button, plate pile
ingredient piles      n       the pile of each ingredient
objects               2 + n   plate, cooked, ingredient counts of what lies on counters
                              and is in pots
recipe                2 + n   the recipe's ingredient counts, on recipe indicators and
                              on recipe buttons while they show it (plate, cooked: 0)
pot timer             1       cooking steps left, on pots
delivery              0 or 1  ``indicate_successful_delivery``: on serving counters,
                              whether a correct dish was delivered in the last step
====================  ======  ==========================================================

With ``op_ingredient_permutations`` every ingredient channel of cook ``a`` (held,
piles, objects, recipe) is reordered: channel ``k`` shows ingredient
``state.ingredient_permutations[a, k]``. With ``agent_view_size`` ``v`` a cook sees the
``(2 v + 1, 2 v + 1)`` window centred on itself, zeros outside the kitchen.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.overcooked_v2 import constants as C
from jaxmarl.environments.overcooked_v2.layouts import Layout
from jaxmarl.environments.overcooked_v2.types import State

__all__ = ["GridEncoder", "num_channels"]

STATIC_KINDS = (C.COUNTER, C.SERVING, C.POT, C.RECIPE_INDICATOR, C.RECIPE_BUTTON, C.PLATE_PILE)


def num_channels(num_ingredients: int, indicate_successful_delivery: bool) -> int:
    """Channels of the grid observation: ``25 + 5 n`` (+1 with the delivery channel)."""
    return 25 + 5 * num_ingredients + int(indicate_successful_delivery)


def _object_layers(obj: jax.Array, num_ingredients: int) -> jax.Array:
    """Plate bit, cooked bit and each ingredient's count of ``obj``, uint8
    ``(*obj.shape, 2 + num_ingredients)``."""
    shifts = jnp.asarray(
        [0, 1, *range(C.INGREDIENT_SHIFT, C.INGREDIENT_SHIFT + 2 * num_ingredients, 2)], jnp.int32
    )
    masks = jnp.asarray([1, 1] + [3] * num_ingredients, jnp.int32)
    return (jnp.right_shift(obj[..., None], shifts) & masks).astype(jnp.uint8)


class GridEncoder:
    """The grid observations of one layout and configuration (module docstring).

    Args:
        layout: the kitchen.
        indicate_successful_delivery: add the delivery channel.
        permuted: whether cooks see permuted ingredients (``op_ingredient_permutations``).
        view: ``agent_view_size`` (``None``: the whole kitchen).
    """

    def __init__(
        self, layout: Layout, indicate_successful_delivery: bool, permuted: bool, view: int | None
    ) -> None:
        self.layout = layout
        self.n = layout.num_ingredients
        self.delivery = indicate_successful_delivery
        self.permuted = permuted
        self.view = view
        self.channels = num_channels(self.n, indicate_successful_delivery)
        terrain = layout.static_objects.reshape(-1)
        piles = C.INGREDIENT_PILE + np.arange(self.n)
        # Static channels: terrain kinds, then ingredient piles, (H*W, 6 + n).
        self._static = np.concatenate(
            [terrain[:, None] == np.asarray(STATIC_KINDS)[None], terrain[:, None] == piles[None]], axis=1
        ).astype(np.uint8)
        self._pot = terrain == C.POT
        self._indicator = terrain == C.RECIPE_INDICATOR
        self._button = terrain == C.RECIPE_BUTTON
        self._serving = terrain == C.SERVING
        # Where each group of ingredient channels starts (for permutations).
        agent = 7 + self.n
        self._ingredient_groups = (
            5 + 2,
            agent + 5 + 2,
            2 * agent + 6,
            2 * agent + 6 + self.n + 2,
            2 * agent + 6 + 2 * self.n + 4,
        )

    @property
    def shape(self) -> tuple[int, int, int]:
        """One cook's observation shape."""
        if self.view is None:
            return (self.layout.height, self.layout.width, self.channels)
        side = 2 * self.view + 1
        return (side, side, self.channels)

    def full(self, state: State) -> jax.Array:
        """Every cook's observation of the whole kitchen, uint8 ``(num_agents, height,
        width, channels)`` (no view window)."""
        lay = self.layout
        h, w, n = lay.height, lay.width, self.n
        cells = h * w
        cell = state.pos[:, 1] * w + state.pos[:, 0]
        here = (jnp.arange(cells)[None, :] == cell[:, None]).astype(jnp.uint8)  # (A, HW)
        facing = (state.dir[:, None] == jnp.arange(C.NUM_DIRECTIONS)[None, :]).astype(jnp.uint8)  # (A, 4)
        held = _object_layers(state.inventory, n)  # (A, 2 + n)
        per_cook = jnp.concatenate([jnp.ones_like(facing[:, :1]), facing, held], axis=1)  # (A, 7 + n)
        cooks = here[:, :, None] * per_cook[:, None, :]  # (A, HW, 7 + n)
        everyone = jnp.sum(cooks, axis=0, dtype=jnp.uint8)

        items = _object_layers(state.items.reshape(cells), n)
        shown = jnp.asarray(self._indicator) | (jnp.asarray(self._button) & (state.timer.reshape(cells) > 0))
        recipe = _object_layers(jnp.where(shown, state.recipe, 0), n)
        timer = jnp.where(jnp.asarray(self._pot), state.timer.reshape(cells), 0).astype(jnp.uint8)[:, None]
        shared = [jnp.asarray(self._static), items, recipe, timer]
        if self.delivery:
            shared.append(
                (jnp.asarray(self._serving) & state.new_correct_delivery).astype(jnp.uint8)[:, None]
            )
        shared_block = jnp.concatenate(shared, axis=1)  # (HW, 6 + n + 2(2 + n) + 1 [+ 1])
        num_agents = cooks.shape[0]
        obs = jnp.concatenate(
            [
                cooks,
                everyone[None] - cooks,
                jnp.broadcast_to(shared_block, (num_agents, *shared_block.shape)),
            ],
            axis=2,
        )
        if self.permuted:
            obs = jax.vmap(self._permute)(obs, state.ingredient_permutations)
        return obs.reshape(num_agents, h, w, self.channels)

    def _permute(self, obs: jax.Array, mapping: jax.Array) -> jax.Array:
        """Reorder one cook's ingredient channels: channel ``k`` of each group shows
        ingredient ``mapping[k]``."""
        index = jnp.arange(self.channels)
        for start in self._ingredient_groups:
            index = index.at[start : start + self.n].set(start + mapping)
        return jnp.take(obs, index, axis=-1)

    def window(self, obs: jax.Array, pos: jax.Array) -> jax.Array:
        """One cook's ``(2 v + 1, 2 v + 1, channels)`` window of its full observation
        ``obs`` around ``pos`` ``(x, y)``, zeros outside the kitchen."""
        v = self.view
        assert v is not None
        padded = jnp.pad(obs, ((v, v), (v, v), (0, 0)))
        return jax.lax.dynamic_slice(padded, (pos[1], pos[0], 0), self.shape)

    def __call__(self, state: State) -> jax.Array:
        """Every cook's observation, uint8 ``(num_agents, *self.shape)``."""
        obs = self.full(state)
        if self.view is None:
            return obs
        return jax.vmap(self.window)(obs, state.pos)

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """``(low, high)`` of one cook's observation, uint8 arrays of ``self.shape``: exact
        per cell and channel for the whole kitchen (terrain fixed, cooks on floor, objects
        on counters and pots, ...); with a view window, per channel (low 0)."""
        lay = self.layout
        n = self.n
        terrain = lay.static_objects.reshape(-1)
        floor = terrain == C.FLOOR
        counter = terrain == C.COUNTER
        pot = self._pot
        high = np.zeros((terrain.size, self.channels), np.int64)
        low = np.zeros_like(high)
        cook = np.concatenate([np.ones(5), [1, 1], np.full(n, C.RECIPE_SIZE)])
        a = 7 + n
        high[:, :a] = floor[:, None] * cook
        high[:, a : 2 * a] = floor[:, None] * cook
        static = self._static.astype(np.int64)
        if self.permuted:
            # A pile channel may show any pile (of a permuted ingredient): bound by any pile.
            piles = static[:, 6:]
            high[:, 2 * a : 2 * a + 6] = low[:, 2 * a : 2 * a + 6] = static[:, :6]
            high[:, 2 * a + 6 : 2 * a + 6 + n] = piles.max(axis=1, keepdims=True)
            low[:, 2 * a + 6 : 2 * a + 6 + n] = piles.min(axis=1, keepdims=True)
        else:
            high[:, 2 * a : 2 * a + 6 + n] = low[:, 2 * a : 2 * a + 6 + n] = static
        o = 2 * a + 6 + n
        high[:, o] = counter
        high[:, o + 1] = counter | pot
        high[:, o + 2 : o + 2 + n] = ((counter | pot) * C.RECIPE_SIZE)[:, None]
        r = o + 2 + n
        high[:, r + 2 : r + 2 + n] = ((self._indicator | self._button) * C.RECIPE_SIZE)[:, None]
        t = r + 2 + n
        high[:, t] = pot * C.POT_COOK_TIME
        if self.delivery:
            high[:, t + 1] = self._serving
        if self.view is not None:
            high = np.broadcast_to(high.max(axis=0), self.shape)
            low = np.zeros(self.shape, np.int64)
        else:
            high = high.reshape(self.shape)
            low = low.reshape(self.shape)
        return low.astype(np.uint8), high.astype(np.uint8)
