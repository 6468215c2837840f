"""Rule tests of STORM interactions: beams, payoffs, freezing and respawning.

Rules (JaxMARL paper, appendix B.2; JaxMARL's ``storm_2p`` for the beam and regrowth):
- an agent is ready when it holds a coin and is not frozen; a ready agent that
  interacts fires a beam over the cell ahead, the cell two ahead and the two cells
  diagonally ahead (cells off the grid are dropped);
- a beam hitting another ready agent pairs the two: the one that fired plays the row of
  the payoff matrix, the one hit the column; each cooperates with probability equal to
  its share of cooperate coins; nearer beam cells are served first, ties at random, and
  no agent takes part in two interactions in one step;
- both freeze for ``freeze_penalty`` steps, then respawn on a free cell with an empty
  inventory; every collected coin regrows at its spawn cell unless an agent stands there.
"""

from __future__ import annotations

import jax
import numpy as np
import pytest
from storm_testutils import (
    FORWARD,
    FOUR,
    INTERACT,
    KEY,
    MANY,
    RIGHT,
    STAY,
    TWO,
    actions,
    get,
    many_steps,
    rewards,
    state,
)

import jaxmarl

COOP, DEFECT = [3, 0], [0, 2]  # pure-strategy inventories


def picture_with(one: tuple[int, int], zero: tuple[int, int] = (4, 3), size: int = 8) -> str:
    rows = [["."] * size for _ in range(size)]
    rows[zero[0]][zero[1]] = "0"
    rows[one[0]][one[1]] = "1"
    return "\n".join("".join(r) for r in rows)


# agent_0 at (4, 3) facing north; its beam covers (3, 3), (2, 3), (3, 2) and (3, 4).
@pytest.mark.parametrize("target", [(3, 3), (2, 3), (3, 2), (3, 4)])
def test_beam_hits_each_of_its_four_cells(target):
    s = state(TWO.env, picture_with(target), "NE", inventory=[COOP, DEFECT])
    _, s2, reward, *_ = TWO.step_env(KEY, s, actions(TWO.env, INTERACT, STAY))
    # agent_0 (row) cooperates, agent_1 (column) defects: IPD pays (0, 5).
    np.testing.assert_array_equal(rewards(reward, TWO.env), [0.0, 5.0])
    np.testing.assert_array_equal(s2.freeze, [5, 5])
    np.testing.assert_array_equal(s2.partner, [1, 0])
    np.testing.assert_array_equal(s2.inventory, [COOP, DEFECT])  # kept on show while frozen
    beam = {(3, 3), (2, 3), (3, 2), (3, 4)}
    assert {tuple(x) for x in np.argwhere(np.asarray(s2.beam))} == beam


@pytest.mark.parametrize("target", [(1, 3), (4, 2), (4, 4), (5, 3), (2, 2), (2, 4), (5, 2)])
def test_beam_misses_cells_outside_it(target):
    s = state(TWO.env, picture_with(target), "NE", inventory=[COOP, DEFECT])
    _, s2, reward, *_ = TWO.step_env(KEY, s, actions(TWO.env, INTERACT, STAY))
    np.testing.assert_array_equal(rewards(reward, TWO.env), [0.0, 0.0])
    np.testing.assert_array_equal(s2.freeze, [0, 0])
    np.testing.assert_array_equal(s2.partner, [-1, -1])
    assert int(s2.beam.sum()) == 4  # the beam was fired all the same


def test_beam_off_the_grid_is_dropped():
    s = state(TWO.env, picture_with((7, 7), zero=(0, 0)), "EN", inventory=[COOP, DEFECT])
    _, s2, *_ = TWO.step_env(KEY, s, actions(TWO.env, INTERACT))
    assert {tuple(x) for x in np.argwhere(np.asarray(s2.beam))} == {(0, 1), (0, 2), (1, 1)}


