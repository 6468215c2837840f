"""What predicates read: the per-step task context, the game view and the agent groups.

Neural MMO 2.1.1 evaluates predicates on a ``GameState`` (``nmmo/task/game_state.py``):
copies of the entity, item and event tables, where entity and item rows exist only for
alive entities, plus each alive agent's observation. Here the whole ``State`` is the game
state; a dead player's rows stay but ``ent_alive`` is false, so predicates mask with
``TaskContext.alive`` wherever Neural MMO reads entity or item rows.

``task_context`` computes, once per step, what several predicates share: which materials
and which agents each alive agent can see (its ``15 x 15`` window, vision radius 7 in the
L-inf norm: the state equivalent of Neural MMO's tile and entity observations) and how
many inventory slots each holds.

Agent groups (a predicate's subject and target) are ``(P,)`` bool masks. Neural MMO's
relative targets (``nmmo/task/task_spec.py``, ``nmmo/lib/team_helper.py``) resolve against
the team of the task's holder; ``group_tables`` precomputes them for a ``Config``.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxmarl.environments.nmmo import constants as K
from jaxmarl.environments.nmmo.config import Config
from jaxmarl.environments.nmmo.types import State

# Group references: how a leaf names its subject or target. DEFAULT is the task holder
# (its own agent, or its team for ``reward_to="team"``) as a subject and nobody as a
# target; RELATIVE_TARGETS are Neural MMO's ``VALID_TARGET`` words; ABSOLUTE is an
# explicit set of agent indices stored with the leaf.
GROUP_DEFAULT = 0
RELATIVE_TARGETS = (
    "left_team",
    "left_team_leader",
    "right_team",
    "right_team_leader",
    "my_team_leader",
    "all_foes",
    "all_foe_leaders",
)
GROUP_ABSOLUTE = len(RELATIVE_TARGETS) + 1
NUM_GROUP_CODES = GROUP_ABSOLUTE + 1


@struct.dataclass
class TaskContext:
    """Per-step quantities shared by predicates (``task_context`` builds it).

    Attributes:
        alive: ``(P,)`` bool, players whose rows Neural MMO would keep (``ent_alive``).
        pos: ``(P, 2)`` int32 player positions.
        sees_material: ``(P, 16)`` bool, material ``m`` lies in player ``p``'s
            ``15 x 15`` window (false for dead players).
        sees_agent: ``(P, P)`` bool, player ``q`` is alive and within L-inf distance 7 of
            alive player ``p`` (``p`` sees itself).
        inv_count: ``(P,)`` int32 occupied inventory slots (0 for dead players).
    """

    alive: jax.Array
    pos: jax.Array
    sees_material: jax.Array
    sees_agent: jax.Array
    inv_count: jax.Array

    if TYPE_CHECKING:  # provided by flax.struct at runtime

        def replace(self, **changes: Any) -> TaskContext: ...


def task_context(state: State, config: Config) -> TaskContext:
    """Compute the per-step task context of ``state`` (jittable; ``config`` is static).

    A window lies inside the map for every tile of the playable area (``Config`` keeps the
    void border wider than the vision radius); one that would cross the map edge is
    shifted inside it (``dynamic_slice`` clamps).

    Args:
        state: the world after the step (the ``GameState`` Neural MMO would build).
        config: the world's ``Config``.

    Returns:
        ``TaskContext`` with ``(P,)``, ``(P, 2)``, ``(P, 16)``, ``(P, P)`` and ``(P,)`` fields.
    """
    P = config.num_agents
    r = K.VISION_RADIUS
    alive = state.ent_alive[:P]
    pos = state.ent_pos[:P].astype(jnp.int32)

    def window(p: jax.Array) -> jax.Array:
        return jax.lax.dynamic_slice(state.tile, (p[0] - r, p[1] - r), (2 * r + 1, 2 * r + 1))

    windows = jax.vmap(window)(pos).reshape(P, -1)  # (P, 225)
    materials = jnp.arange(K.NUM_MATERIALS, dtype=windows.dtype)
    sees_material = (windows[:, :, None] == materials).any(axis=1) & alive[:, None]
    linf = jnp.abs(pos[:, None, :] - pos[None, :, :]).max(axis=-1)
    sees_agent = (linf <= r) & alive[:, None] & alive[None, :]
    inv_count = jnp.where(alive, (state.inv_type != 0).sum(axis=1), 0).astype(jnp.int32)
    return TaskContext(
        alive=alive, pos=pos, sees_material=sees_material, sees_agent=sees_agent, inv_count=inv_count
    )


class GameView:
    """Read access for predicates: ``state``, ``ctx`` (the ``TaskContext``) and ``config``.

    A predicate function receives one ``GameView`` as ``gs``. The shortcuts below are the
    ones the built-ins use most.
    """

    __slots__ = ("config", "ctx", "state")

    def __init__(self, state: State, ctx: TaskContext, config: Config) -> None:
        self.state = state
        self.ctx = ctx
        self.config = config

    @property
    def tick(self) -> jax.Array:
        """``()`` Neural MMO's ``current_tick`` (``state.step``)."""
        return self.state.step

    @property
    def alive(self) -> jax.Array:
        """``(P,)`` bool alive players."""
        return self.ctx.alive

    @property
    def num_agents(self) -> int:
        return self.config.num_agents


