"""Grid maps: walls are cells of an occupancy grid (JaxMARL 0.2.0's ``maps/grid_map.py``).

- :class:`GridMapCircleAgents` (``Grid-Rand``): random walls, circular robots.
- :class:`GridMapPolygonAgents` (``Grid-Rand-Poly``, the default): random walls, robots
  with a convex footprint (a 0.5 m square by default).
- :class:`GridMapBarn` (``Grid-Rand-Barn``): smoothed Barn-style maps of 0.15 m cells
  for one Clearpath-Jackal-sized robot (see ``barn.py``).
- :class:`GridMapPolygonAgentsSingleMap` (``Grid-Rand-Poly-Single``): one fixed grid,
  random starts and goals.
- :class:`GridMapFromBuffer` (``Grid-Buffer``): levels (grids, or grids with their
  starts and goals) drawn from a stored buffer, circular robots.

Random walls: the border is wall; of the ``(width - 2) * (height - 2)`` inner cells a
uniformly random number in ``[0, floor(inner * fill))`` become walls, at uniformly
random places. Starts and goals: ``sample_test_case_type="random"`` (see ``map.py``) or
``"grid"``: robot by robot, a start at the centre of a free cell no earlier robot starts
in, and a goal at the centre of another free cell (reachable from the start with
``valid_path_check``) that is no earlier robot's goal; headings uniform.
"""

from __future__ import annotations

import math
import os
import pickle
from collections.abc import Sequence
from enum import IntEnum
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.jaxnav import constants as C
from jaxmarl.environments.jaxnav import geometry as G
from jaxmarl.environments.jaxnav.geometry import rotation_matrix
from jaxmarl.environments.jaxnav.maps.barn import sample_barn_test_case
from jaxmarl.environments.jaxnav.maps.graph import reachable_cells
from jaxmarl.environments.jaxnav.maps.map import Map, MapError

__all__ = [
    "INFLATE_IDX_OFFSETS_3",
    "INFLATE_IDX_OFFSETS_5",
    "SMOOTHING_IDX_OFFSETS",
    "GridMapBarn",
    "GridMapCircleAgents",
    "GridMapFromBuffer",
    "GridMapPolygonAgents",
    "GridMapPolygonAgentsSingleMap",
    "SampleTestCaseTypes",
    "default_coords",
    "jackal_coords",
    "middle_line",
    "parse_grid",
    "rotation_matrix",
]

# JaxMARL's names for the constants.
default_coords = C.SQUARE_ROBOT
jackal_coords = C.JACKAL_ROBOT
middle_line = C.HEADING_LINE
SMOOTHING_IDX_OFFSETS = C.SMOOTHING_OFFSETS
INFLATE_IDX_OFFSETS_3 = C.INFLATE_OFFSETS_3
INFLATE_IDX_OFFSETS_5 = C.INFLATE_OFFSETS_5


class SampleTestCaseTypes(IntEnum):
    """How starts and goals are drawn: ``RANDOM`` (continuous) or ``GRID`` (cell centres)."""

    RANDOM = 0
    GRID = 1


def parse_grid(rows: Any, owner: str = "map_data") -> np.ndarray:
    """An occupancy grid from rows of ``"0"``/``"1"`` separated by spaces (JaxMARL's
    format, e.g. ``["1 1 1", "1 0 1", "1 1 1"]``) or from a 2-d array of 0s and 1s; row 0
    is ``y`` in ``[0, 1)`` cells. Raises ``MapError`` for anything else."""
    if isinstance(rows, str):
        rows = rows.strip().splitlines()
    try:
        if len(rows) and isinstance(rows[0], str):
            grid = np.array([[int(v) for v in row.split()] for row in rows])
        else:
            grid = np.asarray(rows)
    except (TypeError, ValueError) as err:
        raise MapError(
            f"{owner}: rows of 0/1 separated by spaces or a 2-d 0/1 array expected ({err})"
        ) from None
    if grid.ndim != 2 or grid.size == 0 or not np.isin(grid, (0, 1)).all():
        raise MapError(f"{owner}: a rectangular 2-d grid of 0 (free) and 1 (wall) expected, got {rows!r}")
    if min(grid.shape) < 3:
        raise MapError(f"{owner}: the grid must be at least 3x3, got {grid.shape[0]}x{grid.shape[1]}")
    return grid.astype(np.int32)


