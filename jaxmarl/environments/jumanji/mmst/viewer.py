"""Rendering of MMST in pure JAX: Jumanji's graph picture, simplified.

Nodes are placed by a spring layout (Fruchterman-Reingold with Jumanji's forces, 100
cooling iterations from Jumanji's fixed random starting points), computed here in JAX
from the adjacency matrix, so a graph is always drawn the same way. Edges are grey lines, drawn in an
agent's colour where they lie on its path (the highest agent wins a shared edge, as in
Jumanji's drawing order). Nodes are discs filled with their owner's colour (black for
utility nodes) inside a ring, yellow where an agent stands and blue elsewhere. Jumanji's
node numbers are left out.

``draw_segments`` (lines as sampled points, with a priority per pixel) is local to this
viewer; it could move to ``jaxmarl.viz.raster`` if other graph renderers need it.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.jumanji.mmst import constants as C
from jaxmarl.environments.jumanji.mmst.types import State
from jaxmarl.viz.raster import draw_circles, to_uint8

__all__ = ["draw_segments", "render_graph", "spring_layout"]


def spring_layout(
    adj_matrix: jax.Array, start: jax.Array, iterations: int = C.LAYOUT_ITERATIONS
) -> jax.Array:
    """A Fruchterman-Reingold spring layout (Jumanji's forces, float32): node positions
    in ``[0.05, 0.96]``.

    Nodes repel each other with force ``k^2 / d`` and edges pull their ends with
    ``d^2 / k``, ``k = sqrt(5 / N)``, from Jumanji's starting points; unlike Jumanji's
    ``spring_layout``, each iteration moves a node by at most the current temperature
    (0.2, cooling by 5% per iteration) and positions are not clipped to ``[-1, 1]^2``
    (the result is rescaled), so graphs do not collapse onto the box's sides and corners.

    Args:
        adj_matrix: bool ``(N, N)``.
        start: float32 ``(N, 2)`` starting positions in ``[-1, 1]``.
        iterations: cooling iterations.

    Returns:
        float32 ``(N, 2)``: ``(x, y)`` with y up.
    """
    num_nodes = adj_matrix.shape[0]
    k = math.sqrt(5 / num_nodes)
    adj = adj_matrix.astype(jnp.float32)

    def relax(_: int, carry: tuple[jax.Array, jax.Array]) -> tuple[jax.Array, jax.Array]:
        pos, temperature = carry
        delta = pos[:, None, :] - pos[None, :, :]  # [i, j] = pos_i - pos_j
        dist = jnp.sqrt(jnp.sum(delta**2, axis=-1))
        direction = delta / (dist + 1e-6)[..., None]
        repulsion = jnp.sum(direction * (k * k / (dist + 1e-6))[..., None], axis=1)
        attraction = -jnp.sum(direction * (adj * dist * dist / k)[..., None], axis=1)
        force = repulsion + attraction
        length = jnp.sqrt(jnp.sum(force**2, axis=-1, keepdims=True))
        pos = pos + force / (length + 1e-9) * jnp.minimum(length, temperature)
        return pos, temperature * 0.95

    pos, _ = jax.lax.fori_loop(0, iterations, relax, (jnp.asarray(start, jnp.float32), jnp.float32(0.2)))
    low, high = jnp.min(pos, axis=0), jnp.max(pos, axis=0)
    return 0.05 + (pos - low) / (1.1 * jnp.maximum(high - low, 1e-6))


def draw_segments(priority: jax.Array, ends: jax.Array, values: jax.Array, half_width: int = 1) -> jax.Array:
    """Stamp line segments onto an integer image, keeping the largest value per pixel.

    Each segment is sampled at about 1.5 points per pixel of the image's longer side, each
    point painting a ``(2 * half_width + 1)`` square; a segment with value 0 paints
    nothing.

    Args:
        priority: int32 ``(H, W)``, the image so far.
        ends: float ``(S, 2, 2)``: each segment's two ends as pixel ``(x, y)``.
        values: int32 ``(S,)``: what each segment paints.
        half_width: the lines' half width in pixels.

    Returns:
        int32 ``(H, W)``.
    """
    height, width = priority.shape
    samples = math.ceil(1.5 * max(height, width)) + 1
    t = jnp.linspace(0.0, 1.0, samples)
    points = ends[:, None, 0, :] + t[None, :, None] * (ends[:, None, 1, :] - ends[:, None, 0, :])
    offsets = np.arange(-half_width, half_width + 1)
    xs = jnp.floor(points[..., 0])[..., None, None] + offsets[:, None]  # (S, samples, dx, dy)
    ys = jnp.floor(points[..., 1])[..., None, None] + offsets[None, :]
    inside = (xs >= 0) & (xs < width) & (ys >= 0) & (ys < height) & (values[:, None, None, None] > 0)
    flat = jnp.where(inside, ys * width + xs, height * width).astype(jnp.int32)
    paint = jnp.broadcast_to(values[:, None, None, None], flat.shape)
    image = priority.reshape(-1).at[flat.reshape(-1)].max(paint.reshape(-1), mode="drop")
    return image.reshape(height, width)


def render_graph(state: State, size: int, palette: np.ndarray, layout_start: np.ndarray) -> jax.Array:
    """Draw ``state``: uint8 ``(size, size, 3)`` (see the module docstring).

    Args:
        state: the state.
        size: the image's side in pixels.
        palette: float ``(A, 3)`` agent colours in [0, 1].
        layout_start: float ``(N, 2)`` the spring layout's starting positions.
    """
    num_agents, num_nodes = state.positions.shape[0], state.adj_matrix.shape[0]
    layout = spring_layout(state.adj_matrix, jnp.asarray(layout_start))
    centres = jnp.stack([layout[:, 0] * size, (1.0 - layout[:, 1]) * size], axis=-1)

    # Edge classes: 0 none, 1 unused (grey), 2 + a on agent a's path.
    steps = jnp.arange(state.path.shape[1] - 1)
    on_path = steps[None, :] < jnp.minimum(state.path_index, state.path.shape[1] - 1)[:, None]
    a_nodes, b_nodes = state.path[:, :-1], state.path[:, 1:]
    owner = jnp.broadcast_to(2 + jnp.arange(num_agents)[:, None], a_nodes.shape)
    paint = jnp.where(on_path, owner, 0).reshape(-1)
    rows = jnp.where(on_path, a_nodes, num_nodes).reshape(-1)
    classes = (
        jnp.zeros((num_nodes, num_nodes), jnp.int32).at[rows, b_nodes.reshape(-1)].max(paint, mode="drop")
    )
    classes = jnp.maximum(classes, classes.T)
    classes = jnp.where(state.adj_matrix, jnp.maximum(classes, 1), 0)
    first, second = np.triu_indices(num_nodes, k=1)
    ends = jnp.stack([centres[first], centres[second]], axis=1)
    half_width = max(1, round(size / 400))
    priority = draw_segments(jnp.zeros((size, size), jnp.int32), ends, classes[first, second], half_width)
    colours = jnp.concatenate(
        [jnp.asarray([C.BACKGROUND, C.EDGE_GREY], jnp.float32), jnp.asarray(palette, jnp.float32)]
    )
    canvas = colours[priority]  # (size, size, 3); class 0 is the background

    # Nodes: a ring, then the fill.
    radius = 0.05 * 5 / (5 + int(math.sqrt(num_nodes))) * size
    occupied = jnp.any(jnp.arange(num_nodes)[:, None] == state.positions[None, :], axis=1)
    rings = jnp.where(
        occupied[:, None], jnp.asarray(C.RING_YELLOW, jnp.float32), jnp.asarray(C.RING_BLUE, jnp.float32)
    )
    owned = state.node_types >= 0
    fills = jnp.where(
        owned[:, None],
        jnp.asarray(palette, jnp.float32)[jnp.maximum(state.node_types, 0)],
        jnp.asarray(C.NODE_BLACK, jnp.float32),
    )
    canvas = draw_circles(canvas, centres, jnp.full((num_nodes,), radius), rings, outline=0.0)
    canvas = draw_circles(canvas, centres, jnp.full((num_nodes,), 0.8 * radius), fills, outline=0.0)
    return to_uint8(canvas)
