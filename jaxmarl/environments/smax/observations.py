"""SMAX observations, world state and action masks.

Observation of unit ``i`` (float32, every entry in ``[-1, 1]``), SMAC's unit list:
the features of the ``U - 1`` other units (``UNIT_FEATURES`` each) in a fixed order,
first ``i``'s own team (without ``i``) by index, then the other team by index, then
``i``'s own features (``OWN_FEATURES``). Another unit's features are all zero unless
both are alive and it is strictly within ``i``'s sight range; a dead unit observes
all zeros.

Unit features (13): health / max health; x and y offset from ``i`` divided by ``i``'s
sight range; the unit's last move as a unit vector (0, 0 for stop or attack); its last
attack: ``(k + 1) / number of its enemies`` for attacking enemy ``k``, else 0; weapon
cooldown / its type's cooldown, clipped to 1; unit type one-hot (6). With
``see_enemy_actions=False`` the move and attack entries of the other team are 0.

Own features (10): health / max health; x / width; y / height; weapon cooldown (as
above); unit type one-hot (6).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.smax import constants as C
from jaxmarl.environments.smax.dynamics import Rules
from jaxmarl.environments.smax.types import State

__all__ = [
    "OWN_FEATURES",
    "UNIT_FEATURES",
    "WORLD_FEATURES",
    "avail_actions",
    "observe",
    "others_table",
    "world_state",
]

UNIT_FEATURES: tuple[str, ...] = (
    "health",
    "rel_x",
    "rel_y",
    "last_move_x",
    "last_move_y",
    "last_attack",
    "weapon_cooldown",
    *(f"is_{n}" for n in C.UNIT_TYPE_NAMES),
)
OWN_FEATURES: tuple[str, ...] = (
    "health",
    "x",
    "y",
    "weapon_cooldown",
    *(f"is_{n}" for n in C.UNIT_TYPE_NAMES),
)
WORLD_FEATURES: tuple[str, ...] = (
    "health",
    "x",
    "y",
    "weapon_cooldown",
    "last_move_x",
    "last_move_y",
    "last_attack",
    *(f"is_{n}" for n in C.UNIT_TYPE_NAMES),
    "team",
    "alive",
)


def others_table(num_allies: int, num_enemies: int) -> np.ndarray:
    """``table[i]`` lists the other units in ``i``'s observation order, int32 ``(U, U - 1)``."""
    units = np.arange(num_allies + num_enemies)
    rows = []
    for i in units:
        own = units[:num_allies] if i < num_allies else units[num_allies:]
        other = units[num_allies:] if i < num_allies else units[:num_allies]
        rows.append(np.concatenate([own[own != i], other]))
    return np.asarray(rows, np.int32)


def _per_unit(state: State, rules: Rules) -> tuple[jax.Array, jax.Array, jax.Array, jax.Array, jax.Array]:
    """Observer-independent features: health, last move (U, 2), last attack, cooldown, one-hot (U, 6)."""
    unit_type = state.unit_type
    health = state.health / jnp.asarray(C.HEALTH)[unit_type]
    move = jnp.asarray(C.MOVE_VECTORS)[jnp.clip(state.last_action, 0, C.STOP)]
    k = state.last_action - C.NUM_MOVE_ACTIONS
    attack = jnp.where(k >= 0, (k + 1) / jnp.asarray(rules.num_targets, jnp.float32), 0.0)
    cooldown = jnp.minimum(state.cooldown / jnp.asarray(C.COOLDOWN)[unit_type], 1.0)
    one_hot = jax.nn.one_hot(unit_type, C.NUM_UNIT_TYPES, dtype=jnp.float32)
    return health, move, attack, cooldown, one_hot


def observe(
    state: State, observers: np.ndarray, others: np.ndarray, rules: Rules, see_enemy_actions: bool
) -> jax.Array:
    """Observations of the units ``observers`` (static int array, ``k`` of them), float32
    ``(k, (U - 1) * 13 + 10)``; ``others`` is :func:`others_table`."""
    health, move, attack, cooldown, one_hot = _per_unit(state, rules)
    seen = others[observers]  # (k, U - 1), static
    pos_i = state.pos[observers]
    sight = jnp.asarray(C.SIGHT_RANGE)[state.unit_type[observers]]
    rel = state.pos[seen] - pos_i[:, None, :]
    visible = (
        (jnp.sum(rel * rel, -1) < (sight**2)[:, None]) & state.alive[seen] & state.alive[observers][:, None]
    )
    action_feats = jnp.concatenate([move, attack[:, None]], -1)[seen]  # (k, U - 1, 3)
    if not see_enemy_actions:
        same_team = (seen < rules.num_allies) == (observers < rules.num_allies)[:, None]
        action_feats = action_feats * jnp.asarray(same_team, jnp.float32)[..., None]
    feats = jnp.concatenate(
        [
            health[seen][..., None],
            rel / sight[:, None, None],
            action_feats,
            cooldown[seen][..., None],
            one_hot[seen],
        ],
        axis=-1,
    )
    feats = feats * visible[..., None]
    high = jnp.array([rules.width, rules.height], jnp.float32)
    own = jnp.concatenate(
        [health[observers, None], pos_i / high, cooldown[observers, None], one_hot[observers]], axis=-1
    )
    own = own * state.alive[observers][:, None]
    return jnp.concatenate([feats.reshape(len(observers), -1), own], axis=-1)


def world_state(state: State, rules: Rules, max_steps: int) -> jax.Array:
    """The true world state for a centralised critic or mixer, float32
    ``(U * 15 + 1,)``: ``WORLD_FEATURES`` of every unit in index order (zeros for the
    dead, but for ``team``), then the fraction of the time limit elapsed."""
    health, move, attack, cooldown, one_hot = _per_unit(state, rules)
    high = jnp.array([rules.width, rules.height], jnp.float32)
    alive = state.alive.astype(jnp.float32)
    feats = (
        jnp.concatenate(
            [health[:, None], state.pos / high, cooldown[:, None], move, attack[:, None], one_hot], -1
        )
        * alive[:, None]
    )
    team = jnp.asarray(np.arange(rules.num_units) >= rules.num_allies, jnp.float32)
    feats = jnp.concatenate([feats, team[:, None], alive[:, None]], -1)
    return jnp.concatenate([feats.reshape(-1), (state.step / max_steps)[None].astype(jnp.float32)])


def avail_actions(state: State, rules: Rules) -> tuple[jax.Array, jax.Array]:
    """Action masks of allies, bool ``(num_allies, 5 + num_enemies)``, and of enemies,
    bool ``(num_enemies, 5 + num_allies)``. A living unit may move and stop, and attack
    a living enemy strictly within its attack range; a dead one may only stop."""
    na = rules.num_allies
    reach = jnp.asarray(C.ATTACK_RANGE)[state.unit_type]
    gap = state.pos[:na, None, :] - state.pos[None, na:, :]
    d2 = jnp.sum(gap * gap, -1)  # (na, ne)
    both = state.alive[:na, None] & state.alive[None, na:]
    ally_attack = both & (d2 < (reach[:na] ** 2)[:, None])
    enemy_attack = (both & (d2 < (reach[na:] ** 2)[None, :])).T

    def masks(alive: jax.Array, attack: jax.Array) -> jax.Array:
        moves = jnp.broadcast_to(alive[:, None], (alive.shape[0], C.STOP))
        stop = jnp.ones((alive.shape[0], 1), bool)
        return jnp.concatenate([moves, stop, attack], -1)

    return masks(state.alive[:na], ally_attack), masks(state.alive[na:], enemy_attack)
