"""Pure-JAX renderer of MultiCVRP, after Jumanji's viewer (its city-map background left
out): customers as dots, the depot as a square, each vehicle's route in its own colour of
the ``hsv`` colour map (Jumanji's), y up.

Includes two primitives ``jaxmarl.viz.raster`` lacks: anti-aliased line segments and
squares.
"""

from __future__ import annotations

import colorsys

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.jumanji.multi_cvrp import constants as C
from jaxmarl.environments.jumanji.multi_cvrp.types import State
from jaxmarl.viz.raster import blank_canvas, check_size, draw_circles, to_uint8

__all__ = ["draw_segments", "draw_squares", "palette", "render_state"]


def palette(num_vehicles: int) -> np.ndarray:
    """Vehicle ``i``'s colour: hue ``i / V`` at full saturation, slightly darkened (Jumanji
    samples matplotlib's ``hsv`` map the same way), float32 ``(V, 3)``."""
    return np.array(
        [colorsys.hsv_to_rgb(i / num_vehicles, 1.0, 0.85) for i in range(num_vehicles)], np.float32
    )


def _pixel_centres(canvas: jax.Array) -> tuple[jax.Array, jax.Array]:
    height, width = canvas.shape[0], canvas.shape[1]
    ys, xs = jnp.meshgrid(jnp.arange(height) + 0.5, jnp.arange(width) + 0.5, indexing="ij")
    return xs, ys


def draw_segments(
    canvas: jax.Array,
    starts: jax.Array,
    ends: jax.Array,
    colours: jax.Array,
    width: float,
    visible: jax.Array,
) -> jax.Array:
    """Paint anti-aliased line segments (round caps) onto ``canvas``, later ones on top.

    Args:
        canvas: float32 ``(H, W, 3)``.
        starts, ends: ``(S, 2)`` pixel coordinates ``(x, y)``.
        colours: ``(S, 3)`` in [0, 1].
        width: line width in pixels.
        visible: bool ``(S,)``; invisible segments leave the canvas as it is.
    """
    xs, ys = _pixel_centres(canvas)

    def paint(img: jax.Array, seg: tuple[jax.Array, ...]) -> tuple[jax.Array, None]:
        a, b, colour, show = seg
        ab = b - a
        length2 = jnp.maximum(ab @ ab, 1e-12)
        t = jnp.clip(((xs - a[0]) * ab[0] + (ys - a[1]) * ab[1]) / length2, 0.0, 1.0)
        d = jnp.hypot(xs - (a[0] + t * ab[0]), ys - (a[1] + t * ab[1]))
        cover = (jnp.clip(width / 2 - d + 0.5, 0.0, 1.0) * show)[..., None]
        return img * (1.0 - cover) + colour * cover, None

    canvas, _ = jax.lax.scan(paint, canvas, (starts, ends, colours, visible.astype(jnp.float32)))
    return canvas


def draw_squares(canvas: jax.Array, centres: jax.Array, half: float, colours: jax.Array) -> jax.Array:
    """Paint filled, anti-aliased axis-aligned squares of half-side ``half`` pixels at
    ``(S, 2)`` pixel centres ``(x, y)`` with ``(S, 3)`` colours."""
    xs, ys = _pixel_centres(canvas)

    def paint(img: jax.Array, square: tuple[jax.Array, jax.Array]) -> tuple[jax.Array, None]:
        centre, colour = square
        d = jnp.maximum(jnp.abs(xs - centre[0]), jnp.abs(ys - centre[1]))
        cover = jnp.clip(half - d + 0.5, 0.0, 1.0)[..., None]
        return img * (1.0 - cover) + colour * cover, None

    canvas, _ = jax.lax.scan(paint, canvas, (centres, colours))
    return canvas


def render_state(state: State, map_max: float, num_vehicles: int, size: int) -> jax.Array:
    """The image of ``state``, uint8 ``(size, size, 3)``: the map ``[0, map_max]^2`` with a
    margin of ``4%`` of ``map_max`` on every side, y up.

    Drawn in order: each vehicle's route (``routes[:, :step + 1]``) as lines in its
    colour; each vehicle's current node as a disc in its colour (vehicle 0 largest, so
    vehicles sharing a node show as rings); customers as small dots, black while waiting
    and in the colour of the vehicle that served them; the depot as a black square.
    """
    size = check_size(size, minimum=16)
    pad = C.MARGIN * map_max
    scale = size / (map_max + 2 * pad)

    def to_px(points: jax.Array) -> jax.Array:
        return jnp.stack([(points[..., 0] + pad) * scale, (map_max + pad - points[..., 1]) * scale], -1)

    colours = jnp.asarray(palette(num_vehicles))
    xy = to_px(state.coordinates)
    num_nodes = xy.shape[0]
    canvas = blank_canvas(size, size, C.BACKGROUND)

    # Routes: leg t of vehicle i goes from routes[i, t] to routes[i, t + 1], once taken.
    legs = state.routes.shape[1] - 1
    taken = jnp.arange(legs) < state.step  # (legs,)
    starts, ends = xy[state.routes[:, :-1]], xy[state.routes[:, 1:]]  # (V, legs, 2)
    leg_colours = jnp.broadcast_to(colours[:, None, :], (num_vehicles, legs, 3))
    visible = jnp.broadcast_to(taken[None, :], (num_vehicles, legs))
    canvas = draw_segments(
        canvas,
        starts.reshape(-1, 2),
        ends.reshape(-1, 2),
        leg_colours.reshape(-1, 3),
        max(1.5, size / 256),
        visible.reshape(-1),
    )

    # Vehicles on their current nodes, largest first.
    vehicle_radius = size * 0.028 * (1.0 - 0.5 * jnp.arange(num_vehicles) / num_vehicles)
    canvas = draw_circles(canvas, xy[state.positions], vehicle_radius, colours, outline=1.0)

    # Customers: in the colour of whoever served them (visited[i, k]: vehicle i reached k).
    visited = jnp.any((state.routes[:, 1:, None] == jnp.arange(num_nodes)) & taken[None, :, None], axis=1)
    served = jnp.any(visited, axis=0)
    node_colours = jnp.where(
        served[:, None], colours[jnp.argmax(visited, axis=0)], jnp.asarray(C.NODE_COLOUR, jnp.float32)
    )
    radius = jnp.full((num_nodes - 1,), max(2.0, size * 0.011))
    canvas = draw_circles(canvas, xy[1:], radius, node_colours[1:], outline=0.0)

    # The depot.
    depot_colour = jnp.asarray(C.NODE_COLOUR, jnp.float32)[None]
    canvas = draw_squares(canvas, xy[:1], max(3.0, size * 0.018), depot_colour)
    return to_uint8(canvas)
