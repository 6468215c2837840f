"""Compare evaluated training runs of several algorithms on several tasks.

    python -m jaxmarl.evaluation.compare RUN [RUN ...] --out DIR [--metric return]
        [--reps 2000] [--seed 0] [--confidence 0.95]

Every RUN is a run folder of a training script (``baselines/ppo.py``,
``baselines/qlearning.py`` ...) evaluated by ``python baselines/evaluate.py run=RUN``,
which wrote ``RUN/eval/eval.json``: every seed's policy and a uniformly random policy
played the same episodes, on the keys ``split(PRNGKey(EVAL_SEED), EVAL_EPISODES)``.

The protocol (Agarwal et al. 2021; Gorsane et al. 2022; :mod:`jaxmarl.evaluation.statistics`):

- A task is an environment with its keyword arguments (named as runs are, e.g.
  ``MPE_simple_spread_v3``, ``HeuristicEnemySMAX-2s3z``); an algorithm is a run's
  ``ALG_NAME``. Runs of one algorithm on one task pool their seeds (each run with its own
  ``SEED``). Every algorithm must have run on every task, with the same number of seeds
  on each, and all runs of a task must have been evaluated on the same keys.
- A seed's score is the mean over its evaluation episodes of the team return (the mean
  over agents) or of the environment metric ``--metric`` (``win_rate`` ...).
- Scores are normalised per task, ``(score - random) / (reference - random)``: ``random``
  is the random policy's mean on the same episodes; ``reference`` is ``REFERENCE_RETURN``
  (``REFERENCE_<METRIC>``) from the runs' config when set, otherwise the highest mean
  score of any algorithm on the task. Where no algorithm beats random and there is no
  reference, the normalised score is ``score - random``.
- Per algorithm the normalised scores form a ``(seeds, tasks)`` matrix. Per task and
  across tasks: IQM, mean, median and optimality gap, the mean raw score per task, and
  the probability of improvement of every algorithm over every other, each with a
  percentile interval from a stratified bootstrap (seeds resampled within each task),
  and the run-score performance profile.
- Learning curves come from each run's ``metrics.csv`` (the training episodes' mean of
  the metric at every logged update), normalised as above, on one grid of environment
  steps shared by all runs: the logged steps when every run logged the same ones, else
  evenly spaced steps over the range every run covers (as many as the sparsest run
  logged there), with each curve interpolated linearly between its logged values.

Outputs in ``--out``: ``results.json`` (InstaDeep marl-eval's raw-data format,
``{environment: {task: {algorithm: {"seed_<i>": {"step_<k>": ..., "absolute_metrics":
...}}}}}``), ``summary.json`` (everything above, with the protocol), ``summary.csv`` (one
row per task, algorithm and statistic), ``aggregate_intervals.png``,
``performance_profile.png``, ``probability_of_improvement.png`` and
``sample_efficiency.png``. A table is printed. Results are deterministic for a fixed
``--seed``.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from jaxmarl.evaluation import statistics

__all__ = [
    "CompareError",
    "Run",
    "compare",
    "format_table",
    "load_run",
    "main",
    "marl_eval_results",
    "summary_rows",
    "write_outputs",
]

STATISTICS = ("iqm", "median", "mean", "optimality_gap")
TITLES = {"iqm": "IQM", "median": "median", "mean": "mean", "optimality_gap": "optimality gap"}
FIGURES = (
    "aggregate_intervals.png",
    "performance_profile.png",
    "probability_of_improvement.png",
    "sample_efficiency.png",
)


class CompareError(ValueError):
    """Runs that cannot be compared, or a run folder that cannot be read: one line."""


def _warn(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr, flush=True)


@dataclass(frozen=True)
class Run:
    """What the comparison needs of one evaluated run folder.

    ``values``: metric name (``"return"``, the environment's metrics) -> every seed's
    evaluation episodes ``(seeds, episodes)``; ``random``: metric -> the random policy's
    mean on the same episodes; ``steps`` ``(updates,)`` and ``curves`` (metric ->
    ``(seeds, updates)``, NaN where no training episode ended): ``metrics.csv``."""

    path: Path
    alg: str
    env_name: str
    env_kwargs: dict[str, Any]
    task: str
    seed: int
    eval_seed: int
    episodes: int
    greedy: bool
    reference: float | None
    values: dict[str, np.ndarray]
    random: dict[str, float]
    steps: np.ndarray
    curves: dict[str, np.ndarray]

    @property
    def num_seeds(self) -> int:
        return int(self.values["return"].shape[0])

    def scores(self, metric: str) -> np.ndarray:
        """Every seed's mean over its evaluation episodes ``(seeds,)``."""
        return self.values[metric].mean(axis=1)


# --------------------------------------------------------------------------- loading


def _task_label(env_name: str, env_kwargs: Mapping[str, Any]) -> str:
    from baselines.common import env_label  # the training scripts' package (imports flax)

    return env_label(env_name, dict(env_kwargs))


def _environment(env_name: str) -> str:
    """The environment family a task belongs to (its jaxmarl package: ``mpe``, ``smax``)."""
    from jaxmarl.registration import spec

    try:
        entry = spec(env_name).entry_point
    except ValueError:
        return env_name
    return entry.partition(":")[0].rsplit(".", 1)[-1] if isinstance(entry, str) else env_name


def _read_curves(
    path: Path, names: Sequence[str], num_seeds: int
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Timesteps ``(updates,)`` and, per metric, ``(seeds, updates)`` from ``metrics.csv``."""
    csv_path = path / "metrics.csv"
    if not csv_path.is_file():
        raise CompareError(f"{path} has no metrics.csv: is it a finished training run?")
    with csv_path.open(newline="") as f:
        rows = list(csv.DictReader(f))
    columns = {name: "return_mean" if name == "return" else name for name in names}
    if not rows:
        raise CompareError(f"{csv_path} has no rows")
    missing = [c for c in ("update", "seed", "timestep", *columns.values()) if c not in rows[0]]
    if missing:
        raise CompareError(f"{csv_path} has no column(s) {', '.join(missing)}")
    updates = sorted({int(r["update"]) for r in rows})
    seeds = sorted({int(r["seed"]) for r in rows})
    if seeds != list(range(num_seeds)) or len(rows) != len(updates) * num_seeds:
        raise CompareError(
            f"{csv_path} holds seeds {seeds} over {len(updates)} updates in {len(rows)} rows, "
            f"but eval.json has {num_seeds} seeds"
        )
    at = {u: i for i, u in enumerate(updates)}
    steps = np.zeros(len(updates), np.int64)
    curves = {name: np.full((num_seeds, len(updates)), np.nan) for name in names}
    for r in rows:
        i, s = at[int(r["update"])], int(r["seed"])
        steps[i] = int(float(r["timestep"]))
        for name, column in columns.items():
            curves[name][s, i] = float(r[column])
    return steps, curves


def load_run(path: str | Path, metric: str = "return") -> Run:
    """Read an evaluated run folder: ``config.yaml``, ``eval/eval.json``, ``metrics.csv``.

    Raises:
        CompareError: not a run folder, not evaluated, or ``metric`` was not evaluated.
    """
    path = Path(path)
    if not path.is_dir():
        raise CompareError(f"{path} is not a run folder (no such directory)")
    if not (path / "config.yaml").is_file():
        raise CompareError(f"{path} is not a run folder (it has no config.yaml)")
    eval_path = path / "eval" / "eval.json"
    if not eval_path.is_file():
        raise CompareError(
            f"{path} has not been evaluated (no eval/eval.json): run python baselines/evaluate.py run={path}"
        )
    config = yaml.safe_load((path / "config.yaml").read_text()) or {}
    try:
        ev = json.loads(eval_path.read_text())
        values = {"return": np.asarray(ev["return"]["episodes"], np.float64)}
        values |= {n: np.asarray(m["episodes"], np.float64) for n, m in ev.get("metrics", {}).items()}
        random = {"return": float(np.mean(ev["random_return"]["episodes"]))}
        random |= {n: float(np.mean(m["episodes"])) for n, m in ev.get("random_metrics", {}).items()}
        alg, env_name, env_kwargs = str(ev["alg"]), str(ev["env"]), dict(ev["env_kwargs"] or {})
        eval_seed, episodes, greedy = int(ev["eval_seed"]), int(ev["episodes"]), bool(ev["greedy"])
    except (KeyError, TypeError, ValueError) as err:
        raise CompareError(f"{eval_path} is not an eval.json of baselines/evaluate.py ({err!r})") from err
    if metric not in values:
        raise CompareError(f"{path} has no metric {metric!r}; it has {', '.join(sorted(values))}")
    for name, v in values.items():
        if v.ndim != 2 or v.shape[1] != episodes:
            raise CompareError(f"{eval_path}: {name} is {v.shape}, not (seeds, {episodes} episodes)")
        bad = np.flatnonzero(~np.isfinite(v).all(axis=1))
        if bad.size:
            raise CompareError(
                f"{eval_path}: seed(s) {bad.tolist()} have NaN {name} (episodes that did not end "
                "within MAX_STEPS); evaluate again with a larger MAX_STEPS"
            )
    reference = config.get(f"REFERENCE_{metric.upper()}")
    steps, curves = _read_curves(path, list(values), values["return"].shape[0])
    return Run(
        path=path,
        alg=alg,
        env_name=env_name,
        env_kwargs=env_kwargs,
        task=_task_label(env_name, env_kwargs),
        seed=int(config.get("SEED", 0)),
        eval_seed=eval_seed,
        episodes=episodes,
        greedy=greedy,
        reference=None if reference is None else float(reference),
        values=values,
        random=random,
        steps=steps,
        curves=curves,
    )


# ------------------------------------------------------------------------ grouping


def _group(runs: Sequence[Run]) -> tuple[list[str], list[str], dict[tuple[str, str], list[Run]]]:
    """Algorithms and tasks (sorted) and the runs of each ``(algorithm, task)``, checked
    against the protocol."""
    if not runs:
        raise CompareError("no runs to compare")
    kwargs_of: dict[str, str] = {}
    for run in runs:
        key = json.dumps({"env": run.env_name, "kwargs": run.env_kwargs}, sort_keys=True)
        if kwargs_of.setdefault(run.task, key) != key:
            raise CompareError(
                f"runs named {run.task} were made with different environments or ENV_KWARGS "
                f"({kwargs_of[run.task]} and {key} in {run.path}): they are different tasks"
            )
    algs = sorted({r.alg for r in runs})
    tasks = sorted({r.task for r in runs})
    cells: dict[tuple[str, str], list[Run]] = {}
    for run in sorted(runs, key=lambda r: (r.seed, str(r.path))):
        cells.setdefault((run.alg, run.task), []).append(run)
    for task in tasks:
        keys = {(r.eval_seed, r.episodes) for r in runs if r.task == task}
        if len(keys) > 1:
            found = ", ".join(f"EVAL_SEED={s} EVAL_EPISODES={e}" for s, e in sorted(keys))
            raise CompareError(
                f"the runs on {task} were evaluated on different episodes ({found}); "
                "evaluate them all with the same EVAL_SEED and EVAL_EPISODES"
            )
        refs = {r.reference for r in runs if r.task == task and r.reference is not None}
        if len(refs) > 1:
            raise CompareError(f"the runs on {task} give different references {sorted(refs)}")
    for (alg, task), cell in cells.items():
        for a, b in itertools.pairwise(cell):
            if a.seed == b.seed:
                raise CompareError(
                    f"{a.path} and {b.path} both train {alg} on {task} with SEED={a.seed}: "
                    "the same seeds twice (give each run its own SEED)"
                )
    for alg in algs:
        missing = [t for t in tasks if (alg, t) not in cells]
        if missing:
            raise CompareError(
                f"{alg} has no runs on {', '.join(missing)}: every algorithm must run on every task"
            )
        counts = {t: sum(r.num_seeds for r in cells[alg, t]) for t in tasks}
        if len(set(counts.values())) > 1:
            raise CompareError(
                f"{alg} has different numbers of seeds per task ({counts}); its (seeds x tasks) "
                "matrix needs the same number on every task"
            )
        if counts[tasks[0]] < 2:
            raise CompareError(f"{alg} has 1 seed per task; bootstrap intervals need at least 2")
    return algs, tasks, cells


# -------------------------------------------------------------- learning curves


def _align(curves: Sequence[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, list[np.ndarray], dict]:
    """Put learning curves on one grid of environment steps.

    ``curves``: per training seed, the logged steps ``(n,)`` and values ``(n, m)`` (NaN
    where no episode ended). A step counts as logged where all ``m`` values are finite.
    The grid spans the steps every curve covers; it is the logged steps when every curve
    logged the same ones, else evenly spaced integer steps, as many as the sparsest curve
    logged in that range. Returns the grid ``(T,)``, each curve on it ``(T, m)``
    (linearly interpolated between its logged values) and a description."""
    finite = [(s[np.isfinite(v).all(axis=1)], v[np.isfinite(v).all(axis=1)]) for s, v in curves]
    if not curves or any(s.size == 0 for s, _ in finite):
        note = "no learning curves: a training seed logged no finished episode"
        return np.zeros(0, np.int64), [np.zeros((0, v.shape[1])) for _, v in curves], {"note": note}
    lo, hi = max(int(s[0]) for s, _ in finite), min(int(s[-1]) for s, _ in finite)
    if lo > hi:
        note = "no learning curves: the training seeds logged no range of steps in common"
        return np.zeros(0, np.int64), [np.zeros((0, v.shape[1])) for _, v in curves], {"note": note}
    logged = curves[0][0]
    if all(np.array_equal(s, logged) for s, _ in curves):
        grid = logged[(logged >= lo) & (logged <= hi)]
        how = "the logged steps (every run logged the same)"
    else:
        points = min(int(((s >= lo) & (s <= hi)).sum()) for s, _ in finite)
        grid = np.unique(np.round(np.linspace(lo, hi, max(points, 2))).astype(np.int64))
        how = "evenly spaced steps (the runs logged different steps)"
    aligned = [np.stack([np.interp(grid, s, v[:, j]) for j in range(v.shape[1])], axis=1) for s, v in finite]
    interpolated = sum(int((~np.isin(grid, s)).sum()) for s, _ in finite)
    info = {
        "grid": how,
        "first_step": int(grid[0]),
        "last_step": int(grid[-1]),
        "checkpoints": int(grid.size),
        "interpolated_values": interpolated,
        "curves": len(curves),
        "note": f"{interpolated} of {grid.size * len(curves)} curve values interpolated linearly "
        "between logged steps; steps beyond the shortest run are left out",
    }
    return grid, aligned, info


def _learning_curves(
    cells: Mapping[tuple[str, str], list[Run]],
) -> tuple[np.ndarray, dict[tuple[str, str], list[dict[str, np.ndarray]]], dict]:
    """Every training seed's learning curves on one grid (:func:`_align`): the grid
    ``(T,)``, per ``(alg, task)`` a dict per seed (pooled in the cell's order) of metric ->
    ``(T,)``, and the grid's description."""
    seeds = [(key, run, s) for key, cell in cells.items() for run in cell for s in range(run.num_seeds)]
    names = [sorted(run.curves) for _, run, _ in seeds]
    grid, aligned, info = _align(
        [
            (run.steps, np.stack([run.curves[n][s] for n in ns], axis=1))
            for (_, run, s), ns in zip(seeds, names, strict=True)
        ]
    )
    out: dict[tuple[str, str], list[dict[str, np.ndarray]]] = {key: [] for key in cells}
    for (key, _, _), ns, values in zip(seeds, names, aligned, strict=True):
        out[key].append({n: values[:, j] for j, n in enumerate(ns)})
    return grid, out, info


# --------------------------------------------------------------------------- summary


def _interval(est: statistics.Interval) -> dict[str, Any]:
    as_list = isinstance(est.point, np.ndarray)
    conv = (lambda x: np.asarray(x, np.float64).tolist()) if as_list else float
    return {"point": conv(est.point), "lower": conv(est.low), "upper": conv(est.high)}


def _poi(scores: Mapping[str, np.ndarray], boot: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """``P(a > b)`` with its interval for every ordered pair of algorithms: ``{a: {b: ...}}``."""
    pairs = {(a, b): (scores[a], scores[b]) for a in scores for b in scores if a != b}
    if not pairs:
        return {}
    ests = statistics.probability_of_improvement_estimates(
        {f"{a} > {b}": p for (a, b), p in pairs.items()}, **boot
    )
    out: dict[str, dict[str, Any]] = {}
    for (a, b), est in zip(pairs, ests.values(), strict=True):
        out.setdefault(a, {})[b] = _interval(est)
    return out


def _statistics(scores: Mapping[str, np.ndarray], boot: dict[str, Any]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {alg: {} for alg in scores}
    for name in STATISTICS:
        for alg, est in statistics.interval_estimates(scores, statistics.AGGREGATES[name], **boot).items():
            out[alg][name] = _interval(est)
    return out


def _baselines(
    tasks: Sequence[str],
    cells: Mapping[tuple[str, str], list[Run]],
    raw: Mapping[str, np.ndarray],
    metric: str,
) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """Per task the random policy's score and the reference ``(tasks,)``, and what each
    task is (with where its reference comes from)."""
    low, high = np.zeros(len(tasks)), np.zeros(len(tasks))
    info: dict[str, Any] = {}
    key = f"REFERENCE_{metric.upper()}"
    for j, task in enumerate(tasks):
        on_task = [r for a in raw for r in cells[a, task]]
        randoms = [r.random[metric] for r in on_task]
        low[j] = float(np.mean(randoms))
        if not np.allclose(randoms, low[j], rtol=1e-3, atol=1e-6):
            _warn(
                f"the random policy's {metric} on {task} differs between runs "
                f"({min(randoms):.4g} to {max(randoms):.4g}), though the episodes are the same; "
                "using their mean"
            )
        given = next((r.reference for r in on_task if r.reference is not None), None)
        means = {a: float(scores[:, j].mean()) for a, scores in raw.items()}
        best = max(means, key=lambda a: means[a])
        if given is not None:
            if given == low[j]:
                raise CompareError(f"{key} of {task} equals the random policy's score ({given})")
            high[j], source = given, f"{key} in the runs' config"
        elif means[best] > low[j]:
            high[j], source = means[best], f"best algorithm's mean ({best})"
        else:
            high[j] = low[j] + 1.0
            source = "none: no algorithm beat the random policy; normalised score = score - random"
            _warn(f"no algorithm beat the random policy on {task}: its normalised scores are score - random")
        first = on_task[0]
        info[task] = {
            "environment": _environment(first.env_name),
            "env_name": first.env_name,
            "env_kwargs": first.env_kwargs,
            "eval_seed": first.eval_seed,
            "episodes": first.episodes,
            "random": float(low[j]),
            "reference": float(high[j]),
            "reference_source": source,
        }
    return low, high, info


def compare(
    runs: Sequence[Run],
    metric: str = "return",
    reps: int = 2000,
    confidence: float = 0.95,
    seed: int = 0,
) -> dict[str, Any]:
    """The comparison of ``runs`` (see the module docstring), as ``summary.json`` holds it.

    Raises:
        CompareError: runs that break the protocol.
        ValueError: bad ``reps``, ``confidence`` or ``seed``.
    """
    algs, tasks, cells = _group(runs)
    boot: dict[str, Any] = {"reps": reps, "confidence": confidence, "seed": seed}
    raw = {
        a: np.stack([np.concatenate([r.scores(metric) for r in cells[a, t]]) for t in tasks], 1) for a in algs
    }
    low, high, task_info = _baselines(tasks, cells, raw, metric)
    norm = {a: statistics.normalise(raw[a], low, high) for a in algs}

    per_task: dict[str, Any] = {}
    for j, task in enumerate(tasks):
        column = {a: norm[a][:, [j]] for a in algs}
        stats = _statistics(column, boot)
        scores = statistics.interval_estimates({a: raw[a][:, [j]] for a in algs}, statistics.mean, **boot)
        for a in algs:
            stats[a] = {"score": _interval(scores[a]), **stats[a]}
        per_task[task] = {"statistics": stats, "probability_of_improvement": _poi(column, boot)}

    all_scores = np.concatenate([s.ravel() for s in norm.values()])
    taus = np.linspace(min(0.0, all_scores.min()), max(1.0, all_scores.max()), 101)
    profile = statistics.performance_profile(norm, taus, **boot)

    grid, curves, curve_info = _learning_curves(cells)
    efficiency: dict[str, Any] = {"steps": grid.tolist(), "curves": {}}
    if grid.size:
        over_time = {
            a: statistics.normalise(
                np.stack([[c[metric] for c in curves[a, t]] for t in tasks], axis=1), low, high
            )
            for a in algs
        }  # (seeds, tasks, checkpoints)
        for a, est in statistics.sample_efficiency(over_time, statistics.iqm, **boot).items():
            efficiency["curves"][a] = _interval(est)
    curve_info["source"] = (
        f"metrics.csv: the mean {metric} of the training episodes that ended in each logged "
        "update (not the evaluation episodes), normalised as the scores"
    )

    runs_info = {
        a: {
            t: [
                {"run": str(r.path), "SEED": r.seed, "seeds": r.num_seeds, "greedy": r.greedy}
                for r in cells[a, t]
            ]
            for t in tasks
        }
        for a in algs
    }
    what = "return (mean over agents)" if metric == "return" else metric
    return {
        "metric": metric,
        "algorithms": algs,
        "tasks": tasks,
        "protocol": {
            "score": f"per seed: the mean over its evaluation episodes of the {what}",
            "normalisation": "(score - random) / (reference - random) per task; random: the random "
            "policy's mean on the same episodes",
            "seeds": {a: int(raw[a].shape[0]) for a in algs},
            "tasks": task_info,
            "confidence": confidence,
            "bootstrap": "stratified percentile bootstrap: every replicate resamples the seeds of "
            "each task with replacement",
            "bootstrap_reps": reps,
            "bootstrap_seed": seed,
            "learning_curves": curve_info,
            "runs": runs_info,
        },
        "scores": {
            a: {
                t: {"raw": raw[a][:, j].tolist(), "normalised": norm[a][:, j].tolist()}
                for j, t in enumerate(tasks)
            }
            for a in algs
        },
        "per_task": per_task,
        "aggregate": {"statistics": _statistics(norm, boot), "probability_of_improvement": _poi(norm, boot)},
        "performance_profile": {
            "taus": taus.tolist(),
            "curves": {a: _interval(e) for a, e in profile.items()},
        },
        "sample_efficiency": efficiency,
    }


# --------------------------------------------------------------------------- outputs


def marl_eval_results(runs: Sequence[Run]) -> dict[str, Any]:
    """The runs in InstaDeep marl-eval's raw-data format (its ``data_process_pipeline``
    reads it): ``{environment: {task: {algorithm: {"seed_<i>": run}}}}``, seeds numbered
    per algorithm and task in the order they are pooled. A run holds ``step_0`` ...
    ``step_<T-1>``, the learning curves on the shared grid (``step_count`` and each
    metric's training mean as a one-element list), ``step_<T>`` at the run's last step
    with every evaluation episode's value of each metric, and the same values under
    ``absolute_metrics``. Metrics: ``return`` (the team return, mean over agents) and
    the environment's episode metrics."""
    algs, tasks, cells = _group(runs)
    grid, curves, _ = _learning_curves(cells)
    out: dict[str, Any] = {}
    for task in tasks:
        for alg in algs:
            finals = [
                (run, {n: run.values[n][s].tolist() for n in sorted(run.values)})
                for run in cells[alg, task]
                for s in range(run.num_seeds)
            ]
            entries: dict[str, Any] = {}
            for i, ((run, final), curve) in enumerate(zip(finals, curves[alg, task], strict=True)):
                entry: dict[str, Any] = {
                    f"step_{k}": {"step_count": int(step), **{n: [float(v[k])] for n, v in curve.items()}}
                    for k, step in enumerate(grid)
                }
                entry[f"step_{grid.size}"] = {"step_count": int(run.steps[-1]), **final}
                entry["absolute_metrics"] = dict(final)
                entries[f"seed_{i}"] = entry
            environment = _environment(cells[alg, task][0].env_name)
            out.setdefault(environment, {}).setdefault(task, {})[alg] = entries
    return out


def summary_rows(summary: Mapping[str, Any]) -> list[dict[str, Any]]:
    """``summary.csv``: one row per task (then ``aggregate``), algorithm and statistic
    (``score``, the raw mean, per task; the normalised ``iqm``, ``median``, ``mean``,
    ``optimality_gap``; ``probability_of_improvement`` over the algorithm ``versus``)."""
    rows = []
    parts = [(t, summary["per_task"][t]) for t in summary["tasks"]] + [("aggregate", summary["aggregate"])]
    for task, part in parts:
        for alg, stats in part["statistics"].items():
            for name, iv in stats.items():
                rows.append({"task": task, "algorithm": alg, "statistic": name, "versus": "", **iv})
            for other, iv in part["probability_of_improvement"].get(alg, {}).items():
                rows.append(
                    {
                        "task": task,
                        "algorithm": alg,
                        "statistic": "probability_of_improvement",
                        "versus": other,
                    }
                    | iv
                )
    return rows


def _cell(iv: Mapping[str, Any]) -> str:
    return f"{iv['point']:.3f} [{iv['lower']:.3f}, {iv['upper']:.3f}]"


def _table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = [
        " | ".join(
            c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))
        )
        for r in rows
    ]
    return [lines[0], "-+-".join("-" * w for w in widths), *lines[1:]]


def format_table(summary: Mapping[str, Any]) -> str:
    """What was compared, the aggregate statistics per algorithm, the probabilities of
    improvement and the mean score per task, with intervals."""
    algs, tasks, proto = summary["algorithms"], summary["tasks"], summary["protocol"]
    metric = summary["metric"]
    seeds = ", ".join(f"{a} {n}" for a, n in proto["seeds"].items())
    keys = sorted({(i["episodes"], i["eval_seed"]) for i in proto["tasks"].values()})
    episodes = "; ".join(f"{e} evaluation episodes per seed on fixed keys (EVAL_SEED {s})" for e, s in keys)
    lines = [
        f"{len(algs)} algorithm(s) on {len(tasks)} task(s): {', '.join(tasks)}",
        f"seeds per task: {seeds}; {episodes}",
        f"normalised {metric}: {100 * proto['confidence']:g}% intervals, stratified bootstrap over seeds, "
        f"{proto['bootstrap_reps']} replicates (seed {proto['bootstrap_seed']})",
        "",
    ]
    stats = summary["aggregate"]["statistics"]
    lines += _table(
        [["algorithm", *(TITLES[s] for s in STATISTICS)]]
        + [[a, *(_cell(stats[a][s]) for s in STATISTICS)] for a in algs]
    )
    poi = summary["aggregate"]["probability_of_improvement"]
    if poi:
        lines += [
            "",
            "probability of improvement (a random seed of a beats one of b on a task, averaged over tasks):",
        ]
        lines += [f"  P({a} > {b}) = {_cell(iv)}" for a in algs for b, iv in poi.get(a, {}).items()]
    lines += ["", f"mean {metric} per task:"]
    head = ["task", *algs, "random", "reference"]
    body = [
        [
            t,
            *(_cell(summary["per_task"][t]["statistics"][a]["score"]) for a in algs),
            f"{proto['tasks'][t]['random']:.3f}",
            f"{proto['tasks'][t]['reference']:.3f}",
        ]
        for t in tasks
    ]
    lines += _table([head, *body])
    notes = {t: i["reference_source"] for t, i in proto["tasks"].items()}
    lines += [f"  reference on {t}: {n}" for t, n in notes.items()]
    return "\n".join(lines)


# ----------------------------------------------------------------------------- figures


def _interval_bars(
    ax: Any, labels: Sequence[str], ivs: Sequence[Mapping[str, Any]], colors: Sequence[str]
) -> None:
    y = np.arange(len(labels))[::-1]
    low = np.array([iv["lower"] for iv in ivs])
    high = np.array([iv["upper"] for iv in ivs])
    ax.barh(y, high - low, left=low, height=0.6, color=colors, alpha=0.5)
    ax.vlines([iv["point"] for iv in ivs], y - 0.3, y + 0.3, color="k", linewidth=2)
    ax.set_yticks(y, labels)
    ax.grid(axis="x", alpha=0.3)


def plot_figures(summary: Mapping[str, Any], out: Path) -> list[Path]:
    """The four figures of the comparison in ``out`` (matplotlib, Agg backend).

    Raises:
        ImportError: without matplotlib (``pip install -e ".[baselines]"``).
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as err:
        raise ImportError('the figures need matplotlib: pip install -e ".[baselines]"') from err
    algs, metric = summary["algorithms"], summary["metric"]
    colors = {a: f"C{i}" for i, a in enumerate(algs)}
    level = f"{100 * summary['protocol']['confidence']:g}%"
    paths = [out / name for name in FIGURES]

    stats = summary["aggregate"]["statistics"]
    fig, axes = plt.subplots(1, len(STATISTICS), figsize=(3.2 * len(STATISTICS), 0.5 * len(algs) + 1.6))
    for i, (ax, name) in enumerate(zip(axes, STATISTICS, strict=True)):
        _interval_bars(
            ax,
            algs if i == 0 else [""] * len(algs),
            [stats[a][name] for a in algs],
            [colors[a] for a in algs],
        )
        ax.set_title(TITLES[name])
    fig.supxlabel(f"normalised {metric} ({level} intervals)")
    fig.tight_layout()
    fig.savefig(paths[0], dpi=120)
    plt.close(fig)

    profile = summary["performance_profile"]
    fig, ax = plt.subplots(figsize=(6, 4))
    for a in algs:
        c = profile["curves"][a]
        ax.plot(profile["taus"], c["point"], color=colors[a], label=a)
        ax.fill_between(profile["taus"], c["lower"], c["upper"], color=colors[a], alpha=0.2)
    ax.set_xlabel(f"normalised {metric} τ")
    ax.set_ylabel("fraction of runs with score > τ")
    ax.set_title(f"performance profile ({level} bands)")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(paths[1], dpi=120)
    plt.close(fig)

    poi = summary["aggregate"]["probability_of_improvement"]
    pairs = [(a, b) for a in algs for b in poi.get(a, {})]
    fig, ax = plt.subplots(figsize=(6, 0.45 * max(len(pairs), 1) + 1.4))
    if pairs:
        _interval_bars(
            ax,
            [f"P({a} > {b})" for a, b in pairs],
            [poi[a][b] for a, b in pairs],
            [colors[a] for a, _ in pairs],
        )
        ax.axvline(0.5, color="grey", linestyle="--")
    else:
        ax.text(
            0.5, 0.5, "one algorithm: nothing to compare", ha="center", va="center", transform=ax.transAxes
        )
    ax.set_xlim(0.0, 1.0)
    ax.set_xlabel(f"probability of improvement ({level} intervals)")
    fig.tight_layout()
    fig.savefig(paths[2], dpi=120)
    plt.close(fig)

    eff = summary["sample_efficiency"]
    fig, ax = plt.subplots(figsize=(6, 4))
    for a, c in eff["curves"].items():
        ax.plot(eff["steps"], c["point"], color=colors[a], label=a)
        ax.fill_between(eff["steps"], c["lower"], c["upper"], color=colors[a], alpha=0.2)
    if eff["curves"]:
        ax.legend()
    else:
        note = summary["protocol"]["learning_curves"]["note"]
        ax.text(0.5, 0.5, note, ha="center", va="center", wrap=True, transform=ax.transAxes)
    ax.set_xlabel("environment steps")
    ax.set_ylabel(f"IQM of normalised training {metric}")
    ax.set_title(f"sample efficiency ({level} bands)")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(paths[3], dpi=120)
    plt.close(fig)
    return paths


def write_outputs(runs: Sequence[Run], summary: Mapping[str, Any], out: str | Path) -> list[Path]:
    """``results.json``, ``summary.json``, ``summary.csv`` and the figures in ``out``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(marl_eval_results(runs), indent=1, allow_nan=False))
    (out / "summary.json").write_text(json.dumps(summary, indent=1, allow_nan=False))
    rows = summary_rows(summary)
    with (out / "summary.csv").open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return [out / "results.json", out / "summary.json", out / "summary.csv", *plot_figures(summary, out)]


# ------------------------------------------------------------------------ command line


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m jaxmarl.evaluation.compare",
        description="Compare evaluated runs (python baselines/evaluate.py run=RUN) of several algorithms "
        "on several tasks: normalised scores, IQM / mean / median / optimality gap and probabilities of "
        "improvement with stratified-bootstrap intervals, performance profiles, sample efficiency.",
    )
    parser.add_argument("runs", nargs="+", metavar="RUN", help="an evaluated run folder")
    parser.add_argument("--out", required=True, help="folder for the results, summaries and figures")
    parser.add_argument(
        "--metric", default="return", help="return (default) or an environment metric (win_rate ...)"
    )
    parser.add_argument("--reps", type=int, default=2000, help="bootstrap replicates (default 2000)")
    parser.add_argument("--seed", type=int, default=0, help="the bootstrap's seed (default 0)")
    parser.add_argument("--confidence", type=float, default=0.95, help="interval level (default 0.95)")
    args = parser.parse_args(argv)
    try:
        runs = [load_run(path, args.metric) for path in args.runs]
        summary = compare(runs, args.metric, args.reps, args.confidence, args.seed)
        paths = write_outputs(runs, summary, args.out)
    except (ValueError, ImportError) as err:  # CompareError is a ValueError
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(format_table(summary))
    print(f"wrote {', '.join(p.name for p in paths)} in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
