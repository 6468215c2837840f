"""Worker: time one of the original JaxMARL baseline scripts, the way its ``main`` trains.

Runs in the peer's virtual environment (``jaxmarl[algs]==0.2.0``, see
``benchmarks/train_vs_jaxmarl.py``), never imports our package, and reads the scripts from
a user's checkout of https://github.com/FLAIROx/JaxMARL (``--checkout``). The script's
own hydra config is composed with the given overrides, its ``make_train`` is built
exactly as its ``main`` builds it (the Q-learning scripts merge their ``alg`` group and
wrap the env with their ``env_from_config``), and
``jax.jit(jax.vmap(make_train(config)))`` over ``NUM_SEEDS`` keys is lowered and compiled,
then run, each timed (with ``--compile-only``, only compiled). ``wandb`` is initialised
disabled, as the scripts' configs do; the PPO scripts still call their host callback
every update (that is how they train), and its ``wandb.log`` records the logged return
here.

    python jaxmarl_train.py --checkout ~/JaxMARL --script IPPO/ippo_ff_mpe.py \
        --config ippo_ff_mpe --num-seeds 4 TOTAL_TIMESTEPS=1e6

Prints one JSON line like ``train_throughput.measure``'s.
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import json
import sys
import time
from pathlib import Path
from typing import Any


def load_script(path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(f"jaxmarl_script_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--checkout", required=True, help="a clone of FLAIROx/JaxMARL")
    parser.add_argument("--script", required=True, help="path under baselines/, e.g. IPPO/ippo_ff_mpe.py")
    parser.add_argument("--config", required=True, help="config name in the script's config folder")
    parser.add_argument("--num-seeds", type=int, default=1)
    parser.add_argument("--compile-only", action="store_true", help="time the compilation, skip the run")
    parser.add_argument("overrides", nargs="*")
    args = parser.parse_args()

    import jax
    import numpy as np
    import wandb
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf

    script = Path(args.checkout).expanduser().resolve() / "baselines" / args.script
    logged: list[dict] = []
    wandb.init(mode="disabled")
    wandb.log = lambda data, *a, **k: logged.append(data)  # the scripts look it up at call time

    module = load_script(script)
    with initialize_config_dir(config_dir=str(script.parent / "config"), version_base=None):
        base = compose(config_name=args.config, overrides=args.overrides)
        seeds = f"NUM_SEEDS={args.num_seeds}" if "NUM_SEEDS" in base else f"+NUM_SEEDS={args.num_seeds}"
        cfg = compose(config_name=args.config, overrides=[*args.overrides, seeds])  # some YAMLs lack it
    config: dict[str, Any] = OmegaConf.to_container(cfg)  # type: ignore[assignment]
    layout = config.get("ENV_KWARGS", {}).get("layout")
    if config.get("ENV_NAME") == "overcooked" and isinstance(layout, str):
        from jaxmarl.environments.overcooked import overcooked_layouts  # as the Overcooked scripts' main does

        config["ENV_KWARGS"]["layout"] = overcooked_layouts[layout]
    if "alg" in config:  # the Q-learning scripts: as single_run builds it
        config = {**config, **config["alg"]}
        env, _ = module.env_from_config(dict(config, ENV_KWARGS=dict(config["ENV_KWARGS"])))
        train = module.make_train(config, env)
    elif "rng_init" in inspect.signature(module.make_train).parameters:  # ippo_ff_mabrax.py, as its main
        rng_init = jax.random.split(jax.random.PRNGKey(int(config.get("SEED", 0))))[1]
        train = module.make_train(config, rng_init)
    else:
        train = module.make_train(config)

    keys = jax.random.split(jax.random.PRNGKey(int(config.get("SEED", 0))), args.num_seeds)
    t0 = time.perf_counter()
    compiled = jax.jit(jax.vmap(train)).lower(keys).compile()
    compile_s = time.perf_counter() - t0
    if args.compile_only:
        record = {"script": args.script, "env": config.get("ENV_NAME"), "num_seeds": args.num_seeds}
        record |= {"compile_s": compile_s, "device": jax.devices()[0].device_kind}
        print(json.dumps(record), flush=True)
        return
    t0 = time.perf_counter()
    out = jax.block_until_ready(compiled(keys))
    run_s = time.perf_counter() - t0

    metrics = out.get("metrics") if isinstance(out, dict) else None
    if isinstance(metrics, dict) and "returned_episode_returns" in metrics:
        returns = np.asarray(metrics["returned_episode_returns"])
        final = float(returns.reshape(args.num_seeds, returns.shape[1], -1)[:, -1].mean())
    else:  # the scripts return no metrics: the last update's logged returns, each seed
        name = "returns" if "returns" in logged[-1] else "returned_episode_returns"
        final = float(np.mean([float(np.mean(d[name])) for d in logged[-args.num_seeds :]]))
    timesteps = int(config["NUM_UPDATES"]) * int(config["NUM_STEPS"]) * int(config["NUM_ENVS"])
    print(
        json.dumps(
            {
                "script": args.script,
                "env": config.get("ENV_NAME"),
                "num_seeds": args.num_seeds,
                "timesteps": timesteps * args.num_seeds,
                "compile_s": compile_s,
                "run_s": run_s,
                "steps_per_s": timesteps * args.num_seeds / run_s,
                "steps_per_s_incl": timesteps * args.num_seeds / (compile_s + run_s),
                "final_return": final,
                "device": jax.devices()[0].device_kind,
            }
        ),
        flush=True,
    )


if __name__ == "__main__":
    main()
