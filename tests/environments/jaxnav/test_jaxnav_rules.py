"""JaxNav rules on hand-drawn maps with hand-placed robots: kinematics and limits,
collisions with walls and between robots, goals and evaporation, every reward term, the
lidar. Maps are written as in JaxMARL (first row at the bottom, ``y`` in ``[0, 1)``)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from fast_compile import jit

from jaxmarl.environments.jaxnav import JaxNav, State
from jaxmarl.environments.jaxnav import constants as C

# An open 7x7 room (walls on the border only).
ROOM = ["1 1 1 1 1 1 1"] + ["1 0 0 0 0 0 1"] * 5 + ["1 1 1 1 1 1 1"]
# The same room with one wall cell at column 4, row 2 (x in [4, 5), y in [2, 3)).
PILLAR = ["1 1 1 1 1 1 1", "1 0 0 0 0 0 1", "1 0 0 0 1 0 1"] + ["1 0 0 0 0 0 1"] * 3 + ["1 1 1 1 1 1 1"]
# A 15-wide corridor, long enough for a beam to see nothing within 6 m.
LONG = ["1 " * 15] + ["1 " + "0 " * 13 + "1"] * 3 + ["1 " * 15]


class Nav:
    """An env on a fixed map with ``step_env`` and ``get_obs`` compiled once."""

    def __init__(self, rows: list[str], num_agents: int = 1, **kwargs) -> None:
        grid = np.array([[int(v) for v in r.split()] for r in rows])
        if kwargs.get("map_id") == "Grid-Rand":  # circular robots: the map comes with the state
            params = {"map_size": grid.shape[::-1], "fill": 0.0}
        else:
            kwargs.setdefault("map_id", "Grid-Rand-Poly-Single")
            params = {"map_data": rows}
        self.env = JaxNav(num_agents=num_agents, map_params=params, **kwargs)
        self.grid = jnp.asarray(grid, jnp.int32)
        self._step = jit(self.env.step_env)
        self._obs = jit(self.env.get_obs)
        self._lidar = jit(self.env.lidar)
        self.wall = jit(self.env.map_obj.check_agent_map_collision)
        self.robots = jit(self.env.map_obj.check_all_agent_agent_collisions)

    def state(self, pos, theta, goal, vel=None, **flags) -> State:
        n = self.env.num_agents
        false = jnp.zeros((n,), bool)
        fields = {k: jnp.asarray(v) for k, v in flags.items()}
        return State(
            pos=jnp.asarray(pos, jnp.float32),
            theta=jnp.asarray(theta, jnp.float32),
            vel=jnp.zeros((n, 2), jnp.float32) if vel is None else jnp.asarray(vel, jnp.float32),
            done=fields.get("done", false),
            term=false,
            goal_reached=fields.get("goal_reached", false),
            move_term=fields.get("move_term", false),
            step=jnp.int32(fields.get("step", 0)),
            ep_done=jnp.array(False),
            goal=jnp.asarray(goal, jnp.float32),
            map_data=self.grid,
            rew_lambda=jnp.float32(self.env.rew_lambda if self.env.rew_lambda is not None else 0.5),
        )

    def step(self, state: State, actions) -> tuple:
        acts = {a: jnp.asarray(actions[i]) for i, a in enumerate(self.env.agents)}
        obs, state, reward, term, info = self._step(jax.random.PRNGKey(0), state, acts)
        return state, np.array([reward[a] for a in self.env.agents]), term, info

    def run(self, state: State, actions, steps: int) -> tuple:
        rewards = []
        for _ in range(steps):
            state, r, term, info = self.step(state, actions)
            rewards.append(r)
        return state, np.array(rewards), term, info


@pytest.fixture(scope="module")
def room() -> Nav:
    return Nav(ROOM, weight_g=0.0, lidar_rew=0.0, dt_rew=0.0)


@pytest.fixture(scope="module")
def pillar() -> Nav:
    return Nav(PILLAR, num_agents=2, dt_rew=0.0, weight_g=0.0, lidar_rew=0.0)


# ------------------------------------------------------------------ kinematics
def test_acceleration_and_speed_limits(room):
    """From rest, speed grows by max_v_acc * dt = 0.1 per step up to max_v = 1; the turn
    rate by 0.1 per step up to the command (0.3); the pose integrates the new speed."""
    state = room.state([[1.5, 3.5]], [0.0], [[5.5, 3.5]])
    speeds, pos = [], []
    for _ in range(12):
        state, *_ = room.step(state, [[1.0, 0.3]])
        speeds.append(np.asarray(state.vel[0]))
        pos.append(np.asarray(state.pos[0]))
    speeds = np.array(speeds)
    np.testing.assert_allclose(speeds[:, 0], np.minimum(0.1 * np.arange(1, 13), 1.0), atol=1e-6)
    np.testing.assert_allclose(speeds[:, 1], np.minimum(0.1 * np.arange(1, 13), 0.3), atol=1e-6)
    # First step: v = 0.1, heading 0 -> x moves by v * dt = 0.01, then theta = w * dt = 0.01.
    np.testing.assert_allclose(pos[0], [1.51, 3.5], atol=1e-6)
    np.testing.assert_allclose(
        float(state.theta[0]), sum(min(0.1 * k, 0.3) * 0.1 for k in range(1, 13)), atol=1e-5
    )


def test_braking_turn_limit_and_heading_wrap():
    nav = Nav(ROOM, max_w=0.2, min_v=-0.5)
    state = nav.state([[3.5, 3.5]], [3.13], [[5.5, 5.5]], vel=[[1.0, 0.0]])
    state, *_ = nav.step(state, [[-0.5, 0.5]])
    np.testing.assert_allclose(np.asarray(state.vel[0]), [0.9, 0.1], atol=1e-6)
    state, *_ = nav.step(state, [[-0.5, 0.5]])
    assert float(state.vel[0, 1]) == pytest.approx(0.2)  # capped by max_w
    # 3.13 + 0.01 + 0.02 = 3.16 > pi: wrapped into [-pi, pi).
    assert float(state.theta[0]) == pytest.approx(3.16 - 2 * np.pi, abs=1e-5)
    for _ in range(13):
        state, *_ = nav.step(state, [[-0.5, 0.0]])
    assert float(state.vel[0, 0]) == pytest.approx(-0.5)  # reversing, down to min_v


def test_discrete_actions_command_the_table():
    nav = Nav(ROOM, act_type="Discrete")
    assert nav.env.action_space("agent_0").n == 15
    assert nav.env.noop_action("agent_0") == 2
    np.testing.assert_array_equal(C.DISCRETE_ACTS[[0, 2, 7, 14]], [[0, 0.5], [0, 0], [0.5, 0], [1, -0.5]])
    start = nav.state([[1.5, 3.5]], [0.0], [[5.5, 3.5]], vel=[[0.55, 0.0]])
    for action, (v, w) in [(2, (0.45, 0.0)), (14, (0.65, -0.1)), (7, (0.5, 0.0)), (0, (0.45, 0.1))]:
        state, *_ = nav.step(start, [np.int32(action)])
        np.testing.assert_allclose(np.asarray(state.vel[0]), [v, w], atol=1e-6)


# ------------------------------------------------------------------ collisions
def test_square_robot_touching_a_wall_collides_and_freezes(pillar):
    """The 0.5 m square at x = 3.74 ends 0.01 m short of the pillar (x = 4); one step at
    0.1 m/s moves it 0.01 m and a second touches: it collides once (reward -4, MapC 1),
    and stays frozen with zero speed."""
    wall = pillar.wall
    assert not bool(wall(jnp.array([3.74, 2.5]), jnp.float32(0.0), pillar.grid))
    assert bool(wall(jnp.array([3.76, 2.5]), jnp.float32(0.0), pillar.grid))
    # Turned 45 degrees its corner reaches 0.354 m ahead.
    assert bool(wall(jnp.array([3.66, 2.5]), jnp.float32(np.pi / 4), pillar.grid))
    state = pillar.state([[3.73, 2.5], [1.5, 5.5]], [0.0, 0.0], [[5.5, 5.5], [1.5, 1.5]])
    state, r1, _, info1 = pillar.step(state, [[1.0, 0.0], [0.0, 0.0]])
    state, r2, term, info2 = pillar.step(state, [[1.0, 0.0], [0.0, 0.0]])
    assert not bool(state.move_term[1]) and bool(state.move_term[0])
    np.testing.assert_array_equal(np.asarray(info2["MapC"]), [1, 0])
    assert np.asarray(info1["MapC"]).sum() == 0
    # Own rewards (lambda 0.5): robot 0 gets -4, robot 1 nothing; each gets half its own plus half the mean.
    np.testing.assert_allclose(r2, [0.5 * -4 + 0.5 * -2, 0.5 * 0 + 0.5 * -2], atol=1e-6)
    frozen = np.asarray(state.pos[0])
    state, r3, _, info3 = pillar.step(state, [[1.0, 0.3], [0.0, 0.0]])
    np.testing.assert_array_equal(np.asarray(state.pos[0]), frozen)
    np.testing.assert_array_equal(np.asarray(state.vel[0]), [0.0, 0.0])
    assert np.asarray(info3["MapC"]).sum() == 0 and np.all(r3 == 0)  # collision paid once
    assert not bool(term["__all__"])  # robot 1 is still under way


def test_circular_robot_wall_distance():
    """Discs of radius rad collide when a wall cell's closest point is within rad."""
    nav = Nav(PILLAR, map_id="Grid-Rand")
    wall, grid = nav.wall, nav.grid
    assert not bool(wall(jnp.array([3.69, 2.5]), 0.0, grid)) and bool(wall(jnp.array([3.71, 2.5]), 0.0, grid))
    # Near the pillar's corner (4, 2): the distance to the corner point counts.
    d = 0.29 / np.sqrt(2)
    assert bool(wall(jnp.array([4 - d, 2 - d]), 0.0, grid))
    d = 0.31 / np.sqrt(2)
    assert not bool(wall(jnp.array([4 - d, 2 - d]), 0.0, grid))