def test_unready_agents_neither_fire_nor_get_hit():
    picture = picture_with((3, 3))
    # agent_0 holds no coin: no beam, no interaction.
    s = state(TWO.env, picture, "NE", inventory=[[0, 0], DEFECT])
    _, s2, reward, *_ = TWO.step_env(KEY, s, actions(TWO.env, INTERACT))
    assert int(s2.beam.sum()) == 0 and rewards(reward, TWO.env).tolist() == [0, 0]
    # agent_1 holds no coin: the beam is fired but nothing happens.
    s = state(TWO.env, picture, "NE", inventory=[COOP, [0, 0]])
    _, s2, reward, *_ = TWO.step_env(KEY, s, actions(TWO.env, INTERACT))
    assert int(s2.beam.sum()) == 4 and rewards(reward, TWO.env).tolist() == [0, 0]
    np.testing.assert_array_equal(s2.freeze, [0, 0])


def test_frozen_agents_cannot_be_hit():
    picture = """
    ........
    ........
    ........
    ...2....
    ...0....
    ........
    ........
    1......3
    """
    # agent_2 is frozen (partner agent_1, also frozen) right ahead of agent_0.
    s = state(FOUR.env, picture, "NNNN", inventory=[COOP, DEFECT, DEFECT, COOP], freeze=[0, 2, 2, 0])
    s = s.replace(partner=s.partner.at[1].set(2).at[2].set(1))
    _, s2, reward, *_ = FOUR.step_env(KEY, s, actions(FOUR.env, INTERACT))
    assert rewards(reward, FOUR.env).tolist() == [0, 0, 0, 0]
    np.testing.assert_array_equal(s2.freeze, [0, 1, 1, 0])


def test_a_coin_collected_this_step_makes_an_agent_ready():
    picture = """
    ........
    ........
    ........
    ...1....
    ...c....
    ...0....
    ........
    ........
    """
    # agent_0 steps onto the coin; agent_1 (ready) fires south and hits it at once.
    s = state(TWO.env, picture, "NS", inventory=[[0, 0], DEFECT])
    _, s2, reward, *_ = TWO.step_env(KEY, s, actions(TWO.env, FORWARD, INTERACT))
    # agent_1 (row) defects, agent_0 (column) cooperates: IPD pays the row 5, the column 0.
    np.testing.assert_array_equal(rewards(reward, TWO.env), [0.0, 5.0])
    np.testing.assert_array_equal(s2.inventory, [[1, 0], DEFECT])


# Payoffs (row, column) for (row action, column action), written out per game.
GAMES = {
    "ipd": {("C", "C"): (3, 3), ("C", "D"): (0, 5), ("D", "C"): (5, 0), ("D", "D"): (1, 1)},
    "matching_pennies": {("C", "C"): (1, -1), ("C", "D"): (-1, 1), ("D", "C"): (-1, 1), ("D", "D"): (1, -1)},
    "stag_hunt": {("C", "C"): (4, 4), ("C", "D"): (0, 2), ("D", "C"): (2, 0), ("D", "D"): (2, 2)},
    "chicken": {("C", "C"): (3, 3), ("C", "D"): (2, 5), ("D", "C"): (5, 2), ("D", "D"): (0, 0)},
}
PURE = {"C": COOP, "D": DEFECT}


@pytest.mark.parametrize("game", sorted(GAMES))
def test_payoff_presets(game):
    matrix = jaxmarl.make("storm_2p", payoff=game).payoff_matrix
    for (row, col), pays in GAMES[game].items():
        r, c = "CD".index(row), "CD".index(col)
        assert (matrix[0, r, c], matrix[1, r, c]) == pays, (game, row, col)


@pytest.mark.parametrize("game", ["ipd", "matching_pennies"])
def test_payoffs_of_pure_strategies_in_both_roles(game):
    env = TWO if game == "ipd" else get("storm_2p", payoff=game)
    picture = picture_with((3, 3))
    for (row, col), (row_pay, col_pay) in GAMES[game].items():
        # agent_0 fires (row player) at agent_1 (column player) ...
        s = state(env.env, picture, "NE", inventory=[PURE[row], PURE[col]])
        _, _, reward, *_ = env.step_env(KEY, s, actions(env.env, INTERACT))
        assert rewards(reward, env.env).tolist() == [row_pay, col_pay], (game, row, col)
        # ... and the other way round: agent_1 at (3, 3) fires south at agent_0.
        s = state(env.env, picture, "NS", inventory=[PURE[col], PURE[row]])
        _, _, reward, *_ = env.step_env(KEY, s, actions(env.env, STAY, INTERACT))
        assert rewards(reward, env.env).tolist() == [col_pay, row_pay], (game, row, col)


