"""Rendering of a Hanabi table from one player's view: text, and an RGB image in pure JAX.

The image (``render_table``) is a set of rectangles whose places are fixed by the game
variant and whose colours and pips come from the state, so it runs under ``jit`` and
``vmap``. Drawn, top to bottom: the deck (its fill shows the cards left), information
tokens (blue) and life tokens (red), spent ones grey; the fireworks (one card per colour,
as many pips as cards played); then every hand, starting with the viewer's, a yellow
bar marking the player to move. The viewer's own cards are grey backs, painted in their
colour once a hint revealed it and with pips once a hint revealed their rank; other
players' cards show colour and rank (pips). On the right, the discards: one small card
per kind with a pip per copy discarded.

The text view (``table_text``) follows HLE's ``HanabiState::ToString`` (a card as ``R3``,
its knowledge as ``hinted colour and rank | plausible colours and ranks``).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.hanabi import constants as C
from jaxmarl.environments.hanabi.types import GameConfig, State
from jaxmarl.viz.raster import pixels_per_cell, to_uint8

__all__ = ["card_text", "render_table", "table_text", "table_units"]

_CARD_W, _CARD_H, _GAP = 8, 12, 2  # in layout units (``scale`` whole pixels each)
_MAX_PIPS = 5


def _layout(config: GameConfig) -> tuple[np.ndarray, dict[str, slice], tuple[int, int]]:
    """Rectangles ``(x, y, w, h)`` in units, int ``(K, 4)``, the slices of each group, and
    the canvas size ``(width, height)`` in units."""
    n, h, c, r = config.num_agents, config.hand_size, config.num_colors, config.num_ranks
    rects: list[tuple[int, int, int, int]] = []
    groups: dict[str, slice] = {}

    def add(name: str, items: list[tuple[int, int, int, int]]) -> None:
        groups[name] = slice(len(rects), len(rects) + len(items))
        rects.extend(items)

    token = 4
    add("deck", [(_GAP, _GAP, _CARD_W, _CARD_H)])
    x0 = 2 * _GAP + _CARD_W
    add("info", [(x0 + i * (token + 1), _GAP, token, token) for i in range(config.max_info_tokens)])
    add(
        "life",
        [(x0 + i * (token + 1), _GAP + token + 2, token, token) for i in range(config.max_life_tokens)],
    )
    y = 2 * _GAP + _CARD_H + _GAP
    add("fireworks", [(_GAP + 3 + i * (_CARD_W + _GAP), y, _CARD_W, _CARD_H) for i in range(c)])
    hands_y = y + _CARD_H + 2 * _GAP
    row = _CARD_H + _GAP
    add("marker", [(_GAP, hands_y + k * row, 2, _CARD_H) for k in range(n)])
    add(
        "hands",
        [
            (_GAP + 3 + j * (_CARD_W + _GAP), hands_y + k * row, _CARD_W, _CARD_H)
            for k in range(n)
            for j in range(h)
        ],
    )
    left_w = max(
        _GAP + 3 + max(h, c) * (_CARD_W + _GAP),
        x0 + max(config.max_info_tokens, config.max_life_tokens) * (token + 1) + _GAP,
    )
    small_w, small_h = 5, 8
    add(
        "discards",
        [
            (left_w + _GAP + k * (small_w + 1), _GAP + i * (small_h + 1), small_w, small_h)
            for i in range(c)
            for k in range(r)
        ],
    )
    width = max(left_w, left_w + _GAP + r * (small_w + 1) + _GAP)
    height = max(hands_y + n * row + _GAP, _GAP + c * (small_h + 1) + _GAP)
    return np.asarray(rects, np.int32), groups, (width, height)


def table_units(config: GameConfig) -> tuple[int, int]:
    """The table's ``(width, height)`` in layout units for the game variant."""
    return _layout(config)[2]


