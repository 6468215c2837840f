"""CAMAR's three-tier evaluation protocol (the CAMAR paper, Appendix C, "Evaluation Suite").

- **Easy**: every trained model plays the task it trained on (new starts and goals only).
- **Medium**: every model plays all twelve benchmark tasks (:func:`benchmark_tasks`):
  random_grid 20x20 with obstacle density 0.0, 0.05 or 0.15, and labmaze_grid with
  ``extra_connection_probability`` 0.4, 0.65 or 1.0, each with 8 and with 32 agents
  (Appendix D, "Benchmark Maps").
- **Hard**: models trained on anything but MovingAI's street maps play those maps
  (:func:`movingai_tasks`: read from files the user gives; nothing is downloaded) with
  several agent counts.

Every policy plays the same episodes: the keys are ``split(PRNGKey(5), episodes)`` (the
paper keeps "the JAX seed fixed at 5 and splits it to generate all evaluation keys"),
1,000 per task by default, with the paper's ``T = 160`` steps (its makespan's ceiling).
Each (seed, task) gives the mean over episodes of success rate, flowtime, makespan,
coordination and return. Per algorithm these make ``(runs, tasks)`` matrices, and
:func:`report` gives, with stratified-bootstrap 95% intervals
(:mod:`jaxmarl.evaluation.statistics`):

- the IQM of each metric (the paper's mandatory table);
- the IQM, mean, median and optimality gap of returns normalised per task between a
  uniformly random policy (0, played on the same keys) and the best algorithm's mean
  return on the task (1);
- the probability that each algorithm's normalised return beats each other's.

The planners of :mod:`jaxmarl.environments.camar.planning` (RRT+PD, RRT*+PD) enter as
algorithms too (:func:`evaluate_planner`; their runs are planner seeds).

Command line (``python -m jaxmarl.environments.camar.protocol --help``)::

    python -m jaxmarl.environments.camar.protocol tasks          # the tasks, and how to train on each
    python -m jaxmarl.environments.camar.protocol medium --run outputs/<run> --run outputs/<run> \\
        --planner rrt_star --out report/
    python -m jaxmarl.environments.camar.protocol hard --run outputs/<run> \\
        --movingai-dir street/ --agents 8 16 32 --out report/
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import jax
import numpy as np

from jaxmarl.evaluation import statistics
from jaxmarl.evaluation.episodes import episode_outcome, policy_outcomes, random_outcomes

__all__ = [
    "EPISODES",
    "EVAL_SEED",
    "MAX_STEPS",
    "METRICS",
    "Task",
    "benchmark_tasks",
    "eval_keys",
    "evaluate_planner",
    "evaluate_random",
    "evaluate_run",
    "movingai_tasks",
    "report",
]

EVAL_SEED = 5
EPISODES = 1000
MAX_STEPS = 160
METRICS = ("success_rate", "flowtime", "makespan", "coordination")
LOWER_IS_BETTER = frozenset({"flowtime", "makespan"})
TIERS = ("easy", "medium", "hard")

# per (task name): (seeds or runs, episodes) values of each metric and of "return"
Outcomes = dict[str, dict[str, np.ndarray]]


@dataclasses.dataclass(frozen=True)
class Task:
    """One evaluation task: a registered CAMAR id and its keywords."""

    name: str
    env_name: str
    env_kwargs: Mapping[str, Any]

    def make(self) -> Any:
        import jaxmarl

        return jaxmarl.make(self.env_name, **dict(self.env_kwargs))

    def train_command(self, alg: str = "ippo_ff") -> str:
        """The ``baselines/ppo.py`` command line that trains on this task."""
        family = "camar_labmaze_grid" if "labmaze" in self.env_name else "camar_random_grid"
        args = [f"ENV_NAME={self.env_name}", "'ENV_KWARGS={}'"]
        for k, v in self.env_kwargs.items():
            args.append(f"++ENV_KWARGS.{k}={v}")
        return f"python baselines/ppo.py env={family} alg={alg} TOTAL_TIMESTEPS=2e7 " + " ".join(args)


def benchmark_tasks(max_steps: int = MAX_STEPS) -> dict[str, Task]:
    """The twelve tasks of the Easy and Medium tiers, by name (``random_grid_8a_d0.05``,
    ``labmaze_grid_32a_p0.65`` ...)."""
    tasks = {}
    for n in (8, 32):
        for density in (0.0, 0.05, 0.15):
            kwargs = {"num_agents": n, "num_rows": 20, "num_cols": 20, "obstacle_density": density}
            name = f"random_grid_{n}a_d{density}"
            tasks[name] = Task(name, "camar_random_grid_v0", {**kwargs, "max_steps": max_steps})
    for n in (8, 32):
        for p in (0.4, 0.65, 1.0):
            kwargs = {"num_agents": n, "extra_connection_probability": p, "max_steps": max_steps}
            name = f"labmaze_grid_{n}a_p{p}"
            tasks[name] = Task(name, "camar_labmaze_grid_v0", kwargs)
    return tasks


def movingai_tasks(
    map_paths: Sequence[str | Path],
    agent_counts: Sequence[int] = (8, 16, 32),
    max_steps: int = MAX_STEPS,
    **movingai_kwargs: Any,
) -> dict[str, Task]:
    """The Hard tier's tasks: every MovingAI map (a ``.map`` file) with every agent count
    (``movingai_<map stem>_<n>a``)."""
    if not len(map_paths):
        raise ValueError("movingai_tasks: give at least one .map file (the street collection is not shipped)")
    tasks = {}
    for path in map_paths:
        for n in agent_counts:
            name = f"movingai_{Path(path).stem}_{int(n)}a"
            kwargs = {
                "map_names": [str(path)],
                "num_agents": int(n),
                "max_steps": max_steps,
                **movingai_kwargs,
            }
            tasks[name] = Task(name, "camar_movingai_v0", kwargs)
    return tasks


def eval_keys(episodes: int = EPISODES, seed: int = EVAL_SEED) -> jax.Array:
    """The evaluation episodes' keys, the same for every task and algorithm."""
    return jax.random.split(jax.random.PRNGKey(seed), int(episodes))


