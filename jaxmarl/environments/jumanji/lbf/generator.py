"""Instance generators of LevelBasedForaging: Jumanji 1.1.2's ``RandomGenerator``.

A generator is any object with ``__call__(key) -> State`` (a jittable function giving the
episode's initial :class:`~jaxmarl.environments.jumanji.lbf.types.State`, ``step`` 0, no
food eaten) and the attributes in :data:`REQUIRED_ATTRIBUTES`, which fix the env's static
shapes (see :mod:`jaxmarl.environments.jumanji.common`). A user's generator must keep
positions on the grid, agents on distinct cells free of food, and levels within the
bounds of the observation space: agents in ``1 .. max_agent_level``, food in
``1 .. num_agents * max_agent_level``.

:class:`RandomGenerator` draws exactly what Jumanji's ``RandomGenerator`` draws from the
same key (the same key splits and random draws; its two ``jax.random.choice`` samplers are
computed more cheaply, with the same results), so ``reset(key)`` gives Jumanji's instance;
that includes one quirk of Jumanji's agent placement, documented on the class.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.jumanji.lbf.types import State

__all__ = ["REQUIRED_ATTRIBUTES", "RandomGenerator", "check_sizes"]

REQUIRED_ATTRIBUTES = ("grid_size", "fov", "num_agents", "num_food", "max_agent_level")


def _int(name: str, value: Any, minimum: int, owner: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{owner}: {name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def check_sizes(
    owner: str, grid_size: Any, fov: Any, num_agents: Any, num_food: Any, max_agent_level: Any
) -> tuple[int, int, int, int, int]:
    """Check the sizes any LevelBasedForaging instance needs (a user generator's too) and
    return them as ints: a grid of at least one cell, ``1 <= fov <= grid_size``, at least
    one agent and one food item, ``max_agent_level >= 1``.

    Raises:
        ValueError: naming ``owner`` and the bad value.
    """
    grid_size = _int("grid_size", grid_size, 1, owner)
    fov = _int("fov", fov, 1, owner)
    if fov > grid_size:
        raise ValueError(f"{owner}: fov must be between 1 and grid_size={grid_size}, got {fov}")
    num_agents = _int("num_agents", num_agents, 1, owner)
    num_food = _int("num_food", num_food, 1, owner)
    max_agent_level = _int("max_agent_level", max_agent_level, 1, owner)
    return grid_size, fov, num_agents, num_food, max_agent_level


def _choose_distinct(key: jax.Array, free: jax.Array, k: int) -> jax.Array:
    """``jax.random.choice(key, free.size, (k,), replace=False, p=free)`` (Jumanji's draw
    of agent cells): the ``k`` free cells with the largest Gumbel noise, largest first.

    For a few draws, repeated ``argmax`` is faster than ``choice``'s ``lax.top_k`` and
    picks the same cells (the first index among equals, like ``top_k``), provided at
    least ``k`` cells are free, which ``RandomGenerator`` guarantees."""
    noise = jax.random.gumbel(key, free.shape, jnp.float32) + jnp.log(free.astype(jnp.float32))
    if k > 8:
        return jax.lax.top_k(noise, k)[1].astype(jnp.int32)

    def pick(noise: jax.Array, _: None) -> tuple[jax.Array, jax.Array]:
        cell = jnp.argmax(noise).astype(jnp.int32)
        return noise.at[cell].set(-jnp.inf), cell

    return jax.lax.scan(pick, noise, None, length=k, unroll=True)[1]


class RandomGenerator:
    """Jumanji's random LevelBasedForaging instances.

    1. **Food** (``num_food`` items) is placed one item at a time, uniformly among the
       cells off the grid's edge that are neither food nor orthogonally next to food: no
       two items touch by a side (they may touch diagonally) and none is on the edge.
    2. **Agents** (``num_agents``) take distinct cells, uniformly among the allowed ones.
       Jumanji marks food cells as taken with ``mask.at[food_positions].set(False)`` on a
       2-d mask, which clears whole *rows*: every row whose index is the row **or the
       column** of some food item is closed to agents. We keep this rule, so the same key
       gives Jumanji's instance; rows ``0`` and ``grid_size - 1`` are never closed.
    3. **Levels**: each agent's uniformly in ``1 .. max_agent_level``. Let ``m`` be the sum
       of the (up to) three lowest agent levels. With ``force_coop`` every food item has
       level ``m`` (usually several agents must load together); otherwise each item's is
       uniform in ``1 .. m``.

    Keys: ``key`` is split into 5 (food positions, agent positions, food levels, agent
    levels, unused), and the food key into ``num_food``, as Jumanji does.

    Args:
        grid_size: side of the square grid, at least 5.
        num_agents: number of foragers, at least 1.
        num_food: number of food items, at least 1.
        fov: field of view (Chebyshev radius), ``1 .. grid_size``; ``None``: ``grid_size``
            (the whole grid is always in view).
        max_agent_level: highest agent level, at least 2.
        force_coop: give every food item the level ``m`` (see above).

    Raises:
        ValueError: for sizes out of range; when ``(grid_size - 2)**2 - num_agents <= 5 *
            num_food`` (Jumanji's bound, which leaves room for every food item and its
            neighbours off the edge); or when the closed rows of rule 2 could leave fewer
            free cells than agents (``num_agents > grid_size * (grid_size - min(2 *
            num_food, grid_size - 2))``; Jumanji would then silently stack agents).
    """

    def __init__(
        self,
        grid_size: int,
        num_agents: int,
        num_food: int,
        fov: int | None = None,
        max_agent_level: int = 2,
        force_coop: bool = False,
    ) -> None:
        owner = "RandomGenerator"
        grid_size = _int("grid_size", grid_size, 5, owner)
        fov = grid_size if fov is None else fov
        self.grid_size, self.fov, self.num_agents, self.num_food, _ = check_sizes(
            owner, grid_size, fov, num_agents, num_food, max_agent_level
        )
        self.max_agent_level = _int("max_agent_level", max_agent_level, 2, owner)
        if not isinstance(force_coop, (bool, np.bool_)):
            raise ValueError(f"{owner}: force_coop must be a bool, got {force_coop!r}")
        self.force_coop = bool(force_coop)
        g, a, f = self.grid_size, self.num_agents, self.num_food
        if (g - 2) ** 2 - a <= 5 * f:
            raise ValueError(
                f"{owner}: {f} food items and {a} agents do not fit a {g}x{g} grid: food goes off "
                f"the edge with no two items side by side, which needs (grid_size - 2)**2 - num_agents "
                f"> 5 * num_food ({(g - 2) ** 2 - a} <= {5 * f})"
            )
        free_cells = g * (g - min(2 * f, g - 2))
        if a > free_cells:
            raise ValueError(
                f"{owner}: {a} agents may not find free cells on a {g}x{g} grid with {f} food items: "
                f"agents avoid every row indexed by a food item's row or column (Jumanji's "
                f"placement), which can leave only {free_cells} cells"
            )

    def __repr__(self) -> str:
        return (
            f"RandomGenerator(grid_size={self.grid_size}, num_agents={self.num_agents}, "
            f"num_food={self.num_food}, fov={self.fov}, max_agent_level={self.max_agent_level}, "
            f"force_coop={self.force_coop})"
        )

    def sample_food(self, key: jax.Array) -> jax.Array:
        """Food positions, int32 ``(num_food, 2)``: off the edge, no two side by side.

        Jumanji places item ``f`` with ``jax.random.choice(keys[f], G * G, p=free)``, ``keys =
        split(key, num_food)``. We draw the same: ``choice`` takes one uniform ``u`` and
        returns the first cell whose cumulative count of free cells reaches ``r = count * (1
        - u)``, that is the number of cells whose cumulative count is below ``r``. Drawing
        every ``u`` at once and unrolling the placement is several times faster (the oracle
        test checks the instances agree)."""
        g = self.grid_size
        inner = np.zeros((g, g), bool)
        inner[1:-1, 1:-1] = True
        around = jnp.array([0, 1, -1, g, -g])  # the cell and its neighbours (never wraps: off the edge)
        draws = jax.vmap(lambda k: jax.random.uniform(k, (), jnp.float32))(
            jax.random.split(key, self.num_food)
        )

        def place(free: jax.Array, u: jax.Array) -> tuple[jax.Array, jax.Array]:
            counts = jnp.cumsum(free.astype(jnp.float32))
            cell = jnp.sum(counts < counts[-1] * (1 - u), dtype=jnp.int32)
            return free.at[cell + around].set(False, unique_indices=True), cell

        _, cells = jax.lax.scan(place, jnp.asarray(inner.ravel()), draws, unroll=min(self.num_food, 8))
        return jnp.stack([cells // g, cells % g], axis=1).astype(jnp.int32)

    def sample_agents(self, key: jax.Array, food_pos: jax.Array) -> jax.Array:
        """Agent positions, int32 ``(num_agents, 2)``, distinct, in rows no food index names."""
        g = self.grid_size
        closed_rows = jnp.zeros((g,), bool).at[food_pos.ravel()].set(True)
        free = jnp.broadcast_to(~closed_rows[:, None], (g, g)).ravel()
        cells = _choose_distinct(key, free, self.num_agents)
        return jnp.stack([cells // g, cells % g], axis=1).astype(jnp.int32)

    def __call__(self, key: jax.Array) -> State:
        """A random initial state (``step`` 0, no food eaten)."""
        key_food, key_agents, key_food_level, key_agent_level, _ = jax.random.split(key, 5)
        food_pos = self.sample_food(key_food)
        agent_pos = self.sample_agents(key_agents, food_pos)
        agent_level = jax.random.randint(key_agent_level, (self.num_agents,), 1, self.max_agent_level + 1)
        coop_level = jnp.sum(jnp.sort(agent_level)[:3])  # up to three agents can load one item
        if self.force_coop:
            food_level = jnp.full((self.num_food,), coop_level, jnp.int32)
        else:
            food_level = jax.random.randint(key_food_level, (self.num_food,), 1, coop_level + 1)
        return State(
            agent_pos=agent_pos,
            agent_level=agent_level.astype(jnp.int32),
            food_pos=food_pos,
            food_level=food_level.astype(jnp.int32),
            food_eaten=jnp.zeros((self.num_food,), bool),
            step=jnp.zeros((), jnp.int32),
        )
