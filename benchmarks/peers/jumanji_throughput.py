"""Worker: Jumanji 1.1.2's multi-agent tasks measured exactly as ``env_throughput.py``
measures ours.

A benchmark id is one of Jumanji's ids (ours are the same: ``RobotWarehouse-v0``,
``Connector-v3``, ``Cleaner-v0``, ``MMST-v0``, ``MultiCVRP-v0``, ``LevelBasedForaging-v0``,
``SearchAndRescue-v0``), optionally with ``:KEY=VALUE,...`` for keywords of Jumanji's
environment constructor (``time_limit=...``); generator keywords are ours only, so ids
with them are not offered here.

Jumanji steps one joint action and does not reset a finished episode. ``JumanjiAutoReset``
presents the surface the shared rollout uses, as our environments do: one action per agent
in a dict (stacked into Jumanji's joint action), per-agent masks (the rows of Jumanji's
``action_mask``), and an automatic reset that does what Jumanji's own ``AutoResetWrapper``
does under ``vmap`` (a ``lax.cond`` per environment, which ``vmap`` turns into step, reset
with a second key, select by ``done``). Our ``step`` under ``vmap`` on the CPU resets only
the environments whose episode ended (``jaxmarl.environments.multi_agent_env``), so part
of our margin at large ``N`` is that. Both libraries then run the very same
``make_rollout`` and ``measure``: uniformly random legal actions, under ``vmap``.

Runs in the ``jumanji`` peer's virtual environment (jumanji and the same JAX as ours);
prints one JSON line per ``N``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: the shared rollout
import env_throughput

TASKS = (
    "RobotWarehouse-v0",
    "Connector-v3",
    "Cleaner-v0",
    "MMST-v0",
    "MultiCVRP-v0",
    "LevelBasedForaging-v0",
    "SearchAndRescue-v0",
)


def make_jumanji(bench_id: str) -> Any:
    import jumanji

    env_id, map_name, kwargs = env_throughput.parse_bench_id(bench_id)
    if map_name or env_id not in TASKS:
        raise ValueError(f"jumanji has no multi-agent task {bench_id!r}")
    return jumanji.make(env_id, **kwargs)


def has_env(bench_id: str) -> bool:
    try:
        make_jumanji(bench_id)
    except Exception:  # not one of the tasks, or a keyword Jumanji's constructor lacks
        return False
    return True


class AgentSpace:
    """One agent's part of Jumanji's joint action spec, sampled as our spaces sample."""

    def __init__(self, spec: Any) -> None:
        self.dtype = spec.dtype
        if hasattr(spec, "num_values"):  # MultiDiscreteArray: a Discrete per agent
            self.n = int(spec.num_values[0])
            self.shape: tuple[int, ...] = ()
        elif jnp.issubdtype(spec.dtype, jnp.integer):  # BoundedArray of node ids (MultiCVRP)
            self.n = int(jnp.max(spec.maximum)) + 1
            self.shape = ()
        else:  # continuous, e.g. SearchAndRescue's (num_agents, 2) in [-1, 1]
            self.shape = tuple(spec.shape[1:])
            self.low = float(jnp.min(spec.minimum))
            self.high = float(jnp.max(spec.maximum))

    def sample(self, key: jax.Array) -> jax.Array:
        if hasattr(self, "n"):
            return jax.random.randint(key, self.shape, 0, self.n).astype(self.dtype)
        return jax.random.uniform(key, self.shape, self.dtype, self.low, self.high)


class JumanjiAutoReset:
    """A Jumanji multi-agent task behind the surface ``env_throughput.make_rollout`` uses.

    The state carried is ``(jumanji_state, timestep)``: the masks and ``done`` are read
    from the timestep, as a Jumanji user reads them."""

    def __init__(self, env: Any) -> None:
        self.env = env
        spec = env.action_spec
        self.num_agents = int(spec.shape[0])
        self.agents = [f"agent_{i}" for i in range(self.num_agents)]
        self.space = AgentSpace(spec)

    def action_space(self, agent: str) -> AgentSpace:
        return self.space

    def get_avail_actions(self, state: Any) -> dict[str, jax.Array]:
        mask = getattr(state[1].observation, "action_mask", None)
        if mask is None:
            raise NotImplementedError("continuous actions: no masks")
        return {a: mask[i] for i, a in enumerate(self.agents)}

    def reset(self, key: jax.Array) -> tuple[Any, Any]:
        state, timestep = self.env.reset(key)
        return timestep.observation, (state, timestep)

    def step(self, key: jax.Array, state: Any, actions: dict[str, jax.Array]) -> tuple[Any, ...]:
        joint = jnp.stack([actions[a] for a in self.agents])
        new = self.env.step(state[0], joint)
        done = new[1].last()
        reset = self.env.reset(key)
        state = jax.tree.map(lambda r, s: jnp.where(done, r, s), reset, new)
        reward = jnp.broadcast_to(new[1].reward, (self.num_agents,))
        rewards = {a: reward[i] for i, a in enumerate(self.agents)}
        return state[1].observation, state, rewards, done, {}


def main() -> None:
    env_throughput.peer_main(
        "jumanji", __doc__ or "", has_env, lambda bench_id: JumanjiAutoReset(make_jumanji(bench_id))
    )


if __name__ == "__main__":
    main()