def _collect(values: tuple[np.ndarray, dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """``(returns (..., agents), metrics)`` -> metric -> (..., episodes), with the
    return averaged over agents."""
    returns, metrics = values
    out = {m: np.asarray(metrics[m], np.float64) for m in METRICS}
    out["return"] = np.asarray(returns, np.float64).mean(axis=-1)
    return out


def evaluate_run(
    run_dir: str | Path,
    tasks: Mapping[str, Task] | None,
    episodes: int = EPISODES,
    greedy: bool = True,
    seed: int = EVAL_SEED,
) -> Outcomes:
    """Every seed of a finished training run on each task (``None``: the task it
    trained on, the Easy tier): task name -> metric -> ``(seeds, episodes)``."""
    from jaxmarl.policy import load_run_policies

    keys = eval_keys(episodes, seed)
    if tasks is None:
        pol = load_run_policies(run_dir)
        max_steps = int(pol.env.max_steps)
        values = policy_outcomes(pol.env, pol.init_hidden, pol.act, pol.params, keys, greedy, max_steps)
        return {_own_task_name(pol.config): _collect(values)}
    out = {}
    for name, task in tasks.items():
        pol = load_run_policies(run_dir, task.env_name, dict(task.env_kwargs))
        max_steps = int(pol.env.max_steps)
        values = policy_outcomes(pol.env, pol.init_hidden, pol.act, pol.params, keys, greedy, max_steps)
        out[name] = _collect(values)
    return out


def _own_task_name(config: Mapping[str, Any]) -> str:
    """The benchmark task a run trained on, or a name made of its id and keywords."""
    kwargs = dict(config.get("ENV_KWARGS") or {})
    for name, task in benchmark_tasks(kwargs.get("max_steps", MAX_STEPS)).items():
        if task.env_name == config["ENV_NAME"] and dict(task.env_kwargs) == kwargs:
            return name
    return config["ENV_NAME"] + "".join(f"_{k}={v}" for k, v in sorted(kwargs.items()))


def evaluate_planner(
    planner: Any,
    tasks: Mapping[str, Task],
    episodes: int = EPISODES,
    seeds: int = 3,
    seed: int = EVAL_SEED,
) -> Outcomes:
    """A planner baseline (a :class:`~jaxmarl.environments.camar.planning.PlannerConfig`,
    e.g. ``RRT_STAR``) with the PD follower on each task; its ``seeds`` runs differ in
    the planner's random samples only (the episodes are the same keys)."""
    from jaxmarl.environments.camar.planning import follow, plan

    keys = eval_keys(episodes, seed)
    out = {}
    for name, task in tasks.items():
        env = task.make()

        def one_run(run: jax.Array, env: Any = env) -> tuple:
            def play(key: jax.Array) -> tuple:
                def paths_of(state: Any) -> Any:  # planned once, on the episode's first state
                    return plan(env, jax.random.fold_in(key, run), state, planner)

                def act(paths: Any, obs: Any, state: Any, resets: Any, k: Any) -> tuple:
                    u = follow(env, state, paths)
                    return paths, {a: u[i] for i, a in enumerate(env.agents)}

                return episode_outcome(env, act, paths_of, key, int(env.max_steps))

            return jax.vmap(play)(keys)

        runs = jax.numpy.arange(int(seeds))
        out[name] = _collect(jax.tree.map(np.asarray, jax.jit(jax.vmap(one_run))(runs)))
    return out


def evaluate_random(tasks: Mapping[str, Task], episodes: int = EPISODES, seed: int = EVAL_SEED) -> Outcomes:
    """Uniformly random actions on each task (one run): the normalisation's zero."""
    keys = eval_keys(episodes, seed)
    out = {}
    for name, task in tasks.items():
        env = task.make()
        values = random_outcomes(env, lambda: jax.numpy.zeros(()), keys, int(env.max_steps))
        out[name] = {k: v[None] for k, v in _collect(values).items()}
    return out


def score_matrices(results: Mapping[str, Outcomes], metric: str) -> dict[str, np.ndarray]:
    """Per algorithm the ``(runs, tasks)`` matrix of ``metric``'s mean over episodes,
    with the tasks in the order of the first algorithm's results (every algorithm must
    have played the same tasks with the same number of runs on each)."""
    algs = list(results)
    if not algs:
        raise ValueError("report: no results")
    tasks = list(results[algs[0]])
    out = {}
    for alg in algs:
        if sorted(results[alg]) != sorted(tasks):
            raise ValueError(f"report: {alg} played {sorted(results[alg])}, {algs[0]} played {sorted(tasks)}")
        runs = {t: results[alg][t][metric].shape[0] for t in tasks}
        if len(set(runs.values())) != 1:
            raise ValueError(f"report: {alg} has different numbers of runs per task: {runs}")
        out[alg] = np.stack([np.nanmean(results[alg][t][metric], axis=1) for t in tasks], axis=1)
    return out


def _interval(est: statistics.Interval) -> dict[str, float]:
    return {"value": float(est.point), "low": float(est.low), "high": float(est.high)}


def report(
    results: Mapping[str, Outcomes],
    random: Outcomes | None = None,
    reps: int = 2000,
    confidence: float = 0.95,
    seed: int = 0,
) -> dict[str, Any]:
    """The protocol's figures for ``results`` (algorithm -> task -> metric ->
    ``(runs, episodes)``): per metric and algorithm the IQM over (run, task) of the
    per-task means with its stratified-bootstrap interval; per algorithm and task the
    mean and its interval over runs; with ``random`` (a random policy's outcomes on the
    same tasks), the aggregates of normalised returns and the probabilities of
    improvement (module docstring)."""
    out: dict[str, Any] = {"confidence": confidence, "bootstrap_reps": reps, "metrics": {}, "per_task": {}}
    for metric in (*METRICS, "return"):
        scores = score_matrices(results, metric)
        ests = statistics.interval_estimates(
            scores, statistics.iqm, reps=reps, confidence=confidence, seed=seed
        )
        out["metrics"][metric] = {alg: _interval(e) for alg, e in ests.items()}
        tasks = list(results[next(iter(results))])
        out["per_task"][metric] = {
            alg: {t: float(m.mean()) for t, m in zip(tasks, s.T, strict=True)} for alg, s in scores.items()
        }
    if random is not None:
        returns = score_matrices(results, "return")
        tasks = list(results[next(iter(results))])
        low = np.array([np.nanmean(random[t]["return"]) for t in tasks])
        high = np.max([s.mean(axis=0) for s in returns.values()], axis=0)
        high = np.where(high > low, high, low + 1.0)  # no algorithm beat random: scale 1
        norm = {alg: statistics.normalise(s, low, high) for alg, s in returns.items()}
        out["normalised_return"] = {"random": low.tolist(), "reference": high.tolist(), "aggregates": {}}
        for name, fn in statistics.AGGREGATES.items():
            ests = statistics.interval_estimates(norm, fn, reps=reps, confidence=confidence, seed=seed)
            out["normalised_return"]["aggregates"][name] = {alg: _interval(e) for alg, e in ests.items()}
        pairs = {f"{a},{b}": (norm[a], norm[b]) for a in norm for b in norm if a != b}
        if pairs:
            ests = statistics.probability_of_improvement_estimates(
                pairs, reps=reps, confidence=confidence, seed=seed
            )
            out["probability_of_improvement"] = {k: _interval(e) for k, e in ests.items()}
    return out


def format_table(rep: Mapping[str, Any]) -> str:
    """The mandatory table: IQM and interval of each metric per algorithm."""
    algs = list(rep["metrics"]["success_rate"])
    width = max(9, *(len(a) for a in algs))
    head = f"{'algorithm':<{width}}" + "".join(f" | {m:>24}" for m in (*METRICS, "return"))
    lines = [head, "-" * len(head)]
    for alg in algs:
        cells = []
        for m in (*METRICS, "return"):
            e = rep["metrics"][m][alg]
            cells.append(f" | {e['value']:>8.3f} [{e['low']:.3f}, {e['high']:.3f}]".rjust(27))
        lines.append(f"{alg:<{width}}" + "".join(cells))
    return "\n".join(lines)


def write_report(rep: Mapping[str, Any], out_dir: str | Path) -> list[Path]:
    """``report.json`` (everything) and ``report.csv`` (one row per algorithm and metric)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.json").write_text(json.dumps(rep, indent=2))
    with open(out / "report.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["algorithm", "metric", "iqm", "ci_low", "ci_high"])
        for metric, per_alg in rep["metrics"].items():
            for alg, e in per_alg.items():
                writer.writerow([alg, metric, e["value"], e["low"], e["high"]])
    return [out / "report.json", out / "report.csv"]


# ----------------------------------------------------------------------------- command line


def _planners() -> dict[str, Any]:
    from jaxmarl.environments.camar.planning import RRT, RRT_STAR

    return {"rrt": RRT, "rrt_star": RRT_STAR}


def _label(run_dir: str, config: Mapping[str, Any]) -> str:
    return str(config.get("ALG_NAME", Path(run_dir).name))


def run_tier(
    tier: str,
    runs: Sequence[str],
    planners: Sequence[str] = (),
    episodes: int = EPISODES,
    tasks: Mapping[str, Task] | None = None,
    progress: Callable[[str], None] = print,
) -> tuple[dict[str, Outcomes], Outcomes]:
    """Play every run (grouped by algorithm name; ``label=path`` names one) and planner
    on the tier's tasks, and a random policy on the same tasks: ``(results, random)``.

    ``tasks``: the Medium tier's default is :func:`benchmark_tasks`; the Hard tier needs
    :func:`movingai_tasks`; the Easy tier plays each run on its own task."""
    if tier not in TIERS:
        raise ValueError(f"tier must be one of {TIERS}, got {tier!r}")
    if tier == "hard" and tasks is None:
        raise ValueError("the hard tier needs MovingAI tasks (movingai_tasks(...), --movingai-dir)")
    if tier == "medium" and tasks is None:
        tasks = benchmark_tasks()
    if tier == "easy" and tasks is not None:
        raise ValueError("the easy tier plays each run on the task it trained on; give no tasks")
    results: dict[str, Outcomes] = {}
    played: dict[str, Task] = dict(tasks or {})
    for spec in runs:
        label, _, path = spec.rpartition("=")
        from baselines import runs as run_files

        config, _ = run_files.load_run(path)
        label = label or _label(path, config)
        progress(f"{label}: {path}")
        outcomes = evaluate_run(path, None if tier == "easy" else tasks, episodes)
        if tier == "easy":
            name = next(iter(outcomes))
            played[name] = Task(name, config["ENV_NAME"], dict(config.get("ENV_KWARGS") or {}))
        for t, values in outcomes.items():
            mine = results.setdefault(label, {})
            if t in mine:  # another run of the same algorithm on the same task: more rows
                mine[t] = {m: np.concatenate([mine[t][m], v]) for m, v in values.items()}
            else:
                mine[t] = values
    for name in planners:
        label = {"rrt": "RRT+PD", "rrt_star": "RRT*+PD"}[name]
        progress(f"{label}: {len(played)} tasks")
        results[label] = evaluate_planner(_planners()[name], played, episodes)
    progress(f"random policy: {len(played)} tasks")
    return results, evaluate_random(played, episodes)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m jaxmarl.environments.camar.protocol",
        description="CAMAR's Easy / Medium / Hard evaluation protocol: IQM and 95%% bootstrap intervals.",
    )
    parser.add_argument(
        "tier", choices=(*TIERS, "tasks"), help="a tier, or 'tasks' to list the benchmark tasks"
    )
    parser.add_argument("--run", action="append", default=[], help="a run folder, or label=folder (repeat)")
    parser.add_argument(
        "--planner", action="append", default=[], choices=sorted(_planners()), help="(repeat)"
    )
    parser.add_argument("--episodes", type=int, default=EPISODES)
    parser.add_argument("--reps", type=int, default=2000, help="bootstrap resamples")
    parser.add_argument("--movingai-dir", help="folder of MovingAI .map files (hard tier)")
    parser.add_argument("--agents", type=int, nargs="+", default=[8, 16, 32], help="agent counts (hard tier)")
    parser.add_argument("--out", default="protocol_report", help="folder for report.json and report.csv")
    args = parser.parse_args(argv)
    if args.tier == "tasks":
        for name, task in benchmark_tasks().items():
            print(f"{name}\n    {task.train_command()}")
        return 0
    tasks = None
    if args.tier == "hard":
        if not args.movingai_dir:
            parser.error("the hard tier needs --movingai-dir (MovingAI's street maps, .map files)")
        maps = sorted(Path(args.movingai_dir).glob("*.map"))
        if not maps:
            parser.error(f"no .map files in {args.movingai_dir}")
        tasks = movingai_tasks(maps, args.agents)
    if not args.run and not args.planner:
        parser.error("give at least one --run or --planner")
    try:
        results, rand = run_tier(args.tier, args.run, args.planner, args.episodes, tasks)
        rep = report(results, rand, reps=args.reps)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    rep["tier"] = args.tier
    rep["episodes"] = args.episodes
    rep["eval_seed"] = EVAL_SEED
    print(format_table(rep))
    for path in write_report(rep, args.out):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
