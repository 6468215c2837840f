"""SMAX dynamics: one environment step as ``TICKS_PER_STEP`` world ticks.

Rules (JaxMARL paper, appendix B.1, made exact here). A step's actions arrive decoded:
a movement vector (length at most 1) and an attacked enemy (or none) per unit. Each
tick, for every unit at once:

1. Weapon cooldowns count down by one tick (``TICK_SECONDS``), to no less than 0.
2. **Attacks, simultaneous.** A living unit that attacks a living enemy within its
   attack range (centre to centre, at the start of the tick) and whose cooldown is 0
   hits it for its damage; hits on one unit add up. Its cooldown restarts at its type's
   cooldown plus uniform noise in ``[-1, 2]`` ticks (PySC2's randomness; optional), so a
   weapon with cooldown ``c`` fires every ``ceil(c / TICK_SECONDS)`` ticks (plus noise).
   Units whose health reaches 0 die, even if they fired this tick: both sides' last
   units can kill each other (a draw).
3. **Movement.** Living units move ``movement * speed * TICK_SECONDS``, clipped to the
   map. With ``walls_cause_death`` a unit whose move leaves it on the map's edge dies
   (JaxMARL's rule).
4. **Collisions.** Living units that overlap are pushed apart along the line between
   their centres, each by half the overlap (summed over the units it overlaps), which
   separates any pair exactly; positions are clipped to the map again.

Dead units stay in the arrays where they died, do nothing and are never targeted.
Everything is vectorised over units: pairwise terms are ``(U, U)`` arrays. Unit stats
come from a :class:`~jaxmarl.environments.smax.units.UnitTable` (JaxMARL's by default).
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.smax.types import State
from jaxmarl.environments.smax.units import DEFAULT_UNITS, UnitTable

__all__ = ["DEFAULT_UNITS", "Rules", "UnitTable", "battle_step", "battle_ticks", "push_apart"]


class Rules(NamedTuple):
    """Static rules of a battle (hashable; lives on the environment object).

    ``enemy_offset[i]`` is the index of unit ``i``'s first enemy and ``num_targets[i]``
    how many enemies it has, so attack action ``NUM_MOVE_ACTIONS + k`` targets unit
    ``enemy_offset[i] + k``.
    """

    num_allies: int
    num_enemies: int
    width: float
    height: float
    ticks: int
    tick_seconds: float
    walls_cause_death: bool
    cooldown_jitter: bool
    units: UnitTable = DEFAULT_UNITS

    @property
    def num_units(self) -> int:
        return self.num_allies + self.num_enemies

    @property
    def enemy_offset(self) -> np.ndarray:
        return np.where(np.arange(self.num_units) < self.num_allies, self.num_allies, 0).astype(np.int32)

    @property
    def num_targets(self) -> np.ndarray:
        return np.where(
            np.arange(self.num_units) < self.num_allies, self.num_enemies, self.num_allies
        ).astype(np.int32)


def push_apart(pos: jax.Array, alive: jax.Array, radius: jax.Array) -> jax.Array:
    """Push overlapping living units apart: float32 ``(U, 2)``.

    Unit ``i`` moves by ``sum_j (p_i - p_j) * max(r_i + r_j - d_ij, 0) / (2 d_ij)`` over
    living ``j != i``: each of an overlapping pair moves half the overlap away from the
    other. Dead units do not move and push nothing.
    """
    x, y = _push_xy(pos[:, 0], pos[:, 1], alive, radius)
    return jnp.stack([x, y], -1)


def _push_xy(x: jax.Array, y: jax.Array, alive: jax.Array, radius: jax.Array) -> tuple[jax.Array, jax.Array]:
    """:func:`push_apart` on coordinates kept apart (``(U,)`` each): the pairwise terms are
    ``(U, U)`` arrays whose minor axis is the unit axis, which vectorises well."""
    dx = x[:, None] - x[None, :]
    dy = y[:, None] - y[None, :]
    reach = radius[:, None] + radius[None, :]
    push = jnp.maximum(reach * jax.lax.rsqrt(dx * dx + dy * dy + 1e-12) - 1.0, 0.0)
    push = jnp.where(alive[:, None] & alive[None, :], 0.5 * push, 0.0)
    return (
        jnp.where(alive, x + jnp.sum(push * dx, axis=1), x),
        jnp.where(alive, y + jnp.sum(push * dy, axis=1), y),
    )


def battle_step(state: State, move: jax.Array, attack: jax.Array, jitter: jax.Array, rules: Rules) -> State:
    """Advance ``state`` by one environment step (``rules.ticks`` ticks).

    Args:
        state: the battle.
        move: each unit's movement, float32 ``(U, 2)``: a direction scaled by at most 1
            (a unit moves ``move * speed`` map units per second); zeros to stand still.
        attack: the enemy each unit attacks, int32 ``(U,)``: ``k`` for the unit's enemy
            ``k`` (its action ``5 + k``), -1 for none.
        jitter: uniform noise in ``[0, 1)`` for the cooldowns, float32 ``(ticks, U)``.
        rules: the static rules.

    Returns:
        The state after the step (``step`` not yet incremented; ``last_move`` and
        ``last_attack`` set from the actions, the dead's to none).
    """
    return _simulate(state, move, attack, jitter, rules, record=False)[0]


def battle_ticks(state: State, move: jax.Array, attack: jax.Array, jitter: jax.Array, rules: Rules) -> State:
    """:func:`battle_step`, returning the state after every tick instead (stacked on a
    leading ``(ticks,)`` axis; the last is :func:`battle_step`'s)."""
    ticks = _simulate(state, move, attack, jitter, rules, record=True)[1]
    assert ticks is not None
    return ticks


def _simulate(
    state: State, move: jax.Array, attack: jax.Array, jitter: jax.Array, rules: Rules, record: bool
) -> tuple[State, State | None]:
    dt = rules.tick_seconds
    units = rules.units
    unit_type = state.unit_type
    speed, damage = units.array("speed")[unit_type], units.array("damage")[unit_type]
    reach2 = units.array("attack_range")[unit_type] ** 2
    radius, base_cooldown = units.array("radius")[unit_type], units.array("cooldown")[unit_type]

    alive0 = state.alive
    move = jnp.where(alive0[:, None], move.astype(jnp.float32), 0.0)  # the dead do nothing
    attack = attack.astype(jnp.int32)
    attacking = alive0 & (attack >= 0) & (attack < jnp.asarray(rules.num_targets))
    attack = jnp.where(attacking, attack, -1)
    target = jnp.where(attacking, jnp.asarray(rules.enemy_offset) + attack, 0)
    step_x, step_y = move[:, 0] * speed * dt, move[:, 1] * speed * dt
    moving = (move[:, 0] != 0.0) | (move[:, 1] != 0.0)
    if rules.cooldown_jitter:
        restart = base_cooldown + (3.0 * jitter - 1.0) * dt  # (ticks, U): U(-1, 2) ticks
    else:
        restart = jnp.broadcast_to(base_cooldown, jitter.shape)

    # Hits land through a (U, U) one-hot "who aims at whom" matrix: a dense sum instead
    # of a scatter, which is slow on CPU.
    aims = ((target[:, None] == jnp.arange(target.shape[0])[None, :]) & attacking[:, None]).astype(
        jnp.float32
    )

    def tick(carry: tuple, restart_t: jax.Array) -> tuple[tuple, tuple | None]:
        x, y, health, alive, cooldown, last_attacked = carry
        cooldown = jnp.maximum(cooldown - dt, 0.0)
        gx, gy = x[target] - x, y[target] - y
        fire = attacking & alive & alive[target] & (gx * gx + gy * gy < reach2) & (cooldown <= 0.0)
        hits = jnp.sum(jnp.where(fire, damage, 0.0)[:, None] * aims, axis=0)
        health = jnp.maximum(health - hits, 0.0)
        cooldown = jnp.where(fire, restart_t, cooldown)
        last_attacked = jnp.where(fire, target, last_attacked)
        alive = health > 0.0
        walking = moving & alive
        x = jnp.clip(x + jnp.where(walking, step_x, 0.0), 0.0, rules.width)
        y = jnp.clip(y + jnp.where(walking, step_y, 0.0), 0.0, rules.height)
        if rules.walls_cause_death:
            on_edge = walking & ((x <= 0.0) | (x >= rules.width) | (y <= 0.0) | (y >= rules.height))
            health = jnp.where(on_edge, 0.0, health)
            alive = alive & ~on_edge
        x, y = _push_xy(x, y, alive, radius)
        x, y = jnp.clip(x, 0.0, rules.width), jnp.clip(y, 0.0, rules.height)
        out = (x, y, health, alive, cooldown, last_attacked)
        return out, (out if record else None)

    init = (
        state.pos[:, 0],
        state.pos[:, 1],
        state.health,
        state.alive,
        state.cooldown,
        jnp.full_like(state.last_attacked, -1),
    )
    final, per_tick = jax.lax.scan(tick, init, restart)

    def as_state(
        x: jax.Array,
        y: jax.Array,
        health: jax.Array,
        alive: jax.Array,
        cooldown: jax.Array,
        last_attacked: jax.Array,
    ) -> State:
        lead = x.shape[:-1]
        return state.replace(
            pos=jnp.stack([x, y], -1),
            health=health,
            alive=alive,
            unit_type=jnp.broadcast_to(state.unit_type, x.shape),
            cooldown=cooldown,
            last_move=jnp.broadcast_to(move, (*lead, *move.shape)),
            last_attack=jnp.broadcast_to(attack, x.shape),
            last_attacked=last_attacked,
            step=jnp.broadcast_to(state.step, lead),
        )

    return as_state(*final), (as_state(*per_tick) if per_tick is not None else None)
