"""SMAX dynamics: one environment step as ``TICKS_PER_STEP`` world ticks.

Rules (JaxMARL paper, appendix B.1, made exact here). Each tick, for every unit at once:

1. Weapon cooldowns count down by one tick (``TICK_SECONDS``), to no less than 0.
2. **Attacks, simultaneous.** A living unit whose action attacks a living enemy within
   its attack range (centre to centre, at the start of the tick) and whose cooldown is 0
   hits it for its damage; hits on one unit add up. Its cooldown restarts at its type's
   cooldown plus uniform noise in ``[-1, 2]`` ticks (PySC2's randomness; optional).
   Units whose health reaches 0 die, even if they fired this tick: both sides' last
   units can kill each other (a draw).
3. **Movement.** Living units with a move action move ``speed * TICK_SECONDS`` in that
   direction, clipped to the map. With ``walls_cause_death`` a unit whose move leaves it
   on the map's edge dies (JaxMARL's rule).
4. **Collisions.** Living units that overlap are pushed apart along the line between
   their centres, each by half the overlap (summed over the units it overlaps), which
   separates any pair exactly; positions are clipped to the map again.

Dead units stay in the arrays where they died, do nothing and are never targeted.
Everything is vectorised over units: pairwise terms are ``(U, U)`` arrays.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.smax import constants as C
from jaxmarl.environments.smax.types import State

__all__ = ["Rules", "battle_step", "push_apart"]


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


def battle_step(state: State, actions: jax.Array, jitter: jax.Array, rules: Rules) -> State:
    """Advance ``state`` by one environment step (``rules.ticks`` ticks).

    Args:
        state: the battle.
        actions: one action per unit, int32 ``(U,)``: 0-3 move north, east, south,
            west; 4 stop; ``4 + k + 1`` attack enemy ``k``.
        jitter: uniform noise in ``[0, 1)`` for the cooldowns, float32 ``(ticks, U)``.
        rules: the static rules.

    Returns:
        The state after the step (``step`` not yet incremented, ``last_action`` set).
    """
    dt = rules.tick_seconds
    unit_type = state.unit_type
    speed, damage = jnp.asarray(C.SPEED)[unit_type], jnp.asarray(C.DAMAGE)[unit_type]
    reach2 = jnp.asarray(C.ATTACK_RANGE)[unit_type] ** 2
    radius, base_cooldown = jnp.asarray(C.RADIUS)[unit_type], jnp.asarray(C.COOLDOWN)[unit_type]

    actions = jnp.where(state.alive, actions.astype(jnp.int32), C.STOP)  # the dead do nothing
    k = actions - C.NUM_MOVE_ACTIONS
    attacking = (k >= 0) & (k < jnp.asarray(rules.num_targets))
    target = jnp.where(attacking, jnp.asarray(rules.enemy_offset) + k, 0)
    step_vec = jnp.asarray(C.MOVE_VECTORS)[jnp.clip(actions, 0, C.STOP)] * (speed * dt)[:, None]
    moving = actions < C.STOP
    if rules.cooldown_jitter:
        restart = base_cooldown + (3.0 * jitter - 1.0) * dt  # (ticks, U): U(-1, 2) ticks
    else:
        restart = jnp.broadcast_to(base_cooldown, jitter.shape)

    # Hits land through a (U, U) one-hot "who aims at whom" matrix: a dense sum instead
    # of a scatter, which is slow on CPU.
    aims = ((target[:, None] == jnp.arange(target.shape[0])[None, :]) & attacking[:, None]).astype(
        jnp.float32
    )
    step_x, step_y = step_vec[:, 0], step_vec[:, 1]

    def tick(carry: tuple, restart_t: jax.Array) -> tuple[tuple, None]:
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
        return (x, y, health, alive, cooldown, last_attacked), None

    init = (
        state.pos[:, 0],
        state.pos[:, 1],
        state.health,
        state.alive,
        state.cooldown,
        jnp.full_like(state.last_attacked, -1),
    )
    (x, y, health, alive, cooldown, last_attacked), _ = jax.lax.scan(tick, init, restart)
    pos = jnp.stack([x, y], -1)
    return state.replace(
        pos=pos,
        health=health,
        alive=alive,
        cooldown=cooldown,
        last_action=actions,
        last_attacked=last_attacked,
    )
