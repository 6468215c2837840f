"""``jaxmarl.evaluation.statistics`` against rliable 1.2.0, and on arrays with known answers.

rliable's values are in ``rliable_reference.json`` (made by ``rliable_reference.py`` in a
virtual environment of its own; see there). rliable draws its bootstrap indices from
NumPy's global legacy generator; we draw the same indices from
``np.random.RandomState(seed)`` in the same order. So the intervals are compared for
equality, not within a Monte-Carlo tolerance: both sides compute the same statistic on
the same resamples and take the same ``np.percentile``; what can differ is float
rounding in the statistic (our batched reductions sum in another order than rliable's
per-replicate calls), about 1e-16 relative, which moves a percentile by as much. ATOL =
1e-12 leaves room for that and nothing else (on the machine that made the file the
differences were exactly 0), while a wrong convention shows: another ``np.percentile``
method moves the IQM endpoints of "medium" by about 1e-6, indices drawn in another
order by about 2e-4. ``test_other_seeds_agree_within_monte_carlo_error`` checks
separately that the agreement is statistical and not only a replay of one stream.
"""

from __future__ import annotations

import functools
import json
import time
from pathlib import Path

import numpy as np
import pytest

from jaxmarl.evaluation import statistics as st

REF = json.loads(Path(__file__).with_name("rliable_reference.json").read_text())
SCORES = {k: np.asarray(v) for k, v in REF["scores"].items()}
PAIRS = {k: (np.asarray(x), np.asarray(y)) for k, (x, y) in REF["pairs"].items()}
SERIES = np.asarray(REF["series"])
ATOL = 1e-12
FNS = {
    "iqm": st.iqm,
    "mean": st.mean,
    "median": st.median,
    "optimality_gap": st.optimality_gap,
    "optimality_gap_0.5": functools.partial(st.optimality_gap, gamma=0.5),
}


def assert_interval(got: st.Interval, entry: dict, key: str) -> None:
    for field in ("point", "low", "high"):
        want = np.asarray(entry[field][key], dtype=float).reshape(np.shape(getattr(got, field)))
        np.testing.assert_allclose(getattr(got, field), want, rtol=0, atol=ATOL, err_msg=f"{key} {field}")


# --- against rliable ---------------------------------------------------------------


def test_reference_holds_integer_scores_with_ties():
    assert SCORES["ties"].dtype.kind == "i"
    assert len(np.unique(SCORES["ties"])) < SCORES["ties"].size / 4


@pytest.mark.parametrize("name", sorted(REF["aggregates"]))
def test_aggregates_equal_rliable(name):
    for key, want in REF["aggregates"][name].items():
        assert FNS[name](SCORES[key]) == pytest.approx(want, rel=0, abs=ATOL), key


def test_probability_of_improvement_equals_rliable():
    for key, want in REF["probability_of_improvement"].items():
        assert st.probability_of_improvement(*PAIRS[key]) == pytest.approx(want, rel=0, abs=ATOL), key


@pytest.mark.parametrize(
    "entry", REF["intervals"], ids=lambda e: f"{e['fn']}-tb{e['task_bootstrap']}-{e['confidence']}"
)
def test_interval_estimates_equal_rliable(entry):
    got = st.interval_estimates(
        SCORES,  # the whole dict, in rliable's order: one stream for all algorithms
        FNS[entry["fn"]],
        reps=entry["reps"],
        confidence=entry["confidence"],
        seed=entry["seed"],
        task_bootstrap=entry["task_bootstrap"],
    )
    assert list(got) == list(entry["point"])
    for key in SCORES:
        assert_interval(got[key], entry, key)


def test_probability_of_improvement_intervals_equal_rliable():
    entry = REF["probability_of_improvement_intervals"]
    got = st.probability_of_improvement_estimates(PAIRS, reps=entry["reps"], seed=entry["seed"])
    for key in PAIRS:
        assert_interval(got[key], entry, key)