def _check_fill(owner: str, fill: Any) -> float:
    if (
        isinstance(fill, bool)
        or not isinstance(fill, (int, float, np.integer, np.floating))
        or not 0 <= fill < 1
    ):
        raise MapError(f"{owner}: fill must be a number in [0, 1), got {fill!r}")
    return float(fill)


class GridMapCircleAgents(Map):
    """Random grid walls, circular robots of radius ``rad`` (``Grid-Rand``).

    Args:
        num_agents, rad, map_size: see :class:`Map`.
        fill: at most this share of the inner cells are walls (the number of walls is
            uniform in ``[0, floor(inner * fill))``), in ``[0, 1)``.
        cell_size: side of a cell in metres.
        sample_test_case_type: ``"random"`` (continuous positions) or ``"grid"`` (cell
            centres; needs ``cell_size == 1``).
        **map_kwargs: ``min_dist_to_goal``, ``max_dist_to_goal``, ``start_pad``,
            ``valid_path_check`` (see :class:`Map`).
    """

    kind = "circle"

    def __init__(
        self,
        num_agents: int,
        rad: float,
        map_size: tuple[int, int],
        fill: float = 0.4,
        cell_size: float = 1.0,
        sample_test_case_type: str = "random",
        **map_kwargs: Any,
    ) -> None:
        owner = type(self).__name__
        unknown = sorted(
            set(map_kwargs) - {"min_dist_to_goal", "max_dist_to_goal", "start_pad", "valid_path_check"}
        )
        if unknown:
            raise MapError(f"{owner}: unknown map parameter(s) {unknown}")
        super().__init__(num_agents, rad, map_size, cell_size=cell_size, **map_kwargs)
        if sample_test_case_type not in C.SAMPLE_TEST_CASE_TYPES:
            raise MapError(
                f"{owner}: sample_test_case_type must be one of {C.SAMPLE_TEST_CASE_TYPES}, "
                f"got {sample_test_case_type!r}"
            )
        self.sample_test_case_type = SampleTestCaseTypes[str(sample_test_case_type).upper()]
        if self.sample_test_case_type == SampleTestCaseTypes.GRID and self.cell_size != 1.0:
            raise MapError(f"{owner}: sample_test_case_type='grid' needs cell_size=1.0, got {self.cell_size}")
        self.fill = _check_fill(owner, fill)
        self.free_grids = (self.width - 2) * (self.height - 2)
        self.n_clutter = int(np.floor(self.free_grids * self.fill))
        self.pos_offset = np.full((2,), 0.5, np.float32)
        self.cell_half_height = self.cell_size / 2
        self.scaled_rad = self.rad / self.cell_size
        self._check_capacity(self.free_grids - max(self.n_clutter - 1, 0))

    def _check_capacity(self, free_cells: int) -> None:
        """Refuse robot counts no level can hold (the sampler would loop for ever)."""
        need = self.num_agents + (1 if self.sample_test_case_type == SampleTestCaseTypes.GRID else 0)
        if free_cells < need:
            raise MapError(
                f"{type(self).__name__}: {self.num_agents} robots need at least {need} free cells, but a "
                f"level of this map may have only {free_cells}; use fewer robots, a bigger map or less fill"
            )

    # ------------------------------------------------------------------ sampling
    def sample_map(self, key: jax.Array) -> jax.Array:
        """Border walls and a uniform number of random inner walls (module docstring)."""
        key_fill, key_shuffle = jax.random.split(key)
        num_fill = jax.random.randint(key_fill, (1,), 0, self.n_clutter)[0]
        inner = jnp.where(jnp.arange(self.free_grids) < num_fill, 1, 0)
        inner = jax.random.permutation(key_shuffle, inner, independent=True)
        return self.base_grid().at[1:-1, 1:-1].set(inner.reshape(self.height - 2, self.width - 2))

    def sample_test_case(self, key: jax.Array) -> tuple[jax.Array, jax.Array]:
        if self.sample_test_case_type == SampleTestCaseTypes.GRID:
            return self.grid_sample_test_case(key)
        return self.random_test_case(key)

    def grid_sample_test_case(self, key: jax.Array) -> tuple[jax.Array, jax.Array]:
        """Starts and goals at cell centres (module docstring), JaxMARL's draws."""
        key, key_map = jax.random.split(key)
        map_data = self.sample_map(key_map)
        return self._grid_cases(key, map_data)

    def _grid_cases(self, key: jax.Array, map_data: jax.Array) -> tuple[jax.Array, jax.Array]:
        inside = map_data[1:-1, 1:-1]
        iw = self.width - 2
        cells = inside.size

        def draw(key: jax.Array, start_mask: jax.Array, goal_mask: jax.Array) -> tuple:
            key, key_start = jax.random.split(key)
            start_idx = jax.random.choice(key_start, cells, (1,), p=1 - start_mask.reshape(-1))[0]
            start = jnp.array([start_idx % iw, start_idx // iw])
            if self.valid_path_check:
                region = reachable_cells(map_data, start + 1)[1:-1, 1:-1]
            else:
                region = (1 - inside).astype(bool)
            options = region.at[start[1], start[0]].set(False) & (goal_mask == 0)
            goal_idx = jax.random.choice(key, cells, (1,), p=options.reshape(-1))[0]
            goal = jnp.array([goal_idx % iw, goal_idx // iw])
            return jnp.any(options), start, goal

        def place(carry: tuple, key: jax.Array) -> tuple[tuple, None]:
            i, pos, start_mask, goal_mask = carry

            def redraw(val: tuple) -> tuple:
                _, key, pos = val
                key, key_pair = jax.random.split(key)
                valid, start, goal = draw(key_pair, start_mask, goal_mask)
                return ~valid, key, pos.at[i].set(jnp.stack([start, goal]).astype(pos.dtype))

            _, _, pos = jax.lax.while_loop(lambda v: v[0], redraw, (jnp.array(True), key, pos))
            start, goal = pos[i, 0].astype(jnp.int32), pos[i, 1].astype(jnp.int32)
            start_mask = start_mask.at[start[1], start[0]].set(1)
            goal_mask = goal_mask.at[goal[1], goal[0]].set(1)
            return (i + 1, pos, start_mask, goal_mask), None

        fill = max(self.map_size) + self.rad * 2
        pos = jnp.full((self.num_agents, 2, 2), fill, jnp.float32)
        key, key_scan = jax.random.split(key)
        carry = (jnp.int32(0), pos, inside, inside)
        (_, pos, _, _), _ = jax.lax.scan(place, carry, jax.random.split(key_scan, self.num_agents))
        theta = jax.random.uniform(key, (self.num_agents, 2, 1), minval=-jnp.pi, maxval=jnp.pi)
        return map_data, jnp.concatenate([pos + 1.5, theta], axis=2)

    # ------------------------------------------------------------------ robots
    def check_agent_map_collision(self, pos: jax.Array, theta: jax.Array, map_data: jax.Array) -> jax.Array:
        """Whether the robot's disc touches a wall (JaxMARL 0.2.0 has no such test for
        circular robots and raises ``NotImplementedError`` on the first step)."""
        del theta
        return self.check_circle_map_collision(pos, map_data)

    def check_all_agent_agent_collisions(self, pos: jax.Array, theta: jax.Array) -> jax.Array:
        del theta
        return G.agent_collisions_circle(pos, self.rad)

    def beam_hit(
        self, start: jax.Array, end: jax.Array, pos: jax.Array, theta: jax.Array, resolution: float
    ) -> jax.Array:
        del theta
        return G.beam_circle_index(start, end, pos, self.rad, resolution)

    def footprint(self, pos: jax.Array, theta: jax.Array) -> jax.Array:
        """A polygon approximating the robot (for drawing), ``(16, 2)``."""
        a = np.linspace(0, 2 * np.pi, 16, endpoint=False)
        return pos + self.rad * jnp.stack([jnp.cos(a + theta), jnp.sin(a + theta)], axis=-1)


def _check_coords(owner: str, coords: Any) -> np.ndarray:
    arr = np.asarray(coords, np.float32)
    if arr.ndim != 2 or arr.shape[1] != 2 or arr.shape[0] < 3 or not np.isfinite(arr).all():
        raise MapError(
            f"{owner}: agent_coords must be a (V >= 3, 2) array of polygon vertices, got {coords!r}"
        )
    edges = np.roll(arr, -1, axis=0) - arr
    cross = edges[:, 0] * np.roll(edges, -1, axis=0)[:, 1] - edges[:, 1] * np.roll(edges, -1, axis=0)[:, 0]
    if not (np.all(cross >= 0) or np.all(cross <= 0)) or np.all(cross == 0):
        raise MapError(f"{owner}: agent_coords must be a convex polygon with its vertices in order")
    return arr


class GridMapPolygonAgents(GridMapCircleAgents):
    """Random grid walls, robots with a convex footprint (``Grid-Rand-Poly``).

    Args:
        agent_coords: the footprint's vertices in the robot frame (x forward), in order,
            ``(V, 2)``; default a 0.5 m square.
        middle_line: the heading marker drawn on robots, ``(2, 2)``.
        **kwargs: see :class:`GridMapCircleAgents`.
    """

    kind = "polygon"

    def __init__(
        self,
        num_agents: int,
        rad: float,
        map_size: tuple[int, int],
        agent_coords: Any = default_coords,
        middle_line: Any = middle_line,
        **map_kwargs: Any,
    ) -> None:
        super().__init__(num_agents, rad, map_size, **map_kwargs)
        self.agent_coords = _check_coords(type(self).__name__, agent_coords)
        self.middle_line = np.asarray(middle_line, np.float32)
        extent = self.agent_coords.max(axis=0) - self.agent_coords.min(axis=0)
        self.agent_window = math.ceil(float(extent.max()) / self.cell_size * 2)

    def transform_coords(self, pos: jax.Array, theta: jax.Array, coords: Any) -> jax.Array:
        return G.transform_coords(pos, theta, jnp.asarray(coords))

    def check_agent_map_collision(self, pos: jax.Array, theta: jax.Array, map_data: jax.Array) -> jax.Array:
        return G.polygon_map_collision(
            pos, jnp.reshape(theta, ()), map_data, self.agent_coords, self.cell_size, self.agent_window
        )

    def check_all_agent_agent_collisions(self, pos: jax.Array, theta: jax.Array) -> jax.Array:
        return G.agent_collisions_polygon(pos, jnp.reshape(theta, (-1,)), self.agent_coords)

    def beam_hit(
        self, start: jax.Array, end: jax.Array, pos: jax.Array, theta: jax.Array, resolution: float
    ) -> jax.Array:
        return G.beam_polygon_index(start, end, pos, theta, self.agent_coords, resolution)

    def footprint(self, pos: jax.Array, theta: jax.Array) -> jax.Array:
        return G.transform_coords(pos, theta, jnp.asarray(self.agent_coords))


class GridMapBarn(GridMapPolygonAgents):
    """Barn-style maps for one robot (``Grid-Rand-Barn``, see ``barn.py``).

    Args:
        smoothing_iters: rounds of the smoothing automaton.
        smoothing_upper_count, smoothing_lower_count: its thresholds (upper > lower).
        agent_coords: the footprint (default a Clearpath Jackal, 0.508 x 0.43 m).
        cell_size: cell side in metres (0.15).
        **kwargs: see :class:`GridMapPolygonAgents` (``fill`` is the random fill before
            smoothing).

    Raises:
        MapError: unless ``num_agents == 1`` (Barn levels hold one robot).
    """

    def __init__(
        self,
        num_agents: int,
        rad: float,
        map_size: tuple[int, int],
        smoothing_iters: int = 4,
        smoothing_upper_count: int = 3,
        smoothing_lower_count: int = 1,
        agent_coords: Any = jackal_coords,
        cell_size: float = 0.15,
        **map_kwargs: Any,
    ) -> None:
        owner = type(self).__name__
        if num_agents != 1:
            raise MapError(f"{owner}: Barn levels hold exactly one robot, got num_agents={num_agents!r}")
        super().__init__(
            num_agents, rad, map_size, agent_coords=agent_coords, cell_size=cell_size, **map_kwargs
        )
        for name, value in (
            ("smoothing_iters", smoothing_iters),
            ("smoothing_upper_count", smoothing_upper_count),
            ("smoothing_lower_count", smoothing_lower_count),
        ):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
                raise MapError(f"{owner}: {name} must be an integer >= 0, got {value!r}")
        if smoothing_upper_count <= smoothing_lower_count:
            raise MapError(f"{owner}: smoothing_upper_count must be greater than smoothing_lower_count")
        # Free cells lie at least 3 cells inside the border (it is inflated by 2), and a
        # goal more than BARN_MIN_CELLS cells from the start in x or y.
        if max(self.width, self.height) - 7 <= C.BARN_MIN_CELLS:
            raise MapError(
                f"{owner}: goals are drawn more than {C.BARN_MIN_CELLS} cells from the start in x or y, "
                f"which a {self.width}x{self.height} map cannot hold; use map_size of at least "
                f"{C.BARN_MIN_CELLS + 8} cells in x or y"
            )
        self.smoothing_iters = int(smoothing_iters)
        self.smoothing_upper_count = int(smoothing_upper_count)
        self.smoothing_lower_count = int(smoothing_lower_count)

    def sample_test_case(self, key: jax.Array) -> tuple[jax.Array, jax.Array]:
        return sample_barn_test_case(
            key,
            self.sample_map,
            (self.height, self.width),
            self.smoothing_iters,
            self.smoothing_upper_count,
            self.smoothing_lower_count,
            self.cell_size,
        )


class GridMapPolygonAgentsSingleMap(GridMapPolygonAgents):
    """One fixed grid, random starts and goals (``Grid-Rand-Poly-Single``).

    Args:
        map_data: the grid, rows of ``"0"``/``"1"`` separated by spaces (row 0 at the
            bottom, ``y`` in ``[0, 1)``) or a 2-d 0/1 array.
        **kwargs: see :class:`GridMapPolygonAgents` (no ``map_size``: the grid's).
    """

    def __init__(
        self,
        num_agents: int,
        rad: float,
        map_data: Sequence[str] | np.ndarray,
        agent_coords: Any = default_coords,
        middle_line: Any = middle_line,
        **map_kwargs: Any,
    ) -> None:
        grid = parse_grid(map_data, f"{type(self).__name__}: map_data")
        height, width = grid.shape
        map_kwargs.pop("fill", None)
        self._grid = grid
        super().__init__(
            num_agents,
            rad,
            (width, height),
            agent_coords=agent_coords,
            middle_line=middle_line,
            fill=0.0,
            **map_kwargs,
        )
        self._map_data = jnp.asarray(grid)

    def _check_capacity(self, free_cells: int) -> None:
        super()._check_capacity(int((self._grid == 0).sum()))

    def sample_map(self, key: jax.Array) -> jax.Array:
        del key
        return self._map_data


def _load_buffer(dir_path: str, prefix: str) -> tuple[np.ndarray, ...]:
    files = sorted(f for f in os.listdir(dir_path) if f.startswith(prefix))
    if not files:
        raise MapError(f"GridMapFromBuffer: no files starting with {prefix!r} in {dir_path!r}")
    parts: list[list[np.ndarray]] = [[], [], [], []]
    for name in files:
        with open(os.path.join(dir_path, name), "rb") as f:
            stored = pickle.load(f)
        if len(stored) != 4:
            raise MapError(f"GridMapFromBuffer: {name} must hold (map_data, starts, theta, goals)")
        for part, value in zip(parts, stored, strict=True):
            part.append(np.asarray(value))
    return tuple(np.concatenate(p, axis=0) for p in parts)


class GridMapFromBuffer(GridMapCircleAgents):
    """Levels from a stored buffer, circular robots (``Grid-Buffer``).

    Either ``map_grids``: grids ``(B, height, width)``, one drawn uniformly per level with
    starts and goals drawn as for ``Grid-Rand``; or ``dir_path``: pickled buffers (files
    named ``file_prefix*``) each holding ``(map_data (B, h, w), starts (B, [n,] 2),
    theta (B, [n,] 1), goals (B, [n,] 2))``, one whole level drawn uniformly.

    Raises:
        MapError: unless exactly one of ``map_grids`` and ``dir_path`` is given, or when
            the buffer's grids are not ``map_size`` or hold another number of robots.
    """

    def __init__(
        self,
        num_agents: int,
        rad: float,
        map_size: tuple[int, int],
        map_grids: Any = None,
        dir_path: str | None = None,
        file_prefix: str = "map_buffer_",
        **map_kwargs: Any,
    ) -> None:
        owner = type(self).__name__
        if (map_grids is None) == (dir_path is None):
            raise MapError(f"{owner}: give exactly one of map_grids (an array of grids) and dir_path")
        map_kwargs.setdefault("fill", 0.1)
        super().__init__(num_agents, rad, map_size, **map_kwargs)
        self.test_cases: tuple[jax.Array, ...] | None = None
        if map_grids is not None:
            grids = np.asarray(map_grids)
            if grids.ndim == 2:
                grids = grids[None]
            if grids.ndim != 3 or not np.isin(grids, (0, 1)).all():
                raise MapError(f"{owner}: map_grids must be 0/1 grids (B, height, width)")
        else:
            grids, starts, theta, goals = _load_buffer(str(dir_path), file_prefix)
            starts = starts.reshape(len(starts), -1, 2)
            goals = goals.reshape(len(goals), -1, 2)
            theta = theta.reshape(len(theta), -1)
            if starts.shape[1] != num_agents or goals.shape[1] != num_agents or theta.shape[1] != num_agents:
                raise MapError(
                    f"{owner}: the buffer's levels hold {starts.shape[1]} robots, not {num_agents}"
                )
            self.test_cases = (
                jnp.asarray(grids, jnp.int32),
                jnp.asarray(starts, jnp.float32),
                jnp.asarray(theta, jnp.float32),
                jnp.asarray(goals, jnp.float32),
            )
        if grids.shape[1:] != (self.height, self.width):
            raise MapError(
                f"{owner}: the buffer's grids are {grids.shape[1:]} (h, w), not map_size {map_size}"
            )
        self.map_grids = jnp.asarray(grids, jnp.int32)
        self.num_test_cases = int(grids.shape[0])

    def _check_capacity(self, free_cells: int) -> None:
        del free_cells  # checked once the buffer is loaded

    def sample_map(self, key: jax.Array) -> jax.Array:
        return self.map_grids[jax.random.randint(key, (), 0, self.num_test_cases)]

    def sample_test_case(self, key: jax.Array) -> tuple[jax.Array, jax.Array]:
        if self.test_cases is None:
            return super().sample_test_case(key)
        grids, starts, theta, goals = self.test_cases
        i = jax.random.randint(key, (), 0, self.num_test_cases)
        poses = jnp.stack(
            [
                jnp.concatenate([starts[i], theta[i][:, None]], axis=-1),
                jnp.concatenate([goals[i], jnp.zeros((self.num_agents, 1), jnp.float32)], axis=-1),
            ],
            axis=1,
        )
        return grids[i], poses
