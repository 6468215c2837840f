"""Every built-in predicate on hand-built states, against values computed by hand from
Neural MMO 2.1.1's formulas (``nmmo/task/base_predicates.py``).

Each case is evaluated with the agent itself as subject (``reward_to="agent"``) and with
its team as subject (``reward_to="team"``; teams (0, 1) and (2, 3)). Expectations are
written as ``agent = [a0, a1, a2, a3]`` and ``team = (T0, T1)``. In scenario A agent 1 is
dead: its rows (position, items, skills, gold) are gone in Neural MMO, its events stay.
"""

from __future__ import annotations

import numpy as np
import pytest
from nmmo_task_helpers import Evaluator, close, scenario_a, scenario_b, to_state

import jaxmarl.environments.nmmo.tasks as tasks

CASES = {
    "Success": tasks.Success(),
    "TickGE30": tasks.TickGE(30),
    "TickGE": tasks.TickGE(),
    "TickGE300": tasks.TickGE(300),
    "StayAlive": tasks.StayAlive(),
    "StayAliveRight": tasks.StayAlive("right_team"),
    "AllDead": tasks.AllDead(),
    "AllDeadLeft": tasks.AllDead("left_team"),
    "AllDead1": tasks.AllDead([1]),
    "StatusAlive": tasks.CheckAgentStatus([1, 2, 3], "alive"),
    "StatusDead": tasks.CheckAgentStatus([1, 2, 3], "dead"),
    "StatusFoesDead": tasks.CheckAgentStatus("all_foes", "dead"),
    "Occupy": tasks.OccupyTile(12, 13),
    "OccupyDead": tasks.OccupyTile(15, 15),
    "SeeWater": tasks.CanSeeTile("water"),
    "SeeOre": tasks.CanSeeTile("Ore"),
    "SeeAgent3": tasks.CanSeeAgent(3),
    "SeeAgent1": tasks.CanSeeAgent(1),
    "SeeGroup12": tasks.CanSeeGroup([1, 2]),
    "SeeLeft": tasks.CanSeeGroup("left_team"),
    "Distance": tasks.DistanceTraveled(20),
    "Fishing3": tasks.AttainSkill("fishing", 3),
    "Fishing3x2": tasks.AttainSkill("Fishing", 3, num_agent=2),
    "Melee1": tasks.AttainSkill("melee", 1),
    "Melee4": tasks.AttainSkill("melee", 4),
    "CarvingExp": tasks.GainExperience("carving", 100, 2),
    "Eat": tasks.CountEvent("EAT_FOOD", 4),
    "Kills": tasks.CountEvent("player_kill", N=4),
    "HitRange": tasks.ScoreHit("range", 4),
    "HitMelee": tasks.ScoreHit("melee", 1),
    "DefeatNpc": tasks.DefeatEntity("npc", 3, 2),
    "DefeatPlayer": tasks.DefeatEntity("player", 1, 1),
    "DefeatZero": tasks.DefeatEntity("player", 2, 0),
    "Consume": tasks.ConsumeItem("ration", 2, 5),
    "HarvestW": tasks.HarvestItem("Whetstone", 1, 10),
    "HarvestW10": tasks.HarvestItem("whetstone", 10, 1),
    "HarvestR": tasks.HarvestItem("ration", 1, 10),
    "Fire": tasks.FireAmmo("arrow", 1, 4),
    "Fire3": tasks.FireAmmo("arrow", 3, 4),
    "List3": tasks.ListItem("Hat", 3, 2),
    "List2": tasks.ListItem("hat", 2, 2),
    "Buy": tasks.BuyItem("potion", 1, 2),
    "Earn": tasks.EarnGold(30),
    "Spend": tasks.SpendGold(10),
    "Profit": tasks.MakeProfit(20),
    "Hoard": tasks.HoardGold(100),
    "OwnRation": tasks.OwnItem("ration", 2, 4),
    "OwnWhetstone": tasks.OwnItem("whetstone", 1, 20),
    "EquipHat": tasks.EquipItem("hat", 3, 2),
    "EquipTop": tasks.EquipItem("top", 3, 2),
    "EquipPotion": tasks.EquipItem("potion", 1, 1),
    "EquipZero": tasks.EquipItem("hat", 1, 0),
    "ArmedMelee": tasks.FullyArmed("melee", 3, 1),
    "ArmedRange2": tasks.FullyArmed("range", 2, 2),
    "ArmedRange3": tasks.FullyArmed("range", 3, 1),
    "Space5": tasks.InventorySpaceGE(5),
    "Space6": tasks.InventorySpaceGE(6),
    "Center": tasks.ProgressTowardCenter(),
    "Range2": tasks.AllMembersWithinRange(2),
    "Range8": tasks.AllMembersWithinRange(8),
    "Range0": tasks.AllMembersWithinRange(0),
    "Seize": tasks.SeizeTile(12, 12, 10),
    "Seize20": tasks.SeizeTile(12, 12, 20),
    "SeizeCenter": tasks.SeizeCenter(10),
    "SeizeThird": tasks.SeizeQuadCenter(10, "third"),
    "SeizeFirst": tasks.SeizeQuadCenter(10, "First"),
    "SeizeOwned": tasks.SeizeTile(9, 15, 4),
    "ProtectMine": tasks.ProtectLeader("my_team_leader"),
    "ProtectLeft": tasks.ProtectLeader("left_team_leader", target_destroy="left_team"),
    "Protect1": tasks.ProtectLeader(1),
}
EVAL = Evaluator(CASES)


