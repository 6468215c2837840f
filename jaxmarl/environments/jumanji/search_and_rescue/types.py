"""State of a SearchAndRescue episode (Jumanji's ``State``, ``AgentState`` and ``TargetState``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import jax
from flax import struct


@struct.dataclass
class SearcherState:
    """The searchers (the agents), indexed by agent.

    Attributes:
        pos: float32 ``(num_searchers, 2)``, ``(x, y)`` in ``[0, env_size)`` on the torus.
        heading: float32 ``(num_searchers,)``, radians in ``[0, 2 pi)``; 0 points along +x.
        speed: float32 ``(num_searchers,)``, distance per step in ``[min_speed, max_speed]``.
    """

    pos: jax.Array  # (num_searchers, 2) float32
    heading: jax.Array  # (num_searchers,) float32
    speed: jax.Array  # (num_searchers,) float32

    if TYPE_CHECKING:  # provided by flax.struct at runtime

        def replace(self, **changes: Any) -> SearcherState: ...


@struct.dataclass
class TargetState:
    """The targets to find.

    Attributes:
        pos: float32 ``(num_targets, 2)``, ``(x, y)`` in ``[0, env_size)``.
        vel: float32 ``(num_targets, 2)``, displacement per step.
        found: bool ``(num_targets,)``, found by some searcher (stays true).
    """

    pos: jax.Array  # (num_targets, 2) float32
    vel: jax.Array  # (num_targets, 2) float32
    found: jax.Array  # (num_targets,) bool

    if TYPE_CHECKING:

        def replace(self, **changes: Any) -> TargetState: ...


@struct.dataclass
class State:
    """Everything a SearchAndRescue step needs.

    Attributes:
        searchers: the agents' positions, headings and speeds.
        targets: the targets' positions, velocities and found flags.
        key: the PRNG key the target dynamics draw from, split once per step exactly as
            Jumanji splits its ``state.key`` (uint32 ``(2,)``).
        step: steps taken in this episode, int32 ``()`` (Jumanji's ``step``).
    """

    searchers: SearcherState
    targets: TargetState
    key: jax.Array  # (2,) uint32
    step: jax.Array  # () int32

    if TYPE_CHECKING:

        def replace(self, **changes: Any) -> State: ...
