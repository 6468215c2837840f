"""``Map``: the base of JaxNav's level generators.

A map object knows the world (size, cell size, the robots' shape) and samples levels:
an occupancy grid and, for each robot, a start pose and a goal. ``sample_test_case``
returns ``(map_data, test_case)`` with ``test_case`` float32 ``(n, 2, 3)``: per robot its
start ``(x, y, theta)`` and goal ``(x, y, theta)`` (the goal's heading is unused).

The default start/goal sampler (``sample_test_case_type="random"``) is JaxMARL 0.2.0's
(``Map.sample_test_case``), consuming the PRNG key the same way, so that a key gives the
same level in both libraries. Robot by robot it draws a start uniformly in the map's
interior, a goal at a uniform distance in ``[min_dist_to_goal, max_dist_to_goal]`` and
direction (clipped into the interior) and two headings, and redraws until

- start and goal are clear of walls (discs of radius ``rad * start_pad`` and 0.3 m),
- the start is more than ``2 * rad * start_pad`` from every earlier robot's start, and
  the goal as far from every earlier robot's goal,
- start and goal are more than ``2 * rad`` apart,
- with ``valid_path_check``, the goal's cell is reachable from the start's cell.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.jaxnav import constants as C
from jaxmarl.environments.jaxnav import geometry as G
from jaxmarl.environments.jaxnav.checks import real
from jaxmarl.environments.jaxnav.maps.graph import path_length, reachable_cells

__all__ = ["Map", "MapError"]


class MapError(ValueError):
    """A map type or map parameter that cannot work."""


def _number(owner: str, name: str, value: Any, low: float | None = None, above: bool = False) -> float:
    return real(owner, name, value, low, strict=above, error=MapError)


class Map:
    """Base class of a map: the world's size, the robots, and the start/goal sampler.

    Args:
        num_agents: robots per level.
        rad: robot radius in metres (the disc of a circular robot; for footprints the
            clearance used when sampling starts), in ``(0, 1)``.
        map_size: ``(width, height)`` in cells, each at least 3 (a border wall and a
            free cell).
        min_dist_to_goal, max_dist_to_goal: range of the start-goal distance drawn by
            the random sampler (default ``1 + rad`` and ``height - 1 - rad``); ``min``
            must fit inside the map and not exceed ``max``.
        start_pad: starts (and goals) keep ``rad * start_pad`` from walls and
            ``2 * rad * start_pad`` from each other; at least 1.
        valid_path_check: only sample goals reachable from the start.
        cell_size: side of a grid cell in metres.

    Raises:
        MapError: (a ``ValueError``) for a parameter out of range.
    """

    kind = "Map"

    def __init__(
        self,
        num_agents: int,
        rad: float,
        map_size: tuple[int, int],
        min_dist_to_goal: float | None = None,
        max_dist_to_goal: float | None = None,
        start_pad: float = 1.5,
        valid_path_check: bool = False,
        cell_size: float = 1.0,
    ) -> None:
        owner = type(self).__name__
        if isinstance(num_agents, bool) or not isinstance(num_agents, (int, np.integer)) or num_agents < 1:
            raise MapError(f"{owner}: num_agents must be an integer >= 1, got {num_agents!r}")
        self.num_agents = int(num_agents)
        self.rad = _number(owner, "rad", rad, 0.0, above=True)
        if self.rad >= 1:
            raise MapError(f"{owner}: rad must be less than 1 (m), got {rad!r}")
        try:
            width, height = (int(v) for v in map_size)
        except (TypeError, ValueError):
            raise MapError(f"{owner}: map_size must be (width, height) in cells, got {map_size!r}") from None
        if width < 3 or height < 3 or (width, height) != tuple(map_size):
            raise MapError(f"{owner}: map_size must be two integers >= 3 (width, height), got {map_size!r}")
        self.map_size = (width, height)
        self.width, self.height = width, height
        self.length = width * height
        self.cell_size = _number(owner, "cell_size", cell_size, 0.0, above=True)
        self.start_pad = _number(owner, "start_pad", start_pad, 1.0)
        if not isinstance(valid_path_check, (bool, np.bool_)):
            raise MapError(f"{owner}: valid_path_check must be True or False, got {valid_path_check!r}")
        self.valid_path_check = bool(valid_path_check)
        self.goal_radius = C.GENERATOR_GOAL_RADIUS
        cell = self.cell_size
        self.low = cell + self.rad  # interior bounds of sampled positions (m)
        self.high = (width * cell - cell - self.rad, height * cell - cell - self.rad)
        default_max = height * cell - cell - self.rad
        self.min_dist_to_goal = (
            self.low
            if min_dist_to_goal is None
            else _number(owner, "min_dist_to_goal", min_dist_to_goal, 0.0)
        )
        self.max_dist_to_goal = (
            default_max
            if max_dist_to_goal is None
            else _number(owner, "max_dist_to_goal", max_dist_to_goal, 0.0)
        )
        if self.min_dist_to_goal > self.max_dist_to_goal:
            raise MapError(
                f"{owner}: min_dist_to_goal ({self.min_dist_to_goal}) must not exceed max_dist_to_goal "
                f"({self.max_dist_to_goal})"
            )
        span = min(self.high) - self.low
        if span <= 0:
            raise MapError(f"{owner}: a {width}x{height} map has no room for robots of radius {self.rad}")
        if self.min_dist_to_goal > span:
            raise MapError(
                f"{owner}: min_dist_to_goal ({self.min_dist_to_goal}) exceeds the interior of the map "
                f"({span:.3f} m): every goal would be clipped to the border"
            )
        if max_dist_to_goal is not None and self.max_dist_to_goal > span:
            warnings.warn(
                f"{owner}: max_dist_to_goal ({self.max_dist_to_goal}) exceeds the interior of the map "
                f"({span:.3f} m); longer offsets are clipped to the border",
                UserWarning,
                stacklevel=3,
            )
        # Static radii of the sampler's clearance checks.
        self._start_clearance = self.rad * self.start_pad
        self._check_window = math.ceil(max(self._start_clearance, self.goal_radius, self.rad) / cell)

    # ------------------------------------------------------------------ sampling
    def sample_map(self, key: jax.Array) -> jax.Array:
        """An occupancy grid, int32 ``(height, width)``."""
        raise NotImplementedError(f"{type(self).__name__} does not sample maps")

    def sample_test_case(self, key: jax.Array) -> tuple[jax.Array, jax.Array]:
        """A level: ``(map_data, test_case)``, see the module docstring."""
        return self.random_test_case(key)

    def sample_scenario(self, key: jax.Array) -> tuple[jax.Array, jax.Array]:
        """The same as :meth:`sample_test_case` (JaxMARL 0.2.0's version of this method
        passes the map to ``sample_test_case``, which does not take one)."""
        return self.sample_test_case(key)

    def sample_scenarios(self, keys: jax.Array) -> tuple[jax.Array, jax.Array]:
        """:meth:`sample_scenario` for a batch of keys."""
        return jax.vmap(self.sample_scenario)(keys)

    def _random_pair(self, key: jax.Array) -> jax.Array:
        """A start and goal pose, ``(2, 3)`` (JaxMARL's draws, in its order)."""
        key_s, _, key_t, key_d, key_a = jax.random.split(key, 5)
        low = np.array([self.low, self.low], np.float32)
        high = np.array(self.high, np.float32)
        start = jax.random.uniform(key_s, (1, 2), minval=low, maxval=high)
        distance = jax.random.uniform(key_d, minval=self.min_dist_to_goal, maxval=self.max_dist_to_goal)
        angle = jax.random.uniform(key_a, (1,), minval=-jnp.pi, maxval=jnp.pi)
        offset = jnp.concatenate([distance * jnp.cos(angle), distance * jnp.sin(angle)], axis=0)
        goal = jnp.clip(start + offset, low, high)
        theta = jax.random.uniform(key_t, (2, 1), minval=-jnp.pi, maxval=jnp.pi)
        return jnp.concatenate([jnp.concatenate([start, goal], axis=0), theta], axis=1)

    def _pair_invalid(self, pair: jax.Array, case: jax.Array, i: jax.Array, map_data: jax.Array) -> jax.Array:
        """Whether the pair drawn for robot ``i`` breaks a rule of the module docstring."""
        radii = jnp.array([self._start_clearance, self.goal_radius], jnp.float32)
        walls = self.check_circle_map_collision(
            pair[0, :2], map_data, radii[0]
        ) | self.check_circle_map_collision(pair[1, :2], map_data, radii[1])
        others = case.at[i].set(pair + self.rad * 3)[:, :, :2]  # robot i itself never conflicts
        reach = self._start_clearance * 2
        crowded = jnp.any(jnp.linalg.norm(others[:, 0] - pair[0, :2], axis=1) <= reach) | jnp.any(
            jnp.linalg.norm(others[:, 1] - pair[1, :2], axis=1) <= reach
        )
        too_close = jnp.linalg.norm(pair[0, :2] - pair[1, :2]) <= 2 * self.rad
        bad = walls | crowded | too_close
        if self.valid_path_check:
            bad = bad | ~self.passable_check(pair[0, :2], pair[1, :2], map_data)
        return bad

    def random_test_case(self, key: jax.Array) -> tuple[jax.Array, jax.Array]:
        """The random start/goal sampler of the module docstring on a sampled map."""
        key, key_map = jax.random.split(key)
        map_data = self.sample_map(key_map)
        fill = max(self.map_size) * self.cell_size + self.rad * 2  # far outside the map
        case = jnp.full((self.num_agents, 2, 3), fill, jnp.float32)

        def place(
            carry: tuple[jax.Array, jax.Array], key: jax.Array
        ) -> tuple[tuple[jax.Array, jax.Array], None]:
            i, case = carry

            # Draw until valid: one loop body for the first draw and the redraws (the key
            # splits the same way for each).
            def draw(val: tuple[jax.Array, jax.Array, jax.Array, jax.Array]) -> tuple:
                key, _, case, _ = val
                key, key_pair = jax.random.split(key)
                pair = self._random_pair(key_pair)
                return key, pair, case.at[i].set(pair), jnp.array(False)

            def again(val: tuple[jax.Array, jax.Array, jax.Array, jax.Array]) -> jax.Array:
                _, pair, case, first = val
                return first | self._pair_invalid(pair, case, i, map_data)

            val = (key, case[i], case, jnp.array(True))
            _, _, case, _ = jax.lax.while_loop(again, draw, val)
            return (i + 1, case), None

        (_, case), _ = jax.lax.scan(place, (jnp.int32(0), case), jax.random.split(key, self.num_agents))
        return map_data, case

    # ------------------------------------------------------------------ geometry
    def scale_coords(self, x: jax.Array) -> jax.Array:
        """Metres to cells."""
        return x / self.cell_size

    def check_point_map_collision(self, pos: jax.Array, map_data: jax.Array) -> jax.Array:
        """Whether ``pos`` (``(..., 2)``) lies in a wall cell."""
        return G.point_map_collision(pos, map_data, self.cell_size)

    def check_circle_map_collision(
        self, pos: jax.Array, map_data: jax.Array, rad: float | jax.Array | None = None
    ) -> jax.Array:
        """Whether a disc at ``pos`` (radius ``rad``, default the robot's) touches a wall."""
        radius = self.rad if rad is None else rad
        window = self._check_window if rad is not None else math.ceil(self.rad / self.cell_size)
        return G.circle_map_collision(pos, map_data, radius, self.cell_size, window)

    def check_agent_map_collision(self, pos: jax.Array, theta: jax.Array, map_data: jax.Array) -> jax.Array:
        """Whether a robot at ``pos``, ``theta`` hits a wall."""
        raise NotImplementedError(f"{type(self).__name__} has no robot shape")

    def footprint(self, pos: jax.Array, theta: jax.Array) -> jax.Array:
        """The robot's outline at ``pos``, ``theta``, a polygon ``(V, 2)`` (for drawing)."""
        raise NotImplementedError(f"{type(self).__name__} has no robot shape")

    def check_all_agent_agent_collisions(self, pos: jax.Array, theta: jax.Array) -> jax.Array:
        """Which robots (``pos`` ``(n, 2)``, ``theta`` ``(n,)``) touch another, bool ``(n,)``."""
        raise NotImplementedError(f"{type(self).__name__} has no robot shape")

    def beam_hit(
        self, start: jax.Array, end: jax.Array, pos: jax.Array, theta: jax.Array, resolution: float
    ) -> jax.Array:
        """Where beams ``start-end`` ``(B, 2)`` first cross the robot at ``pos``, ``theta``:
        ``floor(distance / resolution)``, -1 for a miss, int32 ``(B,)`` (see ``lidar``)."""
        raise NotImplementedError(f"{type(self).__name__} has no robot shape")

    def check_agent_beam_intersect(
        self, beam: jax.Array, pos: jax.Array, theta: jax.Array, range_resolution: float
    ) -> jax.Array:
        """First-hit index of one beam (its sample points ``(K, 2)``) on the robot at
        ``pos``, ``theta``, -1 for a miss (JaxMARL's signature)."""
        return self.beam_hit(beam[:1], beam[-1:], pos, theta, range_resolution)[0]

    def passable_check(self, pos1: jax.Array, pos2: jax.Array, map_data: jax.Array) -> jax.Array:
        """Whether the cell of ``pos2`` is reachable from the cell of ``pos1`` (4-connected)."""
        a = jnp.floor(pos1 / self.cell_size).astype(jnp.int32)
        b = jnp.floor(pos2 / self.cell_size).astype(jnp.int32)
        return reachable_cells(map_data, a)[b[1], b[0]]

    def dikstra_path(
        self, map_data: jax.Array, pos1: jax.Array, pos2: jax.Array
    ) -> tuple[jax.Array, jax.Array]:
        """``(reachable, moves)``: a shortest 4-connected path between the cells of
        ``pos1`` and ``pos2``, in cells (0.0 when unreachable)."""
        a = jnp.floor(pos1 / self.cell_size).astype(jnp.int32)
        b = jnp.floor(pos2 / self.cell_size).astype(jnp.int32)
        return path_length(map_data, a, b)

    def base_grid(self) -> jax.Array:
        """An empty grid with the border walls, int32 ``(height, width)``."""
        grid = np.zeros((self.height, self.width), np.int32)
        grid[0, :] = grid[-1, :] = grid[:, 0] = grid[:, -1] = 1
        return jnp.asarray(grid)
