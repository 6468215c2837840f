"""Overcooked V2: layouts and their validation, keywords and their errors, spaces, the
registry, resets from states, rendering, and the conformance kit on every layout."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from fast_compile import COMPILER_OPTIONS, fast_compilation, jit

import jaxmarl
from jaxmarl.environments.overcooked_v2 import (
    Layout,
    LayoutError,
    ObservationType,
    OvercookedV2,
    overcooked_v2_layouts,
)
from jaxmarl.environments.overcooked_v2 import constants as C
from jaxmarl.environments.overcooked_v2 import layouts as L
from jaxmarl.testing import check_env

KITCHEN = "WWPWW\n0A A1\nW   R\nWBWXW"


@pytest.fixture(autouse=True)
def _fast_compilation():
    """Whatever the tests compile (the env's own jitted reset and step too) skips the
    backend optimisations: tiny workloads, compilation is what costs."""
    with fast_compilation():
        yield


def test_the_layouts():
    assert len(overcooked_v2_layouts) == 23
    cramped = overcooked_v2_layouts["cramped_room"]
    assert (cramped.width, cramped.height, cramped.num_ingredients) == (5, 4, 1)
    assert cramped.agent_positions == [(3, 1), (1, 1)]  # swapped, as Overcooked-AI numbers them
    assert cramped.possible_recipes == [[0, 0, 0]]
    v2 = overcooked_v2_layouts["cramped_room_v2"]
    assert sorted(v2.possible_recipes) == [[0, 0, 0], [0, 0, 1], [0, 1, 1], [1, 1, 1]]
    assert overcooked_v2_layouts["long_room"].num_agents == 1
    assert overcooked_v2_layouts["fun_coordination"].num_ingredients == 4
    forced = overcooked_v2_layouts["forced_coord"]
    regions = forced.enclosed_spaces
    (x0, y0), (x1, y1) = forced.agent_positions
    assert regions[y0, x0] != regions[y1, x1]  # two rooms
    demo = Layout.from_string(L.overcookedv2_demo)
    assert demo.static_objects[2, 0] == C.RECIPE_BUTTON and demo.static_objects[2, 4] == C.RECIPE_INDICATOR
    # Indentation and trailing whitespace are ignored.
    indented = Layout.from_string("\n    WWPWW   \n    0A A1\n    W   R\n    WBWXW\n")
    np.testing.assert_array_equal(indented.static_objects, Layout.from_string(KITCHEN).static_objects)
    assert str(Layout.from_string(KITCHEN)) == KITCHEN


@pytest.mark.parametrize(
    ("text", "kwargs", "message"),
    [
        ("WWPWW\n0A A1\nW  R\nWBWXW", {}, "ragged layout: row y=2 'W  R' has 4 characters but row y=0 has 5"),
        ("WWPWW\n0A Q1\nW   R\nWBWXW", {}, "unknown character 'Q' at (x=3, y=1)"),
        ("WWPWW\n0   1\nW   R\nWBWXW", {}, "no cook"),
        ("WW WW\n0A A1\nW   R\nWBWXW", {}, "floor at (x=2, y=0) is on the border"),
        ("WWWWW\n0A A1\nW   R\nWBWXW", {}, "no pot ('P')"),
        ("WWPWW\n0A A1\nW   R\nWBWWW", {}, "no serving counter ('X')"),
        ("WWPWW\n0A A1\nW   R\nWWWXW", {}, "no plate pile ('B')"),
        ("WWPWW\nWA AW\nW   R\nWBWXW", {}, "no ingredient pile"),
        ("WWPWW\n0A A1\nW   W\nWBWXW", {}, "no recipe indicator ('R'), so possible_recipes must be given"),
        ("WWPWW\n0A AW\nW   W\nWBWXW", {"possible_recipes": [[0, 0, 1]]}, "uses ingredient 1"),
        ("WWPWW\n0A AW\nW   W\nWBWXW", {"possible_recipes": [[0, 0]]}, "a list of 3 ingredient indices"),
        ("WWPWW\n0A A2\nW   W\nWBWXW", {"possible_recipes": [[0, 0, 1]]}, "needs ingredient 1, but"),
        ("", {}, "the layout is empty"),
    ],
)
def test_malformed_layouts_are_rejected(text, kwargs, message):
    with pytest.raises(LayoutError) as err:
        OvercookedV2(layout=Layout.from_string(text, **kwargs))
    assert message in str(err.value)


def test_unknown_layout_names_suggest_close_ones():
    with pytest.raises(LayoutError, match="Did you mean 'cramped_room' or 'cramped_room_v2'"):
        jaxmarl.make("overcooked_v2", layout="cramped_rom")
    with pytest.raises(ValueError, match="unknown Overcooked V2 layout 'nowhere'"):
        OvercookedV2(layout="nowhere")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"observation_type": "pixels"}, "unknown observation_type 'pixels'"),
        ({"observation_type": ["default"]}, "lists 1 types but layout 'cramped_room' has 2 agent(s)"),
        (
            {"observation_type": "featurized", "agent_view_size": 2},
            "featurized observation has no view window",
        ),
        (
            {"layout": "cramped_room_v2", "observation_type": "featurized"},
            "needs a one-ingredient kitchen; layout 'cramped_room_v2' has 2",
        ),
        ({"agent_view_size": 0}, "agent_view_size must be None or an integer >= 1"),
        ({"max_steps": 0}, "max_steps must be an integer >= 1"),
        ({"random_reset": 1}, "random_reset must be True or False"),
        ({"layout": "cramped_room_v2", "op_ingredient_permutations": [0, 2]}, "ingredient indices in 0..1"),
        ({"layout": "cramped_room_v2", "op_ingredient_permutations": [1, 1]}, "repeats an index"),
        ({"initial_state_buffer": {"pos": 1}}, "initial_state_buffer must be a batched State"),
    ],
)
def test_bad_keywords(kwargs, message):
    with pytest.raises(ValueError) as err:
        jaxmarl.make("overcooked_v2", **kwargs)
    assert message in str(err.value)


def test_a_buffer_of_another_layout_is_rejected():
    _, states = jax.vmap(OvercookedV2(layout="cramped_room").reset)(
        jax.random.split(jax.random.PRNGKey(0), 3)
    )
    with pytest.raises(ValueError, match=r"initial_state_buffer.items has shape \(3, 4, 5\)"):
        OvercookedV2(layout="asymm_advantages", initial_state_buffer=states)


def test_spaces_and_attributes():
    env = jaxmarl.make("overcooked_v2", layout="grounded_coord_simple", agent_view_size=2)
    assert env.agents == ["agent_0", "agent_1"] and env.max_steps == 400 and env.num_actions == 6
    space = env.observation_space("agent_0")
    assert space.shape == (5, 5, 25 + 5 * 3) == env.obs_shape and space.dtype == jnp.uint8
    assert env.action_space("agent_1").n == 6 and env.action_set.tolist() == list(range(6))
    assert env.possible_recipes.tolist() == [[0, 0, 0], [1, 1, 1]]
    full = jaxmarl.make("overcooked_v2", layout="cramped_room", indicate_successful_delivery=True)
    space = full.observation_space("agent_0")
    assert space.shape == (4, 5, 31)
    # Exact bounds: terrain fixed, cooks on floor, pot timers on pots, the delivery channel on X.
    pot, serving, timer = 2 * 8 + 2, 2 * 8 + 1, 2 * 8 + 6 + 1 + 3 + 3
    assert space.low[0, 2, pot] == space.high[0, 2, pot] == 1 and space.high[1, 1, pot] == 0
    assert space.high[1, 1, 0] == 1 and space.high[0, 0, 0] == 0
    assert space.high[0, 2, timer] == C.POT_COOK_TIME and space.high[1, 1, timer] == 0
    assert space.low[3, 3, serving] == 1 and space.high[3, 3, -1] == 1 and space.high[0, 2, -1] == 0
    mixed = jaxmarl.make("overcooked_v2", observation_type=[ObservationType.FEATURIZED, "default"])
    assert mixed.obs_shape == [(96,), (4, 5, 30)]
    assert mixed.observation_space("agent_0").dtype == jnp.float32
    obs, state = mixed.reset(jax.random.PRNGKey(0))
    assert obs["agent_0"].shape == (96,) and obs["agent_1"].shape == (4, 5, 30)
    assert mixed.observation_space("agent_0").contains(obs["agent_0"])
    assert mixed.get_global_state(state).shape == (4 * 5 * 30 + 1,)


def test_featurized_observation_of_the_start():
    env = OvercookedV2(layout="cramped_room", observation_type="featurized")
    obs, _ = env.reset(jax.random.PRNGKey(0))
    o = np.asarray(obs["agent_0"])  # cook 0 at (3, 1) facing up
    assert o[:4].tolist() == [1, 0, 0, 0] and o[4:8].tolist() == [0, 0, 0, 0]
    # Closest onion pile: (4, 1), one step east (a turn, then face it): (dx, dy) = (1, 0).
    assert o[8:10].tolist() == [1, 0] and o[10:12].tolist() == [0, 0]  # no tomatoes
    assert o[12:14].tolist() == [-2, 2]  # the plate pile at (1, 3)
    assert o[18:20].tolist() == [0, 2]  # the serving counter at (3, 3)
    pot = o[22:32]  # the pot at (2, 0): exists, empty, ..., (dx, dy)
    assert pot.tolist() == [1, 1, 0, 0, 0, 0, 0, 0, -1, -1] and not o[32:42].any()  # one pot only
    assert o[20:22].tolist() == [0, -1]  # the empty counter it faces
    assert o[42:46].tolist() == [1, 0, 1, 0]  # not floor: up (a counter) and right (a pile)
    assert o[92:94].tolist() == [-2, 0] and o[94:].tolist() == [3, 1]  # to the other cook; own (x, y)


def test_registry_and_episode():
    env = jaxmarl.make("overcooked_v2", layout="cramped_room", max_steps=5)
    step = jit(env.step)
    obs, state = env.reset(jax.random.PRNGKey(0))
    stay = {a: jnp.int32(C.STAY) for a in env.agents}
    for t in range(5):
        obs, state, reward, done, info = step(jax.random.PRNGKey(t), state, stay)
    assert bool(done["__all__"]) and bool(info["truncated"]["agent_0"]) and int(state.step) == 0
    assert set(info["metrics"]) == {"deliveries", "wrong_deliveries"}
    assert not env.is_terminal(state) and env.is_terminal(state.replace(step=jnp.int32(5)))


def test_reset_from_state_and_initial_state_buffer():
    env = OvercookedV2(layout="cramped_room_v2", op_ingredient_permutations=[0, 1])
    _, start = env.reset(jax.random.PRNGKey(0))
    states = jax.tree.map(lambda x: jnp.stack([x] * 4), start)
    states = states.replace(
        items=states.items.at[jnp.arange(4), 0, 2].set(jnp.arange(4) * C.ingredient(1)),
        step=jnp.full((4,), 7, jnp.int32),
        new_correct_delivery=jnp.ones((4,), bool),
    )
    one = jax.tree.map(lambda x: x[2], states)
    _, fresh = env.reset_from_state(one, jax.random.PRNGKey(5))
    assert int(fresh.step) == 0 and not bool(fresh.new_correct_delivery)
    np.testing.assert_array_equal(fresh.items, one.items)
    assert int(fresh.recipe) == int(one.recipe)
    buffered = OvercookedV2(layout="cramped_room_v2", initial_state_buffer=states)
    _, starts = jit(jax.vmap(buffered.reset_env))(jax.random.split(jax.random.PRNGKey(1), 32))
    picked = np.asarray(starts.items[:, 0, 2]) // C.ingredient(1)
    assert set(picked.tolist()) == {0, 1, 2, 3} and (np.asarray(starts.step) == 0).all()


@pytest.mark.parametrize("name", [*overcooked_v2_layouts])
def test_every_layout_passes_check_env(name):
    env = jaxmarl.make("overcooked_v2", layout=name, max_steps=8, random_agent_positions=True)
    check_env(env, num_envs=2, num_steps=12, check_render=False, compiler_options=COMPILER_OPTIONS)


def test_options_pass_check_env():
    env = jaxmarl.make(
        "overcooked_v2",
        layout="grounded_coord_simple",
        max_steps=10,
        random_reset=True,
        agent_view_size=2,
        negative_rewards=True,
        sample_recipe_on_delivery=True,
        indicate_successful_delivery=True,
        start_cooking_interaction=True,
        op_ingredient_permutations=[0, 1, 2],
    )
    check_env(env, num_envs=4, compiler_options=COMPILER_OPTIONS)
    mixed = jaxmarl.make("overcooked_v2", layout="forced_coord", observation_type=["featurized", "default"])
    check_env(
        mixed,
        num_envs=2,
        num_steps=12,
        expect_random_reset=False,
        check_render=False,
        compiler_options=COMPILER_OPTIONS,
    )


def test_render_draws_the_kitchen():
    env = OvercookedV2(layout="cramped_room_v2", random_reset=True)
    _, state = env.reset(jax.random.PRNGKey(3))
    frame = np.asarray(jit(lambda s: env.render(s, size=160))(state))
    assert frame.shape == (4 * 32, 5 * 32, 3) and frame.dtype == np.uint8
    for i, (x, y) in enumerate(np.asarray(state.pos)):
        centre = frame[y * 32 + 16 - 6, x * 32 + 16 + 6] / 255.0  # inside the cook's disc
        np.testing.assert_allclose(centre, C.AGENT_COLOURS[i], atol=0.01)
    with pytest.raises(ValueError, match="size"):
        env.render(state, size=3)


def test_jaxmarl_names():
    from jaxmarl.environments.overcooked_v2 import common, overcooked, settings

    assert overcooked.OvercookedV2 is OvercookedV2 and overcooked.ObservationType.FEATURIZED == "featurized"
    assert common.StaticObject.WALL == C.COUNTER and common.StaticObject.GOAL == C.SERVING
    assert (
        int(common.StaticObject.ingredient_pile(2)) == 12
        and int(common.StaticObject.get_ingredient(11)) == 16
    )
    assert common.OvercookedActionsEnum.interact == C.INTERACT and common.Direction.LEFT == C.FACE_LEFT
    assert (
        common.ACTION_TO_DIRECTION.tolist() == [2, 1, 3, 0, -1, -1] and int(common.Direction.opposite(0)) == 1
    )
    dish = int(common.DynamicObject.get_recipe_encoding(jnp.array([0, 0, 1]))) | C.COOKED | C.PLATE
    assert dish == 4 + 4 + 16 + 2 + 1 and int(common.DynamicObject.ingredient_count(dish)) == 3
    assert common.DynamicObject.get_ingredient_idx_list(dish) == [0, 0, 1]
    assert common.DynamicObject.get_ingredient_idx_list_jit(16).tolist() == [1, -1, -1]
    assert (
        int(common.DynamicObject.get_ingredient_idx(16 + 64)) == 1
        and int(common.DynamicObject.get_ingredient_idx(1)) == -1
    )
    assert bool(common.DynamicObject.is_ingredient(16)) and not bool(common.DynamicObject.is_ingredient(dish))
    assert common.MAX_INGREDIENTS == 3 and settings.SHAPED_REWARDS["DISH_PICKUP"] == 5
    assert (settings.DELIVERY_REWARD, settings.POT_COOK_TIME, settings.INDICATOR_ACTIVATION_COST) == (
        20,
        20,
        5,
    )
    assert L.overcooked_v2_layouts is overcooked_v2_layouts and L.cramped_room.strip().startswith("WWPWW")
