"""Overcooked kitchens: the five classic layouts and a parser for ASCII layouts.

A layout is drawn in overcooked-ai's characters, one string row per line::

    X  counter           P  pot             O  onion dispenser
    D  dish dispenser    S  serving counter (space) floor
    1  cook agent_0      2  cook agent_1 (both stand on floor)

Rows may be indented (leading and trailing whitespace is stripped, as overcooked-ai
does) and blank lines around the grid are ignored. The five classic layouts are those
of Carroll et al. (2019), as shipped in overcooked-ai 1.1.0 (``counter_circuit`` is its
``counter_circuit_o_1order``, the onion-only kitchen of the paper; 1.1.0's
``counter_circuit`` added tomatoes).

:func:`parse_layout` checks a layout and raises a :class:`LayoutError` naming the
problem and where it is (``x`` the column, ``y`` the row, both from 0): ragged rows,
unknown characters, cooks missing or repeated, floor on the border (cooks could walk
off the grid), or no pot, serving counter, onion or dish dispenser.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from flax.core.frozen_dict import FrozenDict

from jaxmarl.environments.overcooked import constants as C

__all__ = [
    "CLASSIC_LAYOUTS",
    "Layout",
    "LayoutError",
    "get_layout",
    "layout_from_dict",
    "layout_grid_to_dict",
    "layout_to_dict",
    "overcooked_layouts",
    "parse_layout",
]

CLASSIC_LAYOUTS: dict[str, str] = {
    "cramped_room": """
XXPXX
O  2O
X1  X
XDXSX
""",
    "asymmetric_advantages": """
XXXXXXXXX
O XSXOX S
X   P 1 X
X2  P   X
XXXDXDXXX
""",
    "coordination_ring": """
XXXPX
X 1 P
D2X X
O   X
XOSXX
""",
    "forced_coordination": """
XXXPX
O X1P
O2X X
D X X
XXXSX
""",
    "counter_circuit": """
