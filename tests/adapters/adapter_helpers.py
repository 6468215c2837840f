"""Shared helpers of the adapter tests: a stub env whose agents leave at different
times, and environments built once per test session (so each compiles once)."""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
from flax import struct

import jaxmarl
from jaxmarl.environments.multi_agent_env import MultiAgentEnv
from jaxmarl.environments.spaces import Box, Discrete
from jaxmarl.registration import spec


@struct.dataclass
class LeaverState:
    step: jax.Array  # int32 ()
    last: jax.Array  # int32 (2,): the actions a and b last passed
    start: jax.Array  # float32 (): random offset drawn at reset
    weak: jax.Array  # float32 (): strong at reset, weakly typed after a step (as some envs do)


class LeaverEnv(MultiAgentEnv):
    """Agent ``b`` terminates after ``b_leaves`` steps, agent ``a`` (and the episode)
    after ``a_leaves``; or the time limit ``max_steps`` truncates the episode.

    Observation ``[step, last action of a, last action of b, start]``; rewards 1 for
    ``a`` and 2 for ``b``. Once ``b`` has left, its only legal action is 2.
    """

    def __init__(self, b_leaves: int = 2, a_leaves: int = 4, max_steps: int | None = None) -> None:
        super().__init__(num_agents=2)
        self.agents = ["a", "b"]
        self.b_leaves, self.a_leaves, self.max_steps = b_leaves, a_leaves, max_steps
        self.observation_spaces = {a: Box(-1e6, 1e6, (4,)) for a in self.agents}
        self.action_spaces = {a: Discrete(3) for a in self.agents}

    def reset_env(self, key: jax.Array) -> tuple[dict[str, jax.Array], LeaverState]:
        state = LeaverState(
            step=jnp.zeros((), jnp.int32),
            last=jnp.zeros(2, jnp.int32),
            start=jax.random.uniform(key),
            weak=jnp.float32(0.0),
        )
        return self.get_obs(state), state

    def step_env(self, key: jax.Array, state: LeaverState, actions: dict[str, jax.Array]) -> Any:
        step = state.step + 1
        last = jnp.stack([actions["a"], actions["b"]]).astype(jnp.int32)
        state = state.replace(step=step, last=last, weak=jnp.where(step > 0, 1.0, 0.0))
        done = {"a": step >= self.a_leaves, "b": step >= self.b_leaves}
        reward = {"a": jnp.float32(1.0), "b": jnp.float32(2.0)}
        return self.get_obs(state), state, reward, done, {}

    def get_obs(self, state: LeaverState) -> dict[str, jax.Array]:
        obs = jnp.stack([state.step.astype(jnp.float32), *state.last.astype(jnp.float32), state.start])
        return {a: obs for a in self.agents}

    def get_avail_actions(self, state: LeaverState) -> dict[str, jax.Array]:
        b_gone = state.step >= self.b_leaves
        return {"a": jnp.ones(3, bool), "b": jnp.where(b_gone, jnp.array([False, False, True]), True)}

    def render(self, state: LeaverState) -> jax.Array:
        return jnp.full((4, 6, 3), state.step, jnp.uint8)


def short_episodes(env_id: str) -> dict[str, Any]:
    """``make`` keywords that give ``env_id`` a time limit of 4 steps (none for Hanabi,
    whose games are finite but have no time limit, nor MultiCVRP, whose limit is fixed).

    MABrax also gets Brax's ``spring`` pipeline: the adapters never look at the
    physics, and it compiles in half the time of the default ``mjx`` (about 7 s
    instead of 15 s per task here), which keeps the five tasks within the budget.
    """
    entry = str(spec(env_id).entry_point)
    if ".mabrax" in entry:
        return {"episode_length": 4, "backend": "spring"}
    if ".coin_game" in entry or ".storm" in entry:
        return {"num_inner_steps": 4, "num_outer_steps": 1}
    if ".hanabi" in entry:
        return {}
    if ".jumanji.multi_cvrp" in entry:  # its limit is fixed: twice its (paper-sized) customers
        return {}
    if ".jumanji." in entry:
        return {"time_limit": 4}
    if ".nmmo" in entry:  # Neural MMO's Small map with a few agents
        return {"preset": "small", "num_agents": 4, "num_npcs": 4, "horizon": 4}
    if ".overcooked_v2" in entry:  # its default kitchen always starts alike (as JaxMARL's)
        return {"max_steps": 4, "random_agent_positions": True}
    return {"max_steps": 4}


@functools.cache
def make_once(env_id: str, **kwargs: Any) -> Any:
    """``jaxmarl.make``, one object per arguments for the whole session: the adapters'
    kernels compile once per environment object."""
    return jaxmarl.make(env_id, **kwargs)
