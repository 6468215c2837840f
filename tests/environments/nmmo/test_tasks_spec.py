"""The task language: bad specifications raise when built or compiled, user predicates
(``@tasks.predicate``), relative targets, table contents and the embedding layout."""

from __future__ import annotations

import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from fast_compile import jit as fast_jit
from nmmo_task_helpers import CFG, Evaluator, Scenario, close, scenario_a, to_state

import jaxmarl.environments.nmmo.tasks as tasks
from jaxmarl.environments.nmmo import constants as K
from jaxmarl.environments.nmmo.config import Config
from jaxmarl.environments.nmmo.tasks import program
from jaxmarl.environments.nmmo.tasks.context import NUM_GROUP_CODES

BUILD_ERRORS = [
    (lambda: tasks.CountEvent("EAT_CAKE", 3), ValueError, "valid events: EAT_FOOD, DRINK_WATER"),
    (lambda: tasks.CountEvent("EAT_FOOD", 0), ValueError, "n must be >= 1"),
    (lambda: tasks.CountEvent("EAT_FOOD", -2), ValueError, "n must be >= 1"),
    (lambda: tasks.CountEvent("EAT_FOOD", 2.5), TypeError, "n must be an int"),
    (lambda: tasks.CountEvent("EAT_FOOD"), TypeError, "exactly once"),
    (lambda: tasks.CountEvent("EAT_FOOD", 2, N=2), TypeError, "exactly once"),
    (lambda: tasks.CountEvent(1, 2), TypeError, "EventCode name"),
    (lambda: tasks.AttainSkill("fishing", 0), ValueError, "level must be >= 1"),
    (lambda: tasks.AttainSkill("fishing", 11), ValueError, "level must be <= 10"),
    (lambda: tasks.AttainSkill("cooking", 3), ValueError, "unknown skill 'cooking'; valid: melee, range"),
    (lambda: tasks.AttainSkill("fishing", 3, num_agent=0), ValueError, "num_agent must be >= 1"),
    (lambda: tasks.AttainSkill("fishing", "3"), TypeError, "level must be an int"),
    (lambda: tasks.AttainSkill("fishing", True), TypeError, "level must be an int"),
    (lambda: tasks.GainExperience("carving", 0), ValueError, "experience must be >= 1"),
    (lambda: tasks.OwnItem("Sword", 1, 1), ValueError, "unknown item 'Sword'"),
    (lambda: tasks.OwnItem("ration", 1, 0), ValueError, "quantity must be >= 1"),
    (lambda: tasks.HarvestItem(["ration"], 1, 1), TypeError, "item must be a name"),
    (lambda: tasks.EquipItem("hat", 1, -1), ValueError, "num_agent must be >= 0"),
    (lambda: tasks.ScoreHit("fishing", 2), ValueError, "unknown combat_style"),
    (lambda: tasks.FullyArmed("magic", 1), ValueError, "unknown combat_style"),
    (lambda: tasks.DefeatEntity("monster", 1), ValueError, "unknown agent_type"),
    (lambda: tasks.CheckAgentStatus([1], "zombie"), ValueError, "unknown status"),
    (lambda: tasks.CanSeeTile("lava"), ValueError, "unknown tile_type"),
    (lambda: tasks.CanSeeAgent("left_team"), ValueError, "must name one agent"),
    (lambda: tasks.CanSeeAgent([1, 2]), ValueError, "must name one agent"),
    (lambda: tasks.CanSeeGroup([]), ValueError, "empty"),
    (lambda: tasks.CanSeeGroup([-1]), ValueError, "non-negative"),
    (lambda: tasks.CanSeeGroup("enemies"), ValueError, "unknown target 'enemies'"),
    (lambda: tasks.CanSeeGroup([1.5]), TypeError, "must be ints"),
    (lambda: tasks.SeizeQuadCenter(10, "fifth"), ValueError, "unknown quadrant"),
    (lambda: tasks.SeizeTile(12, 12, 0), ValueError, "num_ticks must be >= 1"),
    (lambda: tasks.InventorySpaceGE(13), ValueError, "space must be <= 12"),
    (lambda: tasks.AllMembersWithinRange(-1), ValueError, "dist must be >= 0"),
    (lambda: tasks.DistanceTraveled(0), ValueError, "dist must be >= 1"),
    (lambda: tasks.HoardGold(0), ValueError, "amount must be >= 1"),
    (lambda: tasks.TickGE(0), ValueError, "num_tick must be >= 1"),
    (lambda: tasks.ProtectLeader("all_foes"), ValueError, "must name one agent"),
    (lambda: tasks.TaskSpec(tasks.Success(), reward_to="world"), ValueError, "reward_to must be one of"),
    (lambda: tasks.TaskSpec(tasks.Success(), kind="forever"), ValueError, "kind must be one of"),
    (lambda: tasks.TaskSpec(tasks.Success(), kind="hold"), ValueError, "needs hold_duration >= 1"),
    (lambda: tasks.TaskSpec(tasks.Success(), kind="hold", hold_duration=0), ValueError, "hold_duration >= 1"),
    (lambda: tasks.TaskSpec(tasks.Success(), hold_duration=5), ValueError, "kind='hold' only"),
    (lambda: tasks.TaskSpec(tasks.Success(), sampling_weight=-1), ValueError, "sampling_weight must be >= 0"),
    (lambda: tasks.TaskSpec(tasks.Success(), reward_multiplier="x"), TypeError, "reward_multiplier"),
    (lambda: tasks.TaskSpec(tasks.CountEvent), TypeError, "predicate constructor; call it"),
    (lambda: tasks.TaskSpec(0.5), TypeError, "must be a predicate expression"),
    (lambda: tasks.Success() & "x", TypeError, "operands must be"),
    (lambda: tasks.Success() | tasks.TickGE, TypeError, "call it with its arguments"),
    (lambda: tasks.all_of(), ValueError, "at least one operand"),
    (lambda: tasks.all_of(0.5, 0.2), ValueError, "at least one predicate"),
    (lambda: tasks.at_least(tasks.Success(), 0), ValueError, r"fraction must be in \(0, 1\]"),
    (lambda: tasks.at_least(tasks.Success(), 1.5), ValueError, r"fraction must be in \(0, 1\]"),
]


