"""Rule tests of RobotWarehouse on hand-built floors, generator invariants over thousands of
instances, configuration errors, a user generator, the conformance kit and rendering.

Most rules are played on a small floor (``shelf_rows=1, shelf_columns=3, column_height=2``),
5 x 10 cells, 8 shelves numbered row-major, goals at (4, 4) and (4, 5)::

    row 0   . . . . . . . . . .        . highway     # shelf home cell
    row 1   . # # . . . . # # .        shelves 0 1 (row 1, cols 1-2), 2 3 (cols 7-8)
    row 2   . # # . . . . # # .        shelves 4 5 (row 2, cols 1-2), 6 7 (cols 7-8)
    row 3   . . . . . . . . . .
    row 4   . . . . G G . . . .        G goal
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from fast_compile import COMPILER_OPTIONS

from jaxmarl.environments.jumanji.robot_warehouse import (
    REQUIRED_ATTRIBUTES,
    RandomGenerator,
    RobotWarehouse,
    State,
)
from jaxmarl.environments.jumanji.robot_warehouse import constants as C
from jaxmarl.environments.jumanji.robot_warehouse.generator import choose_distinct
from jaxmarl.testing import check_env

NOOP, FORWARD, LEFT, RIGHT, TOGGLE = C.NOOP, C.FORWARD, C.LEFT, C.RIGHT, C.TOGGLE_LOAD
UP, RIGHT_DIR, DOWN, LEFT_DIR = 0, 1, 2, 3
SMALL = dict(shelf_rows=1, shelf_columns=3, column_height=2, num_agents=2, request_queue_size=2)
ENV = RobotWarehouse(time_limit=50, **SMALL)
ENV3 = RobotWarehouse(**{**SMALL, "num_agents": 3})
HOMES = {s: tuple(int(v) for v in cell) for s, cell in enumerate(np.argwhere(~ENV.highways))}
STEP = jax.jit(ENV.step_env, compiler_options=COMPILER_OPTIONS)
OBS = jax.jit(ENV.get_obs, compiler_options=COMPILER_OPTIONS)
MASKS = jax.jit(ENV.get_avail_actions, compiler_options=COMPILER_OPTIONS)
KEY = jax.random.PRNGKey(0)


def floor(
    robots: list[tuple[int, int, int, bool]],
    queue: tuple[int, ...] = (0, 3),
    moved: dict[int, tuple[int, int]] | None = None,
    step: int = 0,
    env: RobotWarehouse = ENV,
) -> State:
    """A consistent state: robots ``(row, col, direction, carrying)`` in agent order, every
    shelf at home unless ``moved`` puts it elsewhere (a loaded robot's shelf must be moved
    to its cell)."""
    height, width = env.grid_size
    homes = {s: tuple(int(v) for v in cell) for s, cell in enumerate(np.argwhere(~env.highways))}
    homes.update(moved or {})
    shelf_grid = np.zeros((height, width), np.int32)
    for shelf, (r, c) in homes.items():
        shelf_grid[r, c] = shelf + 1
    agent_grid = np.zeros((height, width), np.int32)
    for i, (r, c, _, _) in enumerate(robots):
        agent_grid[r, c] = i + 1
    return State(
        agent_pos=jnp.asarray([[r, c] for r, c, _, _ in robots], jnp.int32),
        agent_dir=jnp.asarray([d for _, _, d, _ in robots], jnp.int32),
        agent_carrying=jnp.asarray([carry for *_, carry in robots], bool),
        agent_grid=jnp.asarray(agent_grid),
        shelf_grid=jnp.asarray(shelf_grid),
        request_queue=jnp.asarray(queue, jnp.int32),
        key=jax.random.PRNGKey(7),
        step=jnp.int32(step),
    )


def play(state: State, *acts: int):
    return STEP(KEY, state, {f"agent_{i}": jnp.int32(a) for i, a in enumerate(acts)})


def robots(state: State) -> list[tuple[int, int, int, bool]]:
    return [
        (int(p[0]), int(p[1]), int(d), bool(c))
        for p, d, c in zip(
            np.asarray(state.agent_pos),
            np.asarray(state.agent_dir),
            np.asarray(state.agent_carrying),
            strict=True,
        )
    ]


def shelf_at(state: State, cell: tuple[int, int]) -> int:
    """The shelf id on ``cell``, -1 for none."""
    return int(state.shelf_grid[cell]) - 1


# ---------------------------------------------------------------- moving and turning
@pytest.mark.parametrize(
    ("direction", "expected"), [(UP, (0, 3)), (RIGHT_DIR, (1, 4)), (DOWN, (2, 3)), (LEFT_DIR, (1, 2))]
)
def test_forward_moves_one_cell_the_way_the_robot_faces(direction, expected):
    _, state, *_ = play(floor([(1, 3, direction, False), (4, 0, UP, False)]), FORWARD, NOOP)
    assert robots(state)[0][:2] == expected
    assert int(state.agent_grid[expected]) == 1 and int(state.agent_grid[1, 3]) == 0


def test_forward_into_a_wall_stays_put_without_collision():
    obs, state, _, term, _ = play(floor([(0, 0, UP, False), (4, 9, RIGHT_DIR, False)]), FORWARD, FORWARD)
    assert robots(state) == [(0, 0, UP, False), (4, 9, RIGHT_DIR, False)]
    assert not bool(term["__all__"])


def test_turns_rotate_a_quarter_and_wrap():
    _, state, *_ = play(floor([(0, 0, UP, False), (0, 5, LEFT_DIR, False)]), LEFT, RIGHT)
    assert [r[2] for r in robots(state)] == [LEFT_DIR, UP]


def test_an_empty_robot_drives_under_shelves():
    _, state, *_ = play(floor([(0, 1, DOWN, False), (4, 0, UP, False)]), FORWARD, NOOP)
    assert robots(state)[0] == (1, 1, DOWN, False)
    assert shelf_at(state, (1, 1)) == 0


# ---------------------------------------------------------------- shelves
def test_toggle_picks_up_the_shelf_underneath_and_it_moves_with_the_robot():
    state = floor([(1, 1, UP, False), (4, 0, UP, False)])
    _, state, *_ = play(state, TOGGLE, NOOP)
    assert robots(state)[0] == (1, 1, UP, True)
    _, state, *_ = play(state, FORWARD, NOOP)
    assert robots(state)[0] == (0, 1, UP, True)
    assert shelf_at(state, (0, 1)) == 0 and shelf_at(state, (1, 1)) == -1


def test_toggle_on_an_empty_cell_picks_up_nothing():
    _, state, *_ = play(floor([(0, 1, UP, False), (4, 0, UP, False)]), TOGGLE, NOOP)
    assert robots(state)[0] == (0, 1, UP, False)


def test_a_shelf_can_only_be_put_down_off_the_highways():
    on_highway = floor([(0, 1, UP, True), (4, 0, UP, False)], moved={0: (0, 1)})
    for action in (TOGGLE, NOOP):
        _, state, *_ = play(on_highway, action, NOOP)
        assert robots(state)[0][3], action  # keeps it
    off_highway = floor([(1, 1, UP, True), (4, 0, UP, False)])
    for action in (TOGGLE, NOOP):  # Jumanji: a no-op off the highways puts the shelf down too
        _, state, *_ = play(off_highway, action, NOOP)
        assert not robots(state)[0][3], action
        assert shelf_at(state, (1, 1)) == 0


def test_turning_while_loaded_off_the_highways_keeps_the_shelf():
    _, state, *_ = play(floor([(1, 1, UP, True), (4, 0, UP, False)]), LEFT, NOOP)
    assert robots(state)[0] == (1, 1, LEFT_DIR, True)


# ---------------------------------------------------------------- action mask
def test_forward_is_masked_for_a_loaded_robot_facing_another_shelf():
    state = floor(
        [(0, 2, DOWN, True), (1, 1, RIGHT_DIR, False), (0, 0, UP, True)],
        moved={2: (0, 2), 3: (0, 0)},
        env=ENV3,
    )
    masks = jax.jit(ENV3.get_avail_actions)(state)
    # agent_0: loaded, facing shelf 1 at (1, 2); agent_1: empty, facing it too; agent_2:
    # loaded, facing the wall.
    assert masks["agent_0"].tolist() == [True, False, True, True, True]
    assert masks["agent_1"].tolist() == [True] * 5
    assert masks["agent_2"].tolist() == [True] * 5


def test_a_masked_forward_is_played_as_a_noop_which_puts_the_shelf_down_off_the_highways():
    state = floor([(1, 1, RIGHT_DIR, True), (4, 0, UP, False)])  # facing shelf 1 at (1, 2)
    assert not bool(MASKS(state)["agent_0"][FORWARD])
    _, after, *_ = play(state, FORWARD, NOOP)
    assert robots(after)[0] == (1, 1, RIGHT_DIR, False)
    assert shelf_at(after, (1, 2)) == 1 and shelf_at(after, (1, 1)) == 0


# ---------------------------------------------------------------- collisions
def test_moving_onto_a_robot_ends_the_episode():
    _, state, rew, term, info = play(floor([(0, 0, RIGHT_DIR, False), (0, 1, UP, False)]), FORWARD, NOOP)
    assert bool(term["__all__"]) and bool(term["agent_0"]) and bool(term["agent_1"])
    assert float(info["metrics"]["collision"]) == 1.0
    assert int(state.agent_grid[0, 1]) == 1  # agent_0 wrote over agent_1


def test_robots_move_in_agent_order_so_following_is_safe_only_behind_a_lower_index():
    # agent_0 steps into agent_1's cell, then agent_1 leaves it, clearing it: collision.
    _, _, _, term, _ = play(floor([(0, 0, RIGHT_DIR, False), (0, 1, RIGHT_DIR, False)]), FORWARD, FORWARD)
    assert bool(term["__all__"])
    # agent_0 leaves first, then agent_1 steps into the cell it left: no collision.
    _, state, _, term, _ = play(floor([(0, 1, RIGHT_DIR, False), (0, 0, RIGHT_DIR, False)]), FORWARD, FORWARD)
    assert not bool(term["__all__"])
    assert robots(state) == [(0, 2, RIGHT_DIR, False), (0, 1, RIGHT_DIR, False)]


def test_swapping_cells_is_a_collision():
    _, _, _, term, _ = play(floor([(0, 0, RIGHT_DIR, False), (0, 1, LEFT_DIR, False)]), FORWARD, FORWARD)
    assert bool(term["__all__"])


def test_the_collision_step_shows_jumanjis_view_of_the_overwritten_floor():
    # agent_0 drives onto agent_1: agent_1's own cell now shows agent_0 (facing right), so
    # agent_1's view gets a 5-block for its own cell (the 5th cell of its 3x3 view) and its
    # shelf features start 5 later, at 53.
    robots = [(0, 0, RIGHT_DIR, False), (0, 1, UP, False)]
    obs, state, *_ = play(floor(robots, queue=(1, 3)), FORWARD, NOOP)
    view = np.asarray(obs["agent_1"])
    assert view[28:33].tolist() == [1, 0, 1, 0, 0]
    # Shelves in agent_1's view: shelf 0 (not requested) in view cell 7, (1, 1), and shelf 1
    # (requested) in cell 8, (1, 2): their blocks would start at 53 + 14 and 53 + 16, past
    # the end; both are written at F - 2 = 64, the later one winning.
    assert view[64:66].tolist() == [1, 1]
    assert view[48:64].tolist() == [0] * 16


# ---------------------------------------------------------------- deliveries
def test_a_requested_shelf_on_a_goal_is_delivered_and_replaced_by_jumanjis_draw():
    state = floor([(4, 4, DOWN, True), (0, 9, UP, False)], queue=(0, 3), moved={0: (4, 4)})
    _, after, rew, term, info = play(state, NOOP, NOOP)
    assert [float(rew[a]) for a in ENV.agents] == [1.0, 1.0]
    assert float(info["metrics"]["deliveries"]) == 1.0 and not bool(term["__all__"])
    next_key, request_key = jax.random.split(state.key)
    not_requested = jnp.setdiff1d(jnp.arange(ENV.num_shelves), state.request_queue, size=6)
    expected = int(jax.random.choice(request_key, not_requested, replace=False))
    assert after.request_queue.tolist() == [expected, 3]
    assert np.array_equal(after.key, next_key)
    assert robots(after)[0] == (4, 4, DOWN, True)  # still there, still loaded, no longer requested
    _, again, rew, *_ = play(after, NOOP, NOOP)
    assert float(rew["agent_0"]) == (1.0 if expected == 0 else 0.0)


def test_an_unrequested_shelf_on_a_goal_scores_nothing_and_draws_nothing():
    state = floor([(4, 5, DOWN, True), (0, 9, UP, False)], queue=(1, 3), moved={0: (4, 5)})
    _, after, rew, *_ = play(state, NOOP, NOOP)
    assert float(rew["agent_1"]) == 0.0
    assert after.request_queue.tolist() == [1, 3] and np.array_equal(after.key, state.key)


def test_both_goals_deliver_in_one_step_in_goal_order():
    state = floor([(4, 5, UP, True), (4, 4, UP, True)], queue=(0, 3), moved={0: (4, 5), 3: (4, 4)})
    _, after, rew, *_ = play(state, NOOP, NOOP)
    assert float(rew["agent_0"]) == 2.0
    key, first = jax.random.split(state.key)
    key, second = jax.random.split(key)
    # goal (4, 4) first: shelf 3 is replaced, then shelf 0 at (4, 5).
    queue = np.array([0, 3])
    for k, shelf in ((first, 3), (second, 0)):
        free = np.setdiff1d(np.arange(8), queue)
        queue[queue == shelf] = int(jax.random.choice(k, jnp.asarray(free), replace=False))
    assert after.request_queue.tolist() == queue.tolist()
    assert np.array_equal(after.key, key)


# ---------------------------------------------------------------- observations
def test_observation_layout():
    # agent_0 at (1, 3) facing right; agent_1 at (1, 4) facing down, right of it; shelves 1
    # (requested) at (1, 2) and 5 at (2, 2) to its left; step 7 of 50.
    state = floor([(1, 3, RIGHT_DIR, False), (1, 4, DOWN, False)], queue=(1, 3), step=7)
    obs = np.asarray(OBS(state)["agent_0"])
    assert obs.shape == (67,) and obs.dtype == np.float32
    expected = np.zeros(67, np.float32)
    expected[:8] = [1, 3, 0, 0, 1, 0, 0, 1]  # (row, col), not loaded, facing right, on a highway
    expected[28:33] = [1, 0, 0, 1, 0]  # 5th other cell, (1, 4): a robot facing down
    expected[48 + 2 * 3 : 48 + 2 * 3 + 2] = [1, 1]  # view cell 3, (1, 2): shelf 1, requested
    expected[48 + 2 * 6 : 48 + 2 * 6 + 2] = [1, 0]  # view cell 6, (2, 2): shelf 5, not requested
    expected[66] = 7 / 50  # step_count / time_limit
    np.testing.assert_array_equal(obs, expected)
    assert bool(ENV.observation_space("agent_0").contains(OBS(state)["agent_0"]))


def test_global_state_holds_every_view_the_shelf_maps_and_the_step():
    state = floor([(1, 3, RIGHT_DIR, False), (1, 4, DOWN, False)], queue=(1, 3), step=7)
    g = np.asarray(jax.jit(ENV.get_global_state)(state))
    views = 2 * 66
    assert g.shape == (views + 2 * 50 + 1,) and g.dtype == np.float32
    np.testing.assert_array_equal(g[:66], np.asarray(OBS(state)["agent_0"])[:66])
    shelf_map, requested_map = (
        g[views : views + 50].reshape(5, 10),
        g[views + 50 : views + 100].reshape(5, 10),
    )
    assert shelf_map.sum() == 8 and requested_map.sum() == 2
    assert requested_map[1, 2] == 1 and requested_map[1, 8] == 1
    assert g[-1] == np.float32(7) / 50


# ---------------------------------------------------------------- episode end
SHORT = RobotWarehouse(time_limit=3, **SMALL)
SHORT_STEP = jax.jit(SHORT.step, compiler_options=COMPILER_OPTIONS)


def test_time_limit_truncates_and_resets():
    state = floor([(0, 0, UP, False), (0, 9, UP, False)], step=2)
    acts = {a: jnp.int32(NOOP) for a in SHORT.agents}
    obs, after, _, done, info = SHORT_STEP(KEY, state, acts)
    assert bool(done["__all__"]) and bool(info["truncated"]["agent_0"])
    assert int(after.step) == 0 and int(info["final_state"].step) == 3
    assert float(info["final_obs"]["agent_0"][-1]) == 1.0  # step_count / time_limit


def test_a_collision_on_the_last_step_is_a_termination():
    state = floor([(0, 0, RIGHT_DIR, False), (0, 1, UP, False)], step=2)
    acts = {"agent_0": jnp.int32(FORWARD), "agent_1": jnp.int32(NOOP)}
    _, _, _, done, info = SHORT_STEP(KEY, state, acts)
    assert bool(done["__all__"]) and not bool(info["truncated"]["agent_0"])


# ---------------------------------------------------------------- generators


def test_random_generator_invariants_over_many_instances():
    gen = RandomGenerator()  # RobotWarehouse-v0's instance
    states = jax.jit(jax.vmap(gen), compiler_options=COMPILER_OPTIONS)(jax.random.split(KEY, 4096))
    height, width = gen.grid_size
    pos = np.asarray(states.agent_pos)
    cells = pos[..., 0] * width + pos[..., 1]
    assert all(len(set(c)) == 4 for c in cells)  # distinct cells
    assert ((pos >= 0) & (pos < np.array([height, width]))).all()
    assert set(np.unique(cells)) == set(range(height * width))  # any cell, shelf cells included
    agent_grid = np.asarray(states.agent_grid)
    for i in range(4):
        assert (agent_grid[np.arange(4096), pos[:, i, 0], pos[:, i, 1]] == i + 1).all()
    assert ((agent_grid > 0).sum(axis=(1, 2)) == 4).all()
    homes = np.zeros((height, width), np.int32)
    homes[~gen.highways] = np.arange(1, gen.num_shelves + 1)
    assert (np.asarray(states.shelf_grid) == homes).all()
    queue = np.asarray(states.request_queue)
    assert all(len(set(q)) == 8 for q in queue) and queue.min() >= 0 and queue.max() < gen.num_shelves
    assert set(np.unique(queue)) == set(range(gen.num_shelves))
    assert set(np.unique(states.agent_dir)) == {0, 1, 2, 3}
    assert not np.asarray(states.agent_carrying).any() and (np.asarray(states.step) == 0).all()
    assert gen.num_shelves == 80 and gen.grid_size == (20, 10)
    assert gen.goals.tolist() == [[19, 4], [19, 5]]


def test_choose_distinct_equals_jax_random_choice():
    # (2000, 2) takes two sorts in JAX and (100, 70) many draws: both fall back to choice.
    cases = [(200, 4), (80, 8), (72, 1), (5, 5), (1, 1), (2000, 2), (100, 70)]

    def both(key):
        return [
            (choose_distinct(key, n, k), jax.random.choice(key, jnp.arange(n), (k,), replace=False))
            for n, k in cases
        ]

    draws = jax.jit(jax.vmap(both), compiler_options=COMPILER_OPTIONS)(jax.random.split(KEY, 500))
    for (n, k), (ours, theirs) in zip(cases, draws, strict=True):
        np.testing.assert_array_equal(ours, theirs, err_msg=f"n={n}, k={k}")


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"shelf_columns": 2}, "odd"),
        ({"shelf_rows": 1, "shelf_columns": 1}, "no shelf"),
        ({"shelf_rows": 0}, "shelf_rows"),
        ({"column_height": 0}, "column_height"),
        ({"num_agents": 0}, "num_agents"),
        ({"shelf_rows": 1, "shelf_columns": 3, "column_height": 1, "num_agents": 41}, "do not fit"),
        ({"request_queue_size": 80}, "below the number of shelves"),
        ({"request_queue_size": 0}, "request_queue_size"),
        ({"sensor_range": -1}, "sensor_range"),
        ({"num_agents": True}, "num_agents"),
        ({"num_agents": 2.0}, "num_agents"),
        ({"time_limit": 0}, "time_limit"),
    ],
)
def test_bad_configurations_raise_clear_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        RobotWarehouse(**kwargs)


def test_generator_and_generator_keywords_together_are_refused():
    with pytest.raises(TypeError, match="generator"):
        RobotWarehouse(generator=RandomGenerator(), num_agents=2)


def test_a_generator_missing_attributes_is_refused():
    class NoShelves:
        def __call__(self, key):
            raise AssertionError

    with pytest.raises(TypeError, match="num_shelves"):
        RobotWarehouse(generator=NoShelves())


class FixedStart:
    """A user's generator, no subclassing: always the same hand-made floor on SMALL's layout."""

    def __init__(self) -> None:
        layout = RandomGenerator(**SMALL)
        for name in REQUIRED_ATTRIBUTES:
            setattr(self, name, getattr(layout, name))

    def __call__(self, key: jax.Array) -> State:
        return floor([(4, 4, DOWN, True), (0, 9, UP, False)], queue=(0, 3), moved={0: (4, 4)}).replace(
            key=key
        )


def test_a_user_generator_works_without_subclassing():
    env = RobotWarehouse(generator=FixedStart(), time_limit=10)
    obs, state = jax.jit(env.reset, compiler_options=COMPILER_OPTIONS)(jax.random.PRNGKey(3))
    assert robots(state) == [(4, 4, DOWN, True), (0, 9, UP, False)]
    _, _, rew, _, _ = play(state, NOOP, NOOP)  # env's rules are ENV's: same layout and sizes
    assert float(rew["agent_0"]) == 1.0  # the first step delivers shelf 0


def test_a_generator_with_a_mismatched_layout_is_refused():
    gen = FixedStart()
    gen.highways = np.zeros((3, 3), bool)
    with pytest.raises(ValueError, match="highways"):
        RobotWarehouse(generator=gen)


def test_defaults_are_jumanjis_robot_warehouse_v0():
    env = RobotWarehouse()
    assert env.agents == ["agent_0", "agent_1", "agent_2", "agent_3"]
    assert env.max_steps == 500 and env.grid_size == (20, 10) and env.num_shelves == 80
    assert env.request_queue_size == 8 and env.sensor_range == 1
    assert env.observation_space("agent_0").shape == (67,)
    assert env.action_space("agent_3").n == 5


# ---------------------------------------------------------------- conformance and rendering
def test_check_env():
    check_env(RobotWarehouse(time_limit=12, **SMALL), num_envs=4, compiler_options=COMPILER_OPTIONS)


def test_render_draws_goals_shelves_and_robots():
    state = floor([(4, 4, UP, True), (0, 9, UP, False)], queue=(0, 3), moved={0: (4, 4)})
    render = jax.jit(ENV.render, static_argnums=1, compiler_options=COMPILER_OPTIONS)
    img = np.asarray(render(state, 100))
    c = 10  # 100 // 10 columns
    assert img.shape == (5 * c, 10 * c, 3) and img.dtype == np.uint8

    def pixel(row, col, dy=0.5, dx=0.5):
        return img[int((row + dy) * c), int((col + dx) * c)].tolist()

    def rgb(colour):
        return [round(v * 255) for v in colour]

    assert pixel(4, 5) == rgb(C.GOAL_COLOUR)  # the free goal
    assert pixel(1, 8) == rgb(C.SHELF_REQUESTED_COLOUR)  # shelf 3, requested
    assert pixel(1, 2) == rgb(C.SHELF_COLOUR)
    assert pixel(0, 5) == rgb(C.BACKGROUND)
    assert pixel(4, 4, dy=0.6) == rgb(C.AGENT_LOADED_COLOUR)  # below the tick, which points up
    assert pixel(4, 4, dy=0.3) == rgb(C.AGENT_DIRECTION_COLOUR)
    assert pixel(0, 9, dy=0.6) == rgb(C.AGENT_COLOUR)
    assert img[0, 0].tolist() == rgb(C.GRID_COLOUR)
    assert jax.eval_shape(lambda s: RobotWarehouse().render(s), RandomGenerator()(KEY)).shape == (500, 250, 3)
    with pytest.raises(ValueError, match="size"):
        ENV.render(state, 9)
