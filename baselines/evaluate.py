"""Evaluate finished training runs: returns over fixed evaluation keys, and a GIF.

    python baselines/evaluate.py run=outputs/<run-folder>
    python baselines/evaluate.py run=outputs/<run-folder> EVAL_EPISODES=256 GREEDY=true
    python baselines/evaluate.py run=outputs/<a2c run> run=outputs/<ippo run> ...

Several ``run=`` arguments evaluate each run in turn with the same settings, so every
run plays the same episodes (what ``python -m jaxmarl.evaluation.compare`` needs).

Every seed's trained policy plays ``EVAL_EPISODES`` episodes whose keys are fixed
(``split(PRNGKey(EVAL_SEED), EVAL_EPISODES)``), and so does a uniformly random policy,
on the same keys. The returns (per agent, summed over the episode) and the
environment's episode metrics (SMAX's ``win_rate``, Hanabi's ``score``, Overcooked's
``deliveries`` ...) are printed and written to ``<run>/eval/eval.json``: every
episode's value per seed, and per seed and overall the mean, standard deviation and
standard error. Seed 0's policy is rendered to ``<run>/eval/policy.gif``. Works for any
run whose script (``ALG_FAMILY`` in the run's config) provides ``make_policy(config)``.
"""

from __future__ import annotations

import importlib
import json
import logging
import sys
from pathlib import Path
from typing import Any, cast

import jax
import jax.numpy as jnp
import numpy as np

from baselines import runs
from jaxmarl.evaluation.episodes import episode_outcome, policy_outcomes, random_outcomes
from jaxmarl.viz import render_states, save_gif


def episode_returns(env: Any, act: Any, hidden0: jax.Array, key: jax.Array, max_steps: int) -> jax.Array:
    """Per-agent return ``(num_agents,)`` of one episode played by ``act``."""
    return episode_outcome(env, act, hidden0, key, max_steps)[0]


def outcomes_on_keys(
    env: Any,
    init_hidden: Any,
    act: Any,
    params: Any,
    keys: jax.Array,
    greedy: bool,
    max_steps: int,
    compiler_options: dict | None = None,
) -> tuple[tuple[np.ndarray, dict], tuple[np.ndarray, dict]]:
    """Per-agent returns of every seed's policy, ``(seeds, episodes, agents)``, and of a
    uniformly random policy, ``(episodes, agents)``, on the same episode keys, each with
    the environment's episode metrics (name -> ``(seeds, episodes)`` for the trained
    policies, ``(episodes,)`` for the random one): ``((ours, metrics), (random, metrics))``.

    ``(env, init_hidden, act)`` is what a script's ``make_policy(config)`` returns and
    ``params`` its parameters with a leading seed axis."""
    ours = policy_outcomes(env, init_hidden, act, params, keys, greedy, max_steps, compiler_options)
    rand = random_outcomes(env, init_hidden, keys, max_steps, compiler_options)
    return ours, rand


def returns_on_keys(*args: Any, **kwargs: Any) -> tuple[np.ndarray, np.ndarray]:
    """The returns of :func:`outcomes_on_keys` (same arguments), without the metrics:
    ``(seeds, episodes, agents)`` for the trained policies, ``(episodes, agents)`` for the
    random one."""
    (ours, _), (rand, _) = outcomes_on_keys(*args, **kwargs)
    return ours, rand


def summary(values: np.ndarray) -> dict[str, Any]:
    """Per-seed and overall statistics of ``(seeds, episodes)`` values: every episode's
    value, and the mean, standard deviation and standard error of the mean (over
    episodes per seed; over seeds' means overall, the unit a paper reports)."""
    values = np.asarray(values, np.float64)
    seeds = values.shape[0]
    means = values.mean(axis=1)
    return {
        "per_seed": {
            "mean": means.tolist(),
            "std": values.std(axis=1).tolist(),
            "stderr": (values.std(axis=1, ddof=1) / np.sqrt(values.shape[1])).tolist()
            if values.shape[1] > 1
            else [float("nan")] * seeds,
        },
        "mean": float(means.mean()),
        "std_over_seeds": float(means.std(ddof=1)) if seeds > 1 else float("nan"),
        "stderr_over_seeds": float(means.std(ddof=1) / np.sqrt(seeds)) if seeds > 1 else float("nan"),
        "episodes": values.tolist(),
    }


