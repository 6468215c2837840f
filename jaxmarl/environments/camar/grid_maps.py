"""CAMAR's map generators given as text: ``string_grid`` (one layout),
``batched_string_grid`` (a layout per episode, drawn from a list), ``labmaze_grid``
(DeepMind LabMaze mazes) and ``movingai`` (MovingAI ``.map`` files).

Text layouts: one row per line (blank lines skipped, each line stripped); ``@``, ``*``
and ``#`` are walls, any other character is free. Each wall cell is one circle of radius
``landmark_rad`` at the centre of a cell of side ``2 landmark_rad``; row 0 of the text is
the bottom row of the map (camar's orientation). ``add_border`` surrounds the layout
with a wall, ``remove_border`` drops its outer ring first. Agents start on, and aim for,
distinct free cell centres (``free_pos_str`` masks out more cells with ``@*#``), drawn at
random or fixed by ``agent_idx`` / ``goal_idx`` (``(n, 2)`` row, column of the text).

Malformed input raises a ``ValueError`` at construction: rows of different lengths, no
free cell, more agents than free cells, fixed agents or goals on walls or off the map.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.camar.maps import (
    MapGenerator,
    MapSample,
    _count,
    cell_centres_np,
    redraw_until,
)
from jaxmarl.environments.camar.spatial import BucketGrid

__all__ = ["batched_string_grid", "labmaze_grid", "movingai", "parse_layout", "read_movingai"]

WALLS = frozenset("@*#")

#: The layout ``camar_string_grid_v0`` uses when no ``map_str`` is given: four rooms
#: joined by doors, 12 x 16 cells inside the border.
FOUR_ROOMS = """
.......#........
.......#........
................
.......#........
.......#........
###.#######.####
.......#........
.......#........
................
.......#........
.......#........
.......#........
"""


def _four_rooms_variants() -> tuple[str, ...]:
    """FOUR_ROOMS with its four doors moved: the default ``batched_string_grid`` batch."""
    rows = [list(r) for r in FOUR_ROOMS.strip("\n").split("\n")]
    out = []
    for shift in range(4):
        grid = [r[:] for r in rows]
        for r in range(len(grid)):
            if r != 5:
                grid[r][7] = "#"
        for c in range(16):
            grid[5][c] = "#"
        grid[(2 + 3 * shift) % 5][7] = "."
        grid[6 + (2 + 2 * shift) % 6][7] = "."
        grid[5][(1 + 2 * shift) % 7] = "."
        grid[5][8 + (3 + 2 * shift) % 8] = "."
        out.append("\n".join("".join(r) for r in grid))
    return tuple(out)


FOUR_ROOMS_VARIANTS = _four_rooms_variants()

DATA = Path(__file__).parent / "data"
#: The MovingAI-format maps shipped with the package (48 x 48 city blocks), the
#: default of ``camar_movingai_v0``.
SHIPPED_MAPS = tuple(str(p) for p in sorted(DATA.glob("*.map")))


def parse_layout(text: str, owner: str = "string_grid") -> np.ndarray:
    """The wall grid ``(rows, cols)`` (uint8, 1 = wall) of a text layout."""
    rows = [[1 if ch in WALLS else 0 for ch in line.strip()] for line in text.split("\n") if line.strip(" ")]
    rows = [r for r in rows if r]
    if not rows:
        raise ValueError(f"{owner}: the layout is empty")
    widths = {len(r) for r in rows}
    if len(widths) != 1:
        bad = next(i for i, r in enumerate(rows) if len(r) != len(rows[0]))
        raise ValueError(
            f"{owner}: every row of the layout must have the same length; row 0 has {len(rows[0])} cells, "
            f"row {bad} has {len(rows[bad])}"
        )
    return np.asarray(rows, np.uint8)


def _components(walls: np.ndarray) -> np.ndarray:
    """4-connected component label of every cell (-1 on walls)."""
    from scipy import ndimage

    labels, _ = ndimage.label(walls == 0)
    return np.where(walls == 0, labels, -1)


def _border(grid: np.ndarray, remove: bool, add: bool) -> np.ndarray:
    if remove:
        grid = grid[1:-1, 1:-1]
    if add:
        grid = np.pad(grid, 1, constant_values=1)
    return grid


class batched_string_grid(MapGenerator):
    """A layout per episode, drawn uniformly from ``map_str_batch`` (all of one size);
    see the module docstring. Layouts with fewer walls than the largest get their extra
    circles parked far away (they never touch or are seen by anyone).

    Args:
        map_str_batch: the layouts (default: :data:`FOUR_ROOMS` with four door patterns).
        free_pos_str_batch: per layout, cells (``@*#``) where agents and goals may not be.
        agent_idx_batch, goal_idx_batch: per layout, fixed ``(n, 2)`` cells.
        num_agents: agents (taken from the fixed cells when given).
        random_agents, random_goals: draw starts / goals per episode (else one fixed draw).
        remove_border, add_border: see the module docstring.
        landmark_rad: wall circle radius (half the cell side).
        agent_rad_range, goal_rad_range: radii (default agents ``0.03``, goals ``agent_rad / 2.5``).
        max_free_pos: keep at most this many free cells per layout.
        map_array_preprocess, free_pos_array_preprocess: functions applied to the parsed
            wall grids (numpy ``(rows, cols)``) before the borders.
        ensure_reachable, max_redraws: see :mod:`jaxmarl.environments.camar.maps`.
    """

    _owner = "batched_string_grid"

    def __init__(
        self,
        map_str_batch: Sequence[str] = FOUR_ROOMS_VARIANTS,
        free_pos_str_batch: Sequence[str] | None = None,
        agent_idx_batch: Sequence[Any] | None = None,
        goal_idx_batch: Sequence[Any] | None = None,
        num_agents: int = 10,
        random_agents: bool = True,
        random_goals: bool = True,
        remove_border: bool = False,
        add_border: bool = True,
        landmark_rad: float = 0.05,
        agent_rad_range: tuple[float, float] | None = (0.03, 0.03),
        goal_rad_range: tuple[float, float] | None = None,
        max_free_pos: int | None = None,
        map_array_preprocess: Callable[[np.ndarray], np.ndarray] | None = None,
        free_pos_array_preprocess: Callable[[np.ndarray], np.ndarray] | None = None,
        ensure_reachable: bool = True,
        max_redraws: int = 64,
    ) -> None:
        owner = self._owner
        if isinstance(map_str_batch, str) or not len(map_str_batch):
            raise ValueError(f"{owner}: map_str_batch must be a non-empty list of layouts")
        self._config = {
            "num_agents": num_agents,
            "landmark_rad": landmark_rad,
            "agent_rad_range": agent_rad_range,
        }
        self.landmark_rad = float(landmark_rad)
        if not self.landmark_rad > 0:
            raise ValueError(f"{owner}: landmark_rad must be positive, got {landmark_rad!r}")
        self._setup_radii(
            agent_rad_range, goal_rad_range, 0.4 * self.landmark_rad, 0.4 * self.landmark_rad / 2.5
        )
        self.ensure_reachable = bool(ensure_reachable)
        self.max_redraws = _count(owner, "max_redraws", max_redraws, 0)
        pre = map_array_preprocess or (lambda a: a)
        pre_free = free_pos_array_preprocess or (lambda a: a)
        walls = [
            _border(np.asarray(pre(parse_layout(t, owner))), remove_border, add_border) for t in map_str_batch
        ]
        if len({w.shape for w in walls}) != 1:
            raise ValueError(
                f"{owner}: all layouts must have the same size, got {sorted({w.shape for w in walls})}"
            )
        if free_pos_str_batch is not None:
            if len(free_pos_str_batch) != len(walls):
                raise ValueError(f"{owner}: free_pos_str_batch needs one mask per layout")
            masks = [
                _border(np.asarray(pre_free(parse_layout(t, owner))), remove_border, add_border)
                for t in free_pos_str_batch
            ]
            if any(m.shape != walls[0].shape for m in masks):
                raise ValueError(f"{owner}: every free_pos mask must have its layout's size")
        else:
            masks = [np.zeros_like(w) for w in walls]
        self.walls = np.stack(walls)
        rows, cols = self.walls.shape[1:]
        size = 2 * self.landmark_rad
        self.height, self.width = rows * size, cols * size

        def centres(rc: np.ndarray) -> np.ndarray:
            return cell_centres_np(rc[:, 0], rc[:, 1], size, self.height, self.width)

        self.num_landmarks = max(int(w.sum()) for w in walls)
        self.landmark_counts = [int(w.sum()) for w in walls]
        layouts = np.full((len(walls), self.num_landmarks, 2), -100.0, np.float32)
        for b, w in enumerate(walls):
            wall_cells = np.argwhere(w)
            layouts[b, : len(wall_cells)] = centres(wall_cells)
        self.layouts = layouts

        labels = [_components(w) for w in walls]
        free_cells = [np.argwhere((w == 0) & (m == 0)) for w, m in zip(walls, masks, strict=True)]
        self.free_pos_num = min(len(f) for f in free_cells)
        if max_free_pos is not None:
            self.free_pos_num = min(self.free_pos_num, _count(owner, "max_free_pos", max_free_pos))
        self.num_agents = self._fixed_count(agent_idx_batch, goal_idx_batch, num_agents)
        if self.free_pos_num < self.num_agents:
            raise ValueError(
                f"{owner}: a layout has only {self.free_pos_num} free cells for {self.num_agents} agents "
                "(starts and goals must be distinct)"
            )
        self._truncate(free_cells)
        self.free_cells = np.stack([f[: self.free_pos_num] for f in free_cells])  # (B, F, 2) row, col
        self.free_layouts = np.stack([centres(f) for f in self.free_cells]).astype(np.float32)
        self.free_labels = np.stack(
            [lab[f[:, 0], f[:, 1]] for lab, f in zip(labels, self.free_cells, strict=True)]
        )

        offset = (-1 if remove_border else 0) + (1 if add_border else 0)
        self._fixed_agents = self._fixed_positions(agent_idx_batch, offset, walls, "agent_idx", centres)
        self._fixed_goals = self._fixed_positions(goal_idx_batch, offset, walls, "goal_idx", centres)
        if self._fixed_agents is not None and self._fixed_goals is not None:
            for b, lab in enumerate(labels):
                a = np.asarray(agent_idx_batch[b]) + offset  # type: ignore[index]
                g = np.asarray(goal_idx_batch[b]) + offset  # type: ignore[index]
                if self.ensure_reachable and np.any(lab[a[:, 0], a[:, 1]] != lab[g[:, 0], g[:, 1]]):
                    raise ValueError(
                        f"{owner}: in layout {b} a fixed goal cannot be reached from its agent's start"
                    )
        self.random_agents, self.random_goals = bool(random_agents), bool(random_goals)
        if not self.random_agents and self._fixed_agents is None:
            self._fixed_agent_draw = jax.random.choice(
                jax.random.key(0), self.free_pos_num, (self.num_agents,), replace=False
            )
        if not self.random_goals and self._fixed_goals is None:
            self._fixed_goal_draw = jax.random.choice(
                jax.random.key(0), self.free_pos_num, (self.num_agents,), replace=False
            )

    # -------------------------------------------------------------- construction
    def _fixed_count(self, agent_idx: Any, goal_idx: Any, num_agents: int) -> int:
        for name, batch in (("agent_idx", agent_idx), ("goal_idx", goal_idx)):
            if batch is not None:
                sizes = {np.asarray(i).reshape(-1, 2).shape[0] for i in self._as_batch(batch)}
                if len(sizes) != 1:
                    raise ValueError(f"{self._owner}: every {name} must hold the same number of cells")
                return sizes.pop()
        return _count(self._owner, "num_agents", num_agents)

    def _as_batch(self, batch: Any) -> list[Any]:
        return list(batch)

    def _truncate(self, free_cells: list[np.ndarray]) -> None:
        """Keep ``free_pos_num`` cells of each layout: a fixed random subset (camar's order)."""
        for b, cells in enumerate(free_cells):
            keep = np.asarray(
                jax.random.choice(jax.random.key(0), len(cells), (self.free_pos_num,), replace=False)
            )
            free_cells[b] = cells[keep]

    def _fixed_positions(
        self,
        batch: Any,
        offset: int,
        walls: list[np.ndarray],
        name: str,
        centres: Callable[[np.ndarray], np.ndarray],
    ) -> np.ndarray | None:
        if batch is None:
            return None
        batch = self._as_batch(batch)
        if len(batch) != len(walls):
            raise ValueError(f"{self._owner}: {name} needs one entry per layout")
        out = []
        for b, (idx, w) in enumerate(zip(batch, walls, strict=True)):
            rc = np.asarray(idx, np.int64).reshape(-1, 2) + offset
            if np.any(rc < 0) or np.any(rc >= np.asarray(w.shape)):
                raise ValueError(f"{self._owner}: {name} of layout {b} has cells off the map")
            if np.any(w[rc[:, 0], rc[:, 1]]):
                raise ValueError(f"{self._owner}: {name} of layout {b} puts an agent or goal on a wall")
            out.append(centres(rc))
        return np.stack(out).astype(np.float32)

    # -------------------------------------------------------------- episodes
    def _draw(
        self, map_id: jax.Array, key_agents: jax.Array, key_goals: jax.Array
    ) -> tuple[jax.Array, jax.Array]:
        """Indices into the layout's free cells of the starts and the goals."""
        f, n = self.free_pos_num, self.num_agents
        a = (
            jax.random.choice(key_agents, f, (n,), replace=False)
            if self.random_agents
            else self._fixed_agent_draw
        )
        g = (
            jax.random.choice(key_goals, f, (n,), replace=False)
            if self.random_goals
            else self._fixed_goal_draw
        )
        return a, g

    def _episode(
        self, map_id: jax.Array, key_agents: jax.Array, key_goals: jax.Array, key_sizes: jax.Array
    ) -> MapSample:
        free_pos = jnp.asarray(self.free_layouts)[map_id]
        draws_random = (self.random_agents and self._fixed_agents is None) or (
            self.random_goals and self._fixed_goals is None
        )
        if self.ensure_reachable and draws_random:
            labels = jnp.asarray(self.free_labels)[map_id]

            def again(i: jax.Array) -> tuple[jax.Array, jax.Array]:
                return self._draw(map_id, jax.random.fold_in(key_agents, i), jax.random.fold_in(key_goals, i))

            def ok(idx: tuple[jax.Array, jax.Array]) -> jax.Array:
                a, g = idx
                agent_lab = (
                    labels[a] if self._fixed_agents is None else self._label_of(self._fixed_agents, map_id)
                )
                goal_lab = (
                    labels[g] if self._fixed_goals is None else self._label_of(self._fixed_goals, map_id)
                )
                return jnp.all(agent_lab == goal_lab)

            a, g = redraw_until(self._draw(map_id, key_agents, key_goals), again, ok, self.max_redraws)
        else:
            a, g = self._draw(map_id, key_agents, key_goals)
        agent_pos = free_pos[a] if self._fixed_agents is None else jnp.asarray(self._fixed_agents)[map_id]
        goal_pos = free_pos[g] if self._fixed_goals is None else jnp.asarray(self._fixed_goals)[map_id]
        agent_rad, goal_rad = self.sizes(key_sizes)
        return MapSample(
            landmark_pos=jnp.asarray(self.layouts)[map_id],
            agent_pos=agent_pos,
            goal_pos=goal_pos,
            agent_rad=agent_rad,
            goal_rad=goal_rad,
            map_id=map_id.astype(jnp.int32),
            free_pos=jnp.zeros((0, 2), jnp.float32),
            table=jnp.zeros((0, 1), jnp.int32),
        )

    def _label_of(self, fixed: np.ndarray, map_id: jax.Array) -> jax.Array:
        """Component labels of fixed positions (looked up among the layout's free cells)."""
        pos = jnp.asarray(fixed)[map_id]
        free = jnp.asarray(self.free_layouts)[map_id]
        nearest = jnp.argmin(jnp.sum((pos[:, None] - free[None]) ** 2, -1), axis=1)
        return jnp.asarray(self.free_labels)[map_id][nearest]

    def reset(self, key: jax.Array, grid: BucketGrid) -> MapSample:
        key_batch, key = jax.random.split(key)
        key, key_agents, key_goals = jax.random.split(key, 3)
        map_id = jax.random.randint(key_batch, (), 0, self.layouts.shape[0])  # type: ignore[union-attr]
        return self._episode(map_id, key_agents, key_goals, key)


class string_grid(batched_string_grid):
    """One text layout (module docstring; default :data:`FOUR_ROOMS`); the keywords are
    ``batched_string_grid``'s for a single layout (``map_str``, ``free_pos_str``,
    ``agent_idx``, ``goal_idx``)."""

    _owner = "string_grid"

    def __init__(
        self,
        map_str: str = FOUR_ROOMS,
        free_pos_str: str | None = None,
        agent_idx: Any = None,
        goal_idx: Any = None,
        num_agents: int = 10,
        random_agents: bool = True,
        random_goals: bool = True,
        remove_border: bool = False,
        add_border: bool = True,
        landmark_rad: float = 0.05,
        agent_rad_range: tuple[float, float] | None = (0.03, 0.03),
        goal_rad_range: tuple[float, float] | None = None,
        max_free_pos: int | None = None,
        map_array_preprocess: Callable[[np.ndarray], np.ndarray] | None = None,
        free_pos_array_preprocess: Callable[[np.ndarray], np.ndarray] | None = None,
        ensure_reachable: bool = True,
        max_redraws: int = 64,
    ) -> None:
        if not isinstance(map_str, str):
            raise ValueError(f"string_grid: map_str must be a string, got {type(map_str).__name__}")
        self._max_free_pos = max_free_pos
        super().__init__(
            [map_str],
            None if free_pos_str is None else [free_pos_str],
            None if agent_idx is None else [agent_idx],
            None if goal_idx is None else [goal_idx],
            num_agents,
            random_agents,
            random_goals,
            remove_border,
            add_border,
            landmark_rad,
            agent_rad_range,
            goal_rad_range,
            max_free_pos,
            map_array_preprocess,
            free_pos_array_preprocess,
            ensure_reachable,
            max_redraws,
        )
        self._config["map_str"] = map_str

    def _truncate(self, free_cells: list[np.ndarray]) -> None:
        # camar keeps a single layout's free cells in order unless max_free_pos is given.
        if self._max_free_pos is not None:
            super()._truncate(free_cells)

    def _draw(
        self, map_id: jax.Array, key_agents: jax.Array, key_goals: jax.Array
    ) -> tuple[jax.Array, jax.Array]:
        f, n = self.free_pos_num, self.num_agents
        a = jax.random.choice(key_agents, f, (n,), replace=False)
        g = jax.random.choice(key_goals, f, (n,), replace=False)
        if not self.random_agents:
            a = jax.random.choice(jax.random.key(0), f, (n,), replace=False)
        if not self.random_goals:
            g = jax.random.choice(jax.random.key(1), f, (n,), replace=False)
        return a, g

    def reset(self, key: jax.Array, grid: BucketGrid) -> MapSample:
        _, key_agents, key_goals = jax.random.split(key, 3)
        return self._episode(jnp.int32(0), key_agents, key_goals, key)


class labmaze_grid(batched_string_grid):
    """``num_maps`` mazes of rooms and corridors from DeepMind's LabMaze (generated at
    construction with seeds ``seed``, ``seed + 1``, ...; needs the ``labmaze`` package),
    one drawn per episode. Agents and goals go on LabMaze's room cells.

    Args:
        num_maps: mazes to generate.
        height, width: maze size in cells (odd numbers, LabMaze's rule).
        max_rooms: room limit (-1: LabMaze's default).
        seed: seed of the first maze.
        num_agents: agents.
        landmark_rad: wall circle radius (default 0.1).
        agent_rad_range, goal_rad_range: radii (default agents 0.05).
        max_free_pos: keep at most this many free cells per maze.
        ensure_reachable, max_redraws: see :mod:`jaxmarl.environments.camar.maps`.
        **labmaze_kwargs: more ``labmaze.RandomMaze`` keywords (``room_min_size``,
            ``room_max_size``, ``extra_connection_probability``, ...).
    """

    _owner = "labmaze_grid"

    def __init__(
        self,
        num_maps: int,
        height: int = 11,
        width: int = 11,
        max_rooms: int = -1,
        seed: int = 0,
        num_agents: int = 10,
        landmark_rad: float = 0.1,
        agent_rad_range: tuple[float, float] | None = (0.05, 0.05),
        goal_rad_range: tuple[float, float] | None = None,
        max_free_pos: int | None = None,
        ensure_reachable: bool = True,
        max_redraws: int = 64,
        **labmaze_kwargs: Any,
    ) -> None:
        try:
            from labmaze import RandomMaze
        except ImportError:
            raise ImportError("labmaze_grid needs the labmaze package: pip install labmaze") from None
        num_maps = _count("labmaze_grid", "num_maps", num_maps)
        mazes, masks = [], []
        for i in range(num_maps):
            try:
                maze = RandomMaze(
                    height=height, width=width, max_rooms=max_rooms, random_seed=seed + i, **labmaze_kwargs
                )
            except (TypeError, ValueError) as err:
                raise ValueError(f"labmaze_grid: LabMaze rejected the settings: {err}") from None
            mazes.append(str(maze.entity_layer))
            masks.append(str(maze.variations_layer).replace(".", "*"))
        super().__init__(
            mazes,
            masks,
            num_agents=num_agents,
            remove_border=False,
            add_border=False,
            landmark_rad=landmark_rad,
            agent_rad_range=agent_rad_range,
            goal_rad_range=goal_rad_range,
            max_free_pos=max_free_pos,
            ensure_reachable=ensure_reachable,
            max_redraws=max_redraws,
        )
        self._config.update(num_maps=num_maps, height=height, width=width, max_rooms=max_rooms, seed=seed)


# ---------------------------------------------------------------------- MovingAI
BLOCKED = frozenset("@OTW")  # MovingAI's impassable terrain (out of bounds, trees, water)


def read_movingai(path: str | Path) -> np.ndarray:
    """The wall grid (uint8, 1 = impassable) of a MovingAI ``.map`` file: a header
    (``type``, ``height H``, ``width W``, ``map``) and ``H`` rows of ``W`` characters,
    ``@ O T W`` impassable, ``. G S`` passable."""
    lines = Path(path).read_text().replace("\r", "").split("\n")
    try:
        head = {ln.split()[0]: ln.split()[1:] for ln in lines[:4] if ln.strip()}
        h, w = int(head["height"][0]), int(head["width"][0])
        assert lines[3].strip() == "map"
    except (KeyError, IndexError, ValueError, AssertionError):
        raise ValueError(
            f"movingai: {path} is not a MovingAI map (header: type, height, width, map)"
        ) from None
    rows = [ln for ln in lines[4:] if ln.strip()]
    if len(rows) != h or any(len(r) != w for r in rows):
        raise ValueError(f"movingai: {path} must have {h} rows of {w} characters")
    return np.asarray([[1 if ch in BLOCKED else 0 for ch in r] for r in rows], np.uint8)


def resize_nearest(grid: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """Nearest-neighbour resize (OpenCV's ``INTER_NEAREST``: source index ``floor(i *
    src / dst)``)."""
    r = np.minimum(np.floor(np.arange(rows) * (grid.shape[0] / rows)).astype(int), grid.shape[0] - 1)
    c = np.minimum(np.floor(np.arange(cols) * (grid.shape[1] / cols)).astype(int), grid.shape[1] - 1)
    return grid[np.ix_(r, c)]


def sobel_edges(grid: np.ndarray, threshold: float) -> np.ndarray:
    """Cells where the Sobel gradient magnitude of the 0/1 grid exceeds ``threshold``
    (zero padding, same size)."""
    from scipy.signal import convolve2d

    kx = np.array([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]], np.float32)
    gx = convolve2d(grid.astype(np.float32), kx, mode="same")
    gy = convolve2d(grid.astype(np.float32), kx.T, mode="same")
    return (np.sqrt(gx**2 + gy**2) > threshold).astype(np.uint8)


class movingai(batched_string_grid):
    """Maps of the MovingAI benchmark (``.map`` files; e.g. the street collection of
    CAMAR's Hard protocol), one drawn per episode. Each is resized (nearest neighbour) to
    ``height`` x ``width`` cells; with ``only_edges`` only the walls' outlines (Sobel
    magnitude above ``low_thr``) become circles, which keeps large maps cheap; agents and
    goals go on passable cells.

    Args:
        map_names: paths of ``.map`` files, or names ``collection/name`` looked up as
            ``map_dir/collection/name.map`` (default: the two 48 x 48 maps shipped in
            ``jaxmarl/environments/camar/data``).
        map_dir: where named maps are (no download: this library reads local files).
        height, width, low_thr, only_edges, remove_border, add_border: as above.
        num_agents, landmark_rad, agent_rad_range, goal_rad_range, max_free_pos,
        ensure_reachable, max_redraws: as for ``batched_string_grid``.
    """

    _owner = "movingai"

    def __init__(
        self,
        map_names: Sequence[str] = SHIPPED_MAPS,
        map_dir: str | Path | None = None,
        height: int = 128,
        width: int = 128,
        low_thr: float = 3.7,
        only_edges: bool = True,
        remove_border: bool = True,
        add_border: bool = False,
        num_agents: int = 10,
        landmark_rad: float = 0.05,
        agent_rad_range: tuple[float, float] | None = (0.03, 0.03),
        goal_rad_range: tuple[float, float] | None = None,
        max_free_pos: int | None = None,
        ensure_reachable: bool = True,
        max_redraws: int = 64,
    ) -> None:
        if isinstance(map_names, str) or not len(map_names):
            raise ValueError("movingai: map_names must be a non-empty list of .map paths or names")
        grids = []
        for name in map_names:
            path = Path(name)
            if not path.suffix and map_dir is not None:
                path = Path(map_dir) / f"{name}.map"
            if not path.is_file():
                raise ValueError(f"movingai: no map file {path} (give .map paths, or names with map_dir)")
            grids.append(
                resize_nearest(
                    read_movingai(path),
                    _count("movingai", "height", height),
                    _count("movingai", "width", width),
                )
            )

        def as_text(g: np.ndarray) -> str:
            return "\n".join("".join("@" if v else "." for v in row) for row in g)

        walls = [sobel_edges(g, float(low_thr)) if only_edges else g for g in grids]
        super().__init__(
            [as_text(w) for w in walls],
            [as_text(g) for g in grids],
            num_agents=num_agents,
            remove_border=remove_border,
            add_border=add_border,
            landmark_rad=landmark_rad,
            agent_rad_range=agent_rad_range,
            goal_rad_range=goal_rad_range,
            max_free_pos=max_free_pos,
            ensure_reachable=ensure_reachable,
            max_redraws=max_redraws,
        )
        self._config.update(map_names=list(map_names), height=height, width=width, only_edges=only_edges)
