"""Constructor validation of the Switch Riddle (clear ``ValueError`` naming the argument)
and ``check_env`` on non-default configurations (the defaults run in
``tests/environments/test_conformance.py``)."""

from __future__ import annotations

import math

import pytest
from fast_compile import COMPILER_OPTIONS

import jaxmarl
from jaxmarl.testing import check_env


@pytest.mark.parametrize(
    "arg, value",
    [
        ("num_agents", 1),
        ("num_agents", 0),
        ("num_agents", -3),
        ("num_agents", 3.0),
        ("num_agents", True),
        ("num_agents", "3"),
        ("max_steps", 0),
        ("max_steps", 2.5),
        ("reward_all_live", math.nan),
        ("reward_all_live", "1"),
        ("reward_all_die", math.inf),
        ("reward_all_die", None),
        ("initial_bulb_state", 1),
        ("initial_bulb_state", "on"),
        ("observe_day", None),
    ],
)
def test_bad_arguments_raise_value_error_naming_the_argument(arg, value):
    with pytest.raises(ValueError, match=f"SwitchRiddle: {arg}"):
        jaxmarl.make("switch_riddle", **{arg: value})


def test_unknown_keyword_raises_type_error():
    with pytest.raises(TypeError):
        jaxmarl.make("switch_riddle", num_prisoners=3)


def test_spaces_and_agents():
    env = jaxmarl.make("switch_riddle", num_agents=4)
    assert env.agents == ["agent_0", "agent_1", "agent_2", "agent_3"]
    assert env.num_agents == 4
    assert env.action_space("agent_3").n == 3
    assert env.observation_space("agent_0").nvec.tolist() == [2, 2]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"num_agents": 2, "observe_day": True, "initial_bulb_state": True},
        {"num_agents": 6, "max_steps": 25, "reward_all_live": 10.0, "reward_all_die": -3.0},
    ],
)
def test_configured_switch_riddle_passes_check_env(kwargs):
    check_env(jaxmarl.make("switch_riddle", **kwargs), num_envs=4, compiler_options=COMPILER_OPTIONS)
