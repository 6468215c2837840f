"""JaxNav as an environment: construction errors, the conformance kit for every map type,
the registry, rendering, metrics, hand-made levels and JaxMARL's helper methods."""

from __future__ import annotations

import pickle

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from fast_compile import COMPILER_OPTIONS, jit

import jaxmarl
from jaxmarl.environments.jaxnav import (
    JaxNav,
    JaxNavVisualizer,
    MapError,
    make_jaxnav_singleton,
    make_jaxnav_singleton_collection,
    registered_singleton_collections,
    registered_singletons,
)
from jaxmarl.environments.jaxnav.types import EnvInstance
from jaxmarl.testing import check_env

ROOM = ["1 1 1 1 1 1 1"] + ["1 0 0 0 0 0 1"] * 5 + ["1 1 1 1 1 1 1"]


def buffer_grids() -> np.ndarray:
    grids = np.zeros((3, 9, 9), np.int32)
    grids[:, 0, :] = grids[:, -1, :] = grids[:, :, 0] = grids[:, :, -1] = 1
    grids[1, 4, 2:7] = 1
    grids[2, 2:7, 4] = 1
    return grids


# One configuration per map type, each with other options switched on.
MAP_CASES = {
    "Grid-Rand-Poly": dict(num_agents=2),
    "Grid-Rand": dict(
        map_id="Grid-Rand", num_agents=3, act_type="Discrete", evaporating=True, lidar_num_beams=32
    ),
    "Grid-Rand-Barn": dict(
        map_id="Grid-Rand-Barn",
        num_agents=1,
        map_params={"map_size": (30, 30), "fill": 0.4},
        lidar_num_beams=32,
    ),
    "Grid-Rand-Poly-Single": dict(
        map_id="Grid-Rand-Poly-Single",
        num_agents=2,
        map_params={"map_data": ROOM, "sample_test_case_type": "grid"},
        normalise_obs=False,
        fixed_lambda=False,
        do_sep_reward=True,
        info_by_agent=False,
    ),
    "Grid-Buffer": dict(
        map_id="Grid-Buffer", num_agents=2, map_params={"map_size": (9, 9), "map_grids": buffer_grids()}
    ),
}


@pytest.mark.parametrize("map_id", list(MAP_CASES))
def test_every_map_type_passes_check_env(map_id):
    env = JaxNav(max_steps=8, **MAP_CASES[map_id])
    check_env(env, num_envs=2, compiler_options=COMPILER_OPTIONS)


def test_registered_as_jaxnav_with_jaxmarl_defaults():
    env = jaxmarl.make("jaxnav")
    assert isinstance(env, JaxNav) and env.agents == ["agent_0", "agent_1"]
    assert env.map_id == "Grid-Rand-Poly" and env.map_obj.map_size == (11, 11)
    assert env.observation_space("agent_0").shape == (205,)
    space = env.action_space("agent_0")
    np.testing.assert_allclose(space.low, [0.0, -np.pi / 6])
    np.testing.assert_allclose(space.high, [1.0, np.pi / 6])
    assert env.max_steps == 500 and env.get_monitored_metrics() == [
        "NumC",
        "GoalR",
        "AgentC",
        "MapC",
        "TimeO",
        "Return",
    ]


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        (dict(map_id="Grid-Rand-Ploy"), ValueError, "Did you mean 'Grid-Rand-Poly'"),
        (dict(map_params={"map_size": (11, 11), "fil": 0.3}), ValueError, "unknown map_params ['fil']"),
        (dict(map_params={"map_size": (11, 11), "fill": 1.5}), ValueError, "fill must be a number in [0, 1)"),
        (dict(map_params={"fill": 0.3}), ValueError, "needs map_params ['map_size']"),
        (dict(map_params={"map_size": (2, 11)}), ValueError, "map_size must be two integers >= 3"),
        (dict(map_id="Grid-Rand-Barn", map_params={"map_size": (30, 30)}), ValueError, "exactly one robot"),
        (
            dict(map_id="Grid-Rand-Barn", num_agents=1, map_params={"map_size": (20, 20)}),
            ValueError,
            "cannot hold",
        ),
        (
            dict(num_agents=30, map_params={"map_size": (6, 6), "fill": 0.3}),
            ValueError,
            "robots need at least",
        ),
        (
            dict(map_id="Grid-Rand-Poly-Single", map_params={"map_data": ["1 1 1", "1 2 1", "1 1 1"]}),
            ValueError,
            "0 (free)",
        ),
        (
            dict(map_params={"map_size": (11, 11), "sample_test_case_type": "line"}),
            ValueError,
            "sample_test_case_type",
        ),
        (
            dict(map_params={"map_size": (11, 11), "min_dist_to_goal": 9.0, "max_dist_to_goal": 12.0}),
            ValueError,
            "exceeds the interior",
        ),
        (dict(map_id="Grid-Buffer", map_params={"map_size": (9, 9)}), ValueError, "exactly one of map_grids"),
        (dict(act_type="Discrete", min_v=-0.5), ValueError, "min_v must be 0.0 with Discrete"),
        (dict(act_type="continuous"), ValueError, "act_type must be 'Continuous' or 'Discrete'"),
        (dict(min_v=1.0, max_v=1.0), ValueError, "min_v (1.0) must be less than max_v"),
        (dict(rad=1.2), ValueError, "rad must be less than 1"),
        (dict(lidar_min_range=0.5), ValueError, "lidar_min_range must be 0.0"),
        (dict(fixed_lambda=True, rew_lambda=None), ValueError, "rew_lambda must be set"),
        (dict(lambda_range=(0.8, 0.2)), ValueError, "low <= high"),
        (dict(num_agents=0), ValueError, "num_agents must be an integer >= 1"),
        (dict(evaporating="yes"), ValueError, "evaporating must be True or False"),
        (dict(max_steps=0), ValueError, "max_steps must be an integer >= 1"),
    ],
)
def test_bad_construction_raises_clear_errors(kwargs, error, message):
    with pytest.raises(error) as err:
        JaxNav(**kwargs)
    assert message in str(err.value)
    assert isinstance(err.value, MapError) or "map" not in message


