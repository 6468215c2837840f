"""The Coin Game: a two-player social dilemma on a small wrap-around grid.

Lerer & Peysakhovich (2017) introduced it and Foerster et al. (2018, LOLA) made it the
standard high-dimensional relative of the iterated prisoner's dilemma; the rules below
are those of the JaxMARL paper, Appendix B.3, with JaxMARL's inner/outer episode
structure for opponent-shaping research (Lu et al. 2022, M-FOS).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.coin_game import constants as C
from jaxmarl.environments.coin_game.generator import (
    NUM_LAYOUT_WORDS,
    NUM_RESPAWN_WORDS,
    cells_to_pos,
    pos_to_cells,
    respawn,
    start_layout,
)
from jaxmarl.environments.coin_game.types import State
from jaxmarl.environments.multi_agent_env import MultiAgentEnv
from jaxmarl.environments.spaces import Box, Discrete

__all__ = ["CoinGame"]


def _check_int(name: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"CoinGame: {name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _check_bool(name: str, value: Any) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"CoinGame: {name} must be a bool, got {value!r}")
    return bool(value)


def _check_payoff(payoff_matrix: Any) -> np.ndarray:
    try:
        payoff = np.array(payoff_matrix, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise ValueError(
            f"CoinGame: payoff_matrix must be 2 rows of 3 numbers, got {payoff_matrix!r}"
        ) from err
    if payoff.shape != (2, 3):
        raise ValueError(f"CoinGame: payoff_matrix must be 2 rows of 3 numbers, got {payoff_matrix!r}")
    if not np.all(np.isfinite(payoff)):
        raise ValueError(f"CoinGame: payoff_matrix must be finite, got {payoff_matrix!r}")
    return payoff


class CoinGame(MultiAgentEnv):
    """Two players collect coins on a torus; taking the other's coin hurts its owner.

    A red player (``agent_0``) and a blue player (``agent_1``) move on a ``grid_size`` x
    ``grid_size`` wrap-around grid holding one red and one blue coin. A player collects
    every coin on the cell it moves to (or stays on). With the default payoffs,
    collecting any coin gives the collector +1, and a player whose coin the other takes
    gets -2: greedy players who ignore colour earn 0 on average, players who take only
    their own coins earn more, the social dilemma of the iterated prisoner's dilemma.

    - **Agents:** ``agent_0`` (red), ``agent_1`` (blue).
    - **Actions:** ``Discrete(5)``, JaxMARL's ids, each a ``(row, col)`` move with
      wrap-around: ``0`` right ``(0, +1)``, ``1`` left ``(0, -1)``, ``2`` up ``(+1, 0)``,
      ``3`` down ``(-1, 0)``, ``4`` stay. Players may share a cell. Every action is
      always legal.
    - **Collection:** after both moves, player ``i`` collects coin ``c`` if it stands on
      it. Both players standing on one coin both collect it. A collected coin reappears
      at once on a cell chosen uniformly among those with no player and not holding the
      other coin (when both coins are collected, red is placed first).
    - **Reward** of player ``i`` in a step, with ``P = payoff_matrix``:
      ``P[i][0]`` if it collected the red coin, plus ``P[i][1]`` if it collected the blue
      coin, plus ``P[i][2]`` if the other player collected ``i``'s coin. With
      ``shared_rewards=True`` both players get the sum of the two rewards.
    - **Observation** of player ``i``, uint8 in ``{0, 1}``: a ``(grid_size, grid_size, 4)``
      grid (``cnn=True``) or the same flattened row-major (``grid_size**2 * 4``; 36 by
      default). Channels are from the observer's point of view: ``[self, other player,
      own coin, other's coin]``. In the fixed frame (default) cell ``[row, col]`` is the
      grid cell; with ``egocentric=True`` the grid is rolled so the observer sits at
      ``[grid_size // 2, grid_size // 2]``.
    - **Episodes:** an outer episode is ``num_outer_steps`` inner episodes of
      ``num_inner_steps`` steps each. At the start of each inner episode the players and
      coins are placed on four distinct random cells; nothing else carries over.
      ``info["inner_episode_done"]`` (bool ``()``) is true on the last step of every inner
      episode: that step's rewards count, and its observation is already the first
      observation of the next inner episode. The outer episode ends after
      ``max_steps = num_inner_steps * num_outer_steps`` steps as a time-limit truncation:
      ``done["__all__"]`` and ``info["truncated"]`` are true, ``info["final_obs"]`` holds
      the last observation and ``env.step`` resets automatically. There is no other
      termination. Set ``num_outer_steps=1`` for plain episodes of ``num_inner_steps``.
    - **Info** also holds ``own_coin_collected`` and ``other_coin_collected``, dicts of
      bool ``()`` keyed by agent: what each player collected this step.
    - **State** (:class:`~jaxmarl.environments.coin_game.types.State`): ``agent_pos``,
      ``coin_pos`` (``(row, col)`` each) and ``step`` (steps in the outer episode).
    - **Global state** (``get_global_state``), float32 ``(grid_size**2 * 4 + 1,)``: the
      fixed-frame grid with absolute channels ``[red player, blue player, red coin,
      blue coin]`` flattened row-major, then the inner-episode progress
      ``(step % num_inner_steps) / num_inner_steps``.

    Args:
        num_inner_steps: length of an inner episode.
        num_outer_steps: inner episodes per outer episode.
        cnn: observe ``(grid_size, grid_size, 4)`` grids instead of flat vectors.
        egocentric: centre each player's observation on itself.
        shared_rewards: give both players the sum of their rewards.
        payoff_matrix: 2 rows (red, blue) of ``[take red coin, take blue coin, own coin
            taken by the other]`` rewards.
        grid_size: side of the square grid (at least 2, so four distinct cells exist).

    Example::

        import jax, jaxmarl
        env = jaxmarl.make("coin_game", cnn=True, egocentric=True)
        obs, state = env.reset(jax.random.PRNGKey(0))
        obs["agent_0"].shape  # (3, 3, 4)
    """

    max_steps: int  # always set, unlike the base class's optional limit

    def __init__(
        self,
        num_inner_steps: int = C.NUM_INNER_STEPS,
        num_outer_steps: int = C.NUM_OUTER_STEPS,
        cnn: bool = False,
        egocentric: bool = False,
        shared_rewards: bool = False,
        payoff_matrix: Sequence[Sequence[float]] | np.ndarray = C.DEFAULT_PAYOFF,
        grid_size: int = C.GRID_SIZE,
    ) -> None:
        super().__init__(num_agents=2)
        self.agents = ["agent_0", "agent_1"]
        self.num_inner_steps = _check_int("num_inner_steps", num_inner_steps, 1)
        self.num_outer_steps = _check_int("num_outer_steps", num_outer_steps, 1)
        self.max_steps = self.num_inner_steps * self.num_outer_steps
        self.cnn = _check_bool("cnn", cnn)
        self.egocentric = _check_bool("egocentric", egocentric)
        self.shared_rewards = _check_bool("shared_rewards", shared_rewards)
        self.payoff_matrix = _check_payoff(payoff_matrix)
        self.grid_size = _check_int("grid_size", grid_size, 2)
        G = self.grid_size
        obs_shape = (G, G, C.NUM_CHANNELS) if self.cnn else (G * G * C.NUM_CHANNELS,)
        self.observation_spaces = {a: Box(0, 1, obs_shape, jnp.uint8) for a in self.agents}
        self.action_spaces = {a: Discrete(C.NUM_ACTIONS) for a in self.agents}

    @property
    def num_actions(self) -> int:
        """The number of actions, 5 (JaxMARL 0.2.0's name)."""
        return C.NUM_ACTIONS

    # ------------------------------------------------------------------- env API
    def reset_env(self, key: jax.Array) -> tuple[dict[str, jax.Array], State]:
        words = jax.random.bits(key, (NUM_LAYOUT_WORDS,), jnp.uint32)
        agent_pos, coin_pos = start_layout(words, self.grid_size)
        state = State(agent_pos=agent_pos, coin_pos=coin_pos, step=jnp.zeros((), jnp.int32))
        return self.get_obs(state), state

    def noop_action(self, agent: str) -> int:
        """``stay``: what an out-of-range action is replaced by (``info["invalid_action"]``)."""
        del agent
        return C.STAY

    def step_env(
        self, key: jax.Array, state: State, actions: dict[str, jax.Array]
    ) -> tuple[dict[str, jax.Array], State, dict[str, jax.Array], dict[str, jax.Array], dict]:
        G = self.grid_size
        # A step either respawns coins or starts a new inner episode (whose layout replaces
        # every piece), never both, so the two draws can share their random words.
        words = jax.random.bits(key, (max(NUM_RESPAWN_WORDS, NUM_LAYOUT_WORDS),), jnp.uint32)
        acts = jnp.stack([jnp.asarray(actions[a], jnp.int32) for a in self.agents])
        agent_pos = (state.agent_pos + jnp.asarray(C.MOVES)[acts]) % G

        # hits[i, c]: player i collects coin c.
        agent_cells = pos_to_cells(agent_pos, G)
        coin_cells = pos_to_cells(state.coin_pos, G)
        hits = agent_cells[:, None] == coin_cells[None, :]
        payoff = jnp.asarray(self.payoff_matrix, jnp.float32)
        taken_from = jnp.diagonal(hits[::-1])  # [blue took red's coin, red took blue's coin]
        reward = jnp.sum(hits * payoff[:, :2], axis=1) + taken_from * payoff[:, 2]
        if self.shared_rewards:
            reward = jnp.broadcast_to(jnp.sum(reward), (2,))
        coin_cells = respawn(words[:NUM_RESPAWN_WORDS], agent_cells, coin_cells, jnp.any(hits, axis=0), G)
        coin_pos = cells_to_pos(coin_cells, G)

        # A new inner episode starts with a fresh layout (except at the end of the outer
        # episode, which the base class resets, keeping the final observation).
        step = state.step + 1
        inner_done = step % self.num_inner_steps == 0
        new_layout = inner_done & (step < self.max_steps)
        fresh_agents, fresh_coins = start_layout(words[:NUM_LAYOUT_WORDS], G)
        state = State(
            agent_pos=jnp.where(new_layout, fresh_agents, agent_pos),
            coin_pos=jnp.where(new_layout, fresh_coins, coin_pos),
            step=step,
        )
        no_end = jnp.zeros((), bool)
        terminated = {a: no_end for a in self.agents}
        terminated["__all__"] = no_end
        info = {
            "inner_episode_done": inner_done,
            "own_coin_collected": {a: hits[i, i] for i, a in enumerate(self.agents)},
            "other_coin_collected": {a: hits[i, 1 - i] for i, a in enumerate(self.agents)},
        }
        return self.get_obs(state), state, self._to_dict(reward), terminated, info

    def get_obs(self, state: State) -> dict[str, jax.Array]:
        """Each player's grid ``(G, G, 4)`` (flattened to ``(G*G*4,)`` unless ``cnn``), uint8,
        channels ``[self, other player, own coin, other's coin]``; see the class docstring."""
        G = self.grid_size
        # pos[i] = [self, other player, own coin, other's coin] as seen by player i.
        pos = jnp.stack([state.agent_pos, state.agent_pos[::-1], state.coin_pos, state.coin_pos[::-1]], 1)
        if self.egocentric:
            pos = (pos - state.agent_pos[:, None, :] + G // 2) % G
        grids = self._grids(pos_to_cells(pos, G))
        return self._to_dict(grids if self.cnn else grids.reshape(2, -1))

    def get_global_state(self, state: State) -> jax.Array:
        """The true state, float32 ``(G*G*4 + 1,)``: the fixed-frame grid with channels
        ``[red player, blue player, red coin, blue coin]`` flattened, then the inner-episode
        progress ``(step % num_inner_steps) / num_inner_steps``."""
        cells = pos_to_cells(jnp.concatenate([state.agent_pos, state.coin_pos]), self.grid_size)
        grid = self._grids(cells[None])[0].reshape(-1).astype(jnp.float32)
        progress = (state.step % self.num_inner_steps) / self.num_inner_steps
        return jnp.concatenate([grid, jnp.asarray(progress, jnp.float32)[None]])

    def render(self, state: State, size: int = 144) -> jax.Array:
        """Draw the grid as an RGB ``uint8`` image: players as squares (halved when they
        share a cell), coins as discs in a lighter shade of their owner's colour; row 0 at
        the bottom, so "up" is up.

        Args:
            state: the state.
            size: the image's side in pixels, a Python ``int`` fixed at trace time. Each
                of the ``G`` cells per side gets ``c = size // G`` whole pixels, so the
                image is ``(G * c, G * c, 3)``, up to ``G - 1`` pixels smaller than
                ``size`` (the default draws 48-pixel cells on the 3 x 3 grid).
                ``ValueError`` unless ``size >= G``.

        Pure JAX, so a batch of states renders with ``jax.vmap``.
        """
        from jaxmarl.environments.coin_game.viewer import render_grid
        from jaxmarl.viz.raster import pixels_per_cell

        return render_grid(state, self.grid_size, pixels_per_cell(size, self.grid_size))

    # ------------------------------------------------------------------- helpers
    def _grids(self, cells: jax.Array) -> jax.Array:
        """One-hot grids ``(B, G, G, 4)`` uint8 from cell numbers ``(B, 4)`` (one per channel)."""
        G = self.grid_size
        onehot = cells[:, None, :] == jnp.arange(G * G)[None, :, None]  # (B, G*G, 4)
        return onehot.astype(jnp.uint8).reshape(cells.shape[0], G, G, C.NUM_CHANNELS)

    def _to_dict(self, values: jax.Array) -> dict[str, jax.Array]:
        return {a: values[i] for i, a in enumerate(self.agents)}
