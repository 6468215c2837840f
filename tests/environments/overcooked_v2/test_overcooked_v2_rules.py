"""Overcooked V2 rules on tiny hand-drawn kitchens, with exact asserts."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from fast_compile import jit

from jaxmarl.environments.overcooked_v2 import Layout, OvercookedV2
from jaxmarl.environments.overcooked_v2 import constants as C

R, D, L, U, STAY, I = C.RIGHT, C.DOWN, C.LEFT, C.UP, C.STAY, C.INTERACT
ING = [C.ingredient(0), C.ingredient(1)]
RECIPES = [[0, 0, 0], [0, 0, 1], [0, 1, 1], [1, 1, 1]]

# One cook at (1, 1), facing up: ingredient 0 to its west, ingredient 1 south-west,
# the pot north of (2, 1), plates south of (1, 2), the serving counter east of (3, 2).
SOLO = """
WWPWW
0A  W
1   X
WBWWW
"""
# Fetch an ingredient and put it into the pot; from (1, 1) or (2, 1), ending at (2, 1)
# facing the pot.
FETCH = {0: [L, I, R, U, I], 1: [D, L, I, R, U, I]}
PLATE = [D, L, D, I, R, U]  # from (2, 1): take a plate, back facing the pot
DELIVER = [D, R, I]  # from (2, 1): to (3, 2), facing the serving counter

# Two cooks; a recipe indicator at (0, 2), a recipe button east of cook 1 at (4, 1).
TWO = """
WWPWW
0A AL
R   X
WBW1W
"""
# Cooks side by side in a corridor.
CORRIDOR = """
WWWWWWW
W A A W
WPB0XWW
"""


class Kitchen:
    """An env with ``step_agents`` and ``get_obs`` compiled once."""

    def __init__(self, layout: str, recipes: list[list[int]] | None = None, **kwargs) -> None:
        self.env = OvercookedV2(layout=Layout.from_string(layout, possible_recipes=recipes), **kwargs)
        self.transition = jit(self.env.step_agents)
        self.obs = jit(self.env.get_obs)
        self.full = jit(self.env.get_obs_default)
        self.start = self.env.reset(jax.random.PRNGKey(0))[1]

    def play(self, state, plan, seed=1):
        """Apply joint actions (one int per cook, or tuples); return the last state and the
        rewards (team, per step) and shaped rewards (per step and cook)."""
        rewards, shaped = [], []
        key = jax.random.PRNGKey(seed)
        for joint in plan:
            key, k = jax.random.split(key)
            state, r, s = self.transition(k, state, jnp.atleast_1d(jnp.asarray(joint, jnp.int32)))
            rewards.append(float(r))
            shaped.append(np.asarray(s))
        return state, np.array(rewards), np.array(shaped)


@pytest.fixture(scope="module")
def solo() -> Kitchen:
    return Kitchen(SOLO, RECIPES)


@pytest.fixture(scope="module")
def solo_negative() -> Kitchen:
    return Kitchen(SOLO, RECIPES, negative_rewards=True)


@pytest.fixture(scope="module")
def solo_interact() -> Kitchen:
    return Kitchen(SOLO, RECIPES, start_cooking_interaction=True)


@pytest.fixture(scope="module")
def two() -> Kitchen:
    return Kitchen(TWO, [[0, 0, 1], [1, 1, 1]], agent_view_size=1, indicate_successful_delivery=True)


@pytest.fixture(scope="module")
def corridor() -> Kitchen:
    return Kitchen(CORRIDOR, [[0, 0, 0]])


def with_recipe(kitchen: Kitchen, recipe: list[int]):
    return kitchen.start.replace(recipe=jnp.int32(C.recipe_code(recipe)))


def cook_plan(recipe: list[int], wait: int = 13) -> list[int]:
    """Three fetches (cooking starts with the third), a plate while it cooks, ``wait``
    steps, then take the soup and deliver it. With ``wait=13`` the soup is taken on the
    20th step after cooking started, the first on which it is cooked."""
    plan = [a for i in recipe for a in FETCH[i]]
    return plan + PLATE + [STAY] * wait + [I] + DELIVER


@pytest.mark.parametrize("recipe", RECIPES, ids=lambda r: "-".join(map(str, r)))
def test_cooking_each_recipe_earns_20(solo, recipe):
    plan = cook_plan(recipe)
    state, rewards, shaped = solo.play(with_recipe(solo, recipe), plan)
    assert rewards[-1] == 20.0 and rewards[:-1].sum() == 0
    # Shaped: 3 for each placement the recipe needs, 3 for the plate (a pot has
    # something in it, no plate is held or lying around), 5 for taking the soup out.
    assert shaped[:, 0].tolist().count(3.0) == 4 and shaped[:, 0].tolist().count(5.0) == 1
    assert shaped.sum() == 3 * 3 + 3 + 5
    assert int(state.inventory[0]) == C.EMPTY and bool(state.new_correct_delivery)
    assert int(state.items[0, 2]) == C.EMPTY and int(state.timer[0, 2]) == 0


def test_pot_cooks_for_20_steps(solo):
    recipe = [0, 0, 1]
    plan = [a for i in recipe for a in FETCH[i]]
    state, _, _ = solo.play(with_recipe(solo, recipe), plan)
    code = C.recipe_code(recipe)
    # Cooking starts with the third ingredient and counts down that same step.
    assert int(state.items[0, 2]) == code and int(state.timer[0, 2]) == C.POT_COOK_TIME - 1
    state, _, _ = solo.play(state, [STAY] * 18)
    assert int(state.timer[0, 2]) == 1 and int(state.items[0, 2]) == code
    state, _, _ = solo.play(state, [STAY])
    assert int(state.timer[0, 2]) == 0 and int(state.items[0, 2]) == code | C.COOKED
    # One step early, the plate stays a plate.
    early, _, shaped = solo.play(with_recipe(solo, recipe), cook_plan(recipe, wait=12)[:-3])
    assert int(early.inventory[0]) == C.PLATE and shaped[-1, 0] == 0


def test_a_cooking_pot_takes_nothing(solo):
    state, _, _ = solo.play(with_recipe(solo, [0, 0, 0]), FETCH[0] * 3 + FETCH[0][:-1])
    assert int(state.inventory[0]) == ING[0]  # holding a fourth onion
    state, _, shaped = solo.play(state, [I])
    assert int(state.inventory[0]) == ING[0] and int(state.items[0, 2]) == 3 * ING[0] and shaped[0, 0] == 0


@pytest.mark.parametrize("negative", [False, True])
def test_delivering_the_wrong_recipe(solo, solo_negative, negative):
    kitchen = solo_negative if negative else solo
    state, rewards, shaped = kitchen.play(with_recipe(kitchen, [0, 0, 0]), cook_plan([1, 1, 1]))
    # Nothing the recipe needs went in; the soup is not the recipe's.
    assert rewards[-1] == (-20.0 if negative else 0.0) and rewards[:-1].sum() == 0
    placements = shaped[[5, 11, 17], 0]
    assert placements.tolist() == ([-3.0] * 3 if negative else [0.0] * 3)
    assert shaped.sum() == 3 * (-3.0 if negative else 0.0) + 3  # the plate still counts
    assert int(state.inventory[0]) == C.EMPTY and not bool(state.new_correct_delivery)


def test_placements_beyond_the_recipe_are_useless(solo_negative):
    # Recipe [0, 0, 1]: two of ingredient 0 are useful, a third is not.
    state, _, shaped = solo_negative.play(with_recipe(solo_negative, [0, 0, 1]), FETCH[0] * 3)
    assert shaped[[4, 9, 14], 0].tolist() == [3.0, 3.0, -3.0]
    assert int(state.timer[0, 2]) == C.POT_COOK_TIME - 1  # three in: it cooks anyway


def test_start_cooking_interaction(solo_interact):
    kitchen = solo_interact
    state, _, _ = kitchen.play(with_recipe(kitchen, [0, 0, 0]), FETCH[0] * 3)
    assert int(state.items[0, 2]) == 3 * ING[0] and int(state.timer[0, 2]) == 0  # not cooking
    state, _, shaped = kitchen.play(state, [I])
    assert int(state.timer[0, 2]) == C.POT_COOK_TIME - 1 and shaped[0, 0] == 5.0  # the recipe: +5
    # One ingredient can be cooked too, for no bonus; then the pot takes nothing more.
    state, _, _ = kitchen.play(with_recipe(kitchen, [0, 0, 0]), FETCH[0])
    state, _, shaped = kitchen.play(state, [I])
    assert int(state.timer[0, 2]) == C.POT_COOK_TIME - 1 and shaped[0, 0] == 0.0
    state, _, _ = kitchen.play(state, FETCH[0])
    assert int(state.items[0, 2]) == ING[0] and int(state.inventory[0]) == ING[0]


def test_plate_pickup_bonus_only_when_useful(solo):
    # An empty pot: a plate is not useful.
    _, _, shaped = solo.play(with_recipe(solo, [0, 0, 0]), [D, L, D, I])
    assert shaped[-1, 0] == 0.0
    # A pot with something in it, but a plate already on a counter: not useful either.
    start = with_recipe(solo, [0, 0, 0])
    start = start.replace(items=start.items.at[3, 0].set(C.PLATE), timer=start.timer)
    state, _, shaped = solo.play(start, FETCH[0] + PLATE)
    assert shaped[4, 0] == 3.0 and shaped[8, 0] == 0.0 and int(state.inventory[0]) == C.PLATE


def test_counters_hold_one_object(solo):
    # The cook at (3, 1) faces the counter east of it, (4, 1).
    state = with_recipe(solo, [0, 0, 0]).replace(
        pos=jnp.array([[3, 1]], jnp.int32), dir=jnp.array([C.FACE_RIGHT], jnp.int32)
    )
    state = state.replace(inventory=jnp.array([ING[1]], jnp.int32))
    state, _, _ = solo.play(state, [I])
    assert int(state.items[1, 4]) == ING[1] and int(state.inventory[0]) == C.EMPTY
    state = state.replace(inventory=jnp.array([C.PLATE], jnp.int32))
    state, _, _ = solo.play(state, [I])  # the counter is taken: nothing happens
    assert int(state.items[1, 4]) == ING[1] and int(state.inventory[0]) == C.PLATE
    state = state.replace(inventory=jnp.array([C.EMPTY], jnp.int32))
    state, _, _ = solo.play(state, [I])
    assert int(state.items[1, 4]) == C.EMPTY and int(state.inventory[0]) == ING[1]


def test_recipe_indicator_and_button(two):
    n = 2
    a = 7 + n  # channels per cook block
    indicator_ch, button_ch = 2 * a + 3, 2 * a + 4
    recipe_ch = 2 * a + 6 + n + 2 + n + 2  # the recipe's ingredient-count channels
    start = two.start.replace(recipe=jnp.int32(C.recipe_code([0, 0, 1])))
    full = np.asarray(two.full(start))
    assert full[0, 2, 0, indicator_ch] == 1 and full[0, 1, 4, button_ch] == 1
    # The indicator shows the recipe (two of 0, one of 1); the idle button does not.
    assert full[0, 2, 0, recipe_ch : recipe_ch + n].tolist() == [2, 1]
    assert full[0, 1, 4, recipe_ch : recipe_ch + n].tolist() == [0, 0]
    # Cook 1 turns to the button and presses it: -5 to the team, shown for 9 steps.
    state, rewards, _ = two.play(start, [(STAY, R), (STAY, I)])
    assert rewards.tolist() == [0.0, -float(C.INDICATOR_ACTIVATION_COST)]
    assert int(state.timer[1, 4]) == C.INDICATOR_ACTIVATION_TIME - 1
    shown = []
    for _ in range(C.INDICATOR_ACTIVATION_TIME):
        shown.append(np.asarray(two.full(state))[1, 1, 4, recipe_ch : recipe_ch + n].tolist())
        state, _, _ = two.play(state, [(STAY, STAY)])
    assert shown == [[2, 1]] * 9 + [[0, 0]]
    # Pressing with full hands does nothing.
    busy = state.replace(inventory=jnp.array([0, C.PLATE], jnp.int32))
    after, rewards, _ = two.play(busy, [(STAY, I)])
    assert rewards[0] == 0.0 and int(after.timer[1, 4]) == 0


def test_view_window(two):
    obs = two.obs(two.start)
    n, a = 2, 9
    w0, w1 = np.asarray(obs["agent_0"]), np.asarray(obs["agent_1"])
    assert w0.shape == (3, 3, 25 + 5 * n + 1)
    # Cook 0 at (1, 1): itself in the centre, cook 1 two cells east (out of view).
    assert w0[1, 1, 0] == 1 and w0[..., a].sum() == 0
    # North (1, 0) is a counter, west (0, 1) ingredient 0's pile, north-east (2, 0) the pot.
    counter, pot, pile0 = 2 * a, 2 * a + 2, 2 * a + 6
    assert w0[0, 1, counter] == 1 and w0[1, 0, pile0] == 1 and w0[0, 2, pot] == 1
    # Cook 1 at (3, 1): the button east, cook 0 out of view; the same cells as the full grid.
    full = np.asarray(two.full(two.start))[1]
    np.testing.assert_array_equal(w1, full[0:3, 2:5])
    # Near the border the window is padded with zeros.
    wide = OvercookedV2(layout=two.env.layout, agent_view_size=2)
    w = np.asarray(jit(wide.get_obs)(two.start)["agent_0"])
    assert w.shape == (5, 5, 25 + 5 * n) and not w[0].any() and not w[:, 0].any()
    np.testing.assert_array_equal(w[1:, 1:], np.asarray(two.full(two.start))[0, 0:4, 0:4, :-1])


def test_successful_delivery_channel(two):
    dish = C.recipe_code([0, 0, 1]) | C.COOKED | C.PLATE
    state = two.start.replace(
        recipe=jnp.int32(C.recipe_code([0, 0, 1])),
        pos=jnp.array([[1, 1], [3, 2]], jnp.int32),
        dir=jnp.array([C.FACE_UP, C.FACE_RIGHT], jnp.int32),
        inventory=jnp.array([0, dish], jnp.int32),
    )
    state, rewards, _ = two.play(state, [(STAY, I)])
    full = np.asarray(two.full(state))
    assert rewards[0] == 20.0 and full[0, 2, 4, -1] == 1 and full[:, :, :, -1].sum() == 2  # both cooks see it
    state, _, _ = two.play(state, [(STAY, STAY)])
    assert np.asarray(two.full(state))[..., -1].sum() == 0


def test_new_recipe_after_a_correct_delivery():
    env = OvercookedV2(
        layout=Layout.from_string(SOLO, possible_recipes=RECIPES), sample_recipe_on_delivery=True
    )
    step = jit(env.step_agents)
    start = env.reset(jax.random.PRNGKey(0))[1]
    drawn = set()
    for recipe in ([0, 0, 0], [1, 1, 1]):
        code = C.recipe_code(recipe)
        for k in range(8):
            state = start.replace(
                recipe=jnp.int32(code),
                pos=jnp.array([[3, 2]], jnp.int32),
                dir=jnp.array([C.FACE_RIGHT], jnp.int32),
                inventory=jnp.array([C.recipe_code([0, 0, 0]) | C.COOKED | C.PLATE], jnp.int32),
            )
            state, reward, _ = step(jax.random.PRNGKey(k), state, jnp.array([I]))
            if recipe == [0, 0, 0]:
                drawn.add(int(state.recipe))
                # JaxMARL's draw: the second half of the step key, uniform over the recipes.
                index = jax.random.randint(jax.random.split(jax.random.PRNGKey(k))[1], (), 0, 4)
                assert int(state.recipe) == int(env.layout.recipe_codes[index]) and float(reward) == 20.0
            else:
                assert int(state.recipe) == code and float(reward) == 0.0  # a wrong dish: no new recipe
    assert len(drawn) > 1


def test_collisions_and_swaps(corridor):
    start = corridor.start  # cooks at (2, 1) and (4, 1), facing up
    state, _, _ = corridor.play(start, [(R, L)])  # both want (3, 1): neither moves, both turn
    assert np.asarray(state.pos).tolist() == [[2, 1], [4, 1]]
    assert np.asarray(state.dir).tolist() == [C.FACE_RIGHT, C.FACE_LEFT]
    state, _, _ = corridor.play(start, [(R, STAY)])
    assert np.asarray(state.pos).tolist() == [[3, 1], [4, 1]]
    state, _, _ = corridor.play(state, [(R, L)])  # swapping cells: neither moves
    assert np.asarray(state.pos).tolist() == [[3, 1], [4, 1]]
    state, _, _ = corridor.play(state, [(R, R)])  # following: both move
    assert np.asarray(state.pos).tolist() == [[4, 1], [5, 1]]
    state, _, _ = corridor.play(state, [(STAY, R)])  # into a wall: turn only
    assert np.asarray(state.pos).tolist() == [[4, 1], [5, 1]]
    state, _, _ = corridor.play(state, [(R, STAY)])  # onto a cook that stays: blocked
    assert np.asarray(state.pos).tolist() == [[4, 1], [5, 1]]


def test_interactions_are_taken_in_agent_order(corridor):
    # Cook 0 at (2, 1) faces the plate pile (2, 2); cook 1 at (3, 1) ingredient 0's (3, 2).
    state = corridor.start.replace(
        pos=jnp.array([[2, 1], [3, 1]], jnp.int32), dir=jnp.array([C.FACE_DOWN, C.FACE_DOWN], jnp.int32)
    )
    state, _, shaped = corridor.play(state, [(I, I)])
    assert np.asarray(state.inventory).tolist() == [C.PLATE, ING[0]]
    assert shaped.sum() == 0  # no pot has anything in it: the plate is not useful
    # A counter between two cooks: cook 0 puts down, cook 1 picks up in the same step.
    # A counter (2, 1) between two cooks: cook 0 puts down, cook 1 picks up in the same step.
    kitchen = Kitchen("WWWWW\nWAWA0\nWPWBX", [[0, 0, 0]])
    state = kitchen.start.replace(
        dir=jnp.array([C.FACE_RIGHT, C.FACE_LEFT], jnp.int32), inventory=jnp.array([ING[0], 0], jnp.int32)
    )
    state, _, _ = kitchen.play(state, [(I, I)])
    assert np.asarray(state.inventory).tolist() == [C.EMPTY, ING[0]] and int(state.items[1, 2]) == C.EMPTY
    # In the other order (cook 1 puts down, cook 0 would pick up first): only the drop.
    state = kitchen.start.replace(
        dir=jnp.array([C.FACE_RIGHT, C.FACE_LEFT], jnp.int32), inventory=jnp.array([0, ING[0]], jnp.int32)
    )
    state, _, _ = kitchen.play(state, [(I, I)])
    assert np.asarray(state.inventory).tolist() == [C.EMPTY, C.EMPTY] and int(state.items[1, 2]) == ING[0]


def test_permuted_views():
    env = OvercookedV2(layout="cramped_room_v2", op_ingredient_permutations=[0, 1])
    keys = jax.random.split(jax.random.PRNGKey(0), 16)
    obs, states = jax.vmap(env.reset)(keys)
    perms = np.asarray(states.ingredient_permutations)
    assert {tuple(p) for p in perms.reshape(-1, 2)} == {(0, 1), (1, 0)}
    plain = OvercookedV2(layout="cramped_room_v2")
    pile = 2 * 9 + 6  # the two pile channels
    base_obs = jit(jax.vmap(plain.get_obs))(states)["agent_0"]
    for b in range(16):
        mine, base = np.asarray(obs["agent_0"][b]), np.asarray(base_obs[b])
        # Channel k shows ingredient perms[b, 0, k]: ingredient 0's pile is at (0, 1).
        assert mine[1, 0, pile + perms[b, 0].tolist().index(0)] == 1
        np.testing.assert_array_equal(mine[..., pile : pile + 2], base[..., pile + perms[b, 0]])


def test_random_resets_are_states_play_can_reach():
    for name in ("forced_coord", "grounded_coord_ring"):
        env = OvercookedV2(layout=name, random_reset=True)
        lay = env.layout
        _, states = jit(jax.vmap(env.reset))(jax.random.split(jax.random.PRNGKey(1), 128))
        pos = np.asarray(states.pos)
        regions = lay.enclosed_spaces
        for i, (x, y) in enumerate(lay.agent_positions):
            assert (regions[pos[:, i, 1], pos[:, i, 0]] == regions[y, x]).all()  # in its own region
        assert (pos[:, 0] != pos[:, 1]).any(-1).all()
        dishes = {int(c) | C.COOKED | C.PLATE for c in lay.recipe_codes}
        loose = {C.EMPTY, C.PLATE, *(C.ingredient(i) for i in range(lay.num_ingredients)), *dishes}
        assert set(np.unique(states.inventory).tolist()) == loose
        items, timer = np.asarray(states.items), np.asarray(states.timer)
        counter, pot = lay.static_objects == C.COUNTER, lay.static_objects == C.POT
        assert set(np.unique(items[:, counter]).tolist()) <= loose
        assert (items[:, ~(counter | pot)] == 0).all() and (timer[:, ~pot] == 0).all()
        contents, left = items[:, pot], timer[:, pot]
        count = sum((contents >> (2 + 2 * i)) & 3 for i in range(lay.num_ingredients))
        cooked = (contents & C.COOKED) != 0
        assert ((left > 0) <= (count == 3)).all() and (cooked <= (count == 3)).all()
        assert not (cooked & (left > 0)).any() and (left <= C.POT_COOK_TIME).all()
        assert {bool(c) for c in np.unique(cooked)} == {False, True} and (left > 0).any()
        assert set(np.unique(states.recipe).tolist()) <= set(lay.recipe_codes.tolist())
