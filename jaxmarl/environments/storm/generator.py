"""Spawning in STORM: where coins and agents start each inner episode, and where agents
reappear after an interaction.

Rules (the JaxMARL paper's appendix B.2 and JaxMARL's STORM; see ``env.py``):

- At the start of every inner episode the coins are reshuffled. With
  ``fixed_coin_location`` the coins occupy a fixed set of ``2 * num_coins`` spawn cells
  (:func:`coin_spawn_cells`: near the four corners, for the default 8x8 grid exactly
  JaxMARL's twelve cells) and which of them hold cooperate coins is drawn uniformly;
  otherwise the coin cells are drawn uniformly from the whole grid. Agents start on
  distinct uniformly drawn cells without coins (and, with fixed locations, off the spawn
  cells), facing a uniformly drawn direction.
- An agent that respawns after its freeze goes to a uniformly drawn cell holding
  neither an agent nor a coin, facing a uniformly drawn direction.

Randomness: one step needs a few dozen random numbers (a key per cell, priorities,
strategy draws). Drawing each from the threefry generator costs more than the rest of
the step on a CPU, so :func:`random_words` draws one 32-bit word from the key and
expands it with the murmur3 finaliser, a bijection, so the words of one draw are
distinct. ``tests/environments/storm`` checks the draws built on them (spawn cells, coin
kinds, facings, collision winners, strategies) against their distributions.
Distinct cells are then picked without sorting, by repeated ``argmax`` over cell keys.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.storm.constants import COOPERATE_COIN, DEFECT_COIN, EMPTY

__all__ = ["cell_keys", "coin_spawn_cells", "pick_cells", "random_words", "respawn_cells", "sample_layout"]


def coin_spawn_cells(grid_size: int, num_coins: int) -> np.ndarray:
    """The ``2 * num_coins`` fixed coin cells (flat indices ``row * grid_size + col``).

    Cells off the outer ring come first, then cells closer (in Manhattan distance) to
    their nearest corner; ties go round the four corners. On the default 8x8 grid with 6
    coins of each kind these are the twelve cells of JaxMARL's ``COIN_SPAWNS``:
    ``(1, 1), (1, 2), (2, 1)`` and their mirror images in the other corners.

    Returns:
        int32 ``(2 * num_coins,)``.
    """
    g = grid_size - 1
    corners = [(0, 0), (0, g), (g, 0), (g, g)]
    keys = []
    for r in range(grid_size):
        for c in range(grid_size):
            dists = [abs(r - cr) + abs(c - cc) for cr, cc in corners]
            k = int(np.argmin(dists))
            on_ring = r in (0, g) or c in (0, g)
            along_row = abs(r - corners[k][0])
            keys.append((on_ring, dists[k], along_row, k, r * grid_size + c))
    keys.sort()
    return np.array([key[-1] for key in keys[: 2 * num_coins]], np.int32)


def random_words(key: jax.Array, count: int) -> jax.Array:
    """``count`` distinct pseudo-random words from one 32-bit draw of ``key``.

    Word ``i`` is the murmur3 finaliser of ``seed + i * 0x9E3779B9``.

    Returns:
        uint32 ``(count,)``.
    """
    seed = jax.random.bits(key, (), jnp.uint32)
    h = seed + jnp.arange(count, dtype=jnp.uint32) * jnp.uint32(0x9E3779B9)
    h = (h ^ (h >> 16)) * jnp.uint32(0x85EBCA6B)
    h = (h ^ (h >> 13)) * jnp.uint32(0xC2B2AE35)
    return h ^ (h >> 16)


def cell_keys(words: jax.Array, blocked: jax.Array | np.ndarray | bool) -> jax.Array:
    """Random int32 keys in ``[0, 2 ** 31)`` from uint32 ``words``, -1 where ``blocked``."""
    return jnp.where(blocked, -1, (words >> 1).astype(jnp.int32))


def pick_cells(keys: jax.Array, count: int) -> jax.Array:
    """The ``count`` cells with the largest keys, best first (distinct cells; keys of -1
    are never picked while a better cell is left).

    Args:
        keys: int32 ``(num_cells,)`` from :func:`cell_keys`.
        count: cells to pick, at most ``num_cells``.

    Returns:
        int32 ``(count,)``, flat cell indices.
    """
    cells = jnp.arange(keys.shape[0], dtype=jnp.int32)

    def pick(i: jax.Array, carry: tuple[jax.Array, jax.Array]) -> tuple[jax.Array, jax.Array]:
        keys, out = carry
        best = jnp.argmax(keys).astype(jnp.int32)
        return jnp.where(cells == best, -1, keys), out.at[i].set(best)

    out = jnp.zeros((count,), jnp.int32)
    return jax.lax.fori_loop(0, count, pick, (keys, out), unroll=count <= 16)[1]


def sample_layout(
    words: jax.Array,
    num_agents: int,
    num_coins: int,
    spawn_mask: np.ndarray | None,
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Draw the start of an inner episode.

    Args:
        words: uint32 ``(grid_size ** 2 + num_agents,)`` from :func:`random_words`.
        num_agents: number of agents.
        num_coins: coins of each kind.
        spawn_mask: bool ``(grid_size ** 2,)`` of the fixed coin cells, or ``None`` to
            draw coin cells from the whole grid.

    Returns:
        ``(cells, dirs, layout)``: agent cells as flat indices, int32 ``(num_agents,)``;
        facings, int32 ``(num_agents,)``; the coin layout, int32 ``(grid_size ** 2,)``
        (0 none, 1 cooperate, 2 defect).
    """
    num_cells = words.shape[0] - num_agents
    dirs = (words[num_cells:] % 4).astype(jnp.int32)
    if spawn_mask is not None:
        # Cooperate coins on the num_coins spawn cells with the largest keys.
        spawn = np.flatnonzero(spawn_mask)
        keys = cell_keys(words[:num_cells], False)
        mine, theirs = keys[:, None], keys[spawn][None, :]
        index = np.arange(num_cells)[:, None]
        beaten = (theirs > mine) | ((theirs == mine) & (spawn[None, :] > index))
        coop = spawn_mask & (jnp.sum(beaten, axis=-1) < num_coins)
        layout = jnp.where(coop, COOPERATE_COIN, jnp.where(spawn_mask, DEFECT_COIN, EMPTY))
        cells = pick_cells(cell_keys(words[:num_cells], spawn_mask), num_agents)
    else:
        order = pick_cells(cell_keys(words[:num_cells], False), 2 * num_coins + num_agents)
        kind = jnp.where(jnp.arange(2 * num_coins) < num_coins, COOPERATE_COIN, DEFECT_COIN)
        layout = jnp.zeros((num_cells,), jnp.int32).at[order[: 2 * num_coins]].set(kind)
        cells = order[2 * num_coins :]
    return cells, dirs, layout.astype(jnp.int32)


def respawn_cells(
    words: jax.Array,
    respawning: jax.Array,
    cells: jax.Array,
    blocked: jax.Array,
) -> jax.Array:
    """New cells for the respawning agents: distinct, uniform among unblocked cells.

    Args:
        words: uint32 ``(grid_size ** 2,)`` from :func:`random_words`.
        respawning: bool ``(num_agents,)``, which agents respawn.
        cells: current agent cells (flat indices), int32 ``(num_agents,)``.
        blocked: bool ``(grid_size ** 2,)``, cells a respawning agent may not take (other
            agents, coins). At least as many cells as respawning agents must be free.

    Returns:
        Agent cells after respawning, int32 ``(num_agents,)``.
    """
    best = pick_cells(cell_keys(words, blocked), cells.shape[0])
    rank = jnp.cumsum(respawning.astype(jnp.int32)) - 1
    return jnp.where(respawning, best[jnp.maximum(rank, 0)], cells)
