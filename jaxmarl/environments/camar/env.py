"""CAMAR: continuous multi-agent path finding among circular obstacles (Pshenitsyn et
al., "CAMAR: Continuous Actions Multi-Agent Routing"; the original is camar 0.4.0).

Rules
-----
``N`` circular agents move in a plane among obstacle circles ("landmarks"), each towards
its own goal. Every ``step`` runs ``frameskip + 1`` integration steps of the agents'
dynamics (:mod:`jaxmarl.environments.camar.dynamics`): camar's Euler steps, or classical
Runge-Kutta steps with ``integrator="rk4"``. Before each, every agent feels the
smooth contact force of each agent or obstacle ``j`` it overlaps::

    d = x_i - x_j,  d_min = R_i + R_j
    f_ij = contact_force * d / |d| * contact_margin * log(1 + exp(-(|d| - d_min) / contact_margin))
           if |d| <= d_min, else 0

and the step counts as a collision for the agent if it overlapped anything in any of them.

Observation of agent ``i`` (``2 + 2 max_obs`` floats): first its goal vector ``g = goal -
x``, as ``g / |g|`` if ``|g| > window`` else ``g / window``; then, for the ``max_obs``
objects (agents and obstacles) whose centres are nearest, in order of distance (ties:
agents before obstacles, lower index first)::

    o = d * (1 - (window + R_j) / |d|) / (window - R_i)    with d = x_j - x_i,
    o = 0 if | |d| - R_i - R_j | >= window

Reward of agent ``i`` per step: ``+0.5`` if it is on its goal (``|x_i - goal_i| <
goal_rad_i``), ``+0.5`` more if every agent is, ``-1`` if it collided, plus
``pos_shaping_factor * (old goal distance - new goal distance)``.

The episode terminates when every agent is on its goal and is truncated after
``max_steps`` steps. With ``lifelong=True`` an agent on its goal gets a new goal (uniform
over the map's free cells) at the end of the step and episodes only end at the time limit.

Metrics (``info["metrics"]``, values of the episode so far; a finished episode's are its
last step's): ``success_rate`` (share of agents on their goal), ``flowtime`` (sum over
agents of the step each first reached its goal, ``max_steps`` for those that did not),
``makespan`` (the largest of those), ``coordination`` (``1 - collisions / (N * steps)``,
collisions counted per agent and step).

With ``path_obs`` (the paper's hybrid methods, "RRT*+IPPO"), every agent also observes
the path an RRT* planner found from its start to its goal at the beginning of the episode
(:func:`~jaxmarl.environments.camar.planning.path_features`: the next waypoints and the
length left). Planning runs once per episode (and per new goal in lifelong mode), inside
``reset`` and inside the ``step`` that starts a new episode, in a loop that runs only when
an environment needs a plan: under ``vmap`` a step plans (for the whole batch) only when
some environment of the batch starts an episode, not at every step as an automatic reset
would.

Obstacle queries use a bucket grid (:mod:`jaxmarl.environments.camar.spatial`): an agent
only looks at the circles in the 3 x 3 buckets around it, so a step costs
``O(N^2 + N * nearby circles)`` whatever the map's size.

Differences from camar 0.4.0 (all documented on the docs page): an episode lasts
``max_steps`` steps (camar's ends one step later, its ``done`` testing the step count
before the increment); ``MixedDynamic`` gives every group its own agents (camar slices
group ``i`` from agent ``i`` instead of from the group's offset, which is only right when
all groups but the last have one agent); goals are reachable (``ensure_reachable``);
``lifelong`` works for every map (camar 0.4.0's reset fails with it); ``flowtime`` and
``makespan`` count in steps from the first arrival (camar's state records the last
arrival time, in seconds).
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Mapping
from functools import partial
from typing import Any, ClassVar

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.camar import grid_maps, maps
from jaxmarl.environments.camar.dynamics import Dynamic, make_dynamic
from jaxmarl.environments.camar.maps import MapGenerator
from jaxmarl.environments.camar.planning import RRT_STAR, Paths, PlannerConfig, path_features, plan
from jaxmarl.environments.camar.spatial import FAR_AWAY, BucketGrid, length
from jaxmarl.environments.camar.types import State
from jaxmarl.environments.multi_agent_env import MultiAgentEnv
from jaxmarl.environments.spaces import Box

__all__ = ["MAP_GENERATORS", "Camar", "make_map"]

MAP_GENERATORS: dict[str, type[MapGenerator]] = {
    "random_grid": maps.random_grid,
    "caves_cont": maps.caves_cont,
    "string_grid": grid_maps.string_grid,
    "batched_string_grid": grid_maps.batched_string_grid,
    "labmaze_grid": grid_maps.labmaze_grid,
    "movingai": grid_maps.movingai,
}

Substep = tuple[jax.Array, jax.Array, jax.Array, jax.Array]  # pos, vel, angle, touched so far

TIE_MARGIN = 8  # extra nearest candidates re-sorted by (distance, index): exact ties at the cut
INTEGRATORS = ("euler", "rk4")
PLAN_SALT = 0x504C414E  # folded into a step's or reset's key for the planner's samples


def make_map(spec: MapGenerator | str | type, kwargs: Mapping[str, Any] | None = None) -> MapGenerator:
    """A map generator from an instance, a class, or a name in :data:`MAP_GENERATORS`."""
    if isinstance(spec, MapGenerator):
        if kwargs:
            raise ValueError(f"map keywords {sorted(kwargs)} cannot be given with a map generator instance")
        return spec
    if isinstance(spec, str):
        if spec not in MAP_GENERATORS:
            import difflib

            close = difflib.get_close_matches(spec, list(MAP_GENERATORS), n=3)
            hint = f" (did you mean {', '.join(close)}?)" if close else ""
            raise ValueError(f"unknown map generator {spec!r}{hint}; choose one of {sorted(MAP_GENERATORS)}")
        spec = MAP_GENERATORS[spec]
    if isinstance(spec, type) and issubclass(spec, MapGenerator):
        accepted = set(inspect.signature(spec).parameters)
        takes_any = any(p.kind is p.VAR_KEYWORD for p in inspect.signature(spec).parameters.values())
        unknown = set(kwargs or {}) - accepted
        if unknown and not takes_any:
            raise TypeError(
                f"{spec.__name__} got unknown keyword(s) {sorted(unknown)}; it accepts "
                f"{sorted(a for a in accepted if a not in ('self',))}"
            )
        return spec(**dict(kwargs or {}))
    raise TypeError(f"map_generator must be a MapGenerator, a subclass or one of {sorted(MAP_GENERATORS)}")


class Camar(MultiAgentEnv):
    """CAMAR (module docstring). Agents ``agent_0 ... agent_{N-1}``, actions ``Box(-1, 1,
    (2,))``.

    Args:
        map_generator: a name in :data:`MAP_GENERATORS`, a generator class or instance
            (``map_kwargs`` and any further keyword go to the generator: ``num_agents``,
            ``num_rows``, ``obstacle_density``, ``map_str`` ...).
        dynamic: ``"HolonomicDynamic"``, ``"DiffDriveDynamic"``, ``"MixedDynamic"``, a
            class or an instance (``dynamic_kwargs`` go to it).
        lifelong: new goals on arrival, episodes end only at the time limit.
        window: sensing range beyond an agent's surface.
        max_steps: episode length.
        frameskip: integration steps per ``step`` minus one.
        integrator: ``"euler"`` (camar's scheme) or ``"rk4"`` (classical Runge-Kutta on
            the dynamics' continuous-time model, four contact force evaluations per
            integration step; :mod:`~jaxmarl.environments.camar.dynamics`).
        max_obs: obstacles and agents observed (at most ``N + L - 1``).
        pos_shaping_factor: weight of the progress-towards-goal reward.
        contact_force, contact_margin: stiffness and softness of contacts.
        path_obs: observe planned paths (module docstring): a
            :class:`~jaxmarl.environments.camar.planning.PlannerConfig`, a dict of its
            fields, or ``True`` for the paper's RRT* (3,000 iterations); ``None``: off.
        path_obs_waypoints: waypoints observed ahead on the path.
        map_kwargs, dynamic_kwargs: keywords of the generator and the dynamic.
        **map_keywords: more generator keywords (merged with ``map_kwargs``).

    Raises:
        ValueError, TypeError: for an unknown generator, dynamic or keyword, a bad
            value, an agent count the map cannot hold or a malformed layout.
    """

    episode_metrics: ClassVar[Mapping[str, str]] = {
        "success_rate": "last",
        "flowtime": "last",
        "makespan": "last",
        "coordination": "last",
    }

    def __init__(
        self,
        map_generator: MapGenerator | str | type = "random_grid",
        dynamic: Dynamic | str | type = "HolonomicDynamic",
        lifelong: bool = False,
        window: float = 0.3,
        max_steps: int = 100,
        frameskip: int = 2,
        integrator: str = "euler",
        max_obs: int = 3,
        pos_shaping_factor: float = 1.0,
        contact_force: float = 500.0,
        contact_margin: float = 0.001,
        path_obs: PlannerConfig | Mapping[str, Any] | bool | None = None,
        path_obs_waypoints: int = 4,
        map_kwargs: Mapping[str, Any] | None = None,
        dynamic_kwargs: Mapping[str, Any] | None = None,
        **map_keywords: Any,
    ) -> None:
        both = set(map_kwargs or {}) & set(map_keywords)
        if both:
            raise ValueError(f"Camar: {sorted(both)} given both directly and in map_kwargs")
        self.map = make_map(map_generator, {**dict(map_kwargs or {}), **map_keywords})
        self.dynamic = make_dynamic(dynamic, dict(dynamic_kwargs) if dynamic_kwargs else None)
        n = self.map.num_agents
        if hasattr(self.dynamic, "num_agents") and self.dynamic.num_agents != n:
            raise ValueError(f"Camar: MixedDynamic has {self.dynamic.num_agents} agents, the map {n}")
        super().__init__(n)
        self.agents = [f"agent_{i}" for i in range(n)]
        self.lifelong = bool(lifelong)
        self.window = float(window)
        if not self.window > self.map.max_agent_rad:
            raise ValueError(
                f"Camar: window ({window}) must exceed the agent radius ({self.map.max_agent_rad})"
            )
        if isinstance(max_steps, bool) or int(max_steps) != max_steps or max_steps < 1:
            raise ValueError(f"Camar: max_steps must be a positive integer, got {max_steps!r}")
        if isinstance(frameskip, bool) or int(frameskip) != frameskip or frameskip < 0:
            raise ValueError(f"Camar: frameskip must be a non-negative integer, got {frameskip!r}")
        if isinstance(max_obs, bool) or int(max_obs) != max_obs or max_obs < 0:
            raise ValueError(f"Camar: max_obs must be a non-negative integer, got {max_obs!r}")
        if integrator not in INTEGRATORS:
            raise ValueError(f"Camar: integrator must be one of {INTEGRATORS}, got {integrator!r}")
        self.dynamic.check_integrator(integrator)
        self.integrator = integrator
        self.max_steps = self._horizon = int(max_steps)
        self.frameskip = int(frameskip)
        self.num_landmarks = self.map.num_landmarks
        self.max_obs = min(int(max_obs), n + self.num_landmarks - 1)
        self.pos_shaping_factor = float(pos_shaping_factor)
        self.contact_force = float(contact_force)
        self.contact_margin = float(contact_margin)
        if not self.contact_margin > 0:
            raise ValueError(f"Camar: contact_margin must be positive, got {contact_margin!r}")
        self.dt = self.dynamic.dt
        self.step_dt = self.dt * (self.frameskip + 1)
        self.kinds = np.asarray(self.dynamic.kinds(n), np.int32)
        self._kinematic = np.asarray(self.dynamic.kinematic_mask(n), bool)[:, None]

        # Buckets wide enough for the observation window, and finer ones for contacts
        # (a tenth of the candidates on the paper's map) where the map's tables allow.
        contact_reach = self.map.max_agent_rad + self.map.landmark_rad
        self.grid = self.map.bucket_grid(self.window + contact_reach)
        self.contact_grid = self.grid
        if self.map.layouts is not None or self.map.any_grid:
            self.contact_grid = self.map.bucket_grid(contact_reach)
        self._tables: dict[BucketGrid, jax.Array] = {}
        if self.map.layouts is not None:
            for grid in {self.grid, self.contact_grid}:
                self._tables[grid] = jnp.asarray(self.map.layout_tables(grid))

        self.path_obs = self._planner_config(path_obs)
        if (
            isinstance(path_obs_waypoints, bool)
            or int(path_obs_waypoints) != path_obs_waypoints
            or (path_obs_waypoints < 1)
        ):
            raise ValueError(
                f"Camar: path_obs_waypoints must be a positive integer, got {path_obs_waypoints!r}"
            )
        self.path_obs_waypoints = int(path_obs_waypoints)
        self._path_len = 0 if self.path_obs is None else self.path_obs.path_len

        self.base_obs_dim = 2 + 2 * self.max_obs
        max_rad = max(self.map.max_agent_rad, self.map.landmark_rad)
        bound = (self.window + max_rad) / (self.window - self.map.max_agent_rad)
        low = np.full(self.base_obs_dim, -bound, np.float32)
        low[:2] = -1.0
        high = -low
        if self.path_obs is not None:
            k = self.path_obs_waypoints
            # the way to the target (at most the diagonal), then path_len - 2 tree edges of
            # at most rewire_radius and a last jump to the goal (at most the diagonal)
            assert self.path_obs.rewire_radius is not None
            diagonal = float(np.hypot(self.map.width, self.map.height))
            longest = (self._path_len - 2) * self.path_obs.rewire_radius + 2 * diagonal
            low = np.concatenate([low, np.full(2 * k, -1.0), [0.0, 0.0]]).astype(np.float32)
            high = np.concatenate(
                [high, np.full(2 * k, 1.0), [longest / max(self.map.width, self.map.height), 1.0]]
            )
        obs_dim = low.shape[0]
        self.observation_spaces = {
            a: Box(low, high.astype(np.float32), (obs_dim,), jnp.float32) for a in self.agents
        }
        self.action_spaces = {
            a: Box(-1.0, 1.0, (self.dynamic.action_size,), jnp.float32) for a in self.agents
        }

    def _planner_config(self, spec: Any) -> PlannerConfig | None:
        if spec is None or spec is False:
            return None
        if spec is True:
            spec = RRT_STAR
        elif isinstance(spec, Mapping):
            fields = {f.name for f in dataclasses.fields(PlannerConfig)}
            unknown = set(spec) - fields
            if unknown:
                raise TypeError(
                    f"Camar: path_obs got unknown planner keyword(s) {sorted(unknown)}; use {sorted(fields)}"
                )
            spec = PlannerConfig(**dict(spec))
        if not isinstance(spec, PlannerConfig):
            raise TypeError(
                f"Camar: path_obs must be a PlannerConfig, a dict of its fields, True or None, got {spec!r}"
            )
        return spec.resolve(self)

    # ------------------------------------------------------------------ episode
    @partial(jax.jit, static_argnums=(0,))
    def reset(self, key: jax.Array) -> tuple[dict[str, jax.Array], State]:
        """Start an episode (planning its paths with ``path_obs``). Returns ``(obs, state)``."""
        obs, state = self.reset_env(key)
        if self.path_obs is None:
            return obs, state
        state = self._plan_paths(jax.random.fold_in(key, PLAN_SALT), state)
        return self.get_obs(state), state

    @partial(jax.jit, static_argnums=(0,))
    def step(
        self, key: jax.Array, state: State, actions: Mapping[str, jax.Array], reset_state: State | None = None
    ) -> tuple[dict[str, jax.Array], State, dict[str, jax.Array], dict[str, jax.Array], dict[str, Any]]:
        """:meth:`MultiAgentEnv.step`; with ``path_obs``, then plans the paths of a new
        episode (or a new lifelong goal), only where one is needed."""
        obs, state, reward, done, info = MultiAgentEnv.step(self, key, state, actions, reset_state)
        if self.path_obs is None:
            return obs, state, reward, done, info
        state = self._plan_paths(jax.random.fold_in(key, PLAN_SALT), state)
        tail = self._path_features(state)
        obs = {a: obs[a].at[self.base_obs_dim :].set(tail[i]) for i, a in enumerate(self.agents)}
        return obs, state, reward, done, info

    def _plan_paths(self, key: jax.Array, state: State) -> State:
        """Plan every agent's path if any agent of ``state`` needs one, keeping the others'.

        The plan sits in a loop of at most one trip rather than a ``cond``: under ``vmap`` a
        ``cond`` on a batched flag computes both branches, a loop only runs while some
        member of the batch needs it."""
        assert self.path_obs is not None
        cfg = self.path_obs

        def body(carry: tuple[jax.Array, Paths]) -> tuple[jax.Array, Paths]:
            # the key depends on the trip count, so that XLA cannot hoist the plan out of
            # the loop as loop-invariant (and compute it whether the loop runs or not)
            trips, _ = carry
            return trips + 1, plan(self, jax.random.fold_in(key, trips), state, cfg)

        n, p = self.num_agents, self._path_len
        blank = Paths(
            jnp.zeros((n, p, 2), jnp.float32),
            jnp.zeros(n, jnp.float32),
            jnp.zeros(n, bool),
            jnp.zeros(n, jnp.int32),
        )
        need = state.needs_plan
        _, paths = jax.lax.while_loop(lambda c: jnp.any(need) & (c[0] < 1), body, (jnp.int32(0), blank))
        return state.replace(  # type: ignore[attr-defined]
            path=jnp.where(need[:, None, None], paths.waypoints, state.path),
            path_found=jnp.where(need, paths.found, state.path_found),
            needs_plan=jnp.zeros_like(need),
        )

    def _path_features(self, state: State) -> jax.Array:
        return path_features(self, state.pos, state.path, state.path_found, self.path_obs_waypoints)

    def reset_env(self, key: jax.Array) -> tuple[dict[str, jax.Array], State]:
        # With path_obs the paths are planned by reset and step (needs_plan), not here:
        # the automatic reset computes this at every step.
        sample = self.map.reset(key, self.grid)
        n = self.num_agents
        on_goal = jnp.linalg.norm(sample.agent_pos - sample.goal_pos, axis=-1) < sample.goal_rad
        state = State(
            pos=sample.agent_pos.astype(jnp.float32),
            vel=jnp.zeros((n, 2), jnp.float32),
            angle=self.dynamic.initial_angle(sample.agent_pos, sample.goal_pos).astype(jnp.float32),
            goal_pos=sample.goal_pos.astype(jnp.float32),
            agent_rad=sample.agent_rad.astype(jnp.float32),
            goal_rad=sample.goal_rad.astype(jnp.float32),
            landmark_pos=sample.landmark_pos.astype(jnp.float32),
            map_id=sample.map_id,
            table=sample.table,
            free_pos=sample.free_pos.astype(jnp.float32),
            goal_keys=jax.random.key_data(jax.random.split(jax.random.fold_in(key, 1), n)),
            step=jnp.int32(0),
            on_goal=on_goal,
            is_collision=jnp.zeros((n,), bool),
            arrival_step=jnp.full((n,), -1, jnp.int32),
            num_collisions=jnp.zeros((n,), jnp.int32),
            path=jnp.zeros((n, self._path_len, 2), jnp.float32),
            path_found=jnp.zeros((n,), bool),
            needs_plan=jnp.full((n,), self.path_obs is not None),
        )
        return self.get_obs(state), state

    def _near_landmarks(self, state: State, pos: jax.Array, grid: BucketGrid | None = None) -> jax.Array:
        """Indices ``(N, 9 K)`` of the obstacle circles within ``grid.bucket`` (default:
        the observation grid's) of each agent, and maybe a few more (``L`` = none)."""
        grid = self.grid if grid is None else grid
        rows = grid.neighbour_rows(pos)  # (N, 9)
        if self._tables:
            near = self._tables[grid][state.map_id][rows]
        else:
            near = self.map.near_landmarks(state.table, rows, grid)
        return near.reshape(pos.shape[0], -1)

    def _landmarks_ext(self, state: State) -> jax.Array:
        return jnp.concatenate([state.landmark_pos, jnp.full((1, 2), FAR_AWAY, jnp.float32)])

    def _contact(self, delta: jax.Array, min_dist: jax.Array) -> tuple[jax.Array, jax.Array]:
        """Contact force ``(..., 2)`` along ``delta`` and whether it touches ``(...)``."""
        dist = length(delta)  # (observations and rewards use camar's own norm, for exact ties)
        touching = dist <= min_dist
        pen = jnp.logaddexp(0.0, -(dist - min_dist) / self.contact_margin) * self.contact_margin
        safe = jnp.where(dist > 0, dist, 1e-8)
        force = self.contact_force * delta / safe[..., None] * pen[..., None]
        return jnp.where(touching[..., None], force, 0.0), touching

    def _forces(self, state: State, pos: jax.Array) -> tuple[jax.Array, jax.Array]:
        """Total contact force on each agent ``(N, 2)`` and whether it touches anything."""
        n = self.num_agents
        rad = state.agent_rad
        other = ~jnp.eye(n, dtype=bool)
        f_agents, t_agents = self._contact(pos[:, None, :] - pos[None, :, :], rad[:, None] + rad[None, :])
        t_agents = t_agents & other
        f_agents = jnp.where(other[..., None], f_agents, 0.0)
        near = self._near_landmarks(state, pos, self.contact_grid)
        lm = self._landmarks_ext(state)[near]
        f_lm, t_lm = self._contact(pos[:, None, :] - lm, rad[:, None] + self.map.landmark_rad)
        force = jnp.sum(f_agents, axis=1) + jnp.sum(f_lm, axis=1)
        return force, jnp.any(t_agents, axis=1) | jnp.any(t_lm, axis=1)

    def step_env(
        self, key: jax.Array, state: State, actions: Mapping[str, jax.Array]
    ) -> tuple[dict[str, jax.Array], State, dict[str, jax.Array], dict[str, jax.Array], dict[str, Any]]:
        del key
        u = jnp.stack([jnp.asarray(actions[a], jnp.float32) for a in self.agents])

        def substep(carry: Substep, _: None) -> tuple[Substep, None]:
            pos, vel, angle, hit = carry
            force, touching = self._forces(state, pos)
            if self.integrator == "euler":
                pos, vel, angle = self.dynamic.integrate(force, pos, vel, angle, u)
            else:
                pos, vel, angle = self._rk4(state, force, pos, vel, angle, u)
            return (pos, vel, angle, hit | touching), None

        start: Substep = (state.pos, state.vel, state.angle, jnp.zeros((self.num_agents,), bool))
        (pos, vel, angle, hit), _ = jax.lax.scan(substep, start, None, self.frameskip + 1)

        old_dist = jnp.linalg.norm(state.pos - state.goal_pos, axis=-1)
        new_dist = jnp.linalg.norm(pos - state.goal_pos, axis=-1)
        on_goal = new_dist < state.goal_rad
        all_on = jnp.all(on_goal)
        reward = (
            0.5 * on_goal.astype(jnp.float32)
            + 0.5 * all_on.astype(jnp.float32)
            - 1.0 * hit.astype(jnp.float32)
            + self.pos_shaping_factor * (old_dist - new_dist)
        )
        step = state.step + 1
        arrival = jnp.where(on_goal & (state.arrival_step < 0), step, state.arrival_step)
        num_collisions = state.num_collisions + hit.astype(jnp.int32)
        goal_pos, goal_keys, needs_plan = state.goal_pos, state.goal_keys, state.needs_plan
        if self.lifelong:
            keys = jax.random.wrap_key_data(goal_keys)
            new_keys = jax.vmap(lambda k: jax.random.split(k, 1)[0])(keys)
            fresh = self.map.lifelong_goals(new_keys, state.map_id, state.free_pos)
            goal_pos = jnp.where(on_goal[:, None], fresh, goal_pos)
            goal_keys = jnp.where(on_goal[:, None], jax.random.key_data(new_keys), goal_keys)
            needs_plan = needs_plan | (on_goal & (self.path_obs is not None))
        new_state = state.replace(  # type: ignore[attr-defined]
            pos=pos,
            vel=vel,
            angle=angle,
            goal_pos=goal_pos,
            goal_keys=goal_keys,
            step=step,
            on_goal=on_goal,
            is_collision=hit,
            arrival_step=arrival,
            num_collisions=num_collisions,
            needs_plan=needs_plan,
        )
        terminated = jnp.logical_and(all_on, not self.lifelong)
        done = {a: terminated for a in self.agents}
        done["__all__"] = terminated
        info = {"metrics": self.metrics(new_state), "on_goal": on_goal, "is_collision": hit}
        obs = self.get_obs(new_state)
        return obs, new_state, {a: reward[i] for i, a in enumerate(self.agents)}, done, info

    def _rk4(
        self, state: State, force: jax.Array, pos: jax.Array, vel: jax.Array, angle: jax.Array, u: jax.Array
    ) -> tuple[jax.Array, jax.Array, jax.Array]:
        """One classical Runge-Kutta step ``dt`` of the dynamics' continuous-time model;
        ``force`` is the contact force at ``pos``."""
        h = self.dt

        def deriv(p: jax.Array, v: jax.Array, a: jax.Array, f: jax.Array | None = None) -> tuple:
            f = self._forces(state, p)[0] if f is None else f
            return self.dynamic.derivative(f, p, v, a, u)

        def shift(scale: float, k: tuple) -> tuple:
            return pos + scale * k[0], vel + scale * k[1], angle + scale * k[2]

        k1 = deriv(pos, vel, angle, force)
        k2 = deriv(*shift(h / 2, k1))
        k3 = deriv(*shift(h / 2, k2))
        k4 = deriv(*shift(h, k3))
        slope = [(a + 2 * b + 2 * c + d) / 6 for a, b, c, d in zip(k1, k2, k3, k4, strict=True)]
        new_pos, new_vel, new_angle = shift(h, tuple(slope))
        new_vel = jnp.where(self._kinematic, slope[0], new_vel)
        new_vel, new_angle = self.dynamic.project(new_vel, new_angle)
        return new_pos, new_vel, new_angle

    def metrics(self, state: State) -> dict[str, jax.Array]:
        """The episode metrics of ``state`` (module docstring), float32 scalars."""
        t = jnp.where(state.arrival_step >= 0, state.arrival_step, self._horizon).astype(jnp.float32)
        steps = jnp.maximum(state.step, 1).astype(jnp.float32)
        return {
            "success_rate": jnp.mean(state.on_goal.astype(jnp.float32)),
            "flowtime": jnp.sum(t),
            "makespan": jnp.max(t),
            "coordination": 1.0
            - jnp.sum(state.num_collisions).astype(jnp.float32) / (self.num_agents * steps),
        }

    # ------------------------------------------------------------------ observations
    def observe(self, state: State) -> jax.Array:
        """Every agent's observation, float32 ``(N, 2 + 2 max_obs)``."""
        n, pos, rad = self.num_agents, state.pos, state.agent_rad
        near = self._near_landmarks(state, pos)  # (N, C)
        cand_pos = jnp.concatenate(
            [jnp.broadcast_to(pos[None], (n, n, 2)), self._landmarks_ext(state)[near]], 1
        )
        cand_idx = jnp.concatenate([jnp.broadcast_to(jnp.arange(n)[None], (n, n)), n + near], axis=1)
        cand_rad = jnp.concatenate(
            [jnp.broadcast_to(rad[None], (n, n)), jnp.full(near.shape, self.map.landmark_rad, jnp.float32)], 1
        )
        ego = cand_pos - pos[:, None, :]
        dist = jnp.linalg.norm(ego, axis=-1)
        k = self.max_obs + 1
        if self.max_obs > 0:
            wide = min(k + TIE_MARGIN, dist.shape[1])
            _, sel = jax.lax.top_k(-dist, wide)
            d_sel = jnp.take_along_axis(dist, sel, 1)
            i_sel = jnp.take_along_axis(cand_idx, sel, 1)
            _, _, sel = jax.lax.sort((d_sel, i_sel, sel), dimension=1, num_keys=2)
            sel = sel[:, 1:k]  # drop the nearest: the agent itself
            d = jnp.take_along_axis(dist, sel, 1)
            e = jnp.take_along_axis(ego, sel[..., None], 1)
            r_j = jnp.take_along_axis(cand_rad, sel, 1)
            surface = jnp.linalg.norm(e * (1.0 - (rad[:, None] + r_j) / d)[..., None], axis=-1)
            o = e * (1.0 - (self.window + r_j) / d)[..., None]
            o = o / (self.window - rad)[:, None, None]
            o = jnp.where(surface[..., None] < self.window, o, 0.0)
        else:
            o = jnp.zeros((n, 0, 2), jnp.float32)
        g = state.goal_pos - pos
        g_dist = jnp.linalg.norm(g, axis=-1)
        g = jnp.where(g_dist[:, None] > self.window, g / g_dist[:, None], g / self.window)
        return jnp.concatenate([g[:, None, :], o], axis=1).reshape(n, -1)

    def get_obs(self, state: State) -> dict[str, jax.Array]:
        obs = self.observe(state)
        if self.path_obs is not None:
            obs = jnp.concatenate([obs, self._path_features(state)], axis=1)
        return {a: obs[i] for i, a in enumerate(self.agents)}

    def get_global_state(self, state: State) -> jax.Array:
        """Every agent's position, velocity, goal offset, heading (cos, sin), radius and
        on-goal flag (``10 N`` floats), then every agent's observation."""
        feats = jnp.concatenate(
            [
                state.pos,
                state.vel,
                state.goal_pos - state.pos,
                jnp.cos(state.angle)[:, None],
                jnp.sin(state.angle)[:, None],
                state.agent_rad[:, None],
                state.on_goal[:, None].astype(jnp.float32),
            ],
            axis=1,
        )
        return jnp.concatenate([feats.reshape(-1), self.observe(state).reshape(-1)])

    def render(self, state: State, size: int = 512, **kwargs: Any) -> jax.Array:
        """An RGB image of ``state``, ``uint8`` ``(H, W, 3)`` with ``max(H, W) == size``:
        obstacles grey, each agent a coloured disc (differential-drive agents with a
        heading tick), its goal a ring of the same colour."""
        from jaxmarl.environments.camar.viewer import render_state

        return render_state(self, state, size, **kwargs)
