"""Reachability and shortest paths on occupancy grids (4-connected moves between free cells).

Used to draw start/goal pairs that are connected (``valid_path_check``), to place Barn
goals, and for the level statistics of ``JaxNav.get_env_metrics``. Both are fixed-point
iterations (a flood fill, a breadth-first distance transform) under ``lax.while_loop``,
so they run under ``jit`` and ``vmap``. JaxMARL 0.2.0 computes the same connected
components with a depth-first search of ``2 * height * width`` sequential steps
(``jaxnav_graph_utils.component_mask_with_pos``) and the same path lengths with
Dijkstra's algorithm (``GridMapCircleAgents.dikstra_path``, correct on square grids only).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

__all__ = ["UNREACHABLE", "path_length", "reachable_cells"]

UNREACHABLE = 1e8  # the distance of a cell that cannot be reached


def _neighbours(mask: jax.Array) -> jax.Array:
    """Cells next to (4-connected) a True cell of ``mask``."""
    pad = jnp.pad(mask, 1)
    return pad[:-2, 1:-1] | pad[2:, 1:-1] | pad[1:-1, :-2] | pad[1:-1, 2:]


def reachable_cells(walls: jax.Array, cell: jax.Array) -> jax.Array:
    """Free cells reachable from ``cell`` ``(x, y)`` (column, row), bool ``(height, width)``.

    The start cell is included when free; when it is a wall, the free cells next to it
    start the search (as in JaxMARL). Cells outside the grid are walls.
    """
    free = ~jnp.asarray(walls).astype(bool)
    seed = jnp.zeros(free.shape, bool).at[cell[1], cell[0]].set(True, mode="drop")

    def grow(carry: tuple[jax.Array, jax.Array]) -> tuple[jax.Array, jax.Array]:
        reached, _ = carry
        grown = reached | (_neighbours(reached) & free)
        return grown, jnp.any(grown != reached)

    reached, _ = jax.lax.while_loop(lambda c: c[1], grow, (seed, jnp.array(True)))
    return reached & free


def path_length(walls: jax.Array, start: jax.Array, goal: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Length in moves of a shortest 4-connected path between free cells ``start`` and
    ``goal`` (``(x, y)`` each). Returns ``(reachable, length)``, the length 0.0 when the
    goal cannot be reached."""
    free = ~jnp.asarray(walls).astype(bool)
    dist = jnp.full(free.shape, UNREACHABLE, jnp.float32).at[start[1], start[0]].set(0.0, mode="drop")

    def relax(carry: tuple[jax.Array, jax.Array]) -> tuple[jax.Array, jax.Array]:
        d, _ = carry
        pad = jnp.pad(d, 1, constant_values=UNREACHABLE)
        near = jnp.minimum(
            jnp.minimum(pad[:-2, 1:-1], pad[2:, 1:-1]), jnp.minimum(pad[1:-1, :-2], pad[1:-1, 2:])
        )
        new = jnp.where(free, jnp.minimum(d, near + 1), d)
        return new, jnp.any(new != d)

    dist, _ = jax.lax.while_loop(lambda c: c[1], relax, (dist, jnp.array(True)))
    d = dist[goal[1], goal[0]]
    ok = d < UNREACHABLE
    return ok, jnp.where(ok, d, 0.0)
