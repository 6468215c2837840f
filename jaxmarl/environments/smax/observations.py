"""SMAX observations, world state and action masks.

**Unit list** (``observation_type="unit_list"``, SMAC's). Observation of unit ``i``
(float32, every entry in ``[-1, 1]``): the features of the ``U - 1`` other units
(``unit_features`` each) in a fixed order, first ``i``'s own team (without ``i``) by
index, then the other team by index, then ``i``'s own features (``own_features``).
Another unit's features are all zero unless both are alive and it is strictly within
``i``'s sight range; a dead unit observes all zeros.

**Conic** (``observation_type="conic"``, JaxMARL's). The circle of ``i``'s sight is cut
into ``NUM_SECTIONS`` (32) equal angular sections, the first starting due west (angle
``-pi``) and going anticlockwise; each section shows the ``MAX_UNITS_PER_SECTION`` (2)
living units of lowest index that lie in it strictly within sight (unit features as
above, team not said), zeros in the empty slots; then ``i``'s own features. A dead unit
observes all zeros.

Unit features (7 + number of unit types, 13 by default): health / max health; x and y
offset from ``i`` divided by ``i``'s sight range; the unit's last move (a direction
scaled by at most 1; 0, 0 for stop or attack); its last attack: ``(k + 1) / number of
its enemies`` for attacking enemy ``k``, else 0; weapon cooldown / its type's cooldown,
clipped to 1; unit type one-hot. With ``see_enemy_actions=False`` the move and attack
entries of the other team are 0.

Own features (4 + number of unit types): health / max health; x / width; y / height;
weapon cooldown (as above); unit type one-hot.
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
    "observe_conic",
    "others_table",
    "own_features",
    "unit_features",
    "world_features",
    "world_state",
]


def unit_features(type_names: tuple[str, ...] = C.UNIT_TYPE_NAMES) -> tuple[str, ...]:
    """Names of the features of another unit in an observation."""
    moves = ("last_move_x", "last_move_y", "last_attack", "weapon_cooldown")
    return ("health", "rel_x", "rel_y", *moves, *(f"is_{n}" for n in type_names))


def own_features(type_names: tuple[str, ...] = C.UNIT_TYPE_NAMES) -> tuple[str, ...]:
    """Names of a unit's own features at the end of its observation."""
    return ("health", "x", "y", "weapon_cooldown", *(f"is_{n}" for n in type_names))


def world_features(type_names: tuple[str, ...] = C.UNIT_TYPE_NAMES) -> tuple[str, ...]:
    """Names of a unit's features in the world state."""
    moves = ("last_move_x", "last_move_y", "last_attack")
    return ("health", "x", "y", "weapon_cooldown", *moves, *(f"is_{n}" for n in type_names), "team", "alive")


UNIT_FEATURES = unit_features()
OWN_FEATURES = own_features()
WORLD_FEATURES = world_features()


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
    """Observer-independent features: health, last move (U, 2), last attack, cooldown,
    one-hot (U, number of unit types)."""
    unit_type, units = state.unit_type, rules.units
    health = state.health / units.array("health")[unit_type]
    k = state.last_attack
    attack = jnp.where(k >= 0, (k + 1) / jnp.asarray(rules.num_targets, jnp.float32), 0.0)
    cooldown = jnp.minimum(state.cooldown / units.array("cooldown")[unit_type], 1.0)
    one_hot = jax.nn.one_hot(unit_type, units.num_types, dtype=jnp.float32)
    return health, state.last_move, attack, cooldown, one_hot


