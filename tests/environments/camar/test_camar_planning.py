"""RRT / RRT* planners and the PD path follower (jaxmarl.environments.camar.planning)."""

from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from fast_compile import fast_compilation

from jaxmarl.environments.camar import Camar
from jaxmarl.environments.camar.planning import PlannerConfig, _segment_dist, follow, plan, run_episode

OPEN = "\n".join(["." * 20] * 12)
# A serpentine of two-cell corridors: from the top-left corner to the bottom-left one
# the only way runs right, down, left, down.
CORRIDOR = "\n".join(
    [
        "." * 20,
        "." * 20,
        "#" * 16 + "." * 4,
        "#" * 16 + "." * 4,
        "." * 20,
        "." * 20,
        "." * 4 + "#" * 16,
        "." * 4 + "#" * 16,
        "." * 20,
        "." * 20,
    ]
)


def corridor_env(**kw) -> Camar:
    return Camar(
        "string_grid",
        map_str=CORRIDOR,
        agent_idx=np.array([[0, 0]]),
        goal_idx=np.array([[9, 0]]),
        max_steps=1000,
        **kw,
    )


def assert_path_is_free(env: Camar, state, waypoints: np.ndarray, agent: int = 0) -> None:
    """Every segment between consecutive waypoints clears every obstacle circle."""
    clearance = float(state.agent_rad[agent]) + env.map.landmark_rad
    for a, b in itertools.pairwise(waypoints):
        if np.allclose(a, b):
            continue
        d = np.asarray(_segment_dist(jnp.asarray(a), jnp.asarray(b), state.landmark_pos))
        assert d.min() > clearance - 1e-5, (a, b, d.min())


def test_segment_distance_is_exact():
    a, b = jnp.array([0.0, 0.0]), jnp.array([2.0, 0.0])
    pts = jnp.array([[1.0, 1.0], [-1.0, 0.0], [3.0, 4.0], [0.5, -0.25]])
    np.testing.assert_allclose(_segment_dist(a, b, pts), [1.0, 1.0, np.hypot(1.0, 4.0), 0.25], rtol=1e-6)


@pytest.mark.parametrize("star", [True, False])
def test_open_map_path_is_nearly_straight_and_followed_to_the_goal(star):
    env = Camar("string_grid", map_str=OPEN, num_agents=3, max_steps=500)
    _, state = env.reset(jax.random.PRNGKey(1))
    cfg = PlannerConfig(star=star, num_iters=600)
    paths = jax.jit(lambda k, s: plan(env, k, s, cfg))(jax.random.PRNGKey(2), state)
    assert bool(paths.found.all())
    straight = np.linalg.norm(np.asarray(state.pos - state.goal_pos), axis=-1)
    wp = np.asarray(paths.waypoints)
    np.testing.assert_allclose(wp[:, 0], state.pos)
    np.testing.assert_allclose(wp[:, -1], state.goal_pos)
    lengths = np.linalg.norm(np.diff(wp, axis=1), axis=-1).sum(1)
    np.testing.assert_allclose(lengths, paths.cost, rtol=1e-4)  # stored cost = path length
    # RRT* converges towards the straight line; RRT's path is only feasible.
    assert np.all(lengths <= straight * (1.1 if star else 2.5) + 1e-3), (lengths, straight)
    for i in range(env.num_agents):
        assert_path_is_free(env, state, wp[i], i)
    metrics, _ = jax.jit(lambda k: run_episode(env, k, cfg))(jax.random.PRNGKey(1))
    assert float(metrics["success_rate"]) == 1.0


def test_rrt_star_finds_and_follows_the_corridor():
    env = corridor_env()
    _, state = env.reset(jax.random.PRNGKey(0))
    cfg = PlannerConfig(star=True, num_iters=3000)
    paths = jax.jit(lambda k, s: plan(env, k, s, cfg))(jax.random.PRNGKey(3), state)
    assert bool(paths.found[0])
    wp = np.asarray(paths.waypoints[0])
    assert_path_is_free(env, state, wp)
    # The path must go round the first wall's end (column 15) and back: more than
    # twice the wall's length.
    cell = 2 * env.map.landmark_rad
    assert wp[:, 0].max() > float(state.pos[0, 0]) + 15 * cell
    assert float(paths.cost[0]) > 2 * 15 * cell
    metrics, _ = jax.jit(lambda k: run_episode(env, k, cfg))(jax.random.PRNGKey(0))
    assert float(metrics["success_rate"]) == 1.0
    assert float(metrics["coordination"]) == 1.0  # never touched a wall


