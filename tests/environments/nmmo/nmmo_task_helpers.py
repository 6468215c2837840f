"""Shared helpers of the task-system tests: a tiny world, hand-built scenarios and an
evaluator that compiles a set of leaves once and reads every agent's progress.

A ``Scenario`` describes a game state in Neural MMO's terms (players, their items, the
event log rows recorded so far, tiles, seized tiles); ``to_state`` turns it into our
``State`` (events become the episode totals the engine keeps) and ``to_oracle`` into the
JSON that ``nmmo_task_oracle_worker.py`` turns into Neural MMO's own ``GameState``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np
from fast_compile import jit as fast_jit

import jaxmarl.environments.nmmo.tasks as tasks
from jaxmarl.environments.nmmo import constants as K
from jaxmarl.environments.nmmo.config import Config
from jaxmarl.environments.nmmo.tasks.testing import default_fields
from jaxmarl.environments.nmmo.types import State

# 4 agents in two teams, 2 NPC slots, a 24 x 24 map whose playable centre is rows/cols
# 8..15 (border 8 > vision 7). Centre tile 12; quadrant centres 12 +- 8 // 4.
SEIZE = ((12, 12), (14, 14), (10, 14), (10, 10), (14, 10), (9, 15))
CFG = Config(
    num_agents=4,
    num_npcs=2,
    map_size=24,
    map_center=8,
    horizon=100,
    teams=((0, 1), (2, 3)),
    seize_targets=SEIZE,
)
P = CFG.num_agents
TEAMS = ((0, 1), (2, 3))

Event = tuple[int, str, int, int, int, int, int]  # agent, code name, type, level, number, gold, target_ent
Item = tuple[int, str, int, int, bool]  # agent, item name, level, quantity, equipped


@dataclasses.dataclass
class Scenario:
    """A hand-built world. Agents are 0-based (Neural MMO id = index + 1)."""

    step: int = 0
    alive: Sequence[bool] = (True,) * P
    health: Sequence[int] = (100,) * P
    pos: Sequence[tuple[int, int]] = ((12, 12),) * P
    spawn: Sequence[tuple[int, int]] | None = None
    gold: Sequence[int] = (0,) * P
    levels: dict[tuple[int, str], int] = dataclasses.field(default_factory=dict)
    exp: dict[tuple[int, str], int] = dataclasses.field(default_factory=dict)
    items: Sequence[Item] = ()
    events: Sequence[Event] = ()
    tiles: dict[tuple[int, int], int] = dataclasses.field(default_factory=dict)
    seize: dict[tuple[int, int], tuple[int, int]] = dataclasses.field(default_factory=dict)


def totals_from_events(events: Sequence[Event]) -> dict[str, np.ndarray]:
    """The episode totals of ``State`` that Neural MMO's event rows amount to."""
    counts = np.zeros((P, K.NUM_EVENT_CODES), np.int32)
    item_events = np.zeros((P, len(K.ITEM_EVENTS), K.NUM_ITEM_TYPES, K.LEVEL_MAX + 1), np.int32)
    hits = np.zeros((P, K.NUM_COMBAT_SKILLS), np.int32)
    kills = np.zeros((P, 2, K.LEVEL_MAX + 1), np.int32)
    gold = np.zeros((P, 3), np.int32)
    for agent, name, typ, level, number, gold_amount, target in events:
        code = K.EVENT_CODES[name]
        counts[agent, code] += 1
        if code in K.ITEM_EVENTS:
            item_events[agent, K.ITEM_EVENTS.index(code), typ, level] += number
        if code == K.SCORE_HIT:
            hits[agent, typ - 1] += 1
        if code == K.PLAYER_KILL:
            kills[agent, int(target > 0), level] += 1
        if code in (K.EARN_GOLD, K.LOOT_GOLD, K.BUY_ITEM):
            gold[agent, (K.EARN_GOLD, K.LOOT_GOLD, K.BUY_ITEM).index(code)] += gold_amount
    return {
        "event_counts": counts,
        "item_events": item_events,
        "hits": hits,
        "kills": kills,
        "gold_events": gold,
    }


def tile_map(sc: Scenario) -> np.ndarray:
    tile = default_fields(CFG)["tile"]
    for (r, c), m in sc.tiles.items():
        tile[r, c] = m
    return tile


