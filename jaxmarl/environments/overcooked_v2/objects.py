"""Reading and building object codes (bit fields, see ``constants``) in JAX.

Everything here is elementwise on integer arrays of any shape, without loops in the
compiled code (the number of ingredients is static).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxmarl.environments.overcooked_v2 import constants as C

__all__ = ["counts", "ingredient", "is_raw_ingredient", "total"]


def ingredient(i: jax.Array | int) -> jax.Array:
    """The code of one ingredient ``i`` (elementwise)."""
    return jnp.left_shift(1, C.INGREDIENT_SHIFT + 2 * jnp.asarray(i, jnp.int32))


def counts(obj: jax.Array, num_ingredients: int) -> jax.Array:
    """How many of each ingredient ``obj`` holds, int32 ``(*obj.shape, num_ingredients)``."""
    shifts = C.INGREDIENT_SHIFT + 2 * jnp.arange(num_ingredients, dtype=jnp.int32)
    return jnp.right_shift(jnp.asarray(obj, jnp.int32)[..., None], shifts) & 3


def total(obj: jax.Array, num_ingredients: int = C.MAX_INGREDIENT_KINDS) -> jax.Array:
    """How many ingredients ``obj`` holds in all, int32 of ``obj``'s shape."""
    return jnp.sum(counts(obj, num_ingredients), axis=-1)


def is_raw_ingredient(obj: jax.Array) -> jax.Array:
    """Whether ``obj`` holds ingredients but no plate (a loose ingredient)."""
    obj = jnp.asarray(obj, jnp.int32)
    return (jnp.right_shift(obj, C.INGREDIENT_SHIFT) != 0) & ((obj & C.PLATE) == 0)
