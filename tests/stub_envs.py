"""Tiny environments with known behaviour, for testing the base class, wrappers and check_env."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import jax
import jax.numpy as jnp
from flax import struct

from jaxmarl.environments.multi_agent_env import MultiAgentEnv
from jaxmarl.environments.spaces import Box, Discrete


@struct.dataclass
class CounterState:
    count: jax.Array  # float32 (): a number that grows by the sum of the actions
    start: jax.Array  # float32 (): random offset drawn at reset
    step: jax.Array  # int32 ()


class CounterEnv(MultiAgentEnv):
    """Two agents add their actions (0 or 1) to a shared counter.

    Observation: ``[count, start]``; reward: each agent its own action; the episode
    terminates when the counter reaches ``goal`` and is truncated after ``max_steps``.
    """

    def __init__(self, max_steps: int | None = 5, goal: float = 1e9) -> None:
        super().__init__(num_agents=2)
        self.agents = ["a", "b"]
        self.max_steps = max_steps
        self.goal = goal
        self.observation_spaces = {a: Box(-1e10, 1e10, (2,)) for a in self.agents}
        self.action_spaces = {a: Discrete(2) for a in self.agents}

    def reset_env(self, key: jax.Array) -> tuple[dict[str, jax.Array], CounterState]:
        state = CounterState(
            count=jnp.float32(0.0), start=jax.random.uniform(key), step=jnp.zeros((), jnp.int32)
        )
        return self.get_obs(state), state

    def step_env(self, key: jax.Array, state: CounterState, actions: dict[str, jax.Array]) -> Any:
        total = sum(actions[a].astype(jnp.float32) for a in self.agents)
        state = state.replace(count=state.count + total, step=state.step + 1)
        reached = state.count >= self.goal
        reward = {a: actions[a].astype(jnp.float32) for a in self.agents}
        return self.get_obs(state), state, reward, {a: reached for a in self.agents}, {}

    def get_obs(self, state: CounterState) -> dict[str, jax.Array]:
        return {a: jnp.stack([state.count, state.start]) for a in self.agents}

    def render(self, state: CounterState) -> jax.Array:
        del state
        return jnp.zeros((4, 4, 3), jnp.uint8)


class ScoringCounterEnv(CounterEnv):
    """``CounterEnv`` reporting two episode metrics: ``hits`` (how many steps agent
    ``a`` played 1, summed) and ``count`` (the counter on the last step)."""

    episode_metrics: ClassVar[Mapping[str, str]] = {"hits": "sum", "count": "last"}

    def step_env(self, key: jax.Array, state: CounterState, actions: dict[str, jax.Array]) -> Any:
        obs, state, reward, terminated, info = super().step_env(key, state, actions)
        info["metrics"] = {"hits": actions["a"].astype(jnp.float32), "count": state.count}
        return obs, state, reward, terminated, info


def ones(env: MultiAgentEnv) -> dict[str, jax.Array]:
    """Every agent plays action 1."""
    return {a: jnp.int32(1) for a in env.agents}
