"""Compiled task tables and the per-step task functions the engine calls.

``compile_tasks(specs, config)`` turns ``TaskSpec``s into a ``TaskTable``: static NumPy
arrays with a leading spec axis ``NS`` (leaves, arguments, group references, postfix
programs, reward rules, the task embedding). Then, every step:

- ``evaluate(table, state, config, context)``: ``(P, T)`` progress of every task slot,
- ``update(table, state, progress)``: rewards and the new per-slot task state, with
  Neural MMO 2.1.1's reward rules (``nmmo/task/task_api.py``): ``Task`` rewards the
  increase in progress until complete, ``OngoingTask`` the progress every tick,
  ``HoldDurationTask`` ``timer / hold_duration`` increases and 1 on completion; all times
  ``reward_multiplier``. As in Neural MMO's ``Env._compute_rewards``, a slot is only
  evaluated while one of its assignees (the agent, or its team for ``reward_to="team"``)
  is alive or died this tick; otherwise it keeps its state and gives 0.

The default task set (no user tasks) is Neural MMO's ``nmmo_default_task``: ``TickGE``
with ``num_tick = horizon`` for each agent.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxmarl.environments.nmmo.config import Config
from jaxmarl.environments.nmmo.tasks import builtins as B
from jaxmarl.environments.nmmo.tasks import program as prog
from jaxmarl.environments.nmmo.tasks.context import (
    GROUP_ABSOLUTE,
    NUM_GROUP_CODES,
    RELATIVE_TARGETS,
    GameView,
    TaskContext,
    group_tables,
    resolve_group,
)
from jaxmarl.environments.nmmo.tasks.spec import Expr, GroupRef, Leaf, PredicateDef, TaskSpec, as_spec
from jaxmarl.environments.nmmo.types import State

REWARD_AGENT, REWARD_TEAM = 0, 1
KIND_TASK, KIND_ONGOING, KIND_HOLD = 0, 1, 2
MIN_INT_ARGS, MIN_FLOAT_ARGS = 4, 2
INSTRUCTION_WIDTH = prog.NUM_OPCODES + 2
TASK_FIELDS_WIDTH = 7


@struct.dataclass
class TaskTable:
    """Compiled specs. ``NS`` specs, ``C`` leaves, ``M`` instructions, ``NI``/``NF`` int/float
    arguments per leaf, ``P`` agents, ``NT`` teams, ``D`` embedding width (all static).

    Attributes:
        leaf_branch: ``(NS, C)`` int32 index into ``branches`` (0 for padding).
        leaf_code: ``(NS, C)`` int32 predicate code (index into ``predicate_names``; -1 padding).
        leaf_count: ``(NS,)`` int32 leaves used.
        int_args, float_args: ``(NS, C, NI)`` int32 and ``(NS, C, NF)`` float32.
        subject_ref, target_ref: ``(NS, C)`` int32 group codes (``context.GROUP_*``).
        subject_mask, target_mask: ``(NS, C, P)`` bool explicit groups (``GROUP_ABSOLUTE``).
        prog_op, prog_arg: ``(NS, M)`` int32 postfix program; prog_const ``(NS, M)`` float32.
        reward_to: ``(NS,)`` int32 ``REWARD_AGENT``/``REWARD_TEAM``.
        kind: ``(NS,)`` int32 ``KIND_TASK``/``KIND_ONGOING``/``KIND_HOLD``.
        hold_duration: ``(NS,)`` int32 (0 unless hold).
        reward_multiplier, sampling_weight: ``(NS,)`` float32.
        embedding: ``(NS, D)`` float32 (layout in ``embedding_layout``).
        team_of: ``(P,)`` int32; team_mask ``(NT, P)`` bool (from the Config).
        branches: the distinct predicate functions, dispatched with ``lax.switch``.
        predicate_names: names of the predicate codes: the 34 built-ins, then custom ones.
        spec_names: ``(NS,)`` names of the specs.
    """

    leaf_branch: np.ndarray
    leaf_code: np.ndarray
    leaf_count: np.ndarray
    int_args: np.ndarray
    float_args: np.ndarray
    subject_ref: np.ndarray
    subject_mask: np.ndarray
    target_ref: np.ndarray
    target_mask: np.ndarray
    prog_op: np.ndarray
    prog_arg: np.ndarray
    prog_const: np.ndarray
    reward_to: np.ndarray
    kind: np.ndarray
    hold_duration: np.ndarray
    reward_multiplier: np.ndarray
    sampling_weight: np.ndarray
    embedding: np.ndarray
    team_of: np.ndarray
    team_mask: np.ndarray
    branches: tuple[Callable[..., jax.Array], ...] = struct.field(pytree_node=False)
    predicate_names: tuple[str, ...] = struct.field(pytree_node=False)
    spec_names: tuple[str, ...] = struct.field(pytree_node=False)

    @property
    def num_specs(self) -> int:
        return int(self.kind.shape[0])

    if TYPE_CHECKING:  # provided by flax.struct at runtime

        def replace(self, **changes: Any) -> TaskTable: ...


def _check_group(ref: GroupRef, where: str, config: Config) -> np.ndarray:
    mask = np.zeros(config.num_agents, bool)
    if ref.code == GROUP_ABSOLUTE:
        bad = [a for a in ref.agents if a >= config.num_agents]
        if bad:
            raise ValueError(f"{where}: agent indices {bad} do not exist (num_agents={config.num_agents})")
        mask[list(ref.agents)] = True
    elif ref.code > 0 and RELATIVE_TARGETS[ref.code - 1].startswith("all_foe") and config.num_teams < 2:
        raise ValueError(f"{where}: {RELATIVE_TARGETS[ref.code - 1]!r} is empty with a single team")
    return mask


def _norm_int(x: np.ndarray) -> np.ndarray:
    return np.sign(x) * np.log2(1.0 + np.abs(x)) / 10.0


def embedding_layout(num_codes: int, C: int, M: int, NI: int, NF: int) -> dict[str, int]:
    """Widths of the embedding blocks: per leaf ``K + NI + NF + 2 * NUM_GROUP_CODES``
    (``C`` blocks), per instruction ``NUM_OPCODES + 2`` (``M`` blocks), then 7 task fields."""
    leaf = num_codes + NI + NF + 2 * NUM_GROUP_CODES
    return {
        "leaf": leaf,
        "instruction": INSTRUCTION_WIDTH,
        "task": TASK_FIELDS_WIDTH,
        "total": C * leaf + M * INSTRUCTION_WIDTH + TASK_FIELDS_WIDTH,
    }


def compile_tasks(specs: Sequence[TaskSpec | Expr], config: Config) -> TaskTable:
    """Compile specs (plain expressions get ``TaskSpec`` defaults) against a world.

    Raises ``ValueError`` where the world rules a spec out: a tile outside the map, a
    seize tile that is not a ``Config.seize_targets`` tile, an agent index that does not
    exist, a relative target that is empty (``all_foes`` with one team).
    """
    spec_list = [as_spec(s) for s in specs]
    if not spec_list:
        raise ValueError("compile_tasks: no specs given")
    P = config.num_agents
    leaves_per: list[list[Leaf]] = []
    programs: list[list[prog.Instruction]] = []
    for spec in spec_list:
        leaves: list[Leaf] = []
        programs.append(prog.compile_expr(spec.predicate, leaves))
        leaves_per.append(leaves)
    fns: list[Callable[..., jax.Array]] = []
    customs: list[PredicateDef] = []
    for leaves in leaves_per:
        for leaf in leaves:
            if leaf.pred.fn not in fns:
                fns.append(leaf.pred.fn)
            if leaf.pred.code is None and leaf.pred not in customs:
                customs.append(leaf.pred)
    names = B.BUILTIN_NAMES + tuple(c.name for c in customs)
    resolved = []
    for spec, leaves in zip(spec_list, leaves_per, strict=True):
        row = []
        for leaf in leaves:
            where = f"spec {spec.name!r}, {leaf}"
            ints, floats = leaf.pred.resolve(leaf, config) if leaf.pred.resolve else (leaf.ints, leaf.floats)
            row.append(
                (
                    leaf,
                    ints,
                    floats,
                    _check_group(leaf.subject, where, config),
                    _check_group(leaf.target, where, config),
                )
            )
        resolved.append(row)
    NS = len(spec_list)
    C = max([1, *(len(r) for r in resolved)])
    M = max([1, *(len(p) for p in programs)])
    NI = max([MIN_INT_ARGS, *(len(x[1]) for r in resolved for x in r)])
    NF = max([MIN_FLOAT_ARGS, *(len(x[2]) for r in resolved for x in r)])

    t = {
        "leaf_branch": np.zeros((NS, C), np.int32),
        "leaf_code": np.full((NS, C), -1, np.int32),
        "leaf_count": np.zeros(NS, np.int32),
        "int_args": np.zeros((NS, C, NI), np.int32),
        "float_args": np.zeros((NS, C, NF), np.float32),
        "subject_ref": np.zeros((NS, C), np.int32),
        "subject_mask": np.zeros((NS, C, P), bool),
        "target_ref": np.zeros((NS, C), np.int32),
        "target_mask": np.zeros((NS, C, P), bool),
        "prog_op": np.zeros((NS, M), np.int32),
        "prog_arg": np.zeros((NS, M), np.int32),
        "prog_const": np.zeros((NS, M), np.float32),
        "reward_to": np.array(
            [REWARD_TEAM if s.reward_to == "team" else REWARD_AGENT for s in spec_list], np.int32
        ),
        "kind": np.array([("task", "ongoing", "hold").index(s.kind) for s in spec_list], np.int32),
        "hold_duration": np.array([s.hold_duration or 0 for s in spec_list], np.int32),
        "reward_multiplier": np.array([s.reward_multiplier for s in spec_list], np.float32),
        "sampling_weight": np.array([s.sampling_weight for s in spec_list], np.float32),
    }
    for i, row in enumerate(resolved):
        t["leaf_count"][i] = len(row)
        for c, (leaf, ints, floats, smask, tmask) in enumerate(row):
            t["leaf_branch"][i, c] = fns.index(leaf.pred.fn)
            code = (
                leaf.pred.code
                if leaf.pred.code is not None
                else len(B.BUILTIN_NAMES) + customs.index(leaf.pred)
            )
            t["leaf_code"][i, c] = code
            t["int_args"][i, c, : len(ints)] = ints
            t["float_args"][i, c, : len(floats)] = floats
            t["subject_ref"][i, c], t["subject_mask"][i, c] = leaf.subject.code, smask
            t["target_ref"][i, c], t["target_mask"][i, c] = leaf.target.code, tmask
        for m, (o, a, k) in enumerate(programs[i]):
            t["prog_op"][i, m], t["prog_arg"][i, m], t["prog_const"][i, m] = o, a, k

    # ---- embedding (layout documented in docs/environments/nmmo_tasks.md)
    layout = embedding_layout(len(names), C, M, NI, NF)
    emb = np.zeros((NS, layout["total"]), np.float32)
    G = NUM_GROUP_CODES
    for i in range(NS):
        for c in range(int(t["leaf_count"][i])):
            block = np.zeros(layout["leaf"], np.float32)
            block[t["leaf_code"][i, c]] = 1.0
            o = len(names)
            block[o : o + NI] = _norm_int(t["int_args"][i, c].astype(np.float64))
            block[o + NI : o + NI + NF] = t["float_args"][i, c]
            block[o + NI + NF + t["subject_ref"][i, c]] = 1.0
            block[o + NI + NF + G + t["target_ref"][i, c]] = 1.0
            emb[i, c * layout["leaf"] : (c + 1) * layout["leaf"]] = block
        base = C * layout["leaf"]
        for m in range(M):
            o = base + m * INSTRUCTION_WIDTH
            emb[i, o + t["prog_op"][i, m]] = 1.0
            emb[i, o + prog.NUM_OPCODES] = t["prog_arg"][i, m] / M
            emb[i, o + prog.NUM_OPCODES + 1] = t["prog_const"][i, m]
        o = base + M * INSTRUCTION_WIDTH
        emb[i, o + t["reward_to"][i]] = 1.0
        emb[i, o + 2 + t["kind"][i]] = 1.0
        emb[i, o + 5] = math.log2(1.0 + float(t["hold_duration"][i])) / 10.0
        emb[i, o + 6] = t["reward_multiplier"][i]
    team_of, team_mask, _ = group_tables(config)
    return TaskTable(
        **t,
        embedding=emb,
        team_of=team_of,
        team_mask=team_mask,
        branches=tuple(fns),
        predicate_names=names,
        spec_names=tuple(s.name for s in spec_list),
    )


def default_specs() -> tuple[TaskSpec, ...]:
    """Neural MMO's default task: ``TickGE(num_tick=horizon)`` for each agent."""
    return (TaskSpec(B.TickGE()),)