def test_robots_collide_with_each_other():
    nav = Nav(ROOM, num_agents=3)
    hit = nav.robots
    pos = jnp.array([[2.0, 2.0], [2.49, 2.0], [4.0, 4.0]])
    np.testing.assert_array_equal(np.asarray(hit(pos, jnp.zeros(3))), [True, True, False])
    pos = jnp.array([[2.0, 2.0], [2.51, 2.0], [4.0, 4.0]])
    np.testing.assert_array_equal(np.asarray(hit(pos, jnp.zeros(3))), [False, False, False])
    # Two squares turned 45 degrees touch corner to corner at 2 * 0.354 m.
    turned = jnp.full((3,), np.pi / 4)
    assert np.asarray(hit(jnp.array([[2.0, 2.0], [2.7, 2.0], [4.0, 4.0]]), turned))[:2].all()
    assert not np.asarray(hit(jnp.array([[2.0, 2.0], [2.72, 2.0], [4.0, 4.0]]), turned)).any()
    circles = Nav(ROOM, num_agents=2, map_id="Grid-Rand").robots
    assert np.asarray(circles(jnp.array([[2.0, 2.0], [2.6, 2.0]]), jnp.zeros(2))).all()  # 2 * rad
    assert not np.asarray(circles(jnp.array([[2.0, 2.0], [2.61, 2.0]]), jnp.zeros(2))).any()


