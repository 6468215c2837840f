"""Plane geometry of JaxNav: angles, robot footprints, and the collision tests between
robots, grid walls and lidar beams.

Every test is the one JaxMARL 0.2.0 uses (``maps/grid_map.py``), written with the same
floating-point expressions so that both agree to the bit, vectorised over cells, sides
and beams instead of nested ``vmap``s. Where JaxMARL's test is wrong the docstring says
so and what is done instead (see also the "Differences" section of the docs page).

Conventions: points are ``(x, y)`` in metres; a grid ``map_data[row, col]`` covers
``x`` in ``[col, col + 1) * cell_size`` and ``y`` in ``[row, row + 1) * cell_size``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

__all__ = [
    "agent_collisions_circle",
    "agent_collisions_polygon",
    "beam_circle_index",
    "beam_polygon_index",
    "cart2pol",
    "circle_map_collision",
    "euclid_dist",
    "grid_lookup",
    "point_map_collision",
    "pol2cart",
    "polygon_map_collision",
    "rot_mat",
    "rotation_matrix",
    "segments_intersect",
    "transform_coords",
    "unitvec",
    "wrap",
]


# ------------------------------------------------------------------ angles and frames
def wrap(angle: jax.Array) -> jax.Array:
    """``angle`` brought into ``[-pi, pi)`` by one turn (inputs lie within a turn of it)."""
    angle = jnp.asarray(angle)
    wrapped = jnp.where(angle >= jnp.pi, angle - 2 * jnp.pi, angle)
    return jnp.where(angle < -jnp.pi, wrapped + 2 * jnp.pi, wrapped)


def cart2pol(x: jax.Array, y: jax.Array) -> jax.Array:
    """``(rho, phi)`` of the point ``(x, y)``."""
    return jnp.array([jnp.sqrt(x**2 + y**2), jnp.arctan2(y, x)])


def pol2cart(rho: jax.Array, phi: jax.Array) -> jax.Array:
    """``(x, y)`` of the polar point ``(rho, phi)``."""
    return jnp.array([rho * jnp.cos(phi), rho * jnp.sin(phi)])


def unitvec(theta: jax.Array) -> jax.Array:
    """The unit vector at angle ``theta``, ``(2,)``."""
    return jnp.array([jnp.cos(theta), jnp.sin(theta)])


def euclid_dist(x: jax.Array, y: jax.Array) -> jax.Array:
    """Euclidean distance between two points."""
    return jnp.linalg.norm(jnp.asarray(x) - jnp.asarray(y))


def rotation_matrix(theta: jax.Array) -> jax.Array:
    """2x2 rotation by ``theta`` (radians, anticlockwise)."""
    c, s = jnp.cos(theta), jnp.sin(theta)
    return jnp.array([[c, -s], [s, c]])


def rot_mat(theta: jax.Array) -> jax.Array:
    """:func:`rotation_matrix` of a scalar or ``(1,)`` angle (JaxMARL's ``rot_mat``)."""
    return rotation_matrix(jnp.reshape(theta, ()))


def transform_coords(pos: jax.Array, theta: jax.Array, coords: jax.Array | np.ndarray) -> jax.Array:
    """Robot-frame points ``coords`` ``(V, 2)`` placed at ``pos`` with heading ``theta``."""
    return jnp.matmul(rotation_matrix(theta), coords.T).T + pos


# ------------------------------------------------------------------ segments
def segments_intersect(
    p1: jax.Array, p2: jax.Array, p3: jax.Array, p4: jax.Array
) -> tuple[jax.Array, jax.Array]:
    """Whether segments ``p1-p2`` and ``p3-p4`` cross (endpoints included), and the
    parameter ``u`` of the crossing along ``p1-p2``. Arrays of points broadcast; the last
    axis is ``(x, y)``. Parallel segments never cross (the division gives inf or nan)."""
    x1, y1 = p1[..., 0], p1[..., 1]
    x2, y2 = p2[..., 0], p2[..., 1]
    x3, y3 = p3[..., 0], p3[..., 1]
    x4, y4 = p4[..., 0], p4[..., 1]
    denom = (y4 - y3) * (x2 - x1) - (x4 - x3) * (y2 - y1)
    ua = ((x4 - x3) * (y1 - y3) - (y4 - y3) * (x1 - x3)) / denom
    ub = ((x2 - x1) * (y1 - y3) - (y2 - y1) * (x1 - x3)) / denom
    return (ua >= 0) & (ua <= 1) & (ub >= 0) & (ub <= 1), ua


# ------------------------------------------------------------------ robots and walls
def grid_lookup(map_data: jax.Array, rows: jax.Array, cols: jax.Array) -> jax.Array:
    """``map_data[rows, cols]`` with NumPy/JAX indexing rules (a negative index counts from
    the end, then out-of-range indices are clamped), as a gather from the flattened grid
    (several times faster than a 2-d gather under ``vmap`` on CPU)."""
    height, width = map_data.shape
    rows = jnp.clip(jnp.where(rows < 0, rows + height, rows), 0, height - 1)
    cols = jnp.clip(jnp.where(cols < 0, cols + width, cols), 0, width - 1)
    return map_data.reshape(-1)[rows * width + cols]


def point_map_collision(points: jax.Array, map_data: jax.Array, cell_size: float) -> jax.Array:
    """Whether each point ``(..., 2)`` lies in a wall cell (JaxMARL's indexing: floor of
    the scaled coordinates, indexed as ``map_data[row, col]``, see :func:`grid_lookup`)."""
    idx = jnp.floor(points / cell_size).astype(jnp.int32)
    return grid_lookup(map_data, idx[..., 1], idx[..., 0]) == 1


def circle_map_collision(
    pos: jax.Array, map_data: jax.Array, rad: jax.Array | float, cell_size: float, window: int
) -> jax.Array:
    """Whether a disc of radius ``rad`` at ``pos`` touches a wall cell.

    Every cell within ``window`` cells of the one holding ``pos`` is tested: the disc
    touches it when the cell's point closest to ``pos`` is within ``rad``. JaxMARL tests
    only the four cells holding the corners of the disc's bounding box, which is the same
    for discs narrower than a cell (``rad < cell_size / 2``) and misses cells when wider;
    for ``cell_size != 1`` it swaps the row and column of its perimeter points.

    Args:
        pos: ``(2,)``.
        map_data: int ``(height, width)``.
        rad: radius in metres (a float or a float32 scalar).
        cell_size: side of a cell in metres.
        window: cells to look at on each side, at least ``ceil(rad / cell_size)``.
    """
    height, width = map_data.shape
    offsets = np.arange(-window, window + 1)
    base = jnp.floor(pos / cell_size).astype(jnp.int32)
    cols = base[0] + offsets
    rows = base[1] + offsets
    half = cell_size / 2
    cx = (cols + 0.5) * cell_size if cell_size != 1.0 else cols + 0.5
    cy = (rows + 0.5) * cell_size if cell_size != 1.0 else rows + 0.5
    px = jnp.clip(pos[0] - cx, -half, half) + cx  # (K,)
    py = jnp.clip(pos[1] - cy, -half, half) + cy
    dx = px[None, :] - pos[0]
    dy = py[:, None] - pos[1]
    touch = jnp.sqrt(dx * dx + dy * dy) <= rad  # (rows, cols)
    inside = ((rows >= 0) & (rows < height))[:, None] & ((cols >= 0) & (cols < width))[None, :]
    walls = map_data[jnp.clip(rows, 0, height - 1)[:, None], jnp.clip(cols, 0, width - 1)[None, :]] == 1
    return jnp.any(touch & walls & inside)


def polygon_map_collision(
    pos: jax.Array,
    theta: jax.Array,
    map_data: jax.Array,
    coords: np.ndarray,
    cell_size: float,
    window: int,
) -> jax.Array:
    """Whether the robot footprint ``coords`` ``(V, 2)`` at ``pos``, ``theta`` hits a wall.

    For each wall cell within ``window`` cells of the one holding ``pos``: a footprint
    side crosses one of the cell's sides, or the whole footprint lies in the cell
    (JaxMARL's test; a wall cell wholly inside a footprint larger than it is not seen,
    which continuous motion in steps shorter than a cell never produces).
    """
    height, width = map_data.shape
    offsets = np.arange(-window, window + 1)
    base = jnp.floor(pos / cell_size)
    cols = (base[0] + offsets).astype(jnp.int32)  # (K,)
    rows = (base[1] + offsets).astype(jnp.int32)
    verts = transform_coords(pos, theta, coords) / cell_size  # (V, 2) in cells
    ends = jnp.roll(verts, -1, axis=0)
    # Cell sides (left, right, bottom, top) of cell (row, col), as unit offsets.
    side_from = np.array([[0, 0], [1, 0], [0, 0], [0, 1]], np.float32)
    side_to = np.array([[0, 1], [1, 1], [1, 0], [1, 1]], np.float32)
    corner = jnp.stack(jnp.broadcast_arrays(cols[None, :], rows[:, None]), axis=-1).astype(verts.dtype)
    c = corner[:, :, None, None, :]  # (K, K, 1, 1, 2)
    crossed, _ = segments_intersect(
        verts[None, None, :, None, :],
        ends[None, None, :, None, :],
        c + side_from[None, None, None, :, :],
        c + side_to[None, None, None, :, :],
    )  # (K, K, V, 4)
    cut = jnp.any(crossed, axis=(2, 3))
    x, y = verts[:, 0], verts[:, 1]
    cx, cy = corner[..., 0:1], corner[..., 1:2]  # (K, K, 1)
    within = jnp.all((x >= cx) & (x <= cx + 1) & (y >= cy) & (y <= cy + 1), axis=-1)
    inside = ((rows >= 0) & (rows < height))[:, None] & ((cols >= 0) & (cols < width))[None, :]
    walls = map_data[rows[:, None], cols[None, :]].astype(bool)
    return jnp.any((cut | within) & walls & inside)


# ------------------------------------------------------------------ robots and robots
def agent_collisions_circle(pos: jax.Array, rad: float) -> jax.Array:
    """Which discs of radius ``rad`` at ``pos`` ``(n, 2)`` touch another, bool ``(n,)``."""
    n = pos.shape[0]
    diff = pos[None, :, :] - pos[:, None, :]
    dist = jnp.sqrt(jnp.sum(diff**2, axis=-1))
    return jnp.any((dist <= rad * 2) & ~np.eye(n, dtype=bool), axis=1)


def agent_collisions_polygon(pos: jax.Array, theta: jax.Array, coords: np.ndarray) -> jax.Array:
    """Which convex footprints ``coords`` at ``pos`` ``(n, 2)``, ``theta`` ``(n,)`` overlap
    another, bool ``(n,)``, by the separating axis theorem. As in JaxMARL every pair is
    projected on the side normals of all robots (any separating axis proves a gap)."""
    n = pos.shape[0]
    verts = jax.vmap(transform_coords, in_axes=(0, 0, None))(pos, theta, coords)  # (n, V, 2)
    edges = verts - jnp.roll(verts, 1, axis=1)
    normals = jnp.stack([edges[..., 1], -edges[..., 0]], axis=-1)
    axes = (normals / jnp.linalg.norm(normals, axis=-1, keepdims=True)).reshape(-1, 2)  # (A, 2)
    proj = axes[:, None, None, 0] * verts[None, :, :, 0] + axes[:, None, None, 1] * verts[None, :, :, 1]
    lo, hi = jnp.min(proj, axis=-1), jnp.max(proj, axis=-1)  # (A, n)
    overlap = (lo[:, :, None] <= hi[:, None, :]) & (lo[:, None, :] <= hi[:, :, None])  # (A, n, n)
    touching = jnp.all(overlap, axis=0) & ~np.eye(n, dtype=bool)
    return jnp.any(touching, axis=1)


# ------------------------------------------------------------------ beams and robots
def beam_polygon_index(
    start: jax.Array, end: jax.Array, pos: jax.Array, theta: jax.Array, coords: np.ndarray, resolution: float
) -> jax.Array:
    """Where beams ``start-end`` (``(B, 2)`` each) first cross the footprint of a robot at
    ``pos``, ``theta``: ``floor(distance / resolution)``, or -1 where they miss, int32
    ``(B,)``."""
    verts = transform_coords(pos, theta, coords)
    ends = jnp.roll(verts, -1, axis=0)
    hit, ua = segments_intersect(start[:, None, :], end[:, None, :], verts[None], ends[None])  # (B, V)
    x = start[:, None, 0] + ua * (end[:, None, 0] - start[:, None, 0])
    y = start[:, None, 1] + ua * (end[:, None, 1] - start[:, None, 1])
    dx, dy = x - start[:, None, 0], y - start[:, None, 1]
    index = jnp.floor(jnp.sqrt(dx * dx + dy * dy) / resolution)
    first = jnp.min(jnp.where(hit, index, jnp.inf), axis=1)
    return jnp.where(first == jnp.inf, -1.0, first).astype(jnp.int32)


def beam_circle_index(
    start: jax.Array, end: jax.Array, pos: jax.Array, rad: float, resolution: float
) -> jax.Array:
    """Where beams ``start-end`` (``(B, 2)`` each) enter a disc of radius ``rad`` at
    ``pos``: ``floor(distance / resolution)``, or -1 where they miss (or start inside
    it), int32 ``(B,)``."""
    d = end - start
    f = start - pos
    a = jnp.sum(d * d, axis=-1)
    b = 2 * jnp.sum(f * d, axis=-1)
    c = jnp.sum(f * f, axis=-1) - rad**2
    disc = b**2 - 4 * a * c
    t1 = (-b - jnp.sqrt(disc)) / (2 * a)
    miss = (disc < 0) | (t1 < 0) | (t1 > 1)
    hit = start + t1[:, None] * d
    dh = hit - start
    index = jnp.floor(jnp.sqrt(jnp.sum(dh * dh, axis=-1)) / resolution).astype(jnp.int32)
    return jnp.where(miss, -1, index)
