"""Task samplers: which spec each agent's task slots hold in an episode.

Sampling follows Neural MMO 2.1.1's ``make_task_from_spec`` (``nmmo/task/task_spec.py``):
a spec is drawn per TEAM and given to every member (singleton teams when
``Config.teams`` is None), so a team task rewards every member identically. With
``tasks_per_agent = T > 1`` each team draws ``T`` specs, distinct while ``T`` does not exceed
the number of specs. A plain predicate expression becomes ``TaskSpec(expr)``.

- ``uniform(specs, weights=None)``: fixed probabilities (default: ``sampling_weight``).
- ``learning_progress(specs, ...)``: a learning-progress curriculum (Kanitscheider et al.,
  2021, as used for Neural MMO's task curricula): fast and slow exponential moving
  averages of each spec's completion rate; specs are drawn in proportion to
  ``|fast - slow|``, mixed with the fixed weights. Functional: ``init``, ``update``,
  ``sample`` on a ``CurriculumState``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxmarl.environments.nmmo.config import Config
from jaxmarl.environments.nmmo.tasks.spec import Expr, TaskSpec, as_spec


def _specs(items: Sequence[TaskSpec | Expr] | TaskSpec | Expr) -> tuple[TaskSpec, ...]:
    if isinstance(items, (TaskSpec, Expr)):
        items = [items]
    specs = tuple(as_spec(s) for s in items)
    if not specs:
        raise ValueError("a sampler needs at least one spec")
    return specs


def _weights(specs: tuple[TaskSpec, ...], weights: Sequence[float] | None) -> np.ndarray:
    w = np.asarray([s.sampling_weight for s in specs] if weights is None else weights, np.float64)
    if w.shape != (len(specs),):
        raise ValueError(f"weights: expected {len(specs)} values, got shape {w.shape}")
    if not np.all(np.isfinite(w)) or np.any(w < 0) or w.sum() <= 0:
        raise ValueError(f"weights must be finite, >= 0 and not all zero, got {w.tolist()}")
    return (w / w.sum()).astype(np.float32)


def sample_with(probs: jax.Array, key: jax.Array, config: Config) -> jax.Array:
    """Draw ``T`` specs per team with probabilities ``probs`` ``(NS,)`` and hand them to the
    members. Returns ``(P, T)`` int32 task indices (jittable)."""
    NS = probs.shape[0]
    T, NT = config.tasks_per_agent, config.num_teams
    logits = jnp.log(probs)
    if T > NS:  # with replacement
        per_team = jax.random.categorical(key, logits, shape=(NT, T))
    else:  # without replacement: Gumbel top-k
        gumbel = jax.random.gumbel(key, (NT, NS))
        per_team = jax.lax.top_k(logits + gumbel, T)[1]
    per_team = per_team.astype(jnp.int32)  # (NT, T)
    return per_team[jnp.asarray(config.team_of, jnp.int32)]


@dataclasses.dataclass(frozen=True)
class UniformSampler:
    """Fixed-probability sampler (stateless): ``specs`` and their ``probs`` ``(NS,)``."""

    specs: tuple[TaskSpec, ...]
    probs: np.ndarray

    def sample(self, key: jax.Array, config: Config) -> jax.Array:
        """``(P, T)`` int32 task indices into ``specs`` (one draw per team)."""
        return sample_with(jnp.asarray(self.probs), key, config)


def uniform(
    specs_or_predicates: Sequence[TaskSpec | Expr] | TaskSpec | Expr, weights: Sequence[float] | None = None
) -> UniformSampler:
    """Sampler drawing specs with probabilities proportional to ``weights`` (default: each
    spec's ``sampling_weight``, 1 unless set)."""
    specs = _specs(specs_or_predicates)
    return UniformSampler(specs, _weights(specs, weights))


@struct.dataclass
class CurriculumState:
    """Learning-progress statistics: ``fast``, ``slow`` ``(NS,)`` float32 moving averages
    of the completion rate and ``seen`` ``(NS,)`` bool (observed at least once)."""

    fast: jax.Array
    slow: jax.Array
    seen: jax.Array

    if TYPE_CHECKING:  # provided by flax.struct at runtime

        def replace(self, **changes: Any) -> CurriculumState: ...


@dataclasses.dataclass(frozen=True)
class LearningProgressCurriculum:
    """Learning-progress curriculum over ``specs`` (see the module docstring).

    Attributes:
        specs: the specs (compile them with ``compile_tasks``).
        base_probs: ``(NS,)`` fixed probabilities mixed in (from the weights).
        fast_rate, slow_rate: step sizes of the fast and slow moving averages.
        uniform_mix: share of the fixed probabilities in the sampling distribution.
    """

    specs: tuple[TaskSpec, ...]
    base_probs: np.ndarray
    fast_rate: float = 0.1
    slow_rate: float = 0.02
    uniform_mix: float = 0.2

    def init(self) -> CurriculumState:
        """Empty statistics."""
        NS = len(self.specs)
        return CurriculumState(jnp.zeros(NS, jnp.float32), jnp.zeros(NS, jnp.float32), jnp.zeros(NS, bool))

    def update(self, cstate: CurriculumState, task_index: jax.Array, completed: jax.Array) -> CurriculumState:
        """Fold in finished episodes: ``task_index`` and ``completed`` (bool) of equal shape,
        e.g. ``(P, T)`` or ``(B, P, T)``; slots with index -1 are ignored. Each spec's
        completion rate over its slots updates its averages (a spec's first rate sets both);
        specs absent from the batch keep theirs."""
        NS = len(self.specs)
        idx = jnp.asarray(task_index).reshape(-1)
        done = jnp.asarray(completed).reshape(-1).astype(jnp.float32)
        valid = idx >= 0
        onehot = (idx[:, None] == jnp.arange(NS)[None, :]) & valid[:, None]
        count = onehot.sum(axis=0)
        rate = (onehot * done[:, None]).sum(axis=0) / jnp.maximum(count, 1)
        observed = count > 0
        first = observed & ~cstate.seen
        fast = jnp.where(first, rate, cstate.fast + self.fast_rate * (rate - cstate.fast))
        slow = jnp.where(first, rate, cstate.slow + self.slow_rate * (rate - cstate.slow))
        return CurriculumState(
            fast=jnp.where(observed, fast, cstate.fast),
            slow=jnp.where(observed, slow, cstate.slow),
            seen=cstate.seen | observed,
        )

    def probabilities(self, cstate: CurriculumState) -> jax.Array:
        """``(NS,)`` sampling probabilities: ``(1 - uniform_mix) * lp / sum(lp) +
        uniform_mix * base_probs`` with ``lp = |fast - slow|`` (``base_probs`` while all
        ``lp`` are 0)."""
        lp = jnp.abs(cstate.fast - cstate.slow)
        total = lp.sum()
        base = jnp.asarray(self.base_probs)
        mixed = (1.0 - self.uniform_mix) * lp / jnp.where(total > 0, total, 1.0) + self.uniform_mix * base
        return jnp.where(total > 0, mixed, base)

    def sample(self, cstate: CurriculumState, key: jax.Array, config: Config) -> jax.Array:
        """``(P, T)`` int32 task indices drawn per team from ``probabilities(cstate)``."""
        return sample_with(self.probabilities(cstate), key, config)


def learning_progress(
    specs_or_predicates: Sequence[TaskSpec | Expr] | TaskSpec | Expr,
    weights: Sequence[float] | None = None,
    fast_rate: float = 0.1,
    slow_rate: float = 0.02,
    uniform_mix: float = 0.2,
) -> LearningProgressCurriculum:
    """A learning-progress curriculum (``0 < slow_rate < fast_rate <= 1``, ``0 <= uniform_mix <= 1``)."""
    if not 0.0 < slow_rate < fast_rate <= 1.0:
        raise ValueError(f"need 0 < slow_rate < fast_rate <= 1, got slow={slow_rate}, fast={fast_rate}")
    if not 0.0 <= uniform_mix <= 1.0:
        raise ValueError(f"uniform_mix must be in [0, 1], got {uniform_mix}")
    specs = _specs(specs_or_predicates)
    return LearningProgressCurriculum(specs, _weights(specs, weights), fast_rate, slow_rate, uniform_mix)


def default_sampler() -> UniformSampler:
    """Neural MMO's default: every agent holds ``TickGE(num_tick=horizon)``."""
    from jaxmarl.environments.nmmo.tasks.table import default_specs

    return uniform(default_specs())
