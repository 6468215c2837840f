"""SearchAndRescue: searchers on a torus look for drifting targets (Jumanji 1.1.2)."""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from typing import Any, ClassVar

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.jumanji.common import agent_names, build_generator
from jaxmarl.environments.jumanji.search_and_rescue import constants as C
from jaxmarl.environments.jumanji.search_and_rescue.dynamics import RandomWalk, move_searchers
from jaxmarl.environments.jumanji.search_and_rescue.generator import REQUIRED_ATTRIBUTES, RandomGenerator
from jaxmarl.environments.jumanji.search_and_rescue.geometry import in_range, in_view_cone
from jaxmarl.environments.jumanji.search_and_rescue.observations import AgentAndTargetObservationFn
from jaxmarl.environments.jumanji.search_and_rescue.reward import IndividualRewardFn
from jaxmarl.environments.jumanji.search_and_rescue.types import SearcherState, State, TargetState
from jaxmarl.environments.multi_agent_env import MultiAgentEnv
from jaxmarl.environments.spaces import Box

__all__ = ["SearchAndRescue", "newly_found"]

TASK = "SearchAndRescue"
# A view entry is a distance over the range, at most 1; at the exact edge of the range
# float32 rounding can give one step more (1 + 2**-23), in Jumanji too.
VIEW_MAX = float(np.nextafter(np.float32(1.0), np.float32(2.0)))


def _number(name: str, value: Any, low: float, high: float = math.inf, low_open: bool = False) -> float:
    """``value`` as a float, or a ``ValueError`` unless it lies in ``[low, high]``
    (``(low, high]`` when ``low_open``)."""
    ok = not isinstance(value, bool) and isinstance(value, (int, float, np.integer, np.floating))
    if ok:
        ok = (value > low if low_open else value >= low) and value <= high
    if not ok:
        interval = f"{'(' if low_open else '['}{low}, {high}{']' if high < math.inf else ')'}"
        raise ValueError(f"{TASK}: {name} must be a number in {interval}, got {value!r}")
    return float(value)


def newly_found(
    searchers: SearcherState,
    targets: TargetState,
    contact_range: float,
    view_angle: float,
    env_size: float,
) -> jax.Array:
    """Which searcher finds which target this step, bool ``(num_searchers, num_targets)``.

    A searcher finds a target not yet found when the target is within ``contact_range``
    (the neighbour rule of :func:`~.geometry.in_range`) and within ``view_angle * pi`` of
    its heading, bounds included. Several searchers may find one target at once.
    """
    close = in_range(searchers.pos, targets.pos, contact_range, env_size)
    seen = in_view_cone(
        searchers.pos[:, None, :], searchers.heading[:, None], targets.pos[None, :, :], view_angle, env_size
    )
    return close & seen & ~targets.found[None, :]


