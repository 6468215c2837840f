"""Cleaner: the rules on hand-built states, the generator's invariants on thousands of
mazes, configuration errors, a user's generator, the conformance kit and rendering."""

import fast_compile
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from fast_compile import COMPILER_OPTIONS, fast_compilation

from jaxmarl.environments.jumanji.cleaner import Cleaner, RandomGenerator, State
from jaxmarl.environments.jumanji.cleaner.generator import maze_bounds
from jaxmarl.testing import check_env


@pytest.fixture(autouse=True, scope="module")
def _fast_compilation():
    with fast_compilation():  # also for the base class's own jax.jit of reset and step
        yield


D, K, W = 0, 1, 2  # dirty, clean, wall
UP, RIGHT, DOWN, LEFT = 0, 1, 2, 3

# A 4 x 5 maze (K: the clean start tile).
GRID = np.array(
    [
        [K, D, D, W, D],
        [D, W, D, W, D],
        [D, D, D, D, D],
        [W, W, D, W, D],
    ],
    np.int8,
)


class FixedGenerator:
    """A user's generator (no base class): always the same grid and start tiles."""

    def __init__(self, grid, locations):
        self.grid = np.asarray(grid, np.int8)
        self.locations = np.asarray(locations, np.int32)
        self.num_rows, self.num_cols = self.grid.shape
        self.num_agents = self.locations.shape[0]

    def __call__(self, key):
        del key
        return State(
            grid=jnp.asarray(self.grid),
            agents_locations=jnp.asarray(self.locations),
            step=jnp.zeros((), jnp.int32),
        )


def make(locations, grid=GRID, **kwargs):
    env = Cleaner(generator=FixedGenerator(grid, locations), **kwargs)
    return env, env.reset_env(jax.random.PRNGKey(0))[1]


_STEPS: dict = {}


def step(env, state, actions):
    """One transition without auto-reset; actions in agent order. Compiled once per
    configuration (the fixed generator only matters at reset)."""
    config = (env.num_rows, env.num_cols, env.num_agents, env.time_limit, env.penalty_per_timestep)
    if config not in _STEPS:
        _STEPS[config] = fast_compile.jit(env.step_env)
    acts = {a: jnp.int32(actions[i]) for i, a in enumerate(env.agents)}
    obs, state, reward, terminated, info = _STEPS[config](jax.random.PRNGKey(0), state, acts)
    return obs, state, np.array([reward[a] for a in env.agents]), terminated, info


def masks(env, state):
    return np.stack([np.asarray(m) for m in env.get_avail_actions(state).values()])


# ---------------------------------------------------------------------------- rules
def test_moves_clean_the_tiles_reached_and_reward_counts_them_minus_the_penalty():
    env, state = make([[0, 0], [2, 2]], penalty_per_timestep=0.5)
    _, state, reward, terminated, info = step(env, state, [RIGHT, UP])
    np.testing.assert_array_equal(state.agents_locations, [[0, 1], [1, 2]])
    expected = GRID.copy()
    expected[0, 1] = expected[1, 2] = K
    np.testing.assert_array_equal(state.grid, expected)
    np.testing.assert_array_equal(reward, [1.5, 1.5])
    assert reward.dtype == np.float32
    assert not bool(terminated["__all__"]) and int(state.step) == 1
    assert not any(bool(v) for v in info["illegal_move"].values())
    # A start tile is cleaned only once a cleaner stands on it after a step: (2, 2) now.
    _, state, reward, _, _ = step(env, state, [LEFT, DOWN])
    np.testing.assert_array_equal(state.agents_locations, [[0, 0], [2, 2]])
    np.testing.assert_array_equal(reward, [0.5, 0.5])
    # Moving over clean tiles cleans nothing: only the penalty.
    _, state, reward, _, _ = step(env, state, [RIGHT, UP])
    np.testing.assert_array_equal(reward, [-0.5, -0.5])


def test_cleaners_may_share_a_tile_which_counts_once():
    env, state = make([[0, 1], [1, 2]], penalty_per_timestep=0.25)
    _, state, reward, _, _ = step(env, state, [RIGHT, UP])  # both onto (0, 2)
    np.testing.assert_array_equal(state.agents_locations, [[0, 2], [0, 2]])
    assert state.grid[0, 2] == K
    np.testing.assert_allclose(reward, [0.75, 0.75])  # 1 tile - 0.25


