"""Play Hanabi games in the Hanabi Learning Environment (HLE 0.0.4) with a forced deck
order, and record everything the oracle test compares.

Run as a script, in its own process (HLE's C++ aborts the whole process on bad input)::

    python hanabi_oracle_worker.py games.npz record.npz [games2.npz record2.npz ...]

``games.npz`` holds ``decks`` (int32 ``(G, deck_size)``: cards ``colour * ranks + rank``
in deal order), ``greedy`` (float ``(G,)``, see below), ``seed`` and ``config`` (a JSON
string of HLE game parameters). ``record.npz`` gets, for ``T`` the longest game, step 0
the state after the initial deal and step ``t`` the state after move ``t`` (padding past
a game's end repeats its last state):

- ``length`` ``(G,)``, ``actions`` ``(G, T)`` (move uids, ``-1`` past the end);
- ``obs`` ``(G, T + 1, players, ceil(obs_size / 8))``: every player's canonical
  observation, bit-packed (``np.packbits``);
- ``legal`` ``(G, T + 1, max_moves)`` the current player's legal moves, ``current``
  ``(G, T + 1)`` the current player;
- ``reward`` ``(G, T)``, as ``rl_env.HanabiEnv.step`` computes it (change in score);
- ``score``, ``info``, ``life``, ``deck``, ``terminal`` ``(G, T + 1)``, ``fireworks``
  ``(G, T + 1, colours)``.

Forcing the deck: HLE 0.0.4 cannot deal a chosen card, but a deal move taken from the
history of any game is accepted at any chance node while that card is in the deck. One
deal move per card is harvested from seeded games and re-applied in the wanted order.

Moves: with probability ``greedy[g]`` a move of game ``g`` plays a playable card when the
mover holds one (reading its hidden hand) and is otherwise uniform over the legal moves
that are not plays; else it is uniform over all legal moves. Uniform games (greedy 0)
end early on misplays; greedier ones complete fireworks, run the deck out and play the
last round.
"""

from __future__ import annotations

import json
import sys

import numpy as np
from hanabi_learning_environment import pyhanabi as P

CHANCE = P.CHANCE_PLAYER_ID


def encode(encoder: P.ObservationEncoder, observation: P.HanabiObservation) -> np.ndarray:
    """``encoder.encode(observation)`` as uint8, parsed in numpy: HLE returns the bits as a
    string ``"0,1,0,..."``, which its own Python wrapper parses one int at a time."""
    c_string = P.lib.EncodeObservation(encoder._encoder, observation.observation())
    text = P.ffi.string(c_string)
    P.lib.DeleteString(c_string)
    return np.frombuffer(text, np.uint8)[::2] - ord("0")


def harvest_deals(params: dict, num_cards: int) -> dict[int, object]:
    """One deal move per card id, from the histories of seeded games."""
    deals: dict[int, object] = {}
    for seed in range(10_000):
        game = P.HanabiGame({**params, "seed": seed})
        state = game.new_initial_state()
        rng = np.random.default_rng(seed)
        while not state.is_terminal():
            while state.cur_player() == CHANCE:
                state.deal_random_card()
            if state.is_terminal():
                break
            moves = state.legal_moves()
            discards = [m for m in moves if m.type() == P.HanabiMoveType.DISCARD] or moves
            state.apply_move(discards[rng.integers(len(discards))])
        for item in state.move_history():
            move = item.move()
            if move.type() == P.HanabiMoveType.DEAL:
                deals.setdefault(move.color() * game.num_ranks() + move.rank(), move)
        if len(deals) == num_cards:
            return deals
    raise RuntimeError("could not harvest a deal move for every card")


