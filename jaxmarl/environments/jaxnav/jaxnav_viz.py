"""``JaxNavVisualizer``: a JaxNav rollout as an animated GIF (JaxMARL 0.2.0's class and
signature; frames come from ``JaxNav.render``, so no matplotlib is needed to save one).

Example::

    viz = JaxNavVisualizer(env, obs_seq, state_seq, reward_seq)
    viz.animate("rollout.gif")
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import jax
import numpy as np

from jaxmarl.environments.jaxnav import constants as C
from jaxmarl.environments.jaxnav.env import JaxNav
from jaxmarl.environments.jaxnav.types import State

__all__ = ["JaxNavVisualizer"]


class JaxNavVisualizer:
    """Turn a sequence of JaxNav states into frames and a GIF.

    Args:
        env: the environment the states come from.
        obs_seq: the observations at each state (kept for JaxMARL's signature; the
            lidar is drawn from the states).
        state_seq: the states, one per frame.
        reward_seq: the reward at each frame (a number, or a dict of per-robot rewards,
            which are averaged); the running return is shown in the title.
        done_frames: per robot, the frame after which its path stops being drawn.
        title_text: text to put before the time (and return) in the title.
        plot_lidar, plot_path, plot_agent, plot_reward, plot_line_to_goal: what to draw.
        size: the frames' longer side in pixels.
    """

    def __init__(
        self,
        env: JaxNav,
        obs_seq: Sequence[Any],
        state_seq: Sequence[State],
        reward_seq: Sequence[Any] | None = None,
        done_frames: Sequence[int] | None = None,
        title_text: str | None = None,
        plot_lidar: bool = True,
        plot_path: bool = True,
        plot_agent: bool = True,
        plot_reward: bool = True,
        plot_line_to_goal: bool = True,
        size: int = 400,
    ) -> None:
        if not state_seq:
            raise ValueError("JaxNavVisualizer needs at least one state")
        self.env = env
        self.obs_seq = list(obs_seq)
        self.state_seq = list(state_seq)
        self.reward_seq = None if reward_seq is None else list(reward_seq)
        self.done_frames = None if done_frames is None else list(done_frames)
        self.title_text = title_text
        self.plot_lidar = plot_lidar
        self.plot_path = plot_path
        self.plot_agent = plot_agent
        self.plot_reward = plot_reward and reward_seq is not None
        self.plot_line_to_goal = plot_line_to_goal
        self.size = size
        self.interval = round(1000 * env.dt)  # ms per frame: real time

    def _title(self, frame: int, ret: float) -> str:
        parts = [f"Time: {frame * self.env.dt:.2f} s"]
        if self.plot_reward:
            parts.append(f"R: {ret:.2f}")
        return " ".join(([self.title_text] if self.title_text else []) + parts)

    def frames(self) -> np.ndarray:
        """Every frame, uint8 ``(T, H, W, 3)``, with paths and titles drawn."""
        from PIL import Image, ImageDraw

        from jaxmarl.environments.jaxnav.viewer import render_state

        env = self.env
        states = jax.tree.map(lambda *xs: np.stack([np.asarray(x) for x in xs]), *self.state_seq)

        def draw(state: State) -> jax.Array:
            readings = env.lidar(state) if self.plot_lidar else None
            return render_state(env, state, self.size, readings, self.plot_line_to_goal, self.plot_agent)

        images = np.asarray(jax.jit(jax.vmap(draw))(states))
        width = np.asarray(self.state_seq[0].map_data).shape[1]
        scale = images.shape[2] / (width * env.map_obj.cell_size)
        paths = np.asarray(states.pos)  # (T, n, 2)
        ret, out = 0.0, []
        for t, image in enumerate(images):
            picture = Image.fromarray(image)
            pen = ImageDraw.Draw(picture)
            if self.plot_path:
                for i in range(env.num_agents):
                    last = t if self.done_frames is None else min(t, int(self.done_frames[i]))
                    colour = tuple(int(255 * c) for c in C.ROBOT_COLOURS[i % len(C.ROBOT_COLOURS)])
                    points = [(x * scale, images.shape[1] - y * scale) for x, y in paths[: last + 1, i]]
                    if len(points) > 1:
                        pen.line(points, fill=colour, width=2)
            if self.reward_seq is not None:
                reward = self.reward_seq[t]
                values = list(reward.values()) if isinstance(reward, dict) else [reward]
                ret += float(np.mean([np.asarray(v, np.float64).mean() for v in values]))
            pen.text((4, 4), self._title(t, ret), fill=(0, 0, 0))
            out.append(np.asarray(picture))
        return np.stack(out)

    def animate(self, save_fname: str | Path | None = None, view: bool = False) -> np.ndarray:
        """Build the frames; save them as a GIF at ``save_fname`` and, with ``view``,
        show the animation with matplotlib. Returns the frames."""
        frames = self.frames()
        if save_fname is not None:
            from jaxmarl.viz import save_gif

            save_gif(frames, save_fname, fps=max(1, round(1000 / self.interval)))
        if view:
            import matplotlib.animation as animation
            import matplotlib.pyplot as plt

            fig, ax = plt.subplots(figsize=(5, 5))
            ax.axis("off")
            shown = ax.imshow(frames[0])

            def show(i: int) -> list:
                shown.set_data(frames[i])
                return [shown]

            anim = animation.FuncAnimation(fig, show, frames=len(frames), interval=self.interval)
            plt.show(block=False)
            plt.pause(3)
            plt.close(fig)
            del anim
        return frames