def test_robot_collision_in_a_step_counts_for_both(pillar):
    state = pillar.state([[1.5, 4.5], [1.95, 4.5]], [0.0, np.pi], [[5.5, 5.5], [1.5, 1.5]])
    state, reward, _, info = pillar.step(state, [[0.0, 0.0], [0.0, 0.0]])
    np.testing.assert_array_equal(np.asarray(info["AgentC"]), [1, 1])
    np.testing.assert_array_equal(np.asarray(state.move_term), [True, True])
    np.testing.assert_allclose(reward, [-4.0, -4.0])


# ------------------------------------------------------------------ goals and episodes
def test_goal_reached_rewarded_once_and_episode_end():
    """A robot within goal_radius of its goal gets goal_rew once; without evaporation it
    keeps driving and the episode ends (a termination) when every robot is finished."""
    nav = Nav(ROOM, num_agents=2, weight_g=0.0, lidar_rew=0.0, rew_lambda=1.0)
    state = nav.state([[4.98, 3.5], [1.5, 1.5]], [0.0, 0.0], [[5.5, 3.5], [1.5, 5.5]])
    state, r, term, info = nav.step(state, [[1.0, 0.0], [0.0, 0.0]])  # moves 0.01 m: 0.51 m away
    assert not bool(state.goal_reached[0]) and r[0] == pytest.approx(-0.01)
    state, r, term, info = nav.step(state, [[1.0, 0.0], [0.0, 0.0]])  # 0.02 m more: within 0.5 m
    assert bool(state.goal_reached[0]) and r[0] == pytest.approx(4.0 - 0.01)
    np.testing.assert_array_equal(np.asarray(info["GoalR"]), [1, 0])
    assert not bool(term["agent_0"]) and not bool(state.done[0])
    before = np.asarray(state.pos[0])
    state, r, term, info = nav.step(state, [[1.0, 0.0], [0.0, 0.0]])
    assert np.asarray(state.pos[0])[0] > before[0]  # still driving
    assert r[0] == 0.0 and np.asarray(info["GoalR"]).sum() == 0  # no more goal or time reward
    # Robot 1 runs into the wall: every robot is finished, the episode terminates.
    state = state.replace(pos=state.pos.at[1].set(jnp.array([1.5, 1.2])))
    state, r, term, info = nav.step(state, [[0.0, 0.0], [0.0, 0.0]])
    assert bool(term["__all__"]) and bool(state.ep_done) and np.asarray(state.done).all()
    np.testing.assert_array_equal(np.asarray(info["NumC"]), [1, 1])


