"""Overcooked V2 kitchens: JaxMARL 0.2.0's layouts and the :class:`Layout` they are
parsed into.

A layout is an ASCII grid, one string row per line, in JaxMARL's characters::

    W  counter (JaxMARL's "wall"; objects can be put on it)
    X  serving counter        P  pot                B  plate pile
    0-9  ingredient piles (O: the old name of 0)    A  a cook (standing on floor)
    R  recipe indicator (always shows the recipe)   (space) floor
    L  recipe button (shows the recipe for a while after a cook presses it)

Cooks are ``agent_0``, ``agent_1``, ... in reading order (row by row), reversed with
``swap_agents=True`` (JaxMARL does so for ``cramped_room`` and ``counter_circuit`` to
keep Overcooked-AI's numbering). A kitchen without a recipe indicator needs its
``possible_recipes``; each recipe is three ingredient indices. Without a list, every
recipe of three of the layout's ingredients is possible (listed in JaxMARL's order, so
that the same key draws the same recipe).

The grid is checked and a :class:`LayoutError` (a ``ValueError``) names the problem and
where it is (``x`` the column, ``y`` the row, both from 0): rows of different lengths,
unknown characters, no cook, floor on the border (cooks could walk off the grid), no
pot, serving counter or plate pile, recipes that need an ingredient without a pile.
Common indentation and trailing whitespace are ignored (floor can never start or end a
row, which is border).

The layout strings have JaxMARL's names (``cramped_room``, ``grounded_coord_simple``...);
:data:`overcooked_v2_layouts` maps JaxMARL's 23 layout names to parsed layouts
(``overcookedv2_demo`` is a string only, as in JaxMARL).
"""

from __future__ import annotations

import difflib
import itertools
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from jaxmarl.environments.overcooked_v2 import constants as C

__all__ = [
    "Layout",
    "LayoutError",
    "all_recipes",
    "get_layout",
    "overcooked_v2_layouts",
]

# Layouts from Overcooked-AI
cramped_room = """
WWPWW
OA AO
W   W
WBWXW
"""
asymm_advantages = """
WWWWWWWWW
O WXWOW X
W   P   W
W A PA  W
WWWBWBWWW
"""
coord_ring = """
WWWPW
W A P
BAW W
O   W
WOXWW
"""
forced_coord = """
WWWPW
O WAP
OAW W
B W W
WWWXW
"""
counter_circuit = """
WWWPPWWW
W A    W
B WWWW X
W     AW
WWWOOWWW
"""

# Adapted layouts
cramped_room_v2 = """
WWPWW
0A A1
W   R
WBWXW
"""
asymm_advantages_recipes_center = """
WWWWWWWWW
0 WXR01 X
1   P   W
W A PA  W
WWWBWBWWW
"""
asymm_advantages_recipes_right = """
WWWWWWWWW
0 WXW01 X
1   P   R
W A PA  W
WWWBWBWWW
"""
asymm_advantages_recipes_left = """
WWWWWWWWW
0 WXW01 X
1   P   R
R A PA  W
WWWBWBWWW
"""
two_rooms = """
WWWWWB10W
W   W   R
P A W A W
W   W   X
WWWWWWWWW
"""

# Other layouts
two_rooms_both = """
W01BWB10W
W   W   R
P A W A W
W   W   X
WWWWWWWWW
"""
long_room = """
WWWWWWWWWWWWWWW
B            AP
0             X
WWWWWWWWWWWWWWW
"""
fun_coordination = """
WWWWWWWWW
0   X   2
RA  P  AW
1   B   3
WWWWWWWWW
"""
more_fun_coordination = """
WWWWWWWWW
W   X   W
RA  P  A1
0   P   2
W   B   W
WWWWWWWWW
"""
fun_symmetries_plates = """
WWWWWWW
B  W  0
R APA X
B  W  1
WWWWWWW
"""
fun_symmetries = """
WWWWBWW
2  W  0
R APA X
2  W  1
WWWWBWW
"""
fun_symmetries1 = """
WWWWWBWW
2  WW  0
R AWPA X
2  WW  1
WWWWWBWW
"""
overcookedv2_demo = """
WWPWW
0A A1
L   R
WBWXW
"""