def test_explicit_payoff_matrix():
    env = get("storm_2p", payoff_matrix=((((1, 2), (3, 4)), ((5, 6), (7, 8)))))
    s = state(env.env, picture_with((3, 3)), "NE", inventory=[COOP, DEFECT])
    _, _, reward, *_ = env.step_env(KEY, s, actions(env.env, INTERACT))
    assert rewards(reward, env.env).tolist() == [2.0, 6.0]  # [p][C][D]


def test_expected_payoff_mode():
    env = get("storm_2p", expected_payoff=True)
    s = state(env.env, picture_with((3, 3)), "NE", inventory=[[1, 3], [2, 2]])
    _, _, reward, *_ = env.step_env(KEY, s, actions(env.env, INTERACT))
    # p = (1/4, 3/4), q = (1/2, 1/2); row: 3/8 + 0 + 15/8 + 3/8; column: 3/8 + 5/8 + 0 + 3/8.
    np.testing.assert_allclose(rewards(reward, env.env), [2.625, 1.375], rtol=1e-6)


def test_mixed_strategies_match_their_expected_payoff():
    # Both hold 1 cooperate + 3 defect coins: each cooperates with probability 1/4.
    s = state(TWO.env, picture_with((3, 3)), "NE", inventory=[[1, 3], [1, 3]])
    pays = []
    for seed in range(10):
        _, _, reward, *_ = many_steps(TWO, s, actions(TWO.env, INTERACT), seed=seed)
        pays.append(np.stack([np.asarray(reward["agent_0"]), np.asarray(reward["agent_1"])], -1))
    pay = np.concatenate(pays)
    n = len(pay)  # 20000 interactions
    # Joint outcomes (C,C) (3,3) 1/16, (C,D) (0,5) 3/16, (D,C) (5,0) 3/16, (D,D) (1,1) 9/16.
    outcomes = {(3, 3): 1 / 16, (0, 5): 3 / 16, (5, 0): 3 / 16, (1, 1): 9 / 16}
    seen = {tuple(p) for p in pay.tolist()}
    assert seen <= set(outcomes)
    for outcome, prob in outcomes.items():
        count = np.sum(np.all(pay == outcome, -1))
        assert abs(count - n * prob) < 4 * np.sqrt(n * prob * (1 - prob)), (outcome, count)
    expected = 3 / 16 + 0 + 15 / 16 + 9 / 16  # 1.6875 for both players
    for mean, sd in zip(pay.mean(0), pay.std(0), strict=True):
        assert abs(mean - expected) < 4 * sd / np.sqrt(n), (mean, expected)


def test_mutual_fire_pairs_once_with_random_roles():
    env = get("storm_2p", payoff="matching_pennies")
    picture = picture_with((3, 3))
    s = state(env.env, picture, "NS", inventory=[COOP, COOP])
    n = MANY
    _, s2, reward, *_ = many_steps(env, s, actions(env.env, INTERACT, INTERACT), seed=3)
    pay = np.stack([np.asarray(reward["agent_0"]), np.asarray(reward["agent_1"])], -1)
    # Both cooperate: a match, the row player wins. Each is the row about half the time.
    zero_is_row = np.all(pay == [1, -1], -1)
    assert np.all(zero_is_row | np.all(pay == [-1, 1], -1))
    assert abs(zero_is_row.sum() - n / 2) < 4 * np.sqrt(n / 4)
    assert np.all(np.asarray(s2.freeze) == 5)


def test_nearest_zapper_gets_the_target():
    picture = """
    ........
    ........
    ........
    .1.2....
    ...0....
    ........
    ........
    .......3
    """
    # agent_2 is right ahead of agent_0 and two ahead of agent_1: agent_0 wins it.
    s = state(FOUR.env, picture, "NEEN", inventory=[COOP, COOP, DEFECT, COOP])
    _, s2, reward, *_ = many_steps(FOUR, s, actions(FOUR.env, INTERACT, INTERACT))
    np.testing.assert_array_equal(np.asarray(s2.partner), np.tile([2, -1, 0, -1], (MANY, 1)))
    np.testing.assert_array_equal(np.asarray(reward["agent_0"]), np.zeros(MANY))  # C vs D as row
    np.testing.assert_array_equal(np.asarray(reward["agent_2"]), np.full(MANY, 5.0))
    np.testing.assert_array_equal(np.asarray(reward["agent_1"]), np.zeros(MANY))


