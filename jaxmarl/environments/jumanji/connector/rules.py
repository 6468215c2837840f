"""Connector's rules as pure functions of arrays: cell codes, legal moves, one joint step,
the agents' points of view. ``Connector`` (``env.py``) and the generators build on them.

``N`` is the number of agents, ``G`` the side of the grid; positions are ``(row, col)``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.jumanji.connector import constants as C
from jaxmarl.environments.jumanji.connector.types import State

__all__ = [
    "action_masks",
    "agent_views",
    "initial_state",
    "is_path",
    "move_heads",
    "path_value",
    "position_value",
    "target_value",
]


def path_value(agent: jax.Array | np.ndarray | int) -> jax.Array:
    """The code of a cell of ``agent``'s wire, ``3 agent + 1``."""
    return C.PATH + C.NUM_CODES * jnp.asarray(agent, jnp.int32)


def position_value(agent: jax.Array | np.ndarray | int) -> jax.Array:
    """The code of ``agent``'s head, ``3 agent + 2``."""
    return C.POSITION + C.NUM_CODES * jnp.asarray(agent, jnp.int32)


def target_value(agent: jax.Array | np.ndarray | int) -> jax.Array:
    """The code of ``agent``'s target, ``3 agent + 3``."""
    return C.TARGET + C.NUM_CODES * jnp.asarray(agent, jnp.int32)


def is_path(grid: jax.Array) -> jax.Array:
    """bool, same shape as ``grid``: the cells that are part of some wire (not heads)."""
    return (grid > 0) & ((grid - C.PATH) % C.NUM_CODES == 0)


def action_masks(grid: jax.Array, position: jax.Array, target: jax.Array) -> jax.Array:
    """The legal actions, bool ``(N, 5)``.

    No-op is always legal. A move is legal when the agent is not connected yet and the cell
    it leads to is on the grid and empty or the agent's own target.

    Args:
        grid: int32 ``(G, G)``.
        position: int32 ``(N, 2)``, the heads.
        target: int32 ``(N, 2)``, the targets.
    """
    size = grid.shape[0]
    num_agents = position.shape[0]
    nxt = position[:, None, :] + jnp.asarray(C.MOVES[1:])[None]  # (N, 4, 2)
    inside = jnp.all((nxt >= 0) & (nxt < size), axis=-1)
    cell = jnp.clip(nxt[..., 0], 0, size - 1) * size + jnp.clip(nxt[..., 1], 0, size - 1)
    value = grid.reshape(-1)[cell]
    own_target = target_value(jnp.arange(num_agents))[:, None]
    connected = jnp.all(position == target, axis=-1)[:, None]
    moves = inside & ((value == C.EMPTY) | (value == own_target)) & ~connected
    return jnp.concatenate([jnp.ones((num_agents, 1), bool), moves], axis=1)


def repeated_later(cells: jax.Array) -> jax.Array:
    """bool ``(N,)``: whether the same cell appears again later in ``cells`` ``(N,)``."""
    n = cells.shape[0]
    later = np.triu(np.ones((n, n), bool), 1)  # later[i, j]: j comes after i
    return jnp.any((cells[:, None] == cells[None, :]) & later, axis=1)


def move_heads(
    grid: jax.Array, position: jax.Array, moving: jax.Array, new_position: jax.Array
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Move the heads that try to, all at once, resolving collisions.

    When several heads try to enter the same cell, only the one with the highest index
    enters; the others stay where they are (Jumanji's rule). A head that moves leaves a
    wire cell behind it; the cell it enters (empty, or its target) becomes its head.

    Args:
        grid: int32 ``(G, G)``.
        position: int32 ``(N, 2)``, the heads.
        moving: bool ``(N,)``, the heads that try to move (their moves must be legal).
        new_position: int32 ``(N, 2)``, where they try to go.

    Returns:
        ``(grid, position, moved)``: the new grid and heads, and bool ``(N,)`` which heads
        moved.
    """
    size = grid.shape[0]
    num_agents = position.shape[0]
    agents = jnp.arange(num_agents)
    old_cell = position[:, 0] * size + position[:, 1]
    new_cell = jnp.where(moving, new_position[:, 0] * size + new_position[:, 1], old_cell)
    moved = moving & ~repeated_later(new_cell)
    off_grid = size * size  # out of range: the scatter drops it
    flat = grid.reshape(-1)
    flat = flat.at[jnp.where(moved, old_cell, off_grid)].set(path_value(agents), mode="drop")
    flat = flat.at[jnp.where(moved, new_cell, off_grid)].set(position_value(agents), mode="drop")
    position = jnp.where(moved[:, None], new_position, position)
    return flat.reshape(size, size), position, moved


def agent_views(grid: jax.Array, num_agents: int) -> jax.Array:
    """Every agent's view of the grid, int32 ``(N, G, G)``.

    Agent ``i`` sees the codes relabelled so that it is agent 0 and the others follow
    cyclically: agent ``(i + k) % N`` appears as agent ``k``. So each agent sees its own
    wire, head and target as ``1, 2, 3``; empty cells stay ``0``. Agent 0's view is the
    grid itself. This is Jumanji's ``switch_perspective`` (its per-agent observation before
    version 1.0; 1.1.2 returns the grid once, see ``Connector``).
    """
    shift = C.NUM_CODES * jnp.arange(num_agents, dtype=jnp.int32)[:, None, None]
    relabelled = (grid[None] - C.PATH - shift) % (C.NUM_CODES * num_agents) + C.PATH
    return jnp.where(grid[None] > 0, relabelled, grid[None])


def initial_state(heads: jax.Array, targets: jax.Array, grid_size: int) -> State:
    """The initial state of a board with agent ``i``'s head at ``heads[i]`` and its target
    at ``targets[i]``: for generators, the shipped ones and users' own.

    Args:
        heads: int ``(N, 2)``, ``(row, col)`` cells.
        targets: int ``(N, 2)``, ``(row, col)`` cells; all ``2 N`` cells must be distinct.
        grid_size: the side of the grid, a Python int.
    """
    heads = jnp.asarray(heads, jnp.int32)
    targets = jnp.asarray(targets, jnp.int32)
    agents = jnp.arange(heads.shape[0])
    grid = jnp.zeros((grid_size, grid_size), jnp.int32)
    grid = grid.at[heads[:, 0], heads[:, 1]].set(position_value(agents))
    grid = grid.at[targets[:, 0], targets[:, 1]].set(target_value(agents))
    return State(
        grid=grid,
        position=heads,
        target=targets,
        action_mask=action_masks(grid, heads, targets),
        step=jnp.zeros((), jnp.int32),
    )
