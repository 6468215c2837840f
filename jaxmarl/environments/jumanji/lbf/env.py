"""LevelBasedForaging (Jumanji 1.1.2's ``LevelBasedForaging-v0``): foragers of different
levels cooperate to load food whose level may exceed any one of theirs.

The rules are Jumanji's (after Papoudakis et al. 2021's lb-foraging); here each forager
is an agent of the dict API with its own observation, action mask and reward.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any, ClassVar

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.jumanji.common import agent_names, build_generator
from jaxmarl.environments.jumanji.lbf import constants as C
from jaxmarl.environments.jumanji.lbf.generator import REQUIRED_ATTRIBUTES, RandomGenerator, check_sizes
from jaxmarl.environments.jumanji.lbf.types import State
from jaxmarl.environments.multi_agent_env import MultiAgentEnv
from jaxmarl.environments.spaces import Box, Discrete

__all__ = ["LevelBasedForaging"]

_TASK = "LevelBasedForaging"


def _default_generator(**kwargs: Any) -> RandomGenerator:
    """The env's default generator, Jumanji's: ``RandomGenerator(grid_size=8, fov=grid_size,
    num_agents=2, num_food=2, max_agent_level=2, force_coop=True)``, with ``kwargs`` on top."""
    options: dict[str, Any] = {
        "grid_size": C.GRID_SIZE,
        "num_agents": C.NUM_AGENTS,
        "num_food": C.NUM_FOOD,
        "max_agent_level": C.MAX_AGENT_LEVEL,
        "force_coop": C.FORCE_COOP,
    }
    options.update(kwargs)
    options.setdefault("fov", options["grid_size"])
    return RandomGenerator(**options)


def _check_bool(name: str, value: Any) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{_TASK}: {name} must be a bool, got {value!r}")
    return bool(value)


class LevelBasedForaging(MultiAgentEnv):
    """Foragers on a grid load food together; an item is eaten when the levels of the
    foragers loading it add up to its level.

    - **Board:** a ``grid_size`` x ``grid_size`` grid (8 x 8 by default) of ``(row, col)``
      cells, row 0 at the top. It holds ``num_agents`` foragers (2) and ``num_food`` food
      items (2), each with a level. An eaten item leaves the board. Instances come from the
      generator (:class:`~jaxmarl.environments.jumanji.lbf.generator.RandomGenerator` by
      default: food off the edge, no two items side by side, agent levels in ``1 ..
      max_agent_level``; with ``force_coop`` every item's level is the sum of the three
      lowest agent levels).
    - **Agents:** ``agent_0 .. agent_{n-1}``, Jumanji's agents in order.
    - **Actions:** ``Discrete(6)``, Jumanji's numbering: ``0`` noop, ``1`` up (row - 1),
      ``2`` down (row + 1), ``3`` left (col - 1), ``4`` right (col + 1), ``5`` load.
    - **Moves** (all agents at once): a move is cancelled (the agent stays) if its target
      cell is off the grid, holds an uneaten food item, or holds another agent *before*
      the move (so an agent cannot follow another into the cell it leaves). Then agents
      that picked the same target all stay where they were. Any action is accepted; the
      mask only tells policies which ones do something.
    - **Loading:** an agent whose action is ``load`` loads every uneaten item next to it
      (sharing a side, after the moves). An item is eaten when the levels of the agents
      loading it add up to at least its level.
    - **Action mask** (``get_avail_actions``, equal to Jumanji's ``action_mask`` rows):
      noop always; a move unless its target is off the grid, an uneaten item or another
      agent; load when an uneaten item is next to the agent.
    - **Rewards**, per agent, Jumanji's: for each item ``f`` eaten this step, every agent
      ``i`` loading it gets ``level_i * level_f``. ``penalty`` is subtracted from *every*
      agent's reward once per item that some agents loaded but whose summed level fell
      short. With ``normalize_reward`` (default), item ``f``'s terms are divided by
      ``L_f * total``, ``L_f`` the summed level of the agents loading it and ``total`` the
      summed level of all items at the start: the loaders share ``level_f / total`` in
      proportion to their levels, and an episode where everything is eaten pays 1 in all.
    - **Observation** of agent ``i``, float32, Jumanji's ``agents_view[i]`` flattened, then
      the shared time: Jumanji's ``step_count`` divided by ``time_limit`` (in ``[0, 1]``;
      see below). Vector observer (default), size ``3 * (num_food + num_agents) + 1``:

      - offset ``0``: the food items in order, ``(num_food, 3)``;
      - offset ``3 * num_food``: the agent itself, ``(3,)``;
      - offset ``3 * num_food + 3``: the other agents in order, ``(num_agents - 1, 3)``;
      - offset ``3 * (num_food + num_agents)``: ``step / time_limit``, ``(1,)``.

      Each triple is ``(row, col, level)`` in the agent's view frame, ``row' = row - r_i
      + min(fov, r_i)`` (the same for columns, ``(r_i, c_i)`` the agent's cell): ``0 ..
      min(2 fov, grid_size - 1)``. A piece farther than ``fov`` in row or column (a
      Chebyshev distance above ``fov``), or an eaten item, reads ``(-1, -1, 0)``.
      Grid observer (``grid_observation=True``), size ``3 * (2 fov + 1)**2 + 1``: three
      ``(2 fov + 1, 2 fov + 1)`` layers centred on the agent, flattened in order (layer,
      row, col): agents' levels, uneaten items' levels, and accessibility (1 for a cell on
      the grid with no agent or item, 0 otherwise, including the agent's own cell and
      cells off the grid); then ``step / time_limit``.
      The step count is scaled because policies learn badly from the raw count: a critic
      bootstrapping from the last observation of a truncated episode extrapolates to an
      input beyond anything it was trained on, and PPO then learns to avoid eating (which
      ends the episode) in favour of reaching the time limit.
    - **Episode end:** terminated (every agent) when every item has been eaten; truncated
      when ``step`` reaches ``time_limit`` (``max_steps``; 100 by default). When both happen
      on one step the episode is terminated, as in Jumanji.
    - **Metrics:** ``info["metrics"]["percent_eaten"]`` (``"last"``): the share of items
      eaten, in percent (Jumanji's ``extras``).
    - **Global state** (``get_global_state``), float32 ``(3 * num_agents + 3 * num_food +
      1,)``: each agent's ``(row, col, level)``, each item's ``(row, col, level)``
      (``(-1, -1, 0)`` once eaten), then ``step / time_limit``.

    Args:
        generator: where instances come from (see
            :mod:`jaxmarl.environments.jumanji.common`); ``None``: a
            :class:`RandomGenerator` built from the keywords below.
        time_limit: steps before the episode is truncated.
        grid_observation: use the grid observer instead of the vector observer.
        normalize_reward: divide rewards as described above.
        penalty: subtracted from every agent's reward per failed loading of an item.
        grid_size: (default generator) side of the grid, at least 5; default 8.
        fov: (default generator) field of view, ``1 .. grid_size``; default ``grid_size``.
        num_agents: (default generator) number of foragers; default 2.
        num_food: (default generator) number of food items; default 2.
        max_agent_level: (default generator) highest agent level, at least 2; default 2.
        force_coop: (default generator) give every item the summed level of the three
            lowest agents; default True.

    Raises:
        ValueError: for bad keyword values or a generator configuration that cannot be
            placed (see :class:`RandomGenerator`).
        TypeError: for a generator that does not keep the protocol, or both a generator
            and generator keywords.

    Example::

        import jax, jaxmarl
        env = jaxmarl.make("LevelBasedForaging-v0", num_agents=4, grid_size=12)
        obs, state = env.reset(jax.random.PRNGKey(0))
        obs["agent_0"].shape  # (19,): 2 items, 4 agents, the time
    """

    episode_metrics: ClassVar[Mapping[str, str]] = {"percent_eaten": "last"}
    max_steps: int

    def __init__(
        self,
        generator: Any | None = None,
        time_limit: int = C.TIME_LIMIT,
        grid_observation: bool = False,
        normalize_reward: bool = True,
        penalty: float = 0.0,
        grid_size: int | None = None,
        fov: int | None = None,
        num_agents: int | None = None,
        num_food: int | None = None,
        max_agent_level: int | None = None,
        force_coop: bool | None = None,
    ) -> None:
        generator_kwargs = {
            "grid_size": grid_size,
            "fov": fov,
            "num_agents": num_agents,
            "num_food": num_food,
            "max_agent_level": max_agent_level,
            "force_coop": force_coop,
        }
        self.generator = build_generator(
            _TASK, generator, _default_generator, generator_kwargs, REQUIRED_ATTRIBUTES
        )
        g = self.generator
        self.grid_size, self.fov, n, self.num_food, self.max_agent_level = check_sizes(
            _TASK, g.grid_size, g.fov, g.num_agents, g.num_food, g.max_agent_level
        )
        super().__init__(num_agents=n)
        if isinstance(time_limit, bool) or not isinstance(time_limit, (int, np.integer)) or time_limit < 1:
            raise ValueError(f"{_TASK}: time_limit must be an integer >= 1, got {time_limit!r}")
        self.time_limit = self.max_steps = int(time_limit)
        self.grid_observation = _check_bool("grid_observation", grid_observation)
        self.normalize_reward = _check_bool("normalize_reward", normalize_reward)
        number = isinstance(penalty, (int, float, np.integer, np.floating)) and not isinstance(penalty, bool)
        if not number or not np.isfinite(penalty):
            raise ValueError(f"{_TASK}: penalty must be a finite number, got {penalty!r}")
        self.penalty = float(penalty)

        self.agents = agent_names(n)
        low, high = self._observation_bounds()
        self.observation_spaces = {a: Box(low, high, low.shape, jnp.float32) for a in self.agents}
        self.action_spaces = {a: Discrete(C.NUM_ACTIONS) for a in self.agents}
        # other[i]: the agents after agent i in its observation, in order.
        others = [[j for j in range(n) if j != i] for i in range(n)]
        self._others = np.array(others, np.int32).reshape(n, n - 1)

    def __repr__(self) -> str:
        return f"LevelBasedForaging(generator={self.generator!r}, time_limit={self.time_limit})"

    # ---------------------------------------------------------------- spaces
    def _observation_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Per-entry bounds of an observation (Jumanji's level bounds: agents up to
        ``max_agent_level``, items up to ``num_agents * max_agent_level``)."""
        n, f = self.num_agents, self.num_food
        agent_max, food_max = self.max_agent_level, n * self.max_agent_level
        if self.grid_observation:
            view = (2 * self.fov + 1) ** 2
            high = np.concatenate([np.full(view, agent_max), np.full(view, food_max), np.ones(view)])
            low = np.zeros_like(high)
        else:
            far = min(2 * self.fov, self.grid_size - 1)
            high = np.array([far, far, food_max] * f + [far, far, agent_max] * n)
            low = np.tile([-1, -1, 0], f + n)
        return (
            np.append(low, 0).astype(np.float32),
            np.append(high, 1).astype(np.float32),
        )

    # -------------------------------------------------------------- env API
    def reset_env(self, key: jax.Array) -> tuple[dict[str, jax.Array], State]:
        state = self.generator(key)
        return self.get_obs(state), state

    def step_env(
        self, key: jax.Array, state: State, actions: dict[str, jax.Array]
    ) -> tuple[dict[str, jax.Array], State, dict[str, jax.Array], dict[str, jax.Array], dict]:
        del key  # the dynamics are deterministic
        acts = jnp.stack([jnp.asarray(actions[a], jnp.int32) for a in self.agents])
        agent_pos = self._move(state, acts)
        loaders = self._loaders(agent_pos, acts == C.LOAD, state)  # (F, N) levels loading each item
        eaten_now = jnp.sum(loaders, axis=1) >= state.food_level
        reward = self._reward(loaders, eaten_now, state.food_level)
        state = state.replace(
            agent_pos=agent_pos, food_eaten=state.food_eaten | eaten_now, step=state.step + 1
        )

        all_eaten = jnp.all(state.food_eaten)
        terminated = {a: all_eaten for a in self.agents}
        terminated["__all__"] = all_eaten
        percent = (jnp.sum(state.food_eaten) / self.num_food) * 100
        info = {"metrics": {"percent_eaten": percent.astype(jnp.float32)}}
        return self.get_obs(state), state, self._to_dict(reward), terminated, info

    def get_obs(self, state: State) -> dict[str, jax.Array]:
        """Each agent's observation: its row of :meth:`agents_view`, flattened, then ``step /
        time_limit`` (float32; see the class docstring)."""
        view = self.agents_view(state).reshape(self.num_agents, -1).astype(jnp.float32)
        step = jnp.broadcast_to(self._time(state), (self.num_agents, 1))
        return self._to_dict(jnp.concatenate([view, step], axis=1))

    def get_avail_actions(self, state: State) -> dict[str, jax.Array]:
        """Per-agent bool ``(6,)`` masks, Jumanji's ``action_mask`` rows."""
        return self._to_dict(self.action_mask(state))

    def get_global_state(self, state: State) -> jax.Array:
        """float32 ``(3 * num_agents + 3 * num_food + 1,)``: each agent's ``(row, col, level)``,
        each item's ``(row, col, level)`` (``(-1, -1, 0)`` once eaten), ``step / time_limit``."""
        agents = jnp.concatenate([state.agent_pos, state.agent_level[:, None]], axis=1)
        food = jnp.concatenate([state.food_pos, state.food_level[:, None]], axis=1)
        food = jnp.where(state.food_eaten[:, None], jnp.array(C.HIDDEN), food)
        pieces = jnp.concatenate([agents.ravel(), food.ravel()]).astype(jnp.float32)
        return jnp.concatenate([pieces, self._time(state)[None]])

    def render(self, state: State, size: int = 512) -> jax.Array:
        """Draw the board as an RGB ``uint8`` image, after Jumanji's viewer (see
        :mod:`~jaxmarl.environments.jumanji.lbf.viewer`).

        Args:
            state: the state.
            size: the image's side in pixels, a Python ``int`` fixed at trace time. Each of
                the ``G = grid_size`` cells per side gets ``c = size // G`` whole pixels, so
                the image is ``(G * c, G * c, 3)`` (512 on the default 8 x 8 grid).
                ``ValueError`` unless ``size >= G``.

        Pure JAX, so a batch of states renders with ``jax.vmap``.
        """
        from jaxmarl.environments.jumanji.lbf.viewer import render_grid
        from jaxmarl.viz.raster import pixels_per_cell

        return render_grid(state, self.grid_size, pixels_per_cell(size, self.grid_size))

    # ------------------------------------------------------ Jumanji's views
    def agents_view(self, state: State) -> jax.Array:
        """Jumanji's ``Observation.agents_view``, int32: ``(num_agents, 3 * (num_food +
        num_agents))`` from the vector observer, ``(num_agents, 3, 2 fov + 1, 2 fov + 1)``
        from the grid observer."""
        return self._grid_view(state) if self.grid_observation else self._vector_view(state)

    def action_mask(self, state: State) -> jax.Array:
        """Jumanji's ``Observation.action_mask``, bool ``(num_agents, 6)``."""
        pos = state.agent_pos
        targets = pos[:, None, :] + jnp.asarray(C.MOVES)[None]  # (N, 6, 2)
        off_grid = jnp.any((targets < 0) | (targets >= self.grid_size), axis=-1)
        other = ~np.eye(self.num_agents, dtype=bool)[:, None, :]  # (N, 1, N)
        agent_there = jnp.any(jnp.all(targets[:, :, None] == pos[None, None], axis=-1) & other, axis=-1)
        food_there = jnp.all(targets[:, :, None] == state.food_pos[None, None], axis=-1)
        food_there = jnp.any(food_there & ~state.food_eaten, axis=-1)
        mask = ~(off_grid | agent_there | food_there)
        food_next = jnp.any(self._adjacent(pos, state.food_pos) & ~state.food_eaten, axis=1)
        return mask.at[:, C.LOAD].set(mask[:, C.LOAD] & food_next)

    # ------------------------------------------------------------- helpers
    def _time(self, state: State) -> jax.Array:
        """``step / time_limit``, float32 ``()``."""
        return state.step.astype(jnp.float32) / jnp.float32(self.time_limit)

    @staticmethod
    def _adjacent(agent_pos: jax.Array, food_pos: jax.Array) -> jax.Array:
        """``(N, F)``: agent ``i`` and item ``f`` share a side."""
        return jnp.sum(jnp.abs(agent_pos[:, None] - food_pos[None]), axis=-1) == 1

    def _move(self, state: State, acts: jax.Array) -> jax.Array:
        """The agents' cells after their moves (see the class docstring)."""
        pos = state.agent_pos
        other = ~np.eye(self.num_agents, dtype=bool)
        target = pos + jnp.asarray(C.MOVES)[acts]
        off_grid = jnp.any((target < 0) | (target >= self.grid_size), axis=-1)
        agent_there = jnp.any(jnp.all(target[:, None] == pos[None], axis=-1) & other, axis=-1)
        food_there = jnp.all(target[:, None] == state.food_pos[None], axis=-1) & ~state.food_eaten
        moved = jnp.where((off_grid | agent_there | jnp.any(food_there, axis=-1))[:, None], pos, target)
        clash = jnp.any(jnp.all(moved[:, None] == moved[None], axis=-1) & other, axis=-1)
        return jnp.where(clash[:, None], pos, moved)

    def _loaders(self, agent_pos: jax.Array, loading: jax.Array, state: State) -> jax.Array:
        """int32 ``(F, N)``: agent ``i``'s level if it loads uneaten item ``f`` (next to it),
        else 0."""
        loads = self._adjacent(agent_pos, state.food_pos) & loading[:, None] & ~state.food_eaten
        return jnp.where(loads, state.agent_level[:, None], 0).T

    def _reward(self, loaders: jax.Array, eaten_now: jax.Array, food_level: jax.Array) -> jax.Array:
        """float32 ``(N,)``: Jumanji's per-agent reward (see the class docstring)."""
        loaded = jnp.sum(loaders, axis=1)  # (F,)
        short = (loaded != 0) & (loaded < food_level)
        penalty = jnp.where(short, jnp.float32(self.penalty), jnp.float32(0.0))
        reward = (loaders * eaten_now[:, None] * food_level[:, None]).astype(jnp.float32) - penalty[:, None]
        if self.normalize_reward:
            scale = (loaded * jnp.sum(food_level)).astype(jnp.float32)
            reward = jnp.nan_to_num(reward / scale[:, None])
        return jnp.sum(reward, axis=0)

    def _vector_view(self, state: State) -> jax.Array:
        """Jumanji's vector observer: int32 ``(N, 3 * (F + N))``."""
        pos = state.agent_pos
        frame = jnp.minimum(self.fov, pos) - pos  # add to a cell to get it in the view frame

        def triples(cells: jax.Array, levels: jax.Array, shown: jax.Array) -> jax.Array:
            """``(N, M, 3)``: the ``M`` pieces as each agent sees them."""
            near = jnp.all(jnp.abs(cells[None] - pos[:, None]) <= self.fov, axis=-1) & shown
            seen = jnp.concatenate(
                [cells[None] + frame[:, None], jnp.broadcast_to(levels[None, :, None], (*near.shape, 1))],
                axis=-1,
            )
            return jnp.where(near[..., None], seen, jnp.array(C.HIDDEN))

        food = triples(state.food_pos, state.food_level, ~state.food_eaten)
        agents = triples(pos, state.agent_level, jnp.ones((1, self.num_agents), bool))
        me = jnp.arange(self.num_agents)
        ordered = jnp.concatenate([agents[me, me][:, None], agents[me[:, None], self._others]], axis=1)
        return jnp.concatenate([food, ordered], axis=1).reshape(self.num_agents, -1).astype(jnp.int32)

    def _grid_view(self, state: State) -> jax.Array:
        """Jumanji's grid observer: int32 ``(N, 3, 2 fov + 1, 2 fov + 1)``."""
        fov, side = self.fov, self.grid_size + 2 * self.fov
        agent_pos, food_pos = state.agent_pos + fov, state.food_pos + fov
        zeros = jnp.zeros((side, side), jnp.int32)
        agents = zeros.at[agent_pos[:, 0], agent_pos[:, 1]].add(state.agent_level)
        food = zeros.at[food_pos[:, 0], food_pos[:, 1]].add(state.food_level * ~state.food_eaten)
        on_grid = np.zeros((side, side), bool)
        on_grid[fov : fov + self.grid_size, fov : fov + self.grid_size] = True
        access = ((agents + food) == 0) & on_grid
        layers = jnp.stack([agents, food, access.astype(jnp.int32)])
        width = 2 * fov + 1
        cut = functools.partial(jax.lax.dynamic_slice, layers, slice_sizes=(C.NUM_LAYERS, width, width))
        return jax.vmap(lambda p: cut((0, p[0], p[1])))(state.agent_pos)

    def _to_dict(self, values: jax.Array) -> dict[str, jax.Array]:
        return {a: values[i] for i, a in enumerate(self.agents)}