def test_evaporating_robots_leave_one_by_one():
    nav = Nav(ROOM, num_agents=2, evaporating=True, weight_g=0.0, lidar_rew=0.0)
    state = nav.state([[5.2, 3.5], [1.5, 1.5]], [0.0, 0.0], [[5.5, 3.5], [1.5, 5.5]])
    state, r, term, info = nav.step(state, [[0.0, 0.0], [0.0, 0.0]])
    np.testing.assert_array_equal(np.asarray(state.done), [True, False])
    assert bool(term["agent_0"]) and not bool(term["agent_1"]) and not bool(term["__all__"])
    state, r, term, info = nav.step(state, [[1.0, 0.0], [0.0, 0.0]])
    np.testing.assert_array_equal(np.asarray(state.pos[0]), [0.0, 0.0])  # parked at the origin
    np.testing.assert_array_equal(np.asarray(state.vel[0]), [0.0, 0.0])
    assert not bool(state.goal_reached[0])  # only true on the step it happens
    # Its own reward is 0 now: it gets half the mean, robot 1 its own half plus that.
    assert r[0] == pytest.approx(r[1] / 3)
    np.testing.assert_array_equal(np.asarray(info["terminated"]), [True, False])


def test_time_limit_is_a_truncation():
    nav = Nav(ROOM, num_agents=2, max_steps=3)
    _, state = jit(nav.env.reset)(jax.random.PRNGKey(0))
    step = jit(nav.env.step)
    acts = {a: jnp.zeros(2) for a in nav.env.agents}
    for t in range(3):
        _, state, _, done, info = step(jax.random.PRNGKey(t), state, acts)
    assert bool(done["__all__"]) and all(bool(info["truncated"][a]) for a in nav.env.agents)
    np.testing.assert_array_equal(np.asarray(info["TimeO"]), [True, True])
    np.testing.assert_allclose(float(info["metrics"]["timeout_rate"]), 1.0)
    assert int(state.step) == 0  # reset automatically


