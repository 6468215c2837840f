"""Worker (runs inside the nmmo 2.1.1 virtual environment, see ``tests/oracles/nmmo_oracle.py``):
Neural MMO's own predicates on hand-built game states.

Usage: ``python nmmo_task_oracle_worker.py REQUEST.json``. The request holds
``scenarios`` (players, items, event rows, tiles and seized tiles, as written by
``nmmo_task_helpers.to_oracle``), ``cases`` (``{"pred": name in base_predicates,
"kwargs": {...}}``; ``skill``/``combat_style``, ``item`` and ``tile_type`` are given by
class name) and ``subjects`` (lists of entity ids). For every scenario, case and subject
it builds Neural MMO's ``GameState`` as ``GameStateGenerator.generate`` would (entity and
item rows of alive players only, the whole event log; observations of alive players
computed as ``Env._compute_observations`` does: the ``15 x 15`` tile window, the entities
within the vision radius, the inventory) and evaluates
``make_predicate(fn)(Group(subject), **kwargs)(gs)``, the path of a Neural MMO task.
Prints one JSON object: ``values[scenario][case][subject]``, a float, or the exception's
text where Neural MMO raises.
"""

from __future__ import annotations

import json
import sys
from types import SimpleNamespace

import numpy as np
from nmmo.entity.entity import EntityState
from nmmo.lib import material
from nmmo.lib.event_log import EventState
from nmmo.systems import item as nmmo_item
from nmmo.systems import skill as nmmo_skill
from nmmo.systems.item import ItemState
from nmmo.task import base_predicates as bp
from nmmo.task.game_state import GameState, precompute_index
from nmmo.task.group import Group
from nmmo.task.predicate_api import make_predicate

EntityAttr = EntityState.State.attr_name_to_col
ItemAttr = ItemState.State.attr_name_to_col
EventCols = EventState.State.attr_name_to_col
SKILLS = ("melee", "range", "mage", "fishing", "herbalism", "prospecting", "carving", "alchemy")


def game_state(sc: dict) -> GameState:
    cfg = SimpleNamespace(**sc["config"])
    alive = [p for p in sc["players"] if p["alive"]]
    ent = np.zeros((len(alive), EntityState.State.num_attributes))
    for i, p in enumerate(alive):
        ent[i, EntityAttr["id"]] = p["id"]
        ent[i, EntityAttr["row"]], ent[i, EntityAttr["col"]] = p["row"], p["col"]
        ent[i, EntityAttr["health"]], ent[i, EntityAttr["gold"]] = p["health"], p["gold"]
        for s in SKILLS:
            ent[i, EntityAttr[f"{s}_level"]] = p["levels"][s]
            ent[i, EntityAttr[f"{s}_exp"]] = p["exp"][s]
    alive_ids = {p["id"] for p in alive}
    owned = [it for it in sc["items"] if it["owner"] in alive_ids]  # a dead player's items are gone
    items = np.zeros((len(owned), ItemState.State.num_attributes))
    for i, it in enumerate(owned):
        items[i, ItemAttr["id"]] = i + 1
        items[i, ItemAttr["owner_id"]], items[i, ItemAttr["type_id"]] = it["owner"], it["type_id"]
        items[i, ItemAttr["level"]], items[i, ItemAttr["quantity"]] = it["level"], it["quantity"]
        items[i, ItemAttr["equipped"]] = it["equipped"]
    events = np.zeros((len(sc["events"]), EventState.State.num_attributes))
    for i, ev in enumerate(sc["events"]):
        events[i, EventCols["recorded"]] = 1
        events[i, EventCols["tick"]] = sc["tick"]
        for col in ("ent_id", "event", "type", "level", "number", "gold", "target_ent"):
            events[i, EventCols[col]] = ev[col]
    tiles = np.asarray(sc["tiles"])
    r = cfg.PLAYER_VISION_RADIUS
    obs = {}
    for p in alive:
        pr, pc = p["row"], p["col"]
        rows, cols = np.meshgrid(np.arange(pr - r, pr + r + 1), np.arange(pc - r, pc + r + 1), indexing="ij")
        window = np.stack(
            [rows.ravel(), cols.ravel(), tiles[pr - r : pr + r + 1, pc - r : pc + r + 1].ravel()], 1
        )
        seen = [q["id"] for q in alive if max(abs(q["row"] - pr), abs(q["col"] - pc)) <= r]
        n_items = sum(1 for it in owned if it["owner"] == p["id"])
        obs[p["id"]] = SimpleNamespace(
            tiles=window,
            entities=SimpleNamespace(ids=np.asarray(seen)),
            inventory=SimpleNamespace(len=n_items),
        )
    return GameState(
        current_tick=sc["tick"],
        config=cfg,
        spawn_pos={p["id"]: tuple(p["spawn"]) for p in sc["players"]},
        alive_agents=set(alive_ids),
        env_obs=obs,
        entity_data=ent,
        entity_index=precompute_index(ent, EntityAttr["id"]),
        item_data=items,
        item_index=precompute_index(items, ItemAttr["owner_id"]),
        event_data=events,
        event_index=precompute_index(events, EventCols["ent_id"]),
        seize_status={(s[0], s[1]): (s[2], s[3]) for s in sc["seize"]},
        cache_result={},
    )


def kwargs_of(raw: dict) -> dict:
    out = dict(raw)
    for key in ("skill", "combat_style"):
        if key in out:
            out[key] = getattr(nmmo_skill, out[key])
    if "item" in out:
        out["item"] = getattr(nmmo_item, out["item"])
    if "tile_type" in out:
        out["tile_type"] = getattr(material, out["tile_type"])
    return out


def main() -> None:
    with open(sys.argv[1]) as f:
        request = json.load(f)
    values = []
    for sc in request["scenarios"]:
        per_case = []
        for case in request["cases"]:
            fn = getattr(bp, case["pred"])
            row: list[object] = []
            for subject in request["subjects"]:
                try:
                    pred = make_predicate(fn)(Group(subject), **kwargs_of(case["kwargs"]))
                    value = float(pred(game_state(sc)))
                    row.append(None if np.isnan(value) else value)
                except Exception as err:  # recorded: the test checks where nmmo fails
                    row.append(f"{type(err).__name__}: {err}")
            per_case.append(row)
        values.append(per_case)
    print(json.dumps({"values": values}))


if __name__ == "__main__":
    main()