@pytest.mark.parametrize("use_score_distribution", [True, False])
def test_performance_profiles_equal_rliable(use_score_distribution):
    entries = [
        e for e in REF["performance_profiles"] if e["use_score_distribution"] == use_score_distribution
    ]
    assert len(entries) == len(SCORES)
    for entry in entries:
        (key,) = entry["point"]
        got = st.performance_profile(
            {key: SCORES[key]},
            entry["taus"],
            use_score_distribution=use_score_distribution,
            reps=entry["reps"],
            seed=entry["seed"],
        )
        assert_interval(got[key], entry, key)


@pytest.mark.parametrize("entry", REF["sample_efficiency"], ids=lambda e: e["fn"])
def test_sample_efficiency_equals_rliable(entry):
    series = {"series": SERIES, "series_late": SERIES[:, :, 3:] + 0.1}
    got = st.sample_efficiency(
        series,
        FNS[entry["fn"]],
        reps=entry["reps"],
        seed=entry["seed"],
        task_bootstrap=entry["task_bootstrap"],
    )
    for key in series:
        assert got[key].point.shape == (series[key].shape[2],)
        assert_interval(got[key], entry, key)


def test_other_seeds_agree_within_monte_carlo_error():
    """With seeds rliable did not use, our endpoints are independent draws of the same
    Monte-Carlo distribution as rliable's. Their spread over 8 seeds estimates the
    standard error SE of an endpoint at rliable's 50000 replicates; rliable's endpoint minus the
    mean of ours then has standard deviation SE * sqrt(1 + 1/8), and 4 of those (a
    t-quantile with 7 degrees of freedom at about 0.5%) is the bound."""
    entry = next(e for e in REF["intervals"] if e["fn"] == "iqm" and not e["task_bootstrap"])
    key = "medium"
    runs = [
        st.interval_estimates({key: SCORES[key]}, reps=entry["reps"], seed=seed)[key] for seed in range(1, 9)
    ]
    width = entry["high"][key][0] - entry["low"][key][0]
    for field in ("low", "high"):
        ours = np.array([getattr(r, field) for r in runs])
        se = ours.std(ddof=1)
        assert 0 < se < 0.02 * width  # the Monte-Carlo error at 50000 replicates is small
        assert abs(ours.mean() - entry[field][key][0]) <= 4 * se * np.sqrt(1 + 1 / len(ours))


# --- known answers -----------------------------------------------------------------


def test_iqm_of_0_to_99_is_the_mean_of_25_to_74():
    x = np.arange(100).reshape(10, 10)
    assert st.iqm(x) == 49.5
    assert st.iqm(x.reshape(100, 1)) == 49.5
    assert st.iqm([[0.0, 1.0, 2.0, 1000.0]]) == 1.5  # the outlier is cut


def test_mean_median_and_optimality_gap():
    x = np.array([[1.0, 2.0, 3.0, 10.0], [3.0, 4.0, 5.0, 10.0]])  # task means 2, 3, 4, 10
    assert st.mean(x) == 4.75
    assert st.median(x) == 3.5
    y = np.array([[0.5, 1.5], [1.0, 0.0]])
    assert st.optimality_gap(y) == pytest.approx(0.375)
    assert st.optimality_gap(y, gamma=2.0) == pytest.approx(1.25)
    assert set(st.AGGREGATES) == {"iqm", "mean", "median", "optimality_gap"}


