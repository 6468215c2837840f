"""Rendering of SMAX battles, in pure JAX (runs under ``jit`` and ``vmap``).

Drawn bottom to top: the map; lines from each unit to the units it hit during the last
step (blue for allies, red for enemies); dead units as small grey discs; living units
as discs of their true radius, coloured by team (allies blue, enemies red) tinted by
type (terran grey, protoss gold, zerg purple), with their type's letter shown by a
darker core; and health bars above them. Map ``y`` points up.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxmarl.environments.smax import constants as C
from jaxmarl.environments.smax.dynamics import Rules
from jaxmarl.environments.smax.types import State
from jaxmarl.viz.raster import blank_canvas, draw_circles, to_uint8

__all__ = ["render_battle", "unit_colours"]


def unit_colours(unit_type: jax.Array, num_allies: int) -> jax.Array:
    """RGB in [0, 1] of every unit, float32 ``(U, 3)``: team colour tinted by type."""
    team = (jnp.arange(unit_type.shape[0]) >= num_allies).astype(jnp.int32)
    return 0.65 * jnp.asarray(C.TEAM_COLOURS)[team] + 0.35 * jnp.asarray(C.TYPE_TINTS)[unit_type]


def render_battle(state: State, rules: Rules, size: int = 400) -> jax.Array:
    """Draw ``state`` on a ``size x size`` canvas: uint8 ``(size, size, 3)``."""
    scale = size / max(rules.width, rules.height)
    centre = jnp.stack([state.pos[:, 0] * scale, size - state.pos[:, 1] * scale], -1)  # (U, 2) pixels
    radius = jnp.asarray(C.RADIUS)[state.unit_type] * scale
    canvas = blank_canvas(size, size, C.BACKGROUND_COLOUR)
    ys, xs = jnp.meshgrid(jnp.arange(size) + 0.5, jnp.arange(size) + 0.5, indexing="ij")
    pix = jnp.stack([xs, ys], -1)  # (H, W, 2)

    # Attack lines: distance of each pixel to each attacker -> target segment.
    hit = state.last_attacked >= 0
    start, end = centre, centre[jnp.maximum(state.last_attacked, 0)]
    seg = end - start
    t = jnp.einsum("hwuk,uk->hwu", pix[:, :, None, :] - start, seg) / jnp.maximum(
        jnp.sum(seg * seg, -1), 1e-6
    )
    closest = start + jnp.clip(t, 0.0, 1.0)[..., None] * seg
    d = jnp.sqrt(jnp.sum((pix[:, :, None, :] - closest) ** 2, -1))  # (H, W, U)
    cover = jnp.clip(1.5 - d, 0.0, 1.0) * hit
    team = (jnp.arange(state.pos.shape[0]) >= rules.num_allies).astype(jnp.int32)
    line_colour = jnp.asarray(C.ATTACK_LINE_COLOURS)[team]
    alpha = jnp.max(cover, -1)[..., None]
    colour = jnp.einsum("hwu,uk->hwk", cover, line_colour) / jnp.maximum(jnp.sum(cover, -1), 1e-6)[..., None]
    canvas = canvas * (1 - alpha) + colour * alpha

    # Units: dead ones small and grey, living ones in colour with a darker core.
    grey = jnp.full_like(centre[:, :1].repeat(3, -1), 0.7)
    canvas = draw_circles(canvas, centre, jnp.where(state.alive, -10.0, 0.5 * radius), grey, outline=0.0)
    colours = unit_colours(state.unit_type, rules.num_allies)
    canvas = draw_circles(canvas, centre, jnp.where(state.alive, radius, -10.0), colours, outline=1.0)
    canvas = draw_circles(
        canvas, centre, jnp.where(state.alive, 0.35 * radius, -10.0), 0.6 * colours, outline=0.0
    )

    # Health bars above living units.
    frac = state.health / jnp.asarray(C.HEALTH)[state.unit_type]
    half = jnp.maximum(radius, 4.0)
    left = centre[:, 0] - half
    top = centre[:, 1] - radius - 6.0
    in_x = (xs[..., None] >= left) & (xs[..., None] <= centre[:, 0] + half)
    in_y = (ys[..., None] >= top) & (ys[..., None] <= top + 3.0)
    bar = in_x & in_y & state.alive
    filled = bar & (xs[..., None] <= left + 2 * half * frac)
    canvas = jnp.where(jnp.any(bar, -1)[..., None], jnp.asarray(C.HEALTH_BAR_BACK), canvas)
    canvas = jnp.where(jnp.any(filled, -1)[..., None], jnp.asarray(C.HEALTH_BAR_COLOUR), canvas)
    return to_uint8(canvas)