# ------------------------------------------------------------------ reward terms
def test_progress_turn_time_and_lidar_terms():
    nav = Nav(ROOM, weight_g=0.25, lim_w=0.3, weight_w=-0.1, dt_rew=-0.01, lidar_rew=-0.1, rew_lambda=1.0)
    # Progress: 0.01 m closer to the goal (0.25 * 0.01), time -0.01, no turn, no lidar.
    state = nav.state([[2.5, 3.5]], [0.0], [[5.5, 3.5]])
    _, r, *_ = nav.step(state, [[1.0, 0.0]])
    assert r[0] == pytest.approx(0.25 * 0.01 - 0.01, abs=1e-6)
    # Turning harder than lim_w costs weight_w * |w_cmd|.
    _, r, *_ = nav.step(state, [[0.0, 0.5]])
    assert r[0] == pytest.approx(-0.1 * 0.5 - 0.01, abs=1e-6)
    # A reading within lidar_thresh + rad (0.4 m): lidar_rew (the wall at y = 1 is 0.3 m
    # below, read as the first sample beyond it, 0.3025 m).
    near = nav.state([[3.5, 1.3]], [0.0], [[3.5, 5.5]])
    _, r, *_ = nav.step(near, [[0.0, 0.0]])
    assert r[0] == pytest.approx(-0.1 - 0.01, abs=1e-6)


def test_team_mixing_sparse_sharing_and_separate_rewards():
    """lambda * own + (1 - lambda) * mean(own); share_only_sparse shares the mean sparse
    part; do_sep_reward splits the mixed reward into sparse (reward) and dense (info)."""
    common = dict(num_agents=2, weight_g=0.25, rew_lambda=0.3, lidar_rew=0.0)
    start = ([[2.5, 3.5], [3.76, 2.0]], [0.0, 0.0], [[5.5, 3.5], [1.5, 5.5]])
    acts = [[1.0, 0.0], [0.0, 0.0]]
    plain, only_sparse, separate = (
        Nav(PILLAR, **common),
        Nav(PILLAR, share_only_sparse=True, **common),
        Nav(PILLAR, do_sep_reward=True, **common),
    )
    own = np.array([0.25 * 0.01 - 0.01, -4.0 - 0.01])  # robot 1 starts touching the pillar
    sparse = np.array([-0.01, -4.01])
    _, r, *_ = plain.step(plain.state(*start), acts)
    np.testing.assert_allclose(r, 0.3 * own + 0.7 * own.mean(), atol=1e-6)
    _, r, *_ = only_sparse.step(only_sparse.state(*start), acts)
    np.testing.assert_allclose(r, 0.3 * own + 0.7 * sparse.mean(), atol=1e-6)
    _, r, _, info = separate.step(separate.state(*start), acts)
    shaped = np.array([info["shaped_reward"][a] for a in separate.env.agents])
    np.testing.assert_allclose(r, 0.3 * sparse + 0.7 * sparse.mean(), atol=1e-6)
    np.testing.assert_allclose(r + shaped, 0.3 * own + 0.7 * own.mean(), atol=1e-6)