@pytest.mark.parametrize("build,error,message", BUILD_ERRORS)
def test_bad_specs_raise_when_built(build, error, message):
    with pytest.raises(error, match=message):
        build()


COMPILE_ERRORS = [
    (tasks.OccupyTile(30, 3), "outside the 24x24 map"),
    (tasks.SeizeTile(12, 13, 5), r"not a seize target of the Config"),
    (tasks.CanSeeAgent(7), r"agent indices \[7\] do not exist \(num_agents=4\)"),
    (tasks.CheckAgentStatus([1, 9], "alive"), r"\[9\] do not exist"),
    (tasks.AllDead([4]), r"\[4\] do not exist"),
    (tasks.any_of(tasks.Success(), tasks.ProtectLeader(5)), r"\[5\] do not exist"),
]


@pytest.mark.parametrize("spec,message", COMPILE_ERRORS)
def test_bad_specs_raise_when_compiled(spec, message):
    with pytest.raises(ValueError, match=message):
        tasks.compile_tasks([tasks.Success(), spec], CFG)


def test_world_dependent_checks():
    one_team = Config(num_agents=4, num_npcs=2, map_size=24, map_center=8, teams=((0, 1, 2, 3),))
    with pytest.raises(ValueError, match="'all_foes' is empty with a single team"):
        tasks.compile_tasks([tasks.CanSeeGroup("all_foes")], one_team)
    no_seize = Config(num_agents=4, num_npcs=2, map_size=24, map_center=8)
    with pytest.raises(ValueError, match=re.escape("tile (12, 12) is not a seize target")):
        tasks.compile_tasks([tasks.SeizeCenter(10)], no_seize)
    with pytest.raises(ValueError, match="no specs"):
        tasks.compile_tasks([], CFG)


