"""Dealing: a shuffled deck and the initial state it gives.

HLE draws each card uniformly from those left in the deck, which is the same as dealing
a uniformly shuffled deck from the top. Its first moves deal ``hand_size`` cards to
player 0, then ``hand_size`` to player 1, and so on (not round robin); every later card
is drawn by the player who just played or discarded. ``initial_state`` deals a given
deck in that order, so a game here and a game in HLE forced to the same deck order
(see ``tests/oracles/hanabi_oracle_worker.py``) see the same cards.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.hanabi import constants as C
from jaxmarl.environments.hanabi.types import GameConfig, State

__all__ = ["initial_state", "shuffled_deck", "sorted_deck"]


def sorted_deck(config: GameConfig) -> np.ndarray:
    """Every card of the deck, by colour then rank, int32 ``(deck_size,)``."""
    per_colour = np.repeat(np.arange(config.num_ranks), config.cards_per_rank)
    return np.concatenate([c * config.num_ranks + per_colour for c in range(config.num_colors)]).astype(
        np.int32
    )


def shuffled_deck(key: jax.Array, config: GameConfig) -> jax.Array:
    """A uniformly shuffled deck, int32 ``(deck_size,)``.

    Every card gets a random 32-bit sort key whose low ``ceil(log2(deck_size))`` bits are
    replaced by its position in the sorted deck, so that keys are distinct and one
    single-operand sort orders the deck (several times faster on CPU than
    ``jax.random.permutation``, which sorts key-value pairs in several rounds). The deck
    is uniform except when two cards draw the same random high bits and keep their
    original order: a total-variation distance below ``deck_size**2 / 2**(33 - bits)``
    (2e-5 for the default 50 cards).
    """
    size = config.deck_size
    bits = max(1, int(np.ceil(np.log2(size))))
    position = jnp.arange(size, dtype=jnp.uint32)
    keys = (jax.random.bits(key, (size,), jnp.uint32) >> bits << bits) | position
    order = (jnp.sort(keys) & ((1 << bits) - 1)).astype(jnp.int32)
    return jnp.asarray(sorted_deck(config))[order]


def initial_state(deck: jax.Array, config: GameConfig) -> State:
    """The state before the first move when the cards come in the order of ``deck``.

    Args:
        deck: int32 ``(deck_size,)``, a permutation of :func:`sorted_deck`.
        config: the rules.
    """
    n, h, c, r = config.num_agents, config.hand_size, config.num_colors, config.num_ranks
    deck = jnp.asarray(deck, jnp.int32)
    return State(
        deck=deck,
        next_card=jnp.int32(n * h),
        hands=deck[: n * h].reshape(n, h),
        color_plausible=jnp.ones((n, h, c), bool),
        rank_plausible=jnp.ones((n, h, r), bool),
        color_revealed=jnp.zeros((n, h, c), bool),
        rank_revealed=jnp.zeros((n, h, r), bool),
        fireworks=jnp.zeros((c,), jnp.int32),
        info_tokens=jnp.int32(config.max_info_tokens),
        life_tokens=jnp.int32(config.max_life_tokens),
        discards=jnp.zeros((c * r,), jnp.int32),
        current_player=jnp.int32(0),
        turns_to_play=jnp.int32(n),
        last_player=jnp.int32(C.EMPTY),
        last_target=jnp.int32(C.EMPTY),
        last_move=jnp.zeros((last_move_size(config),), bool),
        terminal=jnp.array(False),
    )


def last_move_size(config: GameConfig) -> int:
    """Length of ``State.last_move``: the last-action encoding without its two
    player one-hots."""
    return 4 + config.num_colors + config.num_ranks + 2 * config.hand_size + config.num_cards + 2