def test_a_walled_off_goal_is_reported_not_found():
    walled = "\n".join(["....#....", "....#....", "....#...."])
    env = Camar(
        "string_grid",
        map_str=walled,
        agent_idx=np.array([[1, 0]]),
        goal_idx=np.array([[1, 8]]),
        ensure_reachable=False,
    )
    _, state = env.reset(jax.random.PRNGKey(0))
    paths = plan(env, jax.random.PRNGKey(0), state, PlannerConfig(num_iters=400))
    assert not bool(paths.found[0])
    assert np.isinf(float(paths.cost[0]))
    # The follower then heads straight for the goal instead of wandering.
    u = follow(env, state, paths)
    to_goal = np.asarray(state.goal_pos[0] - state.pos[0])
    assert float(np.dot(np.asarray(u[0]), to_goal)) > 0


def test_diff_drive_robots_follow_their_paths():
    env = corridor_env(dynamic="DiffDriveDynamic")
    cfg = PlannerConfig(star=True, num_iters=3000)
    metrics, _ = jax.jit(lambda k: run_episode(env, k, cfg))(jax.random.PRNGKey(0))
    assert float(metrics["success_rate"]) == 1.0


def test_follow_turns_diff_drive_robots_towards_the_target():
    env = Camar("string_grid", map_str=OPEN, num_agents=1, dynamic="DiffDriveDynamic")
    _, state = env.reset(jax.random.PRNGKey(0))
    target = state.pos[0] + jnp.array([0.0, 0.2])
    paths_wp = jnp.stack([state.pos[0], target])[None]
    from jaxmarl.environments.camar.planning import Paths

    paths = Paths(paths_wp, jnp.ones(1), jnp.ones(1, bool), jnp.ones(1, jnp.int32))
    facing_east = state.replace(angle=jnp.zeros(1))  # the target is due north: turn left, no drive
    u = np.asarray(follow(env, facing_east, paths)[0])
    assert u[1] > 0.9  # full left turn (angular action +1 = angular_speed_max)
    np.testing.assert_allclose(u[0], 0.0, atol=1e-6)  # linear action 0 = speed 0 in [-1, 1]
    facing_north = state.replace(angle=jnp.full(1, jnp.pi / 2))
    u = np.asarray(follow(env, facing_north, paths)[0])
    assert u[0] > 0.9 and abs(u[1]) < 1e-5  # straight ahead at full speed


def test_bad_planner_settings_are_refused():
    env = Camar("string_grid", map_str=OPEN, num_agents=1)
    with pytest.raises(ValueError, match="rewire_radius"):
        PlannerConfig(rewire_radius=1.0).resolve(env)
    with pytest.raises(ValueError, match="step_size"):
        PlannerConfig(step_size=0.5, rewire_radius=0.2).resolve(env)
    with pytest.raises(ValueError, match="goal_bias"):
        PlannerConfig(goal_bias=1.5).resolve(env)
    cfg = PlannerConfig(num_iters=10).resolve(env)
    assert (cfg.max_nodes, cfg.step_size, cfg.rewire_radius) == (11, env.window, env.window)


def test_planning_vmaps_over_environments():
    env = Camar("random_grid", num_agents=4, num_rows=8, num_cols=8, obstacle_density=0.2)
    keys = jax.random.split(jax.random.PRNGKey(0), 3)
    _, states = jax.vmap(env.reset)(keys)
    cfg = PlannerConfig(num_iters=100)
    paths = jax.jit(jax.vmap(lambda k, s: plan(env, k, s, cfg)))(keys, states)
    assert paths.waypoints.shape == (3, 4, cfg.path_len, 2)
    one = plan(env, keys[1], jax.tree.map(lambda x: x[1], states), cfg)
    np.testing.assert_allclose(paths.waypoints[1], one.waypoints, atol=1e-5)


# ---------------------------------------------------------------- planned paths observed

PATH_OBS = {"num_iters": 120, "path_len": 32}


def path_env(**kw) -> Camar:
    return Camar(
        "random_grid",
        num_agents=3,
        num_rows=6,
        num_cols=6,
        obstacle_density=0.0,
        max_steps=5,
        path_obs=PATH_OBS,
        **kw,
    )


@pytest.fixture(scope="module")
def env_with_paths():
    """One environment for the tests below, so that its functions compile once."""
    with fast_compilation():
        yield path_env()


@pytest.fixture
def fast():
    with fast_compilation():
        yield