def progress_of(
    table: TaskTable, state: State, config: Config, context: TaskContext, agent: jax.Array, spec: jax.Array
) -> jax.Array:
    """Progress of spec ``spec[k]`` held by agent ``agent[k]`` (``(K,)`` int32 each;
    ``spec < 0`` gives 0). Returns ``(K,)`` float32 in ``[0, 1]``."""
    gs = GameView(state, context, config)
    table = jax.tree.map(jnp.asarray, table)
    _, _, relative_np = group_tables(config)
    relative = jnp.asarray(relative_np)
    P = config.num_agents
    team_of, team_mask = table.team_of, table.team_mask
    C = table.leaf_branch.shape[1]
    nobody = jnp.zeros(P, bool)
    branches = [
        lambda sj, ia, fa, tg, fn=fn: jnp.asarray(fn(gs, sj, ia, fa, tg), jnp.float32)
        for fn in table.branches
    ]

    def one(a: jax.Array, s: jax.Array) -> jax.Array:
        valid = s >= 0
        s = jnp.maximum(s, 0)
        team = team_of[a]
        holder = jnp.where(table.reward_to[s] == REWARD_TEAM, team_mask[team], jnp.arange(P) == a)

        def leaf(c: jax.Array) -> jax.Array:
            subj = resolve_group(table.subject_ref[s, c], table.subject_mask[s, c], holder, team, relative)
            tgt = resolve_group(table.target_ref[s, c], table.target_mask[s, c], nobody, team, relative)
            ia, fa = table.int_args[s, c], table.float_args[s, c]
            v = jax.lax.switch(table.leaf_branch[s, c], branches, subj, ia, fa, tgt)
            return jnp.where(c < table.leaf_count[s], jnp.clip(v, 0.0, 1.0), 0.0)

        values = jax.vmap(leaf)(jnp.arange(C))
        out = prog.run_program(table.prog_op[s], table.prog_arg[s], table.prog_const[s], values)
        return jnp.where(valid, out, 0.0)

    return jax.vmap(one)(agent, spec)


