"""MultiCVRP: vehicles share out the customers of a map, each a capacitated agent with
soft time windows (Jumanji 1.1.2's ``MultiCVRP-v0``; Zhang et al. 2020, "Multi-Vehicle
Routing Problems with Soft Time Windows: A Multi-Agent Reinforcement Learning Approach").

The :class:`MultiCVRP` docstring is the full spec; ``docs/environments/jumanji/multi_cvrp.md``
adds the tables. The oracle test replays whole episodes against Jumanji.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.jumanji.common import agent_names, build_generator
from jaxmarl.environments.jumanji.multi_cvrp import constants as C
from jaxmarl.environments.jumanji.multi_cvrp.generator import REQUIRED_ATTRIBUTES, UniformRandomGenerator
from jaxmarl.environments.jumanji.multi_cvrp.reward import DenseReward, SparseReward, distance, time_penalties
from jaxmarl.environments.jumanji.multi_cvrp.types import State
from jaxmarl.environments.multi_agent_env import MultiAgentEnv
from jaxmarl.environments.spaces import Box, Discrete

__all__ = ["MultiCVRP"]

OWN_SIZE = 4  # x, y, local time, capacity of the observing vehicle
REWARD_FNS = {"dense": DenseReward, "sparse": SparseReward}


def _reward_fn(reward_fn: Any) -> Any:
    if reward_fn is None:
        return DenseReward()
    if isinstance(reward_fn, str):
        if reward_fn not in REWARD_FNS:
            raise ValueError(
                f"MultiCVRP: unknown reward_fn {reward_fn!r}; use 'dense', 'sparse' or a callable"
            )
        return REWARD_FNS[reward_fn]()
    if not callable(reward_fn):
        raise ValueError(
            f"MultiCVRP: reward_fn must be 'dense', 'sparse', DenseReward(), SparseReward() or a callable "
            f"(state, new_state, is_done) -> float32 scalar, got {reward_fn!r}"
        )
    return reward_fn


class MultiCVRP(MultiAgentEnv):
    """Vehicles serve customers' demands from a depot, within soft time windows.

    An instance (from the generator) has ``N = num_customers + 1`` nodes on a square map
    ``[0, map_max]^2``: node 0 the depot, nodes ``1..C`` customers, each with an integer
    demand, a time window ``[start, end]`` and early and late penalty coefficients. ``V =
    num_vehicles`` vehicles start at the depot, each loaded with ``max_capacity``; they
    drive at speed 1, so a vehicle's local time is the distance it has driven.

    - **Agents:** ``agent_i`` drives vehicle ``i`` (Jumanji's vehicle order).
    - **Actions:** ``Discrete(N)``: the node to drive to next, Jumanji's numbering (``0``
      the depot, ``k`` customer ``k``). All vehicles move at once:

      1. A choice is *legal* when it is the depot, or a customer still waiting (demand >
         0) whose demand fits the vehicle's remaining capacity. An illegal choice
         becomes the depot.
      2. When several vehicles choose the same customer, the lowest-numbered one gets
         it; the others go to the depot.
      3. Each vehicle drives straight to its node: its distance and local time grow by
         the Euclidean length of the leg (0 when it stays at the depot). On arrival at
         node ``k`` at local time ``t`` it pays ``(start_k - t) * early_k`` if ``t <
         start_k``, ``(t - end_k) * late_k`` if ``t > end_k`` (nothing at the depot,
         whose coefficients are 0).
      4. A vehicle at a customer loads its demand (its capacity drops by it) and the
         demand becomes 0; a vehicle at the depot reloads to ``max_capacity``.

      An action outside ``0..N-1`` acts as ``0`` (the depot) and is flagged in
      ``info["invalid_action"]``.
    - **Action masks** (``get_avail_actions``): Jumanji's ``action_mask`` rows, bool
      ``(N,)`` per agent: the depot always, a customer when its demand is positive and
      at most the vehicle's capacity. Masks ignore rule 2 (clashes).
    - **Observation** of ``agent_i``, float32 ``(4 + 7N + 4V,)``: first its own vehicle,
      then Jumanji's observation (the same for every agent), fields flattened row-major:

      ========================  ==========  ==================
      field                     shape       offset
      ========================  ==========  ==================
      own coordinates (x, y)    ``2``       ``0``
      own local time            ``1``       ``2``
      own capacity              ``1``       ``3``
      node coordinates          ``(N, 2)``  ``4``
      node demands              ``N``       ``4 + 2N``
      window starts             ``N``       ``4 + 3N``
      window ends               ``N``       ``4 + 4N``
      early coefficients        ``N``       ``4 + 5N``
      late coefficients         ``N``       ``4 + 6N``
      vehicle coordinates       ``(V, 2)``  ``4 + 7N``
      vehicle local times       ``V``       ``4 + 7N + 2V``
      vehicle capacities        ``V``       ``4 + 7N + 3V``
      ========================  ==========  ==================

      A vehicle's coordinates are those of the node it is at. The defaults (20
      customers, 2 vehicles) give 159 numbers. Bounds (``Box``, Jumanji's specs):
      coordinates ``[0, map_max]``, demands and capacities ``[0, max_capacity]``,
      windows ``[0, max_end_window]``, coefficients ``[0, max_penalty_coef]``, local
      times ``[0, 2 * sqrt(2) * map_max * C]``.
    - **Global state** (``get_global_state``), float32 ``(7N + 4V + 1,)``: Jumanji's
      whole observation without the mask (the shared block above), then ``step /
      max_steps``.
    - **Reward**, one float32 scalar copied to every agent, by ``reward_fn``:
      ``DenseReward`` (default): minus the distance all vehicles drove this step, minus
      the time penalties they paid. ``SparseReward``: 0, then on the last step minus the
      episode's total distance and penalties. Either way, on the step that reaches the
      step limit the reward is Jumanji's worst-case estimate of the remaining cost
      instead: minus a round trip from the depot to every customer still waiting, minus
      the penalties of arriving at all of them at the vehicles' mean local time plus
      that distance (0 when nobody waits). Any callable ``(state, new_state, is_done)
      -> float32 ()`` works too.
    - **Episode end:** *terminated* (every agent) when no customer waits (all demands
      0) and every vehicle is back at the depot, or after ``max_steps = 2 *
      num_customers`` steps (Jumanji's ``step_count > 2 * num_customers``). The step
      limit is a termination, not a truncation, as in Jumanji: its reward is the
      worst-case cost of the rest of the episode, so there is nothing left to bootstrap
      (``info["truncated"]`` is never set; ``metrics["success"]`` tells the two apart).
    - **Info:** ``info["metrics"]`` (``episode_metrics``, each the value on the
      episode's last step): ``total_distance`` and ``total_time_penalty`` (summed over
      vehicles), ``unserved_demand`` (demand still waiting) and ``success`` (1.0 when the
      episode terminated, every customer served and every vehicle home).
    - **State** (:class:`~jaxmarl.environments.jumanji.multi_cvrp.types.State`): the
      instance, the vehicles' positions, local times, capacities, distances, penalties
      and routes, and ``step``.

    Args:
        generator: makes the instances; any object with ``__call__(key) -> State`` and
            ``num_customers``, ``num_vehicles``, ``map_max``, ``max_capacity`` (see
            :mod:`~jaxmarl.environments.jumanji.multi_cvrp.generator`). Default:
            ``UniformRandomGenerator`` built from the keywords below.
        reward_fn: ``None`` or ``"dense"`` (``DenseReward``), ``"sparse"``
            (``SparseReward``), or a callable ``(state, new_state, is_done) -> float32
            ()``.
        num_customers, num_vehicles, manual_settings, map_max, max_capacity,
            max_start_window, early_coef_rand, late_coef_rand, customer_demand_max,
            time_window_length: keywords of the default ``UniformRandomGenerator``
            (``None``: its default; 20 customers and 2 vehicles with the paper's
            settings). Not allowed together with ``generator``.

    Raises:
        ValueError: for settings that make no instance (see ``UniformRandomGenerator``)
            or an unknown ``reward_fn``.
        TypeError: for ``generator`` together with generator keywords, or a generator
            lacking the protocol's attributes.

    Example::

        import jax
        from jaxmarl.environments.jumanji.multi_cvrp import MultiCVRP
        env = MultiCVRP(num_customers=50, num_vehicles=3)
        obs, state = env.reset(jax.random.PRNGKey(0))
        obs["agent_0"].shape  # (373,)
    """

    episode_metrics: ClassVar[Mapping[str, str]] = {
        "total_distance": "last",
        "total_time_penalty": "last",
        "unserved_demand": "last",
        "success": "last",
    }
    max_steps: int

    def __init__(
        self,
        generator: Any | None = None,
        reward_fn: Any | None = None,
        num_customers: int | None = None,
        num_vehicles: int | None = None,
        manual_settings: bool | None = None,
        map_max: float | None = None,
        max_capacity: int | None = None,
        max_start_window: float | None = None,
        early_coef_rand: Sequence[float] | None = None,
        late_coef_rand: Sequence[float] | None = None,
        customer_demand_max: int | None = None,
        time_window_length: float | None = None,
    ) -> None:
        kwargs = {
            "num_customers": num_customers,
            "num_vehicles": num_vehicles,
            "manual_settings": manual_settings,
            "map_max": map_max,
            "max_capacity": max_capacity,
            "max_start_window": max_start_window,
            "early_coef_rand": early_coef_rand,
            "late_coef_rand": late_coef_rand,
            "customer_demand_max": customer_demand_max,
            "time_window_length": time_window_length,
        }
        self.generator = build_generator(
            "MultiCVRP", generator, UniformRandomGenerator, kwargs, REQUIRED_ATTRIBUTES
        )
        self.reward_fn = _reward_fn(reward_fn)
        self.num_customers = int(self.generator.num_customers)
        self.num_vehicles = int(self.generator.num_vehicles)
        if self.num_customers < 1 or self.num_vehicles < 1:
            raise ValueError(
                f"MultiCVRP: the generator must have at least one customer and one vehicle, got "
                f"num_customers={self.num_customers}, num_vehicles={self.num_vehicles}"
            )
        self.map_max = float(self.generator.map_max)
        self.max_capacity = int(self.generator.max_capacity)
        if self.map_max <= 0 or self.max_capacity < 1:
            raise ValueError(
                f"MultiCVRP: the generator's map_max ({self.map_max}) and max_capacity "
                f"({self.max_capacity}) must be positive"
            )
        self.num_nodes = self.num_customers + 1
        self.max_steps = 2 * self.num_customers
        self.max_local_time = 2 * self.map_max * math.sqrt(2) * self.num_customers / C.SPEED
        super().__init__(num_agents=self.num_vehicles)
        self.agents = agent_names(self.num_vehicles)
        high = self._observation_high()
        self.observation_spaces = {a: Box(0.0, high, high.shape, jnp.float32) for a in self.agents}
        self.action_spaces = {a: Discrete(self.num_nodes) for a in self.agents}

    def __repr__(self) -> str:
        return f"MultiCVRP(num_customers={self.num_customers}, num_vehicles={self.num_vehicles})"

    def _observation_high(self) -> np.ndarray:
        n, v = self.num_nodes, self.num_vehicles
        window = float(getattr(self.generator, "max_end_window", np.inf))
        coef = float(getattr(self.generator, "max_penalty_coef", np.inf))
        vehicle = [self.map_max, self.map_max, self.max_local_time, self.max_capacity]
        parts = [
            vehicle,
            [self.map_max] * (2 * n),
            [self.max_capacity] * n,
            [window] * (2 * n),
            [coef] * (2 * n),
            [self.map_max] * (2 * v),
            [self.max_local_time] * v,
            [self.max_capacity] * v,
        ]
        return np.concatenate([np.asarray(p, np.float64) for p in parts])

    # ------------------------------------------------------------------- env API
    def reset_env(self, key: jax.Array) -> tuple[dict[str, jax.Array], State]:
        state = self.generator(key)
        return self.get_obs(state), state

    def step_env(
        self, key: jax.Array, state: State, actions: dict[str, jax.Array]
    ) -> tuple[dict[str, jax.Array], State, dict[str, jax.Array], dict[str, jax.Array], dict]:
        del key  # the dynamics are deterministic
        choices = jnp.stack([jnp.asarray(actions[a], jnp.int32) for a in self.agents])
        new_state = self._move(state, choices)
        served = (new_state.demands.sum() == 0) & jnp.all(new_state.positions == C.DEPOT)
        # The step limit terminates: its reward already counts the rest (see the docstring).
        terminated = served | (new_state.step >= self.max_steps)
        reward = jnp.asarray(self.reward_fn(state, new_state, terminated), jnp.float32)
        info = {
            "metrics": {
                "total_distance": new_state.distances.sum(),
                "total_time_penalty": new_state.time_penalties.sum(),
                "unserved_demand": new_state.demands.sum().astype(jnp.float32),
                "success": served.astype(jnp.float32),
            }
        }
        done = {a: terminated for a in self.agents}
        done["__all__"] = terminated
        rewards = {a: reward for a in self.agents}
        return self.get_obs(new_state), new_state, rewards, done, info

    def _move(self, state: State, choices: jax.Array) -> State:
        """Rules 1-4 of the class docstring: every vehicle drives to its node, ``(V,)``."""
        wanted = state.demands[choices]
        legal = (state.capacities >= wanted) & (wanted > 0)
        choices = jnp.where(legal, choices, C.DEPOT)
        earlier = jnp.tri(self.num_vehicles, k=-1, dtype=bool)  # earlier[i, j]: j < i
        clash = jnp.any((choices[:, None] == choices[None, :]) & earlier, axis=1)
        nodes = jnp.where(clash, C.DEPOT, choices)

        leg = distance(state.coordinates[state.positions], state.coordinates[nodes])
        local_times = state.local_times + leg / C.SPEED
        penalties = time_penalties(
            local_times,
            state.window_start[nodes],
            state.window_end[nodes],
            state.early_coefs[nodes],
            state.late_coefs[nodes],
        )
        capacities = jnp.where(nodes == C.DEPOT, self.max_capacity, state.capacities - state.demands[nodes])
        step = state.step + 1
        return state.replace(
            demands=state.demands.at[nodes].set(0),
            positions=nodes,
            local_times=local_times,
            capacities=capacities.astype(jnp.int32),
            distances=state.distances + leg,
            time_penalties=state.time_penalties + penalties,
            routes=state.routes.at[:, step].set(nodes, mode="drop"),
            step=step,
        )

    def shared_observation(self, state: State) -> jax.Array:
        """Jumanji's observation without the mask, flattened: float32 ``(7N + 4V,)``."""
        vehicle_xy = state.coordinates[state.positions]
        parts = [
            state.coordinates.ravel(),
            state.demands,
            state.window_start,
            state.window_end,
            state.early_coefs,
            state.late_coefs,
            vehicle_xy.ravel(),
            state.local_times,
            state.capacities,
        ]
        return jnp.concatenate([jnp.asarray(p, jnp.float32) for p in parts])

    def get_obs(self, state: State) -> dict[str, jax.Array]:
        """Each vehicle's own fields, then the shared block; see the class docstring."""
        own = jnp.concatenate(
            [
                state.coordinates[state.positions],
                state.local_times[:, None],
                state.capacities[:, None].astype(jnp.float32),
            ],
            axis=1,
        )
        shared = self.shared_observation(state)
        obs = jnp.concatenate([own, jnp.broadcast_to(shared, (self.num_vehicles, shared.shape[0]))], axis=1)
        return {a: obs[i] for i, a in enumerate(self.agents)}

    def get_avail_actions(self, state: State) -> dict[str, jax.Array]:
        """Jumanji's ``action_mask`` rows: the depot, and the customers still waiting whose
        demand fits the vehicle's capacity; bool ``(N,)`` per agent."""
        mask = (state.capacities[:, None] >= state.demands[None, :]) & (state.demands[None, :] > 0)
        mask = mask.at[:, C.DEPOT].set(True)
        return {a: mask[i] for i, a in enumerate(self.agents)}

    def get_global_state(self, state: State) -> jax.Array:
        """The shared block of the observation, then ``step / max_steps``: float32
        ``(7N + 4V + 1,)``."""
        progress = jnp.asarray(state.step / self.max_steps, jnp.float32)[None]
        return jnp.concatenate([self.shared_observation(state), progress])

    def render(self, state: State, size: int = 512) -> jax.Array:
        """Draw the map as an RGB ``uint8`` image ``(size, size, 3)`` (the map is square):
        customers as black dots (in a vehicle's colour once it served them), the depot as
        a black square, each vehicle's route so far as lines in its colour and the
        vehicle itself as a ring on its current node; y up.

        Args:
            state: the state.
            size: the image's side in pixels, a Python ``int`` fixed at trace time
                (``ValueError`` below 16).

        Pure JAX, so a batch of states renders with ``jax.vmap``.
        """
        from jaxmarl.environments.jumanji.multi_cvrp.viewer import render_state

        return render_state(state, self.map_max, self.num_vehicles, size)
