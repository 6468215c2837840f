"""Scripted NPCs: spawning, levels and behaviour (Neural MMO's ``entity/npc.py``,
``npc_manager.py`` and ``systems/combat.py``'s ``danger``/``spawn``).

**Spawning.** An NPC's danger is ``2 * d / map_center`` where ``d`` is its distance to the
nearest map edge: 0 at the edge, 1 in the centre. Danger fixes its kind (hostile from
0.8, neutral from 0.5, passive below), level ``int(danger * (npc_level_max - 1) + 1)``,
gold (= level), gear (attack and defense ``int(8 * (level - u))``, ``u ~ U[0, 1)``) and a
random style, armour drop and tool drop. Each tick (and once at reset) up to 25 spawn
attempts fill free NPC slots: a slot whose NPC died first tries a tile at the same
danger (``combat.spawn``), otherwise a uniformly random tile; attempts on impassable
tiles fail.

**Behaviour**, decided at the start of a tick from the state before anyone moves:
passive NPCs wander (a random habitable direction); neutral NPCs chase and attack
whoever attacked them; hostile NPCs also hunt the closest visible player (L-inf
distance within 7). A chasing NPC steps along a shortest path (breadth-first search in
a 17 x 17 window around it; Neural MMO uses A* with a 100-node budget, which agrees
whenever the path stays in the window) and attacks when the target is within 3 tiles.
NPCs regain 1 health per tick and never attack NPCs or immortal players.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxmarl.environments.nmmo import constants as C
from jaxmarl.environments.nmmo import inventory as inv_ops
from jaxmarl.environments.nmmo import rng
from jaxmarl.environments.nmmo.config import Config
from jaxmarl.environments.nmmo.types import State

_WINDOW = 8  # BFS window radius around a chasing NPC
_BFS_ITERATIONS = 2 * _WINDOW + 4
# Neural MMO's meander order (N, S, W, E) as our move ids, and A*'s neighbour order.
_MEANDER = (C.NORTH, C.SOUTH, C.WEST, C.EAST)
_ASTAR_ORDER = (C.NORTH, C.WEST, C.SOUTH, C.EAST)


def danger(config: Config, pos: jax.Array) -> jax.Array:
    """``combat.danger``: ``(..., 2)`` positions to danger in ``[0, 1]``."""
    b, c = config.border, config.map_center
    r_dist = jnp.minimum(pos[..., 0] - b, c + b - pos[..., 0] - 1)
    c_dist = jnp.minimum(pos[..., 1] - b, c + b - pos[..., 1] - 1)
    return 2 * jnp.minimum(r_dist, c_dist) / c


def ring_position(draws: jax.Array, config: Config, danger_: jax.Array) -> jax.Array:
    """``combat.spawn``: random tiles at the given dangers, ``(..., 2)``, from random bits
    ``draws`` ``(..., 2)`` (``rng.bits``)."""
    b, c = config.border, config.map_center
    mid = c // 2
    dist = danger_ * c / 2
    max_offset = mid - dist
    # dist is a whole number of tiles (danger = 2 * d / map_center for a tile at d).
    max_offset = jnp.round(max_offset).astype(jnp.int32)
    offset = mid + b + rng.randint(draws[..., 0], -max_offset, jnp.maximum(max_offset, -max_offset + 1))
    side = rng.uniform(draws[..., 1])
    near, far = b + dist, b + c - dist - 1
    r = jnp.select([side < 0.25, side < 0.5, side < 0.75], [near, far, offset], offset)
    col = jnp.select([side < 0.25, side < 0.5, side < 0.75], [offset, offset, near], far)
    return jnp.stack([r, col], -1).astype(jnp.int32)


def spawn(key: jax.Array, config: Config, state: State, attempts: int = C.NPC_SPAWN_ATTEMPTS) -> State:
    """Fill free NPC slots with up to ``attempts`` spawn attempts (see the module docstring)."""
    P, N = config.num_agents, config.num_npcs
    if N == 0:
        return state
    d_pos, d_ring, d_style, d_gear, d_armor, d_tool = rng.bits(
        key, (attempts, 2), (attempts, 2), (N,), (N,), (N,), (N,)
    )
    npc = slice(P, P + N)
    free = ~state.ent_alive[npc]
    num_free = jnp.sum(free)
    rank = jnp.cumsum(free) - 1  # order of the free slots
    # Attempt a (0..attempts-1) goes to free slot (a mod num_free); a slot's first
    # attempt uses its old danger when its NPC died there (danger > 0).
    attempt = jnp.arange(attempts)
    target_rank = attempt % jnp.maximum(num_free, 1)
    first = attempt < num_free
    slot_of_rank = jnp.argsort(jnp.where(free, rank, N + jnp.arange(N)))
    slot = slot_of_rank[target_rank]
    random_pos = rng.randint(d_pos, config.border, config.border + config.map_center)
    ring = ring_position(d_ring, config, jnp.maximum(state.npc_danger[npc][slot], 0.0))
    use_ring = first & (state.npc_danger[npc][slot] > 0)  # nmmo skips a danger of 0 (falsy)
    pos = jnp.where(use_ring[:, None], ring, random_pos)
    ok = (num_free > 0) & jnp.asarray(C.HABITABLE)[state.tile[pos[:, 0], pos[:, 1]]]
    # The first successful attempt of each slot spawns there.
    first_success = jnp.full(N, attempts, jnp.int32).at[slot].min(jnp.where(ok, attempt, attempts))
    spawned = free & (first_success < attempts)
    # Neural MMO pops a dead NPC's danger whether or not its spawn tile was passable.
    ring_tried = jnp.zeros(N, bool).at[slot].max(use_ring)
    danger_left = jnp.where(ring_tried & ~spawned, -1.0, state.npc_danger[npc])
    state = state.replace(npc_danger=state.npc_danger.at[npc].set(danger_left))
    where = jnp.minimum(first_success, attempts - 1)
    new_pos = pos[where]
    d = danger(config, new_pos)
    kind = jnp.where(
        d >= C.NPC_SPAWN_AGGRESSIVE, C.HOSTILE, jnp.where(d >= C.NPC_SPAWN_NEUTRAL, C.NEUTRAL, C.PASSIVE)
    )
    level = (d * (config.npc_level_max - C.NPC_LEVEL_MIN) + C.NPC_LEVEL_MIN).astype(jnp.int32)
    style = rng.randint(d_style, 0, 3)
    lvl = level - rng.uniform(d_gear)
    gear = (lvl * C.NPC_LEVEL_DAMAGE).astype(jnp.int32)
    armor = jnp.asarray(C.ARMOR_TYPES)[rng.randint(d_armor, 0, 3)]
    tool = jnp.asarray(C.TOOL_TYPES)[rng.randint(d_tool, 0, 5)]
    skill_level = jnp.zeros((N, C.NUM_SKILLS), jnp.int32).at[jnp.arange(N), style].set(level)
    # Neural MMO sets the style's experience to level_at_exp(level) (sic).
    skill_exp = (
        jnp.zeros((N, C.NUM_SKILLS), jnp.int32).at[jnp.arange(N), style].set(inv_ops.level_at_exp(level))
    )
    new_id = state.next_npc_id - jnp.cumsum(spawned) + 1
    s = spawned

    def put(field: jax.Array, value: jax.Array) -> jax.Array:
        cond = s.reshape(s.shape + (1,) * (value.ndim - 1))
        return field.at[npc].set(jnp.where(cond, value, field[npc]))

    return state.replace(
        ent_id=put(state.ent_id, new_id),
        ent_alive=put(state.ent_alive, jnp.ones(N, bool)),
        ent_pos=put(state.ent_pos, new_pos),
        ent_spawn_pos=put(state.ent_spawn_pos, new_pos),
        ent_health=put(state.ent_health, jnp.full(N, C.BASE_HEALTH)),
        ent_gold=put(state.ent_gold, level),
        ent_time_alive=put(state.ent_time_alive, jnp.zeros(N, jnp.int32)),
        ent_freeze=put(state.ent_freeze, jnp.zeros(N, jnp.int32)),
        ent_damage=put(state.ent_damage, jnp.zeros(N, jnp.int32)),
        ent_attacker=put(state.ent_attacker, jnp.full(N, -1)),
        ent_latest_combat_tick=put(state.ent_latest_combat_tick, jnp.zeros(N, jnp.int32)),
        ent_level=put(state.ent_level, skill_level),
        ent_exp=put(state.ent_exp, skill_exp),
        ent_item_level=put(state.ent_item_level, (5 * lvl).astype(jnp.int32)),
        npc_type=put(state.npc_type, kind),
        npc_style=put(state.npc_style, style),
        npc_offense=put(state.npc_offense, gear),
        npc_defense=put(state.npc_defense, gear),
        npc_drops=put(state.npc_drops, jnp.stack([armor, tool], -1)),
        npc_target=put(state.npc_target, jnp.full(N, -1)),
        npc_danger=put(state.npc_danger, d.astype(jnp.float32)),
        next_npc_id=state.next_npc_id - jnp.sum(spawned),
    )


def _bfs_moves(habitable: jax.Array, start: jax.Array, goal: jax.Array, active: jax.Array) -> jax.Array:
    """``(N,)`` first moves (our move ids) along a shortest habitable path from each
    ``start`` to its ``goal`` (``(N, 2)``) within the window around the start; toward the
    goal by L1 when no path is found in it. Rows where ``active`` is false are not searched
    (their move is meaningless).

    The distances to the goal grow one ring per relaxation, so the search stops as soon as
    every active start is reached (or nothing changes, or after ``_BFS_ITERATIONS``): a
    start reached after ``d`` relaxations already knows its neighbours at ``d - 1``, which
    are the ones the move picks, so the moves equal those of the full search."""
    w = _WINDOW
    n, size = start.shape[0], habitable.shape[0]
    span = jnp.arange(2 * w + 1)
    rows = start[:, 0, None] - w + span  # (N, 2w + 1)
    cols = start[:, 1, None] - w + span
    row_in, col_in = (rows >= 0) & (rows < size), (cols >= 0) & (cols < size)
    inside = row_in[:, :, None] & col_in[:, None, :]
    window = habitable[jnp.clip(rows, 0, size - 1)[:, :, None], jnp.clip(cols, 0, size - 1)[:, None, :]]
    passable = inside & window
    searched = passable & active[:, None, None]
    g = goal - start + w
    in_window = jnp.all((g >= 0) & (g <= 2 * w), -1)
    big = 10_000
    dist = jnp.full((n, 2 * w + 1, 2 * w + 1), big, jnp.int32)
    dist = dist.at[jnp.arange(n), g[:, 0], g[:, 1]].set(jnp.where(in_window, 0, big), mode="drop")

    def relax(d: jax.Array) -> jax.Array:
        pad = jnp.pad(d, ((0, 0), (1, 1), (1, 1)), constant_values=big)
        best = jnp.minimum(
            jnp.minimum(pad[:, :-2, 1:-1], pad[:, 2:, 1:-1]), jnp.minimum(pad[:, 1:-1, :-2], pad[:, 1:-1, 2:])
        )
        return jnp.where(searched, jnp.minimum(d, best + 1), d)

    def searching(carry: tuple[jax.Array, jax.Array, jax.Array]) -> jax.Array:
        i, d, changed = carry
        return (i < _BFS_ITERATIONS) & changed & jnp.any(active & (d[:, w, w] >= big))

    def body(carry: tuple[jax.Array, jax.Array, jax.Array]) -> tuple[jax.Array, jax.Array, jax.Array]:
        i, d, _ = carry
        new = relax(d)
        return i + 1, new, jnp.any(new != d)

    _, dist, _ = jax.lax.while_loop(searching, body, (jnp.array(0), dist, jnp.array(True)))
    moves = jnp.asarray(C.MOVES)
    order = jnp.asarray(_ASTAR_ORDER)
    cells = w + moves[order]  # (4, 2)
    open_ = passable[:, cells[:, 0], cells[:, 1]]  # (N, 4)
    around = jnp.where(open_, dist[:, cells[:, 0], cells[:, 1]], big)
    heuristic = jnp.where(open_, jnp.abs(g[:, None, :] - cells[None]).sum(-1), big)
    reachable = jnp.min(around, -1) < big
    choice = jnp.where(reachable, jnp.argmin(around, -1), jnp.argmin(heuristic, -1))
    best = jnp.min(jnp.where(reachable[:, None], around, heuristic), -1)
    move = jnp.where(best < big, order[choice], C.STAY)
    return jnp.where(jnp.all(start == goal, -1), C.STAY, move)


def decide(key: jax.Array, config: Config, state: State) -> tuple[jax.Array, jax.Array, jax.Array]:
    """NPC actions for the tick: ``(move (N,), attack_target (N,) entity index or -1,
    new npc_target (N,))``."""
    P, N = config.num_agents, config.num_npcs
    npc = slice(P, P + N)
    alive = state.ent_alive
    pos = state.ent_pos
    kind = state.npc_type[npc]
    me = pos[npc]
    habitable = jnp.asarray(C.HABITABLE)[state.tile]

    def linf(a: jax.Array, b: jax.Array) -> jax.Array:
        return jnp.max(jnp.abs(a - b), -1)

    visible_player = alive[:P] & ~state.ent_immortal[:P]

    def can_see(t: jax.Array) -> jax.Array:
        tt = jnp.maximum(t, 0)
        ok_player = jnp.where(tt < P, visible_player[jnp.minimum(tt, P - 1)], True)
        return (t >= 0) & alive[tt] & ok_player & (linf(me, pos[tt]) <= C.VISION_RADIUS)

    previous = state.npc_target[npc]
    target = jnp.where(can_see(previous), previous, -1)
    attacker = state.ent_attacker[npc]
    target = jnp.where((target < 0) & (attacker >= 0), attacker, target)
    # Hostile NPCs look for the closest visible player.
    dist = linf(me[:, None, :], pos[None, :P, :])
    seen = visible_player[None, :] & (dist <= C.VISION_RADIUS)
    closest = jnp.argmin(jnp.where(seen, dist, 10_000), -1)
    target = jnp.where((kind == C.HOSTILE) & (target < 0) & jnp.any(seen, -1), closest, target)
    target = jnp.where(kind == C.PASSIVE, -1, target)
    chasing = (kind != C.PASSIVE) & (target >= 0) & alive[npc]

    goal = pos[jnp.maximum(target, 0)]
    chase_move = _bfs_moves(habitable, me, goal, chasing)
    start = rng.randint(jax.random.bits(key, (N,), jnp.uint32), 0, 4)
    meander_dirs = jnp.asarray(_MEANDER)
    cand = meander_dirs[(start[:, None] + jnp.arange(4)) % 4]
    step = jnp.asarray(C.MOVES)[cand]
    ok = habitable[me[:, None, 0] + step[..., 0], me[:, None, 1] + step[..., 1]]
    meander = jnp.where(jnp.any(ok, -1), cand[jnp.arange(N), jnp.argmax(ok, -1)], C.NORTH)
    move = jnp.where(chasing, chase_move, meander)

    tt = jnp.maximum(target, 0)
    target_ok = (tt < P) & alive[tt] & ~state.ent_immortal[jnp.minimum(tt, P - 1)]
    attack = jnp.where(chasing & target_ok & (linf(me, pos[tt]) <= C.ATTACK_REACH), target, -1)
    return move, attack, jnp.where(alive[npc], target, -1)
