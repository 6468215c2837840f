"""The automatic reset under ``vmap``: resetting only the environments whose episode
ended (what ``step`` does on the CPU) against computing every environment's reset and
selecting (what a ``lax.cond`` becomes under ``vmap``, and what ``step`` does on
accelerators).

Both strategies run the very same rollout as ``env_throughput.py`` (random legal
actions, ``N`` environments vmapped in one jitted ``lax.scan``), in one process, in
interleaved rounds; the strategy is switched with
``jaxmarl.environments.multi_agent_env._reset_only_finished``. Results are identical
either way (``tests/test_multi_agent_env.py``); only the time differs.

    python -m benchmarks.autoreset --envs MPE_simple_spread_v3 Connector-v3 --num-envs 100 1000

prints one JSON line per measurement and a markdown table (speed-up: median over rounds
of only-finished / select, with the lowest and highest).
"""

from __future__ import annotations

import argparse
import json
import statistics
from typing import Any

import jax

import jaxmarl
from benchmarks import env_throughput
from benchmarks.harness import Spread
from benchmarks.report import fmt, fmt_ratio, markdown_table
from jaxmarl.environments import multi_agent_env

STRATEGIES = {"only finished": True, "every env, select": False}


def measure(bench_id: str, num_envs: int, num_steps: int, repeats: int, only_finished: bool) -> float:
    """Env steps per second (``env_throughput.measure``) with the given strategy."""
    original = multi_agent_env._reset_only_finished
    multi_agent_env._reset_only_finished = lambda: only_finished
    try:  # the strategy is read when step is traced, inside measure's compilation
        env = env_throughput.make_env(jaxmarl, bench_id)  # a new env: step is traced anew
        return float(env_throughput.measure(env, num_envs, num_steps, repeats)["steps_per_s"])
    finally:
        multi_agent_env._reset_only_finished = original


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--envs", nargs="+", required=True, help="benchmark ids, as env_throughput takes")
    parser.add_argument("--num-envs", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--num-steps", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args(argv)
    rows: list[dict[str, Any]] = []
    for bench_id in args.envs:
        for n in args.num_envs:
            speeds: dict[str, list[float]] = {name: [] for name in STRATEGIES}
            for _ in range(args.rounds):
                for name, only_finished in STRATEGIES.items():
                    speeds[name].append(measure(bench_id, n, args.num_steps, args.repeats, only_finished))
            fast, slow = speeds["only finished"], speeds["every env, select"]
            ratios = [a / b for a, b in zip(fast, slow, strict=True)]
            row = {"env": bench_id, "num_envs": n, "num_steps": args.num_steps, **speeds, "ratios": ratios}
            print(json.dumps(row), flush=True)
            rows.append(row)
    device = jax.devices()[0].device_kind
    print(f"\nDevice: {device}; T={args.num_steps}; {args.rounds} interleaved rounds.\n")
    header = ["env", "N", "only finished (steps/s)", "every env, select (steps/s)", "speed-up"]
    table = [
        [
            f"`{row['env']}`",
            str(row["num_envs"]),
            fmt(statistics.median(row["only finished"])),
            fmt(statistics.median(row["every env, select"])),
            fmt_ratio(Spread.of(row["ratios"])),
        ]
        for row in rows
    ]
    print(markdown_table(header, table))


if __name__ == "__main__":
    main()
