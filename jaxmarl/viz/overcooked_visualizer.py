"""JaxMARL 0.2.0's ``OvercookedVisualizer``: Overcooked states shown in a matplotlib
window or saved as a GIF, drawn by our renderer
(:func:`jaxmarl.environments.overcooked.viewer.render_kitchen`, what ``env.render`` draws).

``render(agent_view_size, state, highlight=True)`` shows one state (the window is made on
the first call and reused); under a non-interactive backend (a headless machine,
``MPLBACKEND=Agg``) the frame is drawn on the figure's canvas and nothing is shown.
``animate(state_seq, agent_view_size, filename="animation.gif")`` writes a GIF at two
frames per second, as JaxMARL's did. Both return what they drew.

JaxMARL's visualiser takes states alone, but our states do not hold the kitchen's
terrain: give the environment (or its layout) to the constructor, or it uses the
kitchen of the most recently built Overcooked environment of the states' size.
For new code, :func:`jaxmarl.viz.render_states` and :func:`jaxmarl.viz.save_gif` do the
same without matplotlib.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import jax
import numpy as np

from jaxmarl.environments.overcooked.env import Overcooked
from jaxmarl.environments.overcooked.layouts import Layout, get_layout
from jaxmarl.environments.overcooked.viewer import render_kitchen
from jaxmarl.viz.rollout import save_gif

__all__ = ["TILE_PIXELS", "OvercookedVisualizer"]

TILE_PIXELS = 32
"""Default tile size in pixels."""

_NON_INTERACTIVE = ("agg", "cairo", "pdf", "pgf", "ps", "svg", "template")
_HIGHLIGHT = 0.3  # highlighted pixels move this far towards white


class OvercookedVisualizer:
    """Show or animate states of an Overcooked kitchen.

    Args:
        env: the :class:`Overcooked` environment (or its layout, in any form
            ``make("overcooked", layout=...)`` takes) the states belong to; ``None``:
            the most recently built Overcooked environment with the states' grid size.
    """

    def __init__(self, env: Overcooked | Layout | Any = None) -> None:
        if env is None or isinstance(env, Overcooked):
            self.layout = None if env is None else env.layout
        else:
            self.layout = get_layout(env)
        self.fig: Any = None
        self._image: Any = None
        self._draw: dict[tuple[int, int], Callable[[Any], jax.Array]] = {}

    # ---------------------------------------------------------------- drawing
    def _layout_of(self, state: Any) -> Layout:
        shape = tuple(np.shape(state.items)[-2:])
        layout = self.layout if self.layout is not None else Overcooked.recent_layouts.get(shape)
        if layout is None or (layout.height, layout.width) != shape:
            raise ValueError(
                f"OvercookedVisualizer: no Overcooked kitchen of size {shape} (height, width) is known "
                "for these states; pass the environment, OvercookedVisualizer(env)"
            )
        return layout

    def _drawer(self, layout: Layout, tile_size: int) -> Callable[[Any], jax.Array]:
        key = (id(layout), tile_size)
        if key not in self._draw:  # one compilation per kitchen and tile size
            self._draw[key] = jax.jit(lambda s: render_kitchen(s, layout, tile_size))
        return self._draw[key]

    def frames(
        self,
        state_seq: Sequence[Any],
        agent_view_size: int = Overcooked.agent_view_size,
        highlight: bool = False,
        tile_size: int = TILE_PIXELS,
    ) -> np.ndarray:
        """The states drawn, uint8 ``(T, height * tile_size, width * tile_size, 3)``; with
        ``highlight``, the cells within ``agent_view_size // 2`` of a cook are lightened."""
        if len(state_seq) == 0:
            raise ValueError("OvercookedVisualizer: no states to draw")
        layout = self._layout_of(state_seq[0])
        draw = self._drawer(layout, tile_size)
        frames = np.stack([np.asarray(draw(state)) for state in state_seq])
        if highlight:
            reach = agent_view_size // 2
            ys, xs = np.mgrid[: layout.height, : layout.width]
            for t, state in enumerate(state_seq):
                pos = np.asarray(state.pos)  # (2, 2) as (x, y)
                near = np.zeros((layout.height, layout.width), bool)
                for x, y in pos:
                    near |= (np.abs(xs - x) <= reach) & (np.abs(ys - y) <= reach)
                mask = np.kron(near, np.ones((tile_size, tile_size), bool))
                lit = frames[t].astype(np.float32)
                lit[mask] += (255.0 - lit[mask]) * _HIGHLIGHT
                frames[t] = lit.astype(np.uint8)
        return frames

    # ------------------------------------------------------ JaxMARL's methods
    def render(
        self, agent_view_size: int, state: Any, highlight: bool = True, tile_size: int = TILE_PIXELS
    ) -> np.ndarray:
        """Show ``state`` in the window and return the frame, uint8 ``(H, W, 3)``.

        ``agent_view_size`` (``env.agent_view_size``) sets how far the highlight reaches
        around each cook when ``highlight`` is true."""
        frame = self.frames([state], agent_view_size, highlight, tile_size)[0]
        self._show(frame)
        return frame

    def animate(
        self, state_seq: Sequence[Any], agent_view_size: int, filename: str | Path = "animation.gif"
    ) -> Path:
        """Write ``state_seq`` as a GIF to ``filename`` (two frames per second)."""
        del agent_view_size  # JaxMARL's map padding; the whole kitchen is drawn
        return save_gif(self.frames(state_seq), filename, fps=2)

    def close(self) -> None:
        """Close the window."""
        if self.fig is not None:
            import matplotlib.pyplot as plt

            plt.close(self.fig)
            self.fig = self._image = None

    def _show(self, frame: np.ndarray) -> None:
        import matplotlib.pyplot as plt

        if self.fig is None or not plt.fignum_exists(self.fig.number):
            self.fig = plt.figure("Overcooked")
            ax = self.fig.add_axes((0, 0, 1, 1))
            ax.set_axis_off()
            self._image = ax.imshow(frame)
        elif self._image.get_array().shape != frame.shape:
            self._image.remove()
            self._image = self.fig.axes[0].imshow(frame)
        else:
            self._image.set_data(frame)
        if plt.get_backend().lower() in _NON_INTERACTIVE:  # nothing to show: draw on the canvas
            self.fig.canvas.draw()
        else:
            plt.pause(0.001)
