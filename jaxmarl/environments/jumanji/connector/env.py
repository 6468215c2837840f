"""Connector (Jumanji 1.1.2's ``Connector-v3``) with one agent per wire head.

Bonnet et al. (2024), "Jumanji: a diverse suite of scalable reinforcement learning
environments in JAX"; the rules are Jumanji 1.1.2's, and ``tests/oracles`` replays whole
episodes against it.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from typing import Any, ClassVar

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.jumanji.common import agent_names, build_generator
from jaxmarl.environments.jumanji.connector import constants as C
from jaxmarl.environments.jumanji.connector.generator import REQUIRED_ATTRIBUTES, RandomWalkGenerator
from jaxmarl.environments.jumanji.connector.reward import DenseRewardFn
from jaxmarl.environments.jumanji.connector.rules import action_masks, agent_views, is_path, move_heads
from jaxmarl.environments.jumanji.connector.types import State
from jaxmarl.environments.multi_agent_env import MultiAgentEnv
from jaxmarl.environments.spaces import Box, Discrete

__all__ = ["Connector"]


def _check_int(name: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"Connector: {name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


class Connector(MultiAgentEnv):
    """Pairs of cells to connect by wires that may not cross; each wire head is an agent.

    A ``G`` x ``G`` grid holds ``N`` heads and their ``N`` targets. Each step every head may
    move to a neighbouring cell, leaving its wire behind it; wires are impassable. A wire
    is *connected* when its head reaches its target. Cells are ``(row, col)``, row 0 at the
    top.

    - **Agents:** ``agent_0 .. agent_{N-1}``, agent ``i`` the head of wire ``i`` (Jumanji's
      agent order). Default ``G = N = 10``, Jumanji's ``Connector-v3``.
    - **Actions:** ``Discrete(5)``, Jumanji's ids: ``0`` no-op, ``1`` up (row - 1), ``2``
      right (col + 1), ``3`` down (row + 1), ``4`` left (col - 1).
    - **Action masks** (``get_avail_actions``, Jumanji's ``action_mask`` rows): no-op is
      always legal; a move is legal when the wire is not connected and the cell it leads
      to is on the grid and empty or the wire's own target. An illegal move acts as a
      no-op (Jumanji's rule), as does an action outside ``0..4`` (flagged in
      ``info["invalid_action"]``).
    - **Moves:** all heads move at once. When several heads enter the same cell, the one
      with the highest index does and the others stay. A moving head turns its old cell
      into wire; the cell it enters becomes its head (its target cell too: the wire is
      then connected, and stays still).
    - **Grid codes** (Jumanji's): ``0`` empty; for agent ``i``, ``3 i + 1`` its wire,
      ``3 i + 2`` its head, ``3 i + 3`` its target.
    - **Observation** of agent ``i``, float32 ``(G * G + 1,)``, ``Box(0, high)``:

      ====================  ============  =========  =======================================
      field                 shape         offset     content
      ====================  ============  =========  =======================================
      ``grid`` (own view)   ``(G * G,)``  ``0``      the grid row-major, codes relabelled
                                                     so that agent ``i`` is agent 0 and
                                                     agent ``(i + k) % N`` is agent ``k``
                                                     (own wire, head, target: ``1, 2, 3``);
                                                     high ``3 N``
      time                  ``(1,)``      ``G * G``  Jumanji's ``step_count`` divided by
                                                     ``time_limit``, in ``[0, 1]`` (shared)
      ====================  ============  =========  =======================================

      Jumanji 1.1.2 returns the grid once with agent 0's labels; agent 0's view is exactly
      that grid, and the relabelling is Jumanji's ``switch_perspective`` (how its earlier
      versions gave every agent its own view), so every agent can share one policy.
    - **Global state** (``get_global_state``), float32 ``(G * G + 1,)``: Jumanji's
      observation without the mask: the grid with its own codes, then the time.
    - **Rewards**, per agent, by ``reward_fn`` (Jumanji's; see ``reward.py``). The default
      :class:`~jaxmarl.environments.jumanji.connector.reward.DenseRewardFn`: ``+1`` on the
      step a wire connects, and ``-0.03`` on every step that starts with it unconnected
      (blocked wires keep paying it until the episode ends).
    - **Episode end:** agent ``i`` is done (``terminated``) once its wire is connected or
      blocked (no legal move; this never reverts), Jumanji's per-agent discount of 0; the
      episode terminates when every agent is done. It is truncated after ``time_limit``
      steps (``max_steps``; Jumanji's ``step_count >= time_limit``), agents already done
      are not flagged ``truncated``. Terminating on the last step counts as termination.
    - **Info:** ``info["metrics"]`` (``episode_metrics``, each the value on the episode's
      last step): ``num_connections``, ``ratio_connections`` (connected wires, their
      share) and ``total_path_length`` (cells covered by wires and heads), Jumanji's
      ``extras``.
    - **Generators:** the instance comes from ``generator(key)``: Jumanji's
      ``RandomWalkGenerator`` (default, solvable) or ``UniformRandomGenerator``, the
      paper's ``ClusterGenerator``, ``LinearCompressionGenerator`` and
      ``ExplosionGenerator``, or any callable keeping the protocol of
      :mod:`jaxmarl.environments.jumanji.common`. Same key, same instance as Jumanji.

    Args:
        generator: the instance generator; ``None``: ``RandomWalkGenerator`` built from
            the four keywords below.
        reward_fn: ``reward_fn(state, actions, next_state) -> (N,) float32``; ``None``:
            ``DenseRewardFn()``.
        time_limit: steps before the episode is truncated (Jumanji's default 50).
        grid_size: the default generator's grid side (default 10).
        num_agents: the default generator's number of wires (default 10).
        temperature: the default generator's walk temperature (default 1.0).
        walk_max_steps: the default generator's ``max_steps``, its longest walk (default
            ``int(1.5 grid_size)``); renamed here so as not to be mistaken for the
            episode's ``max_steps``.

    Raises:
        ValueError: bad sizes or ``time_limit``. TypeError: a ``generator`` together with
            generator keywords, a generator without ``grid_size``/``num_agents``, or a
            ``reward_fn`` that is not callable.

    Example::

        import jax, jaxmarl
        env = jaxmarl.make("Connector-v3")
        obs, state = env.reset(jax.random.PRNGKey(0))
        obs["agent_0"].shape  # (101,)
    """

    max_steps: int
    episode_metrics: ClassVar[Mapping[str, str]] = {
        "num_connections": "last",
        "ratio_connections": "last",
        "total_path_length": "last",
    }

    def __init__(
        self,
        generator: Any | None = None,
        reward_fn: Any | None = None,
        time_limit: int = C.TIME_LIMIT,
        grid_size: int | None = None,
        num_agents: int | None = None,
        temperature: float | None = None,
        walk_max_steps: int | None = None,
    ) -> None:
        keywords = {
            "grid_size": grid_size,
            "num_agents": num_agents,
            "temperature": temperature,
            "max_steps": walk_max_steps,
        }
        self.generator = build_generator(
            "Connector", generator, RandomWalkGenerator, keywords, REQUIRED_ATTRIBUTES
        )
        self.grid_size = _check_int("generator.grid_size", self.generator.grid_size, 2)
        super().__init__(num_agents=_check_int("generator.num_agents", self.generator.num_agents, 1))
        if 2 * self.num_agents > self.grid_size**2:
            raise ValueError(
                f"Connector: {self.num_agents} wires need {2 * self.num_agents} cells, more than the "
                f"{self.grid_size**2} of a {self.grid_size} x {self.grid_size} grid"
            )
        self.reward_fn = DenseRewardFn() if reward_fn is None else reward_fn
        if not callable(self.reward_fn):
            raise TypeError(
                f"Connector: reward_fn must be callable as reward_fn(state, actions, next_state), got "
                f"{type(self.reward_fn).__name__}"
            )
        self.time_limit = _check_int("time_limit", time_limit, 1)
        self.max_steps = self.time_limit
        self.agents = agent_names(self.num_agents)
        cells = self.grid_size**2
        high = np.concatenate([np.full(cells, C.NUM_CODES * self.num_agents), [1.0]])
        self.observation_spaces = {a: Box(0.0, high, (cells + 1,), jnp.float32) for a in self.agents}
        self.action_spaces = {a: Discrete(C.NUM_ACTIONS) for a in self.agents}

    # ------------------------------------------------------------------- env API
    def reset_env(self, key: jax.Array) -> tuple[dict[str, jax.Array], State]:
        state = self.generator(key)
        state = state.replace(action_mask=action_masks(state.grid, state.position, state.target))
        return self.get_obs(state), state

    def step_env(
        self, key: jax.Array, state: State, actions: dict[str, jax.Array]
    ) -> tuple[dict[str, jax.Array], State, dict[str, jax.Array], dict[str, jax.Array], dict]:
        del key  # Connector's steps are deterministic
        action = jnp.stack([jnp.asarray(actions[a], jnp.int32) for a in self.agents])
        legal = jnp.any(state.action_mask & (jnp.arange(C.NUM_ACTIONS) == action[:, None]), axis=1)
        moving = legal & (action != C.NOOP)
        grid, position, _ = move_heads(
            state.grid, state.position, moving, state.position + jnp.asarray(C.MOVES)[action]
        )
        mask = action_masks(grid, position, state.target)
        next_state = State(
            grid=grid, position=position, target=state.target, action_mask=mask, step=state.step + 1
        )
        reward = jnp.asarray(self.reward_fn(state, action, next_state), jnp.float32)
        connected = next_state.connected
        done = connected | ~jnp.any(mask[:, 1:], axis=1)
        terminated = self._to_dict(done)
        terminated["__all__"] = jnp.all(done)
        info = {
            "metrics": {
                "num_connections": jnp.sum(connected).astype(jnp.float32),
                "ratio_connections": jnp.mean(connected.astype(jnp.float32)),
                "total_path_length": (jnp.sum(is_path(grid)) + self.num_agents).astype(jnp.float32),
            }
        }
        return self.get_obs(next_state), next_state, self._to_dict(reward), terminated, info

    def get_obs(self, state: State) -> dict[str, jax.Array]:
        """Each agent's own view of the grid, flattened, then the time ``step / time_limit``
        (float32 ``(G * G + 1,)``; see the class docstring)."""
        views = agent_views(state.grid, self.num_agents).reshape(self.num_agents, -1)
        time = jnp.broadcast_to(self._time(state), (self.num_agents, 1))
        return self._to_dict(jnp.concatenate([views.astype(jnp.float32), time], axis=1))

    def get_avail_actions(self, state: State) -> dict[str, jax.Array]:
        """Jumanji's ``action_mask`` rows, bool ``(5,)`` per agent."""
        return self._to_dict(state.action_mask)

    def get_global_state(self, state: State) -> jax.Array:
        """Jumanji's observation without the mask, float32 ``(G * G + 1,)``: the grid
        (Jumanji's codes, row-major), then the time ``step / time_limit``."""
        return jnp.concatenate([state.grid.reshape(-1).astype(jnp.float32), self._time(state)[None]])

    def render(self, state: State, size: int = 512) -> jax.Array:
        """Draw the grid as an RGB ``uint8`` image in the look of Jumanji's viewer (see
        ``viewer.py``): heads in their wire's colour, wires faded, targets as a coloured
        square inside a white cell; row 0 at the top.

        Args:
            state: the state.
            size: the image's side in pixels, a Python ``int`` fixed at trace time. Each
                of the ``G`` cells per side gets ``c = size // G`` whole pixels, so the
                image is ``(G * c, G * c, 3)`` (``(510, 510, 3)`` for the default
                ``size=512`` on 10 x 10). ``ValueError`` unless ``size >= G``.

        Pure JAX, so a batch of states renders with ``jax.vmap``.
        """
        from jaxmarl.environments.jumanji.connector.viewer import render_grid
        from jaxmarl.viz.raster import pixels_per_cell

        return render_grid(state.grid, self.num_agents, pixels_per_cell(size, self.grid_size))

    # ------------------------------------------------------------------- helpers
    def _time(self, state: State) -> jax.Array:
        """``step / time_limit``, float32 ``()``: Jumanji's ``step_count`` scaled to ``[0, 1]``,
        as ``step * float32(1 / time_limit)`` (what XLA makes of the division anyway)."""
        return state.step.astype(jnp.float32) * np.float32(1 / self.time_limit)

    def _to_dict(self, values: jax.Array) -> dict[str, jax.Array]:
        return {a: values[i] for i, a in enumerate(self.agents)}