def test_action_masks_forbid_walls_and_leaving_the_grid():
    env, state = make([[0, 0], [2, 1], [3, 4], [0, 2]])
    np.testing.assert_array_equal(
        masks(env, state),
        [
            [False, True, True, False],  # top-left corner
            [False, True, False, True],  # walls above and below
            [True, False, False, False],  # bottom-right corner, wall on the left
            [False, False, True, True],  # top edge, wall on the right
        ],
    )


def test_non_square_grids_keep_cleaners_inside():
    open_grid = np.zeros((3, 6), np.int8)
    env, state = make([[2, 0], [0, 5], [2, 5]], grid=open_grid)
    np.testing.assert_array_equal(
        masks(env, state),
        [[True, True, False, False], [False, False, True, True], [True, False, False, True]],
    )


def test_a_masked_move_stays_put_and_ends_the_episode_for_everyone():
    env, state = make([[0, 0], [2, 2]])
    _, state, reward, terminated, info = step(env, state, [UP, LEFT])  # up from row 0 is masked
    np.testing.assert_array_equal(state.agents_locations, [[0, 0], [2, 1]])  # the other one moves
    np.testing.assert_array_equal(reward, [0.5, 0.5])  # (2, 1) was cleaned
    assert all(bool(terminated[a]) for a in [*env.agents, "__all__"])
    assert bool(info["illegal_move"]["agent_0"]) and not bool(info["illegal_move"]["agent_1"])


def test_cleaning_the_last_dirty_tile_ends_the_episode():
    grid = np.array([[K, D], [W, K]], np.int8)
    env, state = make([[0, 0]], grid=grid, penalty_per_timestep=0.5)
    _, state, reward, terminated, info = step(env, state, [RIGHT])
    assert bool(terminated["__all__"]) and bool(terminated["agent_0"])
    np.testing.assert_array_equal(reward, [0.5])
    assert float(info["metrics"]["num_dirty_tiles"]) == 0.0
    assert float(info["metrics"]["ratio_dirty_tiles"]) == 0.0


def test_metrics_count_dirty_tiles_among_open_ones():
    env, state = make([[0, 0]])
    _, _, _, _, info = step(env, state, [DOWN])
    open_tiles = int(np.sum(GRID != W))
    dirty = int(np.sum(GRID == D)) - 1
    assert info["metrics"]["num_dirty_tiles"].dtype == jnp.float32
    assert float(info["metrics"]["num_dirty_tiles"]) == dirty
    np.testing.assert_allclose(float(info["metrics"]["ratio_dirty_tiles"]), dirty / open_tiles, rtol=1e-6)


def test_the_time_limit_truncates_unless_the_episode_terminates_on_that_step():
    env, state = make([[0, 0]], time_limit=5)
    assert env.max_steps == 5
    acts = {"agent_0": jnp.int32(DOWN)}
    _, _, _, done, info = env.step(jax.random.PRNGKey(1), state.replace(step=jnp.int32(3)), acts)
    assert not bool(done["__all__"])
    obs, after, _, done, info = env.step(jax.random.PRNGKey(1), state.replace(step=jnp.int32(4)), acts)
    assert bool(done["__all__"]) and bool(info["truncated"]["agent_0"])
    assert float(info["final_obs"]["agent_0"][-1]) == 1.0  # step / time_limit reached 1
    assert int(after.step) == 0  # reset
    # A masked move on the last step: terminated, not truncated.
    _, _, _, done, info = env.step(
        jax.random.PRNGKey(1), state.replace(step=jnp.int32(4)), {"agent_0": jnp.int32(UP)}
    )
    assert bool(done["__all__"]) and not bool(info["truncated"]["agent_0"])


def test_default_time_limit_is_the_number_of_tiles():
    assert Cleaner().max_steps == 100
    assert Cleaner(num_rows=6, num_cols=9).time_limit == 54


