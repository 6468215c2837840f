"""Worker (runs inside the nmmo 2.1.1 virtual environment, see ``nmmo_oracle.py``):
random-policy episodes of the original Neural MMO, summarised as ONE JSON object.

The world is ``nmmo.config.Default`` (every game system on) with the sizes of the
command line; the defaults are nmmo's ``Small`` preset (map 64 with a 32-tile centre, 64
players, 32 NPCs, 128 ticks, ``NPC_LEVEL_MAX`` 5, 4 spawn clusters, 16 spawn uniforms,
``TERRAIN_LOG_INTERPOLATE_MIN`` 0). Episode ``e`` builds a fresh ``nmmo.Env`` seeded
``seed + e``, which generates its one map (``MAP_N=1``, ``MAP_FORCE_GENERATION``) into a
temporary folder, then resets with the same seed: every episode has its own map.

The random policy, for every alive agent (ascending ids) and every action head in
``HEADS`` order: an index drawn uniformly among the entries of
``obs[agent]["ActionTargets"][action][argument]`` that are 1, with
``numpy.random.default_rng(seed + e)``.

Fields of the JSON object:
  ``config``: the values used; ``nmmo_version``.
  ``survival``: ``horizon + 1`` numbers, the mean over episodes of the fraction of
    players alive after tick ``t`` (``t = 0`` is the reset).
  ``episode_length``: the mean number of ticks run (all players dead, or the horizon).
  ``alive_agent_steps``: the actions taken by alive players, all episodes together.
  ``events_per_agent_step``: for each of ``EVENTS``, the rows of nmmo's event log with
    that code recorded for a player (``ent_id > 0``), all episodes, divided by
    ``alive_agent_steps``.
  ``events_per_agent_step_by_type``: the same split by the ``type`` column for
    ``SCORE_HIT`` (combat style 1 melee, 2 range, 3 mage) and ``HARVEST_ITEM`` (item
    type id), and for ``PLAYER_KILL`` by the killed entity (``player`` or ``npc``).
  ``per_episode``: one object per episode: ``seed``, ``length``, ``alive_agent_steps``,
    ``survival``, ``events`` (counts), ``events_by_type`` (counts), ``progress_mean`` and
    ``task_progress_mean`` (per predicate).
  ``progress``: per predicate of ``predicates()``, its ``kwargs``, ``histogram`` (counts
    in 10 bins over [0, 1], 1.0 in the last), ``mean``, ``count`` and ``values`` (the
    distinct values and their counts) of its progress for every player of every episode,
    evaluated on the final ``GameState`` (``env.game_state`` after the last tick) with a
    ``Group`` of that one player. Players who died are absent from the final entity table,
    so their ``AttainSkill`` and ``StayAlive`` are 0, while their event counts remain;
    ``TickGE`` reads the final tick whoever it is asked about.
  ``task_progress``: the same for nmmo's own ``Task.progress`` at the end, every
    predicate given to every player as a task (``ALLOW_MULTI_TASKS_PER_AGENT``):
    evaluated each tick while the player is alive (and on the tick of its death),
    frozen once it reaches 1.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from importlib import metadata

import nmmo
import numpy as np
from nmmo.lib.event_code import EventCode
from nmmo.lib.event_log import EventAttr, EventState
from nmmo.systems.item import Whetstone
from nmmo.systems.skill import Fishing
from nmmo.task import base_predicates as bp
from nmmo.task.group import Group
from nmmo.task.predicate_api import make_predicate
from nmmo.task.task_api import Task

HEADS = (
    ("Move", "Direction"),
    ("Attack", "Style"),
    ("Attack", "Target"),
    ("Use", "InventoryItem"),
    ("Give", "InventoryItem"),
    ("Give", "Target"),
    ("Destroy", "InventoryItem"),
    ("Sell", "InventoryItem"),
    ("Sell", "Price"),
    ("Buy", "MarketItem"),
    ("GiveGold", "Price"),
    ("GiveGold", "Target"),
    ("Comm", "Token"),
)
EVENTS = (
    "EAT_FOOD", "DRINK_WATER", "GO_FARTHEST", "SCORE_HIT", "PLAYER_KILL", "FIRE_AMMO",
    "CONSUME_ITEM", "GIVE_ITEM", "DESTROY_ITEM", "HARVEST_ITEM", "EQUIP_ITEM", "LOOT_ITEM",
    "GIVE_GOLD", "LIST_ITEM", "EARN_GOLD", "BUY_ITEM", "LOOT_GOLD", "LEVEL_UP", "AGENT_CULLED",
)  # fmt: skip
BY_TYPE = ("SCORE_HIT", "HARVEST_ITEM")


def predicates(horizon: int) -> dict[str, tuple]:
    """name -> (predicate function of ``nmmo.task.base_predicates``, keyword arguments)."""
    return {
        "CountEvent_EAT_FOOD_5": (bp.CountEvent, {"event": "EAT_FOOD", "N": 5}),
        "CountEvent_DRINK_WATER_5": (bp.CountEvent, {"event": "DRINK_WATER", "N": 5}),
        "AttainSkill_Fishing_2": (bp.AttainSkill, {"skill": Fishing, "level": 2, "num_agent": 1}),
        "HarvestItem_Whetstone_1_1": (bp.HarvestItem, {"item": Whetstone, "level": 1, "quantity": 1}),
        "TickGE_half_horizon": (bp.TickGE, {"num_tick": horizon // 2}),
        "StayAlive": (bp.StayAlive, {}),
    }


def json_kwargs(kwargs: dict) -> dict:
    return {k: getattr(v, "__name__", v) for k, v in kwargs.items()}


def make_config(args: argparse.Namespace, maps_dir: str) -> nmmo.config.Config:
    values = {
        "PATH_MAPS": maps_dir,
        "MAP_N": 1,
        "MAP_FORCE_GENERATION": True,
        "MAP_SIZE": args.map_size,
        "MAP_CENTER": args.map_center,
        "PLAYER_N": args.num_agents,
        "NPC_N": args.num_npcs,
        "HORIZON": args.horizon,
        "NPC_LEVEL_MAX": args.npc_level_max,
        "PROGRESSION_SPAWN_CLUSTERS": args.spawn_clusters,
        "PROGRESSION_SPAWN_UNIFORMS": args.spawn_uniforms,
        "TERRAIN_LOG_INTERPOLATE_MIN": args.terrain_log_interpolate_min,
        "ALLOW_MULTI_TASKS_PER_AGENT": True,  # one task per predicate per player
    }
    return type("OracleConfig", (nmmo.config.Default,), values)()


def random_actions(obs: dict, agents: list[int], rng: np.random.Generator) -> dict:
    actions = {}
    for agent in sorted(agents):
        targets = obs[agent]["ActionTargets"]
        act: dict = {}
        for action, arg in HEADS:
            legal = np.flatnonzero(targets[action][arg])
            act.setdefault(action, {})[arg] = int(legal[rng.integers(legal.size)])
        actions[agent] = act
    return actions


def event_counts(env: nmmo.Env) -> tuple[dict[str, int], dict[str, dict[str, int]]]:
    rows = EventState.Query.table(env.realm.datastore)
    rows = rows[rows[:, EventAttr["ent_id"]] > 0]
    codes = rows[:, EventAttr["event"]].astype(int)
    counts = {name: int(np.sum(codes == getattr(EventCode, name))) for name in EVENTS}
    by_type: dict[str, dict[str, int]] = {}
    for name in BY_TYPE:
        types = rows[codes == getattr(EventCode, name), EventAttr["type"]].astype(int)
        by_type[name] = {str(t): int(n) for t, n in zip(*np.unique(types, return_counts=True), strict=True)}
    kills = rows[codes == EventCode.PLAYER_KILL, EventAttr["target_ent"]]
    by_type["PLAYER_KILL"] = {"player": int(np.sum(kills > 0)), "npc": int(np.sum(kills < 0))}
    return counts, by_type


def run_episode(args: argparse.Namespace, episode: int, preds: dict, maps_root: str) -> dict:
    seed = args.seed + episode
    maps_dir = os.path.join(maps_root, f"episode{episode}")
    env = nmmo.Env(make_config(args, maps_dir), seed=seed)
    agents = list(env.possible_agents)

    def make_tasks() -> list:
        return [
            Task(make_predicate(fn)(Group([a]), **kwargs), assignee=[a])
            for a in agents
            for fn, kwargs in preds.values()
        ]

    obs, _ = env.reset(seed=seed, make_task_fn=make_tasks)
    rng = np.random.default_rng(seed)
    alive = [len(env.realm.players)]
    alive_steps = 0
    while env.agents and env.realm.tick < args.horizon:
        acting = list(env.agents)
        alive_steps += len(acting)
        obs, *_ = env.step(random_actions(obs, acting, rng))
        alive.append(len(env.realm.players))
    length = int(env.realm.tick)
    alive += [0] * (args.horizon + 1 - len(alive))

    final = {}
    gs = env.game_state
    for name, (fn, kwargs) in preds.items():
        final[name] = [make_predicate(fn)(Group([a]), **kwargs)(gs) for a in agents]
    per_task = {name: [] for name in preds}
    names = list(preds)
    for i, task in enumerate(env.tasks):  # make_tasks order: agent-major, predicate-minor
        per_task[names[i % len(names)]].append(float(task.progress))
    counts, by_type = event_counts(env)
    return {
        "seed": seed,
        "length": length,
        "alive_agent_steps": alive_steps,
        "survival": [n / len(agents) for n in alive],
        "events": counts,
        "events_by_type": by_type,
        "final": final,
        "task": per_task,
    }


def progress_summary(values: list[float], kwargs: dict) -> dict:
    """Histogram (10 bins over [0, 1]; a value within 1e-6 below an edge counts above it,
    so 3/5 is in bin 6 whatever its rounding, and 1.0 in bin 9), mean, and the distinct
    values (rounded to 6 places) with their counts."""
    arr = np.asarray(values, dtype=float)
    bins = np.clip(np.floor(arr * 10 + 1e-6), 0, 9).astype(int)
    distinct, counts = np.unique(np.round(arr, 6), return_counts=True)
    return {
        "kwargs": kwargs,
        "histogram": np.bincount(bins, minlength=10).tolist(),
        "mean": float(arr.mean()),
        "count": int(arr.size),
        "values": {repr(float(v)): int(n) for v, n in zip(distinct, counts, strict=True)},
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--map-size", type=int, default=64)
    parser.add_argument("--map-center", type=int, default=32)
    parser.add_argument("--num-agents", type=int, default=64)
    parser.add_argument("--num-npcs", type=int, default=32)
    parser.add_argument("--horizon", type=int, default=128)
    parser.add_argument("--episodes", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--npc-level-max", type=int, default=5)
    parser.add_argument("--spawn-clusters", type=int, default=4)
    parser.add_argument("--spawn-uniforms", type=int, default=16)
    parser.add_argument(
        "--terrain-log-interpolate-min", type=float, default=0, help="Small: 0 (default); Medium: -2"
    )
    args = parser.parse_args()

    preds = predicates(args.horizon)
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="nmmo-maps-") as maps_root:
        episodes = [run_episode(args, e, preds, maps_root) for e in range(args.episodes)]
    print(f"{args.episodes} episodes in {time.perf_counter() - t0:.1f} s", file=sys.stderr)

    steps = sum(ep["alive_agent_steps"] for ep in episodes)
    events = {name: sum(ep["events"][name] for ep in episodes) / steps for name in EVENTS}
    by_type: dict[str, dict[str, float]] = {}
    for name in (*BY_TYPE, "PLAYER_KILL"):
        keys = sorted({k for ep in episodes for k in ep["events_by_type"][name]}, key=lambda k: (len(k), k))
        by_type[name] = {
            k: sum(ep["events_by_type"][name].get(k, 0) for ep in episodes) / steps for k in keys
        }
    out = {
        "nmmo_version": metadata.version("nmmo"),
        "config": {k.replace("-", "_"): v for k, v in vars(args).items()}
        | {
            "map_n": 1,
            "all_game_systems": True,
            "policy": "uniform over legal ActionTargets",
            "heads": HEADS,
        },
        "survival": np.mean([ep["survival"] for ep in episodes], axis=0).tolist(),
        "episode_length": float(np.mean([ep["length"] for ep in episodes])),
        "alive_agent_steps": steps,
        "events_per_agent_step": events,
        "events_per_agent_step_by_type": by_type,
        "progress": {
            name: progress_summary([v for ep in episodes for v in ep["final"][name]], json_kwargs(kwargs))
            for name, (_, kwargs) in preds.items()
        },
        "task_progress": {
            name: progress_summary([v for ep in episodes for v in ep["task"][name]], json_kwargs(kwargs))
            for name, (_, kwargs) in preds.items()
        },
        "per_episode": [
            {
                k: ep[k]
                for k in ("seed", "length", "alive_agent_steps", "survival", "events", "events_by_type")
            }
            | {
                "progress_mean": {n: float(np.mean(v)) for n, v in ep["final"].items()},
                "task_progress_mean": {n: float(np.mean(v)) for n, v in ep["task"].items()},
            }
            for ep in episodes
        ],
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
