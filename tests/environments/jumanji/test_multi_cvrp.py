"""Rule tests of MultiCVRP on a hand-built instance, with exact numbers; generator
invariants over thousands of instances; configuration errors; a user's generator;
``check_env``; rendering.

The hand-built instance (map side 10, vehicles carry 10)::

    node   (x, y)   demand  window     early  late
    0      (0, 0)   -       [0, 100]   0      0      depot
    1      (3, 4)   4       [10, 20]   0.5    1.0    5 from the depot
    2      (6, 8)   6       [0, 4]     0.1    2.0    10 from the depot, 5 from node 1
    3      (0, 5)   0       [0, 50]    0.2    0.5    nothing to deliver
    4      (10, 0)  9       [0, 50]    0.2    0.3    10 from the depot
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from fast_compile import COMPILER_OPTIONS
from fast_compile import jit as fast_jit

from jaxmarl.environments.jumanji.multi_cvrp import (
    ClusterGenerator,
    ExplosionGenerator,
    LinearCompressionGenerator,
    MultiCVRP,
    SparseReward,
    State,
    UniformRandomGenerator,
    initial_state,
)
from jaxmarl.environments.jumanji.multi_cvrp import constants as C
from jaxmarl.environments.jumanji.multi_cvrp.viewer import palette
from jaxmarl.testing import check_env

COORDS = [(0.0, 0.0), (3.0, 4.0), (6.0, 8.0), (0.0, 5.0), (10.0, 0.0)]
DEMANDS = [0, 4, 6, 0, 9]
START = [0.0, 10.0, 0.0, 0.0, 0.0]
END = [100.0, 20.0, 4.0, 50.0, 50.0]
EARLY = [0.0, 0.5, 0.1, 0.2, 0.2]
LATE = [0.0, 1.0, 2.0, 0.5, 0.3]


class HandInstance:
    """A user's generator: no base class, just the protocol's attributes and ``__call__``."""

    num_customers = 4
    num_vehicles = 3
    map_max = 10
    max_capacity = 10

    def __call__(self, key: jax.Array) -> State:
        del key
        return initial_state(
            jnp.array(COORDS), jnp.array(DEMANDS), jnp.array(START), jnp.array(END),
            jnp.array(EARLY), jnp.array(LATE), self.num_vehicles, self.max_capacity,
        )  # fmt: skip


ENV = MultiCVRP(generator=HandInstance())
SPARSE = MultiCVRP(generator=HandInstance(), reward_fn="sparse")
STEP = {env: fast_jit(env.step_env) for env in (ENV, SPARSE)}
FULL_STEP = fast_jit(ENV.step)
KEY = jax.random.PRNGKey(0)


def start() -> State:
    return ENV.reset_env(KEY)[1]


def act(env: MultiCVRP, state: State, *choices: int):
    actions = {a: jnp.int32(c) for a, c in zip(env.agents, choices, strict=True)}
    obs, new, reward, done, info = STEP[env](KEY, state, actions)
    return obs, new, float(reward["agent_0"]), bool(done["__all__"]), info


def test_spaces_and_agents():
    assert ENV.agents == ["agent_0", "agent_1", "agent_2"]
    assert ENV.action_space("agent_1").n == 5
    assert ENV.observation_space("agent_0").shape == (4 + 7 * 5 + 4 * 3,)
    assert ENV.max_steps == 8
    default = MultiCVRP()
    assert default.num_agents == 2 and default.observation_space("agent_0").shape == (159,)
    assert default.max_steps == 40 and default.map_max == 10 and default.max_capacity == 60


def test_moves_loads_and_time_penalties():
    _, s, reward, done, _ = act(ENV, start(), 1, 2, 0)
    np.testing.assert_array_equal(s.positions, [1, 2, 0])
    np.testing.assert_allclose(s.distances, [5, 10, 0])
    np.testing.assert_allclose(s.local_times, [5, 10, 0])
    # Vehicle 0 arrives at 5, before node 1's window [10, 20]: (10 - 5) * 0.5. Vehicle 1
    # arrives at 10, after node 2's window [0, 4]: (10 - 4) * 2.
    np.testing.assert_allclose(s.time_penalties, [2.5, 12.0, 0.0])
    np.testing.assert_array_equal(s.capacities, [6, 4, 10])
    np.testing.assert_array_equal(s.demands, [0, 0, 0, 0, 9])
    np.testing.assert_array_equal(s.routes[:, :2], [[0, 1], [0, 2], [0, 0]])
    assert s.step == 1 and not done
    assert reward == pytest.approx(-15 - 14.5)


def test_masks():
    masks = ENV.get_avail_actions(start())
    np.testing.assert_array_equal(masks["agent_0"], [True, True, True, False, True])  # node 3 wants nothing
    _, s, *_ = act(ENV, start(), 1, 2, 0)
    masks = ENV.get_avail_actions(s)
    np.testing.assert_array_equal(masks["agent_0"], [True, False, False, False, False])  # 9 > 6 left
    np.testing.assert_array_equal(masks["agent_1"], [True, False, False, False, False])
    np.testing.assert_array_equal(masks["agent_2"], [True, False, False, False, True])


def test_illegal_choices_send_the_vehicle_to_the_depot_and_reload_it():
    _, s, *_ = act(ENV, start(), 1, 2, 0)
    # Node 4 wants 9 but vehicle 0 has 6 left; node 3 wants nothing; node 1 is served.
    _, s, reward, done, _ = act(ENV, s, 4, 3, 1)
    np.testing.assert_array_equal(s.positions, [0, 0, 0])
    np.testing.assert_array_equal(s.capacities, [10, 10, 10])
    np.testing.assert_allclose(s.distances, [10, 20, 0])
    np.testing.assert_allclose(s.time_penalties, [2.5, 12.0, 0.0])  # the depot charges nothing
    np.testing.assert_array_equal(s.demands, [0, 0, 0, 0, 9])
    assert reward == pytest.approx(-15) and not done


def test_clashes_go_to_the_lowest_numbered_vehicle():
    _, s, *_ = act(ENV, start(), 1, 1, 1)
    np.testing.assert_array_equal(s.positions, [1, 0, 0])
    _, s, *_ = act(ENV, start(), 1, 2, 2)
    np.testing.assert_array_equal(s.positions, [1, 2, 0])
    np.testing.assert_array_equal(s.capacities, [6, 4, 10])
    # Legality comes first: vehicle 0 cannot carry node 4's 9, so vehicle 1 gets it.
    _, s, *_ = act(ENV, start().replace(capacities=jnp.array([5, 10, 10])), 4, 4, 0)
    np.testing.assert_array_equal(s.positions, [0, 4, 0])
    np.testing.assert_array_equal(s.capacities, [10, 1, 10])


def play_to_the_end(env: MultiCVRP):
    s, rewards = start(), []
    for choices in [(1, 2, 0), (4, 3, 1), (4, 4, 4), (0, 0, 0)]:
        _, s, reward, done, info = act(env, s, *choices)
        rewards.append((reward, done))
    return s, rewards, info


def test_termination_when_all_served_and_home_and_dense_rewards():
    s, rewards, info = play_to_the_end(ENV)
    # Step 3: vehicle 0 takes node 4 (in its window), the others stay; all served but
    # vehicle 0 is away. Step 4: it drives home and the episode terminates.
    assert rewards == [(-29.5, False), (-15.0, False), (-10.0, False), (-10.0, True)]
    np.testing.assert_allclose(s.distances, [30, 20, 0])
    np.testing.assert_array_equal(s.routes[0, :5], [0, 1, 0, 4, 0])
    metrics = {k: float(v) for k, v in info["metrics"].items()}
    assert metrics == {
        "total_distance": 50.0,
        "total_time_penalty": 14.5,
        "unserved_demand": 0.0,
        "success": 1.0,
    }


def test_sparse_reward_pays_the_whole_cost_at_the_end():
    _, rewards, _ = play_to_the_end(SPARSE)
    assert rewards == [(0.0, False), (0.0, False), (0.0, False), (-64.5, True)]
    assert isinstance(SPARSE.reward_fn, SparseReward)


@pytest.mark.parametrize("env", [ENV, SPARSE], ids=["dense", "sparse"])
def test_step_limit_terminates_with_the_worst_case_remaining_reward(env):
    s = start().replace(step=jnp.int32(ENV.max_steps - 1))
    actions = {"agent_0": jnp.int32(1), "agent_1": jnp.int32(0), "agent_2": jnp.int32(0)}
    _, _, reward, done, info = (
        FULL_STEP(KEY, s, actions) if env is ENV else fast_jit(env.step)(KEY, s, actions)
    )
    # Nodes 2 and 4 still wait (10 from the depot each): round trips 40; arrival at the
    # mean local time 5 / 3 plus 40, late for node 2's window [0, 4] at 2 per unit.
    arrival = 5 / 3 + 40
    assert float(reward["agent_1"]) == pytest.approx(-40 - (arrival - 4) * 2, rel=1e-6)
    # The reward stands in for the rest of the episode: a termination, nothing to bootstrap.
    assert bool(done["__all__"]) and not any(bool(info["truncated"][a]) for a in env.agents)
    assert float(info["metrics"]["success"]) == 0.0
    np.testing.assert_array_equal(info["final_state"].positions, [1, 0, 0])
    assert int(info["final_state"].step) == 8


def test_serving_everyone_on_the_last_step_is_a_success():
    # All served, vehicle 0 away: it drives home on the step that reaches the limit. As in
    # Jumanji, the step limit's worst-case reward (0: nobody waits) replaces the leg.
    s = start().replace(
        step=jnp.int32(ENV.max_steps - 1), demands=jnp.zeros(5, jnp.int32), positions=jnp.array([1, 0, 0])
    )
    _, _, reward, done, info = FULL_STEP(KEY, s, {a: jnp.int32(0) for a in ENV.agents})
    assert bool(done["__all__"]) and not bool(info["truncated"]["agent_0"])
    assert float(reward["agent_0"]) == 0.0
    assert float(info["metrics"]["success"]) == 1.0


def test_observation_layout_and_global_state():
    obs, s, *_ = act(ENV, start(), 1, 2, 0)
    n, v = 5, 3
    o = np.asarray(obs["agent_1"])
    np.testing.assert_allclose(o[:4], [6, 8, 10, 4])  # own x, y, local time, capacity
    shared = o[4:]
    np.testing.assert_allclose(shared[: 2 * n], np.ravel(COORDS))
    np.testing.assert_allclose(shared[2 * n : 3 * n], [0, 0, 0, 0, 9])
    np.testing.assert_allclose(shared[3 * n : 4 * n], START)
    np.testing.assert_allclose(shared[4 * n : 5 * n], END)
    np.testing.assert_allclose(shared[5 * n : 6 * n], EARLY)
    np.testing.assert_allclose(shared[6 * n : 7 * n], LATE)
    np.testing.assert_allclose(shared[7 * n : 7 * n + 2 * v], [3, 4, 6, 8, 0, 0])
    np.testing.assert_allclose(shared[7 * n + 2 * v : 7 * n + 3 * v], [5, 10, 0])
    np.testing.assert_allclose(shared[7 * n + 3 * v :], [6, 4, 10])
    for agent in ENV.agents:
        np.testing.assert_array_equal(obs[agent][4:], shared)  # one shared block
        assert bool(ENV.observation_space(agent).contains(obs[agent]))
    np.testing.assert_allclose(obs["agent_0"][:4], [3, 4, 5, 6])
    state_vec = np.asarray(ENV.get_global_state(s))
    np.testing.assert_allclose(state_vec, np.concatenate([shared, [1 / 8]]), rtol=1e-6)


def test_out_of_range_actions_act_as_the_depot():
    _, s, _, _, info = FULL_STEP(
        KEY, start(), {"agent_0": jnp.int32(7), "agent_1": jnp.int32(-1), "agent_2": jnp.int32(1)}
    )
    np.testing.assert_array_equal(info["final_state"].positions, [0, 0, 1])
    assert [bool(info["invalid_action"][a]) for a in ENV.agents] == [True, True, False]


GENERATORS = {
    "uniform": UniformRandomGenerator(),
    "cluster": ClusterGenerator(radius=1.5),
    "cluster_fixed": ClusterGenerator(center=(3.0, 7.0), radius=1.5),
    "line": LinearCompressionGenerator(compression=1.0),
    "half_line": LinearCompressionGenerator(compression=0.5),
    "explosion": ExplosionGenerator(center=(5.0, 5.0), radius=3.0),
}


@pytest.fixture(scope="module")
def samples():
    keys = jax.random.split(jax.random.PRNGKey(42), 2000)
    return jax.device_get(fast_jit(lambda k: {name: jax.vmap(g)(k) for name, g in GENERATORS.items()})(keys))


def test_uniform_generator_instances(samples):
    s = samples["uniform"]
    assert s.coordinates.shape == (2000, 21, 2)
    assert (s.coordinates >= 0).all() and (s.coordinates < 10).all()
    assert (s.demands[:, 0] == 0).all() and (s.demands >= 0).all() and (s.demands <= 10).all()
    assert (s.demands.sum(1) <= 2 * 60).all() and (s.demands.sum(1) > 60).all()  # scaled to the fleet
    assert (s.window_start >= 0).all() and (s.window_start < 10).all()
    np.testing.assert_allclose(s.window_end - s.window_start, 20, rtol=1e-6)
    assert (s.early_coefs[:, 0] == 0).all() and (s.late_coefs[:, 0] == 0).all()
    assert (s.early_coefs < 0.2).all() and (s.late_coefs < 1).all() and (s.late_coefs >= 0).all()
    assert (s.positions == 0).all() and (s.capacities == 60).all() and (s.step == 0).all()
    assert (s.routes == 0).all() and s.routes.shape == (2000, 2, 41) and (s.local_times == 0).all()
    assert len({tuple(c) for c in s.coordinates[:, 1].round(5)}) == 2000  # keys matter


def test_custom_generators_keep_the_uniform_instance_but_the_customers(samples):
    uniform = samples["uniform"]
    for name in GENERATORS:
        s = samples[name]
        for field in ("demands", "window_start", "window_end", "early_coefs", "late_coefs"):
            np.testing.assert_array_equal(
                getattr(s, field), getattr(uniform, field), err_msg=f"{name} {field}"
            )
        np.testing.assert_array_equal(s.coordinates[:, 0], uniform.coordinates[:, 0])  # the depot
        assert (s.coordinates >= 0).all() and (s.coordinates <= 10).all(), name


def test_cluster_generator(samples):
    fixed = samples["cluster_fixed"].coordinates[:, 1:]
    assert (np.linalg.norm(fixed - [3.0, 7.0], axis=-1) <= 1.5 + 1e-5).all()
    assert np.linalg.norm(fixed - [3.0, 7.0], axis=-1).max() > 1.4  # fills the disc
    points = samples["cluster"].coordinates[:, 1:]
    spread = np.linalg.norm(points[:, :, None] - points[:, None], axis=-1).max(axis=(1, 2))
    assert (spread <= 3.0 + 1e-5).all() and spread.min() > 1.0
    centres = points.mean(1)
    assert centres.min() > 1.0 and centres.max() < 9.0 and centres.std() > 1.0  # random centres


def test_linear_compression_generator(samples):
    def thinness(points):  # smallest over largest singular value of the centred cloud
        sv = np.linalg.svd(points - points.mean(1, keepdims=True), compute_uv=False)
        return sv[:, -1] / sv[:, 0]

    assert (thinness(samples["line"].coordinates[:, 1:]) < 1e-5).all()
    half, uniform = (
        thinness(samples["half_line"].coordinates[:, 1:]),
        thinness(samples["uniform"].coordinates[:, 1:]),
    )
    assert np.median(half) < 0.75 * np.median(uniform)


def test_explosion_generator(samples):
    before = np.linalg.norm(samples["uniform"].coordinates[:, 1:] - 5.0, axis=-1)
    after = np.linalg.norm(samples["explosion"].coordinates[:, 1:] - 5.0, axis=-1)
    assert (after >= 3.0 - 1e-5).all()  # the disc is empty
    assert (after >= before - 1e-5).all()  # nobody came closer
    outside = before >= 3.0
    np.testing.assert_array_equal(after[outside], before[outside])
    inside = ~outside & (2 * 3.0 - before <= 5.0)  # pushed without reaching the map's edge
    np.testing.assert_allclose(after[inside], 6.0 - before[inside], atol=1e-5)


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda: UniformRandomGenerator(num_vehicles=0), "num_vehicles"),
        (lambda: UniformRandomGenerator(num_customers=0, manual_settings=True), "num_customers"),
        (lambda: UniformRandomGenerator(20, 4), "defines no instance"),
        (lambda: UniformRandomGenerator(map_max=20), "manual_settings=True"),
        (lambda: UniformRandomGenerator(manual_settings=True, max_capacity=5), "below customer_demand_max"),
        (lambda: UniformRandomGenerator(manual_settings=True, customer_demand_max=1), "customer_demand_max"),
        (lambda: UniformRandomGenerator(manual_settings=True, map_max=0), "map_max"),
        (lambda: UniformRandomGenerator(manual_settings=True, early_coef_rand=(0.3, 0.1)), "low <= high"),
        (lambda: UniformRandomGenerator(manual_settings=True, late_coef_rand=(-1.0, 1.0)), "late_coef_rand"),
        (lambda: UniformRandomGenerator(manual_settings=True, max_start_window=-1.0), "max_start_window"),
        (lambda: UniformRandomGenerator(7, 100, manual_settings=True, max_capacity=400), "32768"),
        (lambda: ClusterGenerator(radius=6.0), "map_max / 2"),
        (lambda: ClusterGenerator(center=(1.0, 5.0), radius=2.0), "center"),
        (lambda: LinearCompressionGenerator(compression=1.5), "compression"),
        (lambda: ExplosionGenerator(radius=0.0), "radius"),
        (lambda: ExplosionGenerator(center=(11.0, 5.0)), "center"),
        (lambda: MultiCVRP(num_vehicles=0), "num_vehicles"),
        (lambda: MultiCVRP(num_customers=7), "defines no instance"),
        (lambda: MultiCVRP(reward_fn="shortest"), "reward_fn"),
        (lambda: MultiCVRP(reward_fn=3), "reward_fn"),
    ],
)
def test_bad_configurations_raise(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_generator_protocol_errors():
    with pytest.raises(TypeError, match="generator keywords"):
        MultiCVRP(generator=HandInstance(), num_customers=4)

    class NoCapacity:
        num_customers, num_vehicles, map_max = 4, 3, 10

        def __call__(self, key):
            return None

    with pytest.raises(TypeError, match="max_capacity"):
        MultiCVRP(generator=NoCapacity())


def test_keywords_build_the_default_generator():
    env = MultiCVRP(num_customers=50, num_vehicles=3)
    assert env.num_agents == 3 and env.max_steps == 100 and env.map_max == 20 and env.max_capacity == 150
    env = MultiCVRP(num_customers=9, num_vehicles=4, manual_settings=True, max_capacity=25, map_max=4)
    assert env.generator.max_capacity == 25 and env.observation_space("agent_0").high[0] == 4


def test_check_env():
    check_env(MultiCVRP(num_customers=6, num_vehicles=3), compiler_options=COMPILER_OPTIONS)


def test_render():
    _, s, *_ = act(ENV, start(), 1, 2, 0)
    size = 128
    both = jax.tree.map(lambda a, b: jnp.stack([a, b]), start(), s)
    frames = np.asarray(fast_jit(jax.vmap(lambda st: ENV.render(st, size=size)))(both))
    assert frames.shape == (2, size, size, 3) and frames.dtype == np.uint8
    first, img = frames
    scale = size / (10 * (1 + 2 * C.MARGIN))

    def pixel(x, y):
        col, row = int((x + 0.4) * scale), int((10 + 0.4 - y) * scale)
        return img[row, col].astype(int)

    red, green = (np.asarray(palette(3)) * 255).round().astype(int)[:2]
    np.testing.assert_array_equal(pixel(0, 0), [0, 0, 0])  # the depot
    np.testing.assert_array_equal(pixel(10, 0), [0, 0, 0])  # node 4, waiting
    np.testing.assert_array_equal(pixel(3, 4), red)  # node 1, served by vehicle 0
    np.testing.assert_array_equal(pixel(6, 8), green)  # node 2, served by vehicle 1
    # Vehicle 1's leg, depot -> node 2 (passing node 1), anti-aliased: green around (4.5, 6).
    col, row = int((4.5 + 0.4) * scale), int((10 + 0.4 - 6) * scale)
    window = img[row - 1 : row + 2, col - 1 : col + 2].reshape(-1, 3).astype(int)
    assert (np.abs(window - green).max(axis=1) <= 40).any(), window
    np.testing.assert_array_equal(pixel(8, 8), (np.asarray(C.BACKGROUND) * 255).round())
    # Before any step: no route, every customer black.
    assert not (
        np.abs(first[row - 1 : row + 2, col - 1 : col + 2].astype(int) - green).max(axis=-1) <= 40
    ).any()
    customer_pixels = [(int((x + 0.4) * scale), int((10.4 - y) * scale)) for x, y in COORDS[1:]]
    assert all((first[r, c] == 0).all() for c, r in customer_pixels)
    assert jax.eval_shape(lambda st: ENV.render(st, size=96), s).shape == (96, 96, 3)
    with pytest.raises(ValueError):
        ENV.render(s, size=8)