class Table:
    """One game variant in HLE: its game object, encoder, moves and harvested deals."""

    def __init__(self, params: dict) -> None:
        self.game = P.HanabiGame({**params, "seed": 1})
        self.encoder = P.ObservationEncoder(self.game, P.ObservationEncoderType.CANONICAL)
        self.moves = [self.game.get_move(uid) for uid in range(self.game.max_moves())]
        self.deals = harvest_deals(params, self.game.num_colors() * self.game.num_ranks())

    def deal(self, state: P.HanabiState, deck: np.ndarray, drawn: int) -> int:
        """Resolve chance nodes with the deck's next cards; returns cards drawn so far."""
        while state.cur_player() == CHANCE:
            state.apply_move(self.deals[int(deck[drawn])])
            drawn += 1
        return drawn

    def snapshot(self, state: P.HanabiState) -> dict:
        """What the test compares, for one state."""
        # HLE's LegalMoves(player) is MoveIsLegal over every uid; asking per uid directly
        # skips building a Python object per legal move.
        legal = np.array([P.lib.MoveIsLegal(state._state, m.c_move) for m in self.moves], bool)
        obs = np.stack([encode(self.encoder, state.observation(p)) for p in range(self.game.num_players())])
        return {
            "obs": np.packbits(obs, axis=-1),
            "legal": legal,
            "current": state.cur_player(),
            "score": state.score(),
            "info": state.information_tokens(),
            "life": state.life_tokens(),
            "deck": state.deck_size(),
            "terminal": state.is_terminal(),
            "fireworks": np.array(state.fireworks()),
        }

    def choose(self, state: P.HanabiState, legal: np.ndarray, greedy: float, rng: np.random.Generator):
        """A random legal move (see the module docstring)."""
        moves = [self.moves[uid] for uid in np.flatnonzero(legal)]
        if rng.random() >= greedy:
            return moves[rng.integers(len(moves))]
        hand = state.player_hands()[state.cur_player()]
        playable = [
            i for i, card in enumerate(hand) if state.card_playable_on_fireworks(card.color(), card.rank())
        ]
        if playable:
            return P.HanabiMove.get_play_move(int(rng.choice(playable)))
        others = [m for m in moves if m.type() != P.HanabiMoveType.PLAY] or moves
        return others[rng.integers(len(others))]

    def play(self, deck: np.ndarray, greedy: float, rng: np.random.Generator) -> tuple[list, list, list]:
        """One game from ``deck``: its snapshots, moves and rewards."""
        state = self.game.new_initial_state()
        drawn = self.deal(state, deck, 0)
        steps, actions, rewards = [self.snapshot(state)], [], []
        while not state.is_terminal():
            move = self.choose(state, steps[-1]["legal"], greedy, rng)
            before = state.score()
            actions.append(self.game.get_move_uid(move))
            state.apply_move(move)
            drawn = self.deal(state, deck, drawn)
            rewards.append(state.score() - before)
            steps.append(self.snapshot(state))
        return steps, actions, rewards


def play(params: dict, decks: np.ndarray, greedy: np.ndarray, seed: int) -> dict[str, np.ndarray]:
    """Play every deck; the recording described in the module docstring."""
    table = Table(params)
    rng = np.random.default_rng(seed)
    games = [table.play(deck, eps, rng) for deck, eps in zip(decks, greedy, strict=True)]
    T = max(len(a) for _, a, _ in games)
    out: dict[str, list] = {k: [] for k in ["actions", "reward", *games[0][0][0]]}
    for steps, actions, rewards in games:
        pad = T - len(actions)
        out["actions"].append(actions + [-1] * pad)
        out["reward"].append(rewards + [0] * pad)
        steps = steps + [steps[-1]] * pad
        for key in steps[0]:
            out[key].append(np.stack([np.asarray(s[key]) for s in steps]))
    record = {k: np.asarray(v) for k, v in out.items()}
    record["length"] = np.array([len(a) for _, a, _ in games])
    return record


def main() -> None:
    paths = sys.argv[1:]
    if not paths or len(paths) % 2:
        raise SystemExit("usage: hanabi_oracle_worker.py GAMES.npz RECORD.npz [GAMES.npz RECORD.npz ...]")
    for source, target in zip(paths[::2], paths[1::2], strict=True):
        with np.load(source) as games:
            params = json.loads(str(games["config"]))
            record = play(params, games["decks"], games["greedy"], int(games["seed"]))
        np.savez(target, **record)


if __name__ == "__main__":
    main()
