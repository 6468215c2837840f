"""Rule tests of STORM movement: turning, moving forward and sharing no cells.

Rules (JaxMARL appendix B.2 and JaxMARL's ``storm_2p``):
- ``turn_left`` / ``turn_right`` change the facing by a quarter turn; ``forward`` moves
  one cell ahead; there is no backward move; a move off the grid is no move;
- no two agents share a cell: a move into the cell of an agent that does not move fails
  (priority to the stationary agent); of several agents moving into one cell, one drawn
  uniformly succeeds; two agents moving into each other's cells both fail; failures
  cascade along a queue of agents;
- an agent entering a coin's cell collects it; frozen agents do not act.
"""

from __future__ import annotations

import jax
import numpy as np
import pytest
from fast_compile import jit
from storm_testutils import (
    FORWARD,
    FOUR,
    INTERACT,
    KEY,
    LEFT,
    MANY,
    RIGHT,
    STAY,
    TWO,
    actions,
    keys,
    many_resets,
    many_steps,
    state,
)

EMPTY_TWO = """
........
........
........
...0....
........
........
.......1
........
"""


@pytest.mark.parametrize(
    "facing, action, expected",
    [("N", LEFT, 3), ("N", RIGHT, 1), ("E", LEFT, 0), ("E", RIGHT, 2), ("S", LEFT, 1), ("W", RIGHT, 0)],
)
def test_turns_change_facing_only(facing, action, expected):
    s = state(TWO.env, EMPTY_TWO, facing + "N")
    _, s2, *_ = TWO.step_env(KEY, s, actions(TWO.env, action))
    assert int(s2.dir[0]) == expected
    assert tuple(np.asarray(s2.pos[0])) == (3, 3)


@pytest.mark.parametrize("facing, expected", [("N", (2, 3)), ("E", (3, 4)), ("S", (4, 3)), ("W", (3, 2))])
def test_forward_moves_one_cell_ahead(facing, expected):
    s = state(TWO.env, EMPTY_TWO, facing + "N")
    _, s2, *_ = TWO.step_env(KEY, s, actions(TWO.env, FORWARD))
    assert tuple(np.asarray(s2.pos[0])) == expected
    assert int(s2.dir[0]) == "NESW".index(facing)


@pytest.mark.parametrize("action", [STAY, INTERACT])
def test_stay_and_idle_interact_do_not_move(action):
    s = state(TWO.env, EMPTY_TWO, "EN")
    _, s2, *_ = TWO.step_env(KEY, s, actions(TWO.env, action))
    assert tuple(np.asarray(s2.pos[0])) == (3, 3) and int(s2.dir[0]) == 1


def test_moving_off_the_grid_is_no_move():
    # agent_0 in the top-left corner facing north, agent_1 in the bottom-right facing east.
    picture = """
    0.......
    ........
    ........
    ........
    ........
    ........
    ........
    .......1
    """
    s = state(TWO.env, picture, "NE")
    _, s2, *_ = TWO.step_env(KEY, s, actions(TWO.env, FORWARD, FORWARD))
    np.testing.assert_array_equal(s2.pos, [[0, 0], [7, 7]])


def test_stationary_agent_keeps_its_cell():
    # agent_0 walks east into agent_1, who stays (or only turns): agent_0 stays put.
    picture = """
    ........
    ........
    ........
    ...01...
    ........
    ........
    ........
    ........
    """
    for second in (STAY, LEFT, INTERACT):
        s = state(TWO.env, picture, "EN")
        _, s2, *_ = TWO.step_env(KEY, s, actions(TWO.env, FORWARD, second))
        np.testing.assert_array_equal(s2.pos, [[3, 3], [3, 4]])


def test_moving_into_a_cell_being_vacated_succeeds():
    # agent_0 follows agent_1 east: both move.
    picture = """
    ........
    ........
    ........
    ...01...
    ........
    ........
    ........
    ........
    """
    s = state(TWO.env, picture, "EE")
    _, s2, *_ = TWO.step_env(KEY, s, actions(TWO.env, FORWARD, FORWARD))
    np.testing.assert_array_equal(s2.pos, [[3, 4], [3, 5]])


def test_head_on_agents_do_not_swap():
    picture = """
    ........
    ........
    ........
    ...01...
    ........
    ........
    ........
    ........
    """
    s = state(TWO.env, picture, "EW")
    _, s2, *_ = TWO.step_env(KEY, s, actions(TWO.env, FORWARD, FORWARD))
    np.testing.assert_array_equal(s2.pos, [[3, 3], [3, 4]])


def test_two_movers_into_one_cell_one_wins_uniformly():
    # agent_0 (facing east) and agent_1 (facing west) both step into (3, 4).
    picture = """
    ........
    ........
    ........
    ...0.1..
    ........
    ........
    ........
    ........
    """
    s = state(TWO.env, picture, "EW")
    n = MANY
    _, s2, *_ = many_steps(TWO, s, actions(TWO.env, FORWARD, FORWARD))
    pos = np.asarray(s2.pos)
    first_wins = np.all(pos[:, 0] == [3, 4], -1) & np.all(pos[:, 1] == [3, 5], -1)
    second_wins = np.all(pos[:, 0] == [3, 3], -1) & np.all(pos[:, 1] == [3, 4], -1)
    assert np.all(first_wins ^ second_wins)
    # Binomial(2000, 1/2): standard deviation 22.4; allow 4 of them.
    assert abs(first_wins.sum() - n / 2) < 4 * np.sqrt(n / 4)


