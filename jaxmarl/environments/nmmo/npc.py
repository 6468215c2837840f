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


def ring_position(key: jax.Array, config: Config, danger_: jax.Array) -> jax.Array:
    """``combat.spawn``: a random tile at the given danger, ``(2,)``."""
    b, c = config.border, config.map_center
    mid = c // 2
    dist = danger_ * c / 2
    max_offset = mid - dist
    k_off, k_side = jax.random.split(key)
    # dist is a whole number of tiles (danger = 2 * d / map_center for a tile at d).
    max_offset = jnp.round(max_offset).astype(jnp.int32)
    offset = mid + b + jax.random.randint(k_off, (), -max_offset, jnp.maximum(max_offset, -max_offset + 1))
    side = jax.random.uniform(k_side)
    near, far = b + dist, b + c - dist - 1
    r = jnp.select([side < 0.25, side < 0.5, side < 0.75], [near, far, offset], offset)
    col = jnp.select([side < 0.25, side < 0.5, side < 0.75], [offset, offset, near], far)
    return jnp.stack([r, col]).astype(jnp.int32)


def spawn(key: jax.Array, config: Config, state: State, attempts: int = C.NPC_SPAWN_ATTEMPTS) -> State:
    """Fill free NPC slots with up to ``attempts`` spawn attempts (see the module docstring)."""
    P, N = config.num_agents, config.num_npcs
    if N == 0:
        return state
    k_pos, k_ring, k_style, k_gear, k_armor, k_tool = jax.random.split(key, 6)
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
    random_pos = jax.random.randint(k_pos, (attempts, 2), config.border, config.border + config.map_center)
    ring = jax.vmap(lambda k, d: ring_position(k, config, d))(
        jax.random.split(k_ring, attempts), jnp.maximum(state.npc_danger[npc][slot], 0.0)
    )
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
    style = jax.random.randint(k_style, (N,), 0, 3)
    lvl = level - jax.random.uniform(k_gear, (N,))
    gear = (lvl * C.NPC_LEVEL_DAMAGE).astype(jnp.int32)
    armor = jnp.asarray(C.ARMOR_TYPES)[jax.random.randint(k_armor, (N,), 0, 3)]
    tool = jnp.asarray(C.TOOL_TYPES)[jax.random.randint(k_tool, (N,), 0, 5)]
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


def _bfs_step(habitable: jax.Array, start: jax.Array, goal: jax.Array) -> jax.Array:
    """First move (our move id) along a shortest habitable path from ``start`` to
    ``goal`` within the window; toward the goal by L1 when no path is found in it."""
    w = _WINDOW
    size = habitable.shape[0]
    rows = start[0] - w + jnp.arange(2 * w + 1)
    cols = start[1] - w + jnp.arange(2 * w + 1)
    inside = (rows[:, None] >= 0) & (rows[:, None] < size) & (cols[None, :] >= 0) & (cols[None, :] < size)
    passable = inside & habitable[jnp.clip(rows, 0, size - 1)[:, None], jnp.clip(cols, 0, size - 1)[None, :]]
    g = goal - start + w
    in_window = jnp.all((g >= 0) & (g <= 2 * w))
    big = 10_000
    dist = jnp.full((2 * w + 1, 2 * w + 1), big, jnp.int32)
    dist = dist.at[g[0], g[1]].set(jnp.where(in_window, 0, big), mode="drop")

    def relax(_: int, d: jax.Array) -> jax.Array:
        pad = jnp.pad(d, 1, constant_values=big)
        best = jnp.minimum(
            jnp.minimum(pad[:-2, 1:-1], pad[2:, 1:-1]), jnp.minimum(pad[1:-1, :-2], pad[1:-1, 2:])
        )
        return jnp.where(passable, jnp.minimum(d, best + 1), d)

    dist = jax.lax.fori_loop(0, _BFS_ITERATIONS, relax, dist)
    moves = jnp.asarray(C.MOVES)
    order = jnp.asarray(_ASTAR_ORDER)
    cells = w + moves[order]
    around = jnp.where(passable[cells[:, 0], cells[:, 1]], dist[cells[:, 0], cells[:, 1]], big)
    heuristic = jnp.abs(g[None, :] - cells).sum(-1)
    heuristic = jnp.where(passable[cells[:, 0], cells[:, 1]], heuristic, big)
    reachable = jnp.min(around) < big
    choice = jnp.where(reachable, jnp.argmin(around), jnp.argmin(heuristic))
    move = jnp.where(jnp.min(jnp.where(reachable, around, heuristic)) < big, order[choice], C.STAY)
    return jnp.where(jnp.all(start == goal), C.STAY, move)


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
    chase_move = jax.vmap(lambda s, g: _bfs_step(habitable, s, g))(me, goal)
    start = jax.random.randint(key, (N,), 0, 4)
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