def test_probability_of_improvement_of_identical_and_dominated_samples():
    x = np.random.default_rng(0).normal(size=(6, 3))
    assert st.probability_of_improvement(x, x) == 0.5
    assert st.probability_of_improvement(x + 10, x[:4]) == 1.0
    assert st.probability_of_improvement(x[:4], x + 10) == 0.0
    y = np.random.default_rng(1).integers(0, 3, size=(5, 3))
    z = np.random.default_rng(2).integers(0, 3, size=(7, 3))
    assert st.probability_of_improvement(y, z) + st.probability_of_improvement(z, y) == pytest.approx(1.0)
    # one task, ties counting one half: x=[1, 2] vs y=[2]: (0 + 0.5) / 2
    assert st.probability_of_improvement([[1.0], [2.0]], [[2.0]]) == 0.25
    dominated = st.probability_of_improvement_estimates({"x+10,x": (x + 10, x)}, reps=200)["x+10,x"]
    assert (dominated.point, dominated.low, dominated.high) == (1.0, 1.0, 1.0)


def test_performance_profile_of_a_known_distribution():
    x = (np.arange(100) / 100).reshape(20, 5)  # 0.00 ... 0.99
    got = st.performance_profile({"a": x}, [-1.0, 0.25, 0.5, 2.0], reps=500)["a"]
    np.testing.assert_allclose(got.point, [1.0, 0.74, 0.49, 0.0])
    np.testing.assert_array_equal([got.low[[0, 3]], got.high[[0, 3]]], [[1.0, 0.0], [1.0, 0.0]])
    assert np.all(got.low <= got.point) and np.all(got.point <= got.high)
    assert 0.6 < got.low[1] < 0.74 < got.high[1] < 0.9
    tasks = st.performance_profile({"a": x}, [0.48, 0.5], use_score_distribution=False, reps=50)["a"]
    np.testing.assert_allclose(tasks.point, [0.8, 0.4])  # task means 0.475, 0.485, ..., 0.515


def test_constant_scores_give_a_degenerate_interval():
    got = st.interval_estimates({"a": np.full((4, 3), 0.7)}, st.mean, reps=100)["a"]
    assert got.point == got.low == got.high == pytest.approx(0.7)
    assert isinstance(got.point, float)


def test_vectorised_aggregates_equal_the_plain_loop():
    x = {"a": np.random.default_rng(3).normal(size=(6, 5)), "b": np.random.default_rng(4).normal(size=(4, 5))}
    for fn in (*st.AGGREGATES.values(), functools.partial(st.optimality_gap, gamma=0.2)):
        for task_bootstrap in (False, True):
            fast = st.interval_estimates(x, fn, reps=300, seed=5, task_bootstrap=task_bootstrap)
            slow = st.interval_estimates(
                x, lambda s, fn=fn: fn(s), reps=300, seed=5, task_bootstrap=task_bootstrap
            )
            for key in x:
                np.testing.assert_allclose(
                    [fast[key].low, fast[key].high], [slow[key].low, slow[key].high], rtol=0, atol=ATOL
                )
    over_time = np.random.default_rng(6).normal(size=(4, 3, 5))
    fast_t = st.sample_efficiency({"a": over_time}, st.median, reps=200)["a"]
    slow_t = st.sample_efficiency({"a": over_time}, lambda s: st.median(s), reps=200)["a"]
    np.testing.assert_allclose(fast_t.high, slow_t.high, rtol=0, atol=ATOL)


def test_vector_valued_fn_confidence_and_seed():
    x = {"a": np.random.default_rng(7).normal(size=(8, 6))}
    got = st.interval_estimates(x, lambda s: np.array([st.iqm(s), st.mean(s)]), reps=500)["a"]
    assert got.point.shape == got.low.shape == got.high.shape == (2,)
    assert got.low[0] == pytest.approx(st.interval_estimates(x, st.iqm, reps=500)["a"].low, abs=ATOL)
    wide = st.interval_estimates(x, reps=500, confidence=0.99)["a"]
    narrow = st.interval_estimates(x, reps=500, confidence=0.5)["a"]
    assert wide.low < narrow.low < narrow.point < narrow.high < wide.high
    assert st.interval_estimates(x, reps=500, seed=1) == st.interval_estimates(x, reps=500, seed=1)
    assert st.interval_estimates(x, reps=500, seed=1) != st.interval_estimates(x, reps=500, seed=2)


