"""The registry: make, register, registered_envs and their errors."""

import pytest

import jaxmarl
from jaxmarl.registration import register, spec

MPE_IDS = [
    "MPE_simple_v3",
    "MPE_simple_spread_v3",
    "MPE_simple_tag_v3",
    "MPE_simple_world_comm_v3",
    "MPE_simple_adversary_v3",
    "MPE_simple_crypto_v3",
    "MPE_simple_push_v3",
    "MPE_simple_reference_v3",
    "MPE_simple_speaker_listener_v4",
    "MPE_simple_facmac_v1",
    "MPE_simple_facmac_3a_v1",
    "MPE_simple_facmac_6a_v1",
    "MPE_simple_facmac_9a_v1",
    "MPE_collect_treasure_v1",
    "MPE_simple_formation_v1",
    "MPE_simple_line_v1",
]


def test_every_mpe_id_is_registered():
    for env_id in MPE_IDS:
        assert env_id in jaxmarl.registered_envs
    assert list(jaxmarl.registered_envs)[: len(MPE_IDS)] == MPE_IDS


def test_unknown_id_suggests_closest():
    with pytest.raises(ValueError, match="MPE_simple_spread_v3"):
        jaxmarl.make("MPE_simple_sprad_v3")


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("smax", "'SMAX'"),
        ("Hanabi", "'hanabi'"),
        ("heuristicenemysmax", "'HeuristicEnemySMAX'"),
        ("Storm_2P", "'storm_2p'"),
    ],
)
def test_suggestions_ignore_case(typed, meant):
    with pytest.raises(ValueError, match=f"Did you mean {meant}"):
        jaxmarl.make(typed)


def test_keyword_suggestions_ignore_case():
    with pytest.raises(TypeError, match="did you mean 'scenario'"):
        jaxmarl.make("SMAX", Scenario="3m")


def test_unknown_id_without_close_match_points_to_registry():
    with pytest.raises(ValueError, match="registered_envs"):
        jaxmarl.make("completely_unknown")


def test_unknown_keyword_names_env_and_accepted_keywords():
    with pytest.raises(TypeError) as err:
        jaxmarl.make("MPE_simple_spread_v3", num_agentz=4)
    message = str(err.value)
    assert "MPE_simple_spread_v3" in message and "'num_agentz'" in message
    assert "did you mean 'num_agents'" in message
    assert "Accepted keywords: num_agents, num_landmarks, local_ratio, action_type, max_steps" in message


def test_bad_value_is_a_value_error_at_construction():
    with pytest.raises(ValueError, match="num_agents"):
        jaxmarl.make("MPE_simple_spread_v3", num_agents=0)
    with pytest.raises(ValueError, match="action_type"):
        jaxmarl.make("MPE_simple_tag_v3", action_type="discrete")


def test_registered_defaults_can_be_overridden():
    env = jaxmarl.make("MPE_simple_facmac_6a_v1")
    assert env.num_agents == 6 and env.score_function == "min"
    env = jaxmarl.make("MPE_simple_facmac_6a_v1", num_adversaries=4)
    assert env.num_agents == 4


def test_register_validates_and_registered_envs_is_live():
    class Dummy:
        def __init__(self, size: int = 1) -> None:
            self.size = size

    register("test_dummy_env_v0", Dummy, size=2)
    try:
        assert "test_dummy_env_v0" in jaxmarl.registered_envs
        assert jaxmarl.make("test_dummy_env_v0").size == 2
        assert jaxmarl.make("test_dummy_env_v0", size=5).size == 5
        with pytest.raises(ValueError, match="already registered"):
            register("test_dummy_env_v0", Dummy)
    finally:
        from jaxmarl.registration import _REGISTRY

        del _REGISTRY["test_dummy_env_v0"]
    assert "test_dummy_env_v0" not in jaxmarl.registered_envs
    with pytest.raises(ValueError, match="whitespace"):
        register("bad id", Dummy)
    with pytest.raises(ValueError, match=r"package\.module:ClassName"):
        register("bad_entry_point_v0", "no_colon_here")
    with pytest.raises(TypeError):
        register("bad_entry_point_v1", 42)  # type: ignore[arg-type]


def test_spec_is_lazy_string_entry_point():
    entry = spec("MPE_simple_spread_v3").entry_point
    assert entry == "jaxmarl.environments.mpe:SimpleSpreadMPE"
