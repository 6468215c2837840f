"""Evaluation across seeds and tasks: aggregate scores with bootstrap confidence intervals.

See :mod:`jaxmarl.evaluation.statistics` and ``docs/evaluation.md``.
"""

from jaxmarl.evaluation.statistics import (
    AGGREGATES,
    Interval,
    interval_estimates,
    iqm,
    mean,
    median,
    normalise,
    optimality_gap,
    performance_profile,
    probability_of_improvement,
    probability_of_improvement_estimates,
    sample_efficiency,
)

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
