"""JaxMARL's visualiser classes, drawn with each environment's own ``render``.

``Visualizer(env, state_seq).animate(save_fname="rollout.gif", view=False)`` animates a
list of states of any environment (or wrapper) that implements ``render``: a ``.gif`` is
written with :func:`jaxmarl.viz.save_gif`, any other file type through matplotlib's
animation writers; ``view=True`` shows the animation in a matplotlib window (under a
non-interactive backend, as on a headless machine, there is nothing to show and it
returns at once). ``SMAXVisualizer`` takes SMAX's ``(key, state, actions)`` steps and
draws the simulator's ticks in between (:mod:`jaxmarl.environments.smax.viewer`).
For new code, :func:`jaxmarl.viz.rollout`, :func:`jaxmarl.viz.render_states` and
:func:`jaxmarl.viz.save_gif` do the same without matplotlib.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import jax
import numpy as np

from jaxmarl.viz.rollout import save_gif

__all__ = ["Visualizer"]  # and SMAXVisualizer, imported on first use (below)


class Visualizer:
    """Animate ``state_seq``, a sequence of ``env``'s states.

    Args:
        env: the environment (or a wrapper of it) the states belong to.
        state_seq: the states, in order.
        reward_seq: accepted for JaxMARL compatibility; not drawn.
        size: the frames' size in pixels (``env.render``'s ``size``), or the env's default.
    """

    interval = 100  # milliseconds per frame

    def __init__(
        self,
        env: Any,
        state_seq: Sequence[Any],
        reward_seq: Sequence[Any] | None = None,
        size: int | None = None,
    ) -> None:
        if len(state_seq) == 0:
            raise ValueError(f"{type(self).__name__} needs at least one state")
        self.env = env
        self.state_seq = list(state_seq)
        self.reward_seq = reward_seq
        self.size = size

    def frames(self) -> np.ndarray:
        """The rendered states, ``uint8`` of shape ``(T, H, W, 3)``."""
        kwargs = {} if self.size is None else {"size": self.size}
        render = jax.jit(lambda s: self.env.render(s, **kwargs))
        return np.stack([np.asarray(render(s)) for s in self.state_seq])

    def animate(self, save_fname: str | Path | None = None, view: bool = True) -> None:
        """Write the animation to ``save_fname`` (if given) and show it (if ``view``)."""
        frames = self.frames()
        if save_fname is not None:
            if Path(save_fname).suffix.lower() == ".gif":
                save_gif(frames, save_fname, fps=max(1, round(1000 / self.interval)))
            else:
                self._matplotlib_animation(frames).save(str(save_fname))
        if view:
            import matplotlib.pyplot as plt

            animation = self._matplotlib_animation(frames)
            if plt.get_backend().lower() != "agg":  # nothing to show without a display
                plt.show(block=True)
            del animation

    def _matplotlib_animation(self, frames: np.ndarray) -> Any:
        import matplotlib.animation
        import matplotlib.pyplot as plt

        height, width = frames.shape[1:3]
        fig = plt.figure(figsize=(width / 100, height / 100), dpi=100)
        ax = fig.add_axes((0, 0, 1, 1))
        ax.set_axis_off()
        image = ax.imshow(frames[0])

        def show(i: int) -> list[Any]:
            image.set_data(frames[i])
            return [image]

        return matplotlib.animation.FuncAnimation(fig, show, frames=len(frames), interval=self.interval)


def __getattr__(name: str) -> Any:
    if name == "SMAXVisualizer":  # lives with SMAX; imported when asked for
        import importlib

        return importlib.import_module("jaxmarl.environments.smax.viewer").SMAXVisualizer
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
