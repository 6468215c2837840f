"""The decentralised SMAX heuristic (JaxMARL paper, appendix B.1).

Each unit decides from what it sees (the visible, living enemies in its sight range,
as in its observation) and its own memory, with no global information:

1. **Attack.** If an enemy is within attack range it attacks: the enemy it attacked
   last step while that one stays in range (no flip-flopping between two similarly
   close enemies, SMACv2's weakness), otherwise the closest one in range
   (``attack_mode="closest"``) or one in range drawn uniformly (``"random"``).
2. **Chase.** Otherwise, if it sees an enemy, it moves toward the closest one it
   sees, remembering where it saw it; if it sees none but remembers a sighting it has
   not reached yet, it goes there.
3. **Explore.** Otherwise it walks toward its start position (where it made its first
   decision) mirrored through the map's centre (so groups spread at the edges meet in
   the middle), and once there mirrors again.

Moves pick the compass direction closest to the wanted heading. The same code plays
either team, which makes heuristic-vs-heuristic on a symmetric scenario a fair 50/50.
Two front ends feed the same core: :func:`heuristic_actions` reads the state (the fast
path of ``HeuristicEnemySMAX``, masked to exactly what each unit sees) and
:func:`heuristic_from_obs` reads only the units' observations.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxmarl.environments.smax import constants as C
from jaxmarl.environments.smax.dynamics import Rules
from jaxmarl.environments.smax.types import HeuristicState, State
from jaxmarl.environments.smax.units import DEFAULT_UNITS, UnitTable

__all__ = ["ATTACK_MODES", "heuristic_actions", "heuristic_from_obs", "heuristic_init", "heuristic_memory"]

ARRIVED = 1.0  # map units: a destination closer than this counts as reached
ATTACK_MODES: tuple[str, ...] = ("closest", "random")


def heuristic_init(start_pos: jax.Array, width: float, height: float) -> HeuristicState:
    """Fresh memory for units starting at ``start_pos`` (float32 ``(n, 2)``)."""
    n = start_pos.shape[0]
    return HeuristicState(
        target=jnp.full((n,), -1, jnp.int32),
        memory=jnp.zeros((n, 2), jnp.float32),
        has_memory=jnp.zeros((n,), bool),
        explore=jnp.array([width, height], jnp.float32) - start_pos,
        started=jnp.ones((n,), bool),
    )


def heuristic_memory(shape: tuple[int, ...] = ()) -> HeuristicState:
    """Fresh memory of units whose start is not known yet (``shape`` ``()`` for one unit,
    ``(n,)`` for ``n``): each takes its position at its first decision as its start."""
    return HeuristicState(
        target=jnp.full(shape, -1, jnp.int32),
        memory=jnp.zeros((*shape, 2), jnp.float32),
        has_memory=jnp.zeros(shape, bool),
        explore=jnp.zeros((*shape, 2), jnp.float32),
        started=jnp.zeros(shape, bool),
    )


def check_attack_mode(attack_mode: str, where: str) -> str:
    """``attack_mode`` if it is one of ``ATTACK_MODES``, else a ``ValueError`` naming ``where``."""
    if attack_mode not in ATTACK_MODES:
        raise ValueError(
            f"{where}: attack_mode must be one of {', '.join(map(repr, ATTACK_MODES))}, got {attack_mode!r}"
        )
    return attack_mode


def _decide(
    memory: HeuristicState,
    own_pos: jax.Array,
    alive: jax.Array,
    reach: jax.Array,
    rel: jax.Array,
    visible: jax.Array,
    width: float,
    height: float,
    shoot: bool = True,
    attack_mode: str = "closest",
    key: jax.Array | None = None,
) -> tuple[jax.Array, HeuristicState]:
    """The core, vectorised over ``n`` units facing ``m`` enemies.

    Args:
        memory: the units' memory.
        own_pos: positions, float32 ``(n, 2)``.
        alive: bool ``(n,)``.
        reach: attack ranges, float32 ``(n,)``.
        rel: enemy positions relative to each unit, float32 ``(n, m, 2)`` (ignored where
            not visible).
        visible: which enemies each unit sees (alive, in sight), bool ``(n, m)``.
        width: map width.
        height: map height.
        shoot: whether the units attack at all (False: they only move).
        attack_mode: ``"closest"`` or ``"random"``: how a new target is chosen among
            the enemies in range.
        key: PRNG key, needed for ``attack_mode="random"``.

    Returns:
        ``(actions, memory)``: int32 ``(n,)`` actions and the new memory.
    """
    explore0 = jnp.where(
        memory.started[:, None], memory.explore, jnp.array([width, height], jnp.float32) - own_pos
    )
    d2 = jnp.sum(rel * rel, -1)
    in_range = visible & (d2 < (reach**2)[:, None])
    can_attack = jnp.any(in_range, -1) & shoot
    keep = (memory.target >= 0) & jnp.take_along_axis(in_range, jnp.maximum(memory.target, 0)[:, None], 1)[
        :, 0
    ]
    if attack_mode == "random":
        if key is None:
            raise ValueError("the heuristic's attack_mode='random' needs a PRNG key")
        new_target = jax.random.categorical(key, jnp.where(in_range, 0.0, -jnp.inf), axis=-1)
    else:
        new_target = jnp.argmin(jnp.where(in_range, d2, jnp.inf), -1)
    target = jnp.where(keep, memory.target, new_target.astype(jnp.int32))

    sees = jnp.any(visible, -1)
    closest = jnp.argmin(jnp.where(visible, d2, jnp.inf), -1)
    seen_at = own_pos + jnp.take_along_axis(rel, closest[:, None, None], 1)[:, 0]
    remembered = jnp.where(sees[:, None], seen_at, memory.memory)
    reached = jnp.sum((remembered - own_pos) ** 2, -1) < ARRIVED**2
    has_memory = sees | (memory.has_memory & ~reached)
    at_explore = jnp.sum((explore0 - own_pos) ** 2, -1) < ARRIVED**2
    mirrored = jnp.array([width, height], jnp.float32) - own_pos
    explore = jnp.where(at_explore[:, None], mirrored, explore0)
    heading = jnp.where(has_memory[:, None], remembered, explore) - own_pos
    move = jnp.argmax(heading @ jnp.asarray(C.MOVE_VECTORS[: C.STOP]).T, -1).astype(jnp.int32)
    move = jnp.where(jnp.sum(heading * heading, -1) > 1e-6, move, C.STOP)

    actions = jnp.where(can_attack, C.NUM_MOVE_ACTIONS + target, move)
    actions = jnp.where(alive, actions, C.STOP)
    new_memory = HeuristicState(
        target=jnp.where(can_attack & alive, target, -1),
        memory=remembered,
        has_memory=has_memory,
        explore=explore,
        started=jnp.ones_like(memory.started),
    )
    return actions, new_memory


def heuristic_actions(
    memory: HeuristicState,
    state: State,
    team: int,
    rules: Rules,
    shoot: bool = True,
    attack_mode: str = "closest",
    key: jax.Array | None = None,
) -> tuple[jax.Array, HeuristicState]:
    """Heuristic actions of every unit of ``team`` (0 allies, 1 enemies) from the state,
    each unit using only what it sees: int32 ``(team size,)`` and the new memory."""
    na = rules.num_allies
    own = slice(0, na) if team == 0 else slice(na, rules.num_units)
    foe = slice(na, rules.num_units) if team == 0 else slice(0, na)
    own_pos, unit_type, alive = state.pos[own], state.unit_type[own], state.alive[own]
    rel = state.pos[foe][None, :, :] - own_pos[:, None, :]
    sight = rules.units.array("sight_range")[unit_type]
    visible = (jnp.sum(rel * rel, -1) < (sight**2)[:, None]) & state.alive[foe][None, :] & alive[:, None]
    reach = rules.units.array("attack_range")[unit_type]
    return _decide(
        memory, own_pos, alive, reach, rel, visible, rules.width, rules.height, shoot, attack_mode, key
    )


def heuristic_from_obs(
    memory: HeuristicState,
    obs: jax.Array,
    team_size: int,
    width: float,
    height: float,
    units: UnitTable = DEFAULT_UNITS,
    shoot: bool = True,
    attack_mode: str = "closest",
    key: jax.Array | None = None,
) -> tuple[jax.Array, HeuristicState]:
    """Heuristic actions from the units' unit-list observations alone.

    Args:
        memory: the units' memory (:func:`heuristic_init` of their start positions, or
            :func:`heuristic_memory`).
        obs: unit-list observations of units of one team, float32 ``(n, obs_dim)``.
        team_size: units in that team; the rest of the units are its enemies.
        width: map width.
        height: map height.
        units: the unit table the observations were made with.
        shoot: whether the units attack at all.
        attack_mode: ``"closest"`` or ``"random"`` (see the module).
        key: PRNG key, needed for ``attack_mode="random"``.

    Returns:
        ``(actions, memory)``: int32 ``(n,)`` and the new memory.
    """
    nt = units.num_types
    nf, no = 7 + nt, 4 + nt
    others = obs[:, :-no].reshape(obs.shape[0], -1, nf)
    own = obs[:, -no:]
    enemies = others[:, team_size - 1 :]
    one_hot = own[:, 4:]
    alive = own[:, 0] > 0
    unit_type = jnp.argmax(one_hot, -1)
    sight = units.array("sight_range")[unit_type]
    own_pos = own[:, 1:3] * jnp.array([width, height], jnp.float32)
    rel = enemies[..., 1:3] * sight[:, None, None]
    visible = enemies[..., 0] > 0
    reach = units.array("attack_range")[unit_type]
    return _decide(memory, own_pos, alive, reach, rel, visible, width, height, shoot, attack_mode, key)