# Extended Cat-Dog problem layouts
grounded_coord_simple = """
WW2WWWWW
W  WB  0
R ALPA X
W  WB  1
WW2WWWWW
"""
grounded_coord_ring = """
WWW2R2WWW
W       W
W WWLWW W
2 0   B 2
RAXAP X R
2 1   B 2
W WWLWW W
W       W
WWW2R2WWW
"""

# Test-time protocol formation layouts
test_time_simple = """
WW2WWWWW
W  WB  0
R AWPA X
W  WB  1
WW2WWWWW
"""
test_time_wide = """
WWXBWW
0 A  0
1    1
WPWPWW
3 A  3
W    W
WWRWWW
"""

# Demo cook layouts
demo_cook_simple = """
WWWWWR2W0WW
0      W  B
W     APA X
1      W  B
WWWWWR2W1WW
"""
demo_cook_wide = """
WWWWBXBWWWW
WWW0 A 1WWW
WWWWWPWWWWW
W    A    W
0  W3R3W  0
W1WWWWWWW1W
"""

_KNOWN_CODES = frozenset(C.TERRAIN_CHARS.values())


class LayoutError(ValueError):
    """A malformed Overcooked V2 layout; the message names the problem and its position."""


def all_recipes(num_ingredients: int) -> list[list[int]]:
    """Every recipe of three ingredients among ``num_ingredients``, as sorted index lists,
    in JaxMARL 0.2.0's order (that of a Python set of tuples, deterministic for small
    integers), so that the same key samples the same recipe."""
    pool = list(range(num_ingredients)) * C.RECIPE_SIZE
    unique = {tuple(sorted(combo)) for combo in itertools.combinations(pool, C.RECIPE_SIZE)}
    return [list(recipe) for recipe in unique]


def _where(x: int, y: int) -> str:
    return f"(x={x}, y={y})"


