"""JaxMARL 0.2.0's ``HanabiEnv`` methods, on our Hanabi state.

``Hanabi`` (``env.py``) takes these functions as methods and properties under JaxMARL's
names, so code written for JaxMARL's ``HanabiEnv`` runs unchanged. Where JaxMARL's
structures differ from ours they are converted at the boundary:

- decks may be given as JaxMARL's one-hot cards (``(deck_size, num_colors, num_ranks)``),
  as ``(colour, rank)`` pairs (``..._of_pairs``) or as our card ids (``(deck_size,)``,
  ``colour * num_ranks + rank``); they are dealt in the same order as JaxMARL's
  (``hand_size`` cards to player 0, then to player 1, ...);
- legal moves are float32 masks, one per agent, as JaxMARL's were (``get_legal_moves`` is
  ``get_avail_actions`` as float32);
- a card is a one-hot ``(num_colors, num_ranks)`` matrix or an id.

Our state has no turn counter and keeps discards as counts, so ``get_obs_str`` has no
"Turn" line and lists discards in card order. An illegal move leaves the state
unchanged (JaxMARL applied it anyway).
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.hanabi import constants as C
from jaxmarl.environments.hanabi.generator import initial_state, shuffled_deck
from jaxmarl.environments.hanabi.types import State

if TYPE_CHECKING:
    from jaxmarl.environments.hanabi.env import Hanabi

# ------------------------------------------------------------------------- sizes
# The sections of JaxMARL's observation (the same layout as HLE's canonical encoding).


def hands_n_feats(env: Hanabi) -> int:
    """Size of the hands section: the other hands and the missing-card bits."""
    return env.obs_layout["missing_cards"].stop


def board_n_feats(env: Hanabi) -> int:
    """Size of the board section: deck, fireworks, information and life tokens."""
    return env.obs_layout["life_tokens"].stop - env.obs_layout["deck"].start


def discards_n_feats(env: Hanabi) -> int:
    """Size of the discards section."""
    return env.obs_layout["discards"].stop - env.obs_layout["discards"].start


def last_action_n_feats(env: Hanabi) -> int:
    """Size of the last-action section."""
    return env.obs_layout["last_play_outcome"].stop - env.obs_layout["last_player"].start


def v0_belief_n_feats(env: Hanabi) -> int:
    """Size of the last section (card knowledge: JaxMARL's v0 belief features)."""
    return env.obs_layout["card_knowledge"].stop - env.obs_layout["card_knowledge"].start


# ----------------------------------------------------------------------- actions


def action_set(env: Hanabi) -> jax.Array:
    """Every action index, ``arange(num_moves)`` (the no-op last)."""
    return jnp.arange(env.num_moves)


def num_actions(env: Hanabi) -> int:
    """The number of actions, ``num_moves`` (the no-op included)."""
    return env.num_moves


def agent_range(env: Hanabi) -> jax.Array:
    """Seat indices, ``arange(num_agents)``."""
    return jnp.arange(env.num_agents)


def color_map(env: Hanabi) -> list[str]:
    """The colours' letters, ``["R", "Y", "G", "W", "B"][:num_colors]``."""
    return list(C.COLOR_CHARS[: env.num_colors])


def num_cards_of_rank(env: Hanabi) -> np.ndarray:
    """Copies of each card of one colour, by rank (``cards_per_rank``)."""
    return np.asarray(env.cards_per_rank)


def _range_of(env: Hanabi, kind: int) -> jax.Array:
    return jnp.asarray(np.flatnonzero(env.moves.move_type == kind))


def discard_action_range(env: Hanabi) -> jax.Array:
    """The discard actions, ``0 .. hand_size - 1``."""
    return _range_of(env, C.DISCARD)


def play_action_range(env: Hanabi) -> jax.Array:
    """The play actions, ``hand_size .. 2 hand_size - 1``."""
    return _range_of(env, C.PLAY)


def color_action_range(env: Hanabi) -> jax.Array:
    """The colour hints."""
    return _range_of(env, C.REVEAL_COLOR)


def rank_action_range(env: Hanabi) -> jax.Array:
    """The rank hints."""
    return _range_of(env, C.REVEAL_RANK)


def action_encoding(env: Hanabi) -> dict[int, str]:
    """Each action index in JaxMARL's notation: ``"D0"`` discard slot 0, ``"P0"`` play
    slot 0, ``"HR to P1 relative"`` / ``"H1 to P1 relative"`` hint red / rank 1 to the
    next player, ``"N"`` the no-op."""
    t, chars = env.moves, color_map(env)
    out = {}
    for uid in range(env.num_moves):
        kind = int(t.move_type[uid])
        if kind == C.DISCARD:
            out[uid] = f"D{t.slot[uid]}"
        elif kind == C.PLAY:
            out[uid] = f"P{t.slot[uid]}"
        elif kind == C.REVEAL_COLOR:
            out[uid] = f"H{chars[t.color[uid]]} to P{t.target_offset[uid]} relative"
        elif kind == C.REVEAL_RANK:
            out[uid] = f"H{t.rank[uid] + 1} to P{t.target_offset[uid]} relative"
        else:
            out[uid] = "N"
    return out


def get_legal_moves(env: Hanabi, state: State) -> dict[str, jax.Array]:
    """Each agent's legal actions as a float32 mask ``(num_moves,)``: the current
    player's legal moves, the no-op alone for the others (``get_avail_actions``)."""
    return {a: m.astype(jnp.float32) for a, m in env.get_avail_actions(state).items()}


def terminal(env: Hanabi, state: State) -> jax.Array:
    """Whether the game is over."""
    del env
    return state.terminal


# ------------------------------------------------------------------------ decks


def card_ids(env: Hanabi, deck: Any) -> jax.Array:
    """Card ids ``(deck_size,)`` from a deck of one-hot cards ``(deck_size, num_colors,
    num_ranks)`` or of ids."""
    deck = jnp.asarray(deck)
    if deck.ndim == 3:
        return (
            jnp.argmax(deck.sum(axis=2), axis=1) * env.num_ranks + jnp.argmax(deck.sum(axis=1), axis=1)
        ).astype(jnp.int32)
    if deck.ndim != 1:
        raise ValueError(
            f"Hanabi: a deck is one-hot cards (deck_size, {env.num_colors}, {env.num_ranks}) or card ids "
            f"(deck_size,), got shape {deck.shape}"
        )
    return deck.astype(jnp.int32)


def reset_game(env: Hanabi, key: jax.Array) -> State:
    """A new game's state from a shuffled deck (``reset`` without the observations)."""
    return initial_state(shuffled_deck(key, env.config), env.config)


def reset_game_from_deck(env: Hanabi, deck: Any) -> State:
    """The state of a game dealt from ``deck`` (one-hot cards or ids, dealt in order)."""
    return env.state_from_deck(card_ids(env, deck))


def reset_game_from_deck_of_pairs(env: Hanabi, deck_of_pairs: Any) -> State:
    """The state of a game dealt from ``deck_of_pairs``, ``(deck_size, 2)`` of
    ``(colour, rank)``."""
    pairs = jnp.asarray(deck_of_pairs, jnp.int32)
    return env.state_from_deck(pairs[:, 0] * env.num_ranks + pairs[:, 1])


def reset_from_deck(env: Hanabi, deck: Any) -> tuple[dict[str, jax.Array], State]:
    """``(obs, state)`` of a game dealt from ``deck`` (one-hot cards or ids)."""
    state = reset_game_from_deck(env, deck)
    return env.get_obs(state), state


def reset_from_deck_of_pairs(env: Hanabi, deck_of_pairs: Any) -> tuple[dict[str, jax.Array], State]:
    """``(obs, state)`` of a game dealt from ``(colour, rank)`` pairs."""
    state = reset_game_from_deck_of_pairs(env, deck_of_pairs)
    return env.get_obs(state), state


# ------------------------------------------------------------------------- moves


def step_game(env: Hanabi, state: State, aidx: Any, action: Any) -> tuple[State, jax.Array]:
    """Player ``aidx`` makes move ``action``; the turn passes to ``aidx + 1``. Returns
    ``(state, reward)``, the reward being the change in score. An illegal move leaves
    the state unchanged, with reward 0."""
    state = state.replace(current_player=jnp.asarray(aidx, jnp.int32))
    a = jnp.clip(jnp.asarray(action, jnp.int32), 0, env.noop)
    legal = jnp.append(env.legal_moves(state), False)[a]
    moved = env._apply(state, a)
    new_state = jax.tree.map(lambda x, y: jnp.where(legal, x, y), moved, state)
    return new_state, (env.score(new_state) - env.score(state)).astype(jnp.float32)


# ------------------------------------------------------------------ observations


def get_board_feats(env: Hanabi, state: State) -> jax.Array:
    """The board section of every observation: deck, fireworks, tokens."""
    layout = env.obs_layout
    return env.encoder.encode(state)[0, layout["deck"].start : layout["life_tokens"].stop]


def get_v0_belief_feats(env: Hanabi, aidx: Any, state: State) -> jax.Array:
    """JaxMARL's "v0 belief" of player ``aidx``, float32 ``(num_agents * hand_size *
    (num_colors * num_ranks + num_colors + num_ranks),)``: for seats ``aidx, aidx + 1,
    ...``, slot by slot, the chance of each card given the hints and the cards not yet
    discarded or played (0 for empty slots), then the colour and rank revealed."""
    cfg = env.config
    n, h, c, r = cfg.num_agents, cfg.hand_size, cfg.num_colors, cfg.num_ranks
    total = jnp.tile(jnp.asarray(cfg.cards_per_rank), c)
    played = (jnp.arange(r)[None, :] < state.fireworks[:, None]).reshape(-1)
    count = (total - state.discards - played).astype(jnp.float32)
    plausible = state.color_plausible[..., :, None] & state.rank_plausible[..., None, :]
    knowledge = plausible.reshape(n, h, c * r) & (state.hands >= 0)[..., None]
    weight = knowledge * count
    norm = weight.sum(-1, keepdims=True)
    belief = jnp.where(norm > 0, weight / jnp.where(norm > 0, norm, 1.0), 0.0)
    feats = jnp.concatenate([belief, state.color_revealed, state.rank_revealed], axis=-1)
    return jnp.roll(feats, -jnp.asarray(aidx), axis=0).reshape(-1).astype(jnp.float32)


def card_to_string(env: Hanabi, card: Any) -> str:
    """A card as ``"R3"``: a one-hot ``(num_colors, num_ranks)`` matrix or an id; ``""``
    for an empty card (all zeros, or id ``-1``)."""
    card = np.asarray(card)
    if card.ndim == 2:
        if not card.any():
            return ""
        colour, rank = int(np.argmax(card.sum(axis=1))), int(np.argmax(card.sum(axis=0)))
    else:
        if int(card) < 0:
            return ""
        colour, rank = divmod(int(card), env.num_ranks)
    return f"{C.COLOR_CHARS[colour]}{rank + 1}"


def render_obs(env: Hanabi, obs: dict[str, Any]) -> None:
    """Print each agent's observation by section, and its knowledge of every hand."""
    layout, cfg = env.obs_layout, env.config
    sections = {
        "hand feats": slice(0, layout["missing_cards"].stop),
        "board feats": slice(layout["deck"].start, layout["life_tokens"].stop),
        "discard feats": layout["discards"],
        "last action feats": slice(layout["last_player"].start, layout["last_play_outcome"].stop),
    }
    for i, (agent, agent_obs) in enumerate(obs.items()):
        agent_obs = np.asarray(agent_obs)
        print(f"Obs for {agent}")
        for name, part in sections.items():
            print(name, agent_obs[part])
        knowledge = agent_obs[layout["card_knowledge"]].reshape(cfg.num_agents, cfg.hand_size, -1)
        for z, hand in enumerate(knowledge):
            cards = hand[:, : cfg.num_cards].reshape(-1, cfg.num_colors, cfg.num_ranks)
            print(f"agent {i} representation of the belief of its {z}th-relative agent:", cards)


def last_move(env: Hanabi, state: State) -> int:
    """The action index of the last move (the no-op before the first), read from
    ``state`` (one unbatched state)."""
    cfg = env.config
    s = jax.device_get(state)
    if int(s.last_player) < 0:
        return env.noop
    h, c, r = cfg.hand_size, cfg.num_colors, cfg.num_ranks
    move = np.asarray(s.last_move)
    kind = C.LAST_ACTION_ORDER[int(np.argmax(move[:4]))]
    if kind in (C.PLAY, C.DISCARD):
        slot = int(np.argmax(move[4 + c + r + h : 4 + c + r + 2 * h]))
        return slot if kind == C.DISCARD else h + slot
    offset = (int(s.last_target) - int(s.last_player)) % cfg.num_agents
    if kind == C.REVEAL_COLOR:
        return 2 * h + (offset - 1) * c + int(np.argmax(move[4 : 4 + c]))
    return 2 * h + (cfg.num_agents - 1) * c + (offset - 1) * r + int(np.argmax(move[4 + c : 4 + c + r]))


def get_obs_str(
    env: Hanabi,
    new_state: State,
    old_state: State | None = None,
    action: Any = None,
    include_belief: bool = False,
    best_belief: int = 5,
) -> str:
    """The game from the current player's view as text, in JaxMARL's format: score,
    tokens, deck, discards, fireworks, every hand (the current player's cards hidden)
    with hints and plausible cards (and, with ``include_belief``, the ``best_belief``
    likeliest cards), the last move and the legal moves. ``action`` names the last move
    (read from ``new_state`` when ``None``); ``old_state`` is not needed."""
    del old_state  # our state records the last move
    cfg = env.config
    s = jax.device_get(new_state)
    chars, r = color_map(env), cfg.num_ranks
    encoding = action_encoding(env)
    fireworks = " ".join(
        card_to_string(env, k * r + int(f) - 1) if f > 0 else "" for k, f in enumerate(s.fireworks)
    )
    discards = [card_to_string(env, k) for k in range(cfg.num_cards) for _ in range(int(s.discards[k]))]
    lines = [
        f"Score: {int(env.score(s))}",
        f"Information available: {int(s.info_tokens)}",
        f"Lives available: {int(s.life_tokens)}",
        f"Deck remaining cards: {cfg.deck_size - int(s.next_card)}",
        f"Discards: {' '.join(discards)}",
        f"Fireworks: {fireworks}",
    ]
    current = int(s.current_player)
    belief = np.asarray(get_v0_belief_feats(env, current, new_state)).reshape(
        cfg.num_agents, cfg.hand_size, -1
    )
    belief = np.roll(belief[..., : cfg.num_cards], current, axis=0)  # absolute seats
    for p in range(cfg.num_agents):
        lines.append("Your Hand:" if p == current else "Other Hand:")
        for j in range(cfg.hand_size):
            held = int(s.hands[p, j]) >= 0
            colour = np.flatnonzero(s.color_revealed[p, j])
            rank = np.flatnonzero(s.rank_revealed[p, j])
            hint = (chars[colour[0]] if len(colour) else "") + (str(rank[0] + 1) if len(rank) else "")
            possible = "".join(chars[k] for k in np.flatnonzero(s.color_plausible[p, j])) if held else ""
            possible += "".join(str(k + 1) for k in np.flatnonzero(s.rank_plausible[p, j])) if held else ""
            text = f"Hints: {hint}, Possible: {possible}"
            if include_belief:
                best = set(np.argsort(-belief[p, j])[:best_belief].tolist())
                names = [f"{a}{b + 1}" for a, b in itertools.product(chars, range(r))]
                text += (
                    ", Belief: [" + " ".join(f"{names[k]}: {belief[p, j, k]:.3f}" for k in sorted(best)) + "]"
                )
            card = "" if p == current else f"Card: {card_to_string(env, int(s.hands[p, j]))}, "
            lines.append(f"{j} {card}{text}")
    uid = last_move(env, new_state) if action is None else int(action)
    lines.append(f"Last action: {encoding[uid]}")
    move = np.asarray(s.last_move)
    h, c = cfg.hand_size, cfg.num_colors
    if encoding[uid][0] == "H":
        lines.append(f"Cards afected: {np.flatnonzero(move[4 + c + r : 4 + c + r + h])}")
    elif encoding[uid][0] in "DP":
        played_card = move[4 + c + r + 2 * h : 4 + c + r + 2 * h + cfg.num_cards]
        lines.append(
            f"Card Played: {card_to_string(env, int(np.argmax(played_card)) if played_card.any() else -1)}"
        )
    if encoding[uid][0] == "P":
        lines.append(f"Scored: {bool(move[-2])}")
        lines.append(f"Added Info: {int(move[-1])}")
    legal = np.flatnonzero(np.asarray(env.legal_moves(new_state)))
    lines.append(f"Legal Actions: {[encoding[int(a)] for a in legal]}")
    return "\n".join(lines) + "\n"
