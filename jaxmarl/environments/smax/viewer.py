"""Rendering of SMAX battles, in pure JAX (runs under ``jit`` and ``vmap``), and
JaxMARL's ``SMAXVisualizer``.

Drawn bottom to top: the map; lines from each unit to the units it hit during the last
step (blue for allies, red for enemies); dead units as small grey discs; living units
as discs of their true radius, coloured by team (allies blue, enemies red) tinted by
type (terran grey, protoss gold, zerg purple), with their type's letter shown by a
darker core; and health bars above them. Map ``y`` points up.

``SMAXVisualizer(env, state_seq).animate(save_fname="battle.gif", view=False)`` animates
recorded steps (``(key, state, actions)`` as given to ``env.step``) tick by tick: each
step is replayed with its key, recording the 8 world ticks in between.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.smax import constants as C
from jaxmarl.environments.smax.dynamics import Rules
from jaxmarl.environments.smax.types import State
from jaxmarl.viz.raster import blank_canvas, draw_circles, to_uint8
from jaxmarl.viz.visualizer import Visualizer

__all__ = ["SMAXVisualizer", "draw_on_axes", "expand_steps", "render_battle", "unit_colours"]


def unit_colours(unit_type: jax.Array, num_allies: int) -> jax.Array:
    """RGB in [0, 1] of every unit, float32 ``(U, 3)``: team colour tinted by type (the
    tints repeat past the six default types)."""
    team = (jnp.arange(unit_type.shape[0]) >= num_allies).astype(jnp.int32)
    tint = jnp.asarray(C.TYPE_TINTS)[unit_type % len(C.TYPE_TINTS)]
    return 0.65 * jnp.asarray(C.TEAM_COLOURS)[team] + 0.35 * tint


def render_battle(state: State, rules: Rules, size: int = 400) -> jax.Array:
    """Draw ``state`` on a ``size x size`` canvas: uint8 ``(size, size, 3)``."""
    scale = size / max(rules.width, rules.height)
    centre = jnp.stack([state.pos[:, 0] * scale, size - state.pos[:, 1] * scale], -1)  # (U, 2) pixels
    radius = rules.units.array("radius")[state.unit_type] * scale
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
    frac = state.health / rules.units.array("health")[state.unit_type]
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


def draw_on_axes(env: Any, ax: Any, state: Any, env_step: int = 0) -> Any:
    """Draw ``state`` (an SMAX state, or a ``(key, state, actions)`` tuple) on the matplotlib
    axes ``ax``, titled with ``env_step``; returns the image artist (JaxMARL's
    ``init_render``)."""
    if isinstance(state, tuple):
        state = state[1]
    battle = getattr(state, "battle", state)
    ax.clear()
    image = ax.imshow(np.asarray(jax.jit(env.render)(battle)))
    ax.set_title(f"Step {env_step}")
    ax.set_axis_off()
    return image


def expand_steps(env: Any, state_seq: Sequence[tuple[Any, Any, Any]]) -> list[tuple[Any, Any, Any]]:
    """``(key, state, actions)`` per world tick of the recorded steps ``state_seq`` of
    ``env`` (an :class:`SMAX` or an enemy variant): every step replayed with its key
    (exactly as ``env.step`` played it), each step's state first where it starts an
    episode (``step == 0``)."""
    ticks_of = jax.jit(env._ticks)
    out: list[tuple[Any, Any, Any]] = []
    for key, state, actions in state_seq:
        if int(np.asarray(state.step)) == 0:
            out.append((key, state, actions))
        ticks = jax.device_get(ticks_of(key, state, actions))
        count = int(np.asarray(ticks.step).shape[0])
        out.extend((key, jax.tree.map(lambda x, i=i: x[i], ticks), actions) for i in range(count))
    return out


class SMAXVisualizer(Visualizer):
    """JaxMARL's visualiser of SMAX rollouts: ``state_seq`` holds ``(key, state,
    actions)`` per step, as given to ``env.step``; :meth:`animate` replays each step and
    draws every world tick (``env.expand_state_seq``) with ``env.render``.

    Args:
        env: an :class:`SMAX`, ``HeuristicEnemySMAX`` or other enemy variant.
        state_seq: the recorded steps.
        reward_seq: accepted for JaxMARL compatibility; not drawn.
        size: the frames' size in pixels (``env.render``'s ``size``; 400 by default).
    """

    interval = 64  # milliseconds per frame, as JaxMARL's

    def __init__(
        self,
        env: Any,
        state_seq: Sequence[Any],
        reward_seq: Sequence[Any] | None = None,
        size: int | None = None,
    ) -> None:
        super().__init__(env, state_seq, reward_seq, size)
        from jaxmarl.environments.smax.enemy import EnemySMAX

        self.heuristic_enemy = isinstance(env, EnemySMAX)
        self.have_expanded = False

    def expand_state_seq(self) -> None:
        """Replace the recorded steps by their world ticks (done once, before drawing)."""
        if not self.have_expanded:
            self.state_seq = self.env.expand_state_seq(self.state_seq)
            self.have_expanded = True

    def frames(self) -> np.ndarray:
        """Every tick rendered, ``uint8`` of shape ``(T, size, size, 3)``."""
        self.expand_state_seq()
        kwargs = {} if self.size is None else {"size": self.size}
        render = jax.jit(lambda s: self.env.render(s, **kwargs))
        return np.stack([np.asarray(render(state)) for _, state, _ in self.state_seq])

    def animate(self, save_fname: str | Path | None = None, view: bool = True) -> None:
        """Write the animation to ``save_fname`` (a ``.gif``, or any type matplotlib
        writes) and show it if ``view`` (without a display: nothing to show, no error)."""
        super().animate(save_fname=save_fname, view=view)