@pytest.fixture(scope="module")
def a() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    return EVAL(to_state(scenario_a()))


@pytest.fixture(scope="module")
def b() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    return EVAL(to_state(scenario_b()))


def check(values: dict, name: str, agent: list[float], team: tuple[float, float]) -> None:
    got_agent, got_team = values[name]
    close(got_agent, agent)
    close(got_team, [team[0], team[0], team[1], team[1]])


def test_success_and_tick(a, b):
    check(a, "Success", [1, 1, 1, 1], (1, 1))
    check(a, "TickGE30", [0.3] * 4, (0.3, 0.3))  # 9 / 30
    check(a, "TickGE", [0.09] * 4, (0.09, 0.09))  # num_tick defaults to horizon 100
    check(b, "TickGE", [1] * 4, (1, 1))  # 150 / 100 clipped
    check(b, "TickGE300", [0.5] * 4, (0.5, 0.5))


def test_stay_alive_and_all_dead(a, b):
    # count(alive health > 0) == len(subject)
    check(a, "StayAlive", [1, 0, 1, 1], (0, 1))
    # target as subject: team 0's right team is team 1 (all alive), team 1's is team 0
    check(a, "StayAliveRight", [1, 1, 0, 0], (1, 0))
    # 1 - count_nonzero(alive health) / len(subject)
    check(a, "AllDead", [0, 1, 0, 0], (0.5, 0))
    check(a, "AllDeadLeft", [0, 0, 0.5, 0.5], (0, 0.5))
    check(a, "AllDead1", [1] * 4, (1, 1))
    # agent 2 alive with health 0: not "alive" for StayAlive, dead for AllDead
    check(b, "StayAlive", [1, 0, 0, 1], (0, 0))
    check(b, "AllDead", [0, 1, 1, 0], (0.5, 0.5))


def test_check_agent_status(a):
    check(a, "StatusAlive", [2 / 3] * 4, (2 / 3, 2 / 3))  # agents 2, 3 of 1, 2, 3
    check(a, "StatusDead", [1 / 3] * 4, (1 / 3, 1 / 3))
    check(a, "StatusFoesDead", [0, 0, 0.5, 0.5], (0, 0.5))  # team 1's foes: 0 alive, 1 dead


