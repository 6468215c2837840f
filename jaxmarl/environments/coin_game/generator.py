"""Random placement of the Coin Game pieces: the start layout and coin respawns.

Cells are numbered ``row * grid_size + col``. Both samplers take raw 32-bit random words
(``jax.random.bits``) rather than keys, so a step draws all its randomness at once; a
word picks among the ``k`` allowed cells by ``word % k``, uniform up to a bias below
``k / 2**32``.

- At the start of every (inner) episode the two players and the two coins occupy four
  distinct cells, uniformly at random.
- A collected coin reappears on a cell that is neither under a player nor under the
  other coin, uniformly among those (JaxMARL's rules leave the cell unconstrained).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

__all__ = ["NUM_LAYOUT_WORDS", "NUM_RESPAWN_WORDS", "cells_to_pos", "pos_to_cells", "respawn", "start_layout"]

NUM_LAYOUT_WORDS = 4  # random words start_layout consumes
NUM_RESPAWN_WORDS = 2  # random words respawn consumes


def pos_to_cells(pos: jax.Array, grid_size: int) -> jax.Array:
    """``(..., 2)`` ``(row, col)`` positions to ``(...)`` cell numbers."""
    return pos[..., 0] * grid_size + pos[..., 1]


def cells_to_pos(cells: jax.Array, grid_size: int) -> jax.Array:
    """``(...)`` cell numbers to ``(..., 2)`` ``(row, col)`` positions, int32."""
    return jnp.stack([cells // grid_size, cells % grid_size], axis=-1).astype(jnp.int32)


def pick_cell(word: jax.Array, excluded: jax.Array, num_cells: int) -> jax.Array:
    """A cell among ``0 .. num_cells - 1`` that is not in ``excluded``, uniformly.

    The ``(word % k)``-th allowed cell, ``k`` the number of allowed cells (at least 1):
    starting from ``cell = rank``, ``cell = rank + #(excluded cells <= cell)`` reaches it
    in at most ``e`` rounds. A few integer operations, whatever the grid size, and no sort.

    Args:
        word: a uint32 random word, ``()``.
        excluded: cells to avoid, int32 ``(e,)``; duplicates and negative entries
            (nothing to avoid) are allowed.
        num_cells: number of cells.

    Returns:
        The cell number, int32 ``()``.
    """
    e = excluded.shape[0]
    earlier = np.tri(e, e, -1, dtype=bool)  # earlier[j, i]: i comes before j
    repeated = jnp.any((excluded[:, None] == excluded[None, :]) & earlier, axis=1)
    distinct = (excluded >= 0) & ~repeated
    count = num_cells - jnp.sum(distinct, dtype=jnp.int32)
    rank = (word % count.astype(jnp.uint32)).astype(jnp.int32)
    cell = rank
    for _ in range(e):
        cell = rank + jnp.sum(distinct & (excluded <= cell), dtype=jnp.int32)
    return cell


def start_layout(words: jax.Array, grid_size: int) -> tuple[jax.Array, jax.Array]:
    """Four distinct cells for the players and the coins.

    Args:
        words: uint32 random words ``(NUM_LAYOUT_WORDS,)``.
        grid_size: side of the grid (at least 2).

    Returns:
        ``(agent_pos, coin_pos)``, int32 ``(2, 2)`` each, as ``(row, col)``.
    """
    num_cells = grid_size * grid_size
    cells = (words[0] % jnp.uint32(num_cells)).astype(jnp.int32)[None]
    for k in range(1, NUM_LAYOUT_WORDS):  # draws without replacement
        cells = jnp.concatenate([cells, pick_cell(words[k], cells, num_cells)[None]])
    pos = cells_to_pos(cells, grid_size)
    return pos[:2], pos[2:]


def respawn(
    words: jax.Array, agent_cells: jax.Array, coin_cells: jax.Array, collected: jax.Array, grid_size: int
) -> jax.Array:
    """Move every collected coin to a random cell free of players and of the other coin.

    When both coins are collected, the red one is placed first and the blue one avoids it.

    Args:
        words: uint32 random words ``(NUM_RESPAWN_WORDS,)``.
        agent_cells: the players' cells after their move, int32 ``(2,)``.
        coin_cells: the coins' cells before the respawn, int32 ``(2,)``.
        collected: whether each coin was collected this step, bool ``(2,)``.
        grid_size: side of the grid (at least 2).

    Returns:
        The coins' new cells, int32 ``(2,)``.
    """
    num_cells = grid_size * grid_size
    blue_stays = jnp.where(collected[1], -1, coin_cells[1])
    red_new = pick_cell(words[0], jnp.stack([agent_cells[0], agent_cells[1], blue_stays]), num_cells)
    red = jnp.where(collected[0], red_new, coin_cells[0])
    blue_new = pick_cell(words[1], jnp.stack([agent_cells[0], agent_cells[1], red]), num_cells)
    blue = jnp.where(collected[1], blue_new, coin_cells[1])
    return jnp.stack([red, blue]).astype(jnp.int32)