# ---------------------------------------------------------------- user predicates
@tasks.predicate
def KillPredicate(gs, subject):
    """The paper's Appendix C example: +0.06 a kill, +0.1 at the 1st, +0.3 at the 3rd."""
    num_kills = jnp.where(subject, gs.state.event_counts[:, K.PLAYER_KILL], 0).sum()
    progress = num_kills * 0.06 + 0.1 * (num_kills >= 1) + 0.3 * (num_kills >= 3)
    return jnp.minimum(progress, 1.0)


@tasks.predicate
def GoldNear(gs, subject, amount: int, radius: int = 7, scale: float = 1.0, target: tasks.Target = None):
    """scale * (gold of alive target agents the subject can see) / amount."""
    seen = (gs.ctx.sees_agent & (subject & gs.alive)[:, None]).any(axis=0) & target
    gold = jnp.where(seen, gs.state.ent_gold[: gs.num_agents], 0).sum()
    return scale * gold / amount + 0.0 * radius


CUSTOM = Evaluator(
    {
        "kill": KillPredicate(),
        "gold": GoldNear(100, target=[0, 2, 3]),
        "gold_scaled": GoldNear(amount=100, scale=2.0, target="left_team"),
        "mixed": KillPredicate() & tasks.CountEvent("EAT_FOOD", 2),
    }
)


def test_custom_predicates():
    values = CUSTOM(to_state(scenario_a()))
    # kills 2, 2, 1, 1: 0.12 + 0.1; 0.06 + 0.1; team 0: 4 kills -> 0.24 + 0.4; team 1: 2
    close(values["kill"][0], [0.22, 0.22, 0.16, 0.16])
    close(values["kill"][1], [0.64, 0.64, 0.22, 0.22])
    # gold 30, (dead), 20, 60; agent 0 sees 0, 2, 3; agent 2 sees 0, 2; agent 3 sees 0, 3
    close(values["gold"][0], [1.0, 0, 0.5, 0.9])
    close(values["gold"][1], [1.0, 1.0, 1.0, 1.0])
    # left team of team 0 is team 1 (agents 2, 3), of team 1 is team 0 (agent 0's 30 gold)
    close(values["gold_scaled"][0], [1.0, 0, 0.6, 0.6])
    close(values["gold_scaled"][1], [1.0, 1.0, 0.6, 0.6])
    close(values["mixed"][0], [0.22, 0.22, 0, 0.16])  # min with EAT_FOOD 1, 3, 0, 2 of 2


def test_custom_predicate_table_and_errors():
    table = CUSTOM.table
    assert table.predicate_names[-2:] == ("KillPredicate", "GoldNear")
    assert table.predicate_names[:34] == tasks.BUILTIN_NAMES
    i = CUSTOM.names.index("gold")
    assert table.leaf_code[2 * i, 0] == 35
    assert table.int_args[2 * i, 0, :2].tolist() == [100, 7]
    assert table.float_args[2 * i, 0, 0] == 1.0
    assert table.target_mask[2 * i, 0].tolist() == [True, False, True, True]
    assert str(GoldNear(5)) == "GoldNear(5,7,1.0,None)"
    with pytest.raises(TypeError, match=r"the first two parameters must be \(gs, subject\)"):
        tasks.predicate(lambda state, subject: 1.0)
    with pytest.raises(TypeError, match="amount must be an int"):
        GoldNear(1.5)
    with pytest.raises(TypeError, match="GoldNear: missing a required argument"):
        GoldNear()
    with pytest.raises(TypeError, match=r"\*args/\*\*kwargs"):
        tasks.predicate(lambda gs, subject, *xs: 1.0)