def test_zapper_that_loses_its_target_falls_back_to_another():
    picture = """
    ........
    ........
    ...1....
    ..32....
    ...0....
    ........
    ........
    ........
    """
    # agents 0 (north) and 1 (south) both have agent_2 right ahead, and agent_3 in their
    # beams too. Whoever gets agent_2, the other pairs with agent_3.
    s = state(FOUR.env, picture, "NSNN", inventory=[COOP, COOP, COOP, COOP])
    n = MANY
    _, s2, *_ = many_steps(FOUR, s, actions(FOUR.env, INTERACT, INTERACT), seed=5)
    partner = np.asarray(s2.partner)
    first = np.all(partner == [2, 3, 0, 1], -1)
    second = np.all(partner == [3, 2, 1, 0], -1)
    assert np.all(first ^ second)
    assert abs(first.sum() - n / 2) < 4 * np.sqrt(n / 4)


def test_chained_zaps_pair_only_one_link():
    picture = """
    ........
    ........
    ...2....
    ...1....
    ...0....
    ........
    ........
    .......3
    """
    # agent_0 fires at agent_1 (right ahead; agent_2 is two ahead of it) and agent_1
    # fires at agent_2 (right ahead): agent_1 can only take part in one interaction, and
    # agent_0's beam links to agent_1 and agent_2 at distances 1 and 2.
    s = state(FOUR.env, picture, "NNSN", inventory=[COOP, COOP, COOP, COOP])
    n = MANY
    _, s2, reward, *_ = many_steps(FOUR, s, actions(FOUR.env, INTERACT, INTERACT), seed=9)
    partner = np.asarray(s2.partner)
    low = np.all(partner == [1, 0, -1, -1], -1)
    high = np.all(partner == [-1, 2, 1, -1], -1)
    assert np.all(low ^ high) and 0 < low.sum() < n
    # agent_2 faces south at agent_1 but does not fire; agent_1 plays whichever pair won.
    assert np.all(np.asarray(reward["agent_3"]) == 0)


def test_freeze_then_respawn_after_freeze_penalty_steps():
    picture = """
    c.......
    ........
    ........
    ...1....
    ...0....
    ........
    ........
    .......d
    """
    layout = """
    c.....c.
    ........
    ........
    ........
    ....d...
    ........
    ........
    d......d
    """
    s = state(TWO.env, picture, "NE", inventory=[COOP, DEFECT], layout=layout)
    _, s, reward, *_ = TWO.step_env(KEY, s, actions(TWO.env, INTERACT))
    assert rewards(reward, TWO.env).tolist() == [0.0, 5.0]
    frozen_pos = np.asarray(s.pos).copy()
    for k in range(1, 5):  # steps 2..5: still frozen, actions ignored
        _, s, reward, *_ = TWO.step_env(jax.random.PRNGKey(k), s, actions(TWO.env, FORWARD, INTERACT))
        np.testing.assert_array_equal(s.freeze, [5 - k, 5 - k])
        np.testing.assert_array_equal(s.pos, frozen_pos)
        np.testing.assert_array_equal(s.inventory, [COOP, DEFECT])
        np.testing.assert_array_equal(s.partner, [1, 0])
        assert rewards(reward, TWO.env).tolist() == [0.0, 0.0]
        assert int((np.asarray(s.coins) > 0).sum()) == 2
    # Step 6, the fifth frozen step: both respawn, empty-handed, and the coins regrow.
    _, s, *_ = TWO.step_env(jax.random.PRNGKey(9), s, actions(TWO.env, FORWARD, INTERACT))
    np.testing.assert_array_equal(s.freeze, [0, 0])
    np.testing.assert_array_equal(s.inventory, [[0, 0], [0, 0]])
    np.testing.assert_array_equal(s.partner, [-1, -1])
    np.testing.assert_array_equal(s.coins, s.coin_layout)
    cells = [tuple(p) for p in np.asarray(s.pos)]
    assert len(set(cells)) == 2 and all(np.asarray(s.coins)[c] == 0 for c in cells)
    # Step 7: they act again.
    _, s7, *_ = TWO.step_env(KEY, s, actions(TWO.env, RIGHT, RIGHT))
    np.testing.assert_array_equal(s7.dir, (np.asarray(s.dir) + 1) % 4)


