"""Rule tests of LevelBasedForaging on hand-drawn worlds, with exact asserts: moves,
blocked moves and collisions, loading, rewards (normalised, raw, penalty), masks, both
observers, the global state, episode ends and ``percent_eaten``; generator invariants on
thousands of instances; bad configurations; a user's generator; ``check_env``; rendering.

Pictures list the grid's rows from the top (row 0); a cell is ``.``, a digit (that agent)
or a letter (food: ``a`` is item 0, ``b`` item 1, ...).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from fast_compile import COMPILER_OPTIONS
from fast_compile import jit as fast_jit

from jaxmarl.environments.jumanji.lbf import (
    DOWN,
    LEFT,
    LOAD,
    NOOP,
    RIGHT,
    UP,
    LevelBasedForaging,
    RandomGenerator,
    State,
)
from jaxmarl.environments.jumanji.lbf import constants as C
from jaxmarl.testing import check_env

KEY = jax.random.PRNGKey(0)


class Fixed:
    """A user's generator, no subclassing: always the same state."""

    def __init__(self, state: State, fov: int | None = None, max_agent_level: int = 3) -> None:
        self.state = state
        self.grid_size = GRID
        self.fov = GRID if fov is None else fov
        self.num_agents = int(state.agent_pos.shape[0])
        self.num_food = int(state.food_pos.shape[0])
        self.max_agent_level = max_agent_level

    def __call__(self, key: jax.Array) -> State:
        del key
        return self.state


GRID = 6


def world(picture: str, agent_level=None, food_level=None, eaten=(), step: int = 0) -> State:
    rows = picture.split()
    assert len(rows) == GRID and all(len(r) == GRID for r in rows)
    agents, food = {}, {}
    for r, row in enumerate(rows):
        for c, cell in enumerate(row):
            if cell.isdigit():
                agents[int(cell)] = (r, c)
            elif cell.isalpha():
                food[ord(cell) - ord("a")] = (r, c)
    n, f = len(agents), len(food)
    agent_level = [1] * n if agent_level is None else agent_level
    food_level = [1] * f if food_level is None else food_level
    return State(
        agent_pos=jnp.asarray([agents[i] for i in range(n)], jnp.int32),
        agent_level=jnp.asarray(agent_level, jnp.int32),
        food_pos=jnp.asarray([food[i] for i in range(f)], jnp.int32),
        food_level=jnp.asarray(food_level, jnp.int32),
        food_eaten=jnp.asarray([i in eaten for i in range(f)], bool),
        step=jnp.int32(step),
    )


def acts(*actions: int) -> dict[str, jax.Array]:
    return {f"agent_{i}": jnp.int32(a) for i, a in enumerate(actions)}


def values(d: dict) -> np.ndarray:
    return np.stack([np.asarray(d[f"agent_{i}"]) for i in range(len(d) - ("__all__" in d))])


# Two envs cover the rules on 6x6: 2 agents / 2 items with normalised rewards, no penalty
# and a 10-step limit; 3 agents / 2 items with raw rewards and a penalty of 0.5.
TWO = world("...... .0.... ...... ...a.. ...... ...b.1", [1, 2], [3, 1])
THREE = world("...... .0.... ...... ...a.. ...... .2.b.1", [1, 2, 1], [3, 1])
ENV2 = LevelBasedForaging(generator=Fixed(TWO), time_limit=10)
ENV3 = LevelBasedForaging(generator=Fixed(THREE), normalize_reward=False, penalty=0.5)
STEP2 = fast_jit(ENV2.step_env)
STEP3 = fast_jit(ENV3.step_env)
PUBLIC_STEP2 = fast_jit(ENV2.step)


def positions(state: State) -> list[tuple[int, int]]:
    return [tuple(int(v) for v in p) for p in np.asarray(state.agent_pos)]


# ------------------------------------------------------------------ moves


@pytest.mark.parametrize(
    ("action", "cell"),
    [(NOOP, (1, 1)), (UP, (0, 1)), (DOWN, (2, 1)), (LEFT, (1, 0)), (RIGHT, (1, 2)), (LOAD, (1, 1))],
)
def test_each_action_moves_as_named(action, cell):
    _, state, *_ = STEP2(KEY, TWO, acts(action, NOOP))
    assert positions(state) == [cell, (5, 5)]