def test_branches_are_shared():
    table = tasks.compile_tasks(
        [
            tasks.ConsumeItem("ration", 1, 1),
            tasks.BuyItem("hat", 1, 1),
        ],
        CFG,
    )
    assert len(table.branches) == 1  # the five item-event predicates share one function
    assert table.leaf_code[:, 0].tolist() == [8, 3]


def test_relative_targets_with_singleton_teams():
    cfg = Config(num_agents=4, num_npcs=2, map_size=24, map_center=8)
    sc = Scenario(alive=(True, False, True, True))
    ev = Evaluator(
        {
            "left": tasks.AllDead("left_team"),  # agent i+1
            "right_leader": tasks.CheckAgentStatus("right_team_leader", "dead"),  # agent i-1
            "foes": tasks.CheckAgentStatus("all_foes", "alive"),
        },
        cfg,
    )
    values = ev(tasks.make_state(cfg, ent_alive=np.array([*sc.alive, False, False])))
    close(values["left"][0], [1, 0, 0, 0])
    close(values["right_leader"][0], [0, 0, 1, 0])
    close(values["foes"][0], [2 / 3, 1, 2 / 3, 2 / 3])
    close(values["left"][1], values["left"][0])  # team = agent without teams


def test_embedding_layout():
    spec = tasks.TaskSpec(
        tasks.all_of(tasks.CountEvent("EAT_FOOD", 3), tasks.StayAlive("my_team_leader")),
        reward_to="team",
        kind="hold",
        hold_duration=7,
        reward_multiplier=0.5,
    )
    table = tasks.compile_tasks([spec, tasks.Success()], CFG)
    NI, NF = table.int_args.shape[2], table.float_args.shape[2]
    C, M = table.leaf_branch.shape[1], table.prog_op.shape[1]
    assert (C, M, NI, NF) == (2, 3, 4, 2)
    layout = tasks.embedding_layout(34, C, M, NI, NF)
    W = 34 + NI + NF + 2 * NUM_GROUP_CODES
    assert layout == {"leaf": W, "instruction": 12, "task": 7, "total": C * W + M * 12 + 7}
    e = table.embedding[0]
    assert e.shape == (layout["total"],)
    leaf0 = e[:W]
    assert np.flatnonzero(leaf0[:34]).tolist() == [9]  # CountEvent
    close(leaf0[34:36], [np.log2(2) / 10, np.log2(4) / 10])  # event code 1, n = 3
    assert leaf0[34 + NI + NF] == 1  # subject: the holder (default)
    leaf1 = e[W : 2 * W]
    assert np.flatnonzero(leaf1[:34]).tolist() == [31]  # StayAlive
    assert leaf1[34 + NI + NF + 5] == 1  # subject: my_team_leader (code 5)
    ins = e[2 * W : 2 * W + M * 12].reshape(M, 12)
    assert ins[:, :10].argmax(1).tolist() == [program.LEAF, program.LEAF, program.AND]
    close(ins[:, 10], [0, 1 / 3, 2 / 3])
    task = e[-7:]
    close(task, [0, 1, 0, 0, 1, np.log2(8) / 10, 0.5])
    assert np.all(table.embedding[1, W : 2 * W] == 0)  # the second spec has one leaf


def test_leaves_are_jittable_and_vmappable():
    table = tasks.compile_tasks([tasks.TickGE(10), tasks.Success() - tasks.TickGE(20)], CFG)
    states = jax.vmap(lambda t: to_state(Scenario()).replace(step=t))(jnp.arange(3))

    def progress(state):
        ctx = tasks.task_context(state, CFG)
        return tasks.progress_of(table, state, CFG, ctx, jnp.array([0, 0]), jnp.array([0, 1]))

    close(fast_jit(jax.vmap(progress))(states), [[0, 1], [0.1, 0.95], [0.2, 0.9]])