@dataclass(eq=False)
class Layout:
    """A checked Overcooked V2 kitchen (JaxMARL's ``Layout``, with the same fields).

    Attributes:
        agent_positions: each cook's start cell ``(x, y)``, in agent order.
        static_objects: terrain code of each cell, int32 ``(height, width)`` indexed
            ``[y, x]`` (``constants``: floor 0, counter 1, serving 4, pot 5, recipe
            indicator 6, recipe button 7, plate pile 9, ingredient ``i``'s pile 10 + i).
        num_ingredients: how many ingredients the kitchen has (one more than the
            highest pile's index).
        possible_recipes: the recipes an episode can ask for, each three ingredient
            indices (``None``: every recipe of three of the ingredients).
        name: the layout's name in :data:`overcooked_v2_layouts`, or ``"custom"``.

    Raises:
        LayoutError: see the module docstring.
    """

    agent_positions: list[tuple[int, int]]
    static_objects: np.ndarray
    num_ingredients: int
    possible_recipes: list[list[int]] | None = None
    name: str = field(default="custom")

    def __post_init__(self) -> None:
        grid = np.asarray(self.static_objects)
        if grid.ndim != 2 or grid.size == 0 or not np.issubdtype(grid.dtype, np.integer):
            raise LayoutError(f"static_objects must be a non-empty 2-d integer grid, got shape {grid.shape}")
        grid = grid.astype(np.int32)
        unknown = sorted(set(np.unique(grid).tolist()) - _KNOWN_CODES)
        if unknown:
            y, x = np.argwhere(np.isin(grid, unknown))[0]
            raise LayoutError(f"unknown terrain code {int(grid[y, x])} at {_where(int(x), int(y))}")
        self.static_objects = grid
        height, width = grid.shape
        border = np.zeros_like(grid, bool)
        border[[0, -1], :] = border[:, [0, -1]] = True
        if np.any(border & (grid == C.FLOOR)):
            y, x = np.argwhere(border & (grid == C.FLOOR))[0]
            raise LayoutError(
                f"floor at {_where(int(x), int(y))} is on the border of the grid; the border must be "
                "counters or other terrain, so cooks cannot walk off the grid"
            )

        positions = [tuple(int(v) for v in p) for p in self.agent_positions]
        if not positions:
            raise LayoutError("a layout needs at least one cook ('A')")
        for x, y in positions:
            if not (0 <= x < width and 0 <= y < height) or grid[y, x] != C.FLOOR:
                raise LayoutError(f"cook at {_where(x, y)} must stand on floor inside the grid")
        if len(set(positions)) != len(positions):
            raise LayoutError(f"two cooks start on the same cell: {positions}")
        self.agent_positions = positions  # type: ignore[assignment]

        piles = sorted({int(c) - C.INGREDIENT_PILE for c in np.unique(grid) if c >= C.INGREDIENT_PILE})
        if isinstance(self.num_ingredients, bool) or int(self.num_ingredients) != self.num_ingredients:
            raise LayoutError(f"num_ingredients must be an integer, got {self.num_ingredients!r}")
        self.num_ingredients = int(self.num_ingredients)
        if not 1 <= self.num_ingredients <= C.MAX_INGREDIENT_KINDS:
            raise LayoutError(
                f"a layout needs 1 to {C.MAX_INGREDIENT_KINDS} ingredients (piles '0'-'9'), "
                f"got {self.num_ingredients}"
            )
        if piles and piles[-1] >= self.num_ingredients:
            raise LayoutError(
                f"the grid has ingredient pile '{piles[-1]}' but num_ingredients is {self.num_ingredients}"
            )
        for kind, ch in ((C.POT, "P"), (C.SERVING, "X"), (C.PLATE_PILE, "B")):
            if not np.any(grid == kind):
                raise LayoutError(f"the layout has no {C.TERRAIN_NAMES[kind]} ({ch!r}); soup needs one")

        if self.possible_recipes is None:
            recipes = all_recipes(self.num_ingredients)
        else:
            recipes = self._checked_recipes(self.possible_recipes)
        for recipe in recipes:
            for i in recipe:
                if i not in piles:
                    raise LayoutError(
                        f"recipe {recipe} needs ingredient {i}, but the layout has no pile '{i}'"
                    )
        self.possible_recipes = recipes

    def _checked_recipes(self, recipes: object) -> list[list[int]]:
        if not isinstance(recipes, (list, tuple)) or not recipes:
            raise LayoutError(f"possible_recipes must be a non-empty list of recipes, got {recipes!r}")
        out = []
        for recipe in recipes:
            if not isinstance(recipe, (list, tuple)) or len(recipe) != C.RECIPE_SIZE:
                raise LayoutError(
                    f"every recipe must be a list of {C.RECIPE_SIZE} ingredient indices, got {recipe!r}"
                )
            items = []
            for i in recipe:
                if isinstance(i, bool) or not isinstance(i, (int, np.integer)):
                    raise LayoutError(f"recipe {recipe!r}: ingredient indices must be integers")
                if not 0 <= int(i) < self.num_ingredients:
                    raise LayoutError(
                        f"recipe {list(recipe)} uses ingredient {int(i)}, but the layout has "
                        f"{self.num_ingredients} ingredient(s) (0-{self.num_ingredients - 1})"
                    )
                items.append(int(i))
            out.append(items)
        return out

    # ------------------------------------------------------------------ geometry
    @property
    def height(self) -> int:
        return int(self.static_objects.shape[0])

    @property
    def width(self) -> int:
        return int(self.static_objects.shape[1])

    @property
    def num_agents(self) -> int:
        return len(self.agent_positions)

    @cached_property
    def floor(self) -> np.ndarray:
        """Cells cooks can stand on, bool ``(height, width)``."""
        return self.static_objects == C.FLOOR

    @cached_property
    def enclosed_spaces(self) -> np.ndarray:
        """The connected region of floor each cell belongs to, int32 ``(height, width)``:
        the largest flat index ``y * width + x`` in the region (JaxMARL's labels), -1 off
        floor."""
        labels = np.full(self.static_objects.shape, -1, np.int32)
        for y0, x0 in np.argwhere(self.floor):
            if labels[y0, x0] >= 0:
                continue
            region, stack = [], [(int(y0), int(x0))]
            seen = {(int(y0), int(x0))}
            while stack:
                y, x = stack.pop()
                region.append((y, x))
                for dx, dy in C.DIR_TO_VEC.tolist():
                    ny, nx = y + dy, x + dx
                    inside = 0 <= ny < self.height and 0 <= nx < self.width
                    if inside and self.floor[ny, nx] and (ny, nx) not in seen:
                        seen.add((ny, nx))
                        stack.append((ny, nx))
            label = max(y * self.width + x for y, x in region)
            for y, x in region:
                labels[y, x] = label
        return labels

    @cached_property
    def recipe_codes(self) -> np.ndarray:
        """The object code of each possible recipe, int32 ``(num_recipes,)``."""
        assert self.possible_recipes is not None
        return np.array([C.recipe_code(r) for r in self.possible_recipes], np.int32)

    def __str__(self) -> str:
        chars = {code: ch for ch, code in C.TERRAIN_CHARS.items() if ch != "O"}
        rows = [[chars[int(c)] for c in row] for row in self.static_objects]
        for x, y in self.agent_positions:
            rows[y][x] = C.COOK_CHAR
        return "\n".join("".join(row) for row in rows)

    # ------------------------------------------------------------------- parsing
    @staticmethod
    def from_string(
        grid: str,
        possible_recipes: list[list[int]] | None = None,
        swap_agents: bool = False,
        name: str = "custom",
    ) -> Layout:
        """Parse an ASCII layout (characters in the module docstring).

        Args:
            grid: the layout, one row per line.
            possible_recipes: the recipes episodes draw from, each three ingredient
                indices; required when the grid has no recipe indicator ``R``
                (``None``: every recipe of three of its ingredients).
            swap_agents: number the cooks in reverse reading order.
            name: a name for the layout.

        Raises:
            LayoutError: see the module docstring.
        """
        if not isinstance(grid, str):
            raise LayoutError(f"a layout must be a string (an ASCII grid), got {type(grid).__name__}")
        lines = [line.rstrip() for line in grid.split("\n")]
        while lines and not lines[0]:
            lines.pop(0)
        while lines and not lines[-1]:
            lines.pop()
        if not lines:
            raise LayoutError("the layout is empty")
        indent = min(len(line) - len(line.lstrip()) for line in lines if line)
        lines = [line[indent:] for line in lines]
        width = len(lines[0])
        for y, row in enumerate(lines):
            if len(row) != width:
                raise LayoutError(
                    f"ragged layout: row y={y} {row!r} has {len(row)} characters but row y=0 has {width}"
                )
        terrain = np.zeros((len(lines), width), np.int32)
        cooks = []
        for y, row in enumerate(lines):
            for x, ch in enumerate(row):
                if ch == C.COOK_CHAR:
                    cooks.append((x, y))
                elif ch in C.TERRAIN_CHARS:
                    terrain[y, x] = C.TERRAIN_CHARS[ch]
                else:
                    raise LayoutError(
                        f"unknown character {ch!r} at {_where(x, y)}; allowed: W counter, X serving "
                        "counter, P pot, B plate pile, 0-9 ingredient piles (O for 0), R recipe "
                        "indicator, L recipe button, A a cook, space floor"
                    )
        if not cooks:
            raise LayoutError("the layout has no cook: mark each cook's start cell with 'A'")
        if possible_recipes is None and not np.any(terrain == C.RECIPE_INDICATOR):
            raise LayoutError(
                "the layout has no recipe indicator ('R'), so possible_recipes must be given "
                "(e.g. possible_recipes=[[0, 0, 0]])"
            )
        if swap_agents:
            cooks = cooks[::-1]
        piles = terrain[terrain >= C.INGREDIENT_PILE] - C.INGREDIENT_PILE
        num_ingredients = int(piles.max()) + 1 if piles.size else 0
        if num_ingredients == 0:
            raise LayoutError("the layout has no ingredient pile ('0'-'9' or 'O')")
        return Layout(
            agent_positions=cooks,
            static_objects=terrain,
            num_ingredients=num_ingredients,
            possible_recipes=possible_recipes,
            name=name,
        )