def test_moves_off_the_grid_or_onto_uneaten_food_are_cancelled():
    state = world("...... ...... ...... ..0a.. ...... ...b.1", [1, 2], [3, 1])
    _, after, *_ = STEP2(KEY, state, acts(RIGHT, DOWN))
    assert positions(after) == [(3, 2), (5, 5)]
    _, after, *_ = STEP2(KEY, state, acts(RIGHT, RIGHT))
    assert positions(after) == [(3, 2), (5, 5)]
    eaten = state.replace(food_eaten=jnp.array([True, False]))
    _, after, *_ = STEP2(KEY, eaten, acts(RIGHT, NOOP))
    assert positions(after) == [(3, 3), (5, 5)]  # an eaten item no longer blocks


def test_an_agent_cannot_enter_a_cell_another_agent_leaves():
    state = world("...... .01... ...... ...a.. ...... ...b..", [1, 2], [3, 1])
    _, after, *_ = STEP2(KEY, state, acts(RIGHT, RIGHT))
    assert positions(after) == [(1, 1), (1, 3)]
    _, after, *_ = STEP2(KEY, state, acts(RIGHT, LEFT))  # a swap: both blocked
    assert positions(after) == [(1, 1), (1, 2)]


def test_agents_aiming_at_one_cell_all_stay():
    state = world("...... .0.1.. ...... ...a.. ...... ...b..", [1, 2], [3, 1])
    _, after, *_ = STEP2(KEY, state, acts(RIGHT, LEFT))
    assert positions(after) == [(1, 1), (1, 3)]
    three = world("...... .0.1.. ..2... ...a.. ...... ...b..", [1, 2, 1], [3, 1])
    _, after, *_ = STEP3(KEY, three, acts(RIGHT, LEFT, UP))
    assert positions(after) == [(1, 1), (1, 3), (2, 2)]  # all three wanted (1, 2)


# ------------------------------------------------------- loading, rewards


def test_an_agent_strong_enough_eats_alone_and_shares_by_level():
    # agent_1 (level 2) loads b (level 1): normalised reward 2 * 1 / (2 * (3 + 1)) = 1/4.
    state = world("...... .0.... ...... ...a.. ...... ...b1.", [1, 2], [3, 1])
    _, after, reward, term, info = STEP2(KEY, state, acts(NOOP, LOAD))
    np.testing.assert_array_equal(after.food_eaten, [False, True])
    np.testing.assert_allclose(values(reward), [0.0, 0.25], rtol=1e-6)
    assert not bool(term["__all__"])
    assert float(info["metrics"]["percent_eaten"]) == 50.0


def test_loaders_add_their_levels_and_split_the_item_by_level():
    # a (level 3) between agent_0 (level 1) and agent_1 (level 2): 3 / 6 of the food,
    # 1/3 of it to agent_0 and 2/3 to agent_1.
    state = world("...... ...... ...... ..0a1. ...... ...b..", [1, 2], [3, 1])
    _, after, reward, *_ = STEP2(KEY, state, acts(LOAD, LOAD))
    np.testing.assert_array_equal(after.food_eaten, [True, False])
    np.testing.assert_allclose(values(reward), [1 / 4, 1 / 2], rtol=1e-6)
    # Raw rewards: level_i * level_f.
    state = world("...... ...... ...... ..0a1. ...... .2.b..", [1, 2, 1], [3, 1])
    _, after, reward, *_ = STEP3(KEY, state, acts(LOAD, LOAD, NOOP))
    np.testing.assert_array_equal(values(reward), [3.0, 6.0, 0.0])


