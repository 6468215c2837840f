"""State of an Overcooked V2 kitchen."""

from typing import TYPE_CHECKING, Any

import jax
from flax import struct


@struct.dataclass
class State:
    """State of an Overcooked V2 kitchen. Cooks are in ``env.agents`` order. Positions
    are ``(x, y)`` with ``y`` the row of the layout (0 at the top); grids are indexed
    ``[y, x]``. Objects are bit fields (see ``constants``: bit 0 a plate, bit 1 cooked,
    two bits per ingredient counting it). The terrain is the layout's and lives on the
    env, not here.

    Attributes:
        pos: cook positions, int32 ``(num_agents, 2)`` as ``(x, y)``.
        dir: cook facings, int32 ``(num_agents,)``: 0 up, 1 down, 2 right, 3 left.
        inventory: the object each cook holds (0: nothing), int32 ``(num_agents,)``.
        items: the object on each cell, int32 ``(height, width)``: what lies on a
            counter, what is in a pot (its ingredients, with the cooked bit once done);
            0 elsewhere.
        timer: int32 ``(height, width)``: a pot's cooking steps left (0 unless it
            cooks); a recipe button's steps left showing the recipe; 0 elsewhere.
        recipe: the object code of the recipe this episode asks for, int32 ``()``.
        new_correct_delivery: whether a correct dish was delivered in the last step,
            bool ``()``.
        ingredient_permutations: how each cook sees the ingredients, int32
            ``(num_agents, num_ingredients)``: observation channel ``k`` of cook ``a``
            shows ingredient ``ingredient_permutations[a, k]`` (the identity unless
            ``op_ingredient_permutations`` is set).
        step: steps taken in the episode, int32 ``()``.
    """

    pos: jax.Array
    dir: jax.Array
    inventory: jax.Array
    items: jax.Array
    timer: jax.Array
    recipe: jax.Array
    new_correct_delivery: jax.Array
    ingredient_permutations: jax.Array
    step: jax.Array

    if TYPE_CHECKING:  # provided by flax.struct at runtime

        def replace(self, **changes: Any) -> "State": ...
