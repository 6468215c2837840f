"""Rule tests of Hanabi on hand-built tables (HLE's rules; 2 players unless said).

Action indices for 2 players: discard slot i = i, play slot i = 5 + i, reveal colour
R Y G W B = 10 .. 14, reveal rank 1 .. 5 = 15 .. 19, no-op = 20.
"""

from __future__ import annotations

import numpy as np
import pytest
from hanabi_testutils import Stepper, card, hand, table

from jaxmarl.environments.hanabi import Hanabi

PLAY, RED, RANK = 5, 10, 15
NOOP = 20


@pytest.fixture(scope="module")
def two():
    return Stepper(Hanabi())


@pytest.fixture(scope="module")
def three():
    return Stepper(Hanabi(num_agents=3))


# ------------------------------------------------------------------- plays
def test_good_play_builds_the_firework_and_scores(two):
    s = table(two.env, ["R1 Y1 G1 W1 B1", "R2 R3 R4 R5 Y2"], draw="G3 G4", fireworks="")
    s, reward, done = two(s, PLAY + 0)
    assert reward == 1.0 and not done
    assert np.asarray(s.fireworks).tolist() == [1, 0, 0, 0, 0]
    assert hand(s, 0) == "Y1 G1 W1 B1 G3"  # the gap closes, the new card goes last
    assert int(s.life_tokens) == 3 and int(s.info_tokens) == 8 and not np.any(s.discards)
    assert int(s.current_player) == 1


def test_misplay_costs_a_life_and_discards_the_card(two):
    s = table(two.env, ["R1 Y3 G1 W1 B1", "R2 R3 R4 R5 Y2"], draw="G3 G4", info=5)
    s, reward, done = two(s, PLAY + 1)  # Y3 on an empty yellow firework
    assert reward == 0.0 and not done
    assert int(s.life_tokens) == 2 and int(s.info_tokens) == 5
    assert not np.any(s.fireworks)
    assert int(s.discards[card("Y3")]) == 1 and int(np.sum(s.discards)) == 1
    assert hand(s, 0) == "R1 G1 W1 B1 G3"


def test_third_misplay_ends_the_game_and_takes_the_score(two):
    s = table(two.env, ["R1 Y3 G1 W1 B1", "R2 R3 R4 R5 Y2"], draw="G3 G4", fireworks="R2 G1", life=1)
    s, reward, done = two(s, PLAY + 1)
    assert done and bool(s.terminal) and int(s.life_tokens) == 0
    assert reward == -3.0  # HLE's score drops from 3 to 0 with the last life
    assert int(two.env.score(s)) == 0


def test_two_misplays_do_not_end_the_game(two):
    s = table(two.env, ["Y3 Y4 G1 W1 B1", "R2 R3 R4 R5 Y2"], draw="G3 G4 G5")
    s, _, done = two(s, PLAY + 0)
    assert not done and int(s.life_tokens) == 2
    s, _, done = two(s, PLAY + 0)
    assert not done and int(s.life_tokens) == 1 and int(s.current_player) == 0


def test_completing_a_firework_gains_a_token_unless_at_the_maximum(two):
    s = table(two.env, ["R5 Y1 G1 W1 B1", "R2 R3 R4 Y2 Y3"], draw="G3 G4", fireworks="R4", info=6)
    after, reward, _ = two(s, PLAY + 0)
    assert reward == 1.0 and int(after.fireworks[0]) == 5 and int(after.info_tokens) == 7
    full = s.replace(info_tokens=s.info_tokens * 0 + 8)
    after, reward, _ = two(full, PLAY + 0)
    assert reward == 1.0 and int(after.info_tokens) == 8


def test_completing_every_firework_ends_the_game(two):
    s = table(two.env, ["B5 Y1 G1 W1 R1", "R2 R3 R4 Y2 Y3"], draw="G3 G4", fireworks="R5 Y5 G5 W5 B4")
    s, reward, done = two(s, PLAY + 0)
    assert done and reward == 1.0 and int(two.env.score(s)) == 25


# ---------------------------------------------------------------- discards
def test_discard_gains_a_token(two):
    s = table(two.env, ["R1 Y1 G1 W1 B1", "R2 R3 R4 R5 Y2"], draw="G3", info=3)
    s, reward, done = two(s, 2)
    assert reward == 0.0 and not done and int(s.info_tokens) == 4
    assert int(s.discards[card("G1")]) == 1 and hand(s, 0) == "R1 Y1 W1 B1 G3"
    assert int(s.next_card) == two.env.deck_size  # the last card was drawn


