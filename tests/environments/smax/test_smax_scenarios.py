"""Scenarios: names, validation, sizes, generated starts, and the contract on them."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from fast_compile import COMPILER_OPTIONS, jit

import jaxmarl
from jaxmarl.environments.smax import (
    MAP_NAME_TO_SCENARIO,
    SMAX,
    HeuristicEnemySMAX,
    Scenario,
    map_name_to_scenario,
)
from jaxmarl.environments.smax.generator import reflect_positions, smacv2_unit_types, surround_positions
from jaxmarl.environments.smax.scenarios import PAPER_SCENARIOS
from jaxmarl.testing import check_env

TABLE_4 = {  # the JaxMARL paper's Table 4: (allies, enemies, SMACv2-style)
    "2s3z": (5, 5, False),
    "3s5z": (8, 8, False),
    "5m_vs_6m": (5, 6, False),
    "10m_vs_11m": (10, 11, False),
    "27m_vs_30m": (27, 30, False),
    "3s5z_vs_3s6z": (8, 9, False),
    "3s_vs_5z": (3, 5, False),
    "6h_vs_8z": (6, 8, False),
    "smacv2_5_units": (5, 5, True),
    "smacv2_10_units": (10, 10, True),
    "smacv2_20_units": (20, 20, True),
}


def test_table_4_scenarios_are_all_there():
    assert set(PAPER_SCENARIOS) == set(TABLE_4)
    for name, (na, ne, v2) in TABLE_4.items():
        sc = map_name_to_scenario(name)
        assert (sc.num_allies, sc.num_enemies, sc.smacv2_position_generation) == (na, ne, v2), name
        assert sc.smacv2_unit_type_generation == v2
    assert map_name_to_scenario("3s5z_vs_3s6z").describe() == "3s5Z vs 3s6Z"
    assert map_name_to_scenario("6h_vs_8z").describe() == "6h vs 8Z"


def test_unknown_scenario_lists_the_known_ones():
    with pytest.raises(ValueError, match="known scenarios: 2s3z, 3s5z, 5m_vs_6m") as err:
        map_name_to_scenario("2s3zz")
    assert all(name in str(err.value) for name in MAP_NAME_TO_SCENARIO)
    with pytest.raises(ValueError, match="Unknown SMAX scenario 'nope'"):
        jaxmarl.make("HeuristicEnemySMAX", scenario="nope")


def test_bad_scenarios_and_arguments_are_clear_errors():
    with pytest.raises(ValueError, match="unknown unit type 'medivac' at position 1"):
        Scenario(["marine", "medivac"], 1, 1)
    with pytest.raises(ValueError, match="3 unit types given for 1 allies \\+ 1 enemies"):
        Scenario(["marine"] * 3, 1, 1)
    with pytest.raises(ValueError, match="num_enemies must be an integer >= 1"):
        Scenario(["marine"], 1, 0)
    with pytest.raises(ValueError, match="unit type -1"):
        Scenario([0, -1], 1, 1)
    with pytest.raises(ValueError, match="the scenario has unit type 9, but the unit table has 6 types"):
        SMAX(scenario=Scenario([0, 9], 1, 1))
    with pytest.raises(ValueError, match="max_steps must be a positive integer"):
        SMAX(max_steps=0)
    with pytest.raises(TypeError, match=r"HeuristicEnemySMAX got unexpected keyword argument.*'map_name'"):
        HeuristicEnemySMAX(map_name="2s3z")
    with pytest.raises(ValueError, match="attack_mode must be one of 'closest', 'random'"):
        HeuristicEnemySMAX(attack_mode="weakest")
    with pytest.raises(
        ValueError, match="unknown action_type 'multi'; expected one of 'discrete', 'continuous'"
    ):
        jaxmarl.make("SMAX", action_type="multi")
    with pytest.raises(
        ValueError, match="unknown observation_type 'image'; expected one of 'unit_list', 'conic'"
    ):
        jaxmarl.make("HeuristicEnemySMAX", observation_type="image")
    with pytest.raises(ValueError, match=r"unit_type_health must have one value per unit type \(6"):
        SMAX(unit_type_health=[45.0, 100.0])
    with pytest.raises(ValueError, match="unit_type_radiuses must be finite and positive"):
        SMAX(unit_type_radiuses=[0.375, 0.5625, 0.0, 0.5, 0.375, 0.625])


def test_jaxmarl_style_scenario_objects_still_work():
    # JaxMARL builds scenarios positionally from a uint8 array of type ids.
    sc = Scenario(jnp.array([2, 2, 3, 3, 3] * 2, dtype=jnp.uint8), 5, 5, False, False)
    assert sc == map_name_to_scenario("2s3z") and hash(sc) == hash(map_name_to_scenario("2s3z"))
    mixed = Scenario(["marine", "zealot", "hydralisk", "stalker"], 2, 2)  # mixed races
    env = SMAX(scenario=mixed)
    _, state = env.reset(jax.random.PRNGKey(0))
    np.testing.assert_array_equal(state.unit_type, [0, 3, 5, 2])
    np.testing.assert_array_equal(state.health, [45, 150, 80, 160])


@pytest.mark.parametrize("name", list(TABLE_4))
def test_every_scenario_has_the_right_spaces(name):
    env = jaxmarl.make("HeuristicEnemySMAX", scenario=name)
    na, ne, _ = TABLE_4[name]
    u = na + ne
    assert env.agents == [f"ally_{i}" for i in range(na)]
    assert env.observation_space("ally_0").shape == ((u - 1) * 13 + 10,)
    assert env.action_space("ally_0").n == 5 + ne
    both = SMAX(scenario=name)
    assert both.action_space(f"enemy_{ne - 1}").n == 5 + na and len(both.agents) == u
    assert jax.eval_shape(
        env.get_global_state, jax.eval_shape(env.reset, jax.random.PRNGKey(0))[1]
    ).shape == (u * 15 + 1,)


@pytest.mark.parametrize("name", ["27m_vs_30m", "smacv2_20_units"])
def test_large_scenarios_start_inside_the_map_and_their_spaces(name):
    env = jaxmarl.make("HeuristicEnemySMAX", scenario=name)
    u = env.num_allies + env.num_enemies
    obs, state = jit(jax.vmap(env.reset))(jax.random.split(jax.random.PRNGKey(1), 4))
    for a in env.agents:
        assert bool(jnp.all(jax.vmap(env.observation_space(a).contains)(obs[a]))), a
    pos = np.asarray(state.battle.pos)
    assert np.all((pos > 0) & (pos < 32))
    assert state.battle.health.shape == (4, u)


def test_check_env_on_a_generated_scenario():
    # The registered defaults (5 vs 5 marines) run in tests/environments/test_conformance.py.
    check_env(
        jaxmarl.make("HeuristicEnemySMAX", scenario="smacv2_5_units", max_steps=20),
        num_envs=4,
        compiler_options=COMPILER_OPTIONS,
    )


def test_smacv2_generation_is_symmetric():
    key = jax.random.PRNGKey(3)
    keys = jax.random.split(key, 200)
    pos, types, surround = jit(
        lambda k: (
            reflect_positions(k, 5, 5, 32.0, 32.0),
            jax.vmap(lambda kk: smacv2_unit_types(kk, 5, 5))(keys),
            jax.vmap(lambda kk: surround_positions(kk, 5, 5, 32.0, 32.0))(keys[:64]),
        )
    )(key)
    pos, types = np.asarray(pos), np.asarray(types)
    np.testing.assert_allclose(pos[5:, 0], 32.0 - pos[:5, 0], atol=1e-5)
    np.testing.assert_allclose(pos[5:, 1], pos[:5, 1])
    assert np.all(pos[:5, 0] <= 16) and np.all(pos[5:, 0] >= 16)
    np.testing.assert_array_equal(types[:, :5], types[:, 5:])
    assert set(np.unique(types)) == set(range(6))
    near = np.linalg.norm(np.asarray(surround) - 16.0, axis=-1) <= 2 * np.sqrt(2) + 1e-5  # (64, 10)
    assert np.all(near[:, :5].all(-1) | near[:, 5:].all(-1))
    assert 16 < near[:, :5].all(-1).sum() < 48  # either team is surrounded, about half the time each
