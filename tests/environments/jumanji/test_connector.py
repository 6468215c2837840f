"""Connector's rules on hand-drawn boards (moves, collisions, masks, rewards, episode
ends, observations, metrics), the generators' guarantees on thousands of instances, bad
configurations, users' generators, the conformance kit and the renderer.

Pictures list the rows from the top (row 0); a cell is ``.`` (empty), ``hK`` (agent K's
head), ``tK`` (its target), ``wK`` (its wire) or ``cK`` (its head on its target:
connected).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from fast_compile import COMPILER_OPTIONS
from fast_compile import jit as fast_jit

import jaxmarl
from jaxmarl.environments.jumanji.connector import (
    DOWN,
    LEFT,
    NOOP,
    RIGHT,
    UP,
    ClusterGenerator,
    Connector,
    DenseRewardFn,
    ExplosionGenerator,
    LinearCompressionGenerator,
    RandomWalkGenerator,
    SharedDenseRewardFn,
    SharedSparseRewardFn,
    SparseRewardFn,
    State,
    UniformRandomGenerator,
    initial_state,
)
from jaxmarl.environments.jumanji.connector.rules import action_masks
from jaxmarl.environments.jumanji.connector.viewer import agent_colours
from jaxmarl.testing import check_env

KEY = jax.random.PRNGKey(0)
CODES = {"w": 1, "h": 2, "t": 3}


class FixedBoard:
    """A user generator without any base class: always the same 5 x 5 board, 3 wires."""

    grid_size = 5
    num_agents = 3

    def __call__(self, key: jax.Array) -> State:
        del key
        heads = jnp.array([[0, 0], [4, 4], [2, 0]])
        targets = jnp.array([[0, 4], [4, 0], [2, 4]])
        return initial_state(heads, targets, self.grid_size)


ENV = Connector(generator=FixedBoard(), time_limit=6)  # 5 x 5, 3 agents
STEP = fast_jit(ENV.step)
STEP_ENV = fast_jit(ENV.step_env)


def board(picture: str, step: int = 0) -> State:
    rows = [line.split() for line in picture.strip().splitlines()]
    size = len(rows)
    grid = np.zeros((size, size), np.int32)
    heads, targets = {}, {}
    for r, cells in enumerate(rows):
        for c, cell in enumerate(cells):
            if cell == ".":
                continue
            kind, agent = cell[0], int(cell[1:])
            code = CODES["h" if kind == "c" else kind]
            grid[r, c] = 3 * agent + code
            if kind in "hc":
                heads[agent] = (r, c)
            if kind in "tc":
                targets[agent] = (r, c)
    n = len(heads)
    position = jnp.asarray([heads[i] for i in range(n)], jnp.int32)
    target = jnp.asarray([targets[i] for i in range(n)], jnp.int32)
    grid = jnp.asarray(grid)
    return State(grid, position, target, action_masks(grid, position, target), jnp.int32(step))


def acts(*actions: int) -> dict[str, jax.Array]:
    return {f"agent_{i}": jnp.int32(a) for i, a in enumerate(actions)}


def stack(values: dict) -> np.ndarray:
    return np.asarray([values[f"agent_{i}"] for i in range(len(values) - ("__all__" in values))])


START = """
h0 .  .  .  t0
.  .  .  .  .
h2 .  .  .  t2
.  .  .  .  .
t1 .  .  .  h1
"""


# --------------------------------------------------------------------------- moves
def test_a_move_leaves_a_wire_and_the_head_advances():
    _, state, *_ = STEP_ENV(KEY, board(START), acts(RIGHT, UP, DOWN))
    expected = board(
        """
        w0 h0 .  .  t0
        .  .  .  .  .
        w2 .  .  .  t2
        h2 .  .  .  h1
        t1 .  .  .  w1
        """,
        step=1,
    )
    np.testing.assert_array_equal(state.grid, expected.grid)
    np.testing.assert_array_equal(state.position, [[0, 1], [3, 4], [3, 0]])
    np.testing.assert_array_equal(state.action_mask, expected.action_mask)
    assert int(state.step) == 1


def test_heads_entering_one_cell_the_highest_index_wins():
    state = board(
        """
        t0 .  .  .  t1
        .  .  h0 .  .
        .  h2 .  h1 .
        .  .  .  .  .
        .  .  t2 .  .
        """
    )
    # All three head for (2, 2): agent 2 (the highest index) enters, 0 and 1 stay.
    _, new, *_ = STEP_ENV(KEY, state, acts(DOWN, LEFT, RIGHT))
    np.testing.assert_array_equal(new.position, [[1, 2], [2, 3], [2, 2]])
    assert int(new.grid[2, 2]) == 3 * 2 + 2 and int(new.grid[2, 1]) == 3 * 2 + 1
    assert int(new.grid[1, 2]) == 2 and int(new.grid[2, 3]) == 3 + 2  # unchanged heads
    assert int(jnp.sum(new.grid > 0)) == int(jnp.sum(state.grid > 0)) + 1  # one wire cell more


def test_illegal_and_out_of_range_actions_do_nothing():
    state = board(
        """
        h0 w1 h1 .  t0
        .  .  .  .  .
        t1 .  .  .  .
        .  .  .  .  .
        t2 .  .  .  h2
        """
    )
    # agent 0: up leaves the grid; agent 1: left is its own wire; agent 2: right leaves it.
    _, new, *_ = STEP_ENV(KEY, state, acts(UP, LEFT, RIGHT))
    np.testing.assert_array_equal(new.grid, state.grid)
    np.testing.assert_array_equal(new.position, state.position)
    # Entering another wire's target or wire is illegal too.
    _, new, *_ = STEP_ENV(KEY, state, acts(RIGHT, NOOP, NOOP))
    np.testing.assert_array_equal(new.grid, state.grid)
    # An action outside 0..4 acts as the no-op and is flagged.
    _, new, _, _, info = STEP(KEY, state, acts(7, -1, LEFT))
    np.testing.assert_array_equal(stack(info["invalid_action"]), [True, True, False])
    np.testing.assert_array_equal(new.position, [[0, 0], [0, 2], [4, 3]])


def test_action_masks():
    state = board(
        """
        h0 t0 .  .  .
        w1 .  .  .  .
        h1 t2 .  .  .
        .  .  .  .  .
        .  .  c2 .  t1
        """
    )
    masks = stack(ENV.get_avail_actions(state))
    #                       noop    up     right  down   left
    np.testing.assert_array_equal(
        masks,
        [
            [True, False, True, False, False],  # own target right; wire below; edges
            [True, False, False, True, False],  # own wire up, agent 2's target right
            [True, False, False, False, False],  # connected: only the no-op
        ],
    )


# ----------------------------------------------------------------- rewards and ends
def test_connecting_rewards_and_per_agent_ends():
    state = board(
        """
        h0 t0 .  .  .
        w0 w2 w2 w2 .
        t1 w2 h2 w2 t2
        .  w2 w2 w2 .
        .  .  .  .  h1
        """
    )
    obs, new, reward, done, info = STEP(KEY, state, acts(RIGHT, LEFT, NOOP))
    # agent 0 connects: +1 - 0.03; agent 1 moves on: -0.03; agent 2 is blocked: -0.03.
    np.testing.assert_allclose(stack(reward), [0.97, -0.03, -0.03], rtol=0, atol=1e-7)
    np.testing.assert_array_equal(stack(done), [True, False, True])
    assert not bool(done["__all__"]) and not np.any(stack(info["truncated"]))
    np.testing.assert_array_equal(new.connected, [True, False, False])
    # Next step: the connected wire earns nothing, the blocked one keeps paying.
    _, _, reward, done, _ = STEP(KEY, new, acts(NOOP, LEFT, NOOP))
    np.testing.assert_allclose(stack(reward), [0.0, -0.03, -0.03], rtol=0, atol=1e-7)
    assert int(info["metrics"]["num_connections"]) == 1
    np.testing.assert_allclose(info["metrics"]["ratio_connections"], 1 / 3)
    # Wire cells (1 + 8 before, 2 left behind in this step) plus the three heads.
    assert int(info["metrics"]["total_path_length"]) == 1 + 8 + 2 + 3


def test_episode_terminates_when_every_wire_is_connected_or_blocked():
    state = board(
        """
        h0 t0 .  .  .
        .  .  .  .  .
        t1 h1 .  .  .
        w2 w2 w2 w2 .
        c2 .  .  .  .
        """
    )
    _, new, _, done, info = STEP(KEY, state, acts(RIGHT, LEFT, NOOP))
    assert bool(done["__all__"]) and not np.any(stack(info["truncated"]))
    assert int(info["metrics"]["num_connections"]) == 3
    assert int(info["final_state"].step) == 1
    np.testing.assert_array_equal(new.grid, ENV.reset(KEY)[1].grid)  # reset automatically


def test_time_limit_truncates_agents_not_done():
    state = board(
        """
        h0 .  .  .  t0
        .  .  .  .  .
        w2 w2 w2 w2 c2
        .  .  .  .  .
        t1 .  .  .  h1
        """,
        step=ENV.time_limit - 1,
    )
    _, _, _, done, info = STEP(KEY, state, acts(NOOP, NOOP, NOOP))
    assert bool(done["__all__"])
    np.testing.assert_array_equal(stack(info["truncated"]), [True, True, False])


@pytest.mark.parametrize(
    ("reward_fn", "expected"),
    [
        (DenseRewardFn(connected_reward=2.0, timestep_reward=-0.5), [1.5, -0.5, -0.5]),
        (SharedDenseRewardFn(), [0.91] * 3),
        (SparseRewardFn(), [1.0, 0.0, 0.0]),
        (SharedSparseRewardFn(), [1.0] * 3),
    ],
)
def test_reward_functions(reward_fn, expected):
    state = board(
        """
        h0 t0 .  .  .
        .  .  .  .  .
        t1 .  h1 .  .
        .  .  .  .  .
        .  .  t2 .  h2
        """
    )
    action = acts(RIGHT, LEFT, LEFT)
    _, next_state, default_reward, _, _ = STEP_ENV(KEY, state, action)  # agent 0 connects
    np.testing.assert_allclose(stack(default_reward), [0.97, -0.03, -0.03], rtol=0, atol=1e-7)
    reward = reward_fn(state, stack(action), next_state)
    np.testing.assert_allclose(reward, expected, rtol=0, atol=1e-6)
    assert Connector(generator=FixedBoard(), reward_fn=reward_fn).reward_fn is reward_fn


# ------------------------------------------------------------------ observations
def test_each_agent_sees_itself_as_agent_zero():
    state = board(START, step=3)
    obs = ENV.get_obs(state)
    grid = np.asarray(state.grid)
    assert obs["agent_0"].shape == (26,) and obs["agent_0"].dtype == jnp.float32
    np.testing.assert_array_equal(obs["agent_0"][:25], grid.reshape(-1))  # Jumanji's grid
    views = {i: np.asarray(obs[f"agent_{i}"][:25]).reshape(5, 5) for i in range(3)}
    # agent 1 sees itself as 1, 2, 3, agent 2 as 4, 5, 6 and agent 0 as 7, 8, 9.
    assert views[1][4, 4] == 2 and views[1][4, 0] == 3 and views[1][2, 0] == 5 and views[1][0, 0] == 8
    assert views[2][2, 0] == 2 and views[2][2, 4] == 3 and views[2][0, 0] == 5 and views[2][4, 4] == 8
    assert all(np.array_equal(views[i] == 0, grid == 0) for i in range(3))
    time = np.float32(3) * np.float32(1 / 6)  # step / time_limit
    assert all(float(obs[f"agent_{i}"][25]) == time for i in range(3))
    assert all(bool(ENV.observation_space(f"agent_{i}").contains(obs[f"agent_{i}"])) for i in range(3))
    global_state = ENV.get_global_state(state)
    np.testing.assert_array_equal(global_state, np.append(grid.reshape(-1), time).astype(np.float32))


# ------------------------------------------------------------------- generators
FAR = 10**6


def route_lengths(solved: np.ndarray, target: np.ndarray, steps: int) -> np.ndarray:
    """int (B, N, G, G): moves from each cell to the agent's target along the agent's own
    cells of the solved grids (``FAR`` where there is no such route within ``steps``)."""
    batch, n = target.shape[:2]
    codes = 3 * np.arange(n)[None, :, None, None]
    own = (solved[:, None] > codes) & (solved[:, None] <= codes + 3)  # (B, N, G, G)
    dist = np.full(own.shape, FAR)
    dist[np.arange(batch)[:, None], np.arange(n)[None], target[..., 0], target[..., 1]] = 0
    for _ in range(steps):
        pad = np.pad(dist, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=FAR)
        near = np.minimum.reduce(
            [pad[..., :-2, 1:-1], pad[..., 2:, 1:-1], pad[..., 1:-1, :-2], pad[..., 1:-1, 2:]]
        )
        dist = np.where(own, np.minimum(dist, near + 1), FAR)
    return dist


def follow_routes(env: Connector, state: State, dist: jax.Array, steps: int) -> State:
    """Play ``steps`` steps, every head moving to its neighbour nearest its target."""
    n, size = env.num_agents, env.grid_size
    moves = jnp.array([[-1, 0], [0, 1], [1, 0], [0, -1]])  # actions 1..4
    agents = jnp.arange(n)

    def step(state, _):
        nxt = state.position[:, None, :] + moves[None]
        inside = jnp.all((nxt >= 0) & (nxt < size), axis=-1)
        near = dist[agents[:, None], jnp.clip(nxt[..., 0], 0, size - 1), jnp.clip(nxt[..., 1], 0, size - 1)]
        near = jnp.where(inside, near, FAR)
        here = dist[agents, state.position[:, 0], state.position[:, 1]]
        action = jnp.where(jnp.min(near, axis=1) < here, 1 + jnp.argmin(near, axis=1), NOOP)
        _, state, _, _, _ = env.step_env(KEY, state, {a: action[i] for i, a in enumerate(env.agents)})
        return state, None

    return jax.lax.scan(step, state, None, steps)[0]


def instance_checks(generator, num: int = 2048, play: bool = False) -> dict[str, np.ndarray]:
    """Draw ``num`` instances in one jitted call and check each (in NumPy): valid (distinct
    cells, nothing else on the grid) and, for the random-walk generators,
    solvable: each wire's own cells of the solution join its head to its target (the codes
    keep wires disjoint), every walk is at most ``max_steps`` moves; the share of heads and
    targets inside the region; with ``play``, whether following the routes in the env
    connects every wire."""
    n, size = generator.num_agents, generator.grid_size
    keys = jax.random.split(jax.random.PRNGKey(3), num)
    walks = hasattr(generator, "generate")

    def draw(key):
        if not walks:
            return generator(key), None, None
        state, solved = generator.generate(key)
        return state, solved, generator.region(jax.random.split(key)[0])  # the region it drew

    state, solved, regions = jax.tree.map(np.asarray, fast_jit(jax.vmap(draw))(keys))
    batch = np.arange(num)[:, None]
    cells = np.concatenate([state.position, state.target], axis=1)  # (B, 2N, 2)
    flat = cells[..., 0] * size + cells[..., 1]
    distinct = np.sum(flat[:, :, None] == flat[:, None, :], axis=(1, 2)) == 2 * n
    codes = np.concatenate([3 * np.arange(n) + 2, 3 * np.arange(n) + 3])
    on_grid = np.all(state.grid[batch, cells[..., 0], cells[..., 1]] == codes, axis=1)
    nothing_else = np.sum(state.grid > 0, axis=(1, 2)) == 2 * n
    out = {"valid": distinct & on_grid & nothing_else & (state.step == 0)}
    if walks:
        dist = route_lengths(solved, state.target, generator.max_steps + 1)
        route = dist[batch, np.arange(n)[None], state.position[..., 0], state.position[..., 1]]
        heads_and_targets = np.where((solved % 3 == 1) | (solved == 0), 0, solved)
        out["solvable"] = np.all(route <= generator.max_steps, axis=1) & np.all(
            heads_and_targets == state.grid, axis=(1, 2)
        )
        wire_cells = np.sum(solved[:, None] == 3 * np.arange(n)[None, :, None, None] + 1, axis=(2, 3))
        out["short_enough"] = np.all(wire_cells + 1 <= generator.max_steps, axis=1)
        if regions is not None:
            out["inside"] = np.mean(regions[batch, cells[..., 0], cells[..., 1]], axis=1)
        if play:
            env = Connector(generator=generator, time_limit=generator.max_steps)
            played = fast_jit(jax.vmap(lambda s, d: follow_routes(env, s, d, generator.max_steps).connected))
            out["played"] = np.all(np.asarray(played(state, dist)), axis=1)
    return out


def test_cell_draws_match_jax_random_choice():
    """The generators' draw of a True cell (without a cumsum) is jax.random.choice's."""
    from jaxmarl.environments.jumanji.connector.generator import _choose

    def both(key, density):
        out = []
        for size in (4, 1089):  # one word; 35 words (a 33 x 33 grid)
            key_mask, key_draw = jax.random.split(jax.random.fold_in(key, size))
            mask = jax.random.bernoulli(key_mask, density, (size,)).at[size // 2].set(True)
            out.append((_choose(key_draw, mask), jax.random.choice(key_draw, size, p=mask)))
        return out

    draws = fast_jit(jax.vmap(both))(jax.random.split(KEY, 512), jnp.linspace(0.0, 1.0, 512))
    for ours, theirs in draws:
        np.testing.assert_array_equal(ours, theirs)


def test_jumanji_generators_valid_and_random_walks_solvable():
    uniform = instance_checks(UniformRandomGenerator(6, 18))  # 36 cells, all taken
    assert uniform["valid"].all()
    walk = instance_checks(RandomWalkGenerator(), play=True)
    assert walk["valid"].all() and walk["solvable"].all() and walk["short_enough"].all()
    assert walk["played"].all()  # the solutions connect every wire in the env
    # At the edge of the placement guarantee: 4 N - 3 = 25 cells on 5 x 5.
    dense = instance_checks(RandomWalkGenerator(5, 7, temperature=3.0))
    assert dense["valid"].all() and dense["solvable"].all()


@pytest.mark.parametrize(
    ("generator", "roomy"),
    [
        (ClusterGenerator(), True),
        (LinearCompressionGenerator(width=2.0), False),
        (ExplosionGenerator(), True),
    ],
    ids=["cluster", "linear_tight", "explosion"],
)
def test_paper_generators_valid_solvable_and_inside_their_regions(generator, roomy):
    checks = instance_checks(generator)
    assert checks["valid"].all() and checks["solvable"].all() and checks["short_enough"].all()
    inside = checks["inside"]
    if roomy:  # the default sizes leave room: every head and target is in the region
        assert (inside == 1).all(), inside.mean()
    else:  # a 2-cell band fills up: the last heads go anywhere, the instance stays valid
        assert 0.85 < inside.mean() < 0.99 and (inside < 1).mean() > 0.3, inside.mean()


def test_regions_have_the_papers_shapes():
    key = jax.random.PRNGKey(1)
    rows, cols = np.mgrid[0:12, 0:12]
    disc = np.asarray(ClusterGenerator(12, 4, radius=2.5, center=(4.0, 6.0)).region(key))
    np.testing.assert_array_equal(disc, (rows - 4.0) ** 2 + (cols - 6.0) ** 2 <= 2.5**2)
    band = np.asarray(LinearCompressionGenerator(12, 4, width=2.0, angle=0.0, anchor=(5.0, 5.0)).region(key))
    np.testing.assert_array_equal(band, np.abs(rows - 5.0) <= 1.0)  # a horizontal band
    band = np.asarray(
        LinearCompressionGenerator(12, 4, width=1.0, angle=np.pi / 4, anchor=(5.0, 5.0)).region(key)
    )
    np.testing.assert_array_equal(band, rows == cols)  # the diagonal through (5, 5)
    hole = np.asarray(ExplosionGenerator(12, 4, radius=3.0, center=(0.0, 11.0)).region(key))
    np.testing.assert_array_equal(hole, (rows - 0.0) ** 2 + (cols - 11.0) ** 2 > 9.0)
    # Without a fixed centre, every instance draws its own, keeping the whole disc on the grid.
    regions = np.asarray(jax.vmap(ClusterGenerator(12, 4, radius=3.0).region)(jax.random.split(key, 64)))
    assert len({r.tobytes() for r in regions}) > 32
    assert not regions[:, [0, -1], :].any() and not regions[:, :, [0, -1]].any()


def test_the_issues_example_with_the_conformance_kit():
    generator = jaxmarl.environments.jumanji.connector.ClusterGenerator(grid_size=8, num_agents=4, radius=2.5)
    env = jaxmarl.make("Connector-v3", generator=generator, time_limit=12)
    assert env.num_agents == 4 and env.observation_space("agent_0").shape == (65,)
    check_env(env, num_envs=4, compiler_options=COMPILER_OPTIONS)


# --------------------------------------------------------------- configuration
@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: RandomWalkGenerator(4, 5), "4 \\* num_agents - 3"),
        (lambda: UniformRandomGenerator(3, 5), "2 \\* num_agents = 10"),
        (lambda: RandomWalkGenerator(1, 1), "grid_size must be an integer >= 2"),
        (lambda: RandomWalkGenerator(10, 0), "num_agents must be an integer >= 1"),
        (lambda: RandomWalkGenerator(temperature=0.0), "temperature"),
        (lambda: RandomWalkGenerator(max_steps=0), "max_steps"),
        (lambda: ClusterGenerator(10, 10, radius=1.0), "radius=1 leaves a region of at most 4 cells"),
        (lambda: ClusterGenerator(center=(3.0, 10.0)), "center must be a \\(row, col\\) pair inside"),
        (lambda: LinearCompressionGenerator(10, 10, width=0.5), "width=0.5 leaves a region"),
        (lambda: LinearCompressionGenerator(angle=float("nan")), "angle"),
        (lambda: ExplosionGenerator(6, 8, radius=5.5), "radius=5.5 leaves a region"),
        (lambda: Connector(time_limit=0), "time_limit"),
        (lambda: Connector(grid_size=3, num_agents=4), "4 \\* num_agents - 3"),
    ],
)
def test_bad_configurations_raise_value_errors(build, message):
    with pytest.raises(ValueError, match=message):
        build()


def test_generator_protocol_errors():
    with pytest.raises(TypeError, match="generator keywords"):
        Connector(generator=FixedBoard(), grid_size=5)
    with pytest.raises(TypeError, match="lacks num_agents"):
        Connector(generator=type("NoAgents", (), {"grid_size": 5, "__call__": lambda self, key: None})())
    with pytest.raises(TypeError, match="reward_fn must be callable"):
        Connector(reward_fn=1.0)
    with pytest.raises(TypeError, match="unexpected keyword"):
        Connector(max_steps=10)


def test_default_generator_keywords():
    env = Connector(grid_size=6, num_agents=3, temperature=2.0, walk_max_steps=4, time_limit=12)
    assert isinstance(env.generator, RandomWalkGenerator)
    assert (env.generator.grid_size, env.generator.num_agents) == (6, 3)
    assert (env.generator.temperature, env.generator.max_steps, env.max_steps) == (2.0, 4, 12)
    default = Connector()
    assert (default.grid_size, default.num_agents, default.time_limit) == (10, 10, 50)
    assert default.generator.max_steps == 15 and default.observation_space("agent_0").shape == (101,)


# ------------------------------------------------------------------------ render
def test_render_draws_heads_wires_and_targets():
    state = board(
        """
        h0 w0 .  .  .
        .  w0 .  .  .
        .  t0 .  .  t1
        .  .  .  .  .
        h1 .  .  .  .
        """
    )
    image = np.asarray(jax.jit(ENV.render, static_argnames="size")(state, size=103))
    assert image.shape == (100, 100, 3) and image.dtype == np.uint8  # 20 pixels per cell
    colours = np.round(agent_colours(3) * 255)
    centre = lambda r, c: image[20 * r + 10, 20 * c + 10].astype(float)  # noqa: E731
    np.testing.assert_array_equal(centre(0, 0), colours[0])  # agent 0's head
    np.testing.assert_array_equal(centre(4, 0), colours[1])  # agent 1's head
    np.testing.assert_array_equal(centre(2, 1), colours[0])  # agent 0's target: inner square
    np.testing.assert_array_equal(image[20 * 2 + 2, 20 * 1 + 2], [255, 255, 255])  # ... in white
    np.testing.assert_allclose(centre(1, 1), np.round(255 * (0.25 * colours[0] / 255 + 0.75)), atol=1)
    np.testing.assert_array_equal(centre(3, 3), [255, 255, 255])  # empty
    np.testing.assert_array_equal(image[20, 50], [0, 0, 0])  # a cell edge
    assert jax.eval_shape(lambda s: ENV.render(s, size=64), state).shape == (60, 60, 3)
