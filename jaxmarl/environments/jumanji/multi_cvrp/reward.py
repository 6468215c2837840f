"""Costs and rewards of MultiCVRP (Jumanji 1.1.2's ``reward.py`` and ``utils.py``).

A reward function is any callable ``reward_fn(state, new_state, is_done) -> float32 ()``
on :class:`~jaxmarl.environments.jumanji.multi_cvrp.types.State` (the state before and
after the step, and whether the episode ends there, by service or by the step limit);
the scalar goes to every agent. Two are provided, Jumanji's:

- :class:`DenseReward` (the default): every step, minus the distance the vehicles drove
  and minus the time penalties they incurred.
- :class:`SparseReward`: 0 until the episode ends, then minus the total distance and
  penalties of the episode.

Both replace their value on the step that reaches the step limit (``2 * num_customers``
steps) by :func:`worst_case_remaining_reward`, an estimate of what serving the customers
still waiting would cost.
"""

from __future__ import annotations

from typing import Protocol

import jax
import jax.numpy as jnp

from jaxmarl.environments.jumanji.multi_cvrp.constants import DEPOT, SPEED
from jaxmarl.environments.jumanji.multi_cvrp.types import State

__all__ = [
    "DenseReward",
    "RewardFn",
    "SparseReward",
    "distance",
    "step_limit_reached",
    "time_penalties",
    "worst_case_remaining_reward",
]


class RewardFn(Protocol):
    """What ``MultiCVRP(reward_fn=...)`` accepts (no base class needed)."""

    def __call__(self, state: State, new_state: State, is_done: jax.Array) -> jax.Array: ...


def distance(start: jax.Array, end: jax.Array) -> jax.Array:
    """Euclidean distances between ``(..., 2)`` points, float32 ``(...)``."""
    return jnp.linalg.norm(start - end, axis=-1)


def time_penalties(
    times: jax.Array, start: jax.Array, end: jax.Array, early: jax.Array, late: jax.Array
) -> jax.Array:
    """The penalty for arriving at ``times``: ``(start - t) * early`` when early, ``(t -
    end) * late`` when late, 0 inside the window (broadcasting)."""
    early_penalty = jnp.where(times < start, (start - times) * early, 0)
    late_penalty = jnp.where(times > end, (times - end) * late, 0)
    return early_penalty + late_penalty


def step_limit_reached(state: State) -> jax.Array:
    """Whether ``state`` is at the step limit, ``2 * num_customers`` steps, bool ``()``."""
    num_customers = state.demands.shape[-1] - 1
    return state.step >= 2 * num_customers


def worst_case_remaining_reward(state: State) -> jax.Array:
    """Jumanji's estimate of the cost still to pay, float32 ``()``: minus a round trip from
    the depot to every customer still waiting, and minus the penalties of arriving at all
    of them at the vehicles' mean local time plus that whole distance."""
    waiting = state.demands > 0
    round_trips = 2 * (distance(state.coordinates[DEPOT], state.coordinates) * waiting).sum()
    arrival = jnp.mean(state.local_times) + round_trips / SPEED
    penalty = time_penalties(
        arrival, state.window_start, state.window_end, state.early_coefs, state.late_coefs
    )
    return -round_trips - (penalty * waiting).sum()


class DenseReward:
    """Minus this step's driving distance and time penalties, summed over the vehicles;
    :func:`worst_case_remaining_reward` instead on the step that reaches the step limit."""

    def __call__(self, state: State, new_state: State, is_done: jax.Array) -> jax.Array:
        del is_done
        driven = state.distances.sum() - new_state.distances.sum()
        penalised = state.time_penalties.sum() - new_state.time_penalties.sum()
        return jnp.where(
            step_limit_reached(new_state), worst_case_remaining_reward(new_state), driven + penalised
        ).astype(jnp.float32)

    def __repr__(self) -> str:
        return "DenseReward()"


class SparseReward:
    """0 until the episode ends; then minus the episode's total distance and time
    penalties, or :func:`worst_case_remaining_reward` alone if it ends at the step limit."""

    def __call__(self, state: State, new_state: State, is_done: jax.Array) -> jax.Array:
        del state
        total = -new_state.distances.sum() - new_state.time_penalties.sum()
        final = jnp.where(step_limit_reached(new_state), worst_case_remaining_reward(new_state), total)
        return jnp.where(is_done, final, jnp.float32(0)).astype(jnp.float32)

    def __repr__(self) -> str:
        return "SparseReward()"
