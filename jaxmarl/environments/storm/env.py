"""STORM: Spatial-Temporal Representations of Matrix Games, for 2 or more players.

Rules from the JaxMARL paper (Rutherford et al., 2024; main text and appendix B.2) and,
where the paper is silent, JaxMARL's ``storm_2p`` implementation (beam shape, action
set, view, coin regrowth, defaults). The ``STORM`` class docstring is the full spec;
``docs/environments/storm.md`` adds tables and lists what differs from JaxMARL.

One transition, vectorised over agents (``step_env``):

1. Frozen agents' actions are ignored. Turns change the facing; ``forward`` targets the
   next cell ahead (a move off the grid is no move).
2. Moves are resolved so that no two agents share a cell: a move into the cell of an
   agent that does not move fails (priority to the stationary agent); of several agents
   moving into the same cell one, drawn uniformly, succeeds; two agents moving into each
   other's cell both fail; failures cascade to agents moving into a failed mover's cell.
3. An agent entering a cell with a coin collects it.
4. A ready agent (holding a coin, not frozen) that interacts fires a beam at the cell
   ahead, the cell two ahead and the two cells diagonally ahead. A beam hitting another
   ready agent proposes an interaction; proposals are served nearest first (the cell
   ahead before the other three), ties in uniformly random order, each agent taking part
   in at most one interaction per step. The agent that fired plays the row of the payoff
   matrix and the agent hit the column; each plays cooperate with probability equal to
   the share of cooperate coins in its inventory (or both receive the expected payoff of
   these mixed strategies, with ``expected_payoff=True``).
5. Both agents of an interaction freeze for ``freeze_penalty`` steps, keeping their
   coins on show; at the end of the freeze they respawn on a uniformly drawn free cell
   with an empty inventory, and every collected coin regrows at its spawn cell (unless an
   agent stands there).
6. After ``num_inner_steps`` steps the inner episode ends: positions, coins (reshuffled),
   inventories and freezes are drawn afresh, and the episode goes on. The episode ends
   after ``num_outer_steps`` inner episodes.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.multi_agent_env import MultiAgentEnv
from jaxmarl.environments.spaces import Box, Discrete
from jaxmarl.environments.storm import constants as C
from jaxmarl.environments.storm.generator import (
    coin_spawn_cells,
    random_words,
    respawn_cells,
    sample_layout,
)
from jaxmarl.environments.storm.observations import global_state, observe
from jaxmarl.environments.storm.types import State
from jaxmarl.environments.storm.viewer import agent_colours, render_grid

__all__ = ["STORM"]


def _check_int(name: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"STORM: {name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _check_bool(name: str, value: Any) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"STORM: {name} must be True or False, got {value!r}")
    return bool(value)


def _payoff_matrix(payoff: str | None, payoff_matrix: Any) -> np.ndarray:
    if payoff is not None and payoff_matrix is not None:
        raise ValueError("STORM: give either payoff (a game's name) or payoff_matrix, not both")
    if payoff_matrix is None:
        name = C.DEFAULT_PAYOFF if payoff is None else payoff
        if name not in C.PAYOFFS:
            raise ValueError(f"STORM: unknown payoff {name!r}; choose one of {sorted(C.PAYOFFS)}")
        return C.PAYOFFS[name].copy()
    matrix = np.asarray(payoff_matrix, np.float32)
    if matrix.shape != (2, 2, 2) or not np.all(np.isfinite(matrix)):
        raise ValueError(
            "STORM: payoff_matrix must be finite with shape (2, 2, 2), indexed "
            f"[player (row, column)][row action][column action]; got shape {matrix.shape}"
        )
    return matrix


class STORM(MultiAgentEnv):
    """Matrix games played on a grid by directional agents that collect coins.

    ``num_agents`` agents (``agent_0 ...``) move on a ``grid_size x grid_size`` grid
    holding ``num_coins`` cooperate and ``num_coins`` defect coins. Collecting any coin
    makes an agent *ready*; a ready agent can fire an interact beam ahead of it, and when
    the beam hits another ready agent the two play the matrix game: each cooperates with
    probability equal to the share of cooperate coins it holds (1 cooperate + 3 defect:
    25%), and both are paid from the payoff matrix. Then both freeze for
    ``freeze_penalty`` steps, showing their coins, and respawn elsewhere with empty
    inventories. The full rules are in the module docstring.

    - **Agents:** ``agent_0 ... agent_{N-1}``, any ``N >= 2``; interactions are pairwise.
    - **Actions:** ``Discrete(5)``: ``0`` turn left, ``1`` turn right, ``2`` forward,
      ``3`` interact, ``4`` stay. Every action is always legal
      (``get_avail_actions`` is all ones); a frozen agent's action and a non-ready
      agent's interact do nothing.
    - **Observation:** float32 ``(obs_size ** 2 * 14 + 6,)`` (356 by default): the
      agent's egocentric ``(obs_size, obs_size, 14)`` view, rotated so that it faces up,
      flattened row-major, then 6 inventory features; layout in
      ``observations.py`` and the docs (``split_obs`` undoes the flattening).
    - **Reward:** the payoff of the agent's interaction this step, 0 without one.
    - **Episode:** ``num_inner_steps * num_outer_steps`` steps, a time limit:
      ``done["__all__"]`` and ``info["truncated"]`` are true on the last step, never
      before (there are no terminations). Every ``num_inner_steps`` steps within the
      episode the inner episode restarts (new positions, reshuffled coins, empty
      inventories); ``info["inner_episode_done"]`` (bool ``(num_agents,)``) marks those
      steps and the last one.
    - **State:** :class:`jaxmarl.environments.storm.State`.

    Example::

        env = STORM(num_agents=4, payoff="stag_hunt")
        obs, state = env.reset(jax.random.PRNGKey(0))
        actions = {a: jnp.int32(2) for a in env.agents}  # all forward
        obs, state, reward, done, info = env.step(jax.random.PRNGKey(1), state, actions)

    Args:
        num_agents: number of agents, at least 2.
        num_inner_steps: steps per inner episode (152).
        num_outer_steps: inner episodes per episode (1).
        fixed_coin_location: coins spawn on fixed cells near the corners, their kinds
            shuffled every inner episode (True), or on cells drawn from the whole grid
            (False).
        payoff: a game's name: ``"ipd"`` (default), ``"matching_pennies"``,
            ``"stag_hunt"`` or ``"chicken"``.
        payoff_matrix: an explicit ``(2, 2, 2)`` matrix instead of ``payoff``:
            ``payoff_matrix[p][row_action][col_action]`` is the payoff of player ``p``
            (0 the row player, 1 the column player), action 0 cooperate, 1 defect.
        freeze_penalty: steps an agent stays frozen after an interaction (5); 0 respawns
            it at once.
        grid_size: side of the grid (8).
        obs_size: side of the view, odd (5).
        num_coins: coins of each kind (6).
        expected_payoff: pay the expected payoff of the two mixed strategies instead of
            sampling pure actions (JaxMARL's rule).

    Raises:
        ValueError: for a bad keyword, or when agents and coins do not fit on the grid.
    """

    def __init__(
        self,
        num_agents: int = 2,
        num_inner_steps: int = C.NUM_INNER_STEPS,
        num_outer_steps: int = C.NUM_OUTER_STEPS,
        fixed_coin_location: bool = True,
        payoff: str | None = None,
        payoff_matrix: Any = None,
        freeze_penalty: int = C.FREEZE_PENALTY,
        grid_size: int = C.GRID_SIZE,
        obs_size: int = C.OBS_SIZE,
        num_coins: int = C.NUM_COINS,
        expected_payoff: bool = False,
    ) -> None:
        n = _check_int("num_agents", num_agents, 2)
        self.num_inner_steps = _check_int("num_inner_steps", num_inner_steps, 1)
        self.num_outer_steps = _check_int("num_outer_steps", num_outer_steps, 1)
        self.fixed_coin_location = _check_bool("fixed_coin_location", fixed_coin_location)
        self.payoff_matrix = _payoff_matrix(payoff, payoff_matrix)
        self.freeze_penalty = _check_int("freeze_penalty", freeze_penalty, 0)
        self.grid_size = g = _check_int("grid_size", grid_size, 2)
        self.obs_size = _check_int("obs_size", obs_size, 1)
        if self.obs_size % 2 == 0:
            raise ValueError(
                f"STORM: obs_size must be odd (the agent sits in the centre column), got {obs_size}"
            )
        self.num_coins = _check_int("num_coins", num_coins, 1)
        self.expected_payoff = _check_bool("expected_payoff", expected_payoff)
        if n + 2 * self.num_coins > g * g:
            raise ValueError(
                f"STORM: {n} agents and 2 x {self.num_coins} coins do not fit on a {g}x{g} grid "
                f"({g * g} cells); use fewer agents or coins or a larger grid_size"
            )
        super().__init__(num_agents=n)
        self.agents = [f"agent_{i}" for i in range(n)]
        self.max_steps = self.num_inner_steps * self.num_outer_steps

        # Static tables, folded into the compiled step.
        self.spawn_mask: np.ndarray | None = None
        if self.fixed_coin_location:
            self.spawn_mask = np.zeros(g * g, bool)
            self.spawn_mask[coin_spawn_cells(g, self.num_coins)] = True
        self.colours = agent_colours(n)
        self._not_self = ~np.eye(n, dtype=bool)
        self._beam = np.stack(
            [C.BEAM_CELLS[:, :1] * C.MOVES[d] + C.BEAM_CELLS[:, 1:] * C.MOVES[(d + 1) % 4] for d in range(4)]
        )  # (4 facings, 4 beam cells, 2)
        self._edge_zapper = np.repeat(np.arange(n, dtype=np.int32), len(C.BEAM_CELLS))
        self._edge_bits = int(np.ceil(np.log2(len(self._edge_zapper))))
        # Cascading move failures and pairing rounds needed in the worst case.
        self._move_rounds = n - 1
        self._pair_rounds = n // 2

        obs_dim = self.obs_size**2 * C.NUM_CHANNELS + C.NUM_INVENTORY_FEATURES
        high = np.ones((self.obs_size**2, C.NUM_CHANNELS), np.float32)
        count = float(max(self.num_inner_steps, self.freeze_penalty))
        high[:, C.CH_FROZEN_INVENTORY :] = count
        features_high = np.array([count, count, 1.0, self.freeze_penalty, count, count], np.float32)
        high_vec = np.concatenate([high.reshape(-1), features_high])
        self.observation_spaces = {a: Box(0.0, high_vec, (obs_dim,)) for a in self.agents}
        self.action_spaces = {a: Discrete(C.NUM_ACTIONS) for a in self.agents}

    # ------------------------------------------------------ JaxMARL 0.2.0's names
    # (storm_np's upper-case attributes included)
    @property
    def num_actions(self) -> int:
        """The number of actions, 5."""
        return C.NUM_ACTIONS

    @property
    def GRID_SIZE(self) -> int:
        """``grid_size``."""
        return self.grid_size

    @property
    def OBS_SIZE(self) -> int:
        """``obs_size``."""
        return self.obs_size

    @property
    def NUM_COINS(self) -> int:
        """``num_coins``: coins of each kind."""
        return self.num_coins

    # ------------------------------------------------------------------ episodes
    def _words(self, key: jax.Array) -> dict[str, jax.Array]:
        """The random words of one step (uint32, distinct), by use."""
        n = self.num_agents
        sizes = {"move": n, "edge": len(self._edge_zapper), "play": n, "cells": self.grid_size**2, "dir": n}
        words = random_words(key, sum(sizes.values()))
        out, start = {}, 0
        for name, size in sizes.items():
            out[name] = words[start : start + size]
            start += size
        return out

    def _new_inner_episode(self, key: jax.Array, step: jax.Array) -> State:
        """A freshly drawn inner episode starting at episode step ``step``."""
        n, g = self.num_agents, self.grid_size
        words = random_words(key, g * g + n)
        cells, dirs, layout = sample_layout(words, n, self.num_coins, self.spawn_mask)
        layout = layout.reshape(g, g)
        return State(
            pos=jnp.stack([cells // g, cells % g], axis=-1),
            dir=dirs,
            inventory=jnp.zeros((n, 2), jnp.int32),
            freeze=jnp.zeros((n,), jnp.int32),
            partner=jnp.full((n,), -1, jnp.int32),
            coins=layout,
            coin_layout=layout,
            beam=jnp.zeros((g, g), bool),
            step=jnp.asarray(step, jnp.int32),
        )

    def reset_env(self, key: jax.Array) -> tuple[dict[str, jax.Array], State]:
        state = self._new_inner_episode(key, jnp.int32(0))
        return self.get_obs(state), state

    # --------------------------------------------------------------------- rules
    def _resolve_moves(
        self, cell: jax.Array, target: jax.Array, moving: jax.Array, words: jax.Array
    ) -> jax.Array:
        """Which moves succeed, bool ``(n,)``, given current and target cells ``(n,)`` and
        distinct random ``words`` ``(n,)`` that rank contested moves."""
        enters = target[:, None] == cell[None, :]  # i moves into j's cell
        swap = jnp.any(enters & enters.T & moving[None, :], axis=1)
        moving = moving & ~swap
        rival = (target[:, None] == target[None, :]) & moving[None, :] & (words[None, :] > words[:, None])
        moving = moving & ~jnp.any(rival, axis=1)

        def block(_: Any, m: jax.Array) -> jax.Array:
            return m & ~jnp.any(enters & ~m[None, :], axis=1)

        return jax.lax.fori_loop(0, self._move_rounds, block, moving, unroll=self._move_rounds <= 8)

    def _pair(
        self, beam_cell: jax.Array, fired: jax.Array, cell: jax.Array, ready: jax.Array, words: jax.Array
    ) -> tuple[jax.Array, jax.Array]:
        """Match zappers with the agents their beams hit.

        Args:
            beam_cell: flat beam cells, int32 ``(n, 4)``.
            fired: whether each beam cell is live (fired, inside the grid), ``(n, 4)``.
            cell: agent cells, int32 ``(n,)``.
            ready: which agents can interact, ``(n,)``.
            words: uint32 random words, one per (agent, beam cell).

        Returns:
            ``(partner, is_row)``: each agent's partner this step (-1: none), int32 ``(n,)``,
            and whether it is the row player (the one that fired).
        """
        n, e = self.num_agents, self._edge_zapper.shape[0]
        hits = fired[:, :, None] & (beam_cell[:, :, None] == cell[None, None, :])
        hits = hits & (ready[None, None, :] & self._not_self[:, None, :])  # (n, 4, n)
        live = jnp.any(hits, axis=-1).reshape(e)
        zapper = jnp.asarray(self._edge_zapper)
        target = jnp.argmax(hits, axis=-1).reshape(e).astype(jnp.int32)
        # Distinct priorities: nearer beam cells first, then random, then by index.
        rank = jnp.tile(jnp.asarray(1 - C.BEAM_RANK), n)
        b = self._edge_bits
        priority = (rank << 30) | ((words >> (2 + b)).astype(jnp.int32) << b) | jnp.arange(e, dtype=jnp.int32)
        agents = jnp.arange(n, dtype=jnp.int32)
        touches = (zapper[:, None] == agents[None, :]) | (target[:, None] == agents[None, :])  # (e, n)

        def round_(_: Any, carry: tuple[jax.Array, jax.Array]) -> tuple[jax.Array, jax.Array]:
            live, chosen = carry
            p = jnp.where(live, priority, -1)
            best = jnp.max(jnp.where(touches, p[:, None], -1), axis=0)  # (n,)
            accept = live & (p == best[zapper]) & (p == best[target])
            matched = jnp.any(touches & accept[:, None], axis=0)
            live = live & ~matched[zapper] & ~matched[target]
            return live, chosen | accept

        _, chosen = jax.lax.fori_loop(
            0, self._pair_rounds, round_, (live, jnp.zeros(e, bool)), unroll=self._pair_rounds <= 8
        )
        as_row = (zapper[:, None] == agents[None, :]) & chosen[:, None]  # (e, n)
        as_col = (target[:, None] == agents[None, :]) & chosen[:, None]
        partner = jnp.sum(as_row * target[:, None] + as_col * zapper[:, None], axis=0)
        in_pair = jnp.any(as_row | as_col, axis=0)
        return jnp.where(in_pair, partner, -1), jnp.any(as_row, axis=0)

    def _payoffs(
        self, inventory: jax.Array, partner: jax.Array, is_row: jax.Array, words: jax.Array
    ) -> jax.Array:
        """Each agent's payoff from its interaction this step (0 without one), float32 ``(n,)``."""
        total = inventory.sum(-1)
        p_coop = inventory[:, 0] / jnp.maximum(total, 1).astype(jnp.float32)
        other = jnp.maximum(partner, 0)
        matrix = jnp.asarray(self.payoff_matrix)
        if self.expected_payoff:
            mixed = jnp.stack([p_coop, 1.0 - p_coop], axis=-1)  # (n, 2)
            row = jnp.where(is_row[:, None], mixed, mixed[other])
            col = jnp.where(is_row[:, None], mixed[other], mixed)
            games = jnp.where(is_row[:, None, None], matrix[0], matrix[1])  # (n, 2, 2)
            payoff = jnp.einsum("nr,nrc,nc->n", row, games, col)
        else:
            uniform = (words >> 8).astype(jnp.float32) * (1.0 / (1 << 24))
            action = jnp.where(uniform < p_coop, C.COOPERATE, C.DEFECT)
            row = jnp.where(is_row, action, action[other])
            col = jnp.where(is_row, action[other], action)
            payoff = matrix[jnp.where(is_row, 0, 1), row, col]
        return jnp.where(partner >= 0, payoff, 0.0)

    def noop_action(self, agent: str) -> int:
        """``stay``: what an out-of-range action is replaced by (``info["invalid_action"]``)."""
        del agent
        return C.STAY

    def step_env(
        self, key: jax.Array, state: State, actions: dict[str, jax.Array]
    ) -> tuple[dict[str, jax.Array], State, dict[str, jax.Array], dict[str, jax.Array], dict[str, Any]]:
        g = self.grid_size
        if self.num_outer_steps > 1:
            key, key_inner = jax.random.split(key)
        words = self._words(key)
        act = jnp.stack([jnp.asarray(actions[a]) for a in self.agents]).astype(jnp.int32)
        frozen = state.freeze > 0
        act = jnp.where(frozen, C.STAY, act)

        # 1-2. Turn, then move without sharing cells.
        facing = (state.dir + jnp.asarray(C.TURN)[act]) % 4
        ahead = state.pos + jnp.asarray(C.MOVES)[state.dir]
        on_grid = jnp.all((ahead >= 0) & (ahead < g), axis=-1)
        cell = state.pos[:, 0] * g + state.pos[:, 1]
        moving = (act == C.FORWARD) & on_grid
        target = jnp.where(moving, ahead[:, 0] * g + ahead[:, 1], cell)
        cell = jnp.where(self._resolve_moves(cell, target, moving, words["move"]), target, cell)

        # 3. Collect coins.
        coins = state.coins.reshape(-1)
        found = coins[cell]
        inventory = state.inventory + jax.nn.one_hot(found - 1, 2, dtype=jnp.int32)
        occupied = jnp.any(jnp.arange(g * g)[:, None] == cell[None, :], axis=-1)
        coins = jnp.where(occupied, C.EMPTY, coins)

        # 4. Beams and interactions.
        ready = (inventory.sum(-1) > 0) & ~frozen
        pos = jnp.stack([cell // g, cell % g], axis=-1)
        beam_pos = pos[:, None, :] + jnp.asarray(self._beam)[facing]  # (n, 4, 2)
        fired = ((act == C.INTERACT) & ready)[:, None] & jnp.all((beam_pos >= 0) & (beam_pos < g), axis=-1)
        beam_cell = beam_pos[..., 0] * g + beam_pos[..., 1]
        beam = jnp.any(
            (jnp.arange(g * g)[:, None] == beam_cell.reshape(1, -1)) & fired.reshape(1, -1), axis=-1
        )
        partner, is_row = self._pair(beam_cell, fired, cell, ready, words["edge"])
        reward = self._payoffs(inventory, partner, is_row, words["play"])

        # 5. Freeze, then respawn with empty inventories; collected coins regrow.
        paired = partner >= 0
        freeze = jnp.where(paired, self.freeze_penalty, jnp.where(frozen, state.freeze - 1, 0))
        respawn = (frozen | paired) & (freeze == 0)
        staying = jnp.any((jnp.arange(g * g)[:, None] == cell[None, :]) & ~respawn[None, :], axis=-1)
        layout = state.coin_layout.reshape(-1)
        regrown = jnp.where((coins == C.EMPTY) & ~staying, layout, coins)
        coins = jnp.where(jnp.any(respawn), regrown, coins)
        cell = respawn_cells(words["cells"], respawn, cell, staying | (coins != C.EMPTY))
        new_state = State(
            pos=jnp.stack([cell // g, cell % g], axis=-1),
            dir=jnp.where(respawn, (words["dir"] % 4).astype(jnp.int32), facing),
            inventory=jnp.where(respawn[:, None], 0, inventory),
            freeze=freeze,
            partner=jnp.where(respawn, -1, jnp.where(paired, partner, state.partner)),
            coins=coins.reshape(g, g),
            coin_layout=state.coin_layout,
            beam=beam.reshape(g, g),
            step=state.step + 1,
        )

        # 6. Inner episodes (the last one ends with the episode, by the time limit).
        inner_done = new_state.step % self.num_inner_steps == 0
        if self.num_outer_steps > 1:
            restart = inner_done & (new_state.step < self.num_inner_steps * self.num_outer_steps)
            fresh = self._new_inner_episode(key_inner, new_state.step)
            new_state = jax.tree.map(lambda f, s: jnp.where(restart, f, s), fresh, new_state)

        obs = self.get_obs(new_state)
        rewards = {a: reward[i] for i, a in enumerate(self.agents)}
        terminated = {a: jnp.array(False) for a in self.agents}
        terminated["__all__"] = jnp.array(False)
        info = {"inner_episode_done": jnp.full((self.num_agents,), inner_done)}
        return obs, new_state, rewards, terminated, info

    # ------------------------------------------------------------ observations
    def get_obs(self, state: State) -> dict[str, jax.Array]:
        obs = observe(state, self.obs_size, self.grid_size)
        return {a: obs[i] for i, a in enumerate(self.agents)}

    def split_obs(self, obs: jax.Array) -> tuple[jax.Array, jax.Array]:
        """Split observations ``(..., obs_dim)`` into the view ``(..., obs_size, obs_size, 14)``
        and the inventory features ``(..., 6)``."""
        s = self.obs_size
        view = obs[..., : s * s * C.NUM_CHANNELS].reshape(*obs.shape[:-1], s, s, C.NUM_CHANNELS)
        return view, obs[..., s * s * C.NUM_CHANNELS :]

    def get_global_state(self, state: State) -> jax.Array:
        """The full world state, float32 ``(grid_size ** 2 * (3 + N) + 8 N + 1,)``; see
        :func:`jaxmarl.environments.storm.observations.global_state`."""
        return global_state(state, self.grid_size, self.num_inner_steps)

    def render(self, state: State, size: int = 256) -> jax.Array:
        """The grid as an RGB image; see :mod:`jaxmarl.environments.storm.viewer`.

        Args:
            state: the state.
            size: the image's side in pixels, a Python ``int`` fixed at trace time. Each
                cell gets ``t = size // grid_size`` whole pixels, so the image is uint8
                ``(grid_size * t, grid_size * t, 3)``, up to ``grid_size - 1`` pixels
                smaller than ``size`` (the default draws the 8 x 8 grid with 32-pixel
                tiles). ``ValueError`` unless ``size >= grid_size``.
        """
        from jaxmarl.viz.raster import pixels_per_cell

        return render_grid(state, self.grid_size, self.colours, pixels_per_cell(size, self.grid_size))