def evaluate(table: TaskTable, state: State, config: Config, context: TaskContext) -> jax.Array:
    """``(P, T)`` float32 progress of every agent's task slots (``state.task_index``; an
    empty slot, -1, gives 0). The subject is the agent for ``reward_to="agent"`` and its
    whole team (``config.team_of``) for ``"team"``."""
    P, T = state.task_index.shape
    agent = jnp.repeat(jnp.arange(P, dtype=jnp.int32), T)
    return progress_of(table, state, config, context, agent, state.task_index.reshape(-1)).reshape(P, T)


def update(
    table: TaskTable, state: State, progress: jax.Array
) -> tuple[jax.Array, jax.Array, jax.Array, jax.Array]:
    """Apply Neural MMO's reward rules to this step's ``progress`` (from ``evaluate``).

    A slot whose assignees (the agent, or its team for ``reward_to="team"``) are all dead
    and did not die this tick keeps its state. Agents dead before this tick get reward 0
    (a team task still advances for them while a teammate lives, as Neural MMO's one
    shared task object does).

    Returns:
        ``reward`` ``(P,)`` float32 (summed over slots, times ``reward_multiplier``), and
        the new ``task_progress`` ``(P, T)``, ``task_completed_tick`` and ``task_timer``.
        The env adds Neural MMO's -1 on death and zeroes frozen agents itself.
    """
    P = state.task_index.shape[0]
    table = jax.tree.map(jnp.asarray, table)
    idx = state.task_index
    s = jnp.maximum(idx, 0)
    kind = table.kind[s]
    mult = table.reward_multiplier[s]
    hold = jnp.maximum(table.hold_duration[s], 1)
    team_task = table.reward_to[s] == REWARD_TEAM
    old, done, timer = state.task_progress, state.task_completed_tick, state.task_timer
    tick = state.step.astype(done.dtype)
    completed = done >= 0

    current = state.ent_alive[:P] | state.died_this_tick
    team_current = (jnp.asarray(table.team_mask) & current[None, :]).any(axis=1)[jnp.asarray(table.team_of)]
    active = (idx >= 0) & jnp.where(team_task, team_current[:, None], current[:, None])

    just_done = ~completed & (progress >= 1.0)
    # Task
    r_task = jnp.where(completed, 0.0, progress - old)
    p_task = jnp.where(completed, old, progress)
    # Ongoing
    r_on, p_on = progress, progress
    # HoldDuration
    t_hold = jnp.where(progress < 1.0, 0, timer + 1)
    p_hold = t_hold.astype(jnp.float32) / hold.astype(jnp.float32)
    hold_done = ~completed & (p_hold >= 1.0)
    r_hold = jnp.where(completed, 0.0, jnp.where(hold_done, 1.0, p_hold - old))
    p_hold = jnp.where(completed, old, p_hold)
    t_hold = jnp.where(completed, timer, t_hold)

    is_task, is_on = kind == KIND_TASK, kind == KIND_ONGOING
    reward = jnp.where(is_task, r_task, jnp.where(is_on, r_on, r_hold))
    new_p = jnp.where(is_task, p_task, jnp.where(is_on, p_on, p_hold))
    finished = jnp.where(kind == KIND_HOLD, hold_done, just_done)
    new_done = jnp.where(finished, tick, done)
    new_timer = jnp.where(kind == KIND_HOLD, t_hold, timer)

    # Neural MMO hands rewards to current agents only (a dead teammate gets none).
    reward = jnp.where(active & current[:, None], reward * mult, 0.0).astype(jnp.float32)
    new_p = jnp.where(active, new_p, old).astype(old.dtype)
    new_done = jnp.where(active, new_done, done)
    new_timer = jnp.where(active, new_timer, timer)
    return reward.sum(axis=1), new_p, new_done, new_timer


def reset_slots(task_index: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Fresh ``task_progress`` (0.0), ``task_completed_tick`` (-1) and ``task_timer`` (0)
    for ``task_index`` ``(P, T)``."""
    shape = task_index.shape
    return jnp.zeros(shape, jnp.float32), jnp.full(shape, -1, jnp.int32), jnp.zeros(shape, jnp.int32)


def embed(table: TaskTable, task_index: jax.Array) -> jax.Array:
    """``(P, T, D)`` float32 embedding of each slot's task (zeros for an empty slot)."""
    emb = jnp.asarray(table.embedding)[jnp.maximum(task_index, 0)]
    return jnp.where((task_index >= 0)[..., None], emb, 0.0)