_ONION_SOUP = [[0, 0, 0]]
_TWO_KINDS = [[0, 0, 0], [1, 1, 1]]
# (grid, possible_recipes, swap_agents) of JaxMARL 0.2.0's named layouts.
_SPECS: dict[str, tuple[str, list[list[int]] | None, bool]] = {
    "cramped_room": (cramped_room, _ONION_SOUP, True),
    "asymm_advantages": (asymm_advantages, _ONION_SOUP, False),
    "coord_ring": (coord_ring, _ONION_SOUP, False),
    "forced_coord": (forced_coord, _ONION_SOUP, False),
    "counter_circuit": (counter_circuit, _ONION_SOUP, True),
    "cramped_room_v2": (cramped_room_v2, None, False),
    "asymm_advantages_recipes_center": (asymm_advantages_recipes_center, None, False),
    "asymm_advantages_recipes_right": (asymm_advantages_recipes_right, None, False),
    "asymm_advantages_recipes_left": (asymm_advantages_recipes_left, None, False),
    "two_rooms": (two_rooms, None, False),
    "two_rooms_both": (two_rooms_both, None, False),
    "long_room": (long_room, _ONION_SOUP, False),
    "fun_coordination": (fun_coordination, [[0, 0, 2], [1, 1, 3]], False),
    "more_fun_coordination": (more_fun_coordination, [[0, 1, 1], [0, 2, 2]], False),
    "fun_symmetries": (fun_symmetries, _TWO_KINDS, False),
    "fun_symmetries_plates": (fun_symmetries_plates, _TWO_KINDS, False),
    "fun_symmetries1": (fun_symmetries1, _TWO_KINDS, False),
    "grounded_coord_simple": (grounded_coord_simple, _TWO_KINDS, False),
    "grounded_coord_ring": (grounded_coord_ring, _TWO_KINDS, False),
    "test_time_simple": (test_time_simple, _TWO_KINDS, False),
    "test_time_wide": (test_time_wide, _TWO_KINDS, False),
    "demo_cook_simple": (demo_cook_simple, _TWO_KINDS, False),
    "demo_cook_wide": (demo_cook_wide, _TWO_KINDS, False),
}

