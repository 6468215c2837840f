"""Shared helpers of the MPE rule tests: cached, jitted environments and hand-built states.

Every environment configuration is built and jitted once per test session
(``get(env_id, **kwargs)``), so the rule tests only pay for compilation once.
Expected values in the tests are computed by hand (in float64 NumPy), never by
calling the code under test.
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
from jaxmarl.environments.mpe import State

DT = 0.1
DAMPING = 0.25
KEY = jax.random.PRNGKey(0)


@dataclass(frozen=True)
class Env:
    """An environment and its jitted functions."""

    env: Any
    step_env: Any
    step: Any
    get_obs: Any
    rewards: Any
    reset: Any
    scripted_forces: Any


@functools.cache
def get(env_id: str, **kwargs: Any) -> Env:
    """Build ``jaxmarl.make(env_id, **kwargs)`` once per session, with jitted functions."""
    env = jaxmarl.make(env_id, **kwargs)
    return Env(
        env=env,
        step_env=jit(env.step_env),
        step=jit(env.step),
        get_obs=jit(env.get_obs),
        rewards=jit(env.rewards),
        reset=jit(jax.vmap(env.reset_env)),
        scripted_forces=jit(env.scripted_forces),
    )


def state(
    env: Any,
    pos: Any,
    vel: Any = None,
    c: Any = None,
    goal: Any = (),
    step: int = 0,
) -> State:
    """A hand-built state: entities are the agents (``env.agents`` order, then scripted
    agents) followed by the landmarks."""
    pos = jnp.asarray(pos, jnp.float32)
    assert pos.shape == (env.num_entities, 2), (pos.shape, env.num_entities)
    vel = jnp.zeros_like(pos) if vel is None else jnp.asarray(vel, jnp.float32)
    assert vel.shape == pos.shape
    c = jnp.zeros((env.num_world_agents, env.dim_c)) if c is None else jnp.asarray(c, jnp.float32)
    assert c.shape == (env.num_world_agents, env.dim_c)
    return State(
        p_pos=pos,
        p_vel=vel,
        c=c,
        step=jnp.int32(step),
        goal=jnp.asarray(goal, jnp.int32).reshape(-1),
    )


def discrete(env: Any, **acts: int) -> dict[str, jax.Array]:
    """Discrete actions keyed by agent (unnamed agents: 0)."""
    return {a: jnp.int32(acts.get(a, 0)) for a in env.agents}


def continuous(env: Any, **acts: Any) -> dict[str, jax.Array]:
    """Continuous actions keyed by agent (unnamed agents: all zeros)."""
    out = {}
    for a in env.agents:
        shape = env.action_spaces[a].shape
        out[a] = jnp.asarray(acts[a], jnp.float32) if a in acts else jnp.zeros(shape, jnp.float32)
        assert out[a].shape == shape, (a, out[a].shape, shape)
    return out


def close(actual: Any, expected: Any, rtol: float = 2e-6, atol: float = 1e-6) -> None:
    np.testing.assert_allclose(np.asarray(actual), np.asarray(expected, np.float64), rtol=rtol, atol=atol)


def norm(v: Any) -> float:
    return float(np.linalg.norm(np.asarray(v, np.float64)))


def bound(x: float) -> float:
    """simple_tag's arena penalty for one coordinate, written out by hand."""
    x = abs(x)
    if x < 0.9:
        return 0.0
    if x < 1.0:
        return (x - 0.9) * 10.0
    return min(float(np.exp(2.0 * x - 2.0)), 10.0)


def contact(p_i: Any, p_j: Any, r_i: float, r_j: float) -> np.ndarray:
    """The soft contact force on i from j, written out by hand in float64."""
    delta = np.asarray(p_i, np.float64) - np.asarray(p_j, np.float64)
    d = np.linalg.norm(delta)
    penetration = np.logaddexp(0.0, -(d - (r_i + r_j)) / 1e-3) * 1e-3
    return 100.0 * delta / d * penetration


# Default configurations shared by the rule tests (built and jitted once per session).
SIMPLE = get("MPE_simple_v3")
SPREAD = get("MPE_simple_spread_v3")
TAG = get("MPE_simple_tag_v3")
TAG_2V2 = get("MPE_simple_tag_v3", num_good_agents=2, num_adversaries=2, num_obs=1)
WORLD = get("MPE_simple_world_comm_v3")
ADVERSARY = get("MPE_simple_adversary_v3")
PUSH = get("MPE_simple_push_v3")
REFERENCE = get("MPE_simple_reference_v3")
SPEAKER = get("MPE_simple_speaker_listener_v4")
CRYPTO = get("MPE_simple_crypto_v3")
