"""Map generators of CAMAR: where the obstacle circles, the agents and their goals are.

Every object is a circle. A generator fixes, at construction, the number of agents and
obstacle circles (``num_landmarks``), the map's ``width`` x ``height`` (centred on the
origin) and the radii, and samples in JAX, under ``jit`` and ``vmap``, a
:class:`MapSample` per episode (:meth:`MapGenerator.reset`).

Radii follow camar 0.4.0: ``agent_rad_range=(lo, hi)`` gives every agent a radius drawn
uniformly in ``[lo, hi]`` (one radius when ``lo == hi``); goals have radius
``goal_rad_range`` likewise, or ``agent_rad / 2.5`` when it is ``None``.

Reachability (``ensure_reachable``, default on): camar 0.4.0 may put a goal where its
agent cannot go (walled off by obstacles); on random_grid 20x20 at density 0.3 that
happens in 55% of its draws with 8 agents and 89% with 32, on caves_cont's defaults in
99.8%. Here every goal lies in the 4-connected component of free cells holding its
agent's start (for caves_cont, of the cell centres an agent of the largest radius fits
on):

- random_grid keeps camar's draw (obstacles, starts, goals) and moves each unreachable
  goal to a cell drawn uniformly among the free cells of its start's component that no
  start or goal of camar's draw occupies (distinct for every agent); an agent walled into
  a pocket with no such cell gets a new start and goal in the largest component. The
  components come from a label propagation in JAX at reset. No loop of redraws and no
  loop over agents: the cost is one labelling per reset, which matters because every
  ``step`` computes a reset for the automatic reset.
  A draw with every goal reachable is camar's draw unchanged.
- The text layouts (:mod:`jaxmarl.environments.camar.grid_maps`) have their components
  computed once at construction and redraw the starts and goals until every goal is
  reachable (up to ``max_redraws`` draws, after which the last draw is kept; the first
  draw is camar's own). Their layouts are mostly connected, so the loop rarely runs.
- caves_cont repairs its draws as random_grid does, on the cell centres where an agent
  fits, which depend on the agent's size (its walls are circles half as wide as the
  default agents): see :class:`caves_cont`. Its 128 x 128 caves are labelled by
  :func:`component_labels`, in a few rounds of hooking and pointer jumping
  rather than hundreds of sweeps.

This module holds the base class and the two generators that draw their own obstacles
(:class:`random_grid`, :class:`caves_cont`); the layouts given as text are in
:mod:`jaxmarl.environments.camar.grid_maps`.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxmarl.environments.camar.spatial import BucketGrid

__all__ = [
    "MapGenerator",
    "MapSample",
    "caves_cont",
    "component_labels",
    "move_unreachable_goals",
    "random_grid",
]


@struct.dataclass
class MapSample:
    """One episode's map (shapes for ``N`` agents, ``L`` obstacle circles, ``F`` free
    positions kept for lifelong goals, ``T`` bucket-table size)."""

    landmark_pos: jax.Array  # (L, 2) obstacle circle centres
    agent_pos: jax.Array  # (N, 2) start positions
    goal_pos: jax.Array  # (N, 2) goal positions
    agent_rad: jax.Array  # (N,) agent radii
    goal_rad: jax.Array  # (N,) goal radii (an agent is on its goal when closer than this)
    map_id: jax.Array  # () int32: which fixed layout (0 for generators that draw their own)
    free_pos: jax.Array  # (F, 2) free cell centres of drawn layouts (F = 0 for fixed layouts)
    table: jax.Array  # (T, capacity) bucket table of drawn layouts ((0, capacity) for fixed ones)


def _pair(name: str, value: Any) -> tuple[float, float] | None:
    if value is None:
        return None
    try:
        lo, hi = (float(v) for v in value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a pair (low, high) or None, got {value!r}") from None
    if not 0 < lo <= hi:
        raise ValueError(f"{name} must satisfy 0 < low <= high, got {value!r}")
    return lo, hi


def _count(owner: str, name: str, value: Any, minimum: int = 1) -> int:
    if isinstance(value, bool) or int(value) != value or int(value) < minimum:
        raise ValueError(f"{owner}: {name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def component_labels(free: jax.Array) -> jax.Array:
    """Label of the 4-connected component of each free cell of the boolean grid ``free``
    ``(rows, cols)``: the smallest flat index in the component (``rows * cols`` on blocked
    cells), in a few rounds however long the paths through the components are.

    Every label is the index of a cell of the same component, no larger than the cell's
    own, so the labels are pointers of a forest. A round lowers each cell's label to the
    smallest label next to it, hooks the cell its label points to onto that label too (a
    scatter-min), and jumps every pointer twice (``label <- label[label]``), as in
    Shiloach and Vishkin's connectivity algorithm; the rounds stop when one changes
    nothing, where every cell has the smallest label of its neighbourhood, so one label
    per component, its smallest index. On caves_cont's 128 x 128 maps (passable cells for
    its default agents) this takes at most 7 rounds, where propagating minima one cell per
    sweep needs 260 sweeps on average and up to 430 (14x slower on one map, 9x under
    ``vmap`` over 100 maps, on a 2-core CPU); on random_grid's maps it is 1.5x (20 x 20)
    and 5x (80 x 80) faster than the sweeps."""
    rows, cols = free.shape
    big = rows * cols
    flat_free = free.reshape(-1)

    def neighbour_min(lab: jax.Array) -> jax.Array:
        pad = jnp.pad(lab.reshape(rows, cols), 1, constant_values=big)
        nb = jnp.minimum(
            jnp.minimum(pad[:-2, 1:-1], pad[2:, 1:-1]), jnp.minimum(pad[1:-1, :-2], pad[1:-1, 2:])
        )
        return nb.reshape(-1)

    def round_(carry: tuple[jax.Array, jax.Array]) -> tuple[jax.Array, jax.Array]:
        lab, _ = carry
        low = jnp.where(flat_free, jnp.minimum(lab, neighbour_min(lab)), big)
        par = jnp.minimum(jnp.append(lab, big).at[lab].min(low)[:-1], low)  # hook
        for _ in range(2):
            par = jnp.append(par, big)[par]  # jump
        return par, jnp.any(par != lab)

    init = jnp.where(flat_free, jnp.arange(big), big)
    lab, _ = jax.lax.while_loop(lambda c: c[1], round_, (init, jnp.array(True)))
    return lab.reshape(rows, cols)


def move_unreachable_goals(
    starts: jax.Array,
    goals: jax.Array,
    ok: jax.Array,
    home: jax.Array,
    spare: jax.Array,
    spare_label: jax.Array,
    spare_count: jax.Array,
    largest: jax.Array,
) -> tuple[jax.Array, jax.Array]:
    """The repair of random_grid and caves_cont (module docstring), all agents at once.

    Args:
        starts, goals: ``(n,)`` camar's start and goal cells (or slots).
        ok: ``(n,)`` whether each goal is reachable from its start.
        home: ``(n,)`` the component label of each start (a label with no spare cell
            where the start cannot be stood on).
        spare: ``(s,)`` the cells an agent may take, in random order.
        spare_label: ``(s,)`` their component labels.
        spare_count: spare cells per label (index ``home`` and ``largest`` into it).
        largest: the label of the component pocketed agents move to.

    Every unreachable goal moves to the next spare cell of its start's component, in
    agent order while spare cells last there; an agent left without one (its start
    walled into a pocket) moves, start and goal, to ``largest``, after those (it keeps
    camar's cells if fewer than two are left there)."""
    n = starts.shape[0]
    earlier = jnp.tri(n, k=-1, dtype=bool)  # earlier[i, j]: agent j comes before agent i

    def queue(target: jax.Array, need: jax.Array) -> jax.Array:
        """Per agent, how many spare cells of its target the agents before it take."""
        same = (target[:, None] == target[None, :]) & earlier
        return jnp.sum(jnp.where(same, need[None, :], 0), axis=1)

    first = queue(home, (~ok).astype(jnp.int32))
    near = ~ok & (first < spare_count[home])
    pocket = ~ok & ~near
    taken = jnp.sum(near & (home == largest))
    first = jnp.where(pocket, taken + queue(jnp.where(pocket, largest, -1), 2 * pocket), first)
    pocket = pocket & (first + 2 <= spare_count[largest])
    target = jnp.where(pocket, largest, home)
    match = spare_label[None, :] == target[:, None]  # (n, spare)
    seen = jnp.cumsum(match, axis=1)

    def kth(k: jax.Array) -> jax.Array:  # the (k+1)-th spare cell of each agent's target
        return spare[jnp.argmax(match & (seen == k[:, None] + 1), axis=1)]

    new_start, next_cell = kth(first), kth(first + 1)
    starts = jnp.where(pocket, new_start, starts)
    goals = jnp.where(pocket, next_cell, jnp.where(near, new_start, goals))
    return starts, goals


class MapGenerator:
    """Base of the map generators (module docstring).

    Subclasses set ``num_agents``, ``num_landmarks``, ``width``, ``height``,
    ``landmark_rad`` and the radius configuration (:meth:`_setup_radii`), and implement
    :meth:`reset`. A generator whose obstacle layouts are fixed at construction sets
    ``layouts`` (``(B, L, 2)``, one per map) and ``free_layouts`` (``(B, F, 2)``); one that
    draws them sets ``layouts = None`` and returns its bucket table in the sample; if
    that table serves every bucket grid (through :meth:`near_landmarks`), it sets
    ``any_grid = True``.
    """

    num_agents: int
    num_landmarks: int
    width: float
    height: float
    landmark_rad: float
    agent_rad: float | None
    goal_rad: float | None
    _config: dict[str, Any]
    layouts: np.ndarray | None = None
    landmark_counts: list[int] | None = None  # real circles of each layout (the rest pad it)
    free_layouts: np.ndarray | None = None
    any_grid = False  # a drawn layout's table serves every bucket grid

    # ------------------------------------------------------------------ radii
    def _setup_radii(
        self,
        agent_rad_range: Any,
        goal_rad_range: Any,
        default_agent_rad: float,
        default_goal_rad: float,
    ) -> None:
        """camar's radius rules (module docstring)."""
        self.agent_rad_range = _pair("agent_rad_range", agent_rad_range)
        self.goal_rad_range = _pair("goal_rad_range", goal_rad_range)
        self.agent_rad = self.goal_rad = None
        self.proportional_goal_rad = False
        if self.agent_rad_range is None:
            self.agent_rad = float(default_agent_rad)
        elif self.agent_rad_range[0] == self.agent_rad_range[1]:
            self.agent_rad = self.agent_rad_range[0]
        if self.goal_rad_range is not None:
            if self.goal_rad_range[0] == self.goal_rad_range[1]:
                self.goal_rad = self.goal_rad_range[0]
        elif self.agent_rad_range is None:
            self.goal_rad = float(default_goal_rad)
        elif self.agent_rad is not None:
            self.goal_rad = self.agent_rad / 2.5
        else:
            self.proportional_goal_rad = True

    @property
    def max_agent_rad(self) -> float:
        return self.agent_rad if self.agent_rad is not None else self.agent_rad_range[1]  # type: ignore[index]

    def sizes(self, key: jax.Array) -> tuple[jax.Array, jax.Array]:
        """Agent and goal radii ``(N,)`` each (camar's ``generate_sizes``)."""
        key_agent, _, key_goal = jax.random.split(key, 3)
        n = self.num_agents
        if self.agent_rad is not None:
            agent = jnp.full((n,), self.agent_rad, jnp.float32)
        else:
            lo, hi = self.agent_rad_range  # type: ignore[misc]
            agent = jax.random.uniform(key_agent, (n,), minval=lo, maxval=hi)
        if self.goal_rad is not None:
            goal = jnp.full((n,), self.goal_rad, jnp.float32)
        elif self.proportional_goal_rad:
            goal = agent / 2.5
        else:
            lo, hi = self.goal_rad_range  # type: ignore[misc]
            goal = jax.random.uniform(key_goal, (n,), minval=lo, maxval=hi)
        return agent, goal

    # ------------------------------------------------------------------ interface
    def bucket_grid(self, reach: float) -> BucketGrid:
        """The bucket grid over this map for queries of radius ``reach``, with a row
        capacity no layout of this generator can exceed."""
        half = np.array([self.width / 2, self.height / 2]) + self.landmark_rad
        grid = BucketGrid.covering(-half, half, reach)
        return BucketGrid(grid.origin, grid.bucket, grid.shape, self.capacity_bound(grid))

    def capacity_bound(self, grid: BucketGrid) -> int:
        """The most obstacle circles one bucket of ``grid`` can receive."""
        assert self.layouts is not None and self.landmark_counts is not None
        return max(
            grid.max_count_np(lay[:c]) for lay, c in zip(self.layouts, self.landmark_counts, strict=True)
        )

    def layout_tables(self, grid: BucketGrid) -> np.ndarray:
        """The bucket tables of the fixed layouts ``(B, T, capacity)``; padding circles
        are in no bucket, empty slots hold ``num_landmarks``."""
        assert self.layouts is not None and self.landmark_counts is not None
        tables = []
        for lay, count in zip(self.layouts, self.landmark_counts, strict=True):
            table = grid.build_np(lay[:count])
            tables.append(np.where(table == count, self.num_landmarks, table))
        return np.stack(tables).astype(np.int32)

    def reset(self, key: jax.Array, grid: BucketGrid) -> MapSample:
        """One episode's map."""
        raise NotImplementedError

    def near_landmarks(self, table: jax.Array, rows: jax.Array, grid: BucketGrid) -> jax.Array:
        """Circle indices ``(..., 9, capacity)`` in the bucket rows ``rows`` ``(..., 9)``
        of a drawn layout, from the ``table`` its sample carries (``num_landmarks`` for
        empty slots). By default ``table`` is the bucket table itself."""
        return table[rows]

    def lifelong_goals(self, keys: jax.Array, sample_map_id: jax.Array, free_pos: jax.Array) -> jax.Array:
        """A fresh goal per key ``(N,)``, uniform over the map's free positions."""
        if self.free_layouts is not None:
            free = jnp.asarray(self.free_layouts)[sample_map_id]
        else:
            free = free_pos
        return jax.vmap(lambda k: jax.random.choice(k, free))(keys)

    def config(self) -> dict[str, Any]:
        """The keyword arguments this generator was built with."""
        return dict(self._config)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.config().items() if not k.endswith("_str"))
        return f"{type(self).__name__}({args})"