overcooked_v2_layouts: dict[str, Layout] = {
    name: Layout.from_string(grid, possible_recipes=recipes, swap_agents=swap, name=name)
    for name, (grid, recipes, swap) in _SPECS.items()
}
"""JaxMARL 0.2.0's named layouts, parsed."""


def get_layout(layout: str | Layout) -> Layout:
    """A :class:`Layout` from a name in :data:`overcooked_v2_layouts`, an ASCII grid (which
    then needs a recipe indicator, see :meth:`Layout.from_string`) or a ``Layout``.

    Raises:
        LayoutError: for an unknown name (with the closest names) or a malformed grid.
    """
    if isinstance(layout, Layout):
        return layout
    if isinstance(layout, str) and layout in overcooked_v2_layouts:
        return overcooked_v2_layouts[layout]
    if isinstance(layout, str) and layout.strip() and "\n" not in layout.strip():
        close = difflib.get_close_matches(layout, list(overcooked_v2_layouts), n=3)
        hint = f" Did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
        raise LayoutError(
            f"unknown Overcooked V2 layout {layout!r}.{hint} Layouts: {', '.join(overcooked_v2_layouts)}; "
            "or pass an ASCII grid of several lines, or a Layout"
        )
    if isinstance(layout, str):
        return Layout.from_string(layout)
    raise LayoutError(f"layout must be a layout name, an ASCII grid or a Layout, got {type(layout).__name__}")