def test_occupy_and_vision(a):
    check(a, "Occupy", [1, 0, 0, 0], (1, 0))
    check(a, "OccupyDead", [0] * 4, (0, 0))  # only dead agent 1 stands on (15, 15)
    # water at (7, 20): agent 0 (12,13) at L-inf 7, agent 2 (8,11) at 9, agent 3 (16,12) at 9
    check(a, "SeeWater", [1, 0, 0, 0], (1, 0))
    check(a, "SeeOre", [0] * 4, (0, 0))  # ore at (20, 20): only dead agent 1 is near
    # agent 3 at (16,12): agent 0 at distance 4, agent 2 at 8, agent 3 sees itself
    check(a, "SeeAgent3", [1, 0, 0, 1], (1, 1))
    check(a, "SeeAgent1", [0] * 4, (0, 0))  # dead agents are not seen
    check(a, "SeeGroup12", [1, 0, 1, 0], (1, 1))
    check(a, "SeeLeft", [1, 0, 1, 1], (1, 1))


def test_distance_traveled(a, b):
    # sum over alive members of linf(pos, spawn) / 20: agent 0: 5, agent 2: 7, agent 3: 8
    # (dead agent 1's stale 7 tiles do not count)
    check(a, "Distance", [0.25, 0, 0.35, 0.4], (0.25, 0.75))
    # agent 2 alive with health 0: 0 alone; in team 1 its 6 tiles count with agent 3's 2
    check(b, "Distance", [0.2, 0, 0, 0.1], (0.2, 0.4))


def test_skills(a):
    # sum(level - 1) / (num_agent * (level - 1)); fishing levels 2, (5 dead), 3, 1
    check(a, "Fishing3", [0.5, 0, 1, 0], (0.5, 1))
    check(a, "Fishing3x2", [0.25, 0, 0.5, 0], (0.25, 0.5))
    check(a, "Melee1", [1] * 4, (1, 1))  # level <= 1 is always 1, even for the dead
    check(a, "Melee4", [1, 0, 0, 0], (1, 0))
    # summed experience / (100 * 2): 50, (500 dead), 30, 90
    check(a, "CarvingExp", [0.25, 0, 0.15, 0.45], (0.25, 0.6))


def test_event_counts(a):
    # events persist for dead agent 1
    check(a, "Eat", [0.25, 0.75, 0, 0.5], (1, 0.5))
    check(a, "Kills", [0.5, 0.5, 0.25, 0.25], (1, 0.5))
    check(a, "HitRange", [0.25, 0.5, 0.75, 0], (0.75, 0.75))
    check(a, "HitMelee", [0, 0, 0, 1], (0, 1))
    # kills of NPCs at level >= 3 / 2: agent 0 one (levels 2, 3), agent 1 two, agent 2 one
    check(a, "DefeatNpc", [0.5, 1, 0.5, 0], (1, 0.5))
    check(a, "DefeatPlayer", [0, 0, 0, 1], (0, 1))
    check(a, "DefeatZero", [1] * 4, (1, 1))  # num_agent 0 gives 1


def test_item_events(a):
    # summed `number` of the item at level >= level / quantity
    check(a, "Consume", [0.4, 0.8, 0, 0], (1, 0))  # agent 2's rations were harvested
    check(a, "HarvestW", [0, 0, 0.5, 0], (0, 0.5))
    check(a, "HarvestW10", [0, 0, 1, 0], (0, 1))
    check(a, "HarvestR", [0, 0, 0.5, 0], (0, 0.5))
    check(a, "Fire", [0, 0, 0, 0.75], (0, 0.75))
    check(a, "Fire3", [0] * 4, (0, 0))
    check(a, "List3", [0.5, 0, 0, 0], (0.5, 0))
    check(a, "List2", [1, 0, 0, 0], (1, 0))
    check(a, "Buy", [0.5, 0.5, 0, 0], (1, 0))


