"""The MPE world: entities, physics, action decoding and the base class of every scenario.

The multi-agent particle environments (Lowe et al. 2017; Mordatch & Abbeel 2018) are a
2-d world of round agents and landmarks. Agents move by applying forces and speak by
setting a communication vector; entities that collide push each other apart with a
soft contact force. This module implements the world exactly as PettingZoo's MPE
(``mpe2`` 1.1) does, vectorised over entities:

1. Actions become forces ``u`` (scaled by each agent's ``accel``) and utterances ``c``.
   Discrete actions are ``0`` no-op, ``1`` -x, ``2`` +x, ``3`` -y, ``4`` +y; an agent
   that both moves and speaks has ``5 * dim_c`` actions, ``move + 5 * word``. A
   continuous action is ``[noop, -x, +x, -y, +y]`` in ``[0, 1]`` (clipped), giving
   ``u = [a2 - a1, a4 - a3]``, followed by the ``dim_c`` utterance values.
2. Every pair of colliding entities ``(i, j)`` exerts
   ``F = contact_force * (p_i - p_j) / |p_i - p_j| * softplus(-(|p_i - p_j| - r_i - r_j) / k) * k``
   on ``i`` and ``-F`` on ``j`` (only movable entities receive forces).
3. Explicit Euler, in mpe2's order: ``p += v * dt``; ``v *= 1 - damping``;
   ``v += F / m * dt``; then ``v`` is rescaled to ``max_speed`` if faster.
4. Rewards and observations are computed on the new state.

Scenarios subclass :class:`MPEEnv`, declare their entities in ``__init__`` and
implement ``get_obs`` and ``rewards`` (and optionally ``sample_landmarks``, ``sample_goals``,
``is_terminal``, ``scripted_forces``, ``entity_colours`` and ``entity_visible``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.mpe import constants as C
from jaxmarl.environments.mpe.geometry import length
from jaxmarl.environments.mpe.observations import bounds_penalty
from jaxmarl.environments.mpe.types import State
from jaxmarl.environments.multi_agent_env import MultiAgentEnv
from jaxmarl.environments.spaces import Box, Discrete

__all__ = ["MPEEnv", "check_count"]

Floats = float | Sequence[float] | np.ndarray
Flags = bool | Sequence[bool] | np.ndarray


def check_count(env_name: str, name: str, value: Any, minimum: int, optional: bool = False) -> Any:
    """Validate an entity count given to a scenario's constructor (``None`` passes if
    ``optional``)."""
    if optional and value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{env_name}: {name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _per_entity(value: Floats | None, n: int, default: float) -> np.ndarray:
    if value is None:
        return np.full((n,), default, np.float64)
    arr = np.broadcast_to(np.asarray(value, np.float64), (n,))
    return np.array(arr)


class MPEEnv(MultiAgentEnv):
    """Base class of the MPE scenarios.

    Args:
        agents: names of the agents that take actions, in world order.
        num_landmarks: number of landmarks (entities after the agents).
        dim_c: size of the communication vector.
        action_type: ``"Discrete"`` or ``"Continuous"``.
        max_steps: episode length; the episode is truncated after this many steps.
        scripted_agents: names of agents moved by a scripted policy
            (``scripted_forces``), placed after ``agents`` in the world; they take no
            actions and are not in ``env.agents``.
        agent_size, agent_accel, agent_max_speed, agent_mass: per-agent radius, force
            scale, speed cap (``None``: no cap) and mass, scalars or one value per world
            agent (``agents`` then ``scripted_agents``).
        agent_movable, agent_silent, agent_collide: per-agent flags.
        landmark_size, landmark_collide: per-landmark radius and collision flag.
        landmark_spawn: landmarks start uniformly in ``[-landmark_spawn, landmark_spawn]^2``
            (agents always in ``[-1, 1]^2``).
        agent_colour, landmark_colour: RGB colours for rendering, one per entity or
            one for all.
    """

    def __init__(
        self,
        *,
        agents: Sequence[str],
        num_landmarks: int,
        dim_c: int,
        action_type: str,
        max_steps: int,
        scripted_agents: Sequence[str] = (),
        agent_size: Floats = C.DEFAULT_SIZE,
        agent_accel: Floats = C.DEFAULT_ACCEL,
        agent_max_speed: Floats | None = None,
        agent_mass: Floats = C.DEFAULT_MASS,
        agent_movable: Flags = True,
        agent_silent: Flags = False,
        agent_collide: Flags = True,
        landmark_size: Floats = C.DEFAULT_SIZE,
        landmark_collide: Flags = True,
        landmark_spawn: float = 1.0,
        agent_colour: Any = C.AGENT_COLOUR,
        landmark_colour: Any = C.LANDMARK_COLOUR,
    ) -> None:
        name = type(self).__name__
        if action_type not in C.ACTION_TYPES:
            raise ValueError(f"{name}: action_type must be one of {C.ACTION_TYPES}, got {action_type!r}")
        check_count(name, "max_steps", max_steps, 1)
        super().__init__(num_agents=len(agents))
        self.agents = list(agents)
        if len(set(self.agents)) != len(self.agents):
            raise ValueError(f"{name}: agent names must be unique, got {self.agents}")
        self.scripted_agents = list(scripted_agents)
        self.num_world_agents = self.num_agents + len(self.scripted_agents)
        self.num_landmarks = num_landmarks
        self.num_entities = self.num_world_agents + num_landmarks
        self.dim_c = dim_c
        self.action_type = action_type
        self.max_steps = max_steps
        self.landmark_spawn = landmark_spawn
        self.agent_range = np.arange(self.num_agents)

        A, L = self.num_world_agents, num_landmarks
        # Static entity tables (NumPy: constants folded into the compiled step).
        self.size = np.concatenate(
            [_per_entity(agent_size, A, C.DEFAULT_SIZE), _per_entity(landmark_size, L, C.DEFAULT_SIZE)]
        )
        self.accel = _per_entity(agent_accel, A, C.DEFAULT_ACCEL)
        self.max_speed = np.concatenate(
            [_per_entity(agent_max_speed, A, np.inf), np.full((L,), np.inf, np.float64)]
        )
        self.mass = np.concatenate(
            [_per_entity(agent_mass, A, C.DEFAULT_MASS), np.full((L,), C.DEFAULT_MASS, np.float64)]
        )
        self.movable = np.concatenate(
            [np.broadcast_to(np.asarray(agent_movable, bool), (A,)), np.zeros((L,), bool)]
        )
        self.silent = np.array(np.broadcast_to(np.asarray(agent_silent, bool), (A,)))
        self.collide = np.concatenate(
            [
                np.broadcast_to(np.asarray(agent_collide, bool), (A,)),
                np.broadcast_to(np.asarray(landmark_collide, bool), (L,)),
            ]
        )
        self.colour = np.concatenate(
            [
                np.broadcast_to(np.asarray(agent_colour, np.float32), (A, 3)),
                np.broadcast_to(np.asarray(landmark_colour, np.float32), (L, 3)),
            ]
        )
        # Colliding entities and, among them, which receive forces.
        self._colliders = np.flatnonzero(self.collide)
        # others[i] = indices of the other world agents, in world order.
        self.others = np.array([[j for j in range(A) if j != i] for i in range(A)], np.int32).reshape(
            A, max(A - 1, 0)
        )

        # Action spaces and decoding tables (policy agents only).
        agent_movable_arr = self.movable[: self.num_agents]
        self.action_spaces = {}
        dims = []
        for i, agent in enumerate(self.agents):
            if action_type == C.DISCRETE_ACT:
                n = C.NUM_MOVES if agent_movable_arr[i] else 1
                if not self.silent[i]:
                    n *= dim_c
                self.action_spaces[agent] = Discrete(n)
            else:
                d = (C.NUM_MOVES if agent_movable_arr[i] else 0) + (0 if self.silent[i] else dim_c)
                self.action_spaces[agent] = Box(0.0, 1.0, (d,))
                dims.append(d)
        self._action_width = max(dims, default=0)
        self._comm_offset = np.where(agent_movable_arr, C.NUM_MOVES, 0).astype(np.int32)

    # ------------------------------------------------------ JaxMARL 0.2.0's names
    # The world's constants (read-only: every scenario uses mpe2's values).
    dim_p = C.DIM_P
    dt = C.DT
    damping = C.DAMPING
    contact_force = C.CONTACT_FORCE
    contact_margin = C.CONTACT_MARGIN

    @property
    def rad(self) -> np.ndarray:
        """Entity radii, ``(num_entities,)`` (JaxMARL's name for ``size``)."""
        return self.size

    @property
    def moveable(self) -> np.ndarray:
        """Which entities move, bool ``(num_entities,)`` (JaxMARL's name for ``movable``)."""
        return self.movable

    @property
    def entity_range(self) -> np.ndarray:
        """Entity indices, ``arange(num_entities)``."""
        return np.arange(self.num_entities)

    @property
    def a_to_i(self) -> dict[str, int]:
        """Each agent's index in the world (its row of ``state.p_pos``)."""
        return {a: i for i, a in enumerate(self.agents)}

    @property
    def landmarks(self) -> list[str]:
        """The landmarks' names, in world order (JaxMARL's ``"landmark i"``)."""
        return [f"landmark {i}" for i in range(self.num_landmarks)]

    @property
    def l_to_i(self) -> dict[str, int]:
        """Each landmark's index in the world (its row of ``state.p_pos``)."""
        return {name: self.num_world_agents + i for i, name in enumerate(self.landmarks)}

    def set_actions(self, actions: dict[str, jax.Array]) -> tuple[jax.Array, jax.Array]:
        """JaxMARL's name for :meth:`decode_actions`: forces ``(num_agents, 2)`` (scaled by
        ``accel``) and utterances ``(num_agents, dim_c)`` from the action dict."""
        return self.decode_actions(actions)

    def map_bounds_reward(self, x: jax.Array) -> jax.Array:
        """The arena penalty of each coordinate in ``x`` (pass ``|x|``; any shape): 0 below
        0.9, ``10 * (x - 0.9)`` up to 1, then ``min(exp(2x - 2), 10)``."""
        return bounds_penalty(x)

    # --------------------------------------------------------------- scenario hooks
    def sample_goals(self, key: jax.Array) -> jax.Array:
        """Landmark indices a scenario draws at reset; none by default."""
        del key
        return jnp.zeros((0,), jnp.int32)

    def rewards(self, state: State) -> dict[str, jax.Array]:
        """Reward of each agent in ``state`` (after the step)."""
        raise NotImplementedError

    def is_terminal(self, state: State) -> jax.Array:
        """Whether the episode ends (before the time limit) in ``state``."""
        del state
        return jnp.array(False)

    def scripted_forces(self, key: jax.Array, state: State) -> jax.Array:
        """Forces ``(num_scripted, 2)`` the scripted agents apply this step."""
        del key, state
        return jnp.zeros((len(self.scripted_agents), C.DIM_P))

    def entity_colours(self, state: State) -> jax.Array:
        """RGB colour of each entity for rendering, ``(num_entities, 3)``."""
        del state
        return jnp.asarray(self.colour)

    def entity_visible(self, state: State) -> jax.Array | None:
        """Which entities are drawn, bool ``(num_entities,)``; ``None``: all of them."""
        del state
        return None

    def sample_landmarks(self, key: jax.Array) -> jax.Array:
        """Landmark positions at reset, ``(num_landmarks, 2)``: uniform in
        ``[-landmark_spawn, landmark_spawn]^2`` by default."""
        r = self.landmark_spawn
        return jax.random.uniform(key, (self.num_landmarks, C.DIM_P), minval=-r, maxval=r)

    # ------------------------------------------------------------------- env API
    def initial_state(self, key: jax.Array) -> State:
        """The state an episode starts from: agents uniform in ``[-1, 1]^2``, landmarks
        from :meth:`sample_landmarks`, goals from :meth:`sample_goals`, zero velocities
        and utterances."""
        key_agents, key_landmarks, key_goal = jax.random.split(key, 3)
        p_pos = jnp.concatenate(
            [
                jax.random.uniform(key_agents, (self.num_world_agents, C.DIM_P), minval=-1.0, maxval=1.0),
                self.sample_landmarks(key_landmarks),
            ]
        )
        return State(
            p_pos=p_pos,
            p_vel=jnp.zeros((self.num_entities, C.DIM_P)),
            c=jnp.zeros((self.num_world_agents, self.dim_c)),
            step=jnp.zeros((), jnp.int32),
            goal=self.sample_goals(key_goal),
        )

    def reset_env(self, key: jax.Array) -> tuple[dict[str, jax.Array], State]:
        state = self.initial_state(key)
        return self.get_obs(state), state

    def step_env(
        self, key: jax.Array, state: State, actions: dict[str, jax.Array]
    ) -> tuple[dict[str, jax.Array], State, dict[str, jax.Array], dict[str, jax.Array], dict]:
        u, c = self.decode_actions(actions)
        if self.scripted_agents:
            u = jnp.concatenate([u, self.scripted_forces(key, state)])
            c = jnp.concatenate([c, jnp.zeros((len(self.scripted_agents), self.dim_c))])
        p_pos, p_vel = self.world_step(state.p_pos, state.p_vel, u)
        state = state.replace(p_pos=p_pos, p_vel=p_vel, c=c, step=state.step + 1)
        terminal = self.is_terminal(state)
        terminated = {a: terminal for a in self.agents}
        terminated["__all__"] = terminal
        return self.get_obs(state), state, self.rewards(state), terminated, {}

    def get_global_state(self, state: State) -> jax.Array:
        """The world state: every entity's position, the agents' velocities and
        utterances, and one-hot goals, flattened into one vector."""
        parts = [
            state.p_pos.ravel(),
            state.p_vel[: self.num_world_agents].ravel(),
            state.c.ravel(),
            jax.nn.one_hot(state.goal, self.num_landmarks).ravel(),
        ]
        return jnp.concatenate(parts)

    def render(self, state: State, size: int = 400) -> jax.Array:
        """Draw the world as an RGB ``uint8`` image of shape ``(size, size, 3)``.

        Args:
            state: the state.
            size: the image's longer side in pixels (here both sides: the image is
                square), a Python ``int`` fixed at trace time; ``ValueError`` unless
                positive.

        Pure JAX, so a batch of states renders with ``jax.vmap``.
        """
        from jaxmarl.environments.mpe.viewer import render_world
        from jaxmarl.viz.raster import check_size

        return render_world(
            state.p_pos, self.size, self.entity_colours(state), check_size(size), self.entity_visible(state)
        )

    # ----------------------------------------------------------------- mechanics
    def decode_actions(self, actions: dict[str, jax.Array]) -> tuple[jax.Array, jax.Array]:
        """Turn the action dict into forces ``(num_agents, 2)`` and utterances
        ``(num_agents, dim_c)``."""
        movable = self.movable[: self.num_agents]
        if self.action_type == C.DISCRETE_ACT:
            a = jnp.stack([jnp.asarray(actions[agent]).astype(jnp.int32) for agent in self.agents])
            move = jnp.where(movable, a % C.NUM_MOVES, 0)
            word = jnp.where(movable, a // C.NUM_MOVES, a)
            u = jnp.asarray(C.MOVE_VECTORS)[move]
            c = jax.nn.one_hot(word, self.dim_c)
        else:
            width = self._action_width
            rows = []
            for agent in self.agents:
                act = jnp.asarray(actions[agent])
                if not jnp.issubdtype(act.dtype, jnp.floating):
                    act = act.astype(float)
                act = jnp.clip(act, 0.0, 1.0)
                rows.append(jnp.pad(act, (0, width - act.shape[0])))
            a = jnp.stack(rows)
            if width >= C.NUM_MOVES:
                u = jnp.stack([a[:, 2] - a[:, 1], a[:, 4] - a[:, 3]], axis=-1)
            else:
                u = jnp.zeros((self.num_agents, C.DIM_P))
            # Utterances follow the movement block; silent agents read clamped
            # (ignored) columns that are zeroed below.
            comm_idx = np.minimum(self._comm_offset[:, None] + np.arange(self.dim_c), width - 1)
            c = jnp.take_along_axis(a, jnp.asarray(comm_idx), axis=1)
        u = u * jnp.asarray(self.accel[: self.num_agents])[:, None] * movable[:, None]
        c = c * (~self.silent[: self.num_agents])[:, None]
        return u, c

    def world_step(self, p_pos: jax.Array, p_vel: jax.Array, u: jax.Array) -> tuple[jax.Array, jax.Array]:
        """Apply agent forces ``u`` (``(num_world_agents, 2)``) and contact forces, then
        integrate one time step."""
        force = jnp.zeros_like(p_pos).at[: self.num_world_agents].set(u)
        force = force + self.contact_forces(p_pos)
        movable = self.movable[:, None]
        new_pos = p_pos + p_vel * C.DT
        new_vel = p_vel * (1.0 - C.DAMPING) + force / self.mass[:, None] * C.DT
        speed = length(new_vel)[:, None]
        max_speed = self.max_speed[:, None]
        new_vel = jnp.where(speed > max_speed, new_vel / speed * max_speed, new_vel)
        return jnp.where(movable, new_pos, p_pos), jnp.where(movable, new_vel, p_vel)

    def contact_forces(self, p_pos: jax.Array) -> jax.Array:
        """Soft collision forces on every entity, ``(num_entities, 2)``."""
        idx = self._colliders
        n = idx.size
        if n < 2:
            return jnp.zeros_like(p_pos)
        pos = p_pos[idx]
        delta = pos[:, None, :] - pos[None, :, :]
        eye = np.eye(n, dtype=bool)
        dist = length(delta)
        dist = jnp.where(eye, 1.0, dist)
        dist_min = self.size[idx][:, None] + self.size[idx][None, :]
        k = C.CONTACT_MARGIN
        penetration = jnp.logaddexp(0.0, -(dist - dist_min) / k) * k
        pair_force = C.CONTACT_FORCE * delta / dist[..., None] * penetration[..., None]
        pair_force = jnp.where(eye[..., None], 0.0, pair_force)
        total = jnp.sum(pair_force, axis=1) * self.movable[idx][:, None]
        return jnp.zeros_like(p_pos).at[idx].set(total)

    # ------------------------------------------------------------------- helpers
    def is_collision(self, state: Any, i: Any, j: Any) -> jax.Array:
        """Whether entities ``i`` and ``j`` overlap (arrays of indices broadcast).

        JaxMARL 0.2.0's argument order, ``is_collision(a, b, state)``, also works, with
        its meaning: the two overlap, both collide (``collide``) and ``a != b``.
        """
        if isinstance(j, State):  # JaxMARL 0.2.0's order; a and b may be traced
            a, b, world = jnp.asarray(state), jnp.asarray(i), j
            size, collide = jnp.asarray(self.size), jnp.asarray(self.collide)
            overlap = length(world.p_pos[a] - world.p_pos[b]) < size[a] + size[b]
            return overlap & collide[a] & collide[b] & (a != b)
        dist = length(state.p_pos[i] - state.p_pos[j])
        return dist < self.size[i] + self.size[j]

    def to_dict(self, values: jax.Array, agents: Sequence[str] | None = None) -> dict[str, jax.Array]:
        """Split the leading axis of ``values`` into a dict keyed by agent."""
        agents = self.agents if agents is None else agents
        return {a: values[i] for i, a in enumerate(agents)}