def _unit_blocks(
    state: State, observers: np.ndarray, seen: jax.Array | np.ndarray, rules: Rules, see_enemy_actions: bool
) -> tuple[jax.Array, jax.Array]:
    """Features of the units ``seen`` (int ``(k, m)``) as the ``observers`` (``k``) see them,
    float32 ``(k, m, nf)``, and whether each is visible (both alive, strictly within the
    observer's sight), bool ``(k, m)``."""
    health, move, attack, cooldown, one_hot = _per_unit(state, rules)
    pos_i = state.pos[observers]
    sight = rules.units.array("sight_range")[state.unit_type[observers]]
    rel = state.pos[seen] - pos_i[:, None, :]
    visible = (
        (jnp.sum(rel * rel, -1) < (sight**2)[:, None]) & state.alive[seen] & state.alive[observers][:, None]
    )
    action_feats = jnp.concatenate([move, attack[:, None]], -1)[seen]  # (k, m, 3)
    if not see_enemy_actions:
        same_team = (seen < rules.num_allies) == (jnp.asarray(observers) < rules.num_allies)[:, None]
        action_feats = action_feats * same_team[..., None].astype(jnp.float32)
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
    return feats, visible


def _own_block(state: State, observers: np.ndarray, rules: Rules) -> jax.Array:
    """The observers' own features, float32 ``(k, 4 + number of unit types)``; zeros if dead."""
    health, _, _, cooldown, one_hot = _per_unit(state, rules)
    high = jnp.array([rules.width, rules.height], jnp.float32)
    own = jnp.concatenate(
        [health[observers, None], state.pos[observers] / high, cooldown[observers, None], one_hot[observers]],
        axis=-1,
    )
    return own * state.alive[observers][:, None]


def observe(
    state: State, observers: np.ndarray, others: np.ndarray, rules: Rules, see_enemy_actions: bool
) -> jax.Array:
    """Unit-list observations of the units ``observers`` (static int array, ``k`` of them),
    float32 ``(k, (U - 1) * nf + no)``; ``others`` is :func:`others_table`."""
    feats, visible = _unit_blocks(state, observers, others[observers], rules, see_enemy_actions)
    feats = feats * visible[..., None]
    own = _own_block(state, observers, rules)
    return jnp.concatenate([feats.reshape(len(observers), -1), own], axis=-1)


def observe_conic(state: State, observers: np.ndarray, rules: Rules, see_enemy_actions: bool) -> jax.Array:
    """Conic observations of the units ``observers`` (static int array, ``k`` of them),
    float32 ``(k, NUM_SECTIONS * MAX_UNITS_PER_SECTION * nf + no)``."""
    u = rules.num_units
    everyone = np.broadcast_to(np.arange(u), (len(observers), u))
    feats, visible = _unit_blocks(state, observers, everyone, rules, see_enemy_actions)  # (k, U, nf)
    visible = visible & (everyone != np.asarray(observers)[:, None])
    rel = feats[..., 1:3]  # offsets / sight; the angle is all that matters
    angle = jnp.arctan2(rel[..., 1], rel[..., 0])  # (-pi, pi]
    section = jnp.floor((angle + jnp.pi) * (C.NUM_SECTIONS / (2 * jnp.pi))).astype(jnp.int32)
    section = jnp.clip(section, 0, C.NUM_SECTIONS - 1)
    in_section = (section[..., None] == jnp.arange(C.NUM_SECTIONS)) & visible[..., None]  # (k, U, S)
    rank = jnp.cumsum(in_section, axis=1) - 1  # units of lower index in the same section
    slots = C.NUM_SECTIONS * C.MAX_UNITS_PER_SECTION
    slot = jnp.where(
        in_section & (rank < C.MAX_UNITS_PER_SECTION),
        jnp.arange(C.NUM_SECTIONS) * C.MAX_UNITS_PER_SECTION + rank,
        slots,
    )
    slot = jnp.min(slot, axis=-1)  # (k, U): its slot, or `slots` if not shown
    placed = (slot[..., None] == jnp.arange(slots)).astype(jnp.float32)  # (k, U, slots)
    blocks = jnp.einsum("kus,kuf->ksf", placed, feats)
    own = _own_block(state, observers, rules)
    return jnp.concatenate([blocks.reshape(len(observers), -1), own], axis=-1)


def world_state(state: State, rules: Rules, max_steps: int) -> jax.Array:
    """The true world state for a centralised critic or mixer, float32
    ``(U * (9 + number of unit types) + 1,)``: ``world_features`` of every unit in index
    order (zeros for the dead, but for ``team``), then the fraction of the time limit
    elapsed."""
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
    reach = rules.units.array("attack_range")[state.unit_type]
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
