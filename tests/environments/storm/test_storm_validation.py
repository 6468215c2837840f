"""STORM rejects bad keywords at construction with a ValueError that says what is wrong."""

from __future__ import annotations

import numpy as np
import pytest

import jaxmarl
from jaxmarl.environments.storm import STORM


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"num_agents": 1}, "num_agents must be an integer >= 2"),
        ({"num_agents": 2.0}, "num_agents must be an integer >= 2"),
        ({"num_agents": True}, "num_agents must be an integer >= 2"),
        ({"num_inner_steps": 0}, "num_inner_steps must be an integer >= 1"),
        ({"num_outer_steps": 0}, "num_outer_steps must be an integer >= 1"),
        ({"freeze_penalty": -1}, "freeze_penalty must be an integer >= 0"),
        ({"grid_size": 1}, "grid_size must be an integer >= 2"),
        ({"obs_size": 4}, "obs_size must be odd"),
        ({"obs_size": 0}, "obs_size must be an integer >= 1"),
        ({"num_coins": 0}, "num_coins must be an integer >= 1"),
        ({"fixed_coin_location": "yes"}, "fixed_coin_location must be True or False"),
        ({"expected_payoff": 1}, "expected_payoff must be True or False"),
        ({"payoff": "ultimatum"}, "unknown payoff 'ultimatum'"),
        ({"payoff": "ipd", "payoff_matrix": np.zeros((2, 2, 2))}, "either payoff"),
        ({"payoff_matrix": np.zeros((2, 2))}, r"shape \(2, 2, 2\)"),
        ({"payoff_matrix": [[[1, np.nan], [0, 0]], [[0, 0], [0, 0]]]}, "must be finite"),
        ({"num_agents": 53}, "53 agents and 2 x 6 coins do not fit on a 8x8 grid"),
        ({"grid_size": 4, "num_coins": 8}, "do not fit on a 4x4 grid"),
    ],
)
def test_bad_keywords_raise_value_error(kwargs, message):
    with pytest.raises(ValueError, match=message):
        STORM(**kwargs)


def test_largest_population_that_fits():
    env = jaxmarl.make("storm_np", num_agents=52)  # 52 agents + 12 coins = 64 cells
    assert env.num_agents == 52


def test_unknown_keyword_names_the_environment():
    with pytest.raises(TypeError, match="storm_2p"):
        jaxmarl.make("storm_2p", cnn=True)
