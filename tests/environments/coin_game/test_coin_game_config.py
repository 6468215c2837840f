"""Constructor validation of the Coin Game (clear ``ValueError`` naming the argument),
its spaces, and ``check_env`` on non-default configurations (the defaults run in
``tests/environments/test_conformance.py``)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from fast_compile import COMPILER_OPTIONS

import jaxmarl
from jaxmarl.testing import check_env


@pytest.mark.parametrize(
    "arg, value",
    [
        ("num_inner_steps", 0),
        ("num_inner_steps", 2.0),
        ("num_outer_steps", -1),
        ("num_outer_steps", True),
        ("grid_size", 1),
        ("grid_size", "3"),
        ("cnn", 1),
        ("egocentric", "yes"),
        ("shared_rewards", None),
        ("payoff_matrix", [[1, 1, -2]]),
        ("payoff_matrix", [[1, 1], [1, 1]]),
        ("payoff_matrix", [[1, 1, -2], [1, 1, "x"]]),
        ("payoff_matrix", [[1, 1, math.inf], [1, 1, -2]]),
    ],
)
def test_bad_arguments_raise_value_error_naming_the_argument(arg, value):
    with pytest.raises(ValueError, match=f"CoinGame: {arg}"):
        jaxmarl.make("coin_game", **{arg: value})


def test_unknown_keyword_raises_type_error():
    with pytest.raises(TypeError):
        jaxmarl.make("coin_game", num_agents=3)


@pytest.mark.parametrize(
    "kwargs, shape",
    [
        ({}, (36,)),
        ({"cnn": True}, (3, 3, 4)),
        ({"grid_size": 5}, (100,)),
        ({"grid_size": 4, "cnn": True, "egocentric": True}, (4, 4, 4)),
    ],
)
def test_spaces(kwargs, shape):
    env = jaxmarl.make("coin_game", **kwargs)
    assert env.agents == ["agent_0", "agent_1"]
    for a in env.agents:
        space = env.observation_space(a)
        assert space.shape == shape and space.dtype == np.uint8
        assert float(space.low.min()) == 0 and float(space.high.max()) == 1
        assert env.action_space(a).n == 5
    assert env.max_steps == 100


@pytest.mark.parametrize(
    "kwargs",
    [
        {
            "cnn": True,
            "egocentric": True,
            "grid_size": 4,
            "num_inner_steps": 4,
            "num_outer_steps": 3,
            "payoff_matrix": [[1, 0, -1], [0.5, 2, -3]],
        },
        {"grid_size": 2, "shared_rewards": True, "num_outer_steps": 1, "num_inner_steps": 7},
    ],
)
def test_configured_coin_game_passes_check_env(kwargs):
    check_env(jaxmarl.make("coin_game", **kwargs), num_envs=4, compiler_options=COMPILER_OPTIONS)