def test_normalise():
    x = np.array([[0.0, 10.0], [5.0, 20.0]])
    np.testing.assert_allclose(st.normalise(x, 0.0, 10.0), x / 10)
    np.testing.assert_allclose(st.normalise(x, [0.0, 10.0], [10.0, 20.0]), [[0.0, 0.0], [0.5, 1.0]])
    over_time = np.stack([x, 2 * x], axis=2)  # (runs, tasks, checkpoints): per task on axis 1
    np.testing.assert_allclose(st.normalise(over_time, [0.0, 10.0], [10.0, 20.0])[..., 0], [[0, 0], [0.5, 1]])
    with pytest.raises(ValueError, match=r"task\(s\) \[1\]"):
        st.normalise(x, [0.0, 10.0], [1.0, 10.0])
    with pytest.raises(ValueError, match="one value per task"):
        st.normalise(x, [0.0, 1.0, 2.0], 10.0)


def test_speed_2000_replicates_of_iqm_over_10_runs_and_20_tasks():
    x = {"a": np.random.default_rng(8).normal(size=(10, 20))}
    start = time.perf_counter()
    st.interval_estimates(x, st.iqm, reps=2000)
    assert time.perf_counter() - start < 1.0  # about 0.03 s


# --- input validation --------------------------------------------------------------

GOOD = np.random.default_rng(9).normal(size=(4, 3))


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: st.iqm(np.array([[1.0, np.nan]])), "NaN"),
        (lambda: st.mean(np.array([[1.0, np.inf]])), "infinite"),
        (lambda: st.median(np.zeros((0, 3))), "empty"),
        (lambda: st.iqm(np.zeros(5)), r"\(num_runs, num_tasks\)"),
        (lambda: st.iqm(np.zeros((2, 3, 4))), r"\(num_runs, num_tasks\)"),
        (lambda: st.optimality_gap(GOOD, gamma=np.nan), "gamma"),
        (lambda: st.interval_estimates({"a": GOOD[:1]}), "at least 2"),
        (lambda: st.interval_estimates({}), "empty"),
        (lambda: st.interval_estimates({"a": GOOD}, confidence=1.0), "confidence"),
        (lambda: st.interval_estimates({"a": GOOD}, confidence=0.0), "confidence"),
        (lambda: st.interval_estimates({"a": GOOD}, confidence=95), "confidence"),
        (lambda: st.interval_estimates({"a": GOOD}, reps=0), "reps"),
        (lambda: st.interval_estimates({"a": GOOD}, reps=2.5), "reps"),
        (lambda: st.interval_estimates({"a": GOOD}, seed=-1), "seed"),
        (lambda: st.interval_estimates({"a": GOOD[..., None]}, st.iqm), r"\(num_runs, num_tasks\) array"),
        (lambda: st.probability_of_improvement(GOOD, GOOD[:, :2]), "same number of tasks"),
        (lambda: st.probability_of_improvement(GOOD, [[np.nan] * 3]), "NaN"),
        (lambda: st.probability_of_improvement_estimates({"a,b": (GOOD, GOOD[:1])}), "at least 2"),
        (lambda: st.probability_of_improvement_estimates({"a,b": (GOOD, GOOD, GOOD)}), "pair"),
        (lambda: st.performance_profile({"a": GOOD}, []), "taus"),
        (lambda: st.performance_profile({"a": GOOD}, [[0.0, 1.0]]), "taus"),
        (lambda: st.performance_profile({"a": GOOD}, [0.0, np.nan]), "taus"),
        (lambda: st.sample_efficiency({"a": GOOD}), "num_checkpoints"),
        (lambda: st.normalise(GOOD, 1.0, 1.0), "reference_score equals random_score"),
        (lambda: st.normalise(GOOD, np.nan, 1.0), "NaN"),
    ],
)
def test_invalid_input_raises_value_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()
