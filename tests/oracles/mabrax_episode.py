"""One MABrax episode of robot actions, for both sides of ``test_mabrax_oracle.py``: our
test and JaxMARL 0.2.0's worker (``mabrax_oracle.py``, which imports this module from
its own folder, in the oracle's interpreter) play exactly the same loop."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp


def play(
    env: Any, observe: Callable[[Any], jax.Array], key: jax.Array, actions: jax.Array
) -> tuple[jax.Array, jax.Array, jax.Array, jax.Array]:
    """``reset(k0)`` then one ``step(k_t, state, ...)`` per row of ``actions`` (robot action
    vectors, ``(T, num_actuators)``, each agent given its entries of
    ``env.agent_action_mapping``), keys split from ``key``. Returns the robot state
    ``observe(state)`` at the start ``(D,)`` and after each step ``(T, D)``, and each
    step's shared reward and ``done["__all__"]`` ``(T,)``."""
    mapping = {a: jnp.asarray(idx) for a, idx in env.agent_action_mapping.items()}
    key_reset, key_run = jax.random.split(key)
    _, state = env.reset(key_reset)

    def body(state: Any, xs: tuple) -> tuple[Any, tuple]:
        key, act = xs
        _, state, reward, done, _ = env.step(key, state, {a: act[idx] for a, idx in mapping.items()})
        return state, (observe(state), reward[env.agents[0]], done["__all__"])

    steps = jax.random.split(key_run, actions.shape[0])
    _, (obs, reward, done) = jax.lax.scan(body, state, (steps, actions))
    return observe(state), obs, reward, done
