"""Rendering of CAMAR states (pure JAX): obstacles grey, agents coloured discs
(differential-drive agents with a heading tick), goals rings of their agent's colour."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.viz.raster import blank_canvas, check_size, draw_circles, to_uint8

__all__ = ["render_state"]

OBSTACLE = (0.55, 0.55, 0.58)
BACKGROUND = (0.97, 0.97, 0.95)


def _palette(n: int) -> np.ndarray:
    hues = (np.arange(n) * 0.618034) % 1.0
    h6 = hues * 6
    c = np.stack([np.abs(h6 - 3) - 1, 2 - np.abs(h6 - 2), 2 - np.abs(h6 - 4)], -1)
    return (0.15 + 0.7 * np.clip(c, 0, 1)).astype(np.float32)


def render_state(env: Any, state: Any, size: int = 512, **kwargs: Any) -> jax.Array:
    """The image of ``state``, uint8 ``(H, W, 3)`` with ``max(H, W) == size`` (the map's
    ``width`` x ``height``, y up)."""
    if kwargs:
        raise TypeError(f"Camar.render got unknown keyword(s) {sorted(kwargs)}")
    size = check_size(size, minimum=16)
    world_w, world_h = env.map.width + 2 * env.map.landmark_rad, env.map.height + 2 * env.map.landmark_rad
    scale = size / max(world_w, world_h)
    img_w, img_h = max(round(world_w * scale), 1), max(round(world_h * scale), 1)

    def to_px(p: jax.Array) -> jax.Array:
        return jnp.stack([(p[:, 0] + world_w / 2) * scale, (world_h / 2 - p[:, 1]) * scale], -1)

    canvas = blank_canvas(img_h, img_w, BACKGROUND)
    n = env.num_agents
    colours = jnp.asarray(_palette(n))
    lm = state.landmark_pos
    canvas = draw_circles(
        canvas,
        to_px(lm),
        jnp.full((lm.shape[0],), env.map.landmark_rad * scale),
        jnp.broadcast_to(jnp.asarray(OBSTACLE), (lm.shape[0], 3)),
        outline=0.0,
        max_radius=float(env.map.landmark_rad) * scale,  # hundreds of small discs
    )
    ring = jnp.maximum(state.goal_rad * scale, 2.0)
    canvas = draw_circles(
        canvas, to_px(state.goal_pos), ring, 0.5 * colours + 0.5, outline=1.5, outline_colour=(0.1, 0.1, 0.1)
    )
    canvas = draw_circles(canvas, to_px(state.pos), state.agent_rad * scale, colours, outline=1.0)
    diff = jnp.asarray(env.kinds == 1)
    tip = state.pos + (state.agent_rad * 0.7)[:, None] * jnp.stack(
        [jnp.cos(state.angle), jnp.sin(state.angle)], -1
    )
    dot = jnp.where(diff, jnp.maximum(state.agent_rad * scale * 0.25, 1.0), 0.0)
    canvas = draw_circles(canvas, to_px(tip), dot, jnp.zeros((n, 3)), outline=0.0)
    return to_uint8(canvas)
