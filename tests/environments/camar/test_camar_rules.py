"""CAMAR rules on hand-built worlds: contact force, dynamics, observation formula,
metrics, reachability, the bucket grid and construction errors."""

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxmarl
from jaxmarl.environments.camar import Camar, DiffDriveDynamic, HolonomicDynamic, MixedDynamic, string_grid
from jaxmarl.environments.camar.maps import component_labels
from jaxmarl.environments.camar.spatial import BucketGrid

OPEN = """
.....
.....
.....
"""


def open_env(num_agents=2, **kw):
    # 3 x 5 free cells inside a wall border; cells of side 0.1, agents 0.03.
    return Camar("string_grid", map_str=OPEN, num_agents=num_agents, **kw)


def placed(env, pos, goal, vel=None):
    _, state = env.reset_env(jax.random.PRNGKey(0))
    pos = jnp.asarray(pos, jnp.float32)
    return state.replace(
        pos=pos,
        goal_pos=jnp.asarray(goal, jnp.float32),
        vel=jnp.zeros_like(pos) if vel is None else jnp.asarray(vel, jnp.float32),
    )


def test_contact_force_formula_and_touching():
    env = open_env(contact_force=500.0, contact_margin=0.001)
    delta = jnp.asarray([[0.05, 0.0], [0.0, -0.07], [0.061, 0.0]])
    min_dist = jnp.asarray([0.06, 0.06, 0.06])
    force, touching = env._contact(delta, min_dist)
    pen = 0.001 * np.log1p(np.exp(-(0.05 - 0.06) / 0.001))
    np.testing.assert_allclose(force[0], [500.0 * pen, 0.0], rtol=1e-5)
    np.testing.assert_array_equal(force[1:], 0.0)
    assert touching.tolist() == [True, False, False]
    _, at_contact = env._contact(jnp.asarray([[0.06, 0.0]]), jnp.asarray([0.06]))
    assert bool(at_contact[0])  # touching includes |d| == d_min


def test_holonomic_step_with_damping_and_speed_limit():
    dyn = HolonomicDynamic(accel=5.0, max_speed=1.0, damping=0.25, mass=2.0, dt=0.1)
    pos, vel = jnp.zeros((2, 2)), jnp.asarray([[0.4, 0.0], [0.0, 0.0]])
    force = jnp.asarray([[0.0, 2.0], [0.0, 0.0]])
    u = jnp.asarray([[1.0, 0.0], [0.0, -1.0]])
    new_pos, new_vel, _ = dyn.integrate(force, pos, vel, jnp.zeros(2), u)
    v0 = np.array([0.75 * 0.4 + 5 * 0.1 / 2, 2 * 0.1 / 2])  # (0.55, 0.1): under the limit
    np.testing.assert_allclose(new_vel[0], v0, rtol=1e-6)
    np.testing.assert_allclose(new_pos[0], v0 * 0.1, rtol=1e-6)
    fast = HolonomicDynamic(accel=50.0, max_speed=1.0, dt=0.1)
    _, v, _ = fast.integrate(
        jnp.zeros((1, 2)), jnp.zeros((1, 2)), jnp.zeros((1, 2)), jnp.zeros(1), jnp.asarray([[0.6, 0.8]])
    )
    np.testing.assert_allclose(v[0], [0.6, 0.8], rtol=1e-6)  # 5 units/s clipped to speed 1, same direction


def test_diff_drive_kinematics():
    dyn = DiffDriveDynamic(
        linear_speed_max=2.0, linear_speed_min=0.0, angular_speed_max=1.0, angular_speed_min=-1.0, dt=0.1
    )
    angle = jnp.asarray([0.0, np.pi / 2, 3.1])
    u = jnp.asarray(
        [[1.0, 0.0], [0.0, 1.0], [-1.0, 1.0]]
    )  # full speed straight; half speed turning; stop and turn
    pos, vel, new_angle = dyn.integrate(jnp.zeros((3, 2)), jnp.zeros((3, 2)), jnp.zeros((3, 2)), angle, u)
    np.testing.assert_allclose(vel, [[2.0, 0.0], [0.0, 1.0], [0.0, 0.0]], atol=1e-6)
    np.testing.assert_allclose(pos, [[0.2, 0.0], [0.0, 0.1], [0.0, 0.0]], atol=1e-6)
    np.testing.assert_allclose(new_angle, [0.0, np.pi / 2 + 0.1, 3.2 - 2 * np.pi], atol=1e-6)  # wrapped


