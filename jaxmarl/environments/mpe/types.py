"""State of an MPE world."""

from typing import TYPE_CHECKING, Any

import jax
from flax import struct


@struct.dataclass
class State:
    """State of every MPE scenario. Entities are the agents (in ``env.agents`` order,
    then any scripted agents) followed by the landmarks. Floats are float32, or float64
    when JAX runs with ``jax_enable_x64``.

    Attributes:
        p_pos: positions, float32 ``(num_entities, 2)``.
        p_vel: velocities, float32 ``(num_entities, 2)`` (zero for landmarks).
        c: the communication each agent utters, float32 ``(num_world_agents, dim_c)``.
        step: steps taken in this episode, int32 ``()``.
        goal: landmark indices a scenario draws at reset, int32 ``(num_goals,)``; empty
            for scenarios without goals (the scenario docstring says what each is).
    """

    p_pos: jax.Array
    p_vel: jax.Array
    c: jax.Array
    step: jax.Array
    goal: jax.Array

    if TYPE_CHECKING:  # provided by flax.struct at runtime

        def replace(self, **changes: Any) -> "State": ...


@struct.dataclass
class TreasureState(State):
    """State of ``collect_treasure``: the world (:class:`State`) plus what the collectors
    carry and the treasures. Entities are the collectors, the deposits, then the
    treasures; ``goal`` is empty.

    Attributes:
        holding: treasure type each collector carries, -1 for none, int32
            ``(num_collectors,)``.
        treasure_type: type of each treasure (the deposit that accepts it), int32
            ``(num_treasures,)``.
        alive: which treasures are on the map, bool ``(num_treasures,)``. A treasure
            picked up this step is parked at ``(-999, -999)`` (as in mpe2) and comes
            back at a random place and type on the next step.
        collected, delivered: treasures picked up and delivered on the last step,
            int32 ``()`` (the shared reward is 5 per event).
    """

    holding: jax.Array
    treasure_type: jax.Array
    alive: jax.Array
    collected: jax.Array
    delivered: jax.Array

    if TYPE_CHECKING:  # provided by flax.struct at runtime

        def replace(self, **changes: Any) -> "TreasureState": ...
