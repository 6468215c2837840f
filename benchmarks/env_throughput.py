"""Environment throughput: env steps per second with uniformly random actions.

The method of the JaxMARL paper's Table 3: ``N`` copies of the environment are vmapped
and stepped ``--num-steps`` times inside one ``jax.lax.scan`` under one ``jit``, with
random actions drawn on the device (legal ones, where the env has action masks).
Compilation is timed separately from execution; execution is the best of
``--repeats`` runs. One env step is one joint step of all agents in one environment.

    python benchmarks/env_throughput.py --env MPE_simple_spread_v3 --num-envs 1 100 1000
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from collections.abc import Callable
from typing import Any

import jax

import jaxmarl
from jaxmarl.environments.multi_agent_env import random_actions


def make_rollout(env: Any, num_envs: int, num_steps: int) -> Callable[[jax.Array], jax.Array]:
    """A jitted function running ``num_envs`` envs for ``num_steps`` random steps."""

    def rollout(key: jax.Array) -> jax.Array:
        key, key_reset = jax.random.split(key)
        _, state = jax.vmap(env.reset)(jax.random.split(key_reset, num_envs))

        def body(carry: tuple[Any, jax.Array], _: None) -> tuple[tuple[Any, jax.Array], jax.Array]:
            state, key = carry
            key, key_act, key_step = jax.random.split(key, 3)
            actions = jax.vmap(random_actions, in_axes=(None, 0, 0))(
                env, jax.random.split(key_act, num_envs), state
            )
            _, state, reward, _, _ = jax.vmap(env.step)(jax.random.split(key_step, num_envs), state, actions)
            return (state, key), reward[env.agents[0]].sum()

        (_, _), rewards = jax.lax.scan(body, (state, key), None, num_steps)
        return rewards.sum()

    return jax.jit(rollout)


def measure(env: Any, num_envs: int, num_steps: int, repeats: int) -> dict[str, float]:
    """Compile seconds and best-of-``repeats`` env steps per second."""
    run = make_rollout(env, num_envs, num_steps)
    t0 = time.perf_counter()
    compiled = run.lower(jax.random.PRNGKey(0)).compile()
    compile_s = time.perf_counter() - t0
    compiled(jax.random.PRNGKey(0)).block_until_ready()  # warm-up
    best = float("inf")
    for i in range(repeats):
        t0 = time.perf_counter()
        compiled(jax.random.PRNGKey(i + 1)).block_until_ready()
        best = min(best, time.perf_counter() - t0)
    return {"num_envs": num_envs, "compile_s": compile_s, "steps_per_s": num_envs * num_steps / best}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--env", default="MPE_simple_spread_v3", help="registered environment id")
    parser.add_argument("--num-envs", type=int, nargs="+", default=[1, 100, 1000])
    parser.add_argument("--num-steps", type=int, default=1000, help="steps per scan (default 1000)")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per setting (best is kept)")
    parser.add_argument("--json", action="store_true", help="print one JSON line per setting")
    args = parser.parse_args()

    env = jaxmarl.make(args.env)
    device = jax.devices()[0]
    if not args.json:
        print(f"{args.env} on {device.platform} ({device.device_kind}, {platform.processor() or 'cpu'})")
        print(f"{'num_envs':>9} {'steps/s':>12} {'compile s':>10}")
    for n in args.num_envs:
        result = measure(env, n, args.num_steps, args.repeats)
        if args.json:
            print(json.dumps({"env": args.env, "device": device.device_kind, **result}))
        else:
            print(f"{n:>9} {result['steps_per_s']:>12.3g} {result['compile_s']:>10.2f}")


if __name__ == "__main__":
    main()