def render_table(state: State, config: GameConfig, player: int = 0, size: int = 360) -> jax.Array:
    """Draw the table as ``player`` sees it.

    Args:
        state: the state.
        config: the game variant.
        player: the viewer (its own cards are hidden), an int or int32 scalar.
        size: the image's longer side in pixels, a Python ``int``. Each layout unit gets
            ``scale = size // L`` whole pixels, ``L`` being the longer side of the layout
            in units (``table_units``), so the image may be up to ``L - 1`` pixels short
            of ``size``. ``ValueError`` unless ``size >= L``.

    Returns:
        uint8 ``(height * scale, width * scale, 3)``, ``(width, height)`` in units.
    """
    n, h, r = config.num_agents, config.hand_size, config.num_ranks
    rects, groups, (width, height) = _layout(config)
    scale = pixels_per_cell(size, max(width, height))
    k = len(rects)
    # Static per-pixel maps: which rectangle, and where inside it (u, v in [0, 1)).
    slot = np.full((height * scale, width * scale), k, np.int32)
    u = np.zeros(slot.shape, np.float32)
    v = np.zeros(slot.shape, np.float32)
    border = np.zeros(slot.shape, bool)
    for i, (x, y, w, hh) in enumerate(rects):
        ys, xs = np.mgrid[y * scale : (y + hh) * scale, x * scale : (x + w) * scale]
        slot[ys, xs] = i
        u[ys, xs] = (xs - x * scale + 0.5) / (w * scale)
        v[ys, xs] = (ys - y * scale + 0.5) / (hh * scale)
        edge = max(1, scale // 2)
        border[ys, xs] = (
            (xs - x * scale < edge) | ((x + w) * scale - 1 - xs < edge) | (ys - y * scale < edge)
        ) | ((y + hh) * scale - 1 - ys < edge)
    aspect = np.array([w / hh for (_, _, w, hh) in rects] + [1.0], np.float32)

    table, hidden, spent = jnp.asarray(C.TABLE_RGB), jnp.asarray(C.HIDDEN_RGB), jnp.asarray(C.SPENT_RGB)
    colours = jnp.asarray(C.CARD_RGB[: config.num_colors])
    fill = jnp.zeros((k + 1, 3)).at[k].set(table)
    pips = jnp.zeros((k + 1,), jnp.int32)
    level = jnp.ones((k + 1,))  # share of the rectangle filled, from the bottom
    drawn = jnp.ones((k + 1,), bool).at[k].set(False)

    fill = fill.at[groups["deck"]].set(hidden)
    level = level.at[groups["deck"]].set((config.deck_size - state.next_card) / config.deck_size)
    info_on = jnp.arange(config.max_info_tokens) < state.info_tokens
    fill = fill.at[groups["info"]].set(jnp.where(info_on[:, None], jnp.asarray(C.INFO_RGB), spent))
    life_on = jnp.arange(config.max_life_tokens) < state.life_tokens
    fill = fill.at[groups["life"]].set(jnp.where(life_on[:, None], jnp.asarray(C.LIFE_RGB), spent))
    fill = fill.at[groups["fireworks"]].set(
        jnp.where((state.fireworks > 0)[:, None], colours, 0.5 * colours + 0.5 * table)
    )
    pips = pips.at[groups["fireworks"]].set(state.fireworks)

    seats = (player + jnp.arange(n)) % n
    fill = fill.at[groups["marker"]].set(
        jnp.where((seats == state.current_player)[:, None], jnp.asarray(C.CURRENT_RGB), table)
    )
    cards = state.hands[seats]  # (n, h), the viewer's first
    known_colour = jnp.any(state.color_revealed[seats], -1)
    known_rank = jnp.any(state.rank_revealed[seats], -1)
    own = (jnp.arange(n) == 0)[:, None]
    card_colour = colours[jnp.clip(cards // r, 0, config.num_colors - 1)]
    show_colour = ~own | known_colour
    hand_fill = jnp.where(show_colour[..., None], card_colour, hidden)
    hand_pips = jnp.where(~own | known_rank, cards % r + 1, 0)
    fill = fill.at[groups["hands"]].set(hand_fill.reshape(n * h, 3))
    pips = pips.at[groups["hands"]].set(hand_pips.reshape(n * h))
    drawn = drawn.at[groups["hands"]].set((cards >= 0).reshape(n * h))

    discarded = state.discards
    kinds = jnp.repeat(colours, r, axis=0)
    fill = fill.at[groups["discards"]].set(
        jnp.where((discarded > 0)[:, None], kinds, 0.5 * kinds + 0.5 * table)
    )
    pips = pips.at[groups["discards"]].set(discarded)

    # Per pixel.
    s = jnp.asarray(slot)
    pixel_fill = fill[s]
    inside = drawn[s] & (jnp.asarray(v) >= 1.0 - level[s])
    j = jnp.arange(_MAX_PIPS)
    count = jnp.minimum(pips[s], _MAX_PIPS)[..., None]
    centre_v = (j + 1.0) / (count + 1.0)  # pips stacked down the middle
    radius = 0.11
    du = (jnp.asarray(u)[..., None] - 0.5) * jnp.asarray(aspect)[s][..., None]
    dv = jnp.asarray(v)[..., None] - centre_v
    pip = jnp.any((j < count) & (du**2 + dv**2 <= radius**2), axis=-1)
    img = jnp.where(inside[..., None], pixel_fill, table)
    img = jnp.where((inside & pip)[..., None], jnp.asarray(C.PIP_RGB), img)
    img = jnp.where((drawn[s] & jnp.asarray(border))[..., None], 0.15, img)
    return to_uint8(img)


def card_text(card: int, num_ranks: int) -> str:
    """A card as HLE writes it (``"R3"``), ``"XX"`` for an unknown one."""
    if card < 0:
        return "XX"
    return f"{C.COLOR_CHARS[card // num_ranks]}{card % num_ranks + 1}"


def table_text(state: State, config: GameConfig, player: int | None = None) -> str:
    """The table as text, from ``player``'s view (its cards shown as ``XX``) or, with
    ``None``, with every card shown. One unbatched state."""
    s = jax.device_get(state)
    r = config.num_ranks
    chars = C.COLOR_CHARS[: config.num_colors]
    lines = [
        f"Life tokens: {int(s.life_tokens)}",
        f"Info tokens: {int(s.info_tokens)}",
        "Fireworks: " + " ".join(f"{chars[i]}{int(f)}" for i, f in enumerate(s.fireworks)),
        "Hands:",
    ]
    for p in range(config.num_agents):
        if p > 0:
            lines.append("-----")
        if p == int(s.current_player) and not bool(s.terminal):
            lines.append("Cur player")
        for j in range(config.hand_size):
            card = int(s.hands[p, j])
            if card < 0:
                continue
            shown = "XX" if p == player else card_text(card, r)
            colour = np.flatnonzero(s.color_revealed[p, j])
            rank = np.flatnonzero(s.rank_revealed[p, j])
            hint = (chars[colour[0]] if len(colour) else "X") + (str(rank[0] + 1) if len(rank) else "X")
            plausible = "".join(chars[c] for c in np.flatnonzero(s.color_plausible[p, j]))
            plausible += "".join(str(k + 1) for k in np.flatnonzero(s.rank_plausible[p, j]))
            lines.append(f"{shown} || {hint}|{plausible}")
    lines.append(f"Deck size: {config.deck_size - int(s.next_card)}")
    discards = [card_text(card, r) for card in range(config.num_cards) for _ in range(int(s.discards[card]))]
    lines.append("Discards:" + "".join(f" {d}" for d in discards))
    if bool(s.terminal):
        lines.append("Game over")
    return "\n".join(lines)
