"""The built-in predicates against Neural MMO 2.1.1's own functions on the same states.

Neural MMO runs in its own virtual environment (``tests/oracles/nmmo_oracle.py``; nmmo
pins numpy 1.23): ``nmmo_task_oracle_worker.py`` builds its ``GameState`` from each
hand-built scenario and evaluates ``nmmo.task.base_predicates`` for every agent alone and
for both teams. Our values must be equal, except where Neural MMO fails: its
``ProgressTowardCenter`` raises for a subject with two or more alive members, and
``AllMembersWithinRange`` returns nan for ``dist = 0`` when the members share a row.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from nmmo_task_helpers import TEAMS, Evaluator, scenario_a, scenario_b, to_oracle, to_state
from oracles.nmmo_oracle import run_oracle

import jaxmarl.environments.nmmo.tasks as tasks

pytestmark = [pytest.mark.oracle, pytest.mark.xdist_group("nmmo_tasks_oracle")]
WORKER = __file__.replace("test_tasks_oracle.py", "nmmo_task_oracle_worker.py")
# (our leaf, Neural MMO predicate, its kwargs; entity ids are agent index + 1)
CASES = {
    "Success": (tasks.Success(), "Success", {}),
    "TickGE": (tasks.TickGE(30), "TickGE", {"num_tick": 30}),
    "TickGEDefault": (tasks.TickGE(), "TickGE", {}),
    "StayAlive": (tasks.StayAlive(), "StayAlive", {}),
    "AllDead": (tasks.AllDead(), "AllDead", {}),
    "Status": (
        tasks.CheckAgentStatus([1, 2, 3], "alive"),
        "CheckAgentStatus",
        {"target": [2, 3, 4], "status": "alive"},
    ),
    "StatusDead": (tasks.CheckAgentStatus(1, "dead"), "CheckAgentStatus", {"target": 2, "status": "dead"}),
    "Occupy": (tasks.OccupyTile(12, 13), "OccupyTile", {"row": 12, "col": 13}),
    "SeeWater": (tasks.CanSeeTile("water"), "CanSeeTile", {"tile_type": "Water"}),
    "SeeOre": (tasks.CanSeeTile("ore"), "CanSeeTile", {"tile_type": "Ore"}),
    "SeeAgent": (tasks.CanSeeAgent(3), "CanSeeAgent", {"target": 4}),
    "SeeGroup": (tasks.CanSeeGroup([1, 2]), "CanSeeGroup", {"target": [2, 3]}),
    "Distance": (tasks.DistanceTraveled(10), "DistanceTraveled", {"dist": 10}),
    "Fishing": (
        tasks.AttainSkill("fishing", 3, 2),
        "AttainSkill",
        {"skill": "Fishing", "level": 3, "num_agent": 2},
    ),
    "Melee": (tasks.AttainSkill("melee", 4), "AttainSkill", {"skill": "Melee", "level": 4, "num_agent": 1}),
    "Exp": (
        tasks.GainExperience("carving", 100, 2),
        "GainExperience",
        {"skill": "Carving", "experience": 100, "num_agent": 2},
    ),
    "Eat": (tasks.CountEvent("EAT_FOOD", 4), "CountEvent", {"event": "EAT_FOOD", "N": 4}),
    "Kill": (tasks.CountEvent("PLAYER_KILL", 3), "CountEvent", {"event": "PLAYER_KILL", "N": 3}),
    "Hit": (tasks.ScoreHit("range", 4), "ScoreHit", {"combat_style": "Range", "N": 4}),
    "HitMelee": (tasks.ScoreHit("melee", 2), "ScoreHit", {"combat_style": "Melee", "N": 2}),
    "DefeatNpc": (
        tasks.DefeatEntity("npc", 3, 2),
        "DefeatEntity",
        {"agent_type": "npc", "level": 3, "num_agent": 2},
    ),
    "DefeatPlayer": (
        tasks.DefeatEntity("player", 1, 1),
        "DefeatEntity",
        {"agent_type": "player", "level": 1, "num_agent": 1},
    ),
    "Hoard": (tasks.HoardGold(100), "HoardGold", {"amount": 100}),
    "Earn": (tasks.EarnGold(30), "EarnGold", {"amount": 30}),
    "Spend": (tasks.SpendGold(10), "SpendGold", {"amount": 10}),
    "Profit": (tasks.MakeProfit(20), "MakeProfit", {"amount": 20}),
    "Space": (tasks.InventorySpaceGE(5), "InventorySpaceGE", {"space": 5}),
    "Own": (tasks.OwnItem("ration", 2, 4), "OwnItem", {"item": "Ration", "level": 2, "quantity": 4}),
    "Equip": (tasks.EquipItem("top", 3, 2), "EquipItem", {"item": "Top", "level": 3, "num_agent": 2}),
    "Armed": (
        tasks.FullyArmed("range", 2, 2),
        "FullyArmed",
        {"combat_style": "Range", "level": 2, "num_agent": 2},
    ),
    "ArmedMelee": (
        tasks.FullyArmed("melee", 3, 1),
        "FullyArmed",
        {"combat_style": "Melee", "level": 3, "num_agent": 1},
    ),
    "Consume": (
        tasks.ConsumeItem("ration", 2, 5),
        "ConsumeItem",
        {"item": "Ration", "level": 2, "quantity": 5},
    ),
    "Harvest": (
        tasks.HarvestItem("whetstone", 1, 10),
        "HarvestItem",
        {"item": "Whetstone", "level": 1, "quantity": 10},
    ),
    "Fire": (tasks.FireAmmo("arrow", 1, 4), "FireAmmo", {"item": "Arrow", "level": 1, "quantity": 4}),
    "List": (tasks.ListItem("hat", 3, 2), "ListItem", {"item": "Hat", "level": 3, "quantity": 2}),
    "Buy": (tasks.BuyItem("potion", 1, 2), "BuyItem", {"item": "Potion", "level": 1, "quantity": 2}),
    "Center": (tasks.ProgressTowardCenter(), "ProgressTowardCenter", {}),
    "Range2": (tasks.AllMembersWithinRange(2), "AllMembersWithinRange", {"dist": 2}),
    "Range0": (tasks.AllMembersWithinRange(0), "AllMembersWithinRange", {"dist": 0}),
    "Seize": (tasks.SeizeTile(12, 12, 20), "SeizeTile", {"row": 12, "col": 12, "num_ticks": 20}),
    "SeizeCenter": (tasks.SeizeCenter(10), "SeizeCenter", {"num_ticks": 10}),
    "SeizeThird": (
        tasks.SeizeQuadCenter(10, "third"),
        "SeizeQuadCenter",
        {"num_ticks": 10, "quadrant": "third"},
    ),
    "SeizeFirst": (
        tasks.SeizeQuadCenter(10, "first"),
        "SeizeQuadCenter",
        {"num_ticks": 10, "quadrant": "first"},
    ),
    "SeizeOwned": (
        tasks.SeizeTile(9, 15, 4, 0.5, 0.2),
        "SeizeTile",
        {"row": 9, "col": 15, "num_ticks": 4, "progress_bonus": 0.5, "seize_bonus": 0.2},
    ),
    "Protect": (
        tasks.ProtectLeader(0, [2, 3]),
        "ProtectLeader",
        {"target_protect": 1, "target_destroy": [3, 4]},
    ),
    "Protect1": (tasks.ProtectLeader(1), "ProtectLeader", {"target_protect": 2, "target_destroy": []}),
}
SUBJECTS = [[a + 1] for a in range(4)] + [[a + 1 for a in team] for team in TEAMS]
SCENARIOS = {"a": scenario_a(), "b": scenario_b()}


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> dict[str, tuple[dict, dict]]:
    request = {
        "scenarios": [to_oracle(sc) for sc in SCENARIOS.values()],
        "cases": [{"pred": pred, "kwargs": kwargs} for _, pred, kwargs in CASES.values()],
        "subjects": SUBJECTS,
    }
    path = tmp_path_factory.mktemp("nmmo") / "request.json"
    path.write_text(json.dumps(request))
    theirs = json.loads(run_oracle(WORKER, path, timeout=600).strip().splitlines()[-1])["values"]
    evaluator = Evaluator({name: leaf for name, (leaf, _, _) in CASES.items()})
    out = {}
    for s, (key, sc) in enumerate(SCENARIOS.items()):
        ours = evaluator(to_state(sc))
        out[key] = ({name: theirs[s][c] for c, name in enumerate(CASES)}, ours)
    return out


# where Neural MMO cannot give a number: (scenario, case, subject index in SUBJECTS)
NMMO_RAISES = {("a", "Center", 5), ("b", "Center", 5)}  # team (2, 3): two alive members
NMMO_NAN = {("b", "Range0", 5)}  # rows 10, 10 and dist 0: 0 / 0


@pytest.mark.parametrize("scenario", ["a", "b"])
def test_predicates_match_nmmo(results, scenario):
    theirs, ours = results[scenario]
    compared = 0
    for name in CASES:
        agent_values, team_values = ours[name]
        mine = [*agent_values, team_values[0], team_values[2]]
        for k, (their, my) in enumerate(zip(theirs[name], mine, strict=True)):
            where = (scenario, name, k)
            if where in NMMO_RAISES:
                assert isinstance(their, str), (where, their)
            elif where in NMMO_NAN:
                assert their is None, (where, their)
            else:
                assert not isinstance(their, str) and their is not None, (where, their)
                np.testing.assert_allclose(my, their, rtol=0, atol=1e-6, err_msg=str(where))
                compared += 1
    assert compared == len(CASES) * len(SUBJECTS) - sum(1 for w in NMMO_RAISES | NMMO_NAN if w[0] == scenario)
