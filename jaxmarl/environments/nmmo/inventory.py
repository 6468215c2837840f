"""Inventories, equipment and skills: Neural MMO's ``systems/inventory.py``, ``item.py``
and ``skill.py`` rules as array functions.

An inventory is ``I = 12`` slots of one player (``Inventory``: type, level, quantity,
equipped, listed price, listing tick, item id). Ammunition stacks by ``(type, level)``:
receiving ammunition the player already holds adds to the stack and needs no free slot;
anything else needs a free slot or is destroyed (Neural MMO's ``Inventory.receive``).
Equipment occupies one of five slots (hat, top, bottom, held, ammunition); equipping an
item first unequips whatever holds its slot.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxmarl.environments.nmmo import constants as C
from jaxmarl.environments.nmmo.types import State


class Inventory(NamedTuple):
    """One player's slots (each ``(I,)``) or all players' (each ``(P, I)``)."""

    type: jax.Array
    level: jax.Array
    quantity: jax.Array
    equipped: jax.Array
    price: jax.Array
    listed_tick: jax.Array
    uid: jax.Array


def of(state: State) -> Inventory:
    return Inventory(
        state.inv_type,
        state.inv_level,
        state.inv_quantity,
        state.inv_equipped,
        state.inv_price,
        state.inv_listed_tick,
        state.inv_uid,
    )


def store(state: State, inv: Inventory) -> State:
    return state.replace(
        inv_type=inv.type,
        inv_level=inv.level,
        inv_quantity=inv.quantity,
        inv_equipped=inv.equipped,
        inv_price=inv.price,
        inv_listed_tick=inv.listed_tick,
        inv_uid=inv.uid,
    )


def clear(inv: Inventory, slot: jax.Array, where: jax.Array | bool = True) -> Inventory:
    """Empty ``slot`` (when ``where``) of a single inventory."""
    return Inventory(*(f.at[slot].set(jnp.where(where, jnp.zeros_like(f[slot]), f[slot])) for f in inv))


def receive(
    inv: Inventory, type_: jax.Array, level: jax.Array, quantity: jax.Array, uid: jax.Array, where: jax.Array
) -> tuple[Inventory, jax.Array]:
    """Neural MMO's ``Inventory.receive`` for one inventory: returns the new inventory and
    whether the item was added to it (as a new slot or onto a stack); otherwise it is
    destroyed. Nothing happens unless ``where``."""
    stack = jnp.asarray(C.IS_AMMUNITION)[type_]
    same = (inv.type == type_) & (inv.level == level) & (inv.quantity > 0)
    has_stack = stack & jnp.any(same)
    stack_slot = jnp.argmax(same)
    free = inv.type == 0
    has_space = jnp.any(free)
    free_slot = jnp.argmax(free)
    add_stack = where & has_stack
    add_new = where & ~has_stack & has_space
    quantity_after = inv.quantity.at[stack_slot].add(jnp.where(add_stack, quantity, 0))
    inv = inv._replace(quantity=quantity_after)
    new = (type_, level, quantity, False, 0, 0, uid)
    inv = Inventory(
        *(
            f.at[free_slot].set(jnp.where(add_new, jnp.asarray(v, f.dtype), f[free_slot]))
            for f, v in zip(inv, new, strict=False)
        )
    )
    return inv, add_stack | add_new


def can_receive(inv: Inventory, type_: jax.Array, level: jax.Array) -> jax.Array:
    """Whether ``receive`` would keep the item (space, or a matching ammunition stack)."""
    stack = jnp.asarray(C.IS_AMMUNITION)[type_]
    same = (inv.type == type_) & (inv.level == level) & (inv.quantity > 0)
    return (stack & jnp.any(same)) | jnp.any(inv.type == 0)


def find(inv: Inventory, uid: jax.Array) -> tuple[jax.Array, jax.Array]:
    """``(slot, found)`` of the item with id ``uid`` in one inventory."""
    hit = (inv.uid == uid) & (uid > 0) & (inv.type > 0)
    return jnp.argmax(hit), jnp.any(hit)


def equipment_attack(inv: Inventory) -> jax.Array:
    """``(..., 3)`` attack the equipped items add to each style (Neural MMO's
    ``equipment.total(lambda e: e.<style>_attack)``)."""
    style = jnp.asarray(C.ITEM_ATTACK_STYLE)[inv.type]
    attack = jnp.where(inv.equipped, C.item_attack(inv.type, inv.level), 0)
    return jnp.stack([jnp.sum(jnp.where(style == s, attack, 0), -1) for s in range(3)], -1)


def equipment_defense(inv: Inventory) -> jax.Array:
    """Defense of the equipped items (the same against every style)."""
    return jnp.sum(jnp.where(inv.equipped, C.item_defense(inv.type, inv.level), 0), -1)


def equipment_level(inv: Inventory) -> jax.Array:
    """Summed level of the equipped items (Neural MMO's ``item_level``)."""
    return jnp.sum(jnp.where(inv.equipped, inv.level, 0), -1)


def held_tool_level(inv: Inventory, tool: int) -> jax.Array:
    """Level of the equipped ``tool`` (0 when another item or nothing is held)."""
    return jnp.max(jnp.where(inv.equipped & (inv.type == tool), inv.level, 0), -1)


def required_level(levels: jax.Array, type_: jax.Array) -> jax.Array:
    """The agent's level that item ``type_`` is checked against (``Item._level``):
    its skill's level, or the highest of the eight for armour and consumables.
    ``levels`` is ``(..., 8)``; ``type_`` broadcasts against ``levels[..., 0]``."""
    skill = jnp.asarray(C.ITEM_SKILL)[type_]
    own = jnp.take_along_axis(levels, jnp.maximum(skill, 0)[..., None], -1)[..., 0]
    return jnp.where(skill >= 0, own, jnp.max(levels, -1))


# --------------------------------------------------------------------------- skills
def level_at_exp(exp: jax.Array) -> jax.Array:
    """Neural MMO's ``ExperienceCalculator.level_at_exp``."""
    thresholds = jnp.asarray(C.EXP_THRESHOLD)
    below = jnp.argmin(exp[..., None] >= thresholds, -1)
    return jnp.where(exp >= thresholds[-1], C.LEVEL_MAX, below).astype(jnp.int32)


def add_xp(
    level: jax.Array, exp: jax.Array, amount: jax.Array | int
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """``Skill.add_xp``: returns ``(level, exp, levelled_up)``; the level never drops."""
    exp = exp + amount
    new_level = level_at_exp(exp)
    up = new_level > level
    return jnp.where(up, new_level, level), exp, up