def test_unknown_keyword_through_make():
    with pytest.raises(TypeError, match=r"lidar_beams.*did you mean 'lidar_num_beams'"):
        jaxmarl.make("jaxnav", lidar_beams=10)


# ------------------------------------------------------------------ rendering and metrics
def test_render_draws_map_robots_goals_and_lidar():
    env = JaxNav(num_agents=2)
    _, state = env.reset(jax.random.PRNGKey(3))
    frame = np.asarray(jit(lambda s: env.render(s, size=220))(state))
    assert frame.dtype == np.uint8 and frame.shape == (220, 220, 3)
    walls = np.asarray(state.map_data)[::-1].repeat(20, 0).repeat(20, 1)  # image rows go down
    wall_pixels = (frame[walls == 1] == 38).all(-1)  # wall colour 0.15 * 255
    assert wall_pixels.mean() > 0.95 and (frame[:10, :10] == 38).all()  # goal rings may overlap walls
    colours = {tuple(c) for c in frame.reshape(-1, 3)}
    assert (217, 38, 38) in colours and (38, 89, 217) in colours  # robot 0 red, robot 1 blue
    with_lidar = np.asarray(jit(lambda s: env.render(s, size=220, lidar=True))(state))
    assert ((with_lidar == [51, 115, 242]).all(-1)).sum() > 50  # lidar hit points
    with pytest.raises(ValueError, match="size"):
        env.render(state, size=3)


def test_episode_metrics_and_global_state():
    env = JaxNav(num_agents=2, max_steps=5)
    assert dict(env.episode_metrics) == {"goal_rate": "sum", "collision_rate": "sum", "timeout_rate": "sum"}
    _, state = env.reset(jax.random.PRNGKey(0))
    gs = jit(env.get_global_state)(state)
    assert gs.shape == (81 + 2 * 2 + 2 + 2 * 2 + 2 * 2 + 1 + 2 * 205,)
    world = jit(env.get_world_state)(state)
    assert world.shape == (2, 2 + 81 + 15 + 205)
    np.testing.assert_array_equal(np.asarray(world[:, :2]), np.eye(2))


def test_env_metrics_count_walls_and_paths():
    env = make_jaxnav_singleton("Corner2", map_id="Grid-Rand-Poly")
    _, state = env.reset(jax.random.PRNGKey(0))
    metrics = jit(env.get_env_metrics)(state)
    assert int(metrics["n_walls"]) == 15
    # (1, 1) to (5, 5) along the corridor: 4 right and 4 up.
    assert float(metrics["shortest_path_length_mean"]) == 8.0 and float(metrics["passable"]) == 1.0
    assert float(metrics["shortest_path_lengths_stderr"]) == 0.0


# ------------------------------------------------------------------ hand-made levels
def test_singletons_and_collections():
    assert len(registered_singletons) == 18
    envs, ids = make_jaxnav_singleton_collection("corridor", map_id="Grid-Rand-Poly")
    assert ids == registered_singleton_collections["corridor"] and [e.num_agents for e in envs] == [
        4,
        2,
        4,
        2,
    ]
    env = make_jaxnav_singleton("Corridor4", map_id="Grid-Rand-Poly")
    _, a = jit(env.reset)(jax.random.PRNGKey(0))
    _, b = jit(env.reset)(jax.random.PRNGKey(1))
    np.testing.assert_array_equal(np.asarray(a.pos), [[2.0, 2.5], [2.0, 4.5], [8.0, 2.5], [8.0, 4.5]])
    np.testing.assert_array_equal(np.asarray(a.pos), np.asarray(b.pos))
    assert float(a.rew_lambda) == 0.0  # JaxMARL: lambda 0 unless fixed_lambda=True
    fixed = make_jaxnav_singleton("BlankTest", fixed_lambda=True, rew_lambda=0.4)
    assert float(fixed.reset(jax.random.PRNGKey(0))[1].rew_lambda) == pytest.approx(0.4)
    circle = make_jaxnav_singleton("CircleCross", num_agents=4)
    np.testing.assert_allclose(
        np.asarray(circle.start_pose[:, :2]), [[15, 9], [9, 15], [3, 9], [9, 3]], atol=1e-5
    )
    with pytest.raises(ValueError, match="Did you mean 'Corridor4'"):
        make_jaxnav_singleton("Coridor4")
    with pytest.raises(ValueError, match="1 starts and 1 goals for num_agents=2"):
        make_jaxnav_singleton("BlankTest", num_agents=2)


