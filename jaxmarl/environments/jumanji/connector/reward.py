"""Connector's reward functions: Jumanji's four, with its names and keywords.

A reward function is a callable ``reward_fn(state, actions, next_state) -> rewards``: the
state before the step, the joint action int32 ``(N,)``, the state after it, and float32
``(N,)`` rewards, one per agent. Pass one to ``Connector(reward_fn=...)``; any callable of
that form works (no base class needed).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxmarl.environments.jumanji.connector import constants as C
from jaxmarl.environments.jumanji.connector.types import State

__all__ = ["DenseRewardFn", "SharedDenseRewardFn", "SharedSparseRewardFn", "SparseRewardFn"]


def _connected_now(state: State, next_state: State) -> jax.Array:
    """float32 ``(N,)``: 1 for each wire that connects in this step."""
    return (~state.connected & next_state.connected).astype(jnp.float32)


class DenseRewardFn:
    """Per agent: ``connected_reward`` when its wire connects in this step, plus
    ``timestep_reward`` on every step that starts with its wire unconnected (Jumanji's
    default: 1.0 and -0.03). A blocked wire keeps paying ``timestep_reward`` until the
    episode ends.

    Args:
        connected_reward: reward for connecting.
        timestep_reward: reward per step before connecting (a penalty when negative).
    """

    def __init__(
        self, connected_reward: float = C.CONNECTED_REWARD, timestep_reward: float = C.TIMESTEP_REWARD
    ) -> None:
        self.connected_reward = float(connected_reward)
        self.timestep_reward = float(timestep_reward)

    def __call__(self, state: State, actions: jax.Array, next_state: State) -> jax.Array:
        del actions
        waiting = (~state.connected).astype(jnp.float32)
        return self.connected_reward * _connected_now(state, next_state) + self.timestep_reward * waiting


class SharedDenseRewardFn(DenseRewardFn):
    """:class:`DenseRewardFn` summed over the agents, the sum given to every agent."""

    def __call__(self, state: State, actions: jax.Array, next_state: State) -> jax.Array:
        reward = super().__call__(state, actions, next_state)
        return jnp.broadcast_to(jnp.sum(reward), reward.shape)


class SparseRewardFn:
    """Per agent: 1 when its wire connects in this step, else 0."""

    def __call__(self, state: State, actions: jax.Array, next_state: State) -> jax.Array:
        del actions
        return _connected_now(state, next_state)


class SharedSparseRewardFn(SparseRewardFn):
    """The number of wires connecting in this step, given to every agent."""

    def __call__(self, state: State, actions: jax.Array, next_state: State) -> jax.Array:
        reward = super().__call__(state, actions, next_state)
        return jnp.broadcast_to(jnp.sum(reward), reward.shape)