def redraw_until(first: Any, again: Any, ok: Any, max_redraws: int) -> Any:
    """``first`` (a pytree), replaced by ``again(i)`` for ``i = 1, 2, ...`` while
    ``ok(draw)`` is false, at most ``max_redraws`` times (the last draw is kept)."""

    def cond(carry: tuple[jax.Array, Any]) -> jax.Array:
        i, out = carry
        return (i < max_redraws) & ~ok(out)

    def body(carry: tuple[jax.Array, Any]) -> tuple[jax.Array, Any]:
        i, _ = carry
        return i + 1, again(i + 1)

    _, out = jax.lax.while_loop(cond, body, (jnp.int32(0), first))
    return out


def border_circles(
    num_rows: int, num_cols: int, half_width: float, half_height: float, grain: int
) -> jax.Array:
    """The walls around the map as circles: top, right, left, bottom, ``(2 (rows + cols)
    (grain - 1), 2)``."""
    nx, ny = num_rows * (grain - 1), num_cols * (grain - 1)
    top = jnp.stack(
        [jnp.linspace(-half_width, half_width, nx, endpoint=False), jnp.full((nx,), half_height)], -1
    )
    right = jnp.stack(
        [jnp.full((ny,), half_width), jnp.linspace(half_height, -half_height, ny, endpoint=False)], -1
    )
    left = jnp.stack(
        [jnp.full((ny,), -half_width), jnp.linspace(-half_height, half_height, ny, endpoint=False)], -1
    )
    bottom = jnp.stack(
        [jnp.linspace(half_width, -half_width, nx, endpoint=False), jnp.full((nx,), -half_height)], -1
    )
    return jnp.concatenate([top, right, left, bottom])


