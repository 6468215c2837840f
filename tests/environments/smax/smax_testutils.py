"""Shared helpers of the SMAX tests: hand-built battles and batched heuristic battles."""

from __future__ import annotations

from collections.abc import Sequence

import jax
import jax.numpy as jnp

from jaxmarl.environments.smax import SMAX, State, heuristic_actions, heuristic_init


def battle(
    env: SMAX,
    pos: Sequence[Sequence[float]],
    health: Sequence[float] | None = None,
    cooldown: Sequence[float] | None = None,
) -> State:
    """A battle of ``env``'s scenario with units at ``pos`` (allies first), full health
    unless ``health`` says otherwise (0 = dead), weapons ready unless ``cooldown``."""
    state = env.new_battle(jax.random.PRNGKey(0))
    full = env.units.array("health")[state.unit_type]
    h = full if health is None else jnp.asarray(health, jnp.float32)
    return state.replace(
        pos=jnp.asarray(pos, jnp.float32),
        health=h,
        alive=h > 0,
        cooldown=jnp.zeros_like(state.cooldown) if cooldown is None else jnp.asarray(cooldown, jnp.float32),
    )


def heuristic_outcomes(env: SMAX, key: jax.Array, num_envs: int, num_steps: int) -> jax.Array:
    """Heuristic (team 0) against heuristic (team 1) in ``num_envs`` battles side by side
    for ``num_steps`` steps each, a new battle starting as soon as one ends.

    Returns int32 ``(3,)``: battles won by team 0, won by team 1, and ended without a
    winner (draws and time limits). Battles still running at the end are not counted."""
    na = env.num_allies

    def fresh(key: jax.Array) -> tuple:
        b = env.new_battle(key)
        w, h = env.map_width, env.map_height
        return b, heuristic_init(b.pos[:na], w, h), heuristic_init(b.pos[na:], w, h)

    def one(key: jax.Array) -> jax.Array:
        key, key_reset = jax.random.split(key)

        def body(carry: tuple, key: jax.Array) -> tuple:
            (b, m0, m1), counts = carry
            key_step, key_new = jax.random.split(key)
            a0, m0 = heuristic_actions(m0, b, 0, env.rules)
            a1, m1 = heuristic_actions(m1, b, 1, env.rules)
            move, attack = env.decode_actions(key_step, b, jnp.concatenate([a0, a1]))
            b, _, over, won = env.battle_transition(key_step, b, move, attack)
            end = over | (b.step >= env.max_steps)
            counts = counts + end * jnp.stack([won[0], won[1], ~won[0] & ~won[1]]).astype(jnp.int32)
            new = fresh(key_new)
            games = jax.tree.map(lambda n, o: jnp.where(end, n, o), new, (b, m0, m1))
            return (games, counts), None

        init = (fresh(key_reset), jnp.zeros(3, jnp.int32))
        (_, counts), _ = jax.lax.scan(body, init, jax.random.split(key, num_steps))
        return counts

    return jnp.sum(jax.vmap(one)(jax.random.split(key, num_envs)), axis=0)
