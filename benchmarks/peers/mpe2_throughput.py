"""Worker: PettingZoo's MPE (``mpe2``) stepped one environment at a time on the CPU.

The single-environment CPU baseline of the JaxMARL paper's Table 3: one
``parallel_env`` (discrete actions, 25-step episodes), uniformly random actions from
``action_space(agent).sample()``, reset whenever every agent is done, ``--num-steps``
joint steps in a Python loop. A Python loop does not get faster with more environments,
so the harness compares this one figure with ours at every ``N``.

Runs in the ``mpe2`` peer's virtual environment; prints one JSON line.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import statistics
import time


def module_name(env_id: str) -> str:
    """``MPE_simple_spread_v3`` -> ``mpe2.simple_spread_v3``,
    ``MPE_collect_treasure_v1`` -> ``mpe2.collect_treasure_v1``."""
    if not env_id.startswith("MPE_") or not env_id.removeprefix("MPE_").isidentifier():
        raise ValueError(f"mpe2 has no environment for {env_id!r}")
    return "mpe2." + env_id.removeprefix("MPE_")


def has_env(env_id: str) -> bool:
    try:
        return importlib.util.find_spec(module_name(env_id)) is not None
    except ValueError:
        return False


def run(env_id: str, num_steps: int, seed: int) -> float:
    env = importlib.import_module(module_name(env_id)).parallel_env(max_cycles=25, continuous_actions=False)
    env.reset(seed=seed)
    for i, agent in enumerate(env.possible_agents):
        env.action_space(agent).seed(seed + i)
    t0 = time.perf_counter()
    for _ in range(num_steps):
        actions = {agent: env.action_space(agent).sample() for agent in env.agents}
        env.step(actions)
        if not env.agents:
            env.reset()
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--env")
    parser.add_argument("--num-steps", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--num-envs", type=int, nargs="*", help="ignored: one environment, stepped in a loop")
    parser.add_argument("--json", action="store_true", help="ignored: the output is always JSON")
    parser.add_argument(
        "--list", nargs="*", metavar="ENV", help="print (JSON) which of these mpe2 has, and exit"
    )
    args = parser.parse_args()
    if args.list is not None:
        print(json.dumps([env_id for env_id in args.list if has_env(env_id)]))
        return
    if not args.env:
        parser.error("--env is required")
    run(args.env, min(args.num_steps, 100), seed=0)  # warm-up: imports, caches
    run_s = [run(args.env, args.num_steps, seed=i + 1) for i in range(args.repeats)]
    steps_per_s = args.num_steps / statistics.median(run_s)
    print(
        json.dumps(
            {
                "env": args.env,
                "num_envs": 1,
                "num_steps": args.num_steps,
                "compile_s": 0.0,
                "run_s": run_s,
                "steps_per_s": steps_per_s,
            }
        )
    )


if __name__ == "__main__":
    main()
