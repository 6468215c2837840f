"""Constants of Hanabi: defaults, move types, card names and colours.

The defaults and the deck composition are those of the Hanabi Learning Environment
(HLE, Bard et al., 2020, ``hanabi_learning_environment`` 0.0.4): 5 colours, 5 ranks,
8 information tokens, 3 life tokens, hands of 5 cards for 2-3 players and 4 for 4-5,
and per colour three 1s, two of every middle rank and one of the highest rank.
"""

from __future__ import annotations

import numpy as np

# ---------------------------------------------------------------------------- defaults
MIN_PLAYERS, MAX_PLAYERS = 2, 5
MAX_COLORS, MAX_RANKS = 5, 5  # HLE's limits (its colour letters and its encoder)
MAX_HAND_SIZE = 8  # HLE records reveal outcomes in an 8-bit mask
NUM_COLORS = 5
NUM_RANKS = 5
MAX_INFO_TOKENS = 8
MAX_LIFE_TOKENS = 3


def default_hand_size(num_agents: int) -> int:
    """HLE's hand size: 5 cards for 2 or 3 players, 4 for more."""
    return 5 if num_agents < 4 else 4


def default_cards_per_rank(num_ranks: int) -> tuple[int, ...]:
    """HLE's copies of each card of one colour, by rank: three of the lowest rank, one of
    the highest and two of every other (a single rank gets three)."""
    return tuple(3 if r == 0 else 1 if r == num_ranks - 1 else 2 for r in range(num_ranks))


# ---------------------------------------------------------------------------- moves
# Move types, in the order of HLE's move uids (discards first, then plays, colour hints,
# rank hints); the no-op every non-acting agent passes comes last.
DISCARD, PLAY, REVEAL_COLOR, REVEAL_RANK, NOOP = 0, 1, 2, 3, 4
MOVE_TYPE_NAMES = ("discard", "play", "reveal_color", "reveal_rank", "noop")
# Order of the move types in the last-action section of the canonical observation.
LAST_ACTION_ORDER = (PLAY, DISCARD, REVEAL_COLOR, REVEAL_RANK)

# ---------------------------------------------------------------------------- cards
COLOR_CHARS = "RYGWB"  # HLE's colour letters, in colour index order
COLOR_NAMES = ("red", "yellow", "green", "white", "blue")
EMPTY = -1  # an empty hand slot

# ---------------------------------------------------------------------------- viewer
# RGB in [0, 1] of the card colours, in colour index order.
CARD_RGB = np.array(
    [[0.86, 0.20, 0.18], [0.95, 0.80, 0.15], [0.20, 0.65, 0.30], [0.96, 0.96, 0.96], [0.20, 0.45, 0.85]],
    np.float32,
)
TABLE_RGB = np.array([0.13, 0.30, 0.22], np.float32)
HIDDEN_RGB = np.array([0.45, 0.45, 0.50], np.float32)
PIP_RGB = np.array([0.05, 0.05, 0.05], np.float32)
INFO_RGB = np.array([0.30, 0.55, 0.95], np.float32)
LIFE_RGB = np.array([0.90, 0.25, 0.25], np.float32)
SPENT_RGB = np.array([0.25, 0.25, 0.25], np.float32)
CURRENT_RGB = np.array([1.0, 0.85, 0.2], np.float32)
