"""Worker: CAMAR (``camar`` 0.4.0) measured exactly as ``env_throughput.py`` measures ours.

A benchmark id names one of our CAMAR ids, ``camar_<map>_v0``, optionally with
``:KEY=VALUE,...``; the same id builds ``camar_v0("<map>", map_kwargs=..., ...)`` here:
the keywords of ``camar_v0`` itself (``dynamic``, ``max_steps``, ``frameskip``,
``max_obs``, ``window``, ...) go to it, every other one into ``map_kwargs`` (our
``make`` takes generator keywords directly, so one id means the same world in both
libraries). ``ensure_reachable=False`` (ours without the reachability check, i.e.
camar's draws) is dropped here; ids with any other keyword camar does not know are not
offered.

camar's ``step`` does not reset a finished episode, and a training loop needs it to:
``CamarAutoReset`` adds the same automatic reset our ``step`` does (step, reset with a
second key, select by ``done``) and presents the dict-of-agents surface the shared
rollout uses, so both libraries run the very same ``make_rollout`` and ``measure``
from ``env_throughput.py``: one uniform draw in [-1, 1]^2 per agent, the joint action
stacked into camar's ``(num_agents, 2)`` array, as our ``step`` stacks its dict.

Runs in the ``camar`` peer's virtual environment (camar and the same JAX as ours);
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

# camar_v0's own keywords; the rest of an id's options are the map generator's.
ENV_KEYWORDS = {
    "dynamic",
    "lifelong",
    "window",
    "max_steps",
    "frameskip",
    "max_obs",
    "pos_shaping_factor",
    "contact_force",
    "contact_margin",
}


def camar_spec(bench_id: str) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """``(map name, camar_v0 keywords, map_kwargs)`` for a benchmark id."""
    env_id, map_name, kwargs = env_throughput.parse_bench_id(bench_id)
    if map_name or not (env_id.startswith("camar_") and env_id.endswith("_v0")):
        raise ValueError(f"camar has no environment for {bench_id!r}")
    if kwargs.get("ensure_reachable") is False:  # ours without its check: camar's own draws
        del kwargs["ensure_reachable"]
    env_kwargs = {k: v for k, v in kwargs.items() if k in ENV_KEYWORDS}
    map_kwargs = {k: v for k, v in kwargs.items() if k not in ENV_KEYWORDS}
    return env_id.removeprefix("camar_").removesuffix("_v0"), env_kwargs, map_kwargs


def make_camar(bench_id: str) -> Any:
    from camar import camar_v0

    map_name, env_kwargs, map_kwargs = camar_spec(bench_id)
    return camar_v0(map_name, map_kwargs=map_kwargs, **env_kwargs)


def has_env(bench_id: str) -> bool:
    try:
        make_camar(bench_id)
    except Exception:  # not a camar id, an unknown map or keyword
        return False
    return True


class UniformBox:
    """camar's action space, [-1, 1]^2 per agent, sampled as our ``Box`` samples it."""

    shape = (2,)
    dtype = jnp.float32

    def sample(self, key: jax.Array) -> jax.Array:
        return jax.random.uniform(key, self.shape, self.dtype, -1.0, 1.0)


class CamarAutoReset:
    """A camar env behind the surface ``env_throughput.make_rollout`` uses, resetting a
    finished episode as our ``step`` does."""

    def __init__(self, env: Any) -> None:
        self.env = env
        self.num_agents = env.num_agents
        self.agents = [f"agent_{i}" for i in range(env.num_agents)]

    def action_space(self, agent: str) -> UniformBox:
        return UniformBox()

    def get_avail_actions(self, state: Any) -> Any:
        raise NotImplementedError("continuous actions: no masks")

    def reset(self, key: jax.Array) -> tuple[jax.Array, Any]:
        return self.env.reset(key)

    def step(self, key: jax.Array, state: Any, actions: dict[str, jax.Array]) -> tuple[Any, ...]:
        key_step, key_reset = jax.random.split(key)
        joint = jnp.stack([actions[a] for a in self.agents])
        obs, state_st, reward, done, info = self.env.step(key_step, state, joint)
        obs_re, state_re = self.env.reset(key_reset)
        state = jax.tree.map(lambda r, s: jnp.where(done, r, s), state_re, state_st)
        obs = jnp.where(done, obs_re, obs)
        rewards = {a: reward[i, 0] for i, a in enumerate(self.agents)}
        return obs, state, rewards, done, info


def main() -> None:
    env_throughput.peer_main(
        "camar", __doc__ or "", has_env, lambda bench_id: CamarAutoReset(make_camar(bench_id))
    )


if __name__ == "__main__":
    main()
