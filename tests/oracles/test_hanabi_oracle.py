"""Our Hanabi against the Hanabi Learning Environment (HLE 0.0.4): same decks, same moves,
same everything.

For every player count (2 to 5) 200 games, and 100 of a non-default variant (3
colours, 4 ranks, 3 cards in hand, 4 information and 2 life tokens), are dealt by our
``reset``; HLE plays them with the same deck order (forced, see
``hanabi_oracle_worker.py``) and random moves (a quarter uniform, the rest more and more
greedy in playing known-playable cards, so that games also complete fireworks, run the
deck out and play the last round). Our env replays the same moves, and at every step
(after the deal and after every move, the last included) must agree exactly on:
every player's canonical observation vector, the current player and its legal moves,
the reward, the score, information and life tokens, cards left in the deck, the
fireworks, and whether the game is over.

``JAXMARL_FULL_ORACLES=1`` (read in ``tests/settings.py``) plays 1000 games per player
count and 300 of the variant instead; the default games are the first ones of that run
(same decks, same moves). The reduced sample still goes through every rule branch, and
the test asserts it (``hanabi_oracle.coverage``): every move (each discard and play slot,
each hint to each other player), scoring plays and misplays, a firework completed with
an information token coming back and one completed at the maximum (none does), a player
to move with no information token (no hint legal) and with the deck empty (last round),
games ending by the last life, by the last round and with a perfect score, and a reward
that takes points away. Measured on the full run, each shows up within the first 20
games of every variant except a firework completed at the maximum of tokens with 5
players (first in game 71, 25 games in 1000): hence 200 games.
"""

from __future__ import annotations

import numpy as np
import pytest
from hanabi_oracle import coverage, deal_decks, record_hle, replay
from settings import oracle_count

from jaxmarl.environments.hanabi import Hanabi

# One worker plays the whole module, so its recording (the module fixture) runs once.
pytestmark = [pytest.mark.oracle, pytest.mark.xdist_group("hanabi_oracle")]

GAMES = oracle_count(reduced=200, full=1000)
VARIANTS = {
    "2p": ({"num_agents": 2}, GAMES),
    "3p": ({"num_agents": 3}, GAMES),
    "4p": ({"num_agents": 4}, GAMES),
    "5p": ({"num_agents": 5}, GAMES),
    "3c4r": (
        {
            "num_agents": 3,
            "num_colors": 3,
            "num_ranks": 4,
            "hand_size": 3,
            "max_info_tokens": 4,
            "max_life_tokens": 2,
        },
        oracle_count(reduced=100, full=300),
    ),
}


@pytest.fixture(scope="module", params=list(VARIANTS))
def variant(request):
    """One variant: its env, the decks our ``reset`` dealt, and HLE's recording of its
    games (made in one worker process; one fixture per variant, so that test workers
    running different variants never repeat a recording)."""
    name = request.param
    kwargs, num_games = VARIANTS[name]
    seed = list(VARIANTS).index(name)
    env = Hanabi(**kwargs)
    decks = deal_decks(env, num_games, seed)
    (rec,) = record_hle([(env, decks, seed)])
    return name, env, decks, rec


def first_mismatch(name: str, what: str, bad: np.ndarray, detail, offset: int = 0) -> str | None:
    """Message for the earliest (step, game) where ``bad`` ``(G, steps, ...)`` holds; index
    ``t`` of ``bad`` is step ``t + offset``."""
    by_step = bad.reshape(bad.shape[0], bad.shape[1], -1).any(-1)
    if not by_step.any():
        return None
    step = int(np.flatnonzero(by_step.any(0))[0])
    game = int(np.flatnonzero(by_step[:, step])[0])
    return f"{name}: game {game}, step {step + offset}: {what} differs: {detail(game, step)}"


def test_same_game_as_hle(variant):
    name, env, decks, rec = variant
    ours = replay(env, decks, rec)
    G, T = rec["actions"].shape
    length = rec["length"]
    assert len(length) == VARIANTS[name][1] and length.min() > 0
    live = np.arange(T + 1)[None, :] <= length[:, None]  # steps 0 .. length
    moved = np.arange(T)[None, :] < length[:, None]  # moves 1 .. length

    def mask(bad: np.ndarray, valid: np.ndarray) -> np.ndarray:
        return bad & valid.reshape(valid.shape + (1,) * (bad.ndim - 2))

    problems = [
        first_mismatch(
            name,
            "observation",
            mask(ours["obs_bad"], live),
            lambda g, t: (
                "players "
                + str(np.flatnonzero(ours["obs_bad"][g, t]).tolist())
                + f", first at index {ours['obs_first'][g, t].tolist()}"
                + f" (layout: { ({k: (s.start, s.stop) for k, s in env.obs_layout.items()}) })"
            ),
        )
    ]
    for key in ("legal", "current", "score", "info", "life", "deck", "terminal", "fireworks"):
        theirs = rec[key]
        problems.append(
            first_mismatch(
                name,
                key,
                mask(ours[key] != theirs, live),
                lambda g, t, k=key, th=theirs: f"ours {ours[k][g, t]}, HLE's {th[g, t]}",
            )
        )
    problems.append(
        first_mismatch(
            name,
            "reward",
            mask(ours["reward"] != rec["reward"], moved),
            lambda g, t: f"ours {ours['reward'][g, t]}, HLE's {rec['reward'][g, t]}",
            offset=1,
        )
    )
    problems.append(
        first_mismatch(
            name,
            "done",
            mask(ours["done"] != rec["terminal"][:, 1:], moved),
            lambda g, t: f"ours {ours['done'][g, t]}, HLE's {rec['terminal'][g, t + 1]}",
            offset=1,
        )
    )
    problems = [p for p in problems if p]
    assert not problems, "\n".join(problems)
    # The games reach what the test is meant to cover.
    final = np.arange(G), length
    assert rec["terminal"][final].all() and not rec["terminal"][:, 0].any()
    assert (rec["life"][final] == 0).any(), "no game lost its last life"
    assert (rec["deck"][final] == 0).any(), "no game ran the deck out"
    assert (rec["fireworks"][final] == env.num_ranks).any(), "no game completed a firework"
    assert (ours["reward"][moved] < 0).any(), "no game lost points with its last life"
    missing = [event for event, happened in coverage(env, rec).items() if not happened.any()]
    assert not missing, f"{name}: no game of {G} shows {missing}"