def test_respawn_cells_are_uniform_among_free_cells():
    # A 3x3 grid with 1 coin of each kind and agents 0, 1 frozen with 1 step left;
    # agent_2 stays at the centre. Free cells: 9 - 1 (agent_2) - 2 (coins) = 6.
    env = get("storm_np", num_agents=3, grid_size=3, num_coins=1, obs_size=3)
    picture = """
    0c.
    .2.
    1.d
    """
    s = state(env.env, picture, "NNN", inventory=[COOP, DEFECT, [0, 0]], freeze=[1, 1, 0], partner=[1, 0, -1])
    s2 = jax.tree.map(
        lambda *x: np.concatenate(x),
        *[many_steps(env, s, actions(env.env), seed=11 + k)[1] for k in range(3)],
    )
    n = 3 * MANY
    pos = np.asarray(s2.pos)
    cells = pos[..., 0] * 3 + pos[..., 1]
    assert np.all(cells[:, 2] == 4) and np.all(cells[:, 0] != cells[:, 1])
    free = [0, 2, 3, 5, 6, 7]  # including the cells agents 0 and 1 leave
    for agent in (0, 1):
        counts = np.bincount(cells[:, agent], minlength=9)
        assert counts[[1, 4, 8]].sum() == 0  # never on a coin or on agent_2
        p = 1 / 6
        assert np.all(np.abs(counts[free] - n * p) < 4 * np.sqrt(n * p * (1 - p))), counts
    # Respawned agents face each direction a quarter of the time.
    dirs = np.bincount(np.asarray(s2.dir)[:, 0], minlength=4)
    assert np.all(np.abs(dirs - n / 4) < 4 * np.sqrt(n * 3 / 16)), dirs


def test_coins_regrow_except_under_agents_that_stay():
    picture = """
    .......d
    ........
    ........
    ...1....
    ...0....
    ........
    ........
    2.....3.
    """
    layout = """
    c......d
    ........
    ........
    ........
    ........
    ........
    ........
    c.....d.
    """
    # Only the coin at (0, 7) is still lying; agent_2 stands on the spawn cell (7, 0),
    # agent_3 on (7, 6). agents 0 and 1 respawn this step (one frozen step left).
    s = state(
        FOUR.env,
        picture,
        "NNNN",
        inventory=[COOP, DEFECT, [0, 0], [0, 0]],
        freeze=[1, 1, 0, 0],
        partner=[1, 0, -1, -1],
        layout=layout,
    )
    _, s2, *_ = FOUR.step_env(KEY, s, actions(FOUR.env))
    coins = np.asarray(s2.coins)
    assert coins[0, 0] == 1 and coins[0, 7] == 2  # regrown, and still lying
    assert coins[7, 0] == 0 and coins[7, 6] == 0  # agents 2 and 3 stand there
    # Without a respawn nothing regrows.
    s = s.replace(freeze=s.freeze.at[:2].set(3))
    _, s3, *_ = FOUR.step_env(KEY, s, actions(FOUR.env))
    assert int((np.asarray(s3.coins) > 0).sum()) == 1


def test_zero_freeze_penalty_respawns_at_once():
    env = get("storm_2p", freeze_penalty=0)
    s = state(env.env, picture_with((3, 3)), "NE", inventory=[COOP, DEFECT])
    _, s2, reward, *_ = env.step_env(KEY, s, actions(env.env, INTERACT))
    assert rewards(reward, env.env).tolist() == [0.0, 5.0]
    np.testing.assert_array_equal(s2.freeze, [0, 0])
    np.testing.assert_array_equal(s2.inventory, [[0, 0], [0, 0]])
    np.testing.assert_array_equal(s2.partner, [-1, -1])
