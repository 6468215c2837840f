"""Record rliable's estimates on fixed score arrays: ``rliable_reference.json``.

``tests/evaluation/test_statistics.py`` compares ``jaxmarl.evaluation.statistics``
against this file. rliable is not installed beside our stack (rliable 1.2.0 needs
``arch<8``, and pip then picks pandas 3, which arch 7.2.0 cannot import), so it runs in
a virtual environment of its own, outside the repository. Regenerate with::

    python3.11 -m venv ~/.cache/jaxmarl/oracle-venvs/rliable
    ~/.cache/jaxmarl/oracle-venvs/rliable/bin/pip install rliable==1.2.0 arch==7.2.0 \\
        pandas==2.3.3 numpy==2.4.6 scipy==1.17.1
    ~/.cache/jaxmarl/oracle-venvs/rliable/bin/python tests/evaluation/rliable_reference.py

(it takes about 10 minutes: rliable bootstraps one replicate at a time). The file holds the
input arrays, the package versions, and for every call its replicates and the seed given
to ``np.random.seed`` just before it (rliable draws its bootstrap indices from NumPy's
global generator, whatever ``random_state`` says).
"""

from __future__ import annotations

import json
import sys
from importlib.metadata import version
from pathlib import Path

import numpy as np
from rliable import library, metrics

REPS = 50_000  # bootstrap replicates of every interval here but the probabilities of improvement
# rliable calls scipy.stats.mannwhitneyu per task and replicate (about 4 ms each, as it also
# computes an exact p-value): 2000 replicates there, as in rliable's README.
POI_REPS = 2_000
OUT = Path(__file__).with_name("rliable_reference.json")


def _scores() -> tuple[dict[str, np.ndarray], dict[str, list[np.ndarray]], np.ndarray]:
    rng = np.random.default_rng(20211207)
    medium = rng.normal(0.6, 0.3, size=(10, 12))
    medium[rng.integers(0, 10, 4), rng.integers(0, 12, 4)] += 5.0  # outlying runs
    scores = {
        "tiny": rng.normal(size=(3, 1)),
        "small": rng.normal(0.5, 0.4, size=(5, 4)),
        "medium": medium,
        "ties": rng.integers(0, 5, size=(8, 6)),  # integer-valued, many ties
    }
    pairs = {
        "small,shifted": [scores["small"], rng.normal(0.3, 0.4, size=(6, 4))],
        "ties,ties2": [scores["ties"], rng.integers(0, 5, size=(8, 6))],
        "medium,medium2": [medium, rng.normal(0.5, 0.3, size=(10, 12))],
    }
    series = np.cumsum(rng.uniform(0.0, 0.3, size=(5, 3, 7)), axis=2)  # (runs, tasks, checkpoints)
    return scores, pairs, series


def _interval_entry(call, **meta) -> dict:
    """Run ``call`` (returning rliable's point and interval dicts) after seeding."""
    np.random.seed(meta["seed"])
    point, ci = call()
    return {
        **meta,
        "point": {k: np.asarray(v, dtype=float).tolist() for k, v in point.items()},
        "low": {k: np.asarray(v[0], dtype=float).tolist() for k, v in ci.items()},
        "high": {k: np.asarray(v[1], dtype=float).tolist() for k, v in ci.items()},
    }


def main() -> None:
    scores, pairs, series = _scores()
    fns = {
        "iqm": metrics.aggregate_iqm,
        "mean": metrics.aggregate_mean,
        "median": metrics.aggregate_median,
        "optimality_gap": metrics.aggregate_optimality_gap,
        "optimality_gap_0.5": lambda x: metrics.aggregate_optimality_gap(x, 0.5),
    }
    out: dict = {
        "_regenerate": "see the docstring of tests/evaluation/rliable_reference.py",
        "versions": {p: version(p) for p in ("rliable", "arch", "numpy", "scipy", "pandas")},
        "python": sys.version.split()[0],
        "scores": {k: v.tolist() for k, v in scores.items()},
        "pairs": {k: [x.tolist(), y.tolist()] for k, (x, y) in pairs.items()},
        "series": series.tolist(),
        "aggregates": {name: {k: float(fn(v)) for k, v in scores.items()} for name, fn in fns.items()},
        "probability_of_improvement": {
            k: float(metrics.probability_of_improvement(*p)) for k, p in pairs.items()
        },
    }

    intervals = []
    for i, (name, fn, task_bootstrap, size) in enumerate(
        [
            ("iqm", fns["iqm"], False, 0.95),
            ("mean", fns["mean"], False, 0.95),
            ("median", fns["median"], False, 0.95),
            ("optimality_gap", fns["optimality_gap"], False, 0.95),
            ("optimality_gap_0.5", fns["optimality_gap_0.5"], False, 0.95),
            ("iqm", fns["iqm"], True, 0.95),
            ("mean", fns["mean"], False, 0.68),
        ]
    ):

        def call(fn=fn, task_bootstrap=task_bootstrap, size=size):
            return library.get_interval_estimates(
                scores,
                lambda x: np.array([fn(x)]),
                task_bootstrap=task_bootstrap,
                reps=REPS,
                confidence_interval_size=size,
            )

        entry = _interval_entry(
            call, fn=name, task_bootstrap=task_bootstrap, confidence=size, reps=REPS, seed=100 + i
        )
        intervals.append(entry)
        print("interval", name, task_bootstrap, size, flush=True)
    out["intervals"] = intervals

    out["probability_of_improvement_intervals"] = _interval_entry(
        lambda: library.get_interval_estimates(pairs, metrics.probability_of_improvement, reps=POI_REPS),
        reps=POI_REPS,
        seed=200,
    )
    print("probability of improvement", flush=True)

    taus = {"tiny": [-1.0, 0.0, 0.5], "small": np.linspace(-0.5, 1.5, 9).tolist(), "ties": [0, 1, 2, 3, 4]}
    taus["medium"] = np.linspace(0.0, 2.0, 9).tolist()
    profiles = []
    for i, use_score_distribution in enumerate([True, False]):
        for j, (key, tau_list) in enumerate(taus.items()):
            entry = _interval_entry(
                lambda key=key, tau_list=tau_list, use=use_score_distribution: (
                    library.create_performance_profile(
                        {key: scores[key]},
                        np.asarray(tau_list, dtype=float),
                        use_score_distribution=use,
                        reps=REPS,
                    )
                ),
                use_score_distribution=use_score_distribution,
                taus=tau_list,
                reps=REPS,
                seed=300 + 10 * i + j,
            )
            profiles.append(entry)
    out["performance_profiles"] = profiles
    print("profiles", flush=True)

    def per_checkpoint(fn):
        return lambda x: np.array([fn(x[..., t]) for t in range(x.shape[-1])])

    out["sample_efficiency"] = [
        _interval_entry(
            lambda fn=fn, tb=tb: library.get_interval_estimates(
                {"series": series, "series_late": series[:, :, 3:] + 0.1},
                per_checkpoint(fn),
                task_bootstrap=tb,
                reps=REPS,
            ),
            fn=name,
            task_bootstrap=tb,
            reps=REPS,
            seed=400 + i,
        )
        for i, (name, fn, tb) in enumerate([("iqm", fns["iqm"], False), ("mean", fns["mean"], True)])
    ]
    OUT.write_text(json.dumps(out, indent=None, separators=(",", ":")) + "\n")
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
