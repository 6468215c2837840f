"""Observations and the global state of STORM.

Each agent sees an ``obs_size x obs_size`` window in front of it, rotated so that it
faces up: it stands in the bottom row, centre column, and sees ``obs_size - 1`` rows
ahead and ``obs_size // 2`` columns to each side, nothing behind (JaxMARL's STORM view;
the paper's "restricted field of view"). Cells outside the grid read as walls.

Each cell of the view has the channels of ``constants.CHANNEL_NAMES`` (14): the observer,
another agent, cooperate / defect coins, wall, beam, the other agent's facing relative
to the observer (one-hot: ahead, right, back, left), whether it is ready to interact,
whether it is frozen, and a frozen agent's coins (its inventory is revealed to those
around it while it is frozen, as in the paper). After the view come six inventory
features (``constants.INVENTORY_FEATURES``): the observer's cooperate and defect coins,
whether it is ready, its remaining freeze steps, and, while it is frozen after an
interaction, its partner's coins (JaxMARL's ``storm_2p`` shows the same).

Each view is cut from a padded grid of packed cell codes with one ``dynamic_slice`` per
agent and turned with ``rot90``; channels are then unpacked from the codes by
broadcasting, with no one-hot copy of the whole grid and no per-cell gathers.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.storm import constants as C
from jaxmarl.environments.storm.types import State

__all__ = ["global_state", "observe", "window_corners"]

# Bits of a packed cell code.
_COIN, _BEAM, _AGENT, _FACING, _READY, _FROZEN, _WALL = 0, 2, 3, 4, 6, 7, 8


def window_corners(obs_size: int) -> np.ndarray:
    """Top-left corner of the view window, relative to the agent, for each facing.

    The window is ``obs_size x obs_size`` cells of the grid: for facing north the rows
    ``obs_size - 1`` ahead down to the agent's own row and ``obs_size // 2`` columns on
    either side; the other facings are the same window turned round the agent.

    Returns:
        int32 ``(4, 2)``: ``(d_row, d_col)`` per facing.
    """
    s, h = obs_size - 1, obs_size // 2
    return np.array([[-s, -h], [-h, 0], [0, -h], [-h, -s]], np.int32)


def _views(grid: jax.Array, corner: jax.Array, facing: jax.Array, obs_size: int) -> jax.Array:
    """Each agent's window of a padded grid, turned so that the agent faces up.

    Args:
        grid: a padded per-cell grid, ``(rows, cols)``.
        corner: top-left corner of each window in ``grid``, int32 ``(n, 2)``.
        facing: each agent's facing, int32 ``(n,)``.
        obs_size: side of the window.

    Returns:
        ``(n, obs_size ** 2)``, row-major, the farthest row first.
    """
    cut = jax.vmap(lambda c: jax.lax.dynamic_slice(grid, (c[0], c[1]), (obs_size, obs_size)))(corner)
    d = facing[:, None, None]
    turned = [jnp.rot90(cut, k, axes=(1, 2)) for k in range(4)]
    view = jnp.where(d == 0, turned[0], jnp.where(d == 1, turned[1], jnp.where(d == 2, turned[2], turned[3])))
    return view.reshape(cut.shape[0], obs_size * obs_size)


def observe(state: State, obs_size: int, grid_size: int) -> jax.Array:
    """Every agent's observation.

    Args:
        state: the state.
        obs_size: side of the view (odd).
        grid_size: side of the grid.

    Returns:
        float32 ``(num_agents, obs_size ** 2 * 14 + 6)``: the view ``(obs_size, obs_size,
        14)`` flattened row-major, then the six inventory features.
    """
    n, g, v = state.pos.shape[0], grid_size, obs_size * obs_size
    frozen = state.freeze > 0
    ready = (state.inventory.sum(-1) > 0) & ~frozen

    # A packed code per cell (walls round the grid), and the coins frozen agents show.
    agent_code = (
        (1 << _AGENT)
        | (state.dir << _FACING)
        | (ready.astype(jnp.int32) << _READY)
        | (frozen.astype(jnp.int32) << _FROZEN)
    )  # (n,)
    here = jnp.arange(g * g)[:, None] == (state.pos[:, 0] * g + state.pos[:, 1])[None, :]  # (g*g, n)
    code = (
        (state.coins.reshape(-1) << _COIN)
        | (state.beam.reshape(-1).astype(jnp.int32) << _BEAM)
        | jnp.sum(jnp.where(here, agent_code[None, :], 0), axis=-1)
    ).reshape(g, g)
    shown = jnp.sum(jnp.where(here[:, :, None], (state.inventory * frozen[:, None])[None], 0), axis=1)
    pad = obs_size - 1
    corner = state.pos + pad + jnp.asarray(window_corners(obs_size))[state.dir]
    code = _views(jnp.pad(code, pad, constant_values=1 << _WALL), corner, state.dir, obs_size)  # (n, v)
    shown = jnp.stack(
        [_views(jnp.pad(shown[:, k].reshape(g, g), pad), corner, state.dir, obs_size) for k in range(2)],
        axis=-1,
    )  # (n, v, 2)

    # Unpack the channels. Self, other agent, coins and wall exclude each other.
    is_self = np.arange(v)[None, :] == v - 1 - obs_size // 2
    other = (((code >> _AGENT) & 1) == 1) & ~is_self
    coin = (code >> _COIN) & 3
    item = jnp.select(
        [is_self, other, coin == C.COOPERATE_COIN, coin == C.DEFECT_COIN, ((code >> _WALL) & 1) == 1],
        [C.CH_SELF, C.CH_OTHER, C.CH_COOPERATE_COIN, C.CH_DEFECT_COIN, C.CH_WALL],
        default=-1,
    )
    facing = jnp.where(other, ((code >> _FACING) - state.dir[:, None]) & 3, -1)
    grid = jnp.concatenate(
        [
            jax.nn.one_hot(item, C.CH_BEAM),
            ((code >> _BEAM) & 1)[..., None],
            jax.nn.one_hot(facing, 4),
            (other & (((code >> _READY) & 1) == 1))[..., None],
            (other & (((code >> _FROZEN) & 1) == 1))[..., None],
            jnp.where(other[..., None], shown, 0),
        ],
        axis=-1,
        dtype=jnp.float32,
    )  # (n, v, 14)

    partner_coins = jnp.where(
        (state.partner >= 0)[:, None], state.inventory[jnp.maximum(state.partner, 0)], 0
    )
    features = jnp.concatenate(
        [state.inventory, ready[:, None], state.freeze[:, None], partner_coins],
        axis=-1,
        dtype=jnp.float32,
    )  # (n, 6)
    return jnp.concatenate([grid.reshape(n, -1), features], axis=-1)


def global_state(state: State, grid_size: int, num_inner_steps: int) -> jax.Array:
    """The full state of the world as one float32 vector.

    The grid ``(grid_size, grid_size, 3 + num_agents)`` flattened row-major, with channels
    cooperate coin, defect coin, beam, then one channel per agent marking its cell; then
    for each agent (``constants.AGENT_FEATURES``) its facing one-hot (4), coins (2),
    remaining freeze steps and readiness; last, the fraction of the inner episode elapsed.

    Returns:
        float32 ``(grid_size ** 2 * (3 + num_agents) + 8 * num_agents + 1,)``.
    """
    n = state.pos.shape[0]
    cells = jnp.arange(grid_size * grid_size)
    agent_cell = state.pos[:, 0] * grid_size + state.pos[:, 1]
    coins = state.coins.reshape(-1)
    grid = jnp.concatenate(
        [
            (coins == C.COOPERATE_COIN)[:, None],
            (coins == C.DEFECT_COIN)[:, None],
            state.beam.reshape(-1, 1),
            cells[:, None] == agent_cell[None, :],
        ],
        axis=-1,
        dtype=jnp.float32,
    )
    ready = (state.inventory.sum(-1) > 0) & (state.freeze == 0)
    agents = jnp.concatenate(
        [jax.nn.one_hot(state.dir, 4), state.inventory, state.freeze[:, None], ready[:, None]],
        axis=-1,
        dtype=jnp.float32,
    )
    progress = (state.step % num_inner_steps).astype(jnp.float32) / num_inner_steps
    return jnp.concatenate([grid.reshape(-1), agents.reshape(n * 8), progress[None]])
