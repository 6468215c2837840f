"""State of a MABrax environment."""

from typing import TYPE_CHECKING, Any

import jax
from flax import struct


@struct.dataclass
class State:
    """State of one MABrax robot.

    Attributes:
        physics: the leaves of the single-agent Brax task's state; ``env.brax_state(state)``
            rebuilds that ``brax.envs.State``: the physics ``pipeline_state``, ``obs``
            (the single-agent observation ``(obs_dim,)``, also the global state),
            ``reward``, ``done`` and the task's ``metrics`` of the last step. (Brax's
            MJX state carries static NumPy arrays whose wrappers differ from one trace
            to the next; keeping only the leaves gives the state a fixed structure.)
        step: steps taken in this episode, int32 ``()``.
    """

    physics: tuple[Any, ...]
    step: jax.Array

    if TYPE_CHECKING:  # provided by flax.struct at runtime

        def replace(self, **changes: Any) -> "State": ...