class SearchAndRescue(MultiAgentEnv):
    """Searchers sweep a wrap-around square for targets that drift at random.

    Jumanji 1.1.2's ``SearchAndRescue-v0`` with each searcher an agent. ``num_searchers``
    searchers (default 2) and ``num_targets`` targets (default 40) live on a square torus
    of side ``env_size`` (default 1). A searcher finds a target by coming within
    ``target_contact_range`` of it while it is in its view cone; found targets stay found.

    - **Agents:** ``agent_0 .. agent_{S-1}``, searcher ``i`` in Jumanji's order.
    - **Actions:** ``Box(-1, 1, (2,), float32)`` per agent, ``[rotation, acceleration]``.
      Every action is legal (``get_avail_actions``: all-true masks of shape ``(2,)``);
      values outside ``[-1, 1]`` are clipped (and flagged in ``info["invalid_action"]``).
    - **Searcher motion**, all searchers at once: heading ``+= rotation *
      searcher_max_rotate * pi`` (mod ``2 pi``), speed ``= clip(speed + acceleration *
      searcher_max_accelerate, searcher_min_speed, searcher_max_speed)``, then position
      ``+= speed * (cos heading, sin heading)`` (mod ``env_size``).
    - **Target motion** (``target_dynamics``, default ``RandomWalk(acc_std=1e-4,
      vel_max=0.002)``): velocity ``+= acc_std * normal``, scaled down to ``vel_max`` if
      longer, position ``+= velocity`` (mod ``env_size``). The randomness comes from
      ``state.key``: each step ``state.key, target_key = split(state.key)`` exactly as in
      Jumanji (the ``key`` given to ``step`` is not used), so episodes match Jumanji's.
    - **Finding** (after both moves): searcher ``i`` newly finds target ``k`` if ``k`` is
      not yet found, their torus distance is at most ``target_contact_range`` and the
      bearing of ``k`` is within ``view_angle * pi`` of ``i``'s heading (``view_angle``
      of the observation function, 0.4 by default).
    - **Reward** (``reward_fn``, default ``IndividualRewardFn()``), per agent: 1 per
      target it newly finds, split equally among the searchers finding the same target in
      the same step (``split_rewards``), times ``(time_limit - t) / time_limit`` with
      ``t`` the step count before the step (``scale_rewards``).
    - **Observation** of agent ``i``, float32 ``(3 * V + 2 + 2 * S,)`` (``V =
      num_vision``, 128 by default; 390 with the defaults):

      ===========================  =================  =============
      field                        shape              offset
      ===========================  =================  =============
      own view, channel-major      ``(3, V)``         0
      ``targets_remaining``        ``()``             ``3 V``
      ``step``                     ``()``             ``3 V + 1``
      ``positions / env_size``     ``(S, 2)``         ``3 V + 2``
      ===========================  =================  =============

      The view (Jumanji's ``searcher_views[i]``, see
      :class:`~.observations.AgentAndTargetObservationFn`) has ``V`` rays over ``[-0.4
      pi, 0.4 pi]`` around the heading; channel 0 shows other searchers within 0.4,
      channel 1 found and channel 2 unfound targets within 0.1, each ray the nearest
      distance divided by the range, -1 where nothing is seen. The rest is shared by all
      agents: the fraction of targets not yet found, the step count (as float) and every
      searcher's position in ``[0, 1]``, agent-major ``[x0, y0, x1, y1, ...]``. A custom
      ``observation`` with ``C`` channels gives ``C * V`` view entries. A distance can
      be one float32 step above 1 at the exact edge of a range, as in Jumanji; the
      space's bound allows it. Which pairs see or find each other follows Jumanji's
      esquilax neighbour search exactly (:mod:`~.geometry`), written as all-pairs JAX.
    - **Episode end:** all targets found terminates every agent. The time limit
      ``time_limit`` (``max_steps``) truncates. Jumanji marks both as termination
      (discount 0); on a step that does both, ours reports termination.
    - **Info:** ``info["metrics"]["percent_found"]`` (``"last"``): 100 times the fraction
      of targets found (not in Jumanji, which reports no extras).
    - **Global state** (``get_global_state``), float32 ``(5 S + 5 T + 2,)``: searcher
      positions ``/ env_size`` ``(S, 2)``, headings as ``(cos, sin)`` ``(S, 2)``, speeds
      ``/ searcher_max_speed`` ``(S,)``, target positions ``/ env_size`` ``(T, 2)``,
      velocities ``/ env_size`` ``(T, 2)``, found flags ``(T,)``, then
      ``targets_remaining`` and ``step / time_limit``.

    Args:
        target_contact_range: the range at which a searcher finds a target (also the
            visual radius of searchers and targets in the default observation).
        searcher_max_rotate: the largest turn per step, a fraction of pi, in ``[0, 1]``.
        searcher_max_accelerate: the largest change of speed per step, ``>= 0``.
        searcher_min_speed, searcher_max_speed: the searchers' speed range.
        time_limit: steps per episode (``max_steps``).
        target_dynamics: ``(key, targets, env_size) -> targets``; default ``RandomWalk()``.
        generator: the instance generator (protocol in
            :mod:`jaxmarl.environments.jumanji.common`, attributes ``num_searchers``,
            ``num_targets``, ``env_size``); default ``RandomGenerator``.
        reward_fn: ``(found[searcher, target], step, time_limit) -> rewards``; default
            ``IndividualRewardFn()``.
        observation: the view function (``num_channels``, ``num_vision``, ``view_angle``
            and ``__call__(state)``); default ``AgentAndTargetObservationFn(num_vision=128,
            searcher_vision_range=0.4, target_vision_range=0.1, view_angle=0.4,
            agent_radius=target_contact_range, env_size=env_size)``.
        num_searchers, num_targets, env_size: the default generator's keywords (``None``:
            2, 40 and 1.0); not allowed together with ``generator``.

    Raises:
        ValueError: for a bad number, a generator whose counts, size or initial speed
            range do not fit the env, or an observation for another ``env_size``.
        TypeError: for a generator, observation, reward or dynamics that does not keep
            its protocol.

    Example::

        import jax, jaxmarl
        env = jaxmarl.make("SearchAndRescue-v0", num_searchers=3)
        obs, state = env.reset(jax.random.PRNGKey(0))
        actions = {a: env.action_space(a).sample(jax.random.PRNGKey(1)) for a in env.agents}
        obs, state, reward, done, info = env.step(jax.random.PRNGKey(2), state, actions)
    """

    max_steps: int
    episode_metrics: ClassVar[Mapping[str, str]] = {"percent_found": "last"}

    def __init__(
        self,
        target_contact_range: float = C.TARGET_CONTACT_RANGE,
        searcher_max_rotate: float = C.SEARCHER_MAX_ROTATE,
        searcher_max_accelerate: float = C.SEARCHER_MAX_ACCELERATE,
        searcher_min_speed: float = C.SEARCHER_MIN_SPEED,
        searcher_max_speed: float = C.SEARCHER_MAX_SPEED,
        time_limit: int = C.TIME_LIMIT,
        target_dynamics: Any | None = None,
        generator: Any | None = None,
        reward_fn: Any | None = None,
        observation: Any | None = None,
        num_searchers: int | None = None,
        num_targets: int | None = None,
        env_size: float | None = None,
    ) -> None:
        self.searcher_max_rotate = _number("searcher_max_rotate", searcher_max_rotate, 0.0, 1.0)
        self.searcher_max_accelerate = _number("searcher_max_accelerate", searcher_max_accelerate, 0.0)
        self.searcher_min_speed = _number("searcher_min_speed", searcher_min_speed, 0.0)
        self.searcher_max_speed = _number("searcher_max_speed", searcher_max_speed, self.searcher_min_speed)
        if isinstance(time_limit, bool) or not isinstance(time_limit, (int, np.integer)) or time_limit < 1:
            raise ValueError(f"{TASK}: time_limit must be an int >= 1, got {time_limit!r}")
        self.time_limit = self.max_steps = int(time_limit)

        default = functools.partial(
            RandomGenerator,
            searcher_min_speed=self.searcher_min_speed,
            searcher_max_speed=self.searcher_max_speed,
        )
        keywords = {"num_searchers": num_searchers, "num_targets": num_targets, "env_size": env_size}
        self.generator = build_generator(TASK, generator, default, keywords, REQUIRED_ATTRIBUTES)
        self._check_generator()
        self.env_size = float(self.generator.env_size)
        self.num_targets = int(self.generator.num_targets)
        self.target_contact_range = _number(
            "target_contact_range", target_contact_range, 0.0, self.env_size, low_open=True
        )

        self.target_dynamics = RandomWalk() if target_dynamics is None else target_dynamics
        self.reward_fn = IndividualRewardFn() if reward_fn is None else reward_fn
        if observation is None:
            observation = AgentAndTargetObservationFn(
                agent_radius=self.target_contact_range, env_size=self.env_size
            )
        self.observation = observation
        self._check_components()

        num_agents = int(self.generator.num_searchers)
        super().__init__(num_agents=num_agents)
        self.agents = agent_names(num_agents)
        self.view_size = int(self.observation.num_channels) * int(self.observation.num_vision)
        obs_size = self.view_size + 2 + 2 * num_agents
        low = np.concatenate([-np.ones(self.view_size), [0.0, 0.0], np.zeros(2 * num_agents)])
        high = np.concatenate(
            [np.full(self.view_size, VIEW_MAX), [1.0, self.time_limit], np.ones(2 * num_agents)]
        )
        self.observation_spaces = {a: Box(low, high, (obs_size,), jnp.float32) for a in self.agents}
        self.action_spaces = {a: Box(-1.0, 1.0, (2,), jnp.float32) for a in self.agents}

    def _check_generator(self) -> None:
        gen = self.generator
        for name in ("num_searchers", "num_targets"):
            value = getattr(gen, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"{TASK}: the generator's {name} must be an int >= 1, got {value!r}")
        _number("the generator's env_size", gen.env_size, 0.0, low_open=True)
        speeds = (getattr(gen, "searcher_min_speed", None), getattr(gen, "searcher_max_speed", None))
        if speeds != (None, None) and speeds != (self.searcher_min_speed, self.searcher_max_speed):
            raise ValueError(
                f"{TASK}: the generator draws initial speeds in [{speeds[0]}, {speeds[1]}] but the env's "
                f"searchers move at [{self.searcher_min_speed}, {self.searcher_max_speed}]; give the "
                "generator the env's searcher_min_speed and searcher_max_speed"
            )

    def _check_components(self) -> None:
        obs = self.observation
        missing = [n for n in ("num_channels", "num_vision", "view_angle") if not hasattr(obs, n)]
        if missing or not callable(obs):
            raise TypeError(
                f"{TASK}: observation {type(obs).__name__} must be callable (state -> views) with "
                f"num_channels, num_vision and view_angle; it lacks {missing or ['__call__']}"
            )
        _number("the observation's view_angle", obs.view_angle, 0.0, 1.0)
        obs_size = getattr(obs, "env_size", self.env_size)
        if obs_size != self.env_size:
            raise ValueError(
                f"{TASK}: the observation is built for env_size={obs_size} but the generator's "
                f"env_size is {self.env_size}"
            )
        for name in ("target_dynamics", "reward_fn"):
            if not callable(getattr(self, name)):
                raise TypeError(f"{TASK}: {name} must be callable, got {getattr(self, name)!r}")

    # ------------------------------------------------------------------- env API
    def reset_env(self, key: jax.Array) -> tuple[dict[str, jax.Array], State]:
        state = self.generator(key)
        return self.get_obs(state), state

    def step_env(
        self, key: jax.Array, state: State, actions: dict[str, jax.Array]
    ) -> tuple[dict[str, jax.Array], State, dict[str, jax.Array], dict[str, jax.Array], dict]:
        del key  # the targets draw from state.key, as in Jumanji
        joint = jnp.stack([jnp.asarray(actions[a], jnp.float32) for a in self.agents])
        key, target_key = jax.random.split(state.key)
        searchers = move_searchers(
            state.searchers,
            joint,
            max_rotate=self.searcher_max_rotate,
            max_accelerate=self.searcher_max_accelerate,
            min_speed=self.searcher_min_speed,
            max_speed=self.searcher_max_speed,
            env_size=self.env_size,
        )
        targets = self.target_dynamics(target_key, state.targets, self.env_size)
        found_now = newly_found(
            searchers, targets, self.target_contact_range, self.observation.view_angle, self.env_size
        )
        reward = jnp.asarray(self.reward_fn(found_now, state.step, self.time_limit), jnp.float32)
        found = jnp.any(found_now, axis=0) | state.targets.found
        state = State(
            searchers=searchers,
            targets=TargetState(pos=targets.pos, vel=targets.vel, found=found),
            key=key,
            step=state.step + 1,
        )
        all_found = jnp.all(found)
        terminated = {a: all_found for a in self.agents}
        terminated["__all__"] = all_found
        info = {"metrics": {"percent_found": 100.0 * jnp.sum(found, dtype=jnp.float32) / self.num_targets}}
        rewards = {a: reward[i] for i, a in enumerate(self.agents)}
        return self.get_obs(state), state, rewards, terminated, info

    def targets_remaining(self, state: State) -> jax.Array:
        """The fraction of targets not yet found, float32 ``()`` (Jumanji's formula)."""
        return (1.0 - jnp.sum(state.targets.found) / self.num_targets).astype(jnp.float32)

    def get_obs(self, state: State) -> dict[str, jax.Array]:
        """Each agent's view, then the shared fields; layout in the class docstring."""
        views = jnp.asarray(self.observation(state), jnp.float32).reshape(self.num_agents, -1)
        shared = jnp.concatenate(
            [
                self.targets_remaining(state)[None],
                state.step.astype(jnp.float32)[None],
                (state.searchers.pos / self.env_size).reshape(-1),
            ]
        )
        rows = jnp.concatenate([views, jnp.broadcast_to(shared, (self.num_agents, shared.shape[0]))], axis=1)
        return {a: rows[i] for i, a in enumerate(self.agents)}

    def get_global_state(self, state: State) -> jax.Array:
        """The true state, float32 ``(5 S + 5 T + 2,)``; layout in the class docstring."""
        s, t = state.searchers, state.targets
        speed_scale = 1.0 / self.searcher_max_speed if self.searcher_max_speed > 0 else 1.0
        parts = [
            (s.pos / self.env_size).reshape(-1),
            jnp.stack([jnp.cos(s.heading), jnp.sin(s.heading)], axis=-1).reshape(-1),
            s.speed * speed_scale,
            (t.pos / self.env_size).reshape(-1),
            (t.vel / self.env_size).reshape(-1),
            t.found.astype(jnp.float32),
            self.targets_remaining(state)[None],
            (state.step / self.time_limit)[None],
        ]
        return jnp.concatenate([jnp.asarray(p, jnp.float32) for p in parts])

    def render(self, state: State, size: int = 512) -> jax.Array:
        """Draw the torus as a ``(size, size, 3)`` uint8 image in Jumanji's colours: searchers
        as near-black arrows along their headings, unfound targets as orange dots, found
        ones light grey; ``y`` up. ``size`` is a Python int (static under ``jit``); the
        image is exactly ``size`` x ``size``. Pure JAX, so batches render under ``vmap``."""
        from jaxmarl.environments.jumanji.search_and_rescue.viewer import render_state

        return render_state(state, self.env_size, size)

    def __repr__(self) -> str:
        return (
            f"SearchAndRescue(num_searchers={self.num_agents}, num_targets={self.num_targets}, "
            f"env_size={self.env_size}, time_limit={self.time_limit}, generator={self.generator!r}, "
            f"observation={self.observation!r}, reward_fn={self.reward_fn!r}, "
            f"target_dynamics={self.target_dynamics!r})"
        )