def test_three_movers_into_one_cell_each_wins_a_third():
    # agents 0, 1, 2 all step into (3, 3); agent_3 is far away.
    picture = """
    ........
    ........
    ...1....
    ..0.2...
    ........
    ........
    ........
    .......3
    """
    s = state(FOUR.env, picture, "ESWN")
    n = MANY
    _, s2, *_ = many_steps(FOUR, s, actions(FOUR.env, FORWARD, FORWARD, FORWARD))
    pos = np.asarray(s2.pos)
    winner = np.all(pos[:, :3] == [3, 3], -1)  # (n, 3)
    assert np.all(winner.sum(-1) == 1)
    # The losers stay where they were.
    start = np.array([[3, 2], [2, 3], [3, 4]])
    assert np.all(np.all(pos[:, :3] == start, -1) == ~winner)
    sd = np.sqrt(n * (1 / 3) * (2 / 3))
    assert np.all(np.abs(winner.sum(0) - n / 3) < 4 * sd), winner.sum(0)


def test_failed_moves_cascade_along_a_queue():
    # 0 -> 1 -> 2 -> 3 all face east; agent_3 stays: nobody moves.
    picture = """
    ........
    ........
    ........
    .0123...
    ........
    ........
    ........
    ........
    """
    s = state(FOUR.env, picture, "EEEE")
    _, s2, *_ = FOUR.step_env(KEY, s, actions(FOUR.env, FORWARD, FORWARD, FORWARD, STAY))
    np.testing.assert_array_equal(s2.pos, s.pos)
    # If agent_3 moves too, the whole queue moves.
    _, s3, *_ = FOUR.step_env(KEY, s, actions(FOUR.env, FORWARD, FORWARD, FORWARD, FORWARD))
    np.testing.assert_array_equal(s3.pos, [[3, 2], [3, 3], [3, 4], [3, 5]])


def test_loser_of_a_contest_blocks_its_follower():
    # agent_1 and agent_2 contest (3, 4); agent_0 follows agent_1 east.
    # Whoever wins, agent_0 moves exactly when agent_1 does.
    picture = """
    ........
    ........
    ........
    ..01.2..
    ........
    ........
    ........
    .......3
    """
    s = state(FOUR.env, picture, "EEWN")
    _, s2, *_ = many_steps(FOUR, s, actions(FOUR.env, FORWARD, FORWARD, FORWARD))
    pos = np.asarray(s2.pos)
    one_moved = np.all(pos[:, 1] == [3, 4], -1)
    zero_moved = np.all(pos[:, 0] == [3, 3], -1)
    np.testing.assert_array_equal(zero_moved, one_moved)
    assert 0 < one_moved.sum() < MANY
    # No two agents ever share a cell.
    cells = pos[..., 0] * 8 + pos[..., 1]
    assert all(len(set(row)) == 4 for row in cells)


def test_four_agents_can_rotate_round_a_square():
    picture = """
    ........
    ........
    ...01...
    ...32...
    ........
    ........
    ........
    ........
    """
    s = state(FOUR.env, picture, "ESWN")
    _, s2, *_ = FOUR.step_env(KEY, s, actions(FOUR.env, FORWARD, FORWARD, FORWARD, FORWARD))
    np.testing.assert_array_equal(s2.pos, [[2, 4], [3, 4], [3, 3], [2, 3]])


def test_entering_a_coin_cell_collects_the_coin():
    picture = """
    ........
    ........
    ........
    ...0c...
    ........
    .....d..
    .....1..
    ........
    """
    s = state(TWO.env, picture, "EN", inventory=[[2, 1], [0, 0]])
    _, s2, *_ = TWO.step_env(KEY, s, actions(TWO.env, FORWARD, FORWARD))
    np.testing.assert_array_equal(s2.inventory, [[3, 1], [0, 1]])
    assert int(s2.coins.sum()) == 0
    # Collected coins stay gone while nobody respawns.
    _, s3, *_ = TWO.step_env(KEY, s2, actions(TWO.env, FORWARD, FORWARD))
    assert int(s3.coins.sum()) == 0
    np.testing.assert_array_equal(s3.inventory, [[3, 1], [0, 1]])


def test_frozen_agents_ignore_their_actions():
    s = state(TWO.env, EMPTY_TWO, "NN", freeze=[3, 0])
    for action in (FORWARD, LEFT, RIGHT, INTERACT):
        _, s2, *_ = TWO.step_env(KEY, s, actions(TWO.env, action, FORWARD))
        assert tuple(np.asarray(s2.pos[0])) == (3, 3) and int(s2.dir[0]) == 0
        assert tuple(np.asarray(s2.pos[1])) == (5, 7)  # agent_1 moves normally
        assert int(s2.freeze[0]) == 2


def test_no_shared_cells_in_random_play():
    env = FOUR.env
    s0 = jax.tree.map(lambda x: x[0], many_resets(FOUR)[1])

    def body(s, k):
        a = jax.random.randint(k, (env.num_agents,), 0, 5)
        _, s, *_ = env.step_env(k, s, {ag: a[i] for i, ag in enumerate(env.agents)})
        return s, s.pos

    _, pos = jit(lambda s: jax.lax.scan(body, s, keys(300, 1)))(s0)
    cells = np.asarray(pos[..., 0] * 8 + pos[..., 1])
    assert all(len(set(row)) == env.num_agents for row in cells)
