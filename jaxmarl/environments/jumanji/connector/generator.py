"""Connector's instance generators: Jumanji's two and the paper's three custom ones.

A generator is a callable ``generator(key) -> State`` with the attributes in
``REQUIRED_ATTRIBUTES`` (``grid_size``, ``num_agents``); see
:mod:`jaxmarl.environments.jumanji.common` for the protocol. Users' own generators need no
base class: build the state with :func:`~jaxmarl.environments.jumanji.connector.rules.initial_state`.

- :class:`RandomWalkGenerator` (Jumanji's default for ``Connector-v3``): heads are placed
  one after the other, each with a first step to an adjacent free cell, then all wires
  walk at once for up to ``max_steps - 1`` steps, each step drawn from a softmax that
  favours moving away from the wire's start (``temperature``); a wire's target is where
  its walk ends. The same key gives the same instance as Jumanji's.
- :class:`UniformRandomGenerator` (Jumanji's): heads and targets on ``2 N`` distinct cells
  drawn uniformly. The same key gives the same instance as Jumanji's.
- :class:`ClusterGenerator`, :class:`LinearCompressionGenerator`,
  :class:`ExplosionGenerator` (the Jumanji paper's custom generators, Bonnet et al. 2024,
  section 4 and Figure 4): the random walk above, confined to a *region* drawn per
  instance: a disc of ``radius`` around a centre (cluster), a band of ``width`` along a
  line (linear compression), or everything farther than ``radius`` from a reference point
  (explosion).

**Validity.** Every generator puts the ``2 N`` heads and targets on distinct cells (and
nothing else on the grid). The random-walk generators place each head with a free
neighbour for its first step. With ``k`` heads and first steps placed, such a cell exists
whenever ``grid_size**2 > 4 k``: were every free cell without a free neighbour, each would
border at least two placed pairs and each pair at most four of them (of the two cells along
each long side only one can be free), so at most ``2 k`` cells would be free. The
generators therefore require ``grid_size**2 >= 4 num_agents - 3`` and never fail.

**Solvability.** The random-walk generators (Jumanji's and the three custom ones) are
solvable by construction: the walks are vertex-disjoint paths from each head to its target,
so the wires can all connect, each following its own walk, in at most ``max_steps`` steps
(``Connector``'s ``time_limit`` of 50 exceeds the default ``max_steps``, ``1.5 grid_size``,
up to grid size 33). :meth:`RandomWalkGenerator.generate` returns those walks (Jumanji's
"solved grid"). :class:`UniformRandomGenerator` instances may be unsolvable (Jumanji's
statement).

**Regions.** A custom generator's heads, first steps and walks stay inside its region
while it has a free cell with a free neighbour there. When a region fills up, the
remaining heads are placed as :class:`RandomWalkGenerator` places them, anywhere on the
grid (and walk anywhere), so an instance is always valid and solvable. With the default
sizes it does not happen in the tests' 2048 instances per generator; a region too small
ever to hold ``2 N`` cells is refused at construction.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.jumanji.connector import constants as C
from jaxmarl.environments.jumanji.connector.rules import (
    action_masks,
    initial_state,
    move_heads,
    path_value,
    position_value,
    target_value,
)
from jaxmarl.environments.jumanji.connector.types import State

__all__ = [
    "REQUIRED_ATTRIBUTES",
    "ClusterGenerator",
    "ExplosionGenerator",
    "LinearCompressionGenerator",
    "RandomWalkGenerator",
    "UniformRandomGenerator",
]

REQUIRED_ATTRIBUTES = ("grid_size", "num_agents")


# ----------------------------------------------------------------------------- checks
def _int(owner: str, name: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"{owner}: {name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _positive(owner: str, name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 < float(value) < math.inf:
        raise ValueError(f"{owner}: {name} must be a finite number > 0, got {value!r}")
    return float(value)


def _point(owner: str, name: str, value: Any, grid_size: int) -> tuple[float, float] | None:
    if value is None:
        return None
    try:
        point = np.asarray(value, np.float64)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{owner}: {name} must be a (row, col) pair, got {value!r}") from err
    if point.shape != (2,) or not np.all((point >= 0) & (point <= grid_size - 1)):
        raise ValueError(
            f"{owner}: {name} must be a (row, col) pair inside the grid, each in [0, {grid_size - 1}], "
            f"got {value!r}"
        )
    return float(point[0]), float(point[1])


def _grid_and_agents(owner: str, grid_size: Any, num_agents: Any, cells_per_agent: int) -> tuple[int, int]:
    """Validate the sizes; ``cells_per_agent``: 2 (distinct cells) or 4 (random walks)."""
    grid_size = _int(owner, "grid_size", grid_size, 2)
    num_agents = _int(owner, "num_agents", num_agents, 1)
    needed = 2 * num_agents if cells_per_agent == 2 else 4 * num_agents - 3
    if grid_size**2 < needed:
        why = (
            f"2 * num_agents = {needed} distinct cells for the heads and targets"
            if cells_per_agent == 2
            else f"grid_size**2 >= 4 * num_agents - 3 = {needed} cells so that every head finds a free "
            "cell with a free neighbour (see jaxmarl.environments.jumanji.connector.generator)"
        )
        raise ValueError(
            f"{owner}: grid_size={grid_size} has {grid_size**2} cells; {num_agents} agents need {why}"
        )
    return grid_size, num_agents


# ----------------------------------------------------------------------- sampling helpers
def _choose(key: jax.Array, mask: jax.Array) -> jax.Array:
    """A uniformly random True entry of the flat bool ``mask``, its int32 index.

    The same draw as ``jax.random.choice(key, mask.size, p=mask)`` (what Jumanji calls):
    with ``u`` its uniform and ``c`` the number of True entries, that is the first entry
    where the running count reaches ``c * (1 - u)``, i.e. the ``k``-th True entry with
    ``k = ceil(c * (1 - u))``. Found here without the running count, whose ``cumsum``
    costs ``mask.size ** 2`` additions on a CPU: see :func:`_kth_true`."""
    count = jnp.sum(mask, dtype=jnp.int32)
    k = jnp.ceil(count.astype(jnp.float32) * (1 - jax.random.uniform(key, (), jnp.float32)))
    return _kth_true(mask, k.astype(jnp.int32))


def _kth_true(mask: jax.Array, k: jax.Array) -> jax.Array:
    """The index of the ``k``-th True entry (``k >= 1``) of the flat bool ``mask``.

    The mask is packed into 32-bit words: the word holding it follows from the words' bit
    counts, its bit from a binary search on the counts of the word's lowest bits."""
    num_words = -(-mask.shape[0] // 32)
    bits = jnp.pad(mask, (0, 32 * num_words - mask.shape[0])).reshape(num_words, 32).astype(jnp.uint32)
    words = jnp.sum(bits << jnp.arange(32, dtype=jnp.uint32), axis=1, dtype=jnp.uint32)
    counts = jax.lax.population_count(words).astype(jnp.int32)
    before = jnp.cumsum(counts) - counts
    word = jnp.minimum(jnp.sum(before + counts < k, dtype=jnp.int32), num_words - 1)
    rank = k - before[word]  # the k-th True entry is the rank-th set bit of this word
    chosen = words[word]
    bit = jnp.zeros((), jnp.int32)
    for half in (16, 8, 4, 2, 1):  # the lowest bit such that bits 0..bit hold rank set bits
        probe = (bit + half - 1).astype(jnp.uint32)
        low = jnp.where(probe >= 31, chosen, chosen & ((jnp.uint32(2) << probe) - 1))
        bit = jnp.where(jax.lax.population_count(low).astype(jnp.int32) < rank, bit + half, bit)
    return word * 32 + bit


def _has_free_neighbour(free: jax.Array) -> jax.Array:
    """bool ``(G, G)``: cells with at least one free 4-neighbour on the grid."""
    pad = jnp.pad(free, 1)
    return pad[:-2, 1:-1] | pad[2:, 1:-1] | pad[1:-1, :-2] | pad[1:-1, 2:]


NEIGHBOURS_IN_FLAT_ORDER = np.array([[-1, 0], [0, -1], [0, 1], [1, 0]], np.int32)


def _cells(grid_size: int) -> tuple[np.ndarray, np.ndarray]:
    """Row and column index of every cell, ``(G, 1)`` and ``(1, G)``."""
    return np.arange(grid_size)[:, None], np.arange(grid_size)[None, :]


# -------------------------------------------------------------------------- generators
class UniformRandomGenerator:
    """Heads and targets on ``2 N`` distinct cells drawn uniformly (Jumanji's
    ``UniformRandomGenerator``; the same key gives the same instance). Instances may be
    unsolvable.

    Args:
        grid_size: side of the square grid.
        num_agents: number of wires (agents); ``2 num_agents <= grid_size**2``.
    """

    def __init__(self, grid_size: int = C.GRID_SIZE, num_agents: int = C.NUM_AGENTS) -> None:
        self.grid_size, self.num_agents = _grid_and_agents(type(self).__name__, grid_size, num_agents, 2)

    def __call__(self, key: jax.Array) -> State:
        _, key_cells = jax.random.split(key)
        cells = jax.random.choice(
            key_cells, jnp.arange(self.grid_size**2), shape=(2, self.num_agents), replace=False
        )
        heads, targets = jnp.stack(jnp.divmod(cells, self.grid_size), axis=-1)
        return initial_state(heads, targets, self.grid_size)


class RandomWalkGenerator:
    """Solvable instances from random walks (Jumanji's ``RandomWalkGenerator``, the default
    of ``Connector-v3``; the same key gives the same instance).

    1. Heads are placed one at a time, uniformly among the free cells with a free
       neighbour, each followed at once by its first step, uniformly among the free cells
       next to it.
    2. All wires then walk at once, up to ``max_steps - 1`` more steps, until none can
       move: each wire picks among its free neighbouring cells with probabilities
       ``softmax(d . move / temperature)``, ``d`` its displacement from its head (so walks
       tend to go straight on); when two wires pick the same cell, the higher index takes
       it and the other stays.
    3. Each wire's target is where its walk ended; the walked cells are cleared.

    Args:
        grid_size: side of the square grid; ``grid_size**2 >= 4 num_agents - 3``.
        num_agents: number of wires (agents).
        temperature: softmax temperature of the walks' moves (> 0; larger: more random).
        max_steps: the longest walk, first step included; ``None``: ``int(1.5 grid_size)``.
    """

    def __init__(
        self,
        grid_size: int = C.GRID_SIZE,
        num_agents: int = C.NUM_AGENTS,
        temperature: float = 1.0,
        max_steps: int | None = None,
    ) -> None:
        owner = type(self).__name__
        self.grid_size, self.num_agents = _grid_and_agents(owner, grid_size, num_agents, 4)
        self.temperature = _positive(owner, "temperature", temperature)
        self.max_steps = (
            int(self.grid_size * 1.5) if max_steps is None else _int(owner, "max_steps", max_steps, 1)
        )

    def __call__(self, key: jax.Array) -> State:
        return self.generate(key)[0]

    def region(self, key: jax.Array) -> jax.Array | None:
        """The cells the walks stay in, bool ``(G, G)``, or ``None`` for the whole grid."""
        del key
        return None

    def generate(self, key: jax.Array) -> tuple[State, jax.Array]:
        """An instance and its solution.

        Returns:
            ``(state, solved_grid)``: the initial state, and int32 ``(G, G)`` the grid with
            every wire drawn along its walk (Jumanji's solved grid: heads, wire cells and
            targets with their codes), a witness that the instance is solvable.
        """
        key_region, key_board = jax.random.split(key)
        region = self.region(key_region)
        key_place, key_walk = jax.random.split(key_board)
        grid, start, position, in_region = self._place_heads(key_place, region)
        grid, position = self._walk(key_walk, grid, start, position, region, in_region)
        agents = jnp.arange(self.num_agents)
        solved = grid.at[start[:, 0], start[:, 1]].set(position_value(agents))
        solved = solved.at[position[:, 0], position[:, 1]].set(target_value(agents))
        return initial_state(start, position, self.grid_size), solved

    # ------------------------------------------------------------------ the two phases
    def _place_heads(
        self, key: jax.Array, region: jax.Array | None
    ) -> tuple[jax.Array, jax.Array, jax.Array, jax.Array]:
        """Heads and first steps, one agent after the other.

        Returns ``(grid, start, first_step, in_region)``: the grid with each start as a wire
        cell and each first step as a head, int32 ``(N, 2)`` twice, and bool ``(N,)``
        whether each agent was placed inside the region (always true without one)."""
        size = self.grid_size

        def place(
            carry: tuple[jax.Array, jax.Array], agent: jax.Array
        ) -> tuple[tuple[jax.Array, jax.Array], tuple[jax.Array, jax.Array, jax.Array]]:
            key, grid = carry
            key_start, key_step, key_next = jax.random.split(key, 3)
            free = grid == C.EMPTY
            candidates = free & _has_free_neighbour(free)
            if region is None:
                in_region = jnp.array(True)
            else:
                free_inside = free & region
                inside = free_inside & _has_free_neighbour(free_inside)
                in_region = jnp.any(inside)
                candidates = jnp.where(in_region, inside, candidates)
            start = jnp.stack(jnp.divmod(_choose(key_start, candidates.reshape(-1)), size))
            grid = grid.at[start[0], start[1]].set(path_value(agent))
            # The first step: a free neighbour, drawn as Jumanji draws it among all cells
            # (the neighbours in flat order: up, left, right, down).
            nxt = start[None, :] + NEIGHBOURS_IN_FLAT_ORDER
            on_grid = jnp.all((nxt >= 0) & (nxt < size), axis=1)
            nxt = jnp.clip(nxt, 0, size - 1)
            allowed = on_grid & (grid[nxt[:, 0], nxt[:, 1]] == C.EMPTY)
            if region is not None:
                allowed = allowed & (region[nxt[:, 0], nxt[:, 1]] | ~in_region)
            step = nxt[_choose(key_step, allowed)]
            grid = grid.at[step[0], step[1]].set(position_value(agent))
            return (key_next, grid), (start, step, in_region)

        grid = jnp.zeros((size, size), jnp.int32)
        (_, grid), (start, step, in_region) = jax.lax.scan(place, (key, grid), jnp.arange(self.num_agents))
        return grid, start.astype(jnp.int32), step.astype(jnp.int32), in_region

    def _walk(
        self,
        key: jax.Array,
        grid: jax.Array,
        start: jax.Array,
        position: jax.Array,
        region: jax.Array | None,
        in_region: jax.Array,
    ) -> tuple[jax.Array, jax.Array]:
        """All wires walk at once until none can move or ``max_steps`` is reached."""
        num_agents = self.num_agents
        nowhere = jnp.full((num_agents, 2), -1, jnp.int32)  # no targets yet: never connected
        moves = jnp.asarray(C.MOVES)

        def masks(grid: jax.Array, position: jax.Array) -> jax.Array:
            legal = action_masks(grid, position, nowhere)[:, 1:]
            if region is not None:
                nxt = jnp.clip(position[:, None, :] + moves[None, 1:], 0, self.grid_size - 1)
                legal = legal & (region[nxt[..., 0], nxt[..., 1]] | ~in_region[:, None])
            return legal

        Carry = tuple[jax.Array, jax.Array, jax.Array, jax.Array]

        def walk_step(carry: Carry) -> Carry:
            key, grid, position, legal = carry
            key, key_next = jax.random.split(key)
            keys = jax.random.split(key, num_agents)
            d = position - start
            score = jnp.stack([-d[:, 0], d[:, 1], d[:, 0], -d[:, 1]], axis=1) / self.temperature
            probs = jax.nn.softmax(score, axis=-1) * legal
            probs = probs / probs.sum(axis=-1, keepdims=True)
            # jax.random.choice(keys[i], [1, 2, 3, 4], p=probs[i]), for every agent.
            cum = jnp.cumsum(probs, axis=-1)
            u = jax.vmap(lambda k: jax.random.uniform(k, (), jnp.float32))(keys)
            r = cum[:, -1] * (1 - u)
            action = (1 + jnp.sum(cum < r[:, None], axis=-1)) * jnp.any(legal, axis=-1)
            grid, position, _ = move_heads(grid, position, action != C.NOOP, position + moves[action])
            return key_next, grid, position, masks(grid, position)

        # Jumanji loops while some wire can move, at most max_steps - 1 times; once none
        # can, a step changes nothing, so a fixed count gives the same walks (and under
        # vmap runs several times faster than a while loop with a batched condition).
        carry: Carry = (key, grid, position, masks(grid, position))
        _, grid, position, _ = jax.lax.fori_loop(
            0, max(self.max_steps - 1, 0), lambda _, c: walk_step(c), carry
        )
        return grid, position


class ClusterGenerator(RandomWalkGenerator):
    """Random walks confined to a disc: the heads and targets cluster around a centre.

    The paper's cluster generator ("allocates points within a specified radius and center
    point"). Each instance draws the centre uniformly among the points whose disc fits the
    grid (every ``(row, col)`` in ``[lo, grid_size - 1 - lo]``, ``lo = min(radius,
    (grid_size - 1) / 2)``) unless ``center`` fixes it; the region is the cells whose
    centre lies within ``radius`` of it. See the module docstring for validity and
    solvability.

    Args:
        grid_size, num_agents, temperature, max_steps: as for :class:`RandomWalkGenerator`.
        radius: the disc's radius in cells; ``None``: ``sqrt(3.5 num_agents / pi)`` (an area
            of about 3.5 cells per wire). Refused if the disc holds fewer than
            ``2 num_agents`` cells.
        center: a fixed ``(row, col)`` centre (real numbers in the grid), or ``None`` to
            draw one per instance.
    """

    def __init__(
        self,
        grid_size: int = C.GRID_SIZE,
        num_agents: int = C.NUM_AGENTS,
        radius: float | None = None,
        center: tuple[float, float] | None = None,
        temperature: float = 1.0,
        max_steps: int | None = None,
    ) -> None:
        super().__init__(grid_size, num_agents, temperature, max_steps)
        owner = type(self).__name__
        default = math.sqrt(3.5 * self.num_agents / math.pi)
        self.radius = default if radius is None else _positive(owner, "radius", radius)
        self.center = _point(owner, "center", center, self.grid_size)
        lo = min(self.radius, (self.grid_size - 1) / 2)
        self._centre_range = (lo, self.grid_size - 1 - lo)
        middle = self.center or (sum(self._centre_range) / 2,) * 2
        _check_region_size(owner, self._disc(np.asarray(middle)), self.num_agents, f"radius={self.radius:g}")

    def _disc(self, centre: Any) -> Any:
        rows, cols = _cells(self.grid_size)
        return (rows - centre[0]) ** 2 + (cols - centre[1]) ** 2 <= self.radius**2

    def region(self, key: jax.Array) -> jax.Array:
        if self.center is not None:
            return jnp.asarray(self._disc(np.asarray(self.center)))
        lo, hi = self._centre_range
        return self._disc(jax.random.uniform(key, (2,), jnp.float32, lo, hi))


class LinearCompressionGenerator(RandomWalkGenerator):
    """Random walks confined to a band along a line: the heads and targets line up.

    The paper's linear compression generator ("randomly aligns the points along a 2D line
    within the space"). Each instance draws a line through a point of the grid's central
    half (every ``(row, col)`` in ``[(grid_size - 1) / 4, 3 (grid_size - 1) / 4]``) at an
    angle uniform in ``[0, pi)`` unless ``anchor`` and ``angle`` fix them; the region is the
    cells whose centre lies within ``width / 2`` of the line. See the module docstring for
    validity and solvability.

    Args:
        grid_size, num_agents, temperature, max_steps: as for :class:`RandomWalkGenerator`.
        width: the band's width in cells; ``None``: ``max(2, 3.5 num_agents / grid_size)``
            (about 3.5 cells per wire along a side of the grid). Refused if a band through
            the grid's centre holds fewer than ``2 num_agents`` cells.
        angle: the line's angle in radians, from the rows (``0``: horizontal,
            ``pi / 2``: vertical), or ``None`` to draw one per instance.
        anchor: a fixed ``(row, col)`` point of the line, or ``None`` to draw one.
    """

    def __init__(
        self,
        grid_size: int = C.GRID_SIZE,
        num_agents: int = C.NUM_AGENTS,
        width: float | None = None,
        angle: float | None = None,
        anchor: tuple[float, float] | None = None,
        temperature: float = 1.0,
        max_steps: int | None = None,
    ) -> None:
        super().__init__(grid_size, num_agents, temperature, max_steps)
        owner = type(self).__name__
        default = max(2.0, 3.5 * self.num_agents / self.grid_size)
        self.width = default if width is None else _positive(owner, "width", width)
        if angle is not None and (
            isinstance(angle, bool) or not isinstance(angle, numbers.Real) or not math.isfinite(angle)
        ):
            raise ValueError(f"{owner}: angle must be a finite number (radians) or None, got {angle!r}")
        self.angle = None if angle is None else float(angle)
        self.anchor = _point(owner, "anchor", anchor, self.grid_size)
        middle = self.anchor or ((self.grid_size - 1) / 2,) * 2
        angles = [self.angle] if self.angle is not None else [0.0, math.pi / 4]
        most = max(int(self._band(np.asarray(middle), a).sum()) for a in angles)
        _check_region_size(owner, most, self.num_agents, f"width={self.width:g}")

    def _band(self, anchor: Any, angle: Any) -> Any:
        rows, cols = _cells(self.grid_size)
        # Distance to the line through ``anchor`` with direction (sin angle, cos angle).
        distance = (rows - anchor[0]) * np.cos(angle) - (cols - anchor[1]) * np.sin(angle)
        return abs(distance) <= self.width / 2

    def region(self, key: jax.Array) -> jax.Array:
        key_anchor, key_angle = jax.random.split(key)
        size = self.grid_size
        if self.anchor is None:
            anchor = jax.random.uniform(key_anchor, (2,), jnp.float32, (size - 1) / 4, 3 * (size - 1) / 4)
        else:
            anchor = jnp.asarray(self.anchor, jnp.float32)
        if self.angle is None:
            angle = jax.random.uniform(key_angle, (), jnp.float32, 0.0, math.pi)
        else:
            angle = jnp.asarray(self.angle, jnp.float32)
        rows, cols = _cells(size)
        distance = (rows - anchor[0]) * jnp.cos(angle) - (cols - anchor[1]) * jnp.sin(angle)
        return jnp.abs(distance) <= self.width / 2


class ExplosionGenerator(RandomWalkGenerator):
    """Random walks kept out of a disc: the heads and targets are blown away from a point.

    The paper's explosion generator ("pushes the points away from a given reference point
    in the space"). Each instance draws the reference point uniformly over the grid
    (every ``(row, col)`` in ``[0, grid_size - 1]``) unless ``center`` fixes it; the region
    is the cells whose centre lies farther than ``radius`` from it. See the module
    docstring for validity and solvability.

    Args:
        grid_size, num_agents, temperature, max_steps: as for :class:`RandomWalkGenerator`.
        radius: the radius of the emptied disc in cells; ``None``: ``grid_size / 4``.
            Refused if, with the disc at a corner (or at ``center``), fewer than
            ``2 num_agents`` cells are left.
        center: a fixed ``(row, col)`` reference point (real numbers in the grid), or
            ``None`` to draw one per instance.
    """

    def __init__(
        self,
        grid_size: int = C.GRID_SIZE,
        num_agents: int = C.NUM_AGENTS,
        radius: float | None = None,
        center: tuple[float, float] | None = None,
        temperature: float = 1.0,
        max_steps: int | None = None,
    ) -> None:
        super().__init__(grid_size, num_agents, temperature, max_steps)
        owner = type(self).__name__
        self.radius = self.grid_size / 4 if radius is None else _positive(owner, "radius", radius)
        self.center = _point(owner, "center", center, self.grid_size)
        most_room = self._outside(np.asarray(self.center or (0.0, 0.0)))
        _check_region_size(owner, most_room, self.num_agents, f"radius={self.radius:g}")

    def _outside(self, centre: Any) -> Any:
        rows, cols = _cells(self.grid_size)
        return (rows - centre[0]) ** 2 + (cols - centre[1]) ** 2 > self.radius**2

    def region(self, key: jax.Array) -> jax.Array:
        if self.center is not None:
            return jnp.asarray(self._outside(np.asarray(self.center)))
        return self._outside(jax.random.uniform(key, (2,), jnp.float32, 0.0, self.grid_size - 1))


def _check_region_size(owner: str, region: Any, num_agents: int, setting: str) -> None:
    cells = int(np.sum(region))
    if cells < 2 * num_agents:
        raise ValueError(
            f"{owner}: {setting} leaves a region of at most {cells} cells, fewer than the "
            f"2 * num_agents = {2 * num_agents} cells the heads and targets need; enlarge it"
        )