def evaluate(run_dir: Path, eval_cfg: dict) -> dict:
    """Evaluate every seed of the run in ``run_dir`` and a random policy on the same keys.

    Raises:
        runs.RunError: if ``run_dir`` is not a finished run folder.
    """
    config, params = runs.load_run(run_dir)
    family = importlib.import_module(f"baselines.{config['ALG_FAMILY']}")
    env, init_hidden, act = family.make_policy(config)
    max_steps = int(getattr(env, "max_steps", None) or eval_cfg["MAX_STEPS"])
    keys = jax.random.split(jax.random.PRNGKey(int(eval_cfg["EVAL_SEED"])), int(eval_cfg["EVAL_EPISODES"]))
    greedy = bool(eval_cfg["GREEDY"])
    (ours, ours_metrics), (rand, rand_metrics) = outcomes_on_keys(
        env, init_hidden, act, params, keys, greedy, max_steps
    )
    agents = list(env.agents)
    result = {
        "env": config["ENV_NAME"],
        "env_kwargs": config.get("ENV_KWARGS") or {},
        "alg": config["ALG_NAME"],
        "episodes": int(eval_cfg["EVAL_EPISODES"]),
        "eval_seed": int(eval_cfg["EVAL_SEED"]),
        "greedy": greedy,
        "return_mean_per_seed": ours.mean(axis=(1, 2)).tolist(),
        "return_mean": float(ours.mean()),
        "return_per_agent": dict(zip(agents, ours.mean(axis=(0, 1)).tolist(), strict=True)),
        "return": summary(ours.mean(axis=2)),
        "metrics": {name: summary(values) for name, values in ours_metrics.items()},
        "random_return_mean": float(rand.mean()),
        "random_return_per_agent": dict(zip(agents, rand.mean(axis=0).tolist(), strict=True)),
        "random_return": summary(rand.mean(axis=1)[None]),
        "random_metrics": {name: summary(values[None]) for name, values in rand_metrics.items()},
    }
    if int(eval_cfg["GIF_STEPS"]) > 0:
        result["gif"] = str(
            write_gif(env, act, init_hidden, jax.tree.map(lambda x: x[0], params), eval_cfg, run_dir)
        )
    return result


def write_gif(env: Any, act: Any, init_hidden: Any, params: Any, eval_cfg: dict, run_dir: Path) -> Path:
    """Render seed 0's policy for ``GIF_STEPS`` steps to ``<run>/eval/policy.gif``."""
    greedy = bool(eval_cfg["GREEDY"])
    key, key_reset = jax.random.split(jax.random.PRNGKey(int(eval_cfg["EVAL_SEED"])))
    obs, state = env.reset(key_reset)

    def step(carry: tuple, key: jax.Array) -> tuple[tuple, Any]:
        obs, state, hidden, resets = carry
        key_act, key_step = jax.random.split(key)
        hidden, actions = act(params, hidden, obs, state, resets, key_act, greedy)
        obs, state, _, done, _ = env.step(key_step, state, actions)
        return (obs, state, hidden, done["__all__"]), state

    run = jax.jit(lambda k: jax.lax.scan(step, (obs, state, init_hidden(), jnp.array(True)), k)[1])
    states = run(jax.random.split(key, int(eval_cfg["GIF_STEPS"])))
    states = jax.tree.map(lambda first, rest: jnp.concatenate([first[None], rest]), state, states)
    frames = render_states(env, states)
    return save_gif(frames, run_dir / "eval" / "policy.gif")


def report(run_dir: Path, result: dict) -> None:
    """Write ``<run>/eval/eval.json`` and print the run's results."""
    out = run_dir / "eval" / "eval.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2))
    title = runs.run_title(
        {"ALG_NAME": result["alg"], "ENV_NAME": result["env"], "ENV_KWARGS": result["env_kwargs"]}
    )
    print(f"{title}: {result['episodes']} episodes per seed (eval seed {result['eval_seed']})")
    names = list(result["metrics"])
    for seed, ret in enumerate(result["return_mean_per_seed"]):
        extra = "".join(f", {n} {result['metrics'][n]['per_seed']['mean'][seed]:.3f}" for n in names)
        print(f"  seed {seed}: return {ret:.3f} (mean over episodes and agents){extra}")
    extra = "".join(f", {n} {result['random_metrics'][n]['mean']:.3f}" for n in names)
    print(f"  random policy: return {result['random_return_mean']:.3f}{extra}")
    print(f"wrote {out}" + (f" and {result['gif']}" if "gif" in result else ""))


def main() -> None:
    import hydra
    from omegaconf import OmegaConf

    run_args = [arg for arg in sys.argv[1:] if arg.startswith("run=")]
    if not run_args:
        print(
            "error: say which run to evaluate: python baselines/evaluate.py run=<run folder>", file=sys.stderr
        )
        sys.exit(2)
    if len(run_args) > 1:  # run=A run=B ... -> one hydra list, run=['A','B',...]
        folders = ",".join(repr(arg.split("=", 1)[1]) for arg in run_args)
        sys.argv = [sys.argv[0], *(a for a in sys.argv[1:] if a not in run_args), f"run=[{folders}]"]

    @hydra.main(version_base=None, config_path="config", config_name="evaluate")
    def _main(cfg: Any) -> None:
        logging.getLogger("jax").setLevel(logging.WARNING)
        eval_cfg = cast(dict, OmegaConf.to_container(cfg, resolve=True))
        folders = eval_cfg["run"] if isinstance(eval_cfg["run"], list) else [eval_cfg["run"]]
        for folder in folders:
            try:
                runs.load_run(Path(folder))  # every run is checked before any is evaluated
            except runs.RunError as err:
                print(f"error: {err}", file=sys.stderr)
                sys.exit(2)
        for folder in folders:
            run_dir = Path(folder)
            try:
                result = evaluate(run_dir, eval_cfg)
            except (runs.RunError, ValueError, TypeError) as err:
                print(f"error: {err}", file=sys.stderr)
                sys.exit(2)
            report(run_dir, result)

    _main()


if __name__ == "__main__":
    main()