def to_state(sc: Scenario, config: Config = CFG, **extra: object) -> State:
    """Our ``State`` for a scenario (``extra`` fields override); ``config`` may differ
    from ``CFG`` in ``tasks_per_agent`` only."""
    E = config.num_entities
    fields = default_fields(config)
    alive = np.zeros(E, bool)
    alive[:P] = sc.alive
    pos = fields["ent_pos"]
    pos[:P] = sc.pos
    spawn = pos.copy()
    if sc.spawn is not None:
        spawn[:P] = sc.spawn
    health = fields["ent_health"]
    health[:P] = sc.health
    gold = fields["ent_gold"]
    gold[:P] = sc.gold
    level, exp = fields["ent_level"], fields["ent_exp"]
    for (a, skill), v in sc.levels.items():
        level[a, K.SKILL_NAMES.index(skill)] = v
    for (a, skill), v in sc.exp.items():
        exp[a, K.SKILL_NAMES.index(skill)] = v
    inv = {k: fields[k] for k in ("inv_type", "inv_level", "inv_quantity", "inv_equipped")}
    used = [0] * P
    for a, name, lv, qty, eq in sc.items:
        slot = used[a]
        used[a] += 1
        inv["inv_type"][a, slot] = K.ITEM_NAMES.index(name)
        inv["inv_level"][a, slot], inv["inv_quantity"][a, slot], inv["inv_equipped"][a, slot] = lv, qty, eq
    owner = fields["seize_owner"]
    tick = fields["seize_tick"]
    for tile_pos, (a, t) in sc.seize.items():
        k = SEIZE.index(tile_pos)
        owner[k], tick[k] = a, t
    fields.update(
        ent_alive=alive,
        ent_pos=pos,
        ent_spawn_pos=spawn,
        ent_health=health,
        ent_gold=gold,
        ent_level=level,
        ent_exp=exp,
        tile=tile_map(sc),
        seize_owner=owner,
        seize_tick=tick,
        step=np.array(sc.step, np.int32),
        **inv,
        **totals_from_events(sc.events),
    )
    return tasks.make_state(config, **{**fields, **extra})


def to_oracle(sc: Scenario) -> dict:
    """The scenario as JSON for the Neural MMO worker (ids are Neural MMO's)."""
    players = []
    for a in range(P):
        spawn = sc.spawn[a] if sc.spawn is not None else sc.pos[a]
        levels = {s: sc.levels.get((a, s), 1) for s in K.SKILL_NAMES}
        exp = {s: sc.exp.get((a, s), 0) for s in K.SKILL_NAMES}
        players.append(
            {
                "id": a + 1,
                "alive": bool(sc.alive[a]),
                "row": sc.pos[a][0],
                "col": sc.pos[a][1],
                "spawn": list(spawn),
                "health": sc.health[a],
                "gold": sc.gold[a],
                "levels": levels,
                "exp": exp,
            }
        )
    return {
        "tick": sc.step,
        "config": {
            "HORIZON": CFG.horizon,
            "MAP_SIZE": CFG.map_size,
            "MAP_CENTER": CFG.map_center,
            "MAP_BORDER": CFG.border,
            "ITEM_INVENTORY_CAPACITY": K.INVENTORY_CAPACITY,
            "PLAYER_VISION_RADIUS": K.VISION_RADIUS,
        },
        "players": players,
        "items": [
            {
                "owner": a + 1,
                "type_id": K.ITEM_NAMES.index(n),
                "level": lv,
                "quantity": q,
                "equipped": int(eq),
            }
            for a, n, lv, q, eq in sc.items
        ],
        "events": [
            {
                "ent_id": a + 1,
                "event": K.EVENT_CODES[n],
                "type": t,
                "level": lv,
                "number": num,
                "gold": g,
                "target_ent": tgt,
            }
            for a, n, t, lv, num, g, tgt in sc.events
        ],
        "tiles": tile_map(sc).tolist(),
        "seize": [[r, c, a + 1, t] for (r, c), (a, t) in sc.seize.items()],
    }


class Evaluator:
    """Compiles every leaf twice (``reward_to`` agent and team) into one table and one
    jitted function; ``evaluator(state)`` returns ``{name: (agent (P,), team (P,))}``."""

    def __init__(self, cases: dict[str, tasks.Expr], config: Config = CFG) -> None:
        self.names = list(cases)
        specs = [tasks.TaskSpec(cases[n], reward_to=r) for n in self.names for r in ("agent", "team")]
        self.table = tasks.compile_tasks(specs, config)
        NS = len(specs)
        agent = jnp.tile(jnp.arange(config.num_agents), NS)
        spec = jnp.repeat(jnp.arange(NS), config.num_agents)

        def run(state: State) -> jax.Array:
            ctx = tasks.task_context(state, config)
            return tasks.progress_of(self.table, state, config, ctx, agent, spec).reshape(NS, -1)

        self._run = fast_jit(run)

    def __call__(self, state: State) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        out = np.asarray(self._run(state))
        return {n: (out[2 * i], out[2 * i + 1]) for i, n in enumerate(self.names)}


def close(actual: object, expected: object) -> None:
    np.testing.assert_allclose(
        np.asarray(actual, np.float64), np.asarray(expected, np.float64), rtol=0, atol=1e-6
    )