def test_too_weak_loaders_eat_nothing_and_everyone_pays_the_penalty():
    # agent_1 (level 2) alone on a (level 3): every agent loses the penalty, 0.5.
    state = world("...... .0.... ...... ...a1. ...... .2.b..", [1, 2, 1], [3, 1])
    _, after, reward, *_ = STEP3(KEY, state, acts(NOOP, LOAD, NOOP))
    np.testing.assert_array_equal(after.food_eaten, [False, False])
    np.testing.assert_array_equal(values(reward), [-0.5] * 3)
    _, _, reward, *_ = STEP3(KEY, state, acts(NOOP, NOOP, NOOP))  # nobody loads: no penalty
    np.testing.assert_array_equal(values(reward), [0.0] * 3)
    # Normalised, the penalty is divided like the item's reward: by the loaders' level
    # times the total food level. Without a penalty option a failed load costs nothing.
    env = LevelBasedForaging(generator=Fixed(THREE), penalty=0.5)
    loaders = jnp.array([[0, 2, 0], [0, 0, 0]])  # (items, agents): agent_1 loads a
    reward = env._reward(loaders, jnp.array([False, False]), jnp.array([3, 1]))
    np.testing.assert_allclose(reward, [-0.5 / (2 * 4)] * 3, rtol=1e-6)
    two = world("...... .0.... ...... ...a1. ...... ...b..", [1, 2], [3, 1])
    _, _, reward, *_ = STEP2(KEY, two, acts(NOOP, LOAD))
    np.testing.assert_array_equal(values(reward), [0.0, 0.0])


def test_one_load_reaches_every_item_next_to_the_agent():
    # agent_1 (level 2) between a (3) and b (1): b is eaten (2 * 1), a is not and costs
    # everyone the penalty 0.5.
    state = world("...... .0.... ...... ..a1b. ...... .2....", [1, 2, 1], [3, 1])
    _, after, reward, *_ = STEP3(KEY, state, acts(NOOP, LOAD, NOOP))
    np.testing.assert_array_equal(after.food_eaten, [False, True])
    np.testing.assert_array_equal(values(reward), [-0.5, 1.5, -0.5])


def test_only_side_neighbours_that_load_count():
    # agent_0 diagonal to a does not count; agent_1 moving next to a does not load.
    state = world("...... ...... ..0... ...a.. ...... 1..b..", [3, 2], [3, 1])
    _, after, reward, *_ = STEP2(KEY, state, acts(LOAD, NOOP))
    assert not bool(after.food_eaten[0])
    state = world("...... ...... ...0.. ...a.. ....1. ...b..", [1, 2], [3, 1])
    _, after, reward, *_ = STEP2(KEY, state, acts(LOAD, UP))
    assert positions(after)[1] == (3, 4) and not bool(after.food_eaten[0])
    _, after, reward, *_ = STEP2(KEY, after, acts(LOAD, LOAD))
    assert bool(after.food_eaten[0])


def test_an_eaten_item_is_gone():
    state = world("...... ...... ...... ..0a1. ...... ...b..", [1, 2], [3, 1], eaten=(0,))
    _, after, reward, *_ = STEP2(KEY, state, acts(LOAD, LOAD))
    np.testing.assert_array_equal(values(reward), [0.0, 0.0])
    np.testing.assert_array_equal(ENV2.action_mask(state)[:, LOAD], [False, False])


# ------------------------------------------------------------- episode end


def test_eating_the_last_item_terminates_even_on_the_last_step():
    state = world("...... ...... ...... ..0a1. ...... ...b..", [1, 2], [3, 1], eaten=(1,), step=9)
    _, after, reward, done, info = PUBLIC_STEP2(KEY, state, acts(LOAD, LOAD))
    assert bool(done["__all__"]) and bool(done["agent_0"])
    assert not bool(info["truncated"]["agent_0"]) and not bool(info["truncated"]["agent_1"])
    assert float(info["metrics"]["percent_eaten"]) == 100.0
    assert int(after.step) == 0  # reset automatically
    np.testing.assert_allclose(values(reward), [0.25, 0.5], rtol=1e-6)


def test_the_time_limit_truncates():
    for step, ends in ((8, False), (9, True)):
        _, after, _, done, info = PUBLIC_STEP2(KEY, TWO.replace(step=jnp.int32(step)), acts(NOOP, NOOP))
        assert bool(done["__all__"]) == ends == bool(info["truncated"]["agent_1"])
        assert float(info["metrics"]["percent_eaten"]) == 0.0


