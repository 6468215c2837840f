"""Shared helpers of the STORM rule tests: cached, jitted environments and hand-drawn states.

Every configuration is built and jitted once per session (``get(**kwargs)``). States
are drawn as ASCII pictures, one character per cell, row 0 on top (spaces ignored):

    ``.`` empty, ``c`` cooperate coin, ``d`` defect coin, ``0``-``9`` agents.

Facings are given as a string, one letter per agent in agent order (``N``, ``E``,
``S``, ``W``). Expected values are worked out by hand in the tests, never by calling
the code under test.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from fast_compile import jit

import jaxmarl
from jaxmarl.environments.storm import State
from jaxmarl.environments.storm import constants as C

KEY = jax.random.PRNGKey(0)
DIRS = {"N": C.NORTH, "E": C.EAST, "S": C.SOUTH, "W": C.WEST}
LEFT, RIGHT, FORWARD, INTERACT, STAY = C.TURN_LEFT, C.TURN_RIGHT, C.FORWARD, C.INTERACT, C.STAY


@dataclass(frozen=True)
class Env:
    """An environment and its jitted functions (``many_*``: vmapped over keys)."""

    env: Any
    step_env: Any
    step: Any
    reset: Any
    get_obs: Any
    many_step_env: Any
    many_reset: Any


@functools.cache
def get(env_id: str = "storm_np", **kwargs: Any) -> Env:
    """Build ``jaxmarl.make(env_id, **kwargs)`` once per session, with jitted functions."""
    env = jaxmarl.make(env_id, **kwargs)
    return Env(
        env=env,
        step_env=jit(env.step_env),
        step=jit(env.step),
        reset=jit(env.reset),
        get_obs=jit(env.get_obs),
        many_step_env=jit(jax.vmap(env.step_env, in_axes=(0, None, None))),
        many_reset=jit(jax.vmap(env.reset)),
    )


def parse(picture: str) -> list[str]:
    return [row.replace(" ", "") for row in picture.strip().splitlines()]


def state(
    env: Any,
    picture: str,
    dirs: str,
    inventory: Any = None,
    freeze: Any = None,
    partner: Any = None,
    layout: str | None = None,
    beam: str | None = None,
    step: int = 0,
) -> State:
    """A hand-built state from an ASCII picture (see the module docstring).

    ``layout`` (same alphabet, agents ignored) is where coins regrow; by default the
    coins of the picture. ``beam`` marks beam cells with ``*``.
    """
    rows = parse(picture)
    g = env.grid_size
    assert len(rows) == g and all(len(r) == g for r in rows), rows
    n = env.num_agents
    pos = np.full((n, 2), -1, np.int32)
    coins = np.zeros((g, g), np.int32)
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            if ch.isdigit():
                pos[int(ch)] = (r, c)
            elif ch in "cd":
                coins[r, c] = C.COOPERATE_COIN if ch == "c" else C.DEFECT_COIN
            else:
                assert ch == ".", ch
    assert (pos >= 0).all(), f"every agent must be in the picture: {pos}"
    assert len(dirs) == n
    if layout is None:
        coin_layout = coins
    else:
        coin_layout = np.zeros((g, g), np.int32)
        for r, row in enumerate(parse(layout)):
            for c, ch in enumerate(row):
                coin_layout[r, c] = {"c": C.COOPERATE_COIN, "d": C.DEFECT_COIN}.get(ch, 0)
    beam_grid = np.zeros((g, g), bool)
    if beam is not None:
        beam_grid = np.array([[ch == "*" for ch in row] for row in parse(beam)])
    return State(
        pos=jnp.asarray(pos),
        dir=jnp.asarray([DIRS[d] for d in dirs], jnp.int32),
        inventory=jnp.asarray(np.zeros((n, 2)) if inventory is None else inventory, jnp.int32),
        freeze=jnp.asarray(np.zeros(n) if freeze is None else freeze, jnp.int32),
        partner=jnp.asarray(np.full(n, -1) if partner is None else partner, jnp.int32),
        coins=jnp.asarray(coins),
        coin_layout=jnp.asarray(coin_layout),
        beam=jnp.asarray(beam_grid),
        step=jnp.int32(step),
    )


def picture_of(s: State, env: Any, agent_index: int | None = None) -> str:
    """The ASCII picture of a state (for readable assertion messages)."""
    g = env.grid_size
    rows = [["." for _ in range(g)] for _ in range(g)]
    coins = np.asarray(s.coins)
    for r in range(g):
        for c in range(g):
            rows[r][c] = {C.COOPERATE_COIN: "c", C.DEFECT_COIN: "d"}.get(int(coins[r, c]), ".")
    for i, (r, c) in enumerate(np.asarray(s.pos)):
        rows[r][c] = str(i)
    return "\n".join("".join(row) for row in rows)


def actions(env: Any, *acts: int) -> dict[str, jax.Array]:
    """Actions in agent order (missing agents stay)."""
    acts = acts + (STAY,) * (env.num_agents - len(acts))
    return {a: jnp.int32(x) for a, x in zip(env.agents, acts, strict=True)}


def rewards(reward: dict[str, jax.Array], env: Any) -> np.ndarray:
    return np.array([float(reward[a]) for a in env.agents])


def keys(n: int, seed: int = 0) -> jax.Array:
    return jax.random.split(jax.random.PRNGKey(seed), n)


# Batched calls always use MANY keys, so each configuration compiles them once.
MANY = 2000


def many_steps(handle: Env, s: State, acts: dict[str, jax.Array], seed: int = 0) -> tuple:
    """``step_env`` from one state with MANY different keys (outputs batched)."""
    return handle.many_step_env(keys(MANY, seed), s, acts)


def many_resets(handle: Env, seed: int = 0) -> tuple:
    """``reset`` with MANY different keys (outputs batched)."""
    return handle.many_reset(keys(MANY, seed))


# Default configurations shared by the rule tests.
TWO = get("storm_2p")
FOUR = get("storm_np", num_agents=4)