def scenario_a() -> Scenario:
    """Tick 9. Agent 1 (team 0) is dead, with stale position, items and skills that must
    not count, and events that must. Teams: (0, 1), (2, 3). Agents 2 and 3 stand 8 tiles
    apart (out of each other's sight); every vision window lies inside the map."""
    items: list[Item] = [
        (0, "Ration", 2, 3, False),
        (0, "Ration", 1, 2, False),
        (0, "Hat", 3, 1, True),
        (0, "Top", 3, 1, True),
        (0, "Bottom", 4, 1, True),
        (0, "Spear", 3, 1, True),
        (0, "Whetstone", 3, 10, True),
        (1, "Ration", 5, 7, False),
        (1, "Hat", 5, 1, True),
        (1, "Top", 5, 1, True),
        (1, "Bottom", 5, 1, True),
        (1, "Bow", 5, 1, True),
        (1, "Arrow", 5, 1, True),
        (2, "Hat", 2, 1, True),
        (2, "Top", 5, 1, True),
        (2, "Bottom", 5, 1, True),
        (2, "Bow", 5, 1, True),
        (2, "Arrow", 5, 4, True),
        (2, "Ration", 3, 1, False),
    ] + [(3, "Potion", 1, 1, False)] * 12
    R, W, A, PO = K.RATION, K.WHETSTONE, K.ARROW, K.POTION
    events: list[Event] = (
        [(0, "EAT_FOOD", 0, 0, 0, 0, 0)]
        + [(1, "EAT_FOOD", 0, 0, 0, 0, 0)] * 3
        + [(3, "EAT_FOOD", 0, 0, 0, 0, 0)] * 2
        + [(0, "SCORE_HIT", 2, 0, 7, 0, 3)]
        + [(1, "SCORE_HIT", 2, 0, 7, 0, 3)] * 2
        + [(2, "SCORE_HIT", 2, 0, 7, 0, -5)] * 3
        + [(3, "SCORE_HIT", 1, 0, 9, 0, 1)]
        + [(0, "PLAYER_KILL", 0, 2, 0, 0, -5), (0, "PLAYER_KILL", 0, 3, 0, 0, -6)]
        + [(1, "PLAYER_KILL", 0, 5, 0, 0, -7)] * 2
        + [(2, "PLAYER_KILL", 0, 10, 0, 0, -8), (3, "PLAYER_KILL", 0, 1, 0, 0, 2)]
        + [(0, "CONSUME_ITEM", R, 1, 3, 0, 11), (0, "CONSUME_ITEM", R, 2, 2, 0, 12)]
        + [(1, "CONSUME_ITEM", R, 3, 4, 0, 13)]
        + [(2, "HARVEST_ITEM", W, 1, 4, 0, 14), (2, "HARVEST_ITEM", W, 10, 1, 0, 15)]
        + [(2, "HARVEST_ITEM", R, 1, 5, 0, 16)]
        + [(3, "FIRE_AMMO", A, 2, 3, 0, 17)]
        + [(0, "LIST_ITEM", K.HAT, 3, 1, 10, 18), (0, "LIST_ITEM", K.HAT, 2, 5, 10, 19)]
        + [(1, "BUY_ITEM", PO, 1, 1, 20, 20), (0, "BUY_ITEM", PO, 1, 1, 3, 21)]
        + [
            (0, "EARN_GOLD", 0, 0, 0, 10, 0),
            (2, "EARN_GOLD", 0, 0, 0, 40, 0),
            (0, "LOOT_GOLD", 0, 0, 0, 5, 7),
        ]
    )
    return Scenario(
        step=9,
        alive=(True, False, True, True),
        health=(100, 0, 50, 100),
        pos=((12, 13), (15, 15), (8, 11), (16, 12)),
        spawn=((8, 8), (8, 8), (15, 15), (8, 15)),
        gold=(30, 500, 20, 60),
        levels={(0, "fishing"): 2, (1, "fishing"): 5, (2, "fishing"): 3, (0, "melee"): 4},
        exp={(0, "carving"): 50, (1, "carving"): 500, (2, "carving"): 30, (3, "carving"): 90},
        items=items,
        events=events,
        tiles={(7, 20): K.WATER, (20, 20): K.ORE},
        seize={(12, 12): (1, 4), (10, 10): (3, 0), (9, 15): (2, 0)},
    )


def scenario_b() -> Scenario:
    """Tick 150 (past the horizon). Agent 2 is alive with health 0; agents 2 and 3 share a
    row; agent 0 stands on the centre tile; agent 1 is dead."""
    return Scenario(
        step=150,
        alive=(True, False, True, True),
        health=(100, 0, 0, 80),
        pos=((12, 12), (9, 9), (10, 9), (10, 15)),
        spawn=((8, 8), (8, 8), (15, 15), (8, 15)),
        seize={(12, 12): (2, 140)},
    )