# -------------------------------------------------------------------- masks


def test_action_masks():
    state = world("0b.... .1.... ...... ...a.. ...... ......", [1, 2], [3, 1])
    masks = values(ENV2.get_avail_actions(state))
    # Columns: noop, up, down, left, right, load. agent_0 in the corner next to b; agent_1
    # under b.
    np.testing.assert_array_equal(masks[0], [True, False, True, False, False, True])
    np.testing.assert_array_equal(masks[1], [True, False, True, True, True, True])
    eaten = state.replace(food_eaten=jnp.array([False, True]))
    masks = values(ENV2.get_avail_actions(eaten))
    np.testing.assert_array_equal(masks[0], [True, False, True, False, True, False])
    np.testing.assert_array_equal(masks[1], [True, True, True, True, True, False])


# ------------------------------------------------------------- observations

SEEN = world("0a.... .1.... ...... ...b.. ....2. ......", [1, 2, 1], [3, 2])


def test_vector_observation_layout_and_field_of_view():
    env = LevelBasedForaging(generator=Fixed(SEEN, fov=1))
    full = values(env.get_obs(SEEN.replace(step=jnp.int32(7))))
    np.testing.assert_allclose(full[:, -1], 0.07, rtol=1e-6)  # step 7 of 100
    obs = full[:, :-1]
    hidden = [-1, -1, 0]
    # agent_0 at (0, 0): its frame is the grid's; sees a and agent_1.
    assert obs[0].tolist() == [0, 1, 3, *hidden, 0, 0, 1, 1, 1, 2, *hidden]
    # agent_1 at (1, 1): frame offset min(1, 1) - 1 = 0.
    assert obs[1].tolist() == [0, 1, 3, *hidden, 1, 1, 2, 0, 0, 1, *hidden]
    # agent_2 at (4, 4): frame offset min(1, 4) - 4 = -3; sees b at (3, 3) as (0, 0).
    assert obs[2].tolist() == [*hidden, 0, 0, 2, 1, 1, 1, *hidden, *hidden]
    eaten = values(env.get_obs(SEEN.replace(food_eaten=jnp.array([False, True]))))
    assert eaten[2, 3:6].tolist() == hidden
    assert env.observation_space("agent_0").shape == (3 * (2 + 3) + 1,)
    assert all(bool(env.observation_space(a).contains(o)) for a, o in zip(env.agents, full, strict=True))


def test_grid_observation_layers():
    env = LevelBasedForaging(generator=Fixed(SEEN, fov=1), grid_observation=True)
    obs = values(env.get_obs(SEEN.replace(step=jnp.int32(3))))
    assert obs.shape == (3, 3 * 9 + 1) and obs[0, -1] == np.float32(3) / 100
    agents, food, access = obs[0, :-1].reshape(3, 3, 3)
    assert agents.tolist() == [[0, 0, 0], [0, 1, 0], [0, 0, 2]]
    assert food.tolist() == [[0, 0, 0], [0, 0, 3], [0, 0, 0]]
    assert access.tolist() == [[0, 0, 0], [0, 0, 0], [0, 1, 0]]  # off-grid and occupied cells: 0
    agents, food, access = obs[2, :-1].reshape(3, 3, 3)
    assert food.tolist() == [[2, 0, 0], [0, 0, 0], [0, 0, 0]]
    assert access.tolist() == [[0, 1, 1], [1, 0, 1], [1, 1, 1]]
    space = env.observation_space("agent_0")
    assert space.shape == (28,) and all(bool(space.contains(o)) for o in obs)
    assert space.high[:9].max() == 3 and space.high[9:18].max() == 9  # agent, food levels


def test_global_state():
    env = LevelBasedForaging(generator=Fixed(SEEN))
    gs = env.get_global_state(SEEN.replace(food_eaten=jnp.array([True, False]), step=jnp.int32(4)))
    assert gs.dtype == jnp.float32
    assert gs[:-1].tolist() == [0, 0, 1, 1, 1, 2, 4, 4, 1, -1, -1, 0, 3, 3, 2]
    assert gs[-1] == np.float32(4) / 100  # step / time_limit


