"""Drive HLE (in a subprocess, ``hanabi_oracle_worker.py``) and replay its games in our
Hanabi, in one jitted ``vmap``-over-games, ``scan``-over-moves call per game variant.

``record_hle`` deals decks with our ``reset`` (so the deal under test is ours), hands
them to the worker, and returns its recordings; ``replay`` runs our env on the same
decks and moves and returns, per move, what the test compares.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from fast_compile import parity_jit as jit

from jaxmarl.environments.hanabi import Hanabi

WORKER = Path(__file__).with_name("hanabi_oracle_worker.py")
# Shares of games by how greedily they play known-playable cards (see the worker).
GREEDY = (0.0, 0.5, 0.9, 1.0)


def hle_params(env: Hanabi) -> dict:
    """HLE's game parameters for our env's variant."""
    return {
        "players": env.num_agents,
        "colors": env.num_colors,
        "ranks": env.num_ranks,
        "hand_size": env.hand_size,
        "max_information_tokens": env.max_info_tokens,
        "max_life_tokens": env.max_life_tokens,
    }


def deal_decks(env: Hanabi, num_games: int, seed: int) -> np.ndarray:
    """Decks of ``num_games`` games started by our ``reset``, int32 ``(G, deck_size)``."""
    keys = jax.random.split(jax.random.PRNGKey(seed), num_games)
    _, states = jit(jax.vmap(env.reset))(keys)
    return np.asarray(states.deck)


def record_hle(jobs: list[tuple[Hanabi, np.ndarray, int]]) -> list[dict[str, np.ndarray]]:
    """Play each ``(env, decks, seed)`` job's games in HLE, all in one worker process."""
    with tempfile.TemporaryDirectory() as tmp:
        args = []
        for i, (env, decks, seed) in enumerate(jobs):
            source, target = Path(tmp, f"games{i}.npz"), Path(tmp, f"record{i}.npz")
            greedy = np.resize(np.asarray(GREEDY), len(decks))
            np.savez(source, decks=decks, greedy=greedy, seed=seed, config=json.dumps(hle_params(env)))
            args += [str(source), str(target)]
        subprocess.run([sys.executable, str(WORKER), *args], check=True, capture_output=True, text=True)
        records = []
        for i in range(len(jobs)):
            with np.load(Path(tmp, f"record{i}.npz")) as rec:
                records.append({k: rec[k] for k in rec.files})
    return records


def replay(env: Hanabi, decks: np.ndarray, rec: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Our env on HLE's decks and moves; every output is indexed ``(game, step, ...)``
    like the recording (step 0: after the deal; step t: after move t).

    Returns ``obs_bad`` (bool ``(G, T + 1, players)``: our observation differs from
    HLE's) and ``obs_first`` (the first differing index), ``legal``, ``current``,
    ``score``, ``info``, ``life``, ``deck``, ``terminal``, ``fireworks`` (``T + 1`` steps)
    and ``reward``, ``done`` (``T`` steps)."""
    n, size = env.num_agents, env.obs_size
    actions = np.where(rec["actions"] < 0, env.noop, rec["actions"]).astype(np.int32)
    seats = jnp.arange(n)

    def observe(state):
        ours = env.encoder.encode(state) > 0
        return {
            "legal": env.legal_moves(state),
            "current": state.current_player,
            "score": env.score(state),
            "info": state.info_tokens,
            "life": state.life_tokens,
            "deck": env.deck_size - state.next_card,
            "terminal": state.terminal,
            "fireworks": state.fireworks,
        }, ours

    def compare(ours, packed):
        theirs = jnp.unpackbits(packed, axis=-1)[..., :size] > 0
        bad = ours != theirs
        return jnp.any(bad, -1), jnp.argmax(bad, -1)

    def game(deck, moves, packed_obs):
        state = env.state_from_deck(deck)

        def move(state, xs):
            a, packed = xs
            acts = jnp.where(seats == state.current_player, a, env.noop)
            _, state, reward, done, _ = env.step_env(
                jax.random.PRNGKey(0), state, {agent: acts[i] for i, agent in enumerate(env.agents)}
            )
            out, ours = observe(state)
            out["obs_bad"], out["obs_first"] = compare(ours, packed)
            out["reward"], out["done"] = reward[env.agents[0]], done["__all__"]
            return state, out

        first, ours = observe(state)
        first["obs_bad"], first["obs_first"] = compare(ours, packed_obs[0])
        _, steps = jax.lax.scan(move, state, (moves, packed_obs[1:]))
        return first, steps

    run = jit(jax.vmap(game))
    first, steps = jax.device_get(run(jnp.asarray(decks), jnp.asarray(actions), jnp.asarray(rec["obs"])))
    out = {}
    for key, value in steps.items():
        if key in ("reward", "done"):
            out[key] = np.asarray(value)
        else:
            out[key] = np.concatenate([np.asarray(first[key])[:, None], np.asarray(value)], axis=1)
    return out


def coverage(env: Hanabi, rec: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """What happened in each recorded game: event name -> bool ``(G,)``.

    - ``move <uid>``: the move was made (every discard and play slot, every hint to
      every other player of every colour and rank);
    - ``scored``, ``misplay``: a card was played onto its firework / lost a life;
    - ``completed, token back``: a firework was completed with fewer than the maximum
      information tokens (one comes back); ``completed at max tokens``: with the maximum
      (none does);
    - ``no info tokens``: a player had to move with no information token (no hint legal);
    - ``last round``: a player moved with the deck empty;
    - ``end: lives`` / ``end: deck`` / ``end: perfect``: the game ended by losing the last
      life / after the last round / with every firework complete;
    - ``lost points``: a move's reward was negative (the last life lost with points on
      the board).
    """
    G, T = rec["actions"].shape
    length = rec["length"]
    moved = np.arange(T)[None, :] < length[:, None]  # (G, T): moves 1 .. length
    live = np.arange(T + 1)[None, :] <= length[:, None]  # states 0 .. length
    to_move = live & ~rec["terminal"]  # states in which a player is to move
    fireworks, info, max_score = rec["fireworks"], rec["info"], env.num_colors * env.num_ranks
    events = {f"move {uid}": np.any((rec["actions"] == uid) & moved, axis=1) for uid in range(env.noop)}
    completed = np.any((fireworks[:, 1:] == env.num_ranks) & (fireworks[:, :-1] < env.num_ranks), -1) & moved
    final = np.arange(G), length
    final_score = fireworks[final].sum(-1)
    events |= {
        "scored": np.any((fireworks[:, 1:].sum(-1) > fireworks[:, :-1].sum(-1)) & moved, axis=1),
        "misplay": np.any((rec["life"][:, 1:] < rec["life"][:, :-1]) & moved, axis=1),
        "completed, token back": np.any(completed & (info[:, 1:] > info[:, :-1]), axis=1),
        "completed at max tokens": np.any(completed & (info[:, :-1] == env.max_info_tokens), axis=1),
        "no info tokens": np.any((info == 0) & to_move, axis=1),
        "last round": np.any((rec["deck"] == 0) & to_move, axis=1),
        "end: lives": rec["life"][final] == 0,
        "end: deck": (rec["life"][final] > 0) & (rec["deck"][final] == 0) & (final_score < max_score),
        "end: perfect": final_score == max_score,
        "lost points": np.any((rec["reward"] < 0) & moved, axis=1),
    }
    return events