def test_gold(a):
    # earned = EARN_GOLD + LOOT_GOLD: agent 0 10 + 5, agent 2 40; spent: agent 0 3, agent 1 20
    check(a, "Earn", [0.5, 0, 1, 0], (0.5, 1))
    check(a, "Spend", [0.3, 1, 0, 0], (1, 0))
    check(a, "Profit", [0.6, 0, 1, 0], (0, 1))  # team 0: (15 - 23) / 20 < 0
    check(a, "Hoard", [0.3, 0, 0.2, 0.6], (0.3, 0.8))  # dead agent 1's 500 gold is gone


def test_inventory(a):
    check(a, "OwnRation", [0.75, 0, 0.25, 0], (0.75, 0.25))
    check(a, "OwnWhetstone", [0.5, 0, 0, 0], (0.5, 0))
    check(a, "EquipHat", [0.5, 0, 0, 0], (0.5, 0))
    check(a, "EquipTop", [0.5, 0, 0.5, 0], (0.5, 0.5))
    check(a, "EquipPotion", [0] * 4, (0, 0))
    check(a, "EquipZero", [1] * 4, (1, 1))
    check(a, "ArmedMelee", [1, 0, 0, 0], (1, 0))
    check(a, "ArmedRange2", [0, 0, 0.5, 0], (0, 0.5))  # dead agent 1's full range kit is gone
    check(a, "ArmedRange3", [0] * 4, (0, 0))  # agent 2's hat is level 2
    # 12 - slots used >= space, over alive members (none alive: vacuously 1)
    check(a, "Space5", [1, 1, 1, 0], (1, 0))
    check(a, "Space6", [0, 1, 1, 0], (0, 0))


def test_center_and_range(a, b):
    # 1 - min linf(pos, (12, 12)) / (12 - 8)
    check(a, "Center", [0.75, 0, 0, 0], (0.75, 0))
    check(b, "Center", [1, 0, 0.25, 0.25], (1, 0.25))  # agent 2 (alive, health 0) counts
    # team 1 at (8,11), (16,12): spread 8 > 2; ((8 - 8) / 6 + 2 / (3 * 4) + 1 (3 * 0.5 <= 2)) / 3
    check(a, "Range2", [1, 0, 1, 1], (1, 7 / 18))
    check(a, "Range8", [1, 0, 1, 1], (1, 1))
    # (10,9), (10,15), dist 0: ((8 - 6) / 8 + 1 (row std 0: nmmo's 0/0) + 0) / 3
    check(b, "Range0", [1, 0, 1, 1], (1, 1.25 / 3))


def test_seize(a, b):
    # held by a member (dead agent 1 for team 0): 0.4 + 0.3 + 0.3 * (9 - 4) / 10; else
    # 0.4 * (1 - d / 4)
    check(a, "Seize", [0.3, 0, 0, 0], (0.85, 0))
    check(a, "SeizeCenter", [0.225, 0, 0, 0], (0.8, 0))  # progress bonus 0.3
    check(a, "SeizeThird", [0.075, 0, 0.15, 0.96], (0.075, 0.96))  # 0.6 + 0.4 * 9 / 10
    check(a, "SeizeFirst", [0.15, 0, 0, 0.15], (0.15, 0.15))
    check(a, "SeizeOwned", [0.1, 0, 1, 0], (0.1, 1))
    # agent 2 holds the centre since tick 140 but has health 0: alone it scores 0
    check(b, "Seize20", [0.4, 0, 0, 0.1], (0.4, 0.85))


def test_protect_leader(a, b):
    check(a, "ProtectMine", [0.09] * 4, (0.09, 0.09))
    check(a, "ProtectLeft", [0.09] * 4, (0.09, 0.09))
    check(a, "Protect1", [0] * 4, (0, 0))
    check(b, "ProtectMine", [1] * 4, (1, 1))


def test_every_builtin_is_covered():
    used = {leaf.pred.name for case in CASES.values() for leaf in tasks.spec.leaves_of(case)}
    assert used == set(tasks.BUILTIN_NAMES)
    assert len(tasks.BUILTIN_NAMES) == 34
