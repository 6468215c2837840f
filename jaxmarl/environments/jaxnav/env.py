"""JaxNav: differential-drive robots with lidar navigate to goals on procedurally generated
maps (Rutherford et al., 2024, "No Regrets: Investigating and Improving Regret
Approximations for Curriculum Discovery"; JaxMARL 0.2.0's ``jaxnav``).

The :class:`JaxNav` docstring is the full spec; the rules are split into
``dynamics.py`` (kinematics), ``geometry.py`` (collisions), ``lidar.py`` (the sensor),
``observations.py``, ``rewards.py`` and ``maps/`` (levels). ``docs/environments/jaxnav.md``
adds the map types and what differs from JaxMARL 0.2.0.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any, ClassVar

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.jaxnav import constants as C
from jaxmarl.environments.jaxnav import observations as O
from jaxmarl.environments.jaxnav.checks import count, flag, real
from jaxmarl.environments.jaxnav.dynamics import Limits, move
from jaxmarl.environments.jaxnav.lidar import lidar_scan
from jaxmarl.environments.jaxnav.maps import Map, make_map
from jaxmarl.environments.jaxnav.outcomes import episode_metrics, jaxmarl_info, level_metrics
from jaxmarl.environments.jaxnav.rewards import RewardWeights, individual_rewards, mix
from jaxmarl.environments.jaxnav.types import EnvInstance, Reward, State, start_state
from jaxmarl.environments.multi_agent_env import MultiAgentEnv
from jaxmarl.environments.spaces import Box, Discrete, Space

__all__ = ["JaxNav"]

Obs = dict[str, jax.Array]


_flag, _real, _count = partial(flag, "JaxNav"), partial(real, "JaxNav"), partial(count, "JaxNav")


class JaxNav(MultiAgentEnv):
    """Robots drive to their goals through a walled world without hitting anything.

    **World.** An occupancy grid of ``map_size`` cells (``cell_size`` m each, border
    walls) holds ``num_agents`` robots, each with a goal (see ``map_id``). Robots are
    0.5 m squares (``Grid-Rand-Poly``, the default), Jackal-sized rectangles
    (``Grid-Rand-Barn``) or discs of radius ``rad`` (``Grid-Rand``, ``Grid-Buffer``).

    **Step** (``dt`` s; the rules of JaxMARL 0.2.0, transition for transition):

    1. Every robot that is not frozen accelerates towards its commanded velocity within
       ``max_v_acc``/``max_w_acc``, clips it to ``[min_v, max_v]``/``[-max_w, max_w]``,
       moves along its heading and turns (``dynamics.py``). Frozen: done robots and,
       unless robots evaporate, robots that collided (velocity zero; evaporated robots
       are parked at the origin, inside the corner wall).
    2. A robot that was not done collides when its footprint touches a wall cell or
       another robot (done ones included) and reaches its goal when its centre is within
       ``goal_radius`` of it.
    3. ``evaporating=True``: a robot is done once it reached its goal, collided or the
       time ran out, and the episode ends when all are done. Otherwise robots stay in
       the world: one that reached its goal keeps driving (its goal stays reached),
       one that collided stays frozen, and the episode ends, for all robots at once,
       when every robot reached its goal or collided, or at ``max_steps`` (a time
       limit: ``info["truncated"]``).

    - **Agents:** ``agent_0`` ... ``agent_{n-1}``.
    - **Actions:** ``act_type="Continuous"``: ``Box((min_v, -pi/6), (max_v, pi/6))``, the
      commanded ``(v, w)`` (out-of-box values are clipped and flagged, see
      ``MultiAgentEnv``); ``"Discrete"``: ``Discrete(15)``, ``(v, w)`` from
      ``constants.DISCRETE_ACTS`` (v in {0, 0.5, 1} x w in {0.5, 0.25, 0, -0.25, -0.5});
      action 2 is standing still (the no-op).
    - **Observation:** float32 ``(lidar_num_beams + 5,)``: lidar readings, velocity,
      goal distance and direction, ``lambda`` (``observations.py``, ``lidar.py``),
      normalised unless ``normalise_obs=False``; the ``Box`` bounds are exact.
    - **Reward:** ``lambda * own + (1 - lambda) * shared`` (``rewards.py``): goal
      ``goal_rew`` and progress ``weight_g`` per metre closed, collision ``coll_rew``,
      time ``dt_rew`` per step, turning ``weight_w``, lidar proximity ``lidar_rew``.
      ``lambda`` is ``rew_lambda`` (``fixed_lambda``) or drawn per episode from
      ``lambda_range`` and observed.
    - **Info:** JaxMARL's ``NumC`` (robots finished), ``GoalR``, ``AgentC``, ``MapC``,
      ``TimeO`` (new goals, robot and wall collisions, time-outs), ``Return``,
      ``terminated`` (done before the step), per robot (``info_by_agent``) or summed;
      ``metrics``: ``goal_rate``, ``collision_rate``, ``timeout_rate`` (shares of robots,
      summed over the episode); with ``do_sep_reward``, ``shaped_reward`` (below).
    - **State:** :class:`jaxmarl.environments.jaxnav.State`.

    Example::

        env = JaxNav(num_agents=2)
        obs, state = env.reset(jax.random.PRNGKey(0))
        actions = {a: jnp.array([1.0, 0.0]) for a in env.agents}  # full speed ahead
        obs, state, reward, done, info = env.step(jax.random.PRNGKey(1), state, actions)

    Args:
        num_agents: robots.
        act_type: ``"Continuous"`` or ``"Discrete"``.
        normalise_obs: normalise observations (see ``observations.py``).
        rad: robot radius (m), below 1: the disc of circular robots, and the clearance
            used to place starts.
        evaporating: robots leave the episode one by one (see Step).
        map_id: one of ``Grid-Rand``, ``Grid-Rand-Poly``, ``Grid-Rand-Barn`` (one robot),
            ``Grid-Rand-Poly-Single`` (``map_params["map_data"]``), ``Grid-Buffer``.
        map_params: the map's parameters (``maps/grid_map.py``), default
            ``{"map_size": (11, 11), "fill": 0.3}``.
        lidar_num_beams, lidar_range_resolution, lidar_max_range, lidar_min_range,
        lidar_angle_factor: the lidar (``lidar.py``; ``lidar_min_range`` must be 0).
        min_v, max_v, max_v_acc, max_w, max_w_acc, dt: speed limits (m/s, rad/s),
            acceleration limits (per s) and the time step (s).
        max_steps: the episode's time limit.
        fixed_lambda, rew_lambda, lambda_range: the reward weight (see Reward).
        goal_radius, goal_rew, weight_g, lim_w, weight_w, dt_rew, coll_rew,
        lidar_thresh, lidar_rew: the reward's terms (``rewards.py``).
        do_sep_reward: the reward is the mixed sparse part only and
            ``info["shaped_reward"]`` the mixed dense part (their sum is the usual
            reward), for a learner that anneals the shaping.
        share_only_sparse: the shared reward is the mean sparse part.
        info_by_agent: info arrays per robot rather than summed.

    Raises:
        ValueError: for a bad keyword value, an unknown ``map_id`` (naming the closest),
            bad ``map_params`` or a robot count the map cannot hold.
    """

    episode_metrics: ClassVar[Mapping[str, str]] = {
        "goal_rate": "sum",  # share of robots that reached their goal
        "collision_rate": "sum",  # share of robots that collided
        "timeout_rate": "sum",  # share of robots still under way at the time limit
    }

    def __init__(
        self,
        num_agents: int = 2,
        act_type: str = "Continuous",
        normalise_obs: bool = True,
        rad: float = 0.3,
        evaporating: bool = False,
        map_id: str = "Grid-Rand-Poly",
        map_params: Mapping[str, Any] | None = None,
        lidar_num_beams: int = 200,
        lidar_range_resolution: float = 0.05,
        lidar_max_range: float = 6.0,
        lidar_min_range: float = 0.0,
        lidar_angle_factor: float = 1.0,
        min_v: float = 0.0,
        max_v: float = 1.0,
        max_v_acc: float = 1.0,
        max_w: float = 0.6,
        max_w_acc: float = 1.0,
        max_steps: int = 500,
        dt: float = 0.1,
        fixed_lambda: bool = True,
        rew_lambda: float | None = 0.5,
        lambda_range: Sequence[float] = (0.0, 1.0),
        goal_radius: float = 0.5,
        goal_rew: float = 4.0,
        weight_g: float = 0.25,
        lim_w: float = 0.7,
        weight_w: float = -0.0,
        dt_rew: float = -0.01,
        coll_rew: float = -4.0,
        lidar_thresh: float = 0.1,
        lidar_rew: float = -0.1,
        do_sep_reward: bool = False,
        share_only_sparse: bool = False,
        info_by_agent: bool = True,
    ) -> None:
        num_agents = _count("num_agents", num_agents)
        super().__init__(num_agents)
        self.agents = [f"agent_{i}" for i in range(num_agents)]
        self.agent_range = jnp.arange(num_agents)
        if act_type not in ("Continuous", "Discrete"):
            raise ValueError(f"JaxNav: act_type must be 'Continuous' or 'Discrete', got {act_type!r}")
        self._act_type = act_type
        self.normalise_obs = _flag("normalise_obs", normalise_obs)
        self.evaporating = _flag("evaporating", evaporating)
        self.rad = _real("rad", rad, 0.0, strict=True)
        if self.rad >= 1:
            raise ValueError(f"JaxNav: rad must be less than 1 (m), got {rad!r}")

        # Kinematics.
        self.dt = _real("dt", dt, 0.0, strict=True)
        self.min_v, self.max_v = _real("min_v", min_v), _real("max_v", max_v)
        if self.min_v >= self.max_v:
            raise ValueError(f"JaxNav: min_v ({min_v}) must be less than max_v ({max_v})")
        if act_type == "Discrete" and self.min_v != 0.0:
            raise ValueError(
                f"JaxNav: min_v must be 0.0 with Discrete actions (their speeds are 0, 0.5, 1), got {min_v}"
            )
        self.max_v_acc = _real("max_v_acc", max_v_acc, 0.0, strict=True)
        self.max_w = _real("max_w", max_w, 0.0, strict=True)
        self.max_w_acc = _real("max_w_acc", max_w_acc, 0.0, strict=True)
        self.max_steps = self._horizon = _count("max_steps", max_steps)

        # Lidar.
        self.lidar_num_beams = _count("lidar_num_beams", lidar_num_beams)
        self.lidar_range_resolution = _real(
            "lidar_range_resolution", lidar_range_resolution, 0.0, strict=True
        )
        self.lidar_max_range = _real("lidar_max_range", lidar_max_range, 0.0, strict=True)
        self.lidar_min_range = _real("lidar_min_range", lidar_min_range)
        if self.lidar_min_range != 0.0:
            raise ValueError(f"JaxNav: lidar_min_range must be 0.0 (as in JaxMARL), got {lidar_min_range!r}")
        self.lidar_angle_factor = _real("lidar_angle_factor", lidar_angle_factor, 0.0, strict=True)
        self.lidar_max_angle = jnp.pi * self.lidar_angle_factor
        self.lidar_angles = jnp.linspace(-self.lidar_max_angle, self.lidar_max_angle, self.lidar_num_beams)
        num_samples = int((self.lidar_max_range - self.lidar_min_range) / self.lidar_range_resolution)
        if num_samples < 2:
            raise ValueError("JaxNav: lidar_max_range must be at least two lidar_range_resolution steps")
        self.lidar_ranges = jnp.linspace(self.lidar_min_range, self.lidar_max_range, num_samples)

        # Reward.
        self.fixed_lambda = _flag("fixed_lambda", fixed_lambda)
        if self.fixed_lambda and rew_lambda is None:
            raise ValueError("JaxNav: rew_lambda must be set when fixed_lambda is True")
        self.rew_lambda = None if rew_lambda is None else _real("rew_lambda", rew_lambda)
        try:
            lo, hi = (float(v) for v in lambda_range)
        except (TypeError, ValueError):
            raise ValueError(f"JaxNav: lambda_range must be (low, high), got {lambda_range!r}") from None
        if not lo <= hi:
            raise ValueError(f"JaxNav: lambda_range must have low <= high, got {lambda_range!r}")
        self.lambda_range = [lo, hi]
        self.goal_radius = _real("goal_radius", goal_radius, 0.0)
        self.goal_rew = _real("goal_rew", goal_rew)
        self.weight_g = _real("weight_g", weight_g)
        self.lim_w = _real("lim_w", lim_w)
        self.weight_w = _real("weight_w", weight_w)
        self.dt_rew = _real("dt_rew", dt_rew)
        self.coll_rew = _real("coll_rew", coll_rew)
        self.lidar_thresh = _real("lidar_thresh", lidar_thresh)
        self.lidar_rew = _real("lidar_rew", lidar_rew)
        self.do_sep_reward = _flag("do_sep_reward", do_sep_reward)
        self.share_only_sparse = _flag("share_only_sparse", share_only_sparse)
        self.info_by_agent = _flag("info_by_agent", info_by_agent)
        self.eval_solved_rate = self.get_eval_solved_rate_fn()

        # Map.
        params = dict(C.DEFAULT_MAP_PARAMS if map_params is None else map_params)
        if not isinstance(map_params, (Mapping, type(None))):
            raise ValueError(f"JaxNav: map_params must be a dict, got {map_params!r}")
        self.map_id = map_id
        self.map_params = params
        self._map_obj = make_map(map_id, num_agents, self.rad, **params)

        self._limits = Limits(self.dt, self.min_v, self.max_v, self.max_v_acc, self.max_w, self.max_w_acc)
        self._obs_cfg = O.ObsConfig(
            self.normalise_obs, self.lidar_max_range, self.max_v, self.max_w, self.lidar_num_beams
        )
        self._weights = RewardWeights(
            self.goal_rew,
            self.weight_g,
            self.lim_w,
            self.weight_w,
            self.dt_rew,
            self.coll_rew,
            self.lidar_thresh,
            self.lidar_rew,
            self.rad,
        )
        self.action_spaces = {a: self.agent_action_space() for a in self.agents}
        self.observation_spaces = {a: self.agent_observation_space() for a in self.agents}

    # ------------------------------------------------------------------ spaces
    @property
    def map_obj(self) -> Map:
        """The map (level generator and collision tests)."""
        return self._map_obj

    @property
    def act_type(self) -> str:
        """``"Continuous"`` or ``"Discrete"``."""
        return self._act_type

    def agent_action_space(self) -> Space:
        """Every robot's action space."""
        if self._act_type == "Discrete":
            return Discrete(C.NUM_DISCRETE_ACTIONS)
        low = np.array([self.min_v, -C.MAX_TURN_COMMAND], np.float32)
        high = np.array([self.max_v, C.MAX_TURN_COMMAND], np.float32)
        return Box(low, high, (2,), jnp.float32)

    def agent_observation_space(self) -> Box:
        """Every robot's observation space (exact bounds)."""
        if self.fixed_lambda:
            lam_lo = lam_hi = float(self.rew_lambda)  # type: ignore[arg-type]
        else:
            lam_lo, lam_hi = self.lambda_range
        low, high = O.bounds(self._obs_cfg, self.min_v, lam_lo, lam_hi)
        return Box(low, high, (self.lidar_num_beams + 5,), jnp.float32)

    def noop_action(self, agent: str) -> Any:
        """Standing still: discrete action 2, or the command ``(0, 0)`` (clipped into the box)."""
        if self._act_type == "Discrete":
            return C.DISCRETE_NOOP
        return super().noop_action(agent)

    def get_avail_actions(self, state: State) -> dict[str, jax.Array]:
        """Every action is always legal."""
        return super().get_avail_actions(state)

    # ------------------------------------------------------------------ episodes
    def sample_lambda(self, key: jax.Array) -> jax.Array:
        """The episode's reward weight: ``rew_lambda``, or uniform in ``lambda_range``."""
        if self.fixed_lambda:
            return jnp.float32(self.rew_lambda)
        lo, hi = self.lambda_range
        return jax.random.uniform(key, (1,), minval=lo, maxval=hi)[0]

    def _start_state(self, map_data: jax.Array, test_case: jax.Array, rew_lambda: jax.Array) -> State:
        return start_state(map_data, test_case, rew_lambda)

    def sample_test_case(self, key: jax.Array) -> State:
        """A new episode's start state (JaxMARL's draws: the key splits into the level's
        and lambda's)."""
        key_level, key_lambda = jax.random.split(key)
        map_data, test_case = self._map_obj.sample_test_case(key_level)
        return self._start_state(map_data, test_case, self.sample_lambda(key_lambda))

    def reset_env(self, key: jax.Array) -> tuple[Obs, State]:
        state = self.sample_test_case(key)
        return self.get_obs(state), state

    def generate_scenario(self, key: jax.Array) -> tuple[jax.Array, jax.Array]:
        """A level ``(map_data, test_case)`` (see ``maps/map.py``)."""
        return self._map_obj.sample_scenario(key)

    def set_state(self, state: State) -> tuple[Obs, State]:
        """``(obs, state)`` for a given state (e.g. one of JaxMARL's)."""
        return self.get_obs(state), state

    def set_env_instance(self, encoding: EnvInstance) -> tuple[Obs, State]:
        """Start an episode from an :class:`EnvInstance`."""
        case = jnp.stack(
            [
                jnp.concatenate([encoding.agent_pos, jnp.reshape(encoding.agent_theta, (-1, 1))], axis=1),
                jnp.concatenate([encoding.goal_pos, jnp.zeros((self.num_agents, 1))], axis=1),
            ],
            axis=1,
        )
        state = self._start_state(encoding.map_data, case, encoding.rew_lambda)
        return self.get_obs(state), state

    @partial(jax.jit, static_argnums=(0,))
    def reset_to_level(self, level: tuple[jax.Array, jax.Array]) -> tuple[Obs, State]:
        """Start an episode from a level ``(map_data, test_case)`` with the fixed
        ``rew_lambda`` (JaxMARL 0.2.0's version fails: its state lacks two fields)."""
        map_data, test_case = level
        lam = self.rew_lambda if self.rew_lambda is not None else 0.0
        state = self._start_state(map_data, test_case, jnp.float32(lam))
        return self.get_obs(state), state

    @partial(jax.jit, static_argnums=(0,))
    def step_plr(
        self, key: jax.Array, state: State, actions: dict[str, jax.Array], level: tuple[jax.Array, jax.Array]
    ) -> tuple[Obs, State, dict[str, jax.Array], dict[str, jax.Array], dict[str, Any]]:
        """:meth:`step`, restarting from ``level`` (``reset_to_level``) when the episode ends."""
        return self.step(key, state, actions, reset_state=self.reset_to_level(level)[1])

    # ------------------------------------------------------------------ rules
    def commands(self, actions: jax.Array) -> jax.Array:
        """The ``(v, w)`` each robot asks for, ``(n, 2)``, from stacked actions."""
        if self._act_type == "Discrete":
            return jnp.asarray(C.DISCRETE_ACTS)[actions]
        return jnp.asarray(actions, jnp.float32).reshape(self.num_agents, 2)

    def update_state(
        self, pos: jax.Array, theta: jax.Array, speed: jax.Array, action: jax.Array, done: jax.Array
    ) -> tuple[jax.Array, jax.Array, jax.Array]:
        """Kinematics of every robot (``dynamics.move``): ``(pos, theta, vel)``; robots
        in ``done`` are frozen."""
        return move(pos, theta, speed, action, done, self._limits, self.evaporating)

    def lidar(self, state: State) -> jax.Array:
        """Every robot's lidar readings in metres, ``(n, lidar_num_beams)``."""
        hit = partial(self._map_obj.beam_hit, resolution=self.lidar_range_resolution)
        scan = partial(
            lidar_scan,
            pos=state.pos,
            theta=state.theta,
            map_data=state.map_data,
            angles=self.lidar_angles,
            ranges=self.lidar_ranges,
            cell_size=self._map_obj.cell_size,
            robot_hit=hit,
        )
        return jax.vmap(scan)(self.agent_range)

    def compute_reward(
        self,
        obs: jax.Array,
        new_pos: jax.Array,
        old_pos: jax.Array,
        act: jax.Array,
        goal: jax.Array,
        collision: jax.Array,
        goal_reached: jax.Array,
        done: jax.Array,
        old_goal_reached: jax.Array,
        old_move_term: jax.Array,
    ) -> tuple[jax.Array, Reward]:
        """Each robot's own reward ``(n,)`` and its sparse and dense parts (``rewards.py``),
        from the new observations ``obs`` ``(n, obs_dim)`` and the step's flags."""
        lidar = obs[:, : self.lidar_num_beams]
        if self.normalise_obs:
            lidar = O.unnormalise_lidar(self._obs_cfg, lidar)
        total, sparse, dense = individual_rewards(
            self._weights,
            lidar,
            new_pos,
            old_pos,
            act,
            goal,
            collision,
            goal_reached,
            done,
            old_goal_reached,
            old_move_term,
        )
        return total, Reward(sparse, dense)

    def step_env(
        self, key: jax.Array, state: State, actions: dict[str, jax.Array]
    ) -> tuple[Obs, State, dict[str, jax.Array], dict[str, jax.Array], dict[str, Any]]:
        del key  # the rules are deterministic
        n = self.num_agents
        command = self.commands(jnp.stack([jnp.asarray(actions[a]) for a in self.agents]))

        # 1. Move.
        frozen = state.done if self.evaporating else state.done | state.move_term
        pos, theta, vel = self.update_state(state.pos, state.theta, state.vel, command, frozen)
        step = state.step + 1

        # 2. Collisions, goals, time.
        active = ~state.done
        map_hit = jax.vmap(self._map_obj.check_agent_map_collision, in_axes=(0, 0, None))(
            pos, theta, state.map_data
        )
        map_hit = map_hit & active
        if n > 1:
            robot_hit = self._map_obj.check_all_agent_agent_collisions(pos, theta) & active
        else:
            robot_hit = jnp.zeros((n,), bool)
        collided = map_hit | robot_hit
        at_goal = (jnp.sqrt(jnp.sum((pos - state.goal) ** 2, axis=1)) <= self.goal_radius) & active
        time_up = jnp.full((n,), step >= self._horizon)

        # 3. Outcomes.
        if self.evaporating:
            goal_reached, collisions = at_goal, collided
            finished = collisions | goal_reached | state.done
            dones = finished | time_up
            ep_done = jnp.all(dones)
            terminated = finished
        else:
            goal_reached, collisions = at_goal | state.goal_reached, collided | state.move_term
            ep_done = jnp.all(goal_reached | collisions | time_up)
            dones = jnp.full((n,), ep_done)
            terminated = jnp.full((n,), jnp.all(goal_reached | collisions))
        new_state = state.replace(
            pos=pos,
            theta=theta,
            vel=vel,
            move_term=collisions,
            goal_reached=goal_reached,
            done=dones,
            term=state.done,
            step=step,
            ep_done=ep_done,
        )
        obs = O.build(self._obs_cfg, self.lidar(new_state), pos, theta, vel, state.goal, state.rew_lambda)

        # 4. Rewards.
        own, parts = self.compute_reward(
            obs,
            pos,
            state.pos,
            command,
            state.goal,
            collisions,
            goal_reached,
            state.done,
            state.goal_reached,
            state.move_term,
        )
        # With a fixed lambda, the constant (as JaxMARL: it compiles to the same bits).
        lam = float(self.rew_lambda) if self.fixed_lambda else jnp.reshape(state.rew_lambda, ())  # type: ignore[arg-type]
        mean_own = own.mean()
        shared = parts.sparse.mean() if self.share_only_sparse else mean_own
        reward = mix(own, shared, lam)
        info: dict[str, Any] = {}
        if self.do_sep_reward:
            shared_dense = 0.0 if self.share_only_sparse else parts.dense.mean()
            reward = mix(parts.sparse, parts.sparse.mean(), lam)
            info["shaped_reward"] = dict(zip(self.agents, mix(parts.dense, shared_dense, lam), strict=True))

        # 5. Info (JaxMARL's) and episode metrics.
        info.update(
            jaxmarl_info(
                self.agents,
                self.evaporating,
                self.info_by_agent,
                state,
                new_state,
                map_hit,
                robot_hit,
                time_up,
                reward,
                mean_own,
            )
        )
        still_going = ~finished if self.evaporating else ~(collisions | goal_reached)
        info["metrics"] = episode_metrics(state, new_state, map_hit, robot_hit, time_up & still_going)
        term = {a: terminated[i] for i, a in enumerate(self.agents)}
        term["__all__"] = jnp.all(terminated)
        obs_dict = {a: obs[i] for i, a in enumerate(self.agents)}
        return obs_dict, new_state, {a: reward[i] for i, a in enumerate(self.agents)}, term, info

    # ------------------------------------------------------------------ observations
    def _obs_array(self, state: State) -> jax.Array:
        lidar = self.lidar(state)
        return O.build(self._obs_cfg, lidar, state.pos, state.theta, state.vel, state.goal, state.rew_lambda)

    def get_obs(self, state: State) -> Obs:
        obs = self._obs_array(state)
        return {a: obs[i] for i, a in enumerate(self.agents)}

    def normalise_lidar(self, ranges: jax.Array) -> jax.Array:
        """Readings in metres to ``[-0.5, 0.5]``."""
        return O.normalise_lidar(self._obs_cfg, ranges)

    def unnormalise_lidar(self, ranges: jax.Array) -> jax.Array:
        """Normalised readings back to metres."""
        return O.unnormalise_lidar(self._obs_cfg, ranges)

    def unnormalise_obs(self, obs_batch: jax.Array) -> jax.Array:
        """Normalised observations ``(n, obs_dim)`` back to metres, m/s and radians."""
        return O.unnormalise(self._obs_cfg, obs_batch)

    def _world_features(self, state: State) -> jax.Array:
        size = jnp.array([self._map_obj.width, self._map_obj.height], jnp.float32) * self._map_obj.cell_size
        return jnp.concatenate(
            [
                state.map_data[1:-1, 1:-1].reshape(-1).astype(jnp.float32),
                (state.pos / size - 0.5).reshape(-1),
                (state.theta / jnp.pi - 0.5).reshape(-1),
                (state.goal / size - 0.5).reshape(-1),
                (state.vel / jnp.array([self.max_v, self.max_w]) - 0.5).reshape(-1),
                jnp.reshape(state.step / self._horizon - 0.5, (1,)),
            ]
        )

    def get_world_state(self, state: State) -> jax.Array:
        """JaxMARL's per-robot world state, ``(n, n + world + obs_dim)``: a one-hot robot
        id, the world (inner walls, poses, goals, velocities, time, normalised) and the
        robot's own observation."""
        features = self._world_features(state)
        world = jnp.broadcast_to(features, (self.num_agents, features.size))
        return jnp.concatenate([jnp.eye(self.num_agents), world, self._obs_array(state)], axis=1)

    def get_global_state(self, state: State) -> jax.Array:
        """The world (as in :meth:`get_world_state`) and every robot's observation, 1-d."""
        return jnp.concatenate([self._world_features(state), self._obs_array(state).reshape(-1)])

    # ------------------------------------------------------------------ evaluation
    def get_monitored_metrics(self) -> list[str]:
        """The info entries training scripts log (JaxMARL's list)."""
        return list(C.MONITORED_METRICS)

    def get_eval_solved_rate_fn(self) -> Callable[[Mapping[str, jax.Array]], jax.Array]:
        """``fn(ep_stats) = ep_stats["GoalR"] / ep_stats["NumC"]``: goals per finished robot."""

        def solved_rate(ep_stats: Mapping[str, jax.Array]) -> jax.Array:
            return ep_stats["GoalR"] / ep_stats["NumC"]

        return solved_rate

    def get_env_metrics(self, state: State) -> dict[str, jax.Array]:
        """Level statistics: inner walls, and the mean (and standard error) over robots of
        the shortest grid path from start to goal, in cells, among robots whose goal is
        reachable, and the share of such robots (``passable``)."""
        return level_metrics(self._map_obj, state)

    # ------------------------------------------------------------------ rendering
    def render(
        self, state: State, size: int = 400, lidar: bool = False, goal_lines: bool = True
    ) -> jax.Array:
        """An RGB image of ``state``, uint8 ``(H, W, 3)`` with ``max(H, W) == size``: walls,
        goals (rings of ``goal_radius`` in their robot's colour), robots (grey once done)
        with a heading line, a faint line to each goal (``goal_lines``) and, with
        ``lidar``, each robot's lidar hit points (see ``viewer.py``)."""
        from jaxmarl.environments.jaxnav.viewer import render_state

        readings = self.lidar(state) if lidar else None
        return render_state(self, state, size, readings, goal_lines)

    def init_render(
        self, ax: Any, state: State, obs: Obs | None = None, lidar: bool = True, **kwargs: Any
    ) -> Any:
        """Draw ``state`` on a matplotlib axis (JaxMARL's helper; see ``viewer.py``)."""
        from jaxmarl.environments.jaxnav.viewer import init_render

        return init_render(self, ax, state, obs, lidar=lidar, **kwargs)

    def plot_lidar(self, ax: Any, obs: Obs, state: State, num_to_plot: int = 10) -> None:
        """Scatter ``num_to_plot`` lidar hit points per robot on a matplotlib axis."""
        from jaxmarl.environments.jaxnav.viewer import plot_lidar

        plot_lidar(self, ax, obs, state, num_to_plot)
