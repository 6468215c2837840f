"""Tasks as plain data (``tasks.sampler_from_data``, ``task_sampler=[...]`` in YAML): the
data form builds the same specs as the Python calls, and every mistake names its place."""

from __future__ import annotations

import pytest

import jaxmarl
import jaxmarl.environments.nmmo.tasks as tasks

FORAGE = [
    {"CountEvent": {"event": "EAT_FOOD", "n": 2}},
    {"CountEvent": {"event": "drink_water", "n": 2}},
    {"predicate": {"HarvestItem": {"item": "Ration", "level": 1, "quantity": 1}}, "sampling_weight": 2.0},
]


def test_data_form_builds_the_same_specs_as_python():
    python = tasks.uniform(
        [
            tasks.CountEvent("EAT_FOOD", n=2),
            tasks.CountEvent("DRINK_WATER", n=2),
            tasks.TaskSpec(tasks.HarvestItem("Ration", 1, 1), sampling_weight=2.0),
        ]
    )
    data = tasks.sampler_from_data(FORAGE)
    assert [s.name for s in data.specs] == [s.name for s in python.specs]
    assert data.specs == python.specs
    assert data.probs.tolist() == pytest.approx([0.25, 0.25, 0.5])


def test_combinators_and_task_fields():
    data = {
        "predicate": {
            "all_of": [
                {"CountEvent": {"event": "EAT_FOOD", "n": 2}},
                {"any_of": [{"AttainSkill": {"skill": "fishing", "level": 2}}, {"TickGE": {"num_tick": 5}}]},
                {"negation": {"AllDead": {}}},
                {"at_least": {"predicate": {"StayAlive": None}, "fraction": 0.5}},
                {"sub": [{"TickGE": {"num_tick": 9}}, 0.25]},
            ]
        },
        "reward_to": "team",
        "kind": "ongoing",
        "reward_multiplier": 3.0,
    }
    expected = tasks.TaskSpec(
        tasks.all_of(
            tasks.CountEvent("EAT_FOOD", 2),
            tasks.any_of(tasks.AttainSkill("fishing", 2), tasks.TickGE(5)),
            tasks.negation(tasks.AllDead()),
            tasks.at_least(tasks.StayAlive(), 0.5),
            tasks.sub(tasks.TickGE(9), 0.25),
        ),
        reward_to="team",
        kind="ongoing",
        reward_multiplier=3.0,
    )
    assert tasks.spec_from_data(data) == expected


def test_learning_progress_from_data():
    sampler = tasks.sampler_from_data(
        {"sampler": "learning_progress", "tasks": FORAGE[:2], "fast_rate": 0.2, "uniform_mix": 0.5}
    )
    assert isinstance(sampler, tasks.LearningProgressCurriculum)
    assert (sampler.fast_rate, sampler.uniform_mix, len(sampler.specs)) == (0.2, 0.5, 2)


def test_env_takes_the_data_form():
    env = jaxmarl.make("nmmo_v0", preset="small", num_agents=4, num_npcs=0, task_sampler=FORAGE)
    assert env.sampler.specs == tasks.sampler_from_data(FORAGE).specs
    assert env.task_table.embedding.shape[0] == 3


BAD = [
    (
        [{"CountEvnt": {"event": "EAT_FOOD", "n": 1}}],
        ValueError,
        r"tasks\[0\]: unknown predicate 'CountEvnt'; did you mean 'CountEvent'",
    ),
    (
        [{"CountEvent": {"evnt": "EAT_FOOD"}}],
        TypeError,
        r"tasks\[0\]\.CountEvent.*unknown argument\(s\) \['evnt'\]; did you mean 'event'",
    ),
    (
        [{"CountEvent": {"event": "EAT_CAKE", "n": 1}}],
        ValueError,
        r"tasks\[0\]: CountEvent: unknown event 'EAT_CAKE'",
    ),
    ([{"CountEvent": {"event": "EAT_FOOD", "n": -1}}], ValueError, r"tasks\[0\]: CountEvent: n must be >= 1"),
    ([{"CountEvent": {"event": "EAT_FOOD"}}], TypeError, r"tasks\[0\]: CountEvent"),
    (
        [{"CountEvent": "EAT_FOOD"}],
        TypeError,
        r"tasks\[0\]\.CountEvent: expected a mapping of keyword arguments",
    ),
    (
        [{"CountEvent": {"event": "EAT_FOOD", "n": 1}, "TickGE": {"num_tick": 2}}],
        TypeError,
        r"tasks\[0\]: a predicate is a mapping with one key",
    ),
    (
        [{"all_of": [{"TickGE": {"num_tick": 2}}, {"Tick": {}}]}],
        ValueError,
        r"tasks\[0\]\.all_of\[1\]: unknown predicate 'Tick'",
    ),
    ([{"all_of": []}], TypeError, r"tasks\[0\]\.all_of: expected a list of predicates"),
    ([{"sub": [{"TickGE": {"num_tick": 2}}]}], ValueError, r"tasks\[0\]\.sub: expected two predicates"),
    (
        [{"at_least": {"predicate": {"TickGE": {"num_tick": 2}}, "fraction": 2}}],
        ValueError,
        r"tasks\[0\]\.at_least: .*fraction must be in \(0, 1\]",
    ),
    (
        [{"predicate": {"TickGE": {"num_tick": 2}}, "reward": 1.0}],
        ValueError,
        r"tasks\[0\]: unknown task field\(s\) \['reward'\]; did you mean 'reward_to'",
    ),
    (
        [{"predicate": {"TickGE": {"num_tick": 2}}, "reward_to": "tribe"}],
        ValueError,
        r"tasks\[0\]: TaskSpec: reward_to must be one of",
    ),
    ([{"predicate": 0.5}], TypeError, r"tasks\[0\]: a task needs a predicate, not the number 0.5"),
    ([], TypeError, r"tasks: expected a non-empty list of tasks"),
    ({"tasks": FORAGE}, TypeError, r"a mapping needs 'sampler'"),
    (
        {"sampler": "learning_progres", "tasks": FORAGE},
        ValueError,
        r"unknown sampler 'learning_progres'; did you mean 'learning_progress'",
    ),
    (
        {"sampler": "uniform", "tasks": FORAGE, "fast_rate": 0.1},
        TypeError,
        r"uniform takes \['weights'\], got unknown \['fast_rate'\]",
    ),
    (
        {"sampler": "learning_progress", "tasks": FORAGE, "slow_rate": 0.5},
        ValueError,
        r"task_sampler: need 0 < slow_rate < fast_rate",
    ),
]


@pytest.mark.parametrize(("data", "error", "message"), BAD, ids=[str(i) for i in range(len(BAD))])
def test_mistakes_name_their_place(data, error, message):
    with pytest.raises(error, match=message):
        tasks.sampler_from_data(data)


def test_env_rejects_bad_data_when_built():
    with pytest.raises(ValueError, match=r"tasks\[1\]: unknown predicate 'DrinkWater'"):
        jaxmarl.make("nmmo_v0", preset="small", task_sampler=[FORAGE[0], {"DrinkWater": {}}])
