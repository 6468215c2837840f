"""Observation helpers shared by MPE scenarios."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.mpe.geometry import length
from jaxmarl.environments.spaces import Box, Space


def obs_spaces(dims: dict[str, int]) -> dict[str, Space]:
    """Unbounded float32 observation spaces of the given sizes."""
    return {agent: Box(-np.inf, np.inf, (d,)) for agent, d in dims.items()}


def nearest(origin: jax.Array, points: jax.Array, n: int) -> tuple[jax.Array, np.ndarray]:
    """The ``n`` points nearest ``origin``, nearest first (mpe2's partial observability).

    Args:
        origin: ``(2,)``.
        points: ``(k, 2)``.
        n: number of slots.

    Returns:
        ``(idx, valid)``: ``idx`` int ``(n,)`` indexes ``points``; slots past ``k`` are
        padding (``valid`` false) whose contents the caller must zero.
    """
    k = points.shape[0]
    if k == 0:
        return jnp.zeros((n,), jnp.int32), np.zeros((n,), bool)
    m = min(n, k)
    dist = length(points - origin)
    idx = jnp.argsort(dist)[:m]
    idx = jnp.pad(idx, (0, n - m))
    return idx, np.arange(n) < k


def gather_slots(values: jax.Array, idx: jax.Array, valid: np.ndarray) -> jax.Array:
    """``values[idx]`` with padding slots zeroed; flattened."""
    if values.shape[0] == 0:
        return jnp.zeros((idx.shape[0] * values.shape[1],), values.dtype)
    return jnp.where(valid[:, None], values[idx], 0.0).ravel()


def observe_nearest(
    origin: jax.Array, points: jax.Array, n: int | None, *aligned: jax.Array
) -> list[jax.Array]:
    """What an agent at ``origin`` sees of ``points``: their relative positions, flattened.

    With ``n=None`` every point in order; otherwise the ``n`` nearest, nearest first,
    zero-padded to ``n`` slots (mpe2's ``num_*_neighbors``). Each array in ``aligned``
    (one row per point, e.g. utterances) is selected the same way and returned after
    the positions.
    """
    rel = points - origin
    if n is None:
        return [rel.ravel(), *(a.ravel() for a in aligned)]
    idx, valid = nearest(origin, points, n)
    return [gather_slots(rel, idx, valid), *(gather_slots(a, idx, valid) for a in aligned)]


def bounds_penalty(x: jax.Array) -> jax.Array:
    """Penalty of each coordinate ``x >= 0`` (elementwise): 0 below 0.9,
    ``10 * (x - 0.9)`` up to 1, then ``min(exp(2x - 2), 10)``."""
    return jnp.where(
        x < 0.9, 0.0, jnp.where(x < 1.0, (x - 0.9) * 10.0, jnp.minimum(jnp.exp(2.0 * x - 2.0), 10.0))
    )


def map_bounds_penalty(pos: jax.Array) -> jax.Array:
    """Penalty for leaving the arena, :func:`bounds_penalty` of ``|x|`` and ``|y|`` summed
    (simple_tag, world_comm)."""
    return jnp.sum(bounds_penalty(jnp.abs(pos)), axis=-1)