def test_mixed_dynamic_moves_each_group_with_its_own_dynamic():
    holo, diff = HolonomicDynamic(), DiffDriveDynamic()
    mixed = MixedDynamic([holo, diff], [2, 3])
    key = jax.random.PRNGKey(0)
    force, pos, vel = (jax.random.normal(k, (5, 2)) for k in jax.random.split(key, 3))
    angle, u = jnp.linspace(-1, 1, 5), jax.random.uniform(key, (5, 2), minval=-1, maxval=1)
    out = mixed.integrate(force, pos, vel, angle, u)
    first = holo.integrate(force[:2], pos[:2], vel[:2], angle[:2], u[:2])
    second = diff.integrate(force[2:], pos[2:], vel[2:], angle[2:], u[2:])
    for got, a, b in zip(out, first, second, strict=True):
        np.testing.assert_array_equal(got, jnp.concatenate([a, b]))
    env = Camar(num_agents=5, num_rows=8, num_cols=8, dynamic=mixed)
    assert env.kinds.tolist() == [0, 0, 1, 1, 1]


def free_run(env, state, actions, steps):
    """Positions, velocities and headings after ``steps`` env steps with fixed actions."""
    acts = {a: jnp.asarray(actions[i], jnp.float32) for i, a in enumerate(env.agents)}

    def body(state, _):
        return env.step_env(jax.random.PRNGKey(0), state, acts)[1], None

    state = jax.lax.scan(body, state, None, steps)[0]
    return np.asarray(state.pos, np.float64), np.asarray(state.vel, np.float64), np.asarray(state.angle)


def holonomic_exact(x0, u, accel, rate, t):
    """Free holonomic motion from rest: dv/dt = -rate v + accel u (mass 1)."""
    v_inf = accel * np.asarray(u, float) / rate
    return np.asarray(x0, float) + v_inf * (t - (1 - np.exp(-rate * t)) / rate), v_inf * (
        1 - np.exp(-rate * t)
    )


@pytest.mark.parametrize(("dt", "frameskip", "rk4_tol"), [(0.01, 2, 2e-7), (0.05, 0, 5e-6)])
def test_rk4_integrates_free_holonomic_motion_exactly(dt, frameskip, rk4_tol):
    # damping = 25 dt: the same model (a decay rate of 25 per unit time) at both steps.
    # Two agents 0.2 apart push along x, away from every wall, for 0.3 time units.
    dyn = {"dt": dt, "damping": 25.0 * dt, "max_speed": -1.0}
    steps = round(0.3 / (dt * (frameskip + 1)))
    start, u = [[-0.2, -0.1], [-0.2, 0.1]], [[1.0, 0.0], [0.5, 0.0]]
    x_exact, v_exact = holonomic_exact(start, u, 5.0, 25.0, 0.3)
    rk4 = open_env(integrator="rk4", frameskip=frameskip, dynamic_kwargs=dyn)
    pos, vel, _ = free_run(rk4, placed(rk4, start, [[0.2, 0.1], [0.2, -0.1]]), u, steps)
    np.testing.assert_allclose(pos, x_exact, atol=rk4_tol)
    np.testing.assert_allclose(vel, v_exact, atol=20 * rk4_tol)
    if dt == 0.01:  # camar's semi-implicit Euler is first order: 2e-3 off after 0.3 time units
        euler = open_env(frameskip=frameskip, dynamic_kwargs=dyn)
        pos, _, _ = free_run(euler, placed(euler, start, [[0.2, 0.1], [0.2, -0.1]]), u, steps)
        assert np.abs(pos - x_exact).max() > 1e-3
    else:  # damping 1.25 per step: Euler would flip the velocity's sign every step
        with pytest.raises(ValueError, match="rk4"):
            open_env(frameskip=frameskip, dynamic_kwargs=dyn)


