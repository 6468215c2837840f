"""Overcooked rules on tiny hand-drawn kitchens, with exact asserts."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from fast_compile import jit

from jaxmarl.environments.overcooked import Overcooked
from jaxmarl.environments.overcooked import constants as C

N, S, E, W, STAY, I = C.NORTH, C.SOUTH, C.EAST, C.WEST, C.STAY, C.INTERACT

# Cook 1 does everything: onions from the west, the pot north of (2, 1), dishes south
# of (1, 1), the serving counter south of (2, 1).
SOUP_KITCHEN = """
XXPXX
O1  X
XDS2X
XXXXX
"""
# Cooks side by side on a corridor.
CORRIDOR = """
XXXXX
X12 X
XOPDS
"""
# A counter between the cooks, which both can reach.
SHARED_COUNTER = """
XXPXX
O1X2S
XDXXX
"""


class Kitchen:
    """An env with jitted ``transition`` and ``encode`` (compiled once per kitchen)."""

    def __init__(self, layout: str, cooking: str = "auto", max_steps: int = 400) -> None:
        self.env = Overcooked(layout=layout, cooking=cooking, random_orientation=False, max_steps=max_steps)
        self.transition = jit(self.env.transition)
        self.encode = jit(self.env.encode)
        _, self.start = self.env.reset(jax.random.PRNGKey(0))

    def play(self, state, plan):
        """Apply joint actions; return the final state and per-step sparse/shaped rewards."""
        sparse, shaped = [], []
        for joint in plan:
            state, sp, sh = self.transition(state, jnp.asarray(joint, jnp.int32))
            sparse.append(np.asarray(sp))
            shaped.append(np.asarray(sh))
        return state, np.array(sparse), np.array(shaped)


@pytest.fixture(scope="module")
def soup_auto() -> Kitchen:
    return Kitchen(SOUP_KITCHEN, "auto")


@pytest.fixture(scope="module")
def soup_interact() -> Kitchen:
    return Kitchen(SOUP_KITCHEN, "interact")


@pytest.fixture(scope="module")
def corridor() -> Kitchen:
    return Kitchen(CORRIDOR)


@pytest.fixture(scope="module")
def shared() -> Kitchen:
    return Kitchen(SHARED_COUNTER)


THREE_ONIONS = [W, I, E, N, I] + [W, I, E, N, I] * 2  # 15 steps: the pot is full
FETCH_DISH = [W, S, I, E, N]  # 5 steps: back at the pot with a dish
SERVE = [I, S, I]  # take the soup, face the serving counter, deliver


def solo(moves):
    return [(m, STAY) for m in moves]


def test_fastest_soup_earns_exactly_20_in_37_steps(soup_auto):
    """Auto rule: 15 steps to pot three onions (cooking starts with the third), the dish
    fetched while it cooks, 14 more steps of waiting until tick 20, then take the soup
    and deliver it: 37 steps, 20 points, shaped 3 + 3 + 3 (onions) + 3 (useful dish) + 5."""
    plan = THREE_ONIONS + FETCH_DISH + [STAY] * 14 + SERVE
    assert len(plan) == 37
    state, sparse, shaped = soup_auto.play(soup_auto.start, solo(plan))
    assert sparse.sum() == 20.0 and sparse[-1, 0] == 20.0 and sparse[:-1].sum() == 0
    assert shaped[:, 0].tolist().count(3.0) == 4 and shaped[:, 0].sum() == 17.0 and shaped[:, 1].sum() == 0
    assert int(state.held[0]) == C.NOTHING and int(state.cook_tick[0, 2]) == C.IDLE

    # One step less of waiting and the soup is not ready: the dish stays a dish.
    early, sparse, shaped = soup_auto.play(
        soup_auto.start, solo(THREE_ONIONS + FETCH_DISH + [STAY] * 13 + [I])
    )
    assert int(early.held[0]) == C.DISH and int(early.cook_tick[0, 2]) == C.COOK_TIME
    assert sparse.sum() == 0 and shaped[-1, 0] == 0


def test_cooking_starts_with_third_onion_only_under_auto_rule(soup_auto, soup_interact):
    auto, _, _ = soup_auto.play(soup_auto.start, solo(THREE_ONIONS))
    manual, _, _ = soup_interact.play(soup_interact.start, solo(THREE_ONIONS))
    assert int(auto.onions[0, 2]) == 3 and int(auto.cook_tick[0, 2]) == 1
    assert int(manual.onions[0, 2]) == 3 and int(manual.cook_tick[0, 2]) == C.IDLE
    # The encodings show the difference: a cooking soup (19 steps left) vs. 3 onions in a pot.
    obs_auto, obs_manual = np.asarray(soup_auto.encode(auto)), np.asarray(soup_interact.encode(manual))
    assert obs_auto[0, 0, 2, C.CH_ONIONS_IN_SOUP] == 3 and obs_auto[0, 0, 2, C.CH_COOK_TIME_LEFT] == 19
    assert obs_auto[0, 0, 2, C.CH_ONIONS_IN_POT] == 0
    assert obs_manual[0, 0, 2, C.CH_ONIONS_IN_POT] == 3 and obs_manual[0, 0, 2, C.CH_ONIONS_IN_SOUP] == 0
    # An empty-handed interact starts it under the interact rule, and does nothing under auto.
    started, _, _ = soup_interact.play(manual, solo([I]))
    assert int(started.cook_tick[0, 2]) == 1
    waited, _, _ = soup_auto.play(auto, solo([I]))
    assert int(waited.cook_tick[0, 2]) == 2


def test_interact_rule_takes_one_more_step_to_the_same_soup(soup_interact):
    plan = THREE_ONIONS + [I] + FETCH_DISH + [STAY] * 14 + SERVE
    _, sparse, shaped = soup_interact.play(soup_interact.start, solo(plan))
    assert len(plan) == 38 and sparse.sum() == 20.0 and sparse[-1, 0] == 20.0 and shaped.sum() == 17.0


def test_interact_rule_cooks_small_soups_worth_nothing(soup_interact):
    one_onion = [W, I, E, N, I, I]  # pot one onion, start cooking
    state, _, _ = soup_interact.play(soup_interact.start, solo(one_onion))
    assert int(state.onions[0, 2]) == 1 and int(state.cook_tick[0, 2]) == 1
    state, sparse, shaped = soup_interact.play(state, solo(FETCH_DISH + [STAY] * 15 + SERVE))
    assert sparse.sum() == 0.0 and shaped[-3, 0] == 5.0  # picking the soup up still pays 5
    assert int(state.held[0]) == C.NOTHING


def test_onion_does_not_go_into_a_cooking_pot(soup_auto):
    state, _, _ = soup_auto.play(soup_auto.start, solo([*THREE_ONIONS, W, I, E, N, I]))
    assert int(state.held[0]) == C.ONION and int(state.onions[0, 2]) == 3


@pytest.mark.parametrize(
    ("pot_onions", "pot_tick", "dish_on_counter", "other_holds_dish", "reward"),
    [
        (0, C.IDLE, False, False, 0.0),  # nothing to serve
        (1, C.IDLE, False, False, 3.0),  # a partly filled pot
        (3, 5, False, False, 3.0),  # cooking
        (3, C.COOK_TIME, False, False, 3.0),  # ready
        (3, C.IDLE, False, False, 0.0),  # full but not started (interact rule): not counted
        (3, 5, True, False, 0.0),  # a dish already lies on a counter
        (3, 5, False, True, 0.0),  # the other cook already holds one
    ],
)
def test_dish_pickup_is_rewarded_only_when_useful(
    soup_interact, pot_onions, pot_tick, dish_on_counter, other_holds_dish, reward
):
    k = soup_interact
    state = k.start.replace(
        pos=jnp.array([[1, 1], [3, 2]]),
        dir=jnp.array([S, N]),
        onions=k.start.onions.at[0, 2].set(pot_onions),
        cook_tick=k.start.cook_tick.at[0, 2].set(pot_tick),
        items=k.start.items.at[1, 4].set(C.DISH if dish_on_counter else C.NOTHING),
        held=jnp.array([C.NOTHING, C.DISH if other_holds_dish else C.NOTHING]),
    )
    after, _, shaped = k.play(state, [(I, STAY)])
    assert int(after.held[0]) == C.DISH
    assert shaped[0, 0] == reward


@pytest.mark.parametrize(("onions", "reward"), [(3, 20.0), (2, 0.0), (1, 0.0)])
def test_delivery_pays_only_for_three_onion_soup(soup_interact, onions, reward):
    state = soup_interact.start.replace(
        pos=jnp.array([[2, 1], [3, 2]]),
        dir=jnp.array([S, N]),
        held=jnp.array([C.SOUP, C.NOTHING]),
        held_onions=jnp.array([onions, 0]),
    )
    after, sparse, _ = soup_interact.play(state, [(I, STAY)])
    assert sparse.tolist() == [[reward, 0.0]] and int(after.held[0]) == C.NOTHING


def _corridor_state(k: Kitchen, x0: int, x1: int):
    return k.start.replace(pos=jnp.array([[x0, 1], [x1, 1]]), dir=jnp.array([N, N]))


@pytest.mark.parametrize(
    ("x0", "x1", "moves", "end", "facing"),
    [
        (1, 2, (E, W), (1, 2), (E, W)),  # swapping places: both stay, both turn
        (1, 3, (E, W), (1, 3), (E, W)),  # both into the same cell: both stay
        (1, 2, (E, STAY), (1, 2), (E, N)),  # into a standing cook: neither moves
        (1, 2, (E, I), (1, 2), (E, N)),  # an interacting cook stands too
        (1, 2, (E, E), (2, 3), (E, E)),  # following: the cell frees up in the same step
        (2, 3, (W, W), (1, 2), (W, W)),
        (1, 3, (W, E), (1, 3), (W, E)),  # into counters: turn without moving
    ],
)
def test_cooks_collide_as_in_overcooked_ai(corridor, x0, x1, moves, end, facing):
    after, _, _ = corridor.play(_corridor_state(corridor, x0, x1), [moves])
    assert np.asarray(after.pos)[:, 0].tolist() == list(end)
    assert np.asarray(after.pos)[:, 1].tolist() == [1, 1]
    assert np.asarray(after.dir).tolist() == list(facing)


def test_interactions_resolve_cook_0_first_on_a_shared_counter(shared):
    base = shared.start.replace(dir=jnp.array([E, W]))
    # Cook 0 puts an onion down, then cook 1 picks it up, in the same step.
    state = base.replace(held=jnp.array([C.ONION, C.NOTHING]))
    after, _, _ = shared.play(state, [(I, I)])
    assert np.asarray(after.held).tolist() == [C.NOTHING, C.ONION] and int(after.items[1, 2]) == C.NOTHING
    # The other way round, cook 0 finds the counter empty; cook 1 then puts its onion down.
    state = base.replace(held=jnp.array([C.NOTHING, C.ONION]))
    after, _, _ = shared.play(state, [(I, I)])
    assert np.asarray(after.held).tolist() == [C.NOTHING, C.NOTHING] and int(after.items[1, 2]) == C.ONION
    # A soup keeps its onions on the counter and back in hand.
    state = base.replace(held=jnp.array([C.SOUP, C.NOTHING]), held_onions=jnp.array([2, 0]))
    after, _, _ = shared.play(state, [(I, STAY)])
    assert int(after.items[1, 2]) == C.SOUP and int(after.onions[1, 2]) == 2
    after, _, _ = shared.play(after, [(STAY, I)])
    assert np.asarray(after.held).tolist() == [C.NOTHING, C.SOUP]
    assert np.asarray(after.held_onions).tolist() == [0, 2] and int(after.onions[1, 2]) == 0


def test_encoding_channels_of_a_hand_built_state(shared):
    state = shared.start.replace(
        dir=jnp.array([E, S]),
        held=jnp.array([C.DISH, C.SOUP]),
        held_onions=jnp.array([0, 3]),
        items=shared.start.items.at[1, 2].set(C.ONION),
        step=jnp.int32(361),
    )
    obs = np.asarray(shared.encode(state))  # (2, H, W, 26)
    assert obs.shape == (2, 3, 5, 26) and obs.dtype == np.uint8
    me, other = obs[0], obs[1]
    assert me[1, 1, C.CH_SELF_POS] == 1 and me[1, 3, C.CH_OTHER_POS] == 1 and me[..., :2].sum() == 2
    assert me[1, 1, C.CH_SELF_DIR + E] == 1 and me[1, 3, C.CH_OTHER_DIR + S] == 1
    assert me[..., 2:10].sum() == 2
    np.testing.assert_array_equal(other, me[..., C.SWAP_COOKS])
    assert me[1, 1, C.CH_DISHES] == 1 and me[..., C.CH_DISHES].sum() == 1
    assert me[1, 3, C.CH_ONIONS_IN_SOUP] == 3 and me[1, 3, C.CH_SOUP_DONE] == 1
    assert me[1, 2, C.CH_ONIONS] == 1 and me[..., C.CH_ONIONS].sum() == 1
    assert me[0, 2, C.CH_POT] == 1 and me[1, 0, C.CH_ONION_DISP] == 1 and me[1, 4, C.CH_SERVE] == 1
    assert me[2, 1, C.CH_DISH_DISP] == 1 and me[..., C.CH_COUNTER].sum() == 9
    assert (me[..., C.CH_URGENCY] == 1).all()  # 39 steps left
    assert (np.asarray(shared.encode(state.replace(step=jnp.int32(360))))[..., C.CH_URGENCY] == 0).all()
    for ch in (C.CH_TOMATO_DISP, C.CH_TOMATOES_IN_POT, C.CH_TOMATOES_IN_SOUP, C.CH_TOMATOES):
        assert me[..., ch].sum() == 0


def test_episode_is_truncated_at_max_steps():
    env = Overcooked(layout=CORRIDOR, max_steps=3)
    step = jit(env.step)
    obs, state = env.reset(jax.random.PRNGKey(0))
    stay = {a: jnp.int32(STAY) for a in env.agents}
    for t in range(3):
        obs, state, reward, done, info = step(jax.random.PRNGKey(t), state, stay)
        assert bool(done["__all__"]) == (t == 2)
        assert bool(info["truncated"]["agent_0"]) == (t == 2)
    assert int(state.step) == 0  # reset automatically
    assert int(info["final_state"].step) == 3