class random_grid(MapGenerator):
    any_grid = True
    """Square obstacles on a ``num_rows`` x ``num_cols`` grid of cells of side
    ``obstacle_size``: ``int(obstacle_density * rows * cols)`` cells are obstacles, each
    outlined by ``4 (grain_factor - 1)`` circles of radius ``obstacle_size / (2
    (grain_factor - 1))``, plus walls around the map. Agents start on and aim for cell
    centres, all distinct from each other and from the obstacles.

    Args:
        num_rows, num_cols: cells along x and along y.
        obstacle_density: share of the cells that are obstacles.
        num_agents: agents.
        grain_factor: circles per obstacle side plus one (at least 2).
        obstacle_size: cell side.
        agent_rad_range, goal_rad_range: see the module docstring (default: agent radius
            ``(obstacle_size - 2 landmark_rad) / 4``, goal radius ``(obstacle_size - 2
            landmark_rad) / 10``).
        ensure_reachable: move unreachable goals (module docstring).
    """

    def __init__(
        self,
        num_rows: int = 20,
        num_cols: int = 20,
        obstacle_density: float = 0.2,
        num_agents: int = 32,
        grain_factor: int = 3,
        obstacle_size: float = 0.4,
        agent_rad_range: tuple[float, float] | None = None,
        goal_rad_range: tuple[float, float] | None = None,
        ensure_reachable: bool = True,
    ) -> None:
        owner = "random_grid"
        self._config = {
            "num_rows": num_rows,
            "num_cols": num_cols,
            "obstacle_density": obstacle_density,
            "num_agents": num_agents,
            "grain_factor": grain_factor,
            "obstacle_size": obstacle_size,
            "agent_rad_range": agent_rad_range,
            "goal_rad_range": goal_rad_range,
            "ensure_reachable": ensure_reachable,
        }
        self.num_rows = _count(owner, "num_rows", num_rows)
        self.num_cols = _count(owner, "num_cols", num_cols)
        self.num_agents = _count(owner, "num_agents", num_agents)
        self.grain_factor = _count(owner, "grain_factor", grain_factor, 2)
        self.obstacle_size = float(obstacle_size)
        if not self.obstacle_size > 0:
            raise ValueError(f"{owner}: obstacle_size must be positive, got {obstacle_size!r}")
        if not 0.0 <= float(obstacle_density) <= 1.0:
            raise ValueError(f"{owner}: obstacle_density must be in [0, 1], got {obstacle_density!r}")
        self.obstacle_density = float(obstacle_density)
        self.num_obstacles = int(self.obstacle_density * self.num_rows * self.num_cols)
        cells = self.num_rows * self.num_cols
        if 2 * self.num_agents + self.num_obstacles > cells:
            raise ValueError(
                f"{owner}: {self.num_agents} agents need {2 * self.num_agents} free cells (starts and goals) "
                "besides "
                f"{self.num_obstacles} obstacles, but the grid has {cells} cells; lower num_agents or "
                "obstacle_density, or enlarge the grid"
            )
        self.ensure_reachable = bool(ensure_reachable)
        g = self.grain_factor - 1
        self.landmark_rad = self.obstacle_size / (2 * g)
        free_size = self.obstacle_size - 2 * self.landmark_rad
        self._setup_radii(agent_rad_range, goal_rad_range, free_size * 0.25, free_size * 0.1)
        self.width = self.num_rows * self.obstacle_size
        self.height = self.num_cols * self.obstacle_size
        self.num_landmarks = self.num_obstacles * 4 * g + (self.num_rows + self.num_cols) * 2 * g
        s = self.obstacle_size
        xs = jnp.linspace(-self.width / 2 + s / 2, self.width / 2 - s / 2, self.num_rows)
        ys = jnp.linspace(-self.height / 2 + s / 2, self.height / 2 - s / 2, self.num_cols)
        self._cells = jnp.stack(jnp.meshgrid(xs, ys), axis=-1).reshape(-1, 2)  # cell k = (iy, ix) row-major
        self._border = border_circles(
            self.num_rows, self.num_cols, self.width / 2, self.height / 2, self.grain_factor
        )
        self._tables_by_grid: dict[BucketGrid, np.ndarray] = {}

    def _every_circle(self) -> np.ndarray:
        """The circles of the layout with every cell an obstacle, then the border:
        entry ``s * C + c`` is circle ``s`` of cell ``c``, then border circle ``j`` at
        ``4 (grain - 1) C + j``."""
        with jax.ensure_compile_time_eval():  # also when first asked while tracing
            every = np.asarray(self._outline(self._cells)).reshape(-1, 2)
            return np.concatenate([every, np.asarray(self._border)])

    def capacity_bound(self, grid: BucketGrid) -> int:
        # Every layout's circles are a sub-multiset of the layout with every cell an obstacle.
        return grid.max_count_np(self._every_circle())

    def _static_table(self, grid: BucketGrid) -> np.ndarray:
        """Per bucket, the circles of :meth:`_every_circle` it would hold, int32
        ``(num_buckets + 1, capacity)`` (``-1`` for an empty slot). Where the circles of a
        layout fall depends only on which cells are obstacles, so this table, built once,
        and the obstacle ranks of a draw give its bucket rows without sorting anything."""
        cached = self._tables_by_grid.get(grid)
        if cached is None:
            cell = grid.cells_np(self._every_circle())
            cached = np.full((grid.num_buckets + 1, grid.capacity), -1, np.int32)
            fill = np.zeros(grid.num_buckets, np.int64)
            for e, b in enumerate(cell):
                cached[b, fill[b]] = e
                fill[b] += 1
            self._tables_by_grid[grid] = cached
        return cached

    def near_landmarks(self, table: jax.Array, rows: jax.Array, grid: BucketGrid) -> jax.Array:
        """``table`` is the obstacle rank of each cell (``-1`` for free cells): circle
        ``s`` of the obstacle of rank ``k`` is landmark ``s * num_obstacles + k``, border
        circle ``j`` is landmark ``4 (grain - 1) num_obstacles + j``."""
        c, m = self._cells.shape[0], self.num_obstacles
        entry = jnp.asarray(self._static_table(grid))[rows]  # (..., 9, capacity)
        slot, cell = entry // c, entry % c
        rank = table[0][cell]
        g4 = 4 * (self.grain_factor - 1)
        obstacle = jnp.where(rank >= 0, slot * m + rank, self.num_landmarks)
        border = g4 * m + entry - g4 * c
        out = jnp.where(entry >= g4 * c, border, obstacle)
        return jnp.where(entry < 0, self.num_landmarks, out).astype(jnp.int32)

    def _outline(self, centres: jax.Array) -> jax.Array:
        """The circles outlining each square, ``(4 (grain - 1), n, 2)`` side by side: top
        (left to right), right (top to bottom), bottom (right to left), left (bottom to
        top)."""
        g, half = self.grain_factor - 1, self.obstacle_size / 2

        def one(c: jax.Array) -> jax.Array:
            left, down = c - half
            right, up = c + half
            return jnp.concatenate(
                [
                    jnp.stack([jnp.linspace(left, right, g, endpoint=False), jnp.full((g,), up)], -1),
                    jnp.stack([jnp.full((g,), right), jnp.linspace(up, down, g, endpoint=False)], -1),
                    jnp.stack([jnp.linspace(right, left, g, endpoint=False), jnp.full((g,), down)], -1),
                    jnp.stack([jnp.full((g,), left), jnp.linspace(down, up, g, endpoint=False)], -1),
                ]
            )

        return jax.vmap(one, out_axes=1)(centres)

    def _draw(self, key: jax.Array) -> jax.Array:
        """A permutation of the cells: agents, then obstacles, then goals."""
        return jax.random.permutation(key, self._cells.shape[0])

    def _repair(self, order: jax.Array) -> tuple[jax.Array, jax.Array]:
        """Start and goal cells ``(n,)`` each from the permutation ``order``, with every
        unreachable goal moved to a free cell reachable from its agent's start (module
        docstring).

        The cells ``order`` puts after the goals are the spare ones (free, neither a start
        nor a goal), in random order. An agent that needs cells from a component takes
        the next spare cells of that component in that order, after those taken by the
        agents before it: all agents at once, without a loop."""
        n, m, c = self.num_agents, self.num_obstacles, self._cells.shape[0]
        starts, goals, spare = order[:n], order[n + m : 2 * n + m], order[2 * n + m :]
        free = jnp.ones(c, bool).at[order[n : n + m]].set(False)
        labels = component_labels(free.reshape(self.num_cols, self.num_rows)).reshape(-1)
        largest = jnp.argmax(jnp.zeros(c + 1, jnp.int32).at[labels].add(1)[:c])
        spare_label = labels[spare]
        spare_count = jnp.zeros(c + 1, jnp.int32).at[spare_label].add(1)
        home = labels[starts]
        ok = home == labels[goals]
        return move_unreachable_goals(starts, goals, ok, home, spare, spare_label, spare_count, largest)

    def reset(self, key: jax.Array, grid: BucketGrid) -> MapSample:
        n, m = self.num_agents, self.num_obstacles
        order = self._draw(key)
        if self.ensure_reachable:
            starts, goals = self._repair(order)
        else:
            starts, goals = order[:n], order[n + m : 2 * n + m]
        pos = self._cells[order]
        landmarks = jnp.concatenate([self._outline(pos[n : n + m]).reshape(-1, 2), self._border])
        agent_rad, goal_rad = self.sizes(key)
        c = self._cells.shape[0]
        rank = jnp.full((c,), -1, jnp.int32).at[order[n : n + m]].set(jnp.arange(m, dtype=jnp.int32))
        return MapSample(
            landmark_pos=landmarks,
            agent_pos=self._cells[starts],
            goal_pos=self._cells[goals],
            agent_rad=agent_rad,
            goal_rad=goal_rad,
            map_id=jnp.int32(0),
            free_pos=jnp.concatenate([pos[:n], pos[n + m :]]),
            table=rank[None],  # obstacle rank per cell: see near_landmarks
        )


