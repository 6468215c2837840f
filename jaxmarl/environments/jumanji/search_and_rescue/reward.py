"""Rewards for finding targets (Jumanji's ``IndividualRewardFn``).

A reward function is any callable ``(found, step, time_limit) -> rewards`` taking bool
``found[searcher, target]`` (the searcher newly found the target this step), the step
count *before* the step and the time limit, and returning float32 ``(num_searchers,)``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

__all__ = ["IndividualRewardFn"]


class IndividualRewardFn:
    """Each searcher earns 1 per target it newly finds.

    Args:
        split_rewards: when several searchers find one target in the same step, they
            share its 1 equally (otherwise each gets 1).
        scale_rewards: multiply rewards by ``(time_limit - step) / time_limit`` (``step``
            counted before the step), from 1 on the first step down to ``1 /
            time_limit`` on the last.
    """

    def __init__(self, split_rewards: bool = True, scale_rewards: bool = True) -> None:
        for name, value in (("split_rewards", split_rewards), ("scale_rewards", scale_rewards)):
            if not isinstance(value, bool):
                raise ValueError(f"SearchAndRescue: IndividualRewardFn {name} must be a bool, got {value!r}")
        self.split_rewards = split_rewards
        self.scale_rewards = scale_rewards

    def __repr__(self) -> str:
        return f"IndividualRewardFn(split_rewards={self.split_rewards}, scale_rewards={self.scale_rewards})"

    def __call__(self, found: jax.Array, step: jax.Array, time_limit: int) -> jax.Array:
        rewards = found.astype(jnp.float32)
        if self.split_rewards:
            finders = jnp.sum(rewards, axis=0, keepdims=True)
            rewards = jnp.where(finders > 0, rewards / finders, rewards)
        rewards = jnp.sum(rewards, axis=1)
        if self.scale_rewards:
            rewards = (time_limit - step) / time_limit * rewards
        return rewards
