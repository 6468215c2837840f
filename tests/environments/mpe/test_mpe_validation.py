"""Constructor validation of the MPE scenarios: bad counts, action types, ratios and
score functions raise ``ValueError`` naming the offending argument."""

from __future__ import annotations

import pytest

import jaxmarl

BAD_COUNTS = [
    ("MPE_simple_spread_v3", "num_agents", 0),
    ("MPE_simple_spread_v3", "num_agents", -2),
    ("MPE_simple_spread_v3", "num_agents", 2.0),
    ("MPE_simple_spread_v3", "num_agents", True),
    ("MPE_simple_spread_v3", "num_agents", "3"),
    ("MPE_simple_spread_v3", "num_landmarks", 0),
    ("MPE_simple_spread_v3", "num_agent_neighbors", 0),
    ("MPE_simple_spread_v3", "num_landmark_neighbors", 1.5),
    ("MPE_simple_tag_v3", "num_good_agents", -1),
    ("MPE_simple_tag_v3", "num_good_agents", 0),
    ("MPE_simple_tag_v3", "num_adversaries", 0),
    ("MPE_simple_tag_v3", "num_obs", -1),
    ("MPE_simple_tag_v3", "num_agent_neighbors", 0),
    ("MPE_simple_tag_v3", "num_landmark_neighbors", -3),
    ("MPE_simple_world_comm_v3", "num_good_agents", 0),
    ("MPE_simple_world_comm_v3", "num_adversaries", 0),
    ("MPE_simple_world_comm_v3", "num_obs", -1),
    ("MPE_simple_world_comm_v3", "num_food", 0),
    ("MPE_simple_world_comm_v3", "num_forests", -1),
    ("MPE_simple_world_comm_v3", "num_forests", 1.0),
    ("MPE_simple_adversary_v3", "num_good_agents", 0),
    ("MPE_simple_adversary_v3", "num_adversaries", False),
    ("MPE_simple_adversary_v3", "num_obs", 0),
    ("MPE_simple_adversary_v3", "num_agent_neighbors", 0),
    ("MPE_simple_facmac_v1", "num_good_agents", 0),
    ("MPE_simple_facmac_v1", "num_adversaries", -1),
    ("MPE_simple_facmac_v1", "num_landmarks", -1),
    ("MPE_simple_facmac_3a_v1", "num_adversaries", 0),
    ("MPE_simple_v3", "max_steps", 0),
    ("MPE_simple_crypto_v3", "max_steps", -5),
    ("MPE_simple_push_v3", "max_steps", 2.5),
    ("MPE_simple_reference_v3", "max_steps", 0),
    ("MPE_simple_speaker_listener_v4", "max_steps", 0),
    ("MPE_simple_spread_v3", "max_steps", 0),
    ("MPE_simple_formation_v1", "num_agents", 0),
    ("MPE_simple_formation_v1", "max_steps", 0),
    ("MPE_simple_line_v1", "num_agents", -1),
    ("MPE_simple_line_v1", "num_agents", 2.0),
    ("MPE_collect_treasure_v1", "max_steps", 0),
]


@pytest.mark.parametrize("env_id, arg, value", BAD_COUNTS)
def test_bad_counts_raise_value_error_naming_the_argument(env_id, arg, value):
    with pytest.raises(ValueError, match=arg):
        jaxmarl.make(env_id, **{arg: value})


ALL_IDS = [
    "MPE_simple_v3",
    "MPE_simple_spread_v3",
    "MPE_simple_tag_v3",
    "MPE_simple_world_comm_v3",
    "MPE_simple_adversary_v3",
    "MPE_simple_crypto_v3",
    "MPE_simple_push_v3",
    "MPE_simple_reference_v3",
    "MPE_simple_speaker_listener_v4",
    "MPE_simple_facmac_3a_v1",
    "MPE_collect_treasure_v1",
    "MPE_simple_formation_v1",
    "MPE_simple_line_v1",
]


@pytest.mark.parametrize("env_id", ALL_IDS)
@pytest.mark.parametrize("action_type", ["discrete", "continuous", "Box", "", None])
def test_bad_action_type_raises(env_id, action_type):
    with pytest.raises(ValueError, match="action_type"):
        jaxmarl.make(env_id, action_type=action_type)


@pytest.mark.parametrize("env_id", ["MPE_simple_spread_v3", "MPE_simple_reference_v3"])
@pytest.mark.parametrize("local_ratio", [-0.1, 1.5, float("nan")])
def test_local_ratio_outside_unit_interval_raises(env_id, local_ratio):
    with pytest.raises(ValueError, match="local_ratio"):
        jaxmarl.make(env_id, local_ratio=local_ratio)


@pytest.mark.parametrize("env_id", ["MPE_simple_spread_v3", "MPE_simple_reference_v3"])
@pytest.mark.parametrize("local_ratio", [0.0, 1.0])
def test_local_ratio_bounds_are_accepted(env_id, local_ratio):
    assert jaxmarl.make(env_id, local_ratio=local_ratio).local_ratio == local_ratio


@pytest.mark.parametrize("score_function", ["max", "Sum", "", None])
def test_bad_score_function_raises(score_function):
    with pytest.raises(ValueError, match="score_function"):
        jaxmarl.make("MPE_simple_facmac_v1", score_function=score_function)


def test_valid_edge_counts_are_accepted():
    assert jaxmarl.make("MPE_simple_spread_v3", num_agents=1).agents == ["agent_0"]
    assert jaxmarl.make("MPE_simple_tag_v3", num_obs=0).num_landmarks == 0
    assert jaxmarl.make("MPE_simple_world_comm_v3", num_forests=0, num_obs=0).num_landmarks == 2
    assert jaxmarl.make("MPE_simple_facmac_v1", num_landmarks=0).num_landmarks == 0
    assert jaxmarl.make("MPE_simple_v3", max_steps=1).max_steps == 1
