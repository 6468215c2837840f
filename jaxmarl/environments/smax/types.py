"""SMAX state dataclasses: the world, and the heuristic policy's memory.

Units are stored in one array of length ``U = num_allies + num_enemies``: allies
(team 0) first, then enemies (team 1). Dead units stay in the arrays.
"""

from typing import TYPE_CHECKING, Any

import jax
from flax import struct


@struct.dataclass
class State:
    """State of a SMAX battle.

    Attributes:
        pos: unit positions ``(x, y)`` on the map, float32 ``(U, 2)``.
        health: unit health, float32 ``(U,)``; 0 once dead.
        alive: whether each unit is alive, bool ``(U,)``.
        unit_type: unit type ids (``constants.UNIT_TYPE_NAMES``), int32 ``(U,)``.
        cooldown: seconds until each unit's weapon is ready, float32 ``(U,)``.
        last_move: each unit's movement in the last step (a direction scaled by at most
            1; zeros after stop, an attack, at reset and for the dead), float32 ``(U, 2)``.
        last_attack: the enemy each unit chose to attack in the last step (``k`` for its
            enemy ``k``, i.e. its action ``5 + k``), -1 for none, int32 ``(U,)``.
        last_attacked: the unit each unit last hit during the last step (a unit index),
            -1 for none, int32 ``(U,)`` (for rendering attack lines).
        step: environment steps taken in this episode, int32 ``()``.
    """

    pos: jax.Array
    health: jax.Array
    alive: jax.Array
    unit_type: jax.Array
    cooldown: jax.Array
    last_move: jax.Array
    last_attack: jax.Array
    last_attacked: jax.Array
    step: jax.Array

    if TYPE_CHECKING:  # provided by flax.struct at runtime

        def replace(self, **changes: Any) -> "State": ...


@struct.dataclass
class HeuristicState:
    """Memory of the decentralised heuristic, one row per unit it controls (``n``; a
    single unit's memory, as ``create_heuristic_policy``'s policies take it, has the
    same fields without the leading axis).

    Attributes:
        target: the enemy (index among the unit's enemies) it attacked last step, -1
            for none, int32 ``(n,)``; kept while it stays in range (no flip-flopping).
        memory: where it last saw an enemy (map coordinates), float32 ``(n, 2)``.
        has_memory: whether ``memory`` is a place still to visit, bool ``(n,)``.
        explore: where it heads when it has seen no enemy (its start position mirrored
            through the map's centre, then back), float32 ``(n, 2)``.
        started: whether ``explore`` is set; a fresh memory (``started`` false) takes
            the unit's position at its first decision as the start, bool ``(n,)``.
    """

    target: jax.Array
    memory: jax.Array
    has_memory: jax.Array
    explore: jax.Array
    started: jax.Array

    @property
    def last_attacked_enemy(self) -> jax.Array:
        """JaxMARL's name for ``target``."""
        return self.target

    @property
    def default_target(self) -> jax.Array:
        """JaxMARL's name for ``explore`` (where the unit heads when it sees no enemy)."""
        return self.explore

    if TYPE_CHECKING:

        def replace(self, **changes: Any) -> "HeuristicState": ...


@struct.dataclass
class EnemyState:
    """State of an environment whose enemy team is played by a built-in policy.

    Attributes:
        battle: the SMAX battle, :class:`State`.
        policy: the enemy policy's state (a :class:`HeuristicState`, or whatever the
            enemy policy carries).
        step: the battle's step counter, int32 ``()`` (mirrors ``battle.step`` so the
            base class sees the time limit).
    """

    battle: State
    policy: Any
    step: jax.Array

    @property
    def state(self) -> State:
        """JaxMARL's name for ``battle``."""
        return self.battle

    @property
    def enemy_policy_state(self) -> Any:
        """JaxMARL's name for ``policy``."""
        return self.policy

    if TYPE_CHECKING:

        def replace(self, **changes: Any) -> "EnemyState": ...