@functools.lru_cache(maxsize=32)
def group_tables(config: Config) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Static agent-group tables of ``config``.

    Returns:
        ``team_of`` ``(P,)`` int32, ``team_mask`` ``(NT, P)`` bool and ``relative``
        ``(NUM_GROUP_CODES, NT, P)`` bool: ``relative[code, t]`` is the group that the
        relative target ``RELATIVE_TARGETS[code - 1]`` names for team ``t`` (rows
        ``GROUP_DEFAULT`` and ``GROUP_ABSOLUTE`` are empty placeholders). Team order and
        leaders (first listed member) follow ``Config.teams`` as Neural MMO's
        ``TeamHelper`` follows its ``TEAMS`` dict.
    """
    P, NT = config.num_agents, config.num_teams
    teams = config.teams if config.teams is not None else tuple((a,) for a in range(P))
    team_of = np.asarray(config.team_of, np.int32)
    team_mask = np.zeros((NT, P), bool)
    for t, members in enumerate(teams):
        team_mask[t, list(members)] = True
    leader = np.zeros((NT, P), bool)
    for t, members in enumerate(teams):
        leader[t, members[0]] = True
    relative = np.zeros((NUM_GROUP_CODES, NT, P), bool)
    for t in range(NT):
        left, right = (t + 1) % NT, (t - 1) % NT
        foes = np.arange(NT) != t
        groups = {
            "left_team": team_mask[left],
            "left_team_leader": leader[left],
            "right_team": team_mask[right],
            "right_team_leader": leader[right],
            "my_team_leader": leader[t],
            "all_foes": team_mask[foes].any(axis=0),
            "all_foe_leaders": leader[foes].any(axis=0),
        }
        for code, word in enumerate(RELATIVE_TARGETS, start=1):
            relative[code, t] = groups[word]
    return team_of, team_mask, relative


def resolve_group(
    code: jax.Array,
    absolute: jax.Array,
    default: jax.Array,
    team: jax.Array,
    relative: jax.Array | np.ndarray,
) -> jax.Array:
    """The ``(P,)`` mask a group reference names for a holder of team ``team``.

    Args:
        code: ``()`` ``GROUP_DEFAULT``, a relative target code or ``GROUP_ABSOLUTE``.
        absolute: ``(P,)`` the explicit mask (used for ``GROUP_ABSOLUTE``).
        default: ``(P,)`` the mask ``GROUP_DEFAULT`` stands for.
        team: ``()`` the holder's team index.
        relative: ``(NUM_GROUP_CODES, NT, P)`` from ``group_tables``.
    """
    rel = relative[code, team]
    return jnp.where(code == GROUP_DEFAULT, default, jnp.where(code == GROUP_ABSOLUTE, absolute, rel))