def test_sampled_lambda_is_observed_and_used():
    nav = Nav(ROOM, num_agents=2, fixed_lambda=False, lambda_range=(0.2, 0.8), weight_g=0.0, lidar_rew=0.0)
    lams = np.asarray(jax.vmap(nav.env.sample_lambda)(jax.random.split(jax.random.PRNGKey(0), 256)))
    assert lams.min() >= 0.2 and lams.max() < 0.8 and lams.std() > 0.1
    state = nav.state([[3.76, 2.0], [1.5, 5.5]], [0.0, 0.0], [[5.5, 3.5], [1.5, 1.5]]).replace(
        rew_lambda=jnp.float32(0.7)
    )
    obs = nav._obs(state)
    assert float(obs["agent_0"][-1]) == pytest.approx(0.2)  # lambda - 0.5
    state = state.replace(pos=state.pos.at[0].set(jnp.array([1.24, 1.5])))  # touching the wall
    _, r, *_ = nav.step(state, [[0.0, 0.0], [0.0, 0.0]])
    own = np.array([-4.01, -0.01])
    np.testing.assert_allclose(r, 0.7 * own + 0.3 * own.mean(), atol=1e-6)


# ------------------------------------------------------------------ lidar and observations
def test_lidar_readings_on_a_hand_drawn_map():
    """Readings are the first of the 120 sample distances (6/119 m apart) that lies in a
    wall; beams that see nothing within 6 m read 6."""
    nav = Nav(LONG, lidar_num_beams=5)  # beams at -pi, -pi/2, 0, pi/2, pi from the heading
    ranges = np.asarray(nav.env.lidar_ranges)
    assert len(ranges) == 120 and ranges[1] == pytest.approx(6 / 119)
    state = nav.state([[1.5, 2.5]], [0.0], [[12.5, 2.5]])
    readings = np.asarray(nav._lidar(state))[0]
    # Behind (pi): the wall at x < 1 is 0.5 m away; right (-pi/2): y < 1, 1.5 m; ahead:
    # the far wall is 12.5 m away; left (pi/2): y >= 4, 1.5 m.
    expected = [ranges[np.argmax(ranges > 0.5)], ranges[np.argmax(ranges > 1.5)], 6.0]
    expected += [ranges[np.argmax(ranges >= 1.5)], expected[0]]
    np.testing.assert_allclose(readings, expected, atol=1e-5)
    obs = np.asarray(nav._obs(state)["agent_0"])
    np.testing.assert_allclose(obs[:5], readings / 6 - 0.5, atol=1e-6)


def test_lidar_sees_other_robots_in_resolution_units():
    """A robot whose near side is 1.77 m ahead reads as sample floor(1.77 / 0.05) = 35."""
    nav = Nav(LONG, num_agents=2, lidar_num_beams=5)
    state = nav.state([[1.5, 2.5], [3.52, 2.5]], [0.0, 0.0], [[12.5, 2.5], [12.5, 3.5]])
    readings = np.asarray(nav._lidar(state))
    assert readings[0, 2] == pytest.approx(float(nav.env.lidar_ranges[35]))
    # Robot 1 sees robot 0's side 1.77 m behind it (its beam at pi).
    assert readings[1, 0] == pytest.approx(float(nav.env.lidar_ranges[35]))
    circles = Nav(LONG, num_agents=2, lidar_num_beams=5, map_id="Grid-Rand")
    readings = np.asarray(circles._lidar(state))
    assert readings[0, 2] == pytest.approx(float(nav.env.lidar_ranges[int(1.72 / 0.05)]))  # disc edge at 3.22


def test_velocity_and_goal_observation():
    nav = Nav(LONG, lidar_num_beams=5)
    state = nav.state([[1.5, 2.5]], [np.pi / 2], [[9.5, 2.5]], vel=[[0.5, -0.3]])
    obs = np.asarray(nav._obs(state)["agent_0"])
    np.testing.assert_allclose(obs[5:], [0.0, -0.5, 0.5, -0.5, 0.0], atol=1e-6)  # goal 8 m: capped at 6
    raw = Nav(LONG, lidar_num_beams=5, normalise_obs=False)
    obs = np.asarray(raw._obs(state)["agent_0"])
    np.testing.assert_allclose(obs[5:], [0.5, -0.3, 6.0, -np.pi / 2, 0.5], atol=1e-6)
    assert raw.env.observation_space("agent_0").contains(jnp.asarray(obs))
