"""Cleaner (Jumanji 1.1.2's ``Cleaner-v0``): cleaners sweep the dirty tiles of a random maze.

Jumanji treats the cleaners as one agent taking a joint action; here each cleaner is an
agent of the dict API with its own observation, action mask and (shared) reward. The
rules, defaults and instance generator are Jumanji's, and the oracle tests replay whole
episodes against it.
"""

from __future__ import annotations

import math
import numbers
from typing import Any, ClassVar

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.jumanji.cleaner import constants as C
from jaxmarl.environments.jumanji.cleaner.generator import REQUIRED_ATTRIBUTES, RandomGenerator
from jaxmarl.environments.jumanji.cleaner.types import State
from jaxmarl.environments.jumanji.common import agent_names, build_generator
from jaxmarl.environments.multi_agent_env import MultiAgentEnv
from jaxmarl.environments.spaces import Box, Discrete

__all__ = ["Cleaner"]


def _check_positive_int(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"Cleaner: {name} must be a positive integer, got {value!r}")
    return int(value)


class Cleaner(MultiAgentEnv):
    """Cleaners move through a maze and clean every tile they step on.

    The grid is a ``num_rows`` x ``num_cols`` maze (Jumanji's recursive-division maze,
    :class:`~jaxmarl.environments.jumanji.cleaner.RandomGenerator`) whose open tiles all
    start dirty except the top-left one; every cleaner starts on the top-left tile, which
    is clean. The team shares one reward: the number of tiles cleaned this step minus a
    penalty per step. Tiles: ``0`` dirty, ``1`` clean, ``2`` wall; locations are
    ``(row, col)``, row 0 at the top.

    - **Agents:** ``agent_0`` .. ``agent_{num_agents-1}``, one per cleaner, in Jumanji's
      order (row ``i`` of its ``agents_locations``).
    - **Actions:** ``Discrete(4)``, Jumanji's ids: ``0`` up ``(-1, 0)``, ``1`` right
      ``(0, +1)``, ``2`` down ``(+1, 0)``, ``3`` left ``(0, -1)``. There is no no-op.
    - **Action mask** (``get_avail_actions``, bool ``(4,)`` per agent, Jumanji's
      ``action_mask`` row): a move is legal when its target tile is inside the grid and
      not a wall. Cleaners never block each other (any number may share a tile).
    - **Dynamics:** all cleaners move at once. A cleaner whose action is masked stays
      where it is *and the episode terminates* (Jumanji's rule; ``info["illegal_move"]``
      flags it). Then every tile holding a cleaner becomes clean.
    - **Reward**, the same float32 for every agent: the number of tiles that changed this
      step (those cleaned) minus ``penalty_per_timestep`` (0.5 by default).
    - **Observation** of each agent, float32 ``(3 + num_rows * num_cols + 2 * num_agents,)``
      (``3 + 100 + 6 = 109`` by default), its own part first, then the part every agent
      shares (Jumanji's observation without the action mask):

      =========================  ===================  ===========================
      field                      shape                offset
      =========================  ===================  ===========================
      own location (row, col)    ``(2,)``             ``0``
      grid, row-major            ``(R * C,)``         ``2``
      all agents' locations      ``(A * 2,)``         ``2 + R * C``
      time                       ``(1,)``             ``2 + R * C + 2 * A``
      =========================  ===================  ===========================

      with ``R = num_rows``, ``C = num_cols``, ``A = num_agents``; locations are
      ``(row, col)`` pairs in agent order and the grid holds the tile values 0/1/2. The
      time is Jumanji's ``step_count`` divided by ``time_limit``, in ``[0, 1]`` (as the
      family's other tasks give it: a raw count grows past what a critic was trained on).
    - **Global state** (``get_global_state``), float32 ``(R * C + 2 * A + 1,)``: the shared
      part, i.e. the grid, all locations and the time.
    - **Episode end:** *terminated* for every agent when no dirty tile is left or when
      a cleaner chose a masked action; *truncated* (the base class's time limit,
      ``max_steps = time_limit``) once ``time_limit`` steps have been taken. Jumanji
      reports that time limit as a termination (discount 0); here it is a truncation, and
      a termination on the last step wins over it (``done``, not ``truncated``).
    - **Info:** ``illegal_move`` (dict of bool ``()`` per agent: its action was masked)
      and ``metrics`` (Jumanji's ``extras``, ``"last"`` value of the episode):
      ``ratio_dirty_tiles`` (dirty over open tiles) and ``num_dirty_tiles``.
    - **State** (:class:`~jaxmarl.environments.jumanji.cleaner.State`): ``grid``,
      ``agents_locations``, ``step`` and, as in Jumanji, ``action_mask`` (kept current by
      ``reset`` and ``step``; :meth:`compute_action_mask` recomputes it).

    Out-of-range actions act as ``0`` (up), the base class's no-op for ``Discrete``: like
    any masked move, that ends the episode when up is masked.

    Args:
        generator: makes the initial state from a key (any object keeping the generator
            protocol of :mod:`jaxmarl.environments.jumanji.common`, with the attributes
            ``num_rows``, ``num_cols`` and ``num_agents``). Defaults to
            ``RandomGenerator(num_rows, num_cols, num_agents)``.
        time_limit: steps per episode; defaults to ``num_rows * num_cols`` (Jumanji's).
        penalty_per_timestep: subtracted from the reward every step.
        num_rows: rows of the default generator's maze (10); not with ``generator``.
        num_cols: columns of the default generator's maze (10); not with ``generator``.
        num_agents: cleaners of the default generator (3); not with ``generator``.

    Raises:
        ValueError: for a bad size, agent count, ``time_limit`` or penalty, or a
            generator whose states do not have the shapes its attributes announce.
        TypeError: for a generator lacking the protocol, or given with generator keywords.

    Example::

        import jax, jax.numpy as jnp, jaxmarl
        env = jaxmarl.make("Cleaner-v0", num_agents=2)
        obs, state = env.reset(jax.random.PRNGKey(0))
        masks = env.get_avail_actions(state)
        actions = {a: jnp.argmax(masks[a]) for a in env.agents}  # a legal move each
        obs, state, reward, done, info = env.step(jax.random.PRNGKey(1), state, actions)
    """

    episode_metrics: ClassVar[dict[str, str]] = {"ratio_dirty_tiles": "last", "num_dirty_tiles": "last"}
    max_steps: int
    generator: Any
    num_rows: int
    num_cols: int
    time_limit: int
    penalty_per_timestep: float
    obs_size: int

    def __init__(
        self,
        generator: Any | None = None,
        time_limit: int | None = None,
        penalty_per_timestep: float = C.PENALTY_PER_TIMESTEP,
        num_rows: int | None = None,
        num_cols: int | None = None,
        num_agents: int | None = None,
    ) -> None:
        kwargs = {"num_rows": num_rows, "num_cols": num_cols, "num_agents": num_agents}
        self.generator = build_generator("Cleaner", generator, RandomGenerator, kwargs, REQUIRED_ATTRIBUTES)
        self.num_rows = _check_positive_int("generator.num_rows", self.generator.num_rows)
        self.num_cols = _check_positive_int("generator.num_cols", self.generator.num_cols)
        super().__init__(num_agents=_check_positive_int("generator.num_agents", self.generator.num_agents))
        if time_limit is None:
            time_limit = self.num_rows * self.num_cols
        self.time_limit = _check_positive_int("time_limit", time_limit)
        self.max_steps = self.time_limit
        if (
            isinstance(penalty_per_timestep, bool)
            or not isinstance(penalty_per_timestep, numbers.Real)
            or not math.isfinite(penalty_per_timestep)
        ):
            raise ValueError(
                f"Cleaner: penalty_per_timestep must be a finite number, got {penalty_per_timestep!r}"
            )
        self.penalty_per_timestep = float(penalty_per_timestep)
        self._check_generator_state()

        self.agents = agent_names(self.num_agents)
        R, Cc, A = self.num_rows, self.num_cols, self.num_agents
        location_high = np.array([R - 1, Cc - 1], np.float32)
        high = np.concatenate(
            [location_high, np.full(R * Cc, C.WALL), np.tile(location_high, A), [1.0]]
        ).astype(np.float32)
        self.obs_size = high.shape[0]
        self.observation_spaces = {a: Box(0.0, high, (self.obs_size,), jnp.float32) for a in self.agents}
        self.action_spaces = {a: Discrete(C.NUM_ACTIONS) for a in self.agents}

    def __repr__(self) -> str:
        return (
            f"Cleaner(num_rows={self.num_rows}, num_cols={self.num_cols}, num_agents={self.num_agents}, "
            f"time_limit={self.time_limit}, penalty_per_timestep={self.penalty_per_timestep}, "
            f"generator={self.generator!r})"
        )

    def _check_generator_state(self) -> None:
        """Trace the generator once (no computation) and check the state's shapes and dtypes."""
        state = jax.eval_shape(self.generator, jax.random.PRNGKey(0))
        expected = {
            "grid": ((self.num_rows, self.num_cols), jnp.int8),
            "agents_locations": ((self.num_agents, 2), jnp.int32),
            "step": ((), jnp.int32),
        }
        if not isinstance(state, State):
            raise ValueError(
                f"Cleaner: generator {type(self.generator).__name__} must return a "
                f"jaxmarl.environments.jumanji.cleaner.State, got {type(state).__name__}"
            )
        for field, (shape, dtype) in expected.items():
            value = getattr(state, field)
            if tuple(value.shape) != shape or value.dtype != dtype:
                raise ValueError(
                    f"Cleaner: generator {type(self.generator).__name__} returns State.{field} of shape "
                    f"{tuple(value.shape)} and dtype {value.dtype}; its num_rows, num_cols and num_agents "
                    f"announce shape {shape} and dtype {jnp.dtype(dtype)}"
                )

    # ------------------------------------------------------------------- env API
    def reset_env(self, key: jax.Array) -> tuple[dict[str, jax.Array], State]:
        state = self.generator(key)
        state = state.replace(action_mask=self.compute_action_mask(state))
        return self.get_obs(state), state

    def step_env(
        self, key: jax.Array, state: State, actions: dict[str, jax.Array]
    ) -> tuple[dict[str, jax.Array], State, dict[str, jax.Array], dict[str, jax.Array], dict]:
        del key  # the dynamics are deterministic
        action = jnp.stack([jnp.asarray(actions[a], jnp.int32) for a in self.agents])
        chosen = action[:, None] == jnp.arange(C.NUM_ACTIONS)  # (A, 4) one-hot
        legal = jnp.any(chosen & self._mask(state), axis=1)
        moves = jnp.sum(jnp.where(chosen[..., None], jnp.asarray(C.MOVES), 0), axis=1)  # (A, 2)
        locations = state.agents_locations + jnp.where(legal[:, None], moves, 0)
        grid = state.grid.at[locations[:, 0], locations[:, 1]].set(jnp.int8(C.CLEAN))
        cleaned = jnp.sum(grid != state.grid, dtype=jnp.int32)
        reward = cleaned.astype(jnp.float32) - jnp.float32(self.penalty_per_timestep)
        num_dirty = jnp.sum(grid == C.DIRTY, dtype=jnp.int32)
        state = State(grid=grid, agents_locations=locations, step=state.step + 1)
        state = state.replace(action_mask=self.compute_action_mask(state))

        end = ~jnp.all(legal) | (num_dirty == 0)
        terminated = {a: end for a in self.agents}
        terminated["__all__"] = end
        info = {
            "illegal_move": {a: ~legal[i] for i, a in enumerate(self.agents)},
            "metrics": self._metrics(grid, num_dirty),
        }
        rewards = {a: reward for a in self.agents}
        return self.get_obs(state), state, rewards, terminated, info

    def get_obs(self, state: State) -> dict[str, jax.Array]:
        """Each agent's float32 vector: its own location, then the grid, all locations and
        the time (see the class docstring for the offsets)."""
        locations = state.agents_locations.astype(jnp.float32)
        shared = self._shared(state)
        obs = jnp.concatenate(
            [locations, jnp.broadcast_to(shared, (self.num_agents, shared.shape[0]))], axis=1
        )
        return {a: obs[i] for i, a in enumerate(self.agents)}

    def get_avail_actions(self, state: State) -> dict[str, jax.Array]:
        """Per agent, bool ``(4,)``: which moves (up, right, down, left) stay inside the grid
        and off the walls (Jumanji's ``action_mask`` rows)."""
        mask = self._mask(state)
        return {a: mask[i] for i, a in enumerate(self.agents)}

    def get_global_state(self, state: State) -> jax.Array:
        """float32 ``(R * C + 2 * A + 1,)``: the grid, all agents' locations and the time
        ``step / time_limit``."""
        return self._shared(state)

    def render(self, state: State, size: int = 512) -> jax.Array:
        """Draw the maze as an RGB ``uint8`` image in the look of Jumanji's viewer: dirty
        tiles green, clean white, walls black, a tile with ``k`` cleaners red at opacity
        ``1 - 0.5**k`` over white, a one-pixel black frame.

        Args:
            state: the state.
            size: the image's longer side in pixels, a Python ``int`` fixed at trace time.
                Each tile gets ``c = size // max(num_rows, num_cols)`` whole pixels, so the
                image is ``(num_rows * c, num_cols * c, 3)``. ``ValueError`` unless
                ``size >= max(num_rows, num_cols)``.

        Pure JAX, so a batch of states renders with ``jax.vmap``.
        """
        from jaxmarl.environments.jumanji.cleaner.viewer import render_grid
        from jaxmarl.viz.raster import pixels_per_cell

        cell = pixels_per_cell(size, max(self.num_rows, self.num_cols))
        return render_grid(state.grid, state.agents_locations, cell)

    def compute_action_mask(self, state: State) -> jax.Array:
        """bool ``(A, 4)`` from ``state.grid`` and ``state.agents_locations`` (whatever
        ``state.action_mask`` holds): each move's target is inside the grid and not a wall."""
        target = state.agents_locations[:, None, :] + jnp.asarray(C.MOVES)[None]  # (A, 4, 2)
        row, col = target[..., 0], target[..., 1]
        inside = (row >= 0) & (row < self.num_rows) & (col >= 0) & (col < self.num_cols)
        tile = state.grid[jnp.clip(row, 0, self.num_rows - 1), jnp.clip(col, 0, self.num_cols - 1)]
        return inside & (tile != C.WALL)

    # ------------------------------------------------------------------- helpers
    def _mask(self, state: State) -> jax.Array:
        """``state.action_mask``, or computed when a hand-made state has none (``None``)."""
        return self.compute_action_mask(state) if state.action_mask is None else state.action_mask

    def _shared(self, state: State) -> jax.Array:
        """float32 ``(R * C + 2 * A + 1,)``: grid, all locations, ``step / time_limit``."""
        return jnp.concatenate(
            [
                state.grid.reshape(-1).astype(jnp.float32),
                state.agents_locations.reshape(-1).astype(jnp.float32),
                # step / time_limit, as XLA computes it: times the float32 reciprocal
                (state.step.astype(jnp.float32) * np.float32(1 / self.time_limit))[None],
            ]
        )

    @staticmethod
    def _metrics(grid: jax.Array, num_dirty: jax.Array) -> dict[str, jax.Array]:
        """Jumanji's ``extras`` as float32 scalars."""
        num_open = jnp.sum(grid != C.WALL, dtype=jnp.int32)
        return {
            "ratio_dirty_tiles": (num_dirty / num_open).astype(jnp.float32),
            "num_dirty_tiles": num_dirty.astype(jnp.float32),
        }
