"""JaxMARL's names for Overcooked V2's codes: terrain kinds, object bit fields, facings
and actions (the values themselves are in ``constants``).

- :class:`StaticObject`: terrain codes of ``Layout.static_objects`` (``WALL`` is a
  counter, ``GOAL`` a serving counter).
- :class:`DynamicObject`: object codes (bit fields) and helpers to build and read them.
- :class:`Direction` and :class:`OvercookedActionsEnum`: facings and action ids;
  ``ACTION_TO_DIRECTION``, ``ALL_DIRECTIONS`` and ``DIR_TO_VEC`` relate them.
- ``MAX_INGREDIENTS``: ingredients per recipe (and per pot), 3.
"""

from __future__ import annotations

from enum import IntEnum

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.overcooked_v2 import constants as C
from jaxmarl.environments.overcooked_v2 import objects

__all__ = [
    "ACTION_TO_DIRECTION",
    "ALL_DIRECTIONS",
    "DIR_TO_VEC",
    "MAX_INGREDIENTS",
    "Direction",
    "DynamicObject",
    "OvercookedActionsEnum",
    "StaticObject",
]

MAX_INGREDIENTS = C.RECIPE_SIZE


class StaticObject(IntEnum):
    """Terrain codes (``AGENT`` and ``SELF_AGENT`` are never on a layout)."""

    EMPTY = C.FLOOR
    WALL = C.COUNTER
    AGENT = 2
    SELF_AGENT = 3
    GOAL = C.SERVING
    POT = C.POT
    RECIPE_INDICATOR = C.RECIPE_INDICATOR
    BUTTON_RECIPE_INDICATOR = C.RECIPE_BUTTON
    PLATE_PILE = C.PLATE_PILE
    INGREDIENT_PILE_BASE = C.INGREDIENT_PILE

    @staticmethod
    def is_ingredient_pile(obj: jax.Array | int) -> jax.Array | bool:
        """Whether a terrain code is an ingredient pile."""
        return obj >= C.INGREDIENT_PILE

    @staticmethod
    def get_ingredient(obj: jax.Array | int) -> jax.Array:
        """The object code of the ingredient an ingredient pile gives."""
        return objects.ingredient(jnp.asarray(obj) - C.INGREDIENT_PILE)

    @staticmethod
    def ingredient_pile(idx: jax.Array | int) -> jax.Array | int:
        """The terrain code of ingredient ``idx``'s pile."""
        return C.INGREDIENT_PILE + idx


class DynamicObject(IntEnum):
    """Object bit fields: ``PLATE``, ``COOKED``, and two bits per ingredient counting it
    (ingredient ``i`` is ``BASE_INGREDIENT << 2 i``)."""

    EMPTY = C.EMPTY
    PLATE = C.PLATE
    COOKED = C.COOKED
    BASE_INGREDIENT = C.ingredient(0)

    @staticmethod
    def ingredient(idx: jax.Array | int) -> jax.Array:
        """The code of one ingredient ``idx``."""
        return objects.ingredient(idx)

    @staticmethod
    def is_ingredient(obj: jax.Array | int) -> jax.Array:
        """Whether ``obj`` is ingredients without a plate."""
        return objects.is_raw_ingredient(jnp.asarray(obj))

    @staticmethod
    def ingredient_count(obj: jax.Array | int) -> jax.Array:
        """How many ingredients ``obj`` holds."""
        return objects.total(jnp.asarray(obj))

    @staticmethod
    def get_ingredient_idx_list(obj: int | jax.Array) -> list[int]:
        """The ingredient indices in ``obj``, sorted, with repeats (a concrete value)."""
        counts = np.asarray(objects.counts(jnp.asarray(obj), C.MAX_INGREDIENT_KINDS))
        return [int(i) for i in np.repeat(np.arange(C.MAX_INGREDIENT_KINDS), counts)]

    @staticmethod
    def get_ingredient_idx_list_jit(obj: jax.Array | int) -> jax.Array:
        """The first three ingredient indices in ``obj``, sorted, -1 for missing ones,
        int32 ``(3,)`` (jittable)."""
        cum = jnp.cumsum(objects.counts(jnp.asarray(obj), C.MAX_INGREDIENT_KINDS))
        slot = jnp.arange(MAX_INGREDIENTS)
        which = jnp.sum(cum[None, :] <= slot[:, None], axis=-1).astype(jnp.int32)
        return jnp.where(slot < cum[-1], which, -1)

    @staticmethod
    def get_ingredient_idx(obj: jax.Array | int) -> jax.Array:
        """The lowest ingredient index in ``obj``, or -1 if it holds none."""
        counts = objects.counts(jnp.asarray(obj), C.MAX_INGREDIENT_KINDS)
        return jnp.where(jnp.any(counts > 0), jnp.argmax(counts > 0), -1).astype(jnp.int32)

    @staticmethod
    def get_recipe_encoding(recipe: jax.Array) -> jax.Array:
        """The object code of a recipe given as ingredient indices (``[0, 0, 1]``)."""
        return jnp.sum(objects.ingredient(jnp.asarray(recipe)))


class Direction(IntEnum):
    """Facings."""

    UP = C.FACE_UP
    DOWN = C.FACE_DOWN
    RIGHT = C.FACE_RIGHT
    LEFT = C.FACE_LEFT

    @staticmethod
    def opposite(direction: jax.Array | int) -> jax.Array:
        """The opposite facing."""
        return jnp.asarray(C.OPPOSITE)[direction]


class OvercookedActionsEnum(IntEnum):
    """Action ids."""

    right = C.RIGHT
    down = C.DOWN
    left = C.LEFT
    up = C.UP
    stay = C.STAY
    interact = C.INTERACT


ACTION_TO_DIRECTION = C.ACTION_TO_FACING  # the facing each action turns to (-1: none)
ALL_DIRECTIONS = np.arange(C.NUM_DIRECTIONS, dtype=np.int32)
DIR_TO_VEC = C.DIR_TO_VEC.astype(np.int8)  # (dx, dy) per facing