def test_path_observation_is_planned_at_reset_and_kept_within_the_episode(env_with_paths):
    env = env_with_paths
    base = env.base_obs_dim
    assert env.observation_space("agent_0").shape == (base + 2 * 4 + 2,)
    obs, state = env.reset(jax.random.PRNGKey(3))
    path = np.asarray(state.path)
    np.testing.assert_allclose(path[:, 0], state.pos)
    np.testing.assert_allclose(path[:, -1], state.goal_pos)
    assert bool(state.path_found.all()) and not bool(state.needs_plan.any())
    straight = np.linalg.norm(np.asarray(state.goal_pos - state.pos), axis=1)
    for i, a in enumerate(env.agents):
        tail = np.asarray(obs[a][base:])
        # the agent is at its path's start: the first waypoint ahead is the first one away
        # from it (the tree may hold the start itself), scaled as the goal vector is; the
        # length left is the whole path's
        away = np.linalg.norm(path[i] - np.asarray(state.pos[i]), axis=1) > 1e-6
        ahead = path[i, np.argmax(away)] - np.asarray(state.pos[i])
        scale = max(np.linalg.norm(ahead), env.window)
        np.testing.assert_allclose(tail[:2], ahead / scale, atol=1e-5)
        left = tail[-2] * max(env.map.width, env.map.height)
        polyline = np.linalg.norm(np.diff(path[i], axis=0), axis=1).sum()
        assert left == pytest.approx(polyline, rel=1e-5) and left >= straight[i] - 1e-5
        assert tail[-1] == 1.0
    key = jax.random.PRNGKey(4)
    still = {a: jnp.zeros(2) for a in env.agents}
    for t in range(env.max_steps):
        key, k = jax.random.split(key)
        obs, new, _, done, info = env.step(k, state, still)
        if t < env.max_steps - 1:
            np.testing.assert_array_equal(new.path, state.path)  # no replanning within an episode
        state = new
    # the step that ended the episode planned the next one, and observes it
    assert bool(done["__all__"])
    np.testing.assert_allclose(np.asarray(state.path)[:, 0], state.pos)
    np.testing.assert_allclose(np.asarray(state.path)[:, -1], state.goal_pos)
    fresh = env.get_obs(state)
    for a in env.agents:
        np.testing.assert_allclose(obs[a], fresh[a], atol=1e-6)
        assert not np.allclose(info["final_obs"][a][base:], obs[a][base:])


def test_path_observation_under_vmap_plans_only_the_environments_that_reset(env_with_paths):
    env = env_with_paths
    keys = jax.random.split(jax.random.PRNGKey(5), 2)
    _, states = jax.vmap(env.reset)(keys)
    states = states.replace(step=states.step.at[0].set(env.max_steps - 1))  # env 0 ends now
    still = {a: jnp.zeros((2, 2)) for a in env.agents}
    step_keys = jax.random.split(jax.random.PRNGKey(6), 2)
    _, new, _, done, _ = jax.jit(jax.vmap(env.step))(step_keys, states, still)
    assert bool(done["__all__"][0]) and not bool(done["__all__"][1])
    np.testing.assert_array_equal(new.path[1], states.path[1])
    # the resetting environment got the plan a lone environment gets from the same key
    one = jax.tree.map(lambda x: x[0], states)
    _, alone, _, _, _ = env.step(step_keys[0], one, {a: jnp.zeros(2) for a in env.agents})
    np.testing.assert_allclose(new.path[0], alone.path, atol=1e-5)
    np.testing.assert_allclose(np.asarray(new.path[0])[:, 0], np.asarray(new.pos[0]))


def test_path_observation_replans_for_a_new_lifelong_goal(fast):
    env = path_env(lifelong=True)
    _, state = env.reset(jax.random.PRNGKey(7))
    # put agent 0 on its goal: it gets a new goal and a path to it
    state = state.replace(pos=state.pos.at[0].set(state.goal_pos[0]))
    _, new, _, _, _ = env.step(jax.random.PRNGKey(8), state, {a: jnp.zeros(2) for a in env.agents})
    assert not np.allclose(new.goal_pos[0], state.goal_pos[0])
    np.testing.assert_allclose(np.asarray(new.path)[0, -1], new.goal_pos[0])
    assert np.linalg.norm(np.asarray(new.path)[0, 0] - np.asarray(new.pos)[0]) < 0.05


def test_path_observation_keeps_the_contract_and_refuses_bad_settings(env_with_paths):
    from jaxmarl.testing import check_env

    check_env(
        env_with_paths,
        num_envs=2,
        num_steps=12,
        check_render=False,
        compiler_options={"xla_backend_optimization_level": 0},
    )
    with pytest.raises(TypeError, match="unknown planner keyword"):
        Camar("random_grid", num_agents=2, path_obs={"iters": 3})
    with pytest.raises(TypeError, match="PlannerConfig"):
        Camar("random_grid", num_agents=2, path_obs="rrt")
    with pytest.raises(ValueError, match="path_obs_waypoints"):
        Camar("random_grid", num_agents=2, path_obs=True, path_obs_waypoints=0)
    with pytest.raises(ValueError, match="rewire_radius"):
        Camar("random_grid", num_agents=2, path_obs={"rewire_radius": 5.0})
    assert Camar("random_grid", num_agents=2, path_obs=True).path_obs.num_iters == 3000
