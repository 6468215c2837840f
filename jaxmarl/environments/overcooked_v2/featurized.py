"""The featurized observation of Overcooked V2 (JaxMARL's ``ObservationType.FEATURIZED``),
Overcooked-AI's hand-made features, for kitchens with one ingredient (onions).

Each cook has 46 features (float32), in this order:

- facing (4): one-hot up, down, right, left;
- holding (4): an onion, an onion soup (three onions, cooked, plated), a plate, a tomato
  (ingredient 1; never in a one-ingredient kitchen);
- closest onion, tomato, plate, soup (4 x 2): ``(dx, dy)`` from the cook to the closest
  such cell it can reach (in actions, see ``planning.py``; ``(0, 0)`` if it holds one
  or none is reachable). Onions and plates count piles and objects lying on counters,
  soups only plated ones outside pots;
- soup ingredients (2): 3 onions if an onion soup lies on a counter or is held by this
  cook, then 0 tomatoes;
- closest serving counter, empty counter (2 x 2), as above;
- the two closest reachable pots (2 x 10): exists, empty, full (three ingredients),
  cooking, cooked, onions, tomatoes (0), cooking steps left, ``(dx, dy)`` (all 0 when
  fewer pots are reachable);
- blocked (4): whether the cell up, down, right, left of the cook is not floor.

Cook ``a``'s observation is its own 46 features, those of every other cook in agent
order, the ``(dx, dy)`` from it to each other cook and its own ``(x, y)``: ``48 N``
values for ``N`` cooks. "Reachable" means in or next to the floor region the cook
stands in.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.overcooked_v2 import constants as C
from jaxmarl.environments.overcooked_v2 import objects
from jaxmarl.environments.overcooked_v2.layouts import Layout
from jaxmarl.environments.overcooked_v2.planning import PathTable
from jaxmarl.environments.overcooked_v2.types import State

__all__ = ["FEATURES_PER_COOK", "FeatureEncoder"]

NUM_POTS = 2
POT_FEATURES = 10
FEATURES_PER_COOK = 26 + NUM_POTS * POT_FEATURES  # 46

ONION = C.ingredient(0)
TOMATO = C.ingredient(1)
ONION_SOUP = C.recipe_code([0, 0, 0]) | C.COOKED | C.PLATE
# The cells the six position features look for: terrain (-1: none) ...
TARGET_TERRAIN = (C.INGREDIENT_PILE, C.INGREDIENT_PILE + 1, C.PLATE_PILE, -1, C.SERVING, C.COUNTER)
EMPTY_ONLY = np.array([False, False, False, False, False, True])  # ... without an object on it
TARGET_OBJECTS = (ONION, TOMATO, C.PLATE, ONION_SOUP, 0, 0)  # ... or objects (0: none) outside pots


class FeatureEncoder:
    """The featurized observations of one layout (module docstring).

    Args:
        layout: a kitchen with one ingredient.
    """

    def __init__(self, layout: Layout) -> None:
        if layout.num_ingredients != 1:
            raise ValueError(
                f"the featurized observation needs a kitchen with one ingredient; layout {layout.name!r} "
                f"has {layout.num_ingredients}"
            )
        self.layout = layout
        self.paths = PathTable(layout.floor)
        h, w = layout.height, layout.width
        regions = layout.enclosed_spaces
        # For each cell, the cells in or next to its floor region (reachable targets).
        near = np.zeros((h * w, h * w), bool)
        for cell in range(h * w):
            y, x = divmod(cell, w)
            if regions[y, x] < 0:
                continue
            area = regions == regions[y, x]
            grown = area.copy()
            grown[1:] |= area[:-1]
            grown[:-1] |= area[1:]
            grown[:, 1:] |= area[:, :-1]
            grown[:, :-1] |= area[:, 1:]
            near[cell] = grown.reshape(-1)
        self._near = near
        terrain = layout.static_objects.reshape(-1)
        self._target_terrain = np.stack([terrain == kind for kind in TARGET_TERRAIN])
        self.num_agents = layout.num_agents
        self.size = FEATURES_PER_COOK * self.num_agents + 2 * (self.num_agents - 1) + 2

    def _cook(
        self, items: jax.Array, timer: jax.Array, pos: jax.Array, facing: jax.Array, held: jax.Array
    ) -> jax.Array:
        """One cook's 46 features; ``items`` and ``timer`` flat ``(height * width,)``."""
        w = self.layout.width
        terrain = jnp.asarray(self.layout.static_objects.reshape(-1))
        cell = pos[1] * w + pos[0]
        near = jnp.asarray(self._near)[cell]
        here = jnp.arange(terrain.shape[0]) == cell

        # The six position features at once: onion, tomato, plate, soup, serving, empty counter.
        static = jnp.asarray(self._target_terrain) & (~jnp.asarray(EMPTY_ONLY)[:, None] | (items == C.EMPTY))
        codes, loose = jnp.asarray(TARGET_OBJECTS), jnp.asarray(TARGET_OBJECTS)[:, None] > 0
        mask = static | (loose & (items[None] == codes[:, None]) & (terrain != C.POT))
        mask = jnp.where(loose & here, held == codes[:, None], mask) & near
        targets, found = jax.vmap(self.paths.closest, in_axes=(0, None, None))(mask, cell, facing)
        deltas = jnp.where(found[:, None], jnp.stack([targets % w - pos[0], targets // w - pos[1]], -1), 0)
        soup_onions = jnp.where(jnp.any(items == ONION_SOUP) | (held == ONION_SOUP), 3, 0)

        pots = (terrain == C.POT) & near
        pot_features = []
        for _ in range(NUM_POTS):
            target, found_pot = self.paths.closest(pots, cell, facing)
            content, left = items[target], timer[target]
            count = objects.total(content)
            feats = jnp.stack(
                [
                    jnp.int32(1),
                    (content == C.EMPTY).astype(jnp.int32),
                    (count == C.RECIPE_SIZE).astype(jnp.int32),
                    (left > 0).astype(jnp.int32),
                    ((content & C.COOKED) != 0).astype(jnp.int32),
                    count,
                    jnp.int32(0),
                    left,
                    target % w - pos[0],
                    target // w - pos[1],
                ]
            )
            pot_features.append(jnp.where(found_pot, feats, 0))
            pots = pots & (jnp.arange(terrain.shape[0]) != target)
        floor = jnp.asarray(self.layout.floor)
        blocked = jnp.stack([~floor[pos[1] + dy, pos[0] + dx] for dx, dy in C.DIR_TO_VEC.tolist()])
        holding = held == jnp.asarray([ONION, ONION_SOUP, C.PLATE, TOMATO])
        return jnp.concatenate(
            [
                jax.nn.one_hot(facing, C.NUM_DIRECTIONS),
                holding,
                deltas[:4].reshape(-1),
                jnp.stack([soup_onions, 0]),
                deltas[4:].reshape(-1),
                *pot_features,
                blocked,
            ]
        ).astype(jnp.float32)

    def __call__(self, state: State) -> jax.Array:
        """Every cook's featurized observation, float32 ``(num_agents, 48 num_agents)``."""
        n = self.num_agents
        items, timer = state.items.reshape(-1), state.timer.reshape(-1)
        every = jax.vmap(self._cook, in_axes=(None, None, 0, 0, 0))(
            items, timer, state.pos, state.dir, state.inventory
        )
        own = [every[i] for i in range(n)]
        out = []
        for i in range(n):
            others = [j for j in range(n) if j != i]
            parts = [own[i], *[own[j] for j in others]]
            parts += [(state.pos[j] - state.pos[i]).astype(jnp.float32) for j in others]
            parts.append(state.pos[i].astype(jnp.float32))
            out.append(jnp.concatenate(parts))
        return jnp.stack(out)

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """``(low, high)`` of one cook's featurized observation, float32 ``(48 N,)``."""
        h, w = self.layout.height, self.layout.width
        dxy_low, dxy_high = [-(w - 1), -(h - 1)], [w - 1, h - 1]
        low = [0] * 8 + dxy_low * 4 + [0, 0] + dxy_low * 2
        high = [1] * 8 + dxy_high * 4 + [3, 0] + dxy_high * 2
        for _ in range(NUM_POTS):
            low += [0] * 8 + dxy_low
            high += [1, 1, 1, 1, 1, 3, 0, C.POT_COOK_TIME, *dxy_high]
        low += [0] * 4
        high += [1] * 4
        n = self.num_agents
        lo = low * n + dxy_low * (n - 1) + [0, 0]
        hi = high * n + dxy_high * (n - 1) + [w - 1, h - 1]
        return np.asarray(lo, np.float32), np.asarray(hi, np.float32)