def test_rk4_moves_a_mixed_team_along_exact_paths():
    # One holonomic agent and one differential-drive robot turning at a constant rate:
    # the robot's exact path is a circular arc.
    mixed = MixedDynamic(
        [HolonomicDynamic(damping=1.25, dt=0.05, max_speed=-1.0), DiffDriveDynamic(dt=0.05)], [1, 1]
    )
    env = open_env(integrator="rk4", frameskip=0, dynamic=mixed)
    state = placed(env, [[-0.2, -0.1], [0.0, 0.05]], [[0.2, -0.1], [0.2, 0.1]]).replace(
        angle=jnp.asarray([0.0, 0.3], jnp.float32)
    )
    u = [[1.0, 0.0], [0.1, 0.25]]  # the robot: forward speed 0.1, turning rate 0.5
    pos, vel, angle = free_run(env, state, u, 6)
    x_exact, _ = holonomic_exact([-0.2, -0.1], u[0], 5.0, 25.0, 0.3)
    speed, turn, theta0 = 0.1, 0.5, 0.3
    theta = theta0 + turn * 0.3
    arc = [np.sin(theta) - np.sin(theta0), np.cos(theta0) - np.cos(theta)]
    np.testing.assert_allclose(pos[0], x_exact, atol=5e-6)
    np.testing.assert_allclose(pos[1], [0.0, 0.05] + speed / turn * np.asarray(arc), atol=1e-6)
    np.testing.assert_allclose(angle[1], theta, atol=1e-6)
    # a robot's velocity is its mean velocity over the last step (the chord over dt)
    before, _, _ = free_run(env, state, u, 5)
    np.testing.assert_allclose(vel[1], (pos[1] - before[1]) / 0.05, atol=1e-4)


