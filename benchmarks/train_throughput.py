"""Training throughput: environment timesteps per second of a baseline, and how it
scales with the number of seeds trained in one call.

The baseline's hydra config (``baselines/config/<family>``, with any ``KEY=value``
overrides) is built into ``jax.jit(jax.vmap(make_train(config)))`` over ``NUM_SEEDS``
keys, exactly what the training script runs, but without progress printing. Compilation
(``lower(...).compile()``) and the training run are timed separately; throughput is
reported both excluding compilation (``steps_per_s``) and including it
(``steps_per_s_incl``). Timesteps are counted over all seeds.

    python benchmarks/train_throughput.py TOTAL_TIMESTEPS=2e5 --family ppo --num-seeds 1 4 16
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import jax
import numpy as np


def measure(family: str, overrides: list[str], num_seeds: int, compile_only: bool = False) -> dict[str, Any]:
    import importlib

    from baselines import common

    module = importlib.import_module(f"baselines.{family}")
    config = common.compose_config(family, [*overrides, f"NUM_SEEDS={num_seeds}"])
    keys = common.shard_over_devices(common.seed_keys(config), config)
    train = jax.jit(jax.vmap(module.make_train(config)))
    t0 = time.perf_counter()
    compiled = train.lower(keys).compile()
    compile_s = time.perf_counter() - t0
    if compile_only:
        return {
            "family": family,
            "alg": config.get("ALG_NAME"),
            "env": config.get("ENV_NAME"),
            "num_seeds": num_seeds,
            "compile_s": compile_s,
            "device": jax.devices()[0].device_kind,
        }
    t0 = time.perf_counter()
    out = jax.block_until_ready(compiled(keys))
    run_s = time.perf_counter() - t0
    timesteps = int(np.asarray(out["metrics"]["timestep"])[:, -1].sum())
    returns = np.asarray(out["metrics"]["return_mean"])[:, -1]
    return {
        "family": family,
        "alg": config.get("ALG_NAME"),
        "env": config.get("ENV_NAME"),
        "num_seeds": num_seeds,
        "timesteps": timesteps,
        "compile_s": compile_s,
        "run_s": run_s,
        "steps_per_s": timesteps / run_s,
        "steps_per_s_incl": timesteps / (compile_s + run_s),
        "final_return": float(np.nanmean(returns)),
        "device": jax.devices()[0].device_kind,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--family", default="ppo", help="baseline script: ppo, qlearning ...")
    parser.add_argument("--num-seeds", type=int, nargs="+", default=[1])
    parser.add_argument("--compile-only", action="store_true", help="time the compilation, skip the run")
    parser.add_argument("overrides", nargs="*", help="hydra overrides, e.g. alg=mappo_ff TOTAL_TIMESTEPS=1e5")
    args = parser.parse_args(argv)
    for n in args.num_seeds:
        print(json.dumps(measure(args.family, args.overrides, n, args.compile_only)), flush=True)


if __name__ == "__main__":
    main()