# ---------------------------------------------------------------- generator


def test_generator_invariants_on_many_instances():
    keys = jax.random.split(KEY, 4096)
    configs = [
        RandomGenerator(8, 2, 2, 8, force_coop=True),
        RandomGenerator(12, 20, 6, 3, max_agent_level=4),
    ]
    drawn = fast_jit(lambda: [jax.vmap(gen)(keys) for gen in configs])()
    for gen, s in zip(configs, jax.tree.map(np.asarray, drawn), strict=True):
        g, n, f = gen.grid_size, gen.num_agents, gen.num_food
        assert s.agent_pos.shape == (4096, n, 2) and s.food_pos.shape == (4096, f, 2)
        assert (s.food_pos >= 1).all() and (s.food_pos <= g - 2).all()  # off the edge
        gap = np.abs(s.food_pos[:, :, None] - s.food_pos[:, None]).sum(-1) + 2 * np.eye(f, dtype=int)
        assert (gap >= 2).all()  # no two items share a cell or a side
        cells = s.agent_pos[..., 0] * g + s.agent_pos[..., 1]
        assert (np.diff(np.sort(cells, axis=1), axis=1) > 0).all()  # distinct
        closed = np.concatenate([s.food_pos[..., 0], s.food_pos[..., 1]], axis=1)
        assert not (s.agent_pos[..., 0][:, :, None] == closed[:, None]).any()  # Jumanji's closed rows
        assert ((s.agent_level >= 1) & (s.agent_level <= gen.max_agent_level)).all()
        coop = np.sort(s.agent_level, axis=1)[:, :3].sum(1)
        if gen.force_coop:
            assert (s.food_level == coop[:, None]).all()
        else:
            assert ((s.food_level >= 1) & (s.food_level <= coop[:, None])).all()
            assert (s.food_level == coop[:, None]).any() and (s.food_level == 1).any()
        assert not s.food_eaten.any() and (s.step == 0).all()
        # Every inner cell receives food, every agent level occurs.
        food_cells = np.unique(s.food_pos[..., 0] * g + s.food_pos[..., 1])
        assert len(food_cells) == (g - 2) ** 2
        assert set(np.unique(s.agent_level)) == set(range(1, gen.max_agent_level + 1))


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"grid_size": 4}, "grid_size must be an integer >= 5"),
        ({"fov": 0}, "fov must be an integer >= 1"),
        ({"grid_size": 6, "fov": 7}, "fov must be between 1 and grid_size=6"),
        ({"num_agents": 0}, "num_agents must be an integer >= 1"),
        ({"num_food": 0}, "num_food must be an integer >= 1"),
        ({"num_food": 2.0}, "num_food must be an integer"),
        ({"max_agent_level": 1}, "max_agent_level must be an integer >= 2"),
        ({"force_coop": 1}, "force_coop must be a bool"),
        ({"num_food": 8}, "do not fit a 8x8 grid"),  # 36 - 2 <= 40
        ({"grid_size": 5, "num_agents": 4, "num_food": 1}, "do not fit a 5x5 grid"),
        ({"grid_size": 10, "num_agents": 30, "num_food": 5}, "may not find free cells"),
        ({"time_limit": 0}, "time_limit must be an integer >= 1"),
        ({"grid_observation": "yes"}, "grid_observation must be a bool"),
        ({"normalize_reward": None}, "normalize_reward must be a bool"),
        ({"penalty": float("nan")}, "penalty must be a finite number"),
    ],
)
def test_bad_configurations_raise(kwargs, match):
    with pytest.raises(ValueError, match=match):
        LevelBasedForaging(**kwargs)


def test_jumanjis_largest_configurations_still_build():
    # The bounds are exactly Jumanji's: one more item or agent would raise.
    LevelBasedForaging(grid_size=8, num_food=6, num_agents=5)  # 36 - 5 > 30
    LevelBasedForaging(grid_size=10, num_agents=20, num_food=5)  # 20 free cells at worst
    with pytest.raises(ValueError):
        LevelBasedForaging(grid_size=8, num_food=6, num_agents=6)


