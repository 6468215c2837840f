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
from dataclasses import dataclass, field

import numpy as np

from jaxmarl.environments.overcooked import constants as C

__all__ = ["CLASSIC_LAYOUTS", "Layout", "LayoutError", "get_layout", "parse_layout"]

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


def get_layout(layout: str | Layout) -> Layout:
    """A :class:`Layout` from a classic layout's name, an ASCII grid or a ``Layout``.

    Raises:
        LayoutError: for an unknown name (listing the classic ones) or a malformed grid.
    """
    if isinstance(layout, Layout):
        return layout
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