def perlin_noise(key: jax.Array, width: int, height: int, grid_width: int, grid_height: int) -> jax.Array:
    """Perlin noise ``(height, width)``: random unit gradients on a ``(grid_width + 1,
    grid_height + 1)`` lattice, dot products with the offsets to the four lattice corners,
    blended with the quintic fade ``6 t^5 - 15 t^4 + 10 t^3`` (evaluated in this order,
    as camar does, so that the cells' noise ranks agree with camar's)."""
    angles = jax.random.uniform(key, (grid_width + 1, grid_height + 1), minval=0.0, maxval=2.0 * jnp.pi)
    gx, gy = jnp.cos(angles), jnp.sin(angles)
    x, y = jnp.meshgrid(
        jnp.linspace(0, grid_width, width, endpoint=False),
        jnp.linspace(0, grid_height, height, endpoint=False),
    )
    x0, y0 = x.astype(jnp.int32), y.astype(jnp.int32)
    x1, y1 = x0 + 1, y0 + 1

    def fade(t: jax.Array) -> jax.Array:
        return 6 * t**5 - 15 * t**4 + 10 * t**3

    def corner(ix: jax.Array, iy: jax.Array) -> jax.Array:
        return (x - ix) * gx[ix, iy] + (y - iy) * gy[ix, iy]

    sx, sy = fade(x - x0), fade(y - y0)
    n00, n10, n01, n11 = corner(x0, y0), corner(x1, y0), corner(x0, y1), corner(x1, y1)
    top = n00 + sx * (n10 - n00)
    bottom = n01 + sx * (n11 - n01)
    return top + sy * (bottom - top)