def test_the_issue_example_and_keyword_defaults():
    env = LevelBasedForaging(num_agents=4, grid_size=12)
    assert env.agents == ["agent_0", "agent_1", "agent_2", "agent_3"]
    assert (env.grid_size, env.fov, env.num_food, env.max_steps) == (12, 12, 2, 100)
    assert env.generator.force_coop and env.generator.max_agent_level == 2
    obs, state = jax.eval_shape(env.reset, KEY)
    assert obs["agent_0"].shape == (3 * (2 + 4) + 1,) and state.agent_pos.shape == (4, 2)
    default = LevelBasedForaging()
    assert (default.grid_size, default.fov, default.num_agents, default.num_food) == (8, 8, 2, 2)


def test_generators_and_keywords_do_not_mix_and_the_protocol_is_checked():
    with pytest.raises(TypeError, match="pass those to the generator"):
        LevelBasedForaging(generator=RandomGenerator(8, 2, 2), grid_size=8)

    class NoFov:
        grid_size, num_agents, num_food, max_agent_level = 6, 2, 2, 2

        def __call__(self, key):
            return TWO

    with pytest.raises(TypeError, match="lacks fov"):
        LevelBasedForaging(generator=NoFov())
    bad = Fixed(TWO, fov=9)
    with pytest.raises(ValueError, match="fov must be between 1 and grid_size=6"):
        LevelBasedForaging(generator=bad)


def test_a_users_generator_drives_the_episode():
    obs, state = fast_jit(ENV2.reset)(KEY)
    assert positions(state) == positions(TWO) and ENV2.num_food == 2
    np.testing.assert_array_equal(values(obs), values(ENV2.get_obs(TWO)))
    obs, state, *_ = PUBLIC_STEP2(KEY, state, acts(DOWN, NOOP))
    assert positions(state)[0] == (2, 1)


# ------------------------------------------------------- conformance, render


def test_check_env():
    check_env(LevelBasedForaging(), compiler_options=COMPILER_OPTIONS)


def test_render_draws_the_board():
    env = LevelBasedForaging(generator=Fixed(TWO))
    states = jax.tree.map(lambda *x: jnp.stack(x), TWO, TWO.replace(food_eaten=jnp.array([True, False])))
    img, eaten = np.asarray(fast_jit(jax.vmap(lambda s: env.render(s, size=200)))(states))
    assert img.shape == (198, 198, 3) and img.dtype == np.uint8  # 33-pixel cells on 6x6

    def centre(r, c):
        return img[r * 33 + 16, c * 33 + 12].tolist()  # left of the badge

    assert centre(1, 1) == [255, 255, 255]  # agent_0
    assert centre(3, 3) == [round(v * 255) for v in C.FOOD_COLOUR]  # food a
    assert centre(2, 2) == [0, 0, 0]  # empty
    assert img[33, 50].tolist() == [255, 255, 255]  # grid line
    assert eaten[3 * 33 + 16, 3 * 33 + 12].tolist() == [0, 0, 0]  # an eaten item is gone
    # agent_1's badge (centre 191.4, 191.4) shows its level, a "2" in the 3x5 font with
    # 1-pixel font cells from (x, y) = (190, 189): top row lit, left of the second row dark.
    assert img[189, 190:193].tolist() == [[255, 255, 255]] * 3
    assert img[190, 190].tolist() == [0, 0, 0] and img[190, 192].tolist() == [255, 255, 255]


def test_render_size_rule():
    env = LevelBasedForaging()
    _, state = jax.eval_shape(env.reset, KEY)
    shape = jax.eval_shape(lambda s: env.render(s, size=100), state)
    assert shape.shape == (96, 96, 3) and shape.dtype == jnp.uint8  # 12-pixel cells
    assert jax.eval_shape(lambda s: env.render(s), state).shape == (512, 512, 3)
    with pytest.raises(ValueError):
        jax.eval_shape(lambda s: env.render(s, size=7), state)
