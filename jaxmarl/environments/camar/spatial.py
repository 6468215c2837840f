"""Bucket grid over the static obstacle circles, so that collision and observation
queries cost what is near an agent, not the number of circles on the map.

The plane is cut into square buckets of side ``bucket`` at least the interaction radius
(the observation window plus the largest agent and obstacle radii). Every obstacle circle
is filed under the bucket holding its centre; an agent's candidates are the circles of the
3 x 3 buckets around its own, which contain every circle whose centre is within
``bucket`` of the agent. A table row holds at most ``capacity`` circles, a bound each map
generator proves for its layouts (see ``capacity_bound``); empty slots hold the index
``num_landmarks``, a dummy circle far away from everything.
"""

from __future__ import annotations

from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np

__all__ = ["FAR_AWAY", "BucketGrid", "length"]

FAR_AWAY = 1.0e6  # position of the dummy circle behind empty table slots


def length(v: jax.Array, keepdims: bool = False) -> jax.Array:
    """Euclidean length of 2-vectors over the last axis, like ``jnp.linalg.norm(v,
    axis=-1)``: XLA on a CPU reduces a trailing axis of size 2 slowly (3x slower on a
    table of distances), so the squares are added explicitly. The larger
    component's square comes first, so that the compiler's fused multiply-adds give the
    same value for ``(x, y)``, ``(y, x)`` and ``(-x, y)``: exact ties between symmetric
    objects stay ties, and are broken by index as in camar."""
    a, b = jnp.abs(v[..., 0]), jnp.abs(v[..., 1])
    hi, lo = jnp.maximum(a, b), jnp.minimum(a, b)
    out = jnp.sqrt(hi * hi + lo * lo)
    return out[..., None] if keepdims else out


@dataclass(frozen=True)
class BucketGrid:
    """Geometry of the bucket grid: ``origin`` (x, y) of bucket (0, 0)'s lower-left
    corner, bucket side ``bucket``, ``shape`` (columns, rows) and row ``capacity``."""

    origin: tuple[float, float]
    bucket: float
    shape: tuple[int, int]
    capacity: int

    @classmethod
    def covering(cls, low: np.ndarray, high: np.ndarray, reach: float, capacity: int = 1) -> BucketGrid:
        """The grid of buckets of side ``reach`` covering the box ``[low, high]`` with a
        margin of at least one bucket on every side (so no circle of the box lies in an
        edge bucket)."""
        bucket = float(reach)
        low = np.asarray(low, np.float64) - bucket
        size = np.asarray(high, np.float64) + 2 * bucket - low
        shape = tuple(int(s) for s in np.maximum(np.ceil(size / bucket), 1).astype(int))
        return cls((float(low[0]), float(low[1])), bucket, (shape[0], shape[1]), int(capacity))

    @property
    def inv_bucket(self) -> float:
        """``1 / bucket``, by which positions are scaled to bucket coordinates."""
        return 1.0 / self.bucket

    @property
    def num_buckets(self) -> int:
        return self.shape[0] * self.shape[1]

    def cells_np(self, pos: np.ndarray) -> np.ndarray:
        """Bucket index of each position (numpy, clipped into the grid)."""
        ij = np.floor((np.asarray(pos, np.float64) - np.asarray(self.origin)) / self.bucket).astype(np.int64)
        ij = np.clip(ij, 0, np.asarray(self.shape) - 1)
        return ij[..., 1] * self.shape[0] + ij[..., 0]

    def max_count_np(self, pos: np.ndarray) -> int:
        """The most circles any bucket receives from ``pos`` ``(L, 2)``."""
        if len(pos) == 0:
            return 1
        return int(np.bincount(self.cells_np(pos), minlength=self.num_buckets).max())

    def cells(self, pos: jax.Array) -> jax.Array:
        """Bucket (column, row) of each position, clipped into the grid, int32 ``(..., 2)``."""
        # Times the reciprocal (as XLA would rewrite a division by a constant), spelled
        # out so that build_np's numpy arithmetic files every circle identically.
        inv = jnp.asarray(self.inv_bucket, pos.dtype)
        ij = jnp.floor((pos - jnp.asarray(self.origin, pos.dtype)) * inv).astype(jnp.int32)
        return jnp.clip(ij, 0, jnp.asarray(self.shape, jnp.int32) - 1)

    def build(self, landmark_pos: jax.Array) -> jax.Array:
        """The table ``(num_buckets + 1, capacity)`` of circle indices per bucket, in
        increasing index order, padded with ``len(landmark_pos)``; the last row is empty
        (it stands for buckets outside the grid)."""
        num = landmark_pos.shape[0]
        ij = self.cells(landmark_pos)
        cell = ij[:, 1] * self.shape[0] + ij[:, 0]
        order = jnp.argsort(cell, stable=True)
        sorted_cell = cell[order]
        start = jnp.searchsorted(sorted_cell, jnp.arange(self.num_buckets), side="left")
        count = jnp.searchsorted(sorted_cell, jnp.arange(self.num_buckets), side="right") - start
        slot = start[:, None] + jnp.arange(self.capacity)[None, :]
        idx = order[jnp.minimum(slot, num - 1)] if num else jnp.zeros_like(slot)
        table = jnp.where(jnp.arange(self.capacity)[None, :] < count[:, None], idx, num).astype(jnp.int32)
        return jnp.concatenate([table, jnp.full((1, self.capacity), num, jnp.int32)])

    def build_np(self, landmark_pos: np.ndarray) -> np.ndarray:
        """:meth:`build` in numpy, in the same float32 arithmetic (for layouts fixed at
        construction: one eager JAX call per layout would compile for every layout size)."""
        pos = np.asarray(landmark_pos, np.float32).reshape(-1, 2)
        num = pos.shape[0]
        scaled = (pos - np.asarray(self.origin, np.float32)) * np.float32(self.inv_bucket)
        ij = np.floor(scaled).astype(np.int32)
        ij = np.clip(ij, 0, np.asarray(self.shape, np.int32) - 1)
        cell = ij[:, 1] * self.shape[0] + ij[:, 0]
        order = np.argsort(cell, kind="stable")
        buckets = np.arange(self.num_buckets)
        start = np.searchsorted(cell[order], buckets, side="left")
        count = np.searchsorted(cell[order], buckets, side="right") - start
        slots = np.arange(self.capacity)
        idx = order[np.minimum(start[:, None] + slots, max(num - 1, 0))] if num else 0
        table = np.where(slots[None, :] < count[:, None], idx, num).astype(np.int32)
        return np.concatenate([table, np.full((1, self.capacity), num, np.int32)])

    def neighbour_rows(self, pos: jax.Array) -> jax.Array:
        """Table rows of the 3 x 3 buckets around each position, int32 ``(..., 9)``, each
        bucket once. A position outside the grid is first moved to the nearest edge
        bucket; neighbours outside the grid get the empty row. Since no circle lies in an
        edge bucket (see :meth:`covering`), the rows hold every circle within ``bucket``
        of the position."""
        ij = self.cells(pos)
        offsets = jnp.asarray([(dx, dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1)], jnp.int32)
        nb = ij[..., None, :] + offsets
        shape = jnp.asarray(self.shape, jnp.int32)
        inside = jnp.all((nb >= 0) & (nb < shape), axis=-1)
        return jnp.where(inside, nb[..., 1] * self.shape[0] + nb[..., 0], self.num_buckets)
