"""RobotWarehouse: robots fetch requested shelves and carry them to the goals (Jumanji 1.1.2's
``RobotWarehouse-v0``, after the RWARE of Papoudakis et al. 2021), each robot an agent."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.jumanji.common import agent_names, build_generator
from jaxmarl.environments.jumanji.robot_warehouse import constants as C
from jaxmarl.environments.jumanji.robot_warehouse.generator import (
    REQUIRED_ATTRIBUTES,
    RandomGenerator,
    check_int,
    choose_distinct,
)
from jaxmarl.environments.jumanji.robot_warehouse.types import State
from jaxmarl.environments.multi_agent_env import MultiAgentEnv
from jaxmarl.environments.spaces import Box, Discrete

__all__ = ["RobotWarehouse"]

_TASK = "RobotWarehouse"
_VALUE_BITS = 16  # observation values (cells, 0/1 flags) are below 2**16; see _views


class RobotWarehouse(MultiAgentEnv):
    """Robots in a warehouse fetch the requested shelves and bring them to the goal cells.

    The floor is an ``H x W`` grid (``H = (column_height + 1) * shelf_rows + 2``, ``W = 3 *
    shelf_columns + 1``; 20 x 10 by default) of shelf clusters, aisles ("highways") and,
    in the middle of the bottom row, two goal cells (see
    :mod:`~jaxmarl.environments.jumanji.robot_warehouse.generator` for the layout). Every
    non-highway cell starts with a shelf (80 by default); ``request_queue_size`` distinct
    shelves are requested at any time (8 by default). A requested shelf standing on a goal
    cell counts as delivered: the team scores 1, and a new shelf, drawn uniformly among
    those not requested, takes its place in the queue. Rules, instance and randomness are
    Jumanji 1.1.2's, so the same keys and actions give the same episodes.

    - **Agents:** ``agent_0 .. agent_{n-1}`` (``num_agents``, 4 by default), one per robot,
      in Jumanji's order.
    - **Actions:** ``Discrete(5)``, Jumanji's numbering: ``0`` no-op, ``1`` forward (one cell
      the way the robot faces, staying put against a wall), ``2`` turn left, ``3`` turn
      right, ``4`` toggle load. Robots act one after another in agent order within a step
      (``agent_0`` first), each on the floor the earlier ones left.
    - **Shelves:** a robot without a shelf drives under shelves freely. Toggle load picks up
      the shelf on the robot's cell, if any. A no-op or a toggle load on a non-highway cell
      puts the carried shelf down (Jumanji's rule: a no-op there drops it too, and so does
      a masked action, which is replaced by a no-op); on a highway the robot keeps it.
      A carried shelf moves with its robot.
    - **Action mask** (``get_avail_actions``, Jumanji's ``action_mask`` rows): everything is
      legal except *forward* for a robot that carries a shelf and faces, inside the floor,
      a cell holding another shelf. A masked action is played as the no-op (as Jumanji).
      Actions outside ``[0, 5)`` are the no-op too, flagged in ``info["invalid_action"]``.
    - **Collisions:** robots do not block each other: a move onto another robot's cell
      happens. After all robots moved, a robot whose cell does not hold its id on the floor
      (another robot moved onto it, or it moved onto a cell and then the robot there moved
      away, clearing it) has collided, and a collision ends the episode (Jumanji's JAX
      rule; the original RWARE resolves them instead).
    - **Reward:** the number of requested shelves on the goal cells after the moves (0, 1 or
      2), shared: every agent receives it, float32. Goals are checked in order (row
      ``H - 1``, columns ``W // 2 - 1`` then ``W // 2``); each delivery draws its
      replacement with ``key, k = split(state.key)``; ``choice(k, not_requested)``.
    - **Episode end:** a collision terminates the episode (``done`` for every agent,
      ``info["truncated"]`` false). After ``time_limit`` steps (500) it is truncated:
      ``max_steps = time_limit``, ``info["truncated"]`` true. A collision on the last step
      counts as the termination (Jumanji ends the episode there too, with discount 0 in
      both cases).
    - **Observation** of agent ``i``, float32 ``(F + 1,)`` with ``F = 8 + 5 * (V - 1) + 2 * V``
      and ``V = (2 * sensor_range + 1) ** 2`` cells in its view (67 by default): Jumanji's
      ``agents_view[i]`` as Jumanji gives it, then the shared time, Jumanji's
      ``step_count`` divided by ``time_limit`` (in ``[0, 1]``, as the family's other tasks
      give it: IPPO learns badly from the raw count, see the docs page):

      ====================  ================  ===================================================
      offset                size              field
      ====================  ================  ===================================================
      0                     2                 the robot's ``(row, col)``
      2                     1                 it carries a shelf (0/1)
      3                     4                 its direction, one-hot (up, right, down, left)
      7                     1                 its cell is a highway (0/1)
      8                     5 * (V - 1)       per other cell of its view, row-major: a robot
                                              there (0/1), that robot's one-hot direction
      8 + 5 * (V - 1)       2 * V             per cell of its view (its own included): a shelf
                                              there (0/1), that shelf is requested (0/1)
      F                     1                 ``step_count / time_limit``
      ====================  ================  ===================================================

      The view is the ``(2 * sensor_range + 1)``-cell square centred on the robot; cells
      outside the floor read as empty. On the step that ends an episode by a collision
      (``info["final_obs"]``) the views are Jumanji's too: a robot whose cell no longer
      shows it gets a 5-feature block for its own cell as well, which pushes the later
      features 5 places on; Jumanji's writer (``dynamic_update_slice``) moves a write that
      would pass the end back to end there, so the last blocks overwrite each other (and,
      with ``sensor_range=0``, the robot's own direction and highway features).
    - **Global state** (``get_global_state``), float32 ``(n * F + 2 * H * W + 1,)``: every
      agent's ``agents_view`` row in agent order, then the floor row-major as a shelf map
      (0/1) and a requested-shelf map (0/1), then ``step_count / time_limit``.
    - **Metrics** (``info["metrics"]``): ``deliveries`` (shelves delivered this step, summed
      over the episode) and ``collision`` (1 when the episode ended by a collision, the
      value on its last step).
    - **Randomness:** ``reset(key)`` calls the generator with ``key`` (Jumanji's ``reset``),
      so the same key gives Jumanji's instance. New requests are drawn from ``State.key``
      as Jumanji draws them; the key ``step`` receives is used only for the automatic reset.

    Args:
        generator: a generator keeping the protocol of
            :mod:`jaxmarl.environments.jumanji.common` (with the attributes in
            ``robot_warehouse.REQUIRED_ATTRIBUTES``), or ``None`` for a
            :class:`RandomGenerator` built from the keywords below.
        time_limit: steps before the episode is truncated (>= 1).
        shelf_rows: bands of shelf clusters (``RandomGenerator``; 2).
        shelf_columns: shelf clusters per band, odd (3).
        column_height: cluster height in cells (8).
        num_agents: robots (4).
        sensor_range: radius of a robot's view in cells (1: a 3 x 3 view).
        request_queue_size: shelves requested at a time (8), below the number of shelves.

    Raises:
        ValueError: for a bad setting (see :class:`RandomGenerator`) or a generator whose
            attributes disagree with each other.
        TypeError: for a generator that does not keep the protocol, or one given together
            with generator keywords.

    Example::

        import jax, jaxmarl
        env = jaxmarl.make("RobotWarehouse-v0")
        obs, state = env.reset(jax.random.PRNGKey(0))
        masks = env.get_avail_actions(state)
        actions = {a: jax.numpy.int32(1) for a in env.agents}  # everyone forward
        obs, state, reward, done, info = env.step(jax.random.PRNGKey(1), state, actions)
    """

    episode_metrics: ClassVar[Mapping[str, str]] = {"deliveries": "sum", "collision": "last"}
    max_steps: int  # always set: time_limit

    def __init__(
        self,
        generator: Any | None = None,
        time_limit: int = C.TIME_LIMIT,
        shelf_rows: int | None = None,
        shelf_columns: int | None = None,
        column_height: int | None = None,
        num_agents: int | None = None,
        sensor_range: int | None = None,
        request_queue_size: int | None = None,
    ) -> None:
        generator_kwargs = {
            "shelf_rows": shelf_rows,
            "shelf_columns": shelf_columns,
            "column_height": column_height,
            "num_agents": num_agents,
            "sensor_range": sensor_range,
            "request_queue_size": request_queue_size,
        }
        self.generator = build_generator(
            _TASK, generator, RandomGenerator, generator_kwargs, REQUIRED_ATTRIBUTES
        )
        self.time_limit = check_int("time_limit", time_limit, 1)
        self.max_steps = self.time_limit
        gen = self.generator
        n = check_int("generator.num_agents", gen.num_agents, 1)
        super().__init__(num_agents=n)
        self.agents = agent_names(n)

        size = tuple(np.asarray(gen.grid_size).tolist())
        if len(size) != 2 or any(isinstance(s, bool) or not isinstance(s, int) or s < 1 for s in size):
            raise ValueError(f"{_TASK}: generator.grid_size must be two positive ints, got {gen.grid_size!r}")
        self.grid_size: tuple[int, int] = (size[0], size[1])
        height, width = self.grid_size
        self.highways = np.asarray(gen.highways, bool)
        if self.highways.shape != self.grid_size:
            raise ValueError(
                f"{_TASK}: generator.highways has shape {self.highways.shape}, not {self.grid_size}"
            )
        self.goals = np.asarray(gen.goals, np.int32)
        inside = (self.goals >= 0).all() and (self.goals < np.array(self.grid_size)).all()
        if self.goals.ndim != 2 or self.goals.shape[1:] != (2,) or len(self.goals) == 0 or not inside:
            raise ValueError(
                f"{_TASK}: generator.goals must be (row, col) cells of the floor, got {gen.goals!r}"
            )
        self.num_shelves = check_int("generator.num_shelves", gen.num_shelves, 1)
        self.request_queue_size = check_int("generator.request_queue_size", gen.request_queue_size, 1)
        if self.request_queue_size >= self.num_shelves:
            raise ValueError(
                f"{_TASK}: request_queue_size={self.request_queue_size} must be below the number of shelves "
                f"({self.num_shelves})"
            )
        if n > height * width:
            raise ValueError(f"{_TASK}: {n} robots do not fit on the {height} x {width} floor")
        self.sensor_range = check_int("generator.sensor_range", gen.sensor_range, 0)

        side = 2 * self.sensor_range + 1
        self.view_cells = side * side
        self.num_obs_features = (
            C.OWN_FEATURES
            + C.AGENT_CELL_FEATURES * (self.view_cells - 1)
            + C.SHELF_CELL_FEATURES * self.view_cells
        )
        high = np.ones(self.num_obs_features + 1, np.float32)
        high[0], high[1] = height - 1, width - 1
        self.observation_spaces = {a: Box(0.0, high, high.shape, jnp.float32) for a in self.agents}
        self.action_spaces = {a: Discrete(C.NUM_ACTIONS) for a in self.agents}

    def __repr__(self) -> str:
        return f"RobotWarehouse(generator={self.generator!r}, time_limit={self.time_limit})"

    # ------------------------------------------------------------------- env API
    def reset_env(self, key: jax.Array) -> tuple[dict[str, jax.Array], State]:
        state = self.generator(key)
        return self.get_obs(state), state

    def step_env(
        self, key: jax.Array, state: State, actions: dict[str, jax.Array]
    ) -> tuple[dict[str, jax.Array], State, dict[str, jax.Array], dict[str, jax.Array], dict]:
        del key  # new requests come from state.key, as in Jumanji
        acts = jnp.stack([jnp.asarray(actions[a], jnp.int32) for a in self.agents])
        legal = jnp.take_along_axis(self._action_masks(state), acts[:, None], axis=1)[:, 0]
        acts = jnp.where(legal, acts, C.NOOP)
        state, collided = self._move(state, acts)
        state, delivered = self._deliver(state)
        state = state.replace(step=state.step + 1)

        collision = jnp.any(collided)
        reward = delivered.astype(jnp.float32)
        terminated = {a: collision for a in self.agents}
        terminated["__all__"] = collision
        info = {"metrics": {"deliveries": reward, "collision": collision.astype(jnp.float32)}}
        rewards = {a: reward for a in self.agents}
        return self.get_obs(state), state, rewards, terminated, info

    def get_obs(self, state: State) -> dict[str, jax.Array]:
        """Each agent's ``agents_view`` row then ``step_count / time_limit``, float32 ``(F + 1,)``
        (see the class docstring for the layout)."""
        views = self._views(state).astype(jnp.float32)
        step = jnp.broadcast_to(self._time(state), (self.num_agents, 1))
        obs = jnp.concatenate([views, step], axis=1)
        return {a: obs[i] for i, a in enumerate(self.agents)}

    def get_avail_actions(self, state: State) -> dict[str, jax.Array]:
        """Per agent, bool ``(5,)``: Jumanji's ``action_mask`` row (only *forward* can be
        masked: a loaded robot facing another shelf)."""
        masks = self._action_masks(state)
        return {a: masks[i] for i, a in enumerate(self.agents)}

    def get_global_state(self, state: State) -> jax.Array:
        """float32 ``(n * F + 2 * H * W + 1,)``: all agents' views, the shelf map, the
        requested-shelf map and ``step_count / time_limit`` (see the class docstring)."""
        shelf_map = state.shelf_grid > 0
        requested = self._requested(state.request_queue)
        requested_map = shelf_map & requested[jnp.maximum(state.shelf_grid - 1, 0)]
        parts = [
            self._views(state).reshape(-1),
            shelf_map.reshape(-1),
            requested_map.reshape(-1),
            self._time(state)[None],
        ]
        return jnp.concatenate([p.astype(jnp.float32) for p in parts])

    def render(self, state: State, size: int = 512) -> jax.Array:
        """Draw the floor as an RGB ``uint8`` image in Jumanji's colours: goal cells dark
        grey, shelves as inset squares (slate blue, teal when requested), robots as orange
        discs (red when loaded) with a black tick the way they face; row 0 at the top.

        Args:
            state: the state.
            size: the image's longer side in pixels, a Python ``int`` fixed at trace time.
                Each cell gets ``c = pixels_per_cell(size, max(H, W))`` whole pixels, so the
                image is ``(H * c, W * c, 3)``: ``(500, 250, 3)`` for the default 20 x 10
                floor at ``size=512``. ``ValueError`` unless ``size >= max(H, W)``.

        Pure JAX (``jit``, ``vmap`` and ``jax.eval_shape`` work).
        """
        from jaxmarl.environments.jumanji.robot_warehouse.viewer import render_floor
        from jaxmarl.viz.raster import pixels_per_cell

        cell = pixels_per_cell(size, max(self.grid_size))
        requested = self._requested(state.request_queue)
        return render_floor(state, requested, self.goals, cell)

    # ------------------------------------------------------------------- rules
    def _time(self, state: State) -> jax.Array:
        """``step_count / time_limit``, float32 ``()``."""
        return state.step.astype(jnp.float32) / self.time_limit

    def _requested(self, queue: jax.Array) -> jax.Array:
        """bool ``(num_shelves,)``: which shelves are in the request queue."""
        return jnp.zeros((self.num_shelves,), bool).at[queue].set(True)

    def _ahead(self, pos: jax.Array, direction: jax.Array) -> jax.Array:
        """The cell one step ahead of each robot, kept on the floor, int32 ``(n, 2)``."""
        limit = jnp.asarray(self.grid_size, jnp.int32) - 1
        return jnp.clip(pos + jnp.asarray(C.MOVES)[direction], 0, limit)

    def _action_masks(self, state: State) -> jax.Array:
        """bool ``(n, 5)``: forward is illegal for a loaded robot facing another shelf."""
        ahead = self._ahead(state.agent_pos, state.agent_dir)
        moves = jnp.any(ahead != state.agent_pos, axis=1)
        blocked = state.agent_carrying & moves & (state.shelf_grid[ahead[:, 0], ahead[:, 1]] > 0)
        masks = jnp.ones((self.num_agents, C.NUM_ACTIONS), bool)
        return masks.at[:, C.FORWARD].set(~blocked)

    def _replay_writes(
        self, grid: jax.Array, cur: jax.Array, new: jax.Array, active: jax.Array, values: jax.Array
    ) -> jax.Array:
        """The grid after each active robot ``i``, in agent order, wrote 0 on its cell ``cur[i]``
        and then ``values[i]`` on ``new[i]`` (flat indices): the last write to a cell wins."""
        cells = grid.size
        order = jnp.arange(self.num_agents, dtype=jnp.int32)
        last = jnp.full((cells,), -1, jnp.int32)
        last = last.at[jnp.where(active, cur, cells)].max(2 * order, mode="drop")
        last = last.at[jnp.where(active, new, cells)].max(2 * order + 1, mode="drop")
        written = jnp.where(last % 2 == 1, values[last // 2], 0)
        return jnp.where(last >= 0, written, grid.reshape(-1)).reshape(grid.shape)

    def _move(self, state: State, acts: jax.Array) -> tuple[State, jax.Array]:
        """Play the (legal) actions one robot after another, as Jumanji's scan over agents
        does, in closed form. Returns the new state and who collided, bool ``(n,)``."""
        n, width = self.num_agents, self.grid_size[1]
        order = jnp.arange(n, dtype=jnp.int32)
        pos = state.agent_pos
        forward = acts == C.FORWARD
        new_pos = jnp.where(forward[:, None], self._ahead(pos, state.agent_dir), pos)
        cur, new = pos[:, 0] * width + pos[:, 1], new_pos[:, 0] * width + new_pos[:, 1]

        # The shelf value each robot finds on its cell when its turn comes: what the last
        # earlier loaded mover wrote there (0 when it left the cell, its own load when it
        # arrived), else what the cell held at the start. Loads pass along chains of robots
        # moving onto each other; pointer doubling follows each chain to its start.
        loaded_mover = forward & state.agent_carrying
        earlier = (order[None, :] < order[:, None]) & loaded_mover[None, :]  # [i, k]: k moved before i
        left = earlier & (cur[None, :] == cur[:, None])
        arrived = earlier & (new[None, :] == cur[:, None])
        last = jnp.max(
            jnp.maximum(jnp.where(left, 2 * order, -1), jnp.where(arrived, 2 * order + 1, -1)), axis=1
        )
        from_robot = (last >= 0) & (last % 2 == 1)
        start_value = jnp.where(last < 0, state.shelf_grid.reshape(-1)[cur], 0)
        source = jnp.where(from_robot, last // 2, order)
        for _ in range((n - 1).bit_length()):
            source = source[source]
        found = start_value[source]  # (n,) shelf id + 1 under each robot at its turn

        shelf_grid = self._replay_writes(state.shelf_grid, cur, new, loaded_mover, found)
        agent_grid = self._replay_writes(state.agent_grid, cur, new, forward, order + 1)

        pick_up = (acts == C.TOGGLE_LOAD) & ~state.agent_carrying
        stay = (acts == C.NOOP) | (acts == C.TOGGLE_LOAD)
        put_down = stay & ~pick_up & ~jnp.asarray(self.highways)[pos[:, 0], pos[:, 1]]
        carrying = jnp.where(pick_up, found > 0, state.agent_carrying & ~put_down)
        turn = jnp.where(acts == C.LEFT, -1, jnp.where(acts == C.RIGHT, 1, 0))
        direction = (state.agent_dir + turn) % C.NUM_DIRECTIONS

        collided = agent_grid.reshape(-1)[new] != order + 1
        state = state.replace(
            agent_pos=new_pos,
            agent_dir=direction.astype(jnp.int32),
            agent_carrying=carrying,
            agent_grid=agent_grid,
            shelf_grid=shelf_grid,
        )
        return state, collided

    def _deliver(self, state: State) -> tuple[State, jax.Array]:
        """Score the requested shelves standing on the goals, goal by goal, replacing each in
        the queue by a shelf drawn from ``state.key`` (Jumanji's draw). Returns the new
        state and the number delivered, int32 ``()``."""
        not_requested = self.num_shelves - self.request_queue_size

        def at_goal(carry: tuple[jax.Array, jax.Array, jax.Array], goal: jax.Array) -> tuple[Any, None]:
            queue, key, count = carry
            shelf = state.shelf_grid[goal[0], goal[1]] - 1  # -1: no shelf
            in_queue = queue == shelf
            hit = (shelf >= 0) & jnp.any(in_queue)
            next_key, request_key = jax.random.split(key)
            # Jumanji: choice(request_key, setdiff1d(shelf_ids, queue), replace=False), the
            # j-th shelf not requested (ascending ids) for j = choose_distinct(...)[0].
            j = choose_distinct(request_key, not_requested, 1)[0]
            new_id = jnp.argmax(jnp.cumsum(~self._requested(queue)) > j).astype(jnp.int32)
            queue = jnp.where(hit & in_queue, new_id, queue)
            return (queue, jnp.where(hit, next_key, key), count + hit), None

        init = (state.request_queue, state.key, jnp.zeros((), jnp.int32))
        (queue, key, count), _ = jax.lax.scan(at_goal, init, jnp.asarray(self.goals))
        return state.replace(request_queue=queue, key=key), count

    def _views(self, state: State) -> jax.Array:
        """Jumanji's ``agents_view``, int32 ``(n, F)``.

        Jumanji writes each robot's vector field by field, moving a cursor: its own 8
        features; per cell of its view (row-major), for another robot there a 1 and then
        its one-hot direction (two writes, 5 features), for an empty cell nothing (the
        cursor skips 5), for the cell showing the robot itself nothing (no skip); per
        cell, a shelf's 2 features (one write) or nothing (skip 2). A write that would pass
        the end starts at ``F - length`` instead (``dynamic_update_slice``), later writes
        winning; that happens only on the step of a collision, when a robot's own cell
        does not show it. Here every write becomes its elements' target positions, and
        one scatter-max of ``priority * 2**16 + value`` keeps the last write to each
        position."""
        n, r, cells = self.num_agents, self.sensor_range, self.view_cells
        side, features = 2 * r + 1, self.num_obs_features
        ids = jnp.arange(1, n + 1, dtype=jnp.int32)
        pos, direction = state.agent_pos, state.agent_dir

        offsets = np.indices((side, side)).reshape(2, -1)  # view cells, row-major, in padded coords
        rows, cols = pos[:, 0:1] + offsets[0], pos[:, 1:2] + offsets[1]  # (n, V)
        seen_agents = jnp.pad(state.agent_grid, r)[rows, cols]
        seen_shelves = jnp.pad(state.shelf_grid, r)[rows, cols]

        # Own features, at 0..7.
        own = jnp.concatenate(
            [
                pos,
                state.agent_carrying[:, None].astype(jnp.int32),
                jax.nn.one_hot(direction, C.NUM_DIRECTIONS, dtype=jnp.int32),
                jnp.asarray(self.highways)[pos[:, 0], pos[:, 1]][:, None].astype(jnp.int32),
            ],
            axis=1,
        )
        # Other robots: the cursor moves 5 per cell not showing the robot itself.
        is_self = seen_agents == ids[:, None]
        block = jnp.where(is_self, 0, C.AGENT_CELL_FEATURES)
        cursor = C.OWN_FEATURES + jnp.cumsum(block, axis=1) - block  # (n, V)
        flag_start = jnp.minimum(cursor, features - 1)
        dir_start = jnp.minimum(cursor + 1, features - C.NUM_DIRECTIONS)
        other = (seen_agents > 0) & ~is_self
        other_dir = jax.nn.one_hot(
            direction[jnp.maximum(seen_agents - 1, 0)], C.NUM_DIRECTIONS, dtype=jnp.int32
        )  # (n, V, 4)
        # Shelves: the cursor moves 2 per cell, after the robots' part.
        shelf_start = C.OWN_FEATURES + jnp.sum(block, axis=1, keepdims=True) + 2 * jnp.arange(cells)
        shelf_start = jnp.minimum(shelf_start, features - C.SHELF_CELL_FEATURES)
        has_shelf = seen_shelves > 0
        requested = self._requested(state.request_queue)[jnp.maximum(seen_shelves - 1, 0)]
        shelf_values = jnp.stack([jnp.ones_like(seen_shelves), requested.astype(jnp.int32)], axis=-1)

        # Every element: target position, priority (write order), value, written or not.
        # Cell k's robot flag is write 1 + 2k, its direction 2 + 2k, its shelf 1 + 2V + k.
        dirs = jnp.arange(C.NUM_DIRECTIONS)
        targets = jnp.concatenate(
            [
                jnp.broadcast_to(jnp.arange(C.OWN_FEATURES), (n, C.OWN_FEATURES)),
                flag_start,
                (dir_start[..., None] + dirs).reshape(n, -1),
                (shelf_start[..., None] + jnp.arange(C.SHELF_CELL_FEATURES)).reshape(n, -1),
            ],
            axis=1,
        )
        priority = np.concatenate(
            [
                np.zeros(C.OWN_FEATURES, np.int32),
                1 + 2 * np.arange(cells),
                np.repeat(2 + 2 * np.arange(cells), C.NUM_DIRECTIONS),
                np.repeat(1 + 2 * cells + np.arange(cells), C.SHELF_CELL_FEATURES),
            ]
        )
        values = jnp.concatenate(
            [own, jnp.ones_like(flag_start), other_dir.reshape(n, -1), shelf_values.reshape(n, -1)], axis=1
        )
        written = jnp.concatenate(
            [
                jnp.ones((n, C.OWN_FEATURES), bool),
                other,
                jnp.repeat(other, C.NUM_DIRECTIONS, axis=1),
                jnp.repeat(has_shelf, C.SHELF_CELL_FEATURES, axis=1),
            ],
            axis=1,
        )
        keys = jnp.where(written, (jnp.asarray(priority) << _VALUE_BITS) + values, -1)
        flat_targets = (targets + features * jnp.arange(n)[:, None]).reshape(-1)
        last = jnp.full((n * features,), -1, jnp.int32).at[flat_targets].max(keys.reshape(-1))
        views = jnp.where(last >= 0, last & ((1 << _VALUE_BITS) - 1), 0)
        return views.reshape(n, features)
