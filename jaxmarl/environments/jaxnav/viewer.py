"""Rendering of JaxNav states, in pure JAX (``JaxNav.render``), and JaxMARL's matplotlib
helpers (``init_render``, ``plot_lidar``).

Every pixel is computed from the state (its world point's cell, its distance to goals,
heading lines and hit points, whether it lies inside a robot's footprint), so rendering
runs under ``jit`` and ``vmap``. Drawn: floor (white) and walls (dark grey); a faint line
from each robot to its goal; each goal as a ring of ``goal_radius`` in its robot's
colour around a small dot; lidar hit points (blue, optional); robots as their footprint
in their colour (grey once done; evaporated robots are not drawn) with a black outline
and a black heading line. The world's ``y`` axis points up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.jaxnav import constants as C
from jaxmarl.environments.jaxnav.geometry import transform_coords
from jaxmarl.environments.jaxnav.lidar import hit_points
from jaxmarl.environments.jaxnav.types import State
from jaxmarl.viz.raster import check_size, to_uint8

if TYPE_CHECKING:
    from jaxmarl.environments.jaxnav.env import JaxNav

__all__ = ["init_render", "plot_lidar", "render_state"]


def _segment_distance(px: jax.Array, py: jax.Array, a: jax.Array, b: jax.Array) -> jax.Array:
    """Distance of each pixel point to the segment ``a-b``."""
    ab = b - a
    t = ((px - a[0]) * ab[0] + (py - a[1]) * ab[1]) / jnp.maximum(jnp.sum(ab * ab), 1e-12)
    t = jnp.clip(t, 0.0, 1.0)
    return jnp.hypot(px - (a[0] + t * ab[0]), py - (a[1] + t * ab[1]))


def _inside_polygon(px: jax.Array, py: jax.Array, verts: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Whether each point lies in the convex polygon ``verts`` ``(V, 2)`` (either vertex
    order), and its distance to the nearest side."""
    a, b = verts, jnp.roll(verts, -1, axis=0)
    edge = b - a
    length = jnp.maximum(jnp.linalg.norm(edge, axis=-1), 1e-12)
    cross = edge[:, 0, None, None] * (py[None] - a[:, 1, None, None]) - edge[:, 1, None, None] * (
        px[None] - a[:, 0, None, None]
    )
    inside = jnp.all(cross >= 0, axis=0) | jnp.all(cross <= 0, axis=0)
    return inside, jnp.min(jnp.abs(cross) / length[:, None, None], axis=0)


def _paint(img: jax.Array, mask: jax.Array, colour: Any, alpha: float | jax.Array = 1.0) -> jax.Array:
    colour = jnp.asarray(colour, jnp.float32)
    weight = (mask.astype(jnp.float32) * alpha)[..., None]
    return img * (1 - weight) + colour * weight