def test_a_state_without_its_mask_gets_one_computed():
    env, state = make([[0, 0], [2, 1]])
    bare = state.replace(action_mask=None)
    np.testing.assert_array_equal(masks(env, bare), masks(env, state))
    np.testing.assert_array_equal(env.compute_action_mask(state.replace(action_mask=None)), state.action_mask)
    _, after, reward, _, _ = step(env, bare, [DOWN, RIGHT])
    np.testing.assert_array_equal(after.agents_locations, [[1, 0], [2, 2]])
    np.testing.assert_array_equal(after.action_mask, env.compute_action_mask(after))


def test_an_out_of_range_action_acts_as_up():
    env, state = make([[2, 0]])
    _, state, _, done, info = env.step(jax.random.PRNGKey(0), state, {"agent_0": jnp.int32(7)})
    np.testing.assert_array_equal(state.agents_locations, [[1, 0]])
    assert bool(info["invalid_action"]["agent_0"]) and not bool(done["__all__"])


def test_observation_layout_and_global_state():
    env, state = make([[0, 0], [2, 3]], time_limit=50)
    state = state.replace(step=jnp.int32(7))
    obs = env.get_obs(state)
    R, C, A = 4, 5, 2
    assert env.obs_size == 3 + R * C + 2 * A
    time = np.float32(7) * np.float32(1 / 50)  # step / time_limit
    shared = np.concatenate([GRID.reshape(-1), [0, 0, 2, 3], [time]]).astype(np.float32)
    np.testing.assert_array_equal(obs["agent_0"], np.concatenate([[0, 0], shared]))
    np.testing.assert_array_equal(obs["agent_1"], np.concatenate([[2, 3], shared]))
    assert obs["agent_0"].dtype == jnp.float32
    np.testing.assert_array_equal(env.get_global_state(state), shared)
    space = env.observation_space("agent_0")
    assert space.shape == (env.obs_size,)
    np.testing.assert_array_equal(space.high[:2], [R - 1, C - 1])
    assert space.high[2] == W and space.high[-1] == 1.0  # step / time_limit
    assert all(bool(space.contains(o)) for o in obs.values())


# ----------------------------------------------------------------------- generator
def reachable(grid):
    """bool (R, C): open tiles reachable from (0, 0) (flood fill)."""
    open_ = grid != W
    R, C = grid.shape

    def grow(_, seen):
        pad = jnp.pad(seen, 1)
        near = pad[:-2, 1:-1] | pad[2:, 1:-1] | pad[1:-1, :-2] | pad[1:-1, 2:] | seen
        return near & open_

    return jax.lax.fori_loop(0, R * C, grow, jnp.zeros((R, C), bool).at[0, 0].set(True))


@pytest.mark.parametrize(("num_rows", "num_cols"), [(10, 10), (7, 12)])
def test_generated_mazes_keep_the_invariants(num_rows, num_cols):
    generator = RandomGenerator(num_rows, num_cols, 3)

    def facts(key):
        state = generator(key)
        grid = state.grid
        rows = jnp.arange(num_rows)[:, None]
        cols = jnp.arange(num_cols)[None, :]
        odd_line = (rows % 2 == 1) | (cols % 2 == 1)
        return {
            "start_clean": grid[0, 0] == K,
            "others_dirty_or_wall": jnp.all((grid == D) | (grid == W) | ((rows == 0) & (cols == 0))),
            "walls_on_odd_lines": jnp.all((grid != W) | odd_line),
            "even_tiles_open": jnp.all(odd_line | (grid != W)),
            "connected": jnp.all(reachable(grid) == (grid != W)),
            "agents_at_start": jnp.all(state.agents_locations == 0),
            "step_zero": state.step == 0,
            "num_walls": jnp.sum(grid == W),
        }

    keys = jax.random.split(jax.random.PRNGKey(1), 4096)
    out = jax.jit(jax.vmap(facts), compiler_options=COMPILER_OPTIONS)(keys)
    for name, ok in out.items():
        if name != "num_walls":
            assert bool(np.all(ok)), name
    assert len(np.unique(out["num_walls"])) > 3  # the mazes vary
    assert float(np.mean(out["num_walls"])) > 0.15 * num_rows * num_cols


def test_maze_bounds_small_grids():
    # 2 x 2: one wall, a passage; 4 x 4: at most 3 splits; corridors: one split.
    assert maze_bounds(2, 2) == (1, 1)
    assert maze_bounds(1, 9) == (1, 1)
    assert maze_bounds(4, 4)[0] == 3
    assert maze_bounds(10, 10) == (17, 5)


