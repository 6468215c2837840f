"""Torus geometry and neighbour rules of SearchAndRescue, in plain vectorised JAX.

Jumanji computes every interaction (views, target detection) with esquilax's ``spatial``
transform: it bins positions into square cells at least as wide as the interaction range,
loops over the 3 x 3 block of cells around each agent, and applies the interaction to the
pairs whose squared torus distance is at most ``range**2``. Here all pairs are compared at
once with broadcasting, and the same rule decides which pairs interact:

- **Distance.** The squared distance uses esquilax's ``shortest_distance`` formula (per
  axis ``min(|a - b|, L - |a - b|)``, squared and summed), compared against ``range**2``
  computed in double precision by Python and rounded to float32 (as esquilax does).
- **Cells.** ``n = floor(L / range)`` cells per axis of width ``L / n``; an entity's cell
  is ``floor_divide(pos, width)``. The viewing entity's 3 x 3 block wraps around the
  torus, but the viewed entity's cell does not: a coordinate that rounds to exactly ``L``
  after the wrap ``pos % L`` (a value a few 1e-8 below 0 becomes ``L`` in float32) puts
  the viewed entity in cell ``n``, which esquilax files under the next row (x) or past
  the grid (y, or both), where some or all of its true neighbours do not look. We keep
  this so results are identical; it needs a coordinate of exactly ``L``, about one
  entity-step in ten million.

The pairwise formulas (``shortest_vector``, ``angular_width``) are Jumanji's, term for
term, so that float32 results are bit-identical.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp

__all__ = [
    "angular_width",
    "in_range",
    "in_view_cone",
    "num_cells",
    "ray_angles",
    "shortest_vector",
    "torus_sq_distance",
]


def shortest_vector(a: jax.Array, b: jax.Array, length: float) -> jax.Array:
    """The shortest displacement from ``a`` to ``b`` on a circle (per axis) of ``length``."""
    x = b - a
    x_ = jnp.sign(x) * (jnp.abs(x) - length)
    return jnp.where(jnp.abs(x) < jnp.abs(x_), x, x_)


def torus_sq_distance(a: jax.Array, b: jax.Array, length: float) -> jax.Array:
    """Squared torus distance between ``a`` and ``b`` (``(..., 2)``), esquilax's formula."""
    x = jnp.abs(a - b)
    d = jnp.where(x > 0.5 * length, length - x, x)
    return jnp.sum(jnp.square(d), axis=-1)


def num_cells(env_size: float, i_range: float) -> int:
    """Cells per axis of esquilax's grid for an interaction range: ``floor(L / range)``."""
    return math.floor(env_size / i_range)


def in_range(pos_a: jax.Array, pos_b: jax.Array, i_range: float, env_size: float) -> jax.Array:
    """Which pairs interact, bool ``(A, B)``: ``b`` is in a cell of ``a``'s 3 x 3 block and
    within ``i_range`` of ``a`` (see the module docstring).

    Args:
        pos_a: the viewing entities, float32 ``(A, 2)``.
        pos_b: the viewed entities, float32 ``(B, 2)``.
        i_range: the interaction range, at most ``env_size``.
        env_size: the side of the torus.
    """
    n = num_cells(env_size, i_range)
    width = env_size / n
    cell_a = jnp.floor_divide(pos_a, width).astype(jnp.int32) % n  # the block wraps
    cell_b = jnp.floor_divide(pos_b, width).astype(jnp.int32)
    flat_b = cell_b[:, 0] * n + cell_b[:, 1]  # esquilax's bin index; cell n spills over
    row_b, col_b = flat_b // n, flat_b % n

    def adjacent(a: jax.Array, b: jax.Array) -> jax.Array:
        gap = (b[None, :] - a[:, None]) % n
        return (gap <= 1) | (gap == n - 1)

    near_cells = adjacent(cell_a[:, 0], row_b) & adjacent(cell_a[:, 1], col_b) & (flat_b < n * n)[None, :]
    close = torus_sq_distance(pos_a[:, None, :], pos_b[None, :, :], env_size) <= i_range**2
    return near_cells & close


def ray_angles(view_angle: float, num_vision: int) -> jax.Array:
    """The view rays' angles relative to the heading, float32 ``(num_vision,)``, evenly
    spread over ``[-view_angle * pi, view_angle * pi]``."""
    half = jnp.asarray(view_angle, jnp.float32) * jnp.pi
    return jnp.linspace(-half, half, num_vision, endpoint=True)


def angular_width(
    pos_a: jax.Array, heading_a: jax.Array, pos_b: jax.Array, i_range: float, radius: float, env_size: float
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """How ``a`` sees a disc of ``radius`` at ``pos_b`` (all arguments broadcast).

    Returns:
        ``(distance / i_range, left, right)``: the normalised distance and the angles of
        the disc's edges relative to ``a``'s heading (``heading - bearing`` -/+ the half
        width ``arctan2(radius, distance)``, Jumanji's sign convention).
    """
    dx = shortest_vector(pos_a, pos_b, env_size)
    dist = jnp.sqrt(jnp.sum(dx * dx, axis=-1))
    bearing = jnp.arctan2(dx[..., 1], dx[..., 0]) % (2 * jnp.pi)
    dh = shortest_vector(bearing, heading_a, 2 * jnp.pi)
    half_width = jnp.arctan2(jnp.asarray(radius, jnp.float32), dist)
    return dist / i_range, dh - half_width, dh + half_width


def in_view_cone(
    pos_a: jax.Array, heading_a: jax.Array, pos_b: jax.Array, view_angle: float, env_size: float
) -> jax.Array:
    """Whether ``b`` lies within ``view_angle * pi`` of ``a``'s heading (bounds included)."""
    dx = shortest_vector(pos_a, pos_b, env_size)
    bearing = jnp.arctan2(dx[..., 1], dx[..., 0]) % (2 * jnp.pi)
    dh = shortest_vector(bearing, heading_a, 2 * jnp.pi)
    half = jnp.asarray(view_angle, jnp.float32) * jnp.pi
    return (dh >= -half) & (dh <= half)