def test_discard_is_illegal_with_every_token(two):
    s = table(two.env, ["R1 Y1 G1 W1 B1", "R2 R3 R4 R5 Y2"], draw="G3")
    legal = two.legal(s)
    assert not set(range(5)) & set(legal) and set(range(5, 10)) <= set(legal)
    after, reward, done = two(s, 0)  # an illegal discard changes nothing
    assert reward == 0.0 and not done
    assert hand(after, 0) == hand(s, 0) and int(after.current_player) == 0 and int(after.info_tokens) == 8
    s = s.replace(info_tokens=s.info_tokens - 1)
    assert set(range(5)) <= set(two.legal(s))


# ------------------------------------------------------------------- hints
def test_hint_costs_a_token_and_updates_knowledge(two):
    s = table(two.env, ["R1 Y1 G1 W1 B1", "R2 G3 R4 Y5 Y2"], draw="G3", info=2)
    s, reward, _ = two(s, RED + 0)  # reveal red to player 1
    assert reward == 0.0 and int(s.info_tokens) == 1
    plausible = np.asarray(s.color_plausible[1])
    assert plausible[:, 0].tolist() == [True, False, True, False, False]  # red only on slots 0, 2
    assert plausible[0].tolist() == [True, False, False, False, False]
    assert plausible[1].tolist() == [False, True, True, True, True]
    assert np.asarray(s.color_revealed[1]).any(-1).tolist() == [True, False, True, False, False]
    assert hand(s, 1) == "R2 G3 R4 Y5 Y2"  # hints move no card
    # Player 1 then reveals rank 1 to player 0: every card of player 0 is a 1.
    s, _, _ = two(s, RANK + 0)
    assert int(s.info_tokens) == 0
    assert np.asarray(s.rank_revealed[0])[:, 0].all()
    # Without tokens, no hint is legal.
    assert max(two.legal(s)) < 10


def test_hint_needs_a_matching_card(two):
    s = table(two.env, ["R1 Y1 G1 W1 B1", "R2 G3 R4 Y5 Y2"], draw="G3")
    legal = set(two.legal(s)) - set(range(10))
    assert legal == {RED + 0, RED + 1, RED + 2, RANK + 1, RANK + 2, RANK + 3, RANK + 4}


def test_hints_target_each_other_player(three):
    s = table(three.env, ["R1 R1 R1 R1 R1", "Y1 Y1 Y1 Y1 Y1", "G2 G2 G2 G2 G2"], draw="B1")
    # 3 players: colour hints 10..14 to player +1, 15..19 to +2; ranks 20..24 to +1, 25..29 to +2.
    assert set(three.legal(s)) == set(range(5, 10)) | {11, 17, 20, 26}
    s, _, _ = three(s, 17)  # reveal green to player 2
    assert np.asarray(s.color_revealed[2])[:, 2].all() and not np.asarray(s.color_revealed[1]).any()


# ---------------------------------------------------------------- last round
@pytest.mark.parametrize("players", [2, 3])
def test_last_round_gives_every_player_one_more_turn(two, three, players):
    step = two if players == 2 else three
    hands = ["W1 W1 W1 W2 W2", "B1 B1 B1 B2 B2", "Y2 Y2 Y3 Y3 Y4"][:players]
    s = table(step.env, hands, draw="W3", info=7)
    s, _, done = step(s, 0)  # player 0 discards and draws the last card
    assert not done and int(s.next_card) == step.env.deck_size and int(s.turns_to_play) == players
    movers = []
    for turn in range(players):
        movers.append(int(s.current_player))
        s, _, done = step(s, PLAY + 0)
        assert done == (turn == players - 1), f"turn {turn + 1} of the last round"
    assert movers == [*range(1, players), 0]  # everyone once, player 0 last
    assert [len(hand(s, p).split()) for p in range(players)] == [4] * players


def test_hands_shrink_once_the_deck_is_empty(two):
    s = table(two.env, ["R1 Y1 G1 W1 B1", "R2 G3 R4 Y5 Y2"], draw="", info=7)
    s, _, _ = two(s, 1)
    assert hand(s, 0) == "R1 G1 W1 B1" and int(s.hands[0, 4]) == -1
    assert 4 not in two.legal(s.replace(current_player=s.current_player * 0))  # no card in slot 4


# ------------------------------------------------------------------- no-op
def test_only_the_current_player_moves(two):
    s = table(two.env, ["R1 Y1 G1 W1 B1", "R2 G3 R4 Y5 Y2"], draw="G3", current=1)
    masks = two._avail(s)
    assert np.flatnonzero(np.asarray(masks["agent_0"])).tolist() == [NOOP]
    assert NOOP not in np.flatnonzero(np.asarray(masks["agent_1"]))
    after, reward, done = two(s, NOOP)  # the current player's no-op is illegal: nothing happens
    assert int(after.current_player) == 1 and reward == 0.0 and not done