XXXPPXXX
X  2   X
D XXXX S
X  1   X
XXXOOXXX
""",
}


class LayoutError(ValueError):
    """A malformed Overcooked layout; the message names the problem and its position."""


@dataclass(frozen=True, eq=False)
class Layout:
    """A checked Overcooked kitchen.

    Attributes:
        name: the classic layout's name, or ``"custom"``.
        rows: the grid as written, one string per row (cooks drawn as ``1`` and ``2``).
        terrain: terrain code of each cell, int32 ``(height, width)`` indexed
            ``[y, x]`` (see ``constants``: floor 0, counter 1, pot 2, onion dispenser 3,
            dish dispenser 4, serving counter 5).
        start_pos: the cooks' start cells, int32 ``(2, 2)`` as ``(x, y)``.
        regions: floor each cook can reach from its start, bool ``(2, height, width)``.
    """

    name: str
    rows: tuple[str, ...]
    terrain: np.ndarray = field(repr=False)
    start_pos: np.ndarray = field(repr=False)
    regions: np.ndarray = field(repr=False)

    @property
    def height(self) -> int:
        return int(self.terrain.shape[0])

    @property
    def width(self) -> int:
        return int(self.terrain.shape[1])

    def cells(self, kind: int) -> np.ndarray:
        """Flat indices ``y * width + x`` of the cells of a terrain kind, int32 ``(k,)``."""
        return np.flatnonzero(self.terrain.reshape(-1) == kind).astype(np.int32)

    def __str__(self) -> str:
        return "\n".join(self.rows)


def _reachable(floor: np.ndarray, start: tuple[int, int]) -> np.ndarray:
    """Floor cells connected to ``start`` (x, y) by moves N/S/E/W, bool ``(H, W)``."""
    seen = np.zeros_like(floor)
    stack = [start]
    while stack:
        x, y = stack.pop()
        if not (0 <= y < floor.shape[0] and 0 <= x < floor.shape[1]) or seen[y, x] or not floor[y, x]:
            continue
        seen[y, x] = True
        stack.extend([(x + dx, y + dy) for dx, dy in C.DIR_TO_VEC.tolist()])
    return seen


def parse_layout(text: str, name: str = "custom") -> Layout:
    """Parse and check an ASCII layout (see the module docstring for the characters).

    Raises:
        LayoutError: naming the problem and its position ``(x, y)``.
    """
    if not isinstance(text, str):
        raise LayoutError(f"a layout must be a string (an ASCII grid), got {type(text).__name__}")
    raw = text.split("\n")
    lines = [line.strip() for line in raw]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    if not lines:
        raise LayoutError("the layout is empty")
    first = next(i for i, line in enumerate(lines) if line)
    width = len(lines[0])
    for y, row in enumerate(lines):
        if len(row) != width:
            note = ""
            if raw[first + y] != raw[first + y].strip():
                note = (
                    " (leading and trailing whitespace is indentation and is stripped; floor cannot"
                    " be on the border of the grid anyway)"
                )
            raise LayoutError(
                f"ragged layout: row y={y} {row!r} has {len(row)} characters but row y=0 has {width}{note}"
            )
    allowed = "".join(C.TERRAIN_CHARS) + "".join(C.COOK_CHARS)
    cooks: dict[str, list[tuple[int, int]]] = {c: [] for c in C.COOK_CHARS}
    terrain = np.zeros((len(lines), width), np.int32)
    for y, row in enumerate(lines):
        for x, ch in enumerate(row):
            if ch in cooks:
                cooks[ch].append((x, y))
                terrain[y, x] = C.FLOOR
            elif ch in C.TERRAIN_CHARS:
                terrain[y, x] = C.TERRAIN_CHARS[ch]
            elif ch == "T":
                raise LayoutError(
                    f"tomato dispenser 'T' at (x={x}, y={y}): this Overcooked has onion soups only"
                )
            elif ch.isdigit():
                raise LayoutError(
                    f"cook {ch!r} at (x={x}, y={y}): Overcooked has exactly two cooks, '1' and '2'"
                )
            else:
                raise LayoutError(
                    f"unknown character {ch!r} at (x={x}, y={y}); allowed: {allowed!r} "
                    "(X counter, P pot, O onion dispenser, D dish dispenser, S serving counter, "
                    "space floor, 1 and 2 the cooks)"
                )
    for ch, found in cooks.items():
        if not found:
            raise LayoutError(f"cook {ch!r} is missing: a layout needs exactly two cooks, '1' and '2'")
        if len(found) > 1:
            where = ", ".join(f"(x={x}, y={y})" for x, y in found)
            raise LayoutError(f"cook {ch!r} appears {len(found)} times, at {where}; it must appear once")
    height = len(lines)
    for y in range(height):
        for x in range(width):
            border = y in (0, height - 1) or x in (0, width - 1)
            if border and terrain[y, x] == C.FLOOR:
                what = f"cook {lines[y][x]!r}" if lines[y][x] in cooks else "floor ' '"
                raise LayoutError(
                    f"{what} at (x={x}, y={y}) is on the border of the grid; the border must be "
                    "counters or other terrain, so cooks cannot walk off the grid"
                )
    for kind, ch in ((C.POT, "P"), (C.SERVING, "S"), (C.ONION_DISPENSER, "O"), (C.DISH_DISPENSER, "D")):
        if not np.any(terrain == kind):
            raise LayoutError(f"the layout has no {C.TERRAIN_NAMES[kind]} ({ch!r}); soup needs one")
    start = np.array([cooks["1"][0], cooks["2"][0]], np.int32)
    floor = terrain == C.FLOOR
    regions = np.stack([_reachable(floor, (int(x), int(y))) for x, y in start])
    return Layout(name=name, rows=tuple(lines), terrain=terrain, start_pos=start, regions=regions)


def get_layout(layout: str | Layout | Mapping[str, Any]) -> Layout:
    """A :class:`Layout` from a classic layout's name, an ASCII grid, a ``Layout`` or a
    JaxMARL layout dict (see :func:`layout_from_dict`).

    Raises:
        LayoutError: for an unknown name (listing the classic ones) or a malformed grid.
    """
    if isinstance(layout, Layout):
        return layout
    if isinstance(layout, Mapping):
        return layout_from_dict(layout)
    if isinstance(layout, str) and layout in CLASSIC_LAYOUTS:
        return parse_layout(CLASSIC_LAYOUTS[layout], name=layout)
    if isinstance(layout, str) and layout.strip() and "\n" not in layout.strip():
        close = difflib.get_close_matches(layout, list(CLASSIC_LAYOUTS), n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise LayoutError(
            f"unknown Overcooked layout {layout!r}.{hint} Classic layouts: {', '.join(CLASSIC_LAYOUTS)}; "
            "or pass an ASCII grid of several lines"
        )
    return parse_layout(layout)


# ---------------------------------------------------------------- JaxMARL's layout dicts
# JaxMARL 0.2.0 describes a kitchen as a dict of flat cell indices (``y * width + x``):
# ``wall_idx`` every non-floor cell, ``goal_idx`` serving counters, ``plate_pile_idx``
# dish dispensers, ``onion_pile_idx`` onion dispensers, ``pot_idx`` pots, ``agent_idx``
# the cooks' start cells (``agent_0`` first), plus ``height`` and ``width``.
_DICT_TERRAIN = {
    "goal_idx": C.SERVING,
    "plate_pile_idx": C.DISH_DISPENSER,
    "onion_pile_idx": C.ONION_DISPENSER,
    "pot_idx": C.POT,
}
_DICT_KEYS = ("wall_idx", "agent_idx", *_DICT_TERRAIN)
# JaxMARL's grid characters (``layout_grid_to_dict``) and the keys they fill.
_GRID_CHARS = {
    "W": "wall_idx",
    "A": "agent_idx",
    "X": "goal_idx",
    "B": "plate_pile_idx",
    "O": "onion_pile_idx",
    "P": "pot_idx",
}


def _dict_int(layout: Mapping[str, Any], key: str) -> int:
    value = layout[key]
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise LayoutError(f"layout dict: {key} must be a positive integer, got {value!r}")
    return int(value)


def layout_from_dict(layout: Mapping[str, Any]) -> Layout:
    """A :class:`Layout` from a JaxMARL 0.2.0 layout dict (``overcooked_layouts[...]`` or
    :func:`layout_grid_to_dict`): cells in ``wall_idx`` are counters unless another key
    makes them a pot, dispenser or serving counter; the cooks start on ``agent_idx``.

    The layout is named after the classic layout with the same cells and start cells, or
    ``"custom"``.

    Raises:
        LayoutError: for missing keys, indices outside the grid, a cell of two kinds,
            cooks not on two distinct floor cells, or a kitchen :func:`parse_layout`
            rejects.
    """
    missing = [k for k in ("height", "width", *_DICT_KEYS) if k not in layout]
    if missing:
        hint = " (JaxMARL placed cooks at random without agent_idx; give their two cells)"
        raise LayoutError(
            f"layout dict is missing {', '.join(missing)}{hint if 'agent_idx' in missing else ''}"
        )
    h, w = _dict_int(layout, "height"), _dict_int(layout, "width")
    cells: dict[str, np.ndarray] = {}
    for key in _DICT_KEYS:
        idx = np.asarray(layout[key]).reshape(-1)
        if idx.size and (not np.issubdtype(idx.dtype, np.integer) or idx.min() < 0 or idx.max() >= h * w):
            raise LayoutError(
                f"layout dict: {key} must hold cell indices in 0..{h * w - 1}, got {idx.tolist()}"
            )
        cells[key] = idx.astype(np.int64)
    grid = np.full(h * w, " ")
    grid[cells["wall_idx"]] = "X"
    kind_of: dict[int, str] = {}
    for key, kind in _DICT_TERRAIN.items():
        for i in cells[key].tolist():
            if i in kind_of and kind_of[i] != key:
                raise LayoutError(
                    f"layout dict: cell {i} (x={i % w}, y={i // w}) is in both {kind_of[i]} and {key}"
                )
            kind_of[i] = key
            grid[i] = "SDOP"[(C.SERVING, C.DISH_DISPENSER, C.ONION_DISPENSER, C.POT).index(kind)]
    agents = cells["agent_idx"].tolist()
    if len(agents) != 2 or agents[0] == agents[1]:
        raise LayoutError(f"layout dict: agent_idx must hold two distinct cells, got {agents}")
    for cook, i in zip(C.COOK_CHARS, agents, strict=True):
        if grid[i] != " ":
            raise LayoutError(
                f"layout dict: cook {cook!r} starts on a non-floor cell {i} (x={i % w}, y={i // w})"
            )
        grid[i] = cook
    rows = ["".join(grid[y * w : (y + 1) * w]) for y in range(h)]
    name = next((n for n, text in CLASSIC_LAYOUTS.items() if text.strip().split("\n") == rows), "custom")
    return parse_layout("\n".join(rows), name=name)


def layout_to_dict(layout: str | Layout) -> FrozenDict:
    """A layout as JaxMARL 0.2.0's dict (int32 index arrays, ascending; the inverse of
    :func:`layout_from_dict`)."""
    layout = get_layout(layout)
    terrain = layout.terrain.reshape(-1)
    out: dict[str, Any] = {"height": layout.height, "width": layout.width}
    out["wall_idx"] = np.flatnonzero(terrain != C.FLOOR).astype(np.int32)
    out["agent_idx"] = (layout.start_pos[:, 1] * layout.width + layout.start_pos[:, 0]).astype(np.int32)
    for key, kind in _DICT_TERRAIN.items():
        out[key] = layout.cells(kind)
    return FrozenDict(out)


def layout_grid_to_dict(grid: str) -> FrozenDict:
    """JaxMARL 0.2.0's layout dict from a grid in JaxMARL's characters: ``W`` counter,
    ``A`` cook (the first in reading order is ``agent_0``), ``X`` serving counter, ``B``
    dish ("plate") dispenser, ``O`` onion dispenser, ``P`` pot, space floor. A leading and
    a trailing empty line are dropped, as JaxMARL does.

    Raises:
        LayoutError: for rows of different lengths or another character.
    """
    rows = grid.split("\n")
    if rows and not rows[0]:
        rows = rows[1:]
    if rows and not rows[-1]:
        rows = rows[:-1]
    if not rows or not rows[0]:
        raise LayoutError("the layout grid is empty")
    width = len(rows[0])
    out: dict[str, Any] = {key: [] for key in _DICT_KEYS}
    for y, row in enumerate(rows):
        if len(row) != width:
            raise LayoutError(
                f"ragged layout grid: row y={y} {row!r} has {len(row)} characters, row 0 has {width}"
            )
        for x, ch in enumerate(row):
            if ch != " " and ch not in _GRID_CHARS:
                raise LayoutError(
                    f"unknown character {ch!r} at (x={x}, y={y}); JaxMARL's grid characters are W counter, "
                    "A cook, X serving counter, B dish dispenser, O onion dispenser, P pot, space floor"
                )
            if ch in _GRID_CHARS:
                out[_GRID_CHARS[ch]].append(y * width + x)
            if ch in "XBOP":
                out["wall_idx"].append(y * width + x)
    arrays = {key: np.asarray(v, np.int32) for key, v in out.items()}
    return FrozenDict({**arrays, "height": len(rows), "width": width})


# JaxMARL's names for the classic layouts, and the cells its dicts start the cooks on (for
# all but ``coord_ring`` other cells than overcooked-ai's, which the names here use).
JAXMARL_LAYOUT_NAMES = {
    "cramped_room": "cramped_room",
    "asymm_advantages": "asymmetric_advantages",
    "coord_ring": "coordination_ring",
    "forced_coord": "forced_coordination",
    "counter_circuit": "counter_circuit",
}
_JAXMARL_START_CELLS = {
    "cramped_room": (6, 8),
    "asymm_advantages": (29, 32),
    "coord_ring": (7, 11),
    "forced_coord": (11, 8),
    "counter_circuit": (10, 30),
}


def _jaxmarl_layout(name: str) -> FrozenDict:
    ours = layout_to_dict(JAXMARL_LAYOUT_NAMES[name])
    return ours.copy({"agent_idx": np.asarray(_JAXMARL_START_CELLS[name], np.int32)})


overcooked_layouts: dict[str, FrozenDict] = {name: _jaxmarl_layout(name) for name in JAXMARL_LAYOUT_NAMES}
"""JaxMARL 0.2.0's five classic layouts as its dicts (the same kitchens as
``CLASSIC_LAYOUTS``, with JaxMARL's start cells): ``make("overcooked",
layout=overcooked_layouts["cramped_room"])``."""
cramped_room = overcooked_layouts["cramped_room"]
asymm_advantages = overcooked_layouts["asymm_advantages"]
coord_ring = overcooked_layouts["coord_ring"]
forced_coord = overcooked_layouts["forced_coord"]
counter_circuit_grid = """
WWWPPWWW
W A    W
B WWWW X
W     AW
WWWOOWWW
"""
"""``counter_circuit`` in JaxMARL's grid characters (see :func:`layout_grid_to_dict`)."""