def render_state(
    env: JaxNav,
    state: State,
    size: int,
    readings: jax.Array | None = None,
    goal_lines: bool = True,
    robots: bool = True,
) -> jax.Array:
    """The image of ``state``, uint8 ``(H, W, 3)``, ``max(H, W) == size`` (see the module
    docstring); ``readings`` ``(n, num_beams)`` in metres draws lidar hit points."""
    size = check_size(size, minimum=8)
    world = env.map_obj
    height, width = state.map_data.shape
    world_w, world_h = width * world.cell_size, height * world.cell_size
    scale = size / max(world_w, world_h)
    img_w, img_h = max(round(world_w * scale), 1), max(round(world_h * scale), 1)
    px = jnp.asarray((np.arange(img_w) + 0.5)[None, :] / scale * np.ones((img_h, 1)), jnp.float32)
    py = jnp.asarray((img_h - np.arange(img_h) - 0.5)[:, None] / scale * np.ones((1, img_w)), jnp.float32)
    pixel = 1.0 / scale  # one pixel in metres

    rows = jnp.clip((py / world.cell_size).astype(jnp.int32), 0, height - 1)
    cols = jnp.clip((px / world.cell_size).astype(jnp.int32), 0, width - 1)
    img = jnp.broadcast_to(jnp.asarray(C.FLOOR_COLOUR, jnp.float32), (img_h, img_w, 3))
    img = _paint(img, state.map_data[rows, cols] == 1, C.WALL_COLOUR)

    n = env.num_agents
    colours = jnp.asarray(C.ROBOT_COLOURS[np.arange(n) % len(C.ROBOT_COLOURS)])
    shown = ~state.done if env.evaporating else jnp.ones((n,), bool)
    line = max(pixel, 0.02)
    for i in range(n):
        if goal_lines:
            to_goal = _segment_distance(px, py, state.pos[i], state.goal[i]) <= line / 2
            img = _paint(img, to_goal & shown[i], colours[i], 0.35)
        ring = jnp.abs(jnp.hypot(px - state.goal[i, 0], py - state.goal[i, 1]) - env.goal_radius) <= line
        dot = jnp.hypot(px - state.goal[i, 0], py - state.goal[i, 1]) <= 2.5 * line
        img = _paint(img, ring | dot, colours[i])
    if readings is not None:
        points = jax.vmap(hit_points, in_axes=(0, 0, None, 0))(
            state.pos, state.theta, env.lidar_angles, readings
        )
        points = points.reshape(-1, 2)
        keep = jnp.repeat(shown, readings.shape[1])
        cx = jnp.floor(points[:, 0] * scale).astype(jnp.int32)
        cy = (img_h - 1 - jnp.floor(points[:, 1] * scale)).astype(jnp.int32)
        mask = jnp.zeros((img_h + 2, img_w + 2), bool)
        for dy in (0, 1, 2):
            for dx in (0, 1, 2):
                mask = mask.at[jnp.where(keep, cy + dy, -10), cx + dx].set(True, mode="drop")
        img = _paint(img, mask[1:-1, 1:-1], C.LIDAR_COLOUR)
    if robots:
        middle = getattr(world, "middle_line", C.HEADING_LINE)
        for i in range(n):
            verts = world.footprint(state.pos[i], state.theta[i])
            inside, edge = _inside_polygon(px, py, verts)
            body = jnp.where(state.done[i], jnp.asarray(C.DONE_COLOUR, jnp.float32), colours[i])
            img = _paint(img, inside & shown[i], body)
            img = _paint(img, inside & (edge <= line) & shown[i], (0.0, 0.0, 0.0))
            head = transform_coords(state.pos[i], state.theta[i], jnp.asarray(middle))
            heading = _segment_distance(px, py, head[0], head[1]) <= line
            img = _paint(img, heading & shown[i], C.HEADING_COLOUR)
    return to_uint8(img)


# ------------------------------------------------------------------ matplotlib helpers
def plot_lidar(env: JaxNav, ax: Any, obs: dict[str, jax.Array], state: State, num_to_plot: int = 10) -> None:
    """Scatter ``num_to_plot`` evenly spaced lidar hit points of each robot on ``ax``."""
    num = min(int(num_to_plot), env.lidar_num_beams)
    idx = np.round(np.linspace(0, env.lidar_num_beams - 1, num)).astype(int)
    lidar = jnp.stack([obs[a][: env.lidar_num_beams] for a in env.agents])
    readings = env.unnormalise_lidar(lidar) if env.normalise_obs else lidar
    angles = jnp.asarray(env.lidar_angles)[idx]
    points = jax.vmap(hit_points, in_axes=(0, 0, None, 0))(state.pos, state.theta, angles, readings[:, idx])
    xy = np.asarray(points).reshape(-1, 2)
    ax.scatter(xy[:, 0], xy[:, 1], c="b", s=2)


def init_render(
    env: JaxNav,
    ax: Any,
    state: State,
    obs: dict[str, jax.Array] | None = None,
    lidar: bool = True,
    agent: bool = True,
    goal: bool = True,
    rew_lambda: bool = False,
    ticks_off: bool = False,
    num_to_plot: int = 10,
    colour_agents_by_idx: bool = False,
    size: int = 400,
) -> Any:
    """Draw ``state`` on the matplotlib axis ``ax`` in world coordinates: the rendered
    image (robots if ``agent``, lines to goals if ``goal``), ``num_to_plot`` lidar points
    per robot if ``lidar`` (needs ``obs``), the reward weight if ``rew_lambda``. Robots are
    always coloured by index here (``colour_agents_by_idx`` is accepted for JaxMARL's
    signature)."""
    del colour_agents_by_idx
    frame = np.asarray(render_state(env, state, size, None, goal_lines=goal, robots=agent))
    height, width = np.asarray(state.map_data).shape
    extent = (0.0, width * env.map_obj.cell_size, 0.0, height * env.map_obj.cell_size)
    ax.set_aspect("equal", "box")
    ax.imshow(frame, extent=extent, origin="upper")
    if lidar:
        if obs is None:
            raise ValueError("init_render: lidar=True needs the observations (obs=...)")
        plot_lidar(env, ax, obs, state, num_to_plot)
    if rew_lambda:
        lam = float(np.asarray(state.rew_lambda).reshape(-1)[0])
        ax.text(0.5, 0.5, f"lambda: {lam:.2f}", transform=ax.transAxes, ha="center", va="center", c="white")
    if ticks_off:
        ax.set_xticks([])
        ax.set_yticks([])
    return ax