# -------------------------------------------------------------------- configuration
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_rows": 0}, "num_rows"),
        ({"num_cols": -3}, "num_cols"),
        ({"num_rows": 2.5}, "num_rows"),
        ({"num_agents": 0}, "num_agents"),
        ({"num_agents": True}, "num_agents"),
        ({"num_rows": 1, "num_cols": 1}, "at least 2 tiles"),
        ({"time_limit": 0}, "time_limit"),
        ({"time_limit": -1}, "time_limit"),
        ({"time_limit": 10.0}, "time_limit"),
        ({"penalty_per_timestep": float("nan")}, "penalty_per_timestep"),
        ({"penalty_per_timestep": "0.5"}, "penalty_per_timestep"),
    ],
)
def test_bad_configurations_raise(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Cleaner(**kwargs)


def test_generator_errors():
    with pytest.raises(TypeError, match="generator keywords"):
        Cleaner(generator=RandomGenerator(5, 5, 2), num_agents=3)

    class NoSize:
        num_agents = 2

        def __call__(self, key):
            return None

    with pytest.raises(TypeError, match="num_rows"):
        Cleaner(generator=NoSize())
    wrong = FixedGenerator(GRID, [[0, 0]])
    wrong.num_agents = 2  # announces two cleaners, makes one
    with pytest.raises(ValueError, match="agents_locations"):
        Cleaner(generator=wrong)


def test_a_user_generator_without_subclassing_passes_the_conformance_kit():
    grid = np.zeros((3, 5), np.int8)  # non-square, as a check of the observation bounds
    grid[1, 1] = grid[1, 3] = W
    env = Cleaner(generator=FixedGenerator(grid, [[2, 4], [0, 0]]), time_limit=12)
    obs, state = env.reset(jax.random.PRNGKey(0))
    np.testing.assert_array_equal(obs["agent_0"][:2], [2, 4])
    np.testing.assert_array_equal(masks(env, state), [[True, False, False, True], [False, True, True, False]])
    check_env(env, num_envs=4, num_steps=30, expect_random_reset=False, compiler_options=COMPILER_OPTIONS)


def test_conformance():
    check_env(Cleaner(), num_envs=8, num_steps=60, compiler_options=COMPILER_OPTIONS)


# ----------------------------------------------------------------------- rendering
def test_render_draws_tiles_and_cleaners_in_jumanji_colours():
    env, state = make([[0, 0], [0, 0], [2, 2]])
    image = jax.jit(env.render, static_argnums=1)(state, 100)  # 20 pixels per tile
    assert image.shape == (80, 100, 3) and image.dtype == jnp.uint8

    def centre(row, col):
        return tuple(int(v) for v in image[row * 20 + 10, col * 20 + 10])

    assert centre(0, 1) == (0, 255, 0)  # dirty: green
    assert centre(1, 1) == (0, 0, 0)  # wall: black
    assert centre(2, 2) == (255, 128, 128)  # one cleaner: red at 50% over white
    assert centre(0, 0) == (255, 64, 64)  # two cleaners: red at 75%
    assert tuple(int(v) for v in image[0, 50]) == (0, 0, 0)  # the frame
    after = env.render(state.replace(grid=state.grid.at[0, 1].set(K)), 100)
    assert tuple(int(v) for v in after[10, 30]) == (255, 255, 255)  # clean: white


def test_render_size_rule_and_batches():
    env = Cleaner(num_rows=5, num_cols=8, num_agents=2)
    state = jax.eval_shape(env.generator, jax.random.PRNGKey(0))
    assert jax.eval_shape(lambda s: env.render(s, 100), state).shape == (60, 96, 3)  # 12-pixel tiles
    env, state = make([[0, 0], [1, 2]])
    batch = jax.tree.map(lambda x: jnp.stack([x] * 3), state)
    images = jax.jit(jax.vmap(lambda s: env.render(s, 64)))(batch)
    assert images.shape == (3, 48, 60, 3)  # 12-pixel tiles on 4 x 5
    with pytest.raises(ValueError):
        env.render(state, 4)  # fewer pixels than tiles on the longer side