def cell_centres(rows: jax.Array, cols: jax.Array, size: float, height: float, width: float) -> jax.Array:
    """Centres ``(n, 2)`` of the cells ``(row, col)`` of a grid of ``size`` cells:
    ``x`` from the column, ``y`` from the row (row 0 at the bottom), centred on the origin."""
    x = cols * size - width / 2 + size / 2
    y = rows * size - height / 2 + size / 2
    return jnp.stack([x, y], axis=1)


def cell_centres_np(
    rows: np.ndarray, cols: np.ndarray, size: float, height: float, width: float
) -> np.ndarray:
    """:func:`cell_centres` in numpy for layouts fixed at construction: the same float32
    operations, each rounded as the eager JAX calls round them, without compiling for
    every layout's length."""
    f32 = np.float32
    x = np.asarray(cols).astype(f32) * f32(size) - f32(width / 2) + f32(size / 2)
    y = np.asarray(rows).astype(f32) * f32(size) - f32(height / 2) + f32(size / 2)
    return np.stack([x, y], axis=1)


class caves_cont(MapGenerator):
    """Caves from Perlin noise on a ``num_rows`` x ``num_cols`` grid of cells of side
    ``2 landmark_rad``. With cells ranked by the absolute noise, those ranked in
    ``[landmark_low_ratio, landmark_high_ratio)`` of all cells are obstacle circles (the
    cave walls), the lowest ``free_ratio`` are where agents start and goals lie (starts
    distinct, goals distinct, but as in camar a start may lie on a goal). The lattice has
    ``int(num_rows / scale)`` x ``int(num_cols / scale)`` cells.

    Args:
        num_rows, num_cols, scale: grid and noise scale.
        landmark_low_ratio, landmark_high_ratio, free_ratio: rank bands (above).
        add_borders: walls around the map.
        num_agents: agents.
        landmark_rad: obstacle circle radius (half the cell side).
        agent_rad_range, goal_rad_range: see the module docstring.
        ensure_reachable: move goals the agent cannot reach (below).

    Reachability. The agents are circles too (radius 0.1 by default, twice the walls'), so
    whether one fits between two walls is a question of geometry, not of which cells are
    walls. A cell centre is *passable* when an agent of the largest radius ``r`` centred
    there overlaps no wall circle and no border circle: no wall centre closer than ``R =
    r + landmark_rad``, which is a dilation of the walls by a disc stencil of radius ``R``
    (in cells) fixed at construction; and no border circle closer than ``sqrt(R^2 + (cell
    / 2)^2)``, a static mask. (Touching counts as passable.) Two 4-adjacent passable
    centres are joined: the straight segment between them is free. For a wall this is
    exact: wall centres are cell centres, so the point of the segment nearest to one is an
    end of the segment, which is passable. Border circles lie on the cell corners, so the
    nearest point may be inside the segment, at most half a cell from an end: a border
    circle within ``R`` of it is within ``sqrt(R^2 + (cell / 2)^2)`` of that end
    (Pythagoras), which the mask rules out. So an agent can follow the cell centres of a
    passable component from any of them to any other: the components found on this grid
    are reachable. The rule is conservative: it misses paths that fit only off the cell
    centres (on a grid four times finer the verdict on camar's draws rarely changes),
    paths outside the map when ``add_borders=False``, and, for agents smaller than the
    largest, the narrower gaps they could pass.

    With ``ensure_reachable`` (the default) camar's draw is kept when every goal lies in
    its start's component. Otherwise each unreachable goal moves to a cell drawn uniformly
    among the passable free-ratio cells of its start's component that no start or goal of
    camar's draw occupies (distinct for every agent), and an agent whose start is not
    passable, or whose component has no such cell left, gets a new start and goal in the
    component with the most such cells (if two are left there; else it keeps camar's).
    The walls, ``free_pos`` and the agents whose goals are reachable stay camar's. Like
    random_grid's repair this is one labelling of the grid
    (:func:`component_labels`) and no loop. With the defaults, 99.8% of camar's
    draws leave some agent a goal it cannot reach, and 49% of the agents: 9% start where
    they do not fit (the outermost ring of cells overlaps the border, and some free-ratio
    cells touch a wall), 8% have such a goal, 32% have their goal in another component
    (the wall rings of the caves pinch corridors narrower than an agent). With agents of
    radius 0.05 it is 80% of the draws and 10% of the agents.
    """

    def __init__(
        self,
        num_rows: int = 128,
        num_cols: int = 128,
        scale: int = 14,
        landmark_low_ratio: float = 0.55,
        landmark_high_ratio: float = 0.72,
        free_ratio: float = 0.20,
        add_borders: bool = True,
        num_agents: int = 16,
        landmark_rad: float = 0.05,
        agent_rad_range: tuple[float, float] | None = (0.1, 0.1),
        goal_rad_range: tuple[float, float] | None = None,
        ensure_reachable: bool = True,
    ) -> None:
        owner = "caves_cont"
        self._config = {
            "num_rows": num_rows,
            "num_cols": num_cols,
            "scale": scale,
            "landmark_low_ratio": landmark_low_ratio,
            "landmark_high_ratio": landmark_high_ratio,
            "free_ratio": free_ratio,
            "add_borders": add_borders,
            "num_agents": num_agents,
            "landmark_rad": landmark_rad,
            "agent_rad_range": agent_rad_range,
            "goal_rad_range": goal_rad_range,
            "ensure_reachable": ensure_reachable,
        }
        self.num_rows = _count(owner, "num_rows", num_rows)
        self.num_cols = _count(owner, "num_cols", num_cols)
        self.num_agents = _count(owner, "num_agents", num_agents)
        scale = _count(owner, "scale", scale)
        self.grid_rows, self.grid_cols = int(self.num_rows / scale), int(self.num_cols / scale)
        if self.grid_rows < 1 or self.grid_cols < 1:
            raise ValueError(f"{owner}: scale ({scale}) must not exceed num_rows and num_cols")
        if not 0.0 <= landmark_low_ratio < landmark_high_ratio <= 1.0:
            raise ValueError(f"{owner}: need 0 <= landmark_low_ratio < landmark_high_ratio <= 1")
        cells = self.num_rows * self.num_cols
        self.ranks = (int(cells * landmark_low_ratio), int(cells * landmark_high_ratio))
        self.free_rank = int(cells * free_ratio)
        if self.free_rank < self.num_agents:
            raise ValueError(
                f"{owner}: free_ratio {free_ratio} leaves {self.free_rank} free cells "
                f"for {self.num_agents} agents"
            )
        self.landmark_rad = float(landmark_rad)
        if not self.landmark_rad > 0:
            raise ValueError(f"{owner}: landmark_rad must be positive, got {landmark_rad!r}")
        self._setup_radii(
            agent_rad_range, goal_rad_range, 0.4 * self.landmark_rad, 0.4 * self.landmark_rad / 2.5
        )
        self.height = self.num_cols * self.landmark_rad * 2
        self.width = self.num_rows * self.landmark_rad * 2
        self.num_landmarks = self.ranks[1] - self.ranks[0]
        if add_borders:
            self._border = border_circles(self.num_rows, self.num_cols, self.width / 2, self.height / 2, 2)
        else:
            self._border = jnp.zeros((0, 2))
        self.num_landmarks += self._border.shape[0]
        self.add_borders = bool(add_borders)
        self.ensure_reachable = bool(ensure_reachable)
        self._setup_passability()

    # Squared distances (in cells^2) within this of the contact distance count as touching.
    _TOUCH = 1e-3

    def _setup_passability(self) -> None:
        """The dilation stencil of the walls and the cells the border blocks (class
        docstring), for an agent of the largest radius."""
        reach = (self.max_agent_rad + self.landmark_rad) / (2 * self.landmark_rad)  # R in cells
        limit = reach**2 - self._TOUCH
        k = int(np.floor(np.sqrt(max(limit, 0.0))))
        # Per row offset di of the stencil, the largest column offset w with di^2 + w^2 < R^2.
        self._stencil = tuple(
            (di, max(w for w in range(k + 1) if di * di + w * w < limit))
            for di in range(-k, k + 1)
            if di * di < limit
        )
        rows, cols = self.num_rows, self.num_cols
        blocked = np.zeros((rows, cols), bool)
        border = np.asarray(self._border, np.float64)
        if border.shape[0]:
            # Border circles in (row, col) cell units: cell (a, b) is centred at (a, b).
            s = 2 * self.landmark_rad
            v = (border[:, 1] + self.height / 2) / s - 0.5
            u = (border[:, 0] + self.width / 2) / s - 0.5
            a, b = np.arange(rows, dtype=np.float64), np.arange(cols, dtype=np.float64)
            corner_limit = reach**2 + 0.25 - self._TOUCH
            for chunk in range(0, border.shape[0], 64):
                d2 = (a[None, :, None] - v[chunk : chunk + 64, None, None]) ** 2 + (
                    b[None, None, :] - u[chunk : chunk + 64, None, None]
                ) ** 2
                blocked |= (d2 < corner_limit).any(axis=0)
        self._border_blocked = blocked

    def passable(self, walls: jax.Array) -> jax.Array:
        """Which cell centres ``(num_rows, num_cols)`` an agent of the largest radius can
        stand on, given the wall cells ``walls`` (class docstring)."""
        rows, cols = walls.shape
        k = max(abs(di) for di, _ in self._stencil)
        w_max = max(w for _, w in self._stencil)
        pad = jnp.pad(walls, ((k, k), (w_max, w_max)))
        wide = [pad[:, w_max : w_max + cols]]  # wide[w]: walls dilated by w along the row
        for w in range(1, w_max + 1):
            wide.append(
                wide[-1] | pad[:, w_max - w : w_max - w + cols] | pad[:, w_max + w : w_max + w + cols]
            )
        near = jnp.zeros_like(walls)
        for di, w in self._stencil:
            near = near | wide[w][k + di : k + di + rows]
        return ~near & ~jnp.asarray(self._border_blocked)

    def capacity_bound(self, grid: BucketGrid) -> int:
        rows, cols = np.divmod(np.arange(self.num_rows * self.num_cols), self.num_cols)
        every = np.asarray(self._centres(jnp.asarray(rows), jnp.asarray(cols)))
        return grid.max_count_np(np.concatenate([every, np.asarray(self._border)]))

    def _centres(self, a: jax.Array, b: jax.Array) -> jax.Array:
        # The flat cell index split by divmod(idx, num_cols): y from the quotient a, x
        # from the remainder b (camar's layout).
        return cell_centres(a, b, 2 * self.landmark_rad, self.height, self.width)

    def _repair(
        self, walls: jax.Array, free_cells: jax.Array, starts: jax.Array, goal_order: jax.Array
    ) -> tuple[jax.Array, jax.Array]:
        """Start and goal slots ``(n,)`` (indices into ``free_cells``, the free-ratio
        cells) with every unreachable goal moved (class docstring). ``starts`` are camar's
        start slots; its goal slots are the first ``n`` of the permutation ``goal_order``.

        The slots after them in ``goal_order`` that are passable and hold no start are
        the spare ones, in random order (independent of camar's goals). An agent that
        needs cells from a component takes the next spare slots of that component in
        that order, after those taken by the agents before it (as random_grid's repair):
        all agents at once."""
        n, f = self.num_agents, free_cells.shape[0]
        big = self.num_rows * self.num_cols
        labels = component_labels(self.passable(walls)).reshape(-1)
        slot_label = labels[free_cells]  # big where not passable
        goals, spare = goal_order[:n], goal_order[n:]
        taken_by_start = jnp.zeros(f, bool).at[starts].set(True)
        spare_label = jnp.where(taken_by_start[spare], big, slot_label[spare])  # big: not spare
        spare_count = jnp.zeros(big + 1, jnp.int32).at[spare_label].add(1).at[big].set(0)
        largest = jnp.argmax(spare_count[:big])
        home = slot_label[starts]
        ok = (home < big) & (home == slot_label[goals])
        return move_unreachable_goals(starts, goals, ok, home, spare, spare_label, spare_count, largest)

    def reset(self, key: jax.Array, grid: BucketGrid) -> MapSample:
        key, key_noise, key_agents, key_goals = jax.random.split(key, 4)
        noise = jnp.abs(perlin_noise(key_noise, self.num_cols, self.num_rows, self.grid_cols, self.grid_rows))
        order = jnp.argsort(noise.reshape(-1), stable=True)
        lo, hi = self.ranks
        rank = jnp.zeros_like(order).at[order].set(jnp.arange(order.shape[0]))
        is_wall = (rank >= lo) & (rank < hi)
        walls = jnp.nonzero(is_wall, size=hi - lo)[0]
        landmarks = jnp.concatenate([self._centres(*jnp.divmod(walls, self.num_cols)), self._border])
        free_cells = order[: self.free_rank]
        free = self._centres(*jnp.divmod(free_cells, self.num_cols))
        # Slots into free, drawn as camar draws the positions themselves (its choice
        # without replacement is the start of a permutation).
        starts = jax.random.choice(key_agents, self.free_rank, (self.num_agents,), replace=False)
        goal_order = jax.random.permutation(key_goals, self.free_rank)
        goals = goal_order[: self.num_agents]
        if self.ensure_reachable:
            walls_grid = is_wall.reshape(self.num_rows, self.num_cols)
            starts, goals = self._repair(walls_grid, free_cells, starts, goal_order)
        agent_rad, goal_rad = self.sizes(key)
        return MapSample(
            landmark_pos=landmarks,
            agent_pos=free[starts],
            goal_pos=free[goals],
            agent_rad=agent_rad,
            goal_rad=goal_rad,
            map_id=jnp.int32(0),
            free_pos=free,
            table=grid.build(landmarks),
        )
