"""JaxMARL 0.2.0's ``MPEVisualizer``: animate a list of MPE states.

The frames are our MPE renderer's (``env.render``, :mod:`jaxmarl.environments.mpe.viewer`),
animated by :class:`jaxmarl.viz.visualizer.Visualizer`: ``animate(save_fname=None,
view=True)`` writes a GIF when ``save_fname`` ends in ``.gif`` (other suffixes go through
matplotlib's animation writers) and shows the animation in a matplotlib window when
``view`` is true. Under a non-interactive backend (a headless machine, ``MPLBACKEND=Agg``)
there is nothing to show and ``view`` returns at once.

For new code, :func:`jaxmarl.viz.rollout`, :func:`jaxmarl.viz.render_states` and
:func:`jaxmarl.viz.save_gif` do the same without matplotlib.
"""

from __future__ import annotations

import numpy as np

from jaxmarl.viz.visualizer import Visualizer

__all__ = ["ALPHABET", "MPEVisualizer"]

ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
"""Letters naming the words of a communication channel (word ``i`` is ``ALPHABET[i]``)."""


class MPEVisualizer(Visualizer):
    """Animate ``state_seq``, a sequence of an MPE scenario's states.

    Example::

        viz = MPEVisualizer(env, state_seq)
        viz.animate(save_fname="mpe.gif", view=False)

    Args:
        env: the MPE environment the states belong to.
        state_seq: the states, in order.
        reward_seq: accepted for JaxMARL compatibility; not drawn.
        size: the frames' side in pixels (``env.render``'s ``size``; 400 by default).
    """

    @property
    def comm_active(self) -> bool:
        """Whether any agent speaks (JaxMARL's attribute)."""
        return not bool(np.all(self.env.silent))