def test_observation_formula_for_a_wall_and_an_agent():
    # The free cells' centres are x in {-0.2, ..., 0.2}, y in {-0.1, 0, 0.1}; wall circles
    # (radius 0.05) sit on the border cells, x = +-0.3 or y = +-0.2. Agents have radius 0.03.
    r, rl = 0.03, 0.05

    def expected(d, rj, w):
        d = np.asarray(d, float)
        n = np.linalg.norm(d)
        return d * (1 - (w + rj) / n) / (w - r) if abs(n - r - rj) < w else np.zeros(2)

    env = open_env(window=0.3, max_obs=2)
    state = placed(env, [[0.2, 0.0], [-0.2, 0.0]], [[-0.2, 0.1], [-0.15, 0.0]])
    obs = np.asarray(env.observe(state))
    g = np.array([-0.4, 0.1])
    np.testing.assert_allclose(
        obs[0, :2], g / np.linalg.norm(g), rtol=1e-5
    )  # farther than window: unit vector
    np.testing.assert_allclose(
        obs[1, :2], np.array([0.05, 0.0]) / 0.3, rtol=1e-5
    )  # within window: g / window
    np.testing.assert_allclose(
        obs[0, 2:4], expected([0.1, 0.0], rl, 0.3), rtol=1e-5, atol=1e-7
    )  # the wall circle at (0.3, 0)
    np.testing.assert_allclose(obs[0, 2:4], [0.1 * (1 - 0.35 / 0.1) / 0.27, 0.0], rtol=1e-5, atol=1e-7)

    narrow = open_env(window=0.1, max_obs=2)
    state = placed(narrow, [[0.0, 0.0], [0.12, 0.0]], [[0.2, 0.1], [-0.2, 0.1]])
    obs = np.asarray(narrow.observe(state))
    np.testing.assert_allclose(obs[0, 2:4], expected([0.12, 0.0], r, 0.1), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(obs[0, 2:4], [0.12 * (1 - 0.13 / 0.12) / 0.07, 0.0], rtol=1e-5, atol=1e-7)
    np.testing.assert_array_equal(obs[0, 4:6], 0.0)  # the next nearest (walls 0.2 away) is beyond the window


def test_reward_terms():
    env = open_env(pos_shaping_factor=2.0, frameskip=0)
    # Agent 0 sits on its goal, agent 1 overlaps agent 0 and moves towards its goal.
    state = placed(env, [[0.0, 0.0], [0.05, 0.0]], [[0.0, 0.0], [0.15, 0.1]])
    zero = {a: jnp.zeros(2) for a in env.agents}
    _, new, reward, term, info = env.step_env(jax.random.PRNGKey(0), state, zero)
    old_d = np.linalg.norm(np.array([0.05, 0.0]) - [0.15, 0.1])
    new_d = np.linalg.norm(np.asarray(new.pos[1]) - [0.15, 0.1])
    assert bool(info["is_collision"][0]) and bool(info["is_collision"][1])
    np.testing.assert_allclose(reward["agent_1"], -1.0 + 2.0 * (old_d - new_d), rtol=1e-4)
    d0 = np.linalg.norm(np.asarray(new.pos[0]))
    np.testing.assert_allclose(reward["agent_0"], 0.5 - 1.0 + 2.0 * (0.0 - d0), rtol=1e-4, atol=1e-6)
    assert not bool(term["__all__"])


def test_metrics_on_a_hand_built_episode():
    env = open_env(num_agents=2, max_steps=10)
    state = placed(env, [[-0.2, -0.1], [0.2, 0.1]], [[-0.2, -0.1], [0.2, 0.1]])
    state = state.replace(
        step=jnp.int32(3), arrival_step=jnp.asarray([2, -1]), num_collisions=jnp.asarray([1, 2])
    )
    state = state.replace(on_goal=jnp.asarray([True, False]))
    m = env.metrics(state)
    assert float(m["success_rate"]) == 0.5
    assert float(m["flowtime"]) == 2 + 10 and float(m["makespan"]) == 10
    np.testing.assert_allclose(m["coordination"], 1 - 3 / (2 * 3))
    # Through step: both agents on their goals with no push: first arrival at step 4.
    _, new, _, term, info = env.step_env(
        jax.random.PRNGKey(0),
        state.replace(arrival_step=jnp.asarray([-1, -1])),
        {a: jnp.zeros(2) for a in env.agents},
    )
    assert new.arrival_step.tolist() == [4, 4] and bool(term["__all__"])
    assert float(info["metrics"]["flowtime"]) == 8 and float(info["metrics"]["success_rate"]) == 1.0


def test_episode_lasts_max_steps_and_is_truncated():
    env = jaxmarl.make("camar_random_grid_v0", num_agents=4, num_rows=8, num_cols=8, max_steps=5)
    obs, state = env.reset(jax.random.PRNGKey(0))
    zero = {a: jnp.zeros(2) for a in env.agents}
    for t in range(5):
        obs, state, _, done, info = env.step(jax.random.PRNGKey(t), state, zero)
    assert bool(done["__all__"]) and bool(info["truncated"]["agent_0"]) and int(state.step) == 0


WALLED = """
..#...
..#...
..#...
"""


def test_unreachable_fixed_goal_is_rejected():
    with pytest.raises(ValueError, match="cannot be reached"):
        string_grid(WALLED, agent_idx=np.array([[0, 0]]), goal_idx=np.array([[0, 4]]))
    string_grid(WALLED, agent_idx=np.array([[0, 0]]), goal_idx=np.array([[2, 1]]))  # same room: fine


def test_random_draws_keep_every_goal_reachable():
    gen = string_grid(WALLED, num_agents=3)
    grid = BucketGrid.covering(np.array([-1.0, -1.0]), np.array([1.0, 1.0]), 0.4, 8)
    samples = jax.vmap(lambda k: gen.reset(k, grid))(jax.random.split(jax.random.PRNGKey(0), 200))
    same = np.sign(samples.agent_pos[..., 0] - 0.0) == np.sign(
        samples.goal_pos[..., 0] - 0.0
    )  # wall at x = 0
    assert same.all()
    loose = string_grid(WALLED, num_agents=3, ensure_reachable=False)
    samples = jax.vmap(lambda k: loose.reset(k, grid))(jax.random.split(jax.random.PRNGKey(0), 200))
    assert not (np.sign(samples.agent_pos[..., 0]) == np.sign(samples.goal_pos[..., 0])).all()


@pytest.mark.parametrize("density", [0.3, 0.45])
def test_random_grid_goals_are_reachable(density):
    # At 0.45 most of camar's draws wall some goal off, and agents start in pockets.
    env = Camar(num_agents=8, num_rows=10, num_cols=10, obstacle_density=density)
    keys = jax.random.split(jax.random.PRNGKey(1), 64)
    states = jax.vmap(env.reset_env)(keys)[1]
    loose = Camar(num_agents=8, num_rows=10, num_cols=10, obstacle_density=density, ensure_reachable=False)
    camar_states = jax.vmap(loose.reset_env)(keys)[1]
    np.testing.assert_array_equal(states.landmark_pos, camar_states.landmark_pos)  # camar's obstacles
    gen = env.map
    cells = np.asarray(gen._cells)
    from scipy import ndimage

    half = gen.obstacle_size / 2
    repaired = 0
    for i in range(64):
        # The first num_obstacles circles are each obstacle's top-left corner.
        centres = np.asarray(states.landmark_pos[i][: gen.num_obstacles]) + np.array([half, -half])
        blocked = np.array([np.min(np.linalg.norm(centres - c, axis=1)) < 1e-5 for c in cells])
        labels, _ = ndimage.label(~blocked.reshape(gen.num_cols, gen.num_rows))
        flat = labels.reshape(-1)

        def cell(p):
            return int(np.argmin(np.linalg.norm(cells - p, axis=1)))

        starts = [cell(a) for a in np.asarray(states.pos[i])]
        goals = [cell(g) for g in np.asarray(states.goal_pos[i])]
        assert all(flat[a] == flat[g] != 0 for a, g in zip(starts, goals, strict=True))
        assert len(set(starts) | set(goals)) == 2 * env.num_agents  # all distinct, none on a wall
        # Agents whose camar goal was reachable keep camar's start and goal.
        camar_starts = [cell(a) for a in np.asarray(camar_states.pos[i])]
        camar_goals = [cell(g) for g in np.asarray(camar_states.goal_pos[i])]
        for j, (a, g) in enumerate(zip(camar_starts, camar_goals, strict=True)):
            if flat[a] == flat[g]:
                assert (starts[j], goals[j]) == (a, g)
            else:
                repaired += 1
    assert repaired > (20 if density > 0.4 else 0)  # the test saw goals moved


def test_component_labels_match_scipy():
    from scipy import ndimage

    rng = np.random.default_rng(0)
    for _ in range(5):
        free = rng.random((9, 13)) > 0.4
        ours = np.asarray(component_labels(jnp.asarray(free)))
        theirs, _ = ndimage.label(free)
        for lab in range(1, theirs.max() + 1):
            assert len(set(ours[theirs == lab].tolist())) == 1
        assert len({ours[theirs == lab][0] for lab in range(1, theirs.max() + 1)}) == theirs.max()


def test_bucket_candidates_hold_every_circle_within_reach():
    env = Camar(num_agents=16, obstacle_density=0.3)
    _, state = env.reset_env(jax.random.PRNGKey(3))
    probes = jax.random.uniform(jax.random.PRNGKey(4), (400, 2), minval=-4.6, maxval=4.6)
    near = np.asarray(env._near_landmarks(state, probes))
    lm = np.asarray(state.landmark_pos)
    reach = env.grid.bucket
    for p, cand in zip(np.asarray(probes), near, strict=True):
        within = set(np.nonzero(np.linalg.norm(lm - p, axis=1) <= reach)[0].tolist())
        got = [c for c in cand.tolist() if c < len(lm)]
        assert within <= set(got) and len(got) == len(set(got))


def test_construction_errors():
    with pytest.raises(ValueError, match="free cells"):
        jaxmarl.make("camar_random_grid_v0", num_agents=200)
    with pytest.raises(ValueError, match="same length"):
        jaxmarl.make("camar_string_grid_v0", map_str="...\n..\n...")
    with pytest.raises(TypeError, match="num_rowz"):
        jaxmarl.make("camar_random_grid_v0", num_rowz=4)
    with pytest.raises(ValueError, match="random_grid"):
        Camar("random_gird")
    with pytest.raises(ValueError, match="only 3 free cells"):
        jaxmarl.make("camar_string_grid_v0", map_str="#..\n#.#", num_agents=4, add_border=False)
    with pytest.raises(ValueError, match="on a wall"):
        string_grid(OPEN.replace(".", "#", 1), agent_idx=np.array([[0, 0]]))
    with pytest.raises(ValueError, match="dt"):
        MixedDynamic([HolonomicDynamic(dt=0.01), DiffDriveDynamic(dt=0.02)], [1, 1])
    with pytest.raises(ValueError, match="MixedDynamic has 3 agents"):
        Camar(num_agents=4, num_rows=8, num_cols=8, dynamic=MixedDynamic(["HolonomicDynamic"], [3]))
    with pytest.raises(ValueError, match="unknown dynamic"):
        Camar(dynamic="Holonomic")
    with pytest.raises(ValueError, match="integrator must be one of"):
        Camar(num_rows=8, num_cols=8, num_agents=2, integrator="rk45")
    with pytest.raises(ValueError, match="damping must be below 1 for the Euler"):
        Camar(num_rows=8, num_cols=8, num_agents=2, dynamic_kwargs={"damping": 1.0})
    with pytest.raises(ValueError, match="damping must be non-negative"):
        HolonomicDynamic(damping=-0.1)


def test_lifelong_gives_a_new_goal_on_arrival():
    env = open_env(num_agents=2, lifelong=True)
    state = placed(env, [[-0.2, -0.1], [0.2, 0.1]], [[-0.2, -0.1], [0.0, 0.1]])
    _, new, reward, term, _ = env.step_env(
        jax.random.PRNGKey(0), state, {a: jnp.zeros(2) for a in env.agents}
    )
    assert float(reward["agent_0"]) >= 0.5 - 1e-3 and not bool(term["__all__"])
    assert not np.allclose(new.goal_pos[0], [-0.2, -0.1]) and np.allclose(new.goal_pos[1], [0.0, 0.1])
    free = np.asarray(env.map.free_layouts[0])
    assert np.min(np.linalg.norm(free - np.asarray(new.goal_pos[0]), axis=1)) < 1e-6


def test_bucket_tables_built_in_numpy_match_the_jitted_build():
    """Fixed layouts are filed at construction in numpy (build_np); the tables must be the
    ones the jitted build gives, circles on bucket edges included."""
    rng = np.random.default_rng(0)
    build = jax.jit(lambda grid, pos: grid.build(pos), static_argnums=0)
    for reach, num, on_edges in itertools.product([0.3, 0.77, 1.3], [0, 40], [False, True]):
        grid = BucketGrid.covering(np.array([-3.1, -2.0]), np.array([4.0, 3.3]), reach, 6)
        pos = rng.uniform(-3.5, 4.5, (num, 2)).astype(np.float32)
        if on_edges:
            pos = (np.round(pos / grid.bucket) * grid.bucket + np.asarray(grid.origin)).astype(np.float32)
        np.testing.assert_array_equal(grid.build_np(pos), np.asarray(build(grid, jnp.asarray(pos))))
