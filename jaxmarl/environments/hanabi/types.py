"""State of a Hanabi game, and the static rules of the variant played."""

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import jax
from flax import struct


@struct.dataclass
class State:
    """State of a Hanabi game, all players' cards included.

    Cards are ids ``colour * num_ranks + rank`` (colours and ranks from 0). Hands keep
    HLE's order: the oldest card first; a played or discarded card leaves a gap that the
    later cards close, and a drawn card goes to the end. Once the deck is empty hands
    shrink and end in empty slots (``-1``). Knowledge is the common knowledge HLE keeps
    per hand slot: which colours and ranks the hints so far leave plausible, and which
    colour and rank were revealed directly.

    Attributes:
        deck: every card in the order it is dealt, int32 ``(deck_size,)``: the first
            ``hand_size`` cards to player 0, the next ``hand_size`` to player 1, and so
            on (HLE's deal order), then one draw after each play or discard.
        next_card: index in ``deck`` of the next card to draw, int32 ``()``.
        hands: cards in hand, int32 ``(num_agents, hand_size)``, ``-1`` for empty slots.
        color_plausible: colours a card may still have, bool ``(num_agents, hand_size, num_colors)``.
        rank_plausible: ranks a card may still have, bool ``(num_agents, hand_size, num_ranks)``.
        color_revealed: the colour a hint named for the card, one-hot bool
            ``(num_agents, hand_size, num_colors)`` (all false: not revealed).
        rank_revealed: the rank a hint named for the card, one-hot bool
            ``(num_agents, hand_size, num_ranks)``.
        fireworks: cards played of each colour, int32 ``(num_colors,)``.
        info_tokens: information tokens left, int32 ``()``.
        life_tokens: life tokens left, int32 ``()``.
        discards: discarded (or misplayed) copies of each card, int32 ``(num_colors * num_ranks,)``.
        current_player: the player whose turn it is, int32 ``()``.
        turns_to_play: turns left once the deck is empty (the number of players until
            then), int32 ``()``.
        last_player: the player who made the last move, int32 ``()`` (``-1``: none yet).
        last_target: the player the last move hinted, int32 ``()`` (``-1``: not a hint).
        last_move: the observer-independent part of the last move's canonical encoding,
            bool ``(4 + num_colors + num_ranks + 2 * hand_size + num_colors * num_ranks + 2,)``:
            move type (play, discard, reveal colour, reveal rank), colour and rank
            revealed, cards the hint touched, slot played or discarded, that card,
            whether the play scored and whether it gained an information token.
        terminal: whether the game is over, bool ``()``.
    """

    deck: jax.Array
    next_card: jax.Array
    hands: jax.Array
    color_plausible: jax.Array
    rank_plausible: jax.Array
    color_revealed: jax.Array
    rank_revealed: jax.Array
    fireworks: jax.Array
    info_tokens: jax.Array
    life_tokens: jax.Array
    discards: jax.Array
    current_player: jax.Array
    turns_to_play: jax.Array
    last_player: jax.Array
    last_target: jax.Array
    last_move: jax.Array
    terminal: jax.Array

    if TYPE_CHECKING:  # provided by flax.struct at runtime

        def replace(self, **changes: Any) -> "State": ...


@dataclass(frozen=True)
class GameConfig:
    """The static rules of one Hanabi variant (validated by the env).

    Attributes:
        num_agents: players, 2 to 5.
        num_colors: colours, 1 to 5.
        num_ranks: ranks, 1 to 5.
        hand_size: cards in a full hand.
        max_info_tokens: information tokens at the start, and at most.
        max_life_tokens: life tokens at the start.
        cards_per_rank: copies of each card of one colour, by rank.
    """

    num_agents: int
    num_colors: int
    num_ranks: int
    hand_size: int
    max_info_tokens: int
    max_life_tokens: int
    cards_per_rank: tuple[int, ...]

    @property
    def num_cards(self) -> int:
        """Distinct cards, ``num_colors * num_ranks``."""
        return self.num_colors * self.num_ranks

    @property
    def deck_size(self) -> int:
        """Cards in the full deck."""
        return self.num_colors * sum(self.cards_per_rank)

    @property
    def num_moves(self) -> int:
        """HLE's ``max_moves``: discards, plays, colour hints and rank hints."""
        return 2 * self.hand_size + (self.num_agents - 1) * (self.num_colors + self.num_ranks)

    @property
    def max_score(self) -> int:
        """Score of complete fireworks, ``num_colors * num_ranks``."""
        return self.num_colors * self.num_ranks