def test_levels_states_and_plr_steps():
    """``reset_to_level``, ``set_env_instance``, ``set_state`` and ``step_plr`` (broken in
    JaxMARL 0.2.0) start from the given level."""
    env = JaxNav(num_agents=2, max_steps=2)
    level_map, case = jit(env.generate_scenario)(jax.random.PRNGKey(5))
    assert level_map.shape == (11, 11) and case.shape == (2, 2, 3)
    obs, state = jit(env.reset_to_level)((level_map, case))
    np.testing.assert_array_equal(np.asarray(state.pos), np.asarray(case[:, 0, :2]))
    np.testing.assert_array_equal(np.asarray(state.goal), np.asarray(case[:, 1, :2]))
    instance = EnvInstance(case[:, 0, :2], case[:, 0, 2], case[:, 1, :2], level_map, jnp.float32(0.5))
    obs2, state2 = jit(env.set_env_instance)(instance)
    np.testing.assert_array_equal(np.asarray(obs["agent_0"]), np.asarray(obs2["agent_0"]))
    obs3, _ = jit(env.set_state)(state2)
    np.testing.assert_array_equal(np.asarray(obs3["agent_1"]), np.asarray(obs2["agent_1"]))
    acts = {a: jnp.array([0.5, 0.1]) for a in env.agents}
    _, mid, *_ = env.step_plr(jax.random.PRNGKey(0), state, acts, (level_map, case))
    _, end, _, done, _ = env.step_plr(jax.random.PRNGKey(1), mid, acts, (level_map, case))
    assert bool(done["__all__"]) and int(end.step) == 0
    np.testing.assert_array_equal(np.asarray(end.pos), np.asarray(case[:, 0, :2]))  # back to the level
    raw = env.unnormalise_obs(jnp.stack([obs[a] for a in env.agents]))
    np.testing.assert_allclose(np.asarray(raw[:, -1]), 0.5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(raw[:, 200:202]), 0.0, atol=1e-6)  # at rest


def test_buffer_of_stored_levels(tmp_path):
    grids = buffer_grids()
    starts = np.array([[[2.5, 2.5]], [[2.5, 6.5]], [[6.5, 2.5]]], np.float32)
    goals = np.array([[[6.5, 6.5]], [[6.5, 6.5]], [[2.5, 6.5]]], np.float32)
    theta = np.zeros((3, 1, 1), np.float32)
    with open(tmp_path / "map_buffer_0.pkl", "wb") as f:
        pickle.dump((grids, starts, theta, goals), f)
    env = JaxNav(
        num_agents=1, map_id="Grid-Buffer", map_params={"map_size": (9, 9), "dir_path": str(tmp_path)}
    )
    states = jit(jax.vmap(env.reset))(jax.random.split(jax.random.PRNGKey(0), 32))[1]
    levels = zip(np.asarray(states.map_data), np.asarray(states.pos), np.asarray(states.goal), strict=True)
    for grid, pos, goal in levels:
        i = int(np.flatnonzero((grids == grid).all((1, 2)))[0])
        np.testing.assert_array_equal(pos, starts[i])
        np.testing.assert_array_equal(goal, goals[i])
    with pytest.raises(ValueError, match="hold 1 robots, not 2"):
        JaxNav(num_agents=2, map_id="Grid-Buffer", map_params={"map_size": (9, 9), "dir_path": str(tmp_path)})


def test_visualizer_writes_a_gif(tmp_path):
    env = make_jaxnav_singleton("BlankCross2", map_id="Grid-Rand-Poly")
    obs, state = env.reset(jax.random.PRNGKey(0))
    step = jit(env.step)
    obs_seq, state_seq, rewards = [obs], [state], []
    for t in range(3):
        obs, state, reward, _, _ = step(
            jax.random.PRNGKey(t), state, {a: jnp.array([1.0, 0.0]) for a in env.agents}
        )
        obs_seq.append(obs)
        state_seq.append(state)
        rewards.append(reward)
    viz = JaxNavVisualizer(env, obs_seq, state_seq, [rewards[0], *rewards], size=140)
    frames = viz.animate(tmp_path / "run.gif")
    assert frames.shape == (4, 140, 140, 3) and (tmp_path / "run.gif").stat().st_size > 0
