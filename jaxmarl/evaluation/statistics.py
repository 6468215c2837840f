"""Aggregate scores over seeds and tasks, with stratified-bootstrap confidence intervals.

Host-side (NumPy/SciPy) estimators of the evaluation protocol of Agarwal et al. 2021,
"Deep RL at the Edge of the Statistical Precipice" (NeurIPS; the ``rliable`` library),
which Gorsane et al. 2022, "Towards a Standardised Performance Evaluation Protocol for
Cooperative MARL" (NeurIPS; InstaDeep's ``marl-eval``) adopt for MARL. An algorithm's
scores are a ``(num_runs, num_tasks)`` array (a run is a training seed), usually
normalised per task first (:func:`normalise`); algorithms are compared through a dict
``{algorithm_name: scores}``.

Point estimates, each a float from a ``(num_runs, num_tasks)`` array:

- :func:`iqm`: interquartile mean, the mean of the middle 50% of all ``runs x tasks``
  scores (``scipy.stats.trim_mean(x, 0.25, axis=None)``): robust to outlying runs and
  tasks, and far less variable than the median with few runs.
- :func:`mean`: mean over tasks of the per-task mean over runs; dominated by easy tasks.
- :func:`median`: median over tasks of the per-task mean over runs.
- :func:`optimality_gap`: ``gamma - mean(min(scores, gamma))``, how far runs fall short
  of the target ``gamma`` (1 for normalised scores); lower is better.

- :func:`probability_of_improvement`: ``P(X > Y)`` of a random run of algorithm X over
  one of Y on the same task, ties counting one half (the Mann-Whitney U statistic over
  ``runs_x * runs_y``), averaged over tasks.
- :func:`performance_profile`: for each threshold tau, the fraction of all runs scoring
  above tau (the run-score distribution) or of tasks whose mean score is above tau.
- :func:`sample_efficiency`: an aggregate at each checkpoint of ``(runs, tasks,
  checkpoints)`` scores.

Intervals (:class:`Interval`) come from the stratified percentile bootstrap: each
replicate resamples the runs with replacement independently within every task (and,
with ``task_bootstrap``, resamples the tasks as well); the interval is the
``(1 -+ confidence) / 2`` percentiles (``np.percentile``, linear) of the statistic over
``reps`` replicates. rliable builds this on the ``arch`` package (``StratifiedBootstrap``
and ``StratifiedIndependentBootstrap``, subclasses of arch's ``IIDBootstrap``, and
arch's ``conf_int(method="percentile")``), but its index draws come from NumPy's global
legacy generator (``np.random.choice``), one replicate at a time, in dict order. We draw
the same indices from ``np.random.RandomState(seed)`` in the same order, all replicates
at once, so our intervals equal rliable's called right after ``np.random.seed(seed)``
on the same dict, up to float rounding in the statistic (``tests/evaluation`` checks
this against rliable 1.2.0). As in rliable, every algorithm of one call draws from one
stream, so an algorithm's interval depends on the entries before it in the dict.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.stats

__all__ = [
    "AGGREGATES",
    "Interval",
    "interval_estimates",
    "iqm",
    "mean",
    "median",
    "normalise",
    "optimality_gap",
    "performance_profile",
    "probability_of_improvement",
    "probability_of_improvement_estimates",
    "sample_efficiency",
]

_CHUNK_ELEMENTS = 1 << 20  # work per bootstrap chunk (array elements), bounds the memory


def _as_scores(scores: Any, name: str = "scores", ndim: int | None = 2, min_runs: int = 1) -> np.ndarray:
    """``scores`` as a finite, non-empty float64 array of ``ndim`` (or >= 2) dimensions."""
    x = np.asarray(scores, dtype=np.float64)
    if (x.ndim != ndim) if ndim is not None else (x.ndim < 2):
        want = {2: "num_runs, num_tasks", 3: "num_runs, num_tasks, num_checkpoints"}.get(
            ndim or 0, "num_runs, ..."
        )
        raise ValueError(f"{name} must be a ({want}) array, got shape {x.shape}")
    if x.size == 0:
        raise ValueError(f"{name} is empty (shape {x.shape})")
    if not np.all(np.isfinite(x)):
        raise ValueError(f"{name} contains NaN or infinite values")
    if x.shape[0] < min_runs:
        raise ValueError(f"{name} has {x.shape[0]} run(s); a bootstrap needs at least {min_runs}")
    return x


def iqm(scores: Any) -> float:
    """Interquartile mean of all entries of ``scores`` ``(num_runs, num_tasks)``."""
    return float(scipy.stats.trim_mean(_as_scores(scores), 0.25, axis=None))


def mean(scores: Any) -> float:
    """Mean over tasks of the mean over runs of ``scores`` ``(num_runs, num_tasks)``."""
    return float(np.mean(np.mean(_as_scores(scores), axis=0)))


def median(scores: Any) -> float:
    """Median over tasks of the mean over runs of ``scores`` ``(num_runs, num_tasks)``."""
    return float(np.median(np.mean(_as_scores(scores), axis=0)))


def optimality_gap(scores: Any, gamma: float = 1.0) -> float:
    """``gamma - mean(min(scores, gamma))`` over all entries of ``(num_runs, num_tasks)``."""
    if not np.isfinite(gamma):
        raise ValueError(f"gamma must be finite, got {gamma}")
    return float(gamma - np.mean(np.minimum(_as_scores(scores), gamma)))


AGGREGATES: dict[str, Callable[..., float]] = {
    "iqm": iqm,
    "mean": mean,
    "median": median,
    "optimality_gap": optimality_gap,
}

# The same statistics over a batch of resampled arrays (B, num_runs, num_tasks) -> (B,).


def _iqm_batch(x: np.ndarray) -> np.ndarray:
    flat = x.reshape(x.shape[0], -1)
    cut = int(0.25 * flat.shape[1])  # as scipy.stats.trim_mean
    hi = flat.shape[1] - cut
    return np.partition(flat, (cut, hi - 1), axis=1)[:, cut:hi].mean(axis=1)


def _optimality_gap_batch(x: np.ndarray, gamma: float = 1.0) -> np.ndarray:
    return gamma - np.minimum(x, gamma).reshape(x.shape[0], -1).mean(axis=1)


_BATCHED: dict[Callable[..., float], Callable[..., np.ndarray]] = {
    iqm: _iqm_batch,
    mean: lambda x: x.mean(axis=1).mean(axis=1),
    median: lambda x: np.median(x.mean(axis=1), axis=1),
    optimality_gap: _optimality_gap_batch,
}


def _batched(fn: Callable[..., Any]) -> Callable[[np.ndarray], np.ndarray]:
    """``fn`` over a batch ``(B, runs, tasks)`` -> ``(B, ...)``: vectorised for the
    aggregates above (also as ``functools.partial`` with keywords), else a loop."""
    for known, batched in _BATCHED.items():
        if fn is known:
            return batched
        if isinstance(fn, functools.partial) and fn.func is known and not fn.args:
            return functools.partial(batched, **fn.keywords)
    return lambda x: np.stack([np.asarray(fn(s), dtype=np.float64) for s in x])


@dataclass(frozen=True)
class Interval:
    """A point estimate and its confidence interval ``[low, high]`` (floats, or arrays of
    the statistic's shape)."""

    point: float | np.ndarray
    low: float | np.ndarray
    high: float | np.ndarray


def _check_bootstrap_args(reps: int, confidence: float, seed: int) -> None:
    if isinstance(reps, bool) or not isinstance(reps, int | np.integer) or reps < 1:
        raise ValueError(f"reps must be a positive integer, got {reps!r}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence!r}")
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or not 0 <= seed < 2**32:
        raise ValueError(f"seed must be an integer in [0, 2**32), got {seed!r}")


def _draw_alternating(rng: np.random.RandomState, segments: list[tuple[int, int]], n: int) -> np.ndarray:
    """``n`` replicates ``(n, sum(sizes))`` of the calls ``rng.randint(0, bound, size)`` for
    ``(bound, size)`` in ``segments``, equal to making those calls (and leaving ``rng`` in
    the same state) without a call per replicate. The legacy generator draws an integer
    below ``bound`` as the first 32-bit word whose low bits (masked to the smallest
    ``2**k - 1 >= bound - 1``) are below ``bound``, one word after another; we draw the
    words at once and find where each replicate's segments start in them."""
    state = rng.get_state()
    need = int(2.1 * n * sum(size for bound, size in segments if bound > 1)) + 64  # >= 1 / accept rate
    words = np.empty(0, dtype=np.uint32)
    while True:
        words = np.concatenate([words, rng.randint(0, 2**32, size=need, dtype=np.uint32)])
        masked, accepted, before = {}, {}, {}
        for bound in {bound for bound, _ in segments if bound > 1}:
            masked[bound] = words & np.uint32((1 << (bound - 1).bit_length()) - 1)
            ok = masked[bound] < bound
            accepted[bound] = np.flatnonzero(ok)  # the words that make values
            before[bound] = np.concatenate([[0], np.cumsum(ok)])  # how many of them before each word
        first: list[list[int]] = [[] for _ in segments]  # per segment: its first value's index
        steps = [
            (before[b], accepted[b], size - 1, first[j]) for j, (b, size) in enumerate(segments) if b > 1
        ]
        used = 0  # words consumed so far
        try:
            for _ in range(n):
                for counts, at, last, starts in steps:
                    k = counts.item(used)
                    starts.append(k)
                    used = at.item(k + last) + 1
            break
        except IndexError:  # ran out of words: draw as many again
            need = words.size
    rng.set_state(state)
    rng.randint(0, 2**32, size=used, dtype=np.uint32)  # advance past the words used
    out = np.zeros((n, sum(size for _, size in segments)), dtype=np.int64)
    lo = 0
    for j, (bound, size) in enumerate(segments):
        if bound > 1:
            at = accepted[bound][np.asarray(first[j])[:, None] + np.arange(size)]
            out[:, lo : lo + size] = masked[bound][at]
        lo += size
    return out


def _replicates(
    samples: Sequence[np.ndarray],
    stat: Callable[..., np.ndarray],
    reps: int,
    rng: np.random.RandomState,
    task_bootstrap: bool = False,
    work_per_rep: int = 1,
) -> np.ndarray:
    """``stat`` over ``reps`` stratified resamples of ``samples`` (each ``(runs, tasks,
    ...)``, one run axis each, tasks shared): ``(reps, ...)``. Per replicate the run
    indices of every sample, then (``task_bootstrap``) the task indices, are drawn as
    rliable does: ``randint(0, runs, sample.shape)``, ``randint(0, tasks, tasks)``."""
    num_tasks = samples[0].shape[1]
    shapes = [s.shape for s in samples] + ([(num_tasks,)] if task_bootstrap else [])
    segments = [(shape[0], int(np.prod(shape))) for shape in shapes]
    sizes = [size for _, size in segments]
    chunk = max(1, _CHUNK_ELEMENTS // max(1, sum(sizes) * work_per_rep))

    def draws(n: int) -> list[np.ndarray]:
        if len({bound for bound, _ in segments}) == 1:  # one bound: a single call
            flat = rng.randint(0, segments[0][0], size=(n, sum(sizes)))
        else:
            flat = _draw_alternating(rng, segments, n)
        parts = np.split(flat, np.cumsum(sizes)[:-1], axis=1)
        return [part.reshape(n, *shape) for part, shape in zip(parts, shapes, strict=True)]

    out = []
    for start in range(0, reps, chunk):
        n = min(chunk, reps - start)
        parts = draws(n)
        tasks = parts.pop().reshape(n, 1, num_tasks) if task_bootstrap else None
        resampled = []
        for s, runs in zip(samples, parts, strict=True):
            grid = [g[None] for g in np.ogrid[tuple(slice(d) for d in s.shape[1:])]]
            if tasks is not None:
                grid[0] = tasks.reshape(n, 1, num_tasks, *([1] * (s.ndim - 2)))
            resampled.append(s[(runs, *grid)])
        out.append(np.asarray(stat(*resampled), dtype=np.float64).reshape(n, -1))
    return np.concatenate(out)


def _interval(point: Any, replicates: np.ndarray, confidence: float) -> Interval:
    """Percentile interval of ``replicates`` ``(reps, k)`` around ``point``, as arch's."""
    alpha = (1.0 - confidence) / 2
    low, high = np.percentile(replicates, [100 * alpha, 100 * (1.0 - alpha)], axis=0)
    point = np.asarray(point, dtype=np.float64)
    if point.ndim == 0:
        return Interval(float(point), float(low[0]), float(high[0]))
    return Interval(point, low.reshape(point.shape), high.reshape(point.shape))


def interval_estimates(
    score_dict: Mapping[str, np.ndarray],
    fn: Callable[..., Any] = iqm,
    *,
    reps: int = 2000,
    confidence: float = 0.95,
    seed: int = 0,
    task_bootstrap: bool = False,
) -> dict[str, Interval]:
    """``fn`` of each algorithm's scores ``(num_runs, num_tasks)`` with a stratified
    percentile-bootstrap interval, as ``rliable.library.get_interval_estimates``.

    ``fn`` maps a ``(num_runs, num_tasks)`` array (or whatever shape ``score_dict``
    holds, ``(num_runs, num_tasks, ...)``) to a scalar or a vector; the aggregates of
    :data:`AGGREGATES` are vectorised over the replicates, other functions are called
    once per replicate. Intervals have the shape of ``fn``'s result."""
    _check_bootstrap_args(reps, confidence, seed)
    if not score_dict:
        raise ValueError("score_dict is empty")
    rng = np.random.RandomState(seed)
    stat = _batched(fn)
    result = {}
    for name, scores in score_dict.items():
        x = _as_scores(scores, f"scores of {name!r}", ndim=None, min_runs=2)
        point = fn(x)  # first: fn validates the shape it expects
        result[name] = _interval(point, _replicates([x], stat, reps, rng, task_bootstrap), confidence)
    return result


def _poi_batch(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Probability of improvement over batches ``(B, runs_x, tasks)``, ``(B, runs_y, tasks)``."""
    a, b = x[:, :, None, :], y[:, None, :, :]
    u = (a > b).sum(axis=(1, 2)) + 0.5 * (a == b).sum(axis=(1, 2))  # (B, tasks)
    return (u / (x.shape[1] * y.shape[1])).mean(axis=1)


def _check_pair(x: Any, y: Any, min_runs: int = 1, name: str = "") -> tuple[np.ndarray, np.ndarray]:
    x = _as_scores(x, f"x{name}", min_runs=min_runs)
    y = _as_scores(y, f"y{name}", min_runs=min_runs)
    if x.shape[1] != y.shape[1]:
        raise ValueError(f"x and y{name} must have the same number of tasks, got {x.shape} and {y.shape}")
    return x, y


def probability_of_improvement(x: Any, y: Any) -> float:
    """``P(X > Y)`` (ties count 1/2) per task, averaged over tasks, for ``x``
    ``(runs_x, tasks)`` and ``y`` ``(runs_y, tasks)``, as
    ``rliable.metrics.probability_of_improvement``."""
    x, y = _check_pair(x, y)
    return float(_poi_batch(x[None], y[None])[0])


def probability_of_improvement_estimates(
    pairs: Mapping[str, tuple[np.ndarray, np.ndarray]],
    *,
    reps: int = 2000,
    confidence: float = 0.95,
    seed: int = 0,
) -> dict[str, Interval]:
    """:func:`probability_of_improvement` of each pair ``(x, y)`` (keyed e.g.
    ``"ippo,a2c"``) with an interval from resampling the runs of ``x`` and of ``y``
    independently within each task, as rliable's ``get_interval_estimates`` on
    ``{key: [x, y]}``."""
    _check_bootstrap_args(reps, confidence, seed)
    if not pairs:
        raise ValueError("pairs is empty")
    rng = np.random.RandomState(seed)
    result = {}
    for name, pair in pairs.items():
        if len(pair) != 2:
            raise ValueError(f"pairs[{name!r}] must be a pair (x, y), got {len(pair)} arrays")
        x, y = _check_pair(*pair, min_runs=2, name=f" of {name!r}")
        work = x.shape[0] * y.shape[0] * x.shape[1] // (x.size + y.size) + 1
        replicates = _replicates([x, y], _poi_batch, reps, rng, work_per_rep=work)
        result[name] = _interval(_poi_batch(x[None], y[None])[0], replicates, confidence)
    return result


def _profile_batch(x: np.ndarray, taus: np.ndarray, use_score_distribution: bool) -> np.ndarray:
    """Fraction of runs (or of task means) above each tau: ``(B, runs, tasks)`` -> ``(B, len(taus))``."""
    values = x.reshape(x.shape[0], -1) if use_score_distribution else x.mean(axis=1)
    return (values[:, :, None] > taus).mean(axis=1)


def performance_profile(
    score_dict: Mapping[str, np.ndarray],
    taus: Any,
    *,
    use_score_distribution: bool = True,
    reps: int = 2000,
    confidence: float = 0.95,
    seed: int = 0,
    task_bootstrap: bool = False,
) -> dict[str, Interval]:
    """For each threshold of ``taus`` ``(K,)``: the fraction of all runs scoring above it
    (``use_score_distribution``, the run-score distribution) or of tasks whose mean over
    runs is above it, with intervals, as ``rliable.library.create_performance_profile``
    (called after ``np.random.seed(seed)``). Arrays of shape ``(K,)``."""
    _check_bootstrap_args(reps, confidence, seed)
    taus = np.asarray(taus, dtype=np.float64)
    if taus.ndim != 1 or taus.size == 0 or not np.all(np.isfinite(taus)):
        raise ValueError(f"taus must be a non-empty 1-D array of finite thresholds, got {taus!r}")
    if not score_dict:
        raise ValueError("score_dict is empty")
    stat = functools.partial(_profile_batch, taus=taus, use_score_distribution=use_score_distribution)
    rng = np.random.RandomState(seed)
    result = {}
    for name, scores in score_dict.items():
        x = _as_scores(scores, f"scores of {name!r}", min_runs=2)
        replicates = _replicates([x], stat, reps, rng, task_bootstrap, work_per_rep=taus.size)
        result[name] = _interval(stat(x[None])[0], replicates, confidence)
    return result


def sample_efficiency(
    score_dict_over_time: Mapping[str, np.ndarray],
    fn: Callable[..., Any] = iqm,
    *,
    reps: int = 2000,
    confidence: float = 0.95,
    seed: int = 0,
    task_bootstrap: bool = False,
) -> dict[str, Interval]:
    """``fn`` (scalar-valued, of ``(num_runs, num_tasks)``) at every checkpoint of each
    algorithm's ``(num_runs, num_tasks, num_checkpoints)`` scores, with intervals:
    arrays ``(num_checkpoints,)``. As rliable (``get_interval_estimates`` with ``fn``
    mapped over the last axis), every (task, checkpoint) resamples its runs
    independently; the marginal interval at each checkpoint is unaffected by that."""
    _check_bootstrap_args(reps, confidence, seed)
    if not score_dict_over_time:
        raise ValueError("score_dict_over_time is empty")
    batched = _batched(fn)

    def stat(x: np.ndarray) -> np.ndarray:  # (B, runs, tasks, T) -> (B, T)
        b, r, m, t = x.shape
        return np.asarray(batched(x.transpose(0, 3, 1, 2).reshape(b * t, r, m))).reshape(b, t)

    rng = np.random.RandomState(seed)
    result = {}
    for name, scores in score_dict_over_time.items():
        x = _as_scores(scores, f"scores of {name!r}", ndim=3, min_runs=2)
        point = np.array([fn(x[..., t]) for t in range(x.shape[2])], dtype=np.float64)
        result[name] = _interval(point, _replicates([x], stat, reps, rng, task_bootstrap), confidence)
    return result


def normalise(scores: Any, random_score: Any, reference_score: Any) -> np.ndarray:
    """``(scores - random_score) / (reference_score - random_score)`` for ``scores``
    ``(num_runs, num_tasks, ...)``; the two baselines are scalars or ``(num_tasks,)``
    arrays (one per task). 0 is random play, 1 the reference."""
    x = _as_scores(scores, ndim=None)
    shape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    baselines = []
    for label, value in (("random_score", random_score), ("reference_score", reference_score)):
        v = np.asarray(value, dtype=np.float64)
        if v.ndim > 1 or (v.ndim == 1 and v.shape[0] != x.shape[1]):
            raise ValueError(f"{label} must be a scalar or one value per task ({x.shape[1]}), got {v.shape}")
        if not np.all(np.isfinite(v)):
            raise ValueError(f"{label} contains NaN or infinite values")
        baselines.append(v.reshape(shape) if v.ndim == 1 else v)
    low, high = baselines
    if np.any(np.broadcast_to(high == low, shape)):
        tasks = np.flatnonzero(np.broadcast_to(high == low, shape))
        raise ValueError(f"reference_score equals random_score on task(s) {tasks.tolist()}")
    return (x - low) / (high - low)
