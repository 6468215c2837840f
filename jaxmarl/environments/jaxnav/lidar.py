"""The simulated lidar of JaxNav robots.

Each robot casts ``num_beams`` beams at angles ``linspace(-pi * f, pi * f, num_beams)``
from its heading (``f`` = ``lidar_angle_factor``; with ``f = 1`` the first and last beam
coincide). Along a beam the sensor samples ``K = int(max_range / resolution)`` points at
distances ``ranges = linspace(0, max_range, K)`` (so 120 points 6/119 m apart by
default) and reports the distance of the first point that lies in a wall cell. Another
robot hit by the beam (its footprint's sides, or its disc for circular robots) at
distance ``d`` counts as a hit at sample ``floor(d / resolution)`` (JaxMARL measures robot
hits in units of ``resolution``, not of the sample spacing). A beam that hits nothing
reads ``max_range``.

This is JaxMARL 0.2.0's sensor, point for point (``JaxNav._lidar_sense``), but cheaper:
the beam directions' sines and cosines are computed once per beam rather than once per
sample point, and the first hit is a reduction rather than a scatter and ``argmax``.
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp

from jaxmarl.environments.jaxnav.geometry import grid_lookup

__all__ = ["hit_points", "lidar_scan"]

# (start, end, pos, theta) of beams and one other robot -> first hit index per beam, -1 for none
RobotHitFn = Callable[[jax.Array, jax.Array, jax.Array, jax.Array], jax.Array]


def lidar_scan(
    idx: int | jax.Array,
    pos: jax.Array,
    theta: jax.Array,
    map_data: jax.Array,
    angles: jax.Array,
    ranges: jax.Array,
    cell_size: float,
    robot_hit: RobotHitFn,
) -> jax.Array:
    """The ranges robot ``idx`` reads, float32 ``(num_beams,)``.

    Args:
        idx: which robot senses.
        pos: every robot's position, ``(n, 2)``.
        theta: every robot's heading, ``(n,)``.
        map_data: the occupancy grid.
        angles: the beams' angles relative to the heading, ``(num_beams,)``.
        ranges: the sample distances along a beam, ``(K,)``, from 0 to the max range.
        cell_size: side of a grid cell in metres.
        robot_hit: the first-hit index of beams on another robot (see
            ``geometry.beam_polygon_index`` / ``beam_circle_index``).
    """
    n = pos.shape[0]
    num_samples = ranges.shape[0]
    beam = angles + theta[idx]
    cos, sin = jnp.cos(beam), jnp.sin(beam)
    xs = ranges[None, :] * cos[:, None] + pos[idx, 0]  # (B, K)
    ys = ranges[None, :] * sin[:, None] + pos[idx, 1]
    rows = jnp.floor(ys / cell_size).astype(jnp.int32)
    cols = jnp.floor(xs / cell_size).astype(jnp.int32)
    walls = grid_lookup(map_data, rows, cols) == 1  # (B, K)
    first_wall = jnp.min(jnp.where(walls, jnp.arange(num_samples), num_samples), axis=1)

    start = jnp.stack([xs[:, 0], ys[:, 0]], axis=-1)
    end = jnp.stack([xs[:, -1], ys[:, -1]], axis=-1)
    others = jax.vmap(robot_hit, in_axes=(None, None, 0, 0))(start, end, pos, theta)  # (n, B)
    others = jnp.where((jnp.arange(n) == idx)[:, None] | (others < 0), num_samples, others)
    first_robot = jnp.min(others, axis=0)
    # No robot hit: the last sample counts as a hit (the max range). A robot hit at index
    # K or beyond (exactly at the max range) reads the max range too (JaxMARL: 0 when no
    # wall is hit either, a dropped out-of-range update).
    first_robot = jnp.minimum(first_robot, num_samples - 1)
    return ranges[jnp.minimum(first_wall, first_robot)]


def hit_points(pos: jax.Array, theta: jax.Array, angles: jax.Array, readings: jax.Array) -> jax.Array:
    """Where one robot's beams end for the ranges it ``readings`` ``(num_beams,)`` read,
    ``(num_beams, 2)``."""
    beam = angles + theta
    return jnp.stack([readings * jnp.cos(beam) + pos[0], readings * jnp.sin(beam) + pos[1]], axis=-1)
