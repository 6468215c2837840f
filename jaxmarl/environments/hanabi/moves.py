"""Move tables: what each action index (an HLE move uid) does.

HLE numbers the moves of a game with ``h`` cards per hand, ``p`` players, ``c`` colours
and ``r`` ranks as: ``0 .. h-1`` discard slot i; ``h .. 2h-1`` play slot i; then
``(p-1) * c`` colour hints, ``(o-1) * c + colour`` for the player ``o`` seats after the
actor; then ``(p-1) * r`` rank hints, ``(o-1) * r + rank``. ``num_moves = 2h + (p-1)(c+r)``
(20 for 2 players). jaxmarl adds one index, ``num_moves``, the no-op that every player
but the current one passes.
"""

from __future__ import annotations

import numpy as np

from jaxmarl.environments.hanabi import constants as C
from jaxmarl.environments.hanabi.types import GameConfig

__all__ = ["MoveTable", "describe_move", "move_table"]


class MoveTable:
    """Per action index (``num_moves + 1`` of them, the no-op last): its move type, the
    hand slot it plays or discards, the seat offset of the hinted player, and the colour
    or rank it reveals (0 where a field does not apply), int32 numpy arrays."""

    def __init__(self, config: GameConfig) -> None:
        h, p, c, r = config.hand_size, config.num_agents, config.num_colors, config.num_ranks
        size = config.num_moves + 1
        self.move_type = np.full(size, C.NOOP, np.int32)
        self.slot = np.zeros(size, np.int32)
        self.target_offset = np.zeros(size, np.int32)
        self.color = np.zeros(size, np.int32)
        self.rank = np.zeros(size, np.int32)
        uid = np.arange(size)
        self.move_type[:h] = C.DISCARD
        self.slot[:h] = uid[:h]
        self.move_type[h : 2 * h] = C.PLAY
        self.slot[h : 2 * h] = uid[:h]
        colour_hints = slice(2 * h, 2 * h + (p - 1) * c)
        k = np.arange((p - 1) * c)
        self.move_type[colour_hints] = C.REVEAL_COLOR
        self.target_offset[colour_hints] = 1 + k // c
        self.color[colour_hints] = k % c
        rank_hints = slice(2 * h + (p - 1) * c, config.num_moves)
        k = np.arange((p - 1) * r)
        self.move_type[rank_hints] = C.REVEAL_RANK
        self.target_offset[rank_hints] = 1 + k // r
        self.rank[rank_hints] = k % r


def move_table(config: GameConfig) -> MoveTable:
    """The :class:`MoveTable` of ``config``."""
    return MoveTable(config)


def describe_move(config: GameConfig, uid: int) -> str:
    """A short description of action ``uid``, e.g. ``"play slot 2"`` or
    ``"reveal color Y to player +1"``."""
    if not 0 <= uid <= config.num_moves:
        raise ValueError(f"Hanabi: action {uid} is not in 0..{config.num_moves}")
    t = move_table(config)
    kind = int(t.move_type[uid])
    if kind == C.DISCARD:
        return f"discard slot {t.slot[uid]}"
    if kind == C.PLAY:
        return f"play slot {t.slot[uid]}"
    if kind == C.REVEAL_COLOR:
        return f"reveal color {C.COLOR_CHARS[t.color[uid]]} to player +{t.target_offset[uid]}"
    if kind == C.REVEAL_RANK:
        return f"reveal rank {t.rank[uid] + 1} to player +{t.target_offset[uid]}"
    return "no-op"
