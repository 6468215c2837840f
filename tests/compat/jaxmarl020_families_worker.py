"""Oracle side of ``test_jaxmarl020_families.py``: what JaxMARL 0.2.0's own objects say.

Run with the JaxMARL 0.2.0 interpreter (``tests/oracles/jaxmarl020.py``), from a folder
outside this repository: ``python jaxmarl020_families_worker.py <in.npz> <out.json>``.
``in.npz`` holds, per Hanabi game ``g``, a deck of card ids ``deck_g`` (``colour *
num_ranks + rank``), the number of players ``players_g`` and a seed ``seed_g``. The worker
writes JSON with

- ``overcooked``: the five ``overcooked_layouts`` dicts and ``layout_grid_to_dict`` of
  ``counter_circuit_grid``, as lists;
- ``hanabi_sizes``: per player count, ``action_encoding``, the action ranges, the feature
  sizes and ``color_map`` of ``make("hanabi", num_agents=n)``;
- ``games``: per game, a game dealt with ``reset_from_deck`` (one-hot cards) and played
  with legal moves drawn at random, stopped before the deck runs out (JaxMARL's end of
  game differs from HLE's); at every step the move, the current player's legal moves, the
  board features, every player's v0 belief features, the reward of ``step_game``, every
  hand (card ids, -1 empty) and, at the first ``STR_STEPS`` moves of the first game,
  ``get_obs_str`` (given the state before the last move and that move); and ``card_to_string`` of every
  card. Moves are drawn among the legal ones: a playable card half the time, else mostly a
hint or a discard; at most ``MAX_STEPS`` moves.
"""

from __future__ import annotations

import json
import os
import sys

os.environ.setdefault("JAX_PLATFORMS", "cpu")
# Tiny workloads: compiling is what costs, so skip XLA's backend optimisations.
os.environ["XLA_FLAGS"] = os.environ.get("XLA_FLAGS", "") + " --xla_backend_optimization_level=0"

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl import make
from jaxmarl.environments.overcooked.layouts import (
    counter_circuit_grid,
    layout_grid_to_dict,
    overcooked_layouts,
)

jax.config.update("jax_disable_most_optimizations", True)

STR_STEPS = 12  # get_obs_str is recorded at the first moves of the first game
MAX_STEPS = 40  # moves per game at most


def as_lists(layout) -> dict:
    return {k: (np.asarray(v).tolist() if not isinstance(v, int) else v) for k, v in layout.items()}


def sizes(n: int) -> dict:
    env = make("hanabi", num_agents=n)
    return {
        "action_encoding": {str(k): v for k, v in env.action_encoding.items()},
        "ranges": [
            np.asarray(r).tolist()
            for r in (
                env.discard_action_range,
                env.play_action_range,
                env.color_action_range,
                env.rank_action_range,
            )
        ],
        "feats": [
            int(env.hands_n_feats),
            int(env.board_n_feats),
            int(env.discards_n_feats),
            int(env.last_action_n_feats),
            int(env.v0_belief_n_feats),
        ],
        "color_map": list(env.color_map),
        "num_moves": int(env.num_moves),
        # every card, then an empty one
        "card_strings": [env.card_to_string(c) for c in np.eye(25).reshape(25, 5, 5)]
        + [env.card_to_string(np.zeros((5, 5)))],
    }


def play(deck: np.ndarray, n: int, seed: int, strings: bool) -> dict:
    env = make("hanabi", num_agents=n)
    one_hot = jax.nn.one_hot(jnp.asarray(deck), env.num_colors * env.num_ranks).reshape(
        -1, env.num_colors, env.num_ranks
    )
    _, state = env.reset_from_deck(one_hot)
    step_game = jax.jit(env.step_game)
    legal_moves = jax.jit(env.get_legal_moves)
    beliefs = jax.jit(jax.vmap(env.get_v0_belief_feats, in_axes=(0, None)))
    rng = np.random.default_rng(seed)
    out: dict = {k: [] for k in ("actions", "legal", "board", "belief", "reward", "hands", "obs_str")}
    last, previous = env.num_moves - 1, None
    while (
        int(state.num_cards_dealt) < env.deck_size
        and not bool(state.terminal)
        and len(out["actions"]) < MAX_STEPS
    ):
        current = int(np.argmax(np.asarray(state.cur_player_idx)))
        legal = np.asarray(legal_moves(state)[env.agents[current]])
        out["legal"].append(legal.tolist())
        out["board"].append(np.asarray(env.get_board_feats(state)).tolist())
        out["belief"].append(np.asarray(beliefs(jnp.arange(n), state)).tolist())
        hands = np.asarray(state.player_hands).reshape(n, env.hand_size, -1)
        out["hands"].append(np.where(hands.any(-1), hands.argmax(-1), -1).tolist())
        if strings and len(out["actions"]) < STR_STEPS:
            out["obs_str"].append(env.get_obs_str(state, previous, action=last))
        # Random legal moves, but a playable card is played half the time (fireworks grow).
        hand = np.asarray(state.player_hands[current])
        height = np.asarray(state.fireworks).sum(-1)  # cards played per colour
        playable = [
            j
            for j, c in enumerate(hand)
            if c.any() and c.argmax() % env.num_ranks == height[c.argmax() // env.num_ranks]
        ]
        quiet = [a for a in np.flatnonzero(legal) if not env.hand_size <= a < 2 * env.hand_size]
        u = rng.random()
        if playable and u < 0.5:
            action = env.hand_size + int(rng.choice(playable))
        elif quiet and u < 0.9:  # a hint or a discard
            action = int(rng.choice(quiet))
        else:  # any legal move, a misplay perhaps
            action = int(rng.choice(np.flatnonzero(legal)))
        previous = state
        state, reward = step_game(state, current, action)
        out["actions"].append(action)
        out["reward"].append(float(reward))
        last = action
    return out


def main() -> None:
    src, dst = sys.argv[1], sys.argv[2]
    data = np.load(src)
    games = sorted(int(k.split("_")[1]) for k in data.files if k.startswith("deck_"))
    result = {
        "overcooked": {name: as_lists(layout) for name, layout in overcooked_layouts.items()},
        "counter_circuit_grid": as_lists(layout_grid_to_dict(counter_circuit_grid)),
        "hanabi_sizes": {str(n): sizes(n) for n in range(2, 6)},
        "games": [
            play(data[f"deck_{g}"], int(data[f"players_{g}"]), int(data[f"seed_{g}"]), g == 0) for g in games
        ],
    }
    with open(dst, "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main()
