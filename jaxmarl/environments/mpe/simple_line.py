"""MPE ``simple_line``: N agents line up between two landmarks (mpe2 ``simple_line_v1``;
the task of Agarwal et al., "Learning Transferable Cooperative Behavior in Multi-Agent
Teams", 2019)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.mpe import constants as C
from jaxmarl.environments.mpe.assignment import matched_distances
from jaxmarl.environments.mpe.env import MPEEnv, check_count
from jaxmarl.environments.mpe.observations import obs_spaces
from jaxmarl.environments.mpe.types import State

LINE_LENGTH = 1.25  # distance between the two landmarks
SUCCESS_DISTANCE = 0.05  # terminate_on_success: every agent this close to its target
MAX_TARGET_DISTANCE = 2.0  # matched distances are clipped to [0, 2] in the reward
ROTATION_STEP = np.radians(5.0)  # the second landmark's direction turns by this much ...
NUM_ROTATIONS = 72  # ... until it lies in the arena; one full turn always finds a place
_TURNS = (np.cos(np.arange(NUM_ROTATIONS) * ROTATION_STEP), np.sin(np.arange(NUM_ROTATIONS) * ROTATION_STEP))


class SimpleLineMPE(MPEEnv):
    """Agents must spread evenly along the segment between two landmarks.

    - Agents: ``agent_0 ... agent_{N-1}`` (radius 0.03, collide, silent).
    - Landmarks: two (radius 0.02, do not collide). ``landmark 0`` starts uniform in
      ``[-0.25, 0.25]^2``; ``landmark 1`` is 1.25 away from it in a uniformly random
      direction, turned by 5 degree steps until it lies inside ``(-1, 1)^2``.
    - Targets: ``N`` points evenly spaced from landmark 0 to landmark 1 (both included;
      landmark 0 alone when ``N = 1``), fixed for the episode. Agents are matched to
      targets at minimum total distance every step (mpe2's Hungarian algorithm).
    - Observation of each agent (8): ``[self_vel (2), self_pos (2),
      landmark_rel_pos (2, 2)]``.
    - Actions: ``Discrete(5)`` or ``Box(0, 1, (5,))``.
    - Reward (shared): ``-mean_i min(d_i, 2)``, ``d_i`` the distance from agent i to its
      matched target.
    - Episode: ``max_steps`` steps; with ``terminate_on_success`` it also ends once every
      ``d_i < 0.05``.

    Args:
        num_agents: number of agents N (>= 1; mpe2's ``N``).
        action_type: ``"Discrete"`` (default) or ``"Continuous"``.
        max_steps: episode length (default 25).
        terminate_on_success: end the episode when every agent is on its target.
    """

    def __init__(
        self,
        num_agents: int = 4,
        action_type: str = C.DISCRETE_ACT,
        max_steps: int = C.MAX_STEPS,
        terminate_on_success: bool = False,
    ) -> None:
        num_agents = check_count(type(self).__name__, "num_agents", num_agents, 1)
        super().__init__(
            agents=[f"agent_{i}" for i in range(num_agents)],
            num_landmarks=2,
            dim_c=0,
            action_type=action_type,
            max_steps=max_steps,
            agent_size=0.03,
            agent_silent=True,
            landmark_size=0.02,
            landmark_collide=False,
        )
        self.terminate_on_success = terminate_on_success
        self.observation_spaces = obs_spaces(dict.fromkeys(self.agents, 8))
        # Target i sits this fraction of the way from landmark 0 to landmark 1.
        self._fractions = np.arange(num_agents) / max(num_agents - 1, 1)

    def sample_landmarks(self, key: jax.Array) -> jax.Array:
        key_start, key_angle = jax.random.split(key)
        start = jax.random.uniform(key_start, (C.DIM_P,), minval=-0.25, maxval=0.25)
        angle = jax.random.uniform(key_angle, (), minval=0.0, maxval=2.0 * np.pi)
        # Directions angle + k * 5 degrees: the drawn one turned by a fixed table.
        cos, sin = jnp.cos(angle), jnp.sin(angle)
        turn_cos, turn_sin = _TURNS
        directions = jnp.stack([cos * turn_cos - sin * turn_sin, sin * turn_cos + cos * turn_sin], axis=-1)
        ends = start + LINE_LENGTH * directions  # the first that fits wins
        fits = jnp.all(jnp.abs(ends) < 1.0, axis=-1)
        return jnp.stack([start, ends[jnp.argmax(fits)]])

    def targets(self, state: State) -> jax.Array:
        """The points of the line, ``(N, 2)``, before matching."""
        start, end = state.p_pos[self.num_agents], state.p_pos[self.num_agents + 1]
        return start + jnp.asarray(self._fractions)[:, None] * (end - start)

    def target_distances(self, state: State) -> jax.Array:
        """Distance from each agent to its matched target, ``(N,)``."""
        return matched_distances(state.p_pos[: self.num_agents], self.targets(state))

    def get_obs(self, state: State) -> dict[str, jax.Array]:
        N = self.num_agents
        pos = state.p_pos[:N]
        landmark_rel = (state.p_pos[None, N:, :] - pos[:, None, :]).reshape(N, -1)
        return self.to_dict(jnp.concatenate([state.p_vel[:N], pos, landmark_rel], axis=-1))

    def rewards(self, state: State) -> dict[str, jax.Array]:
        d = self.target_distances(state)
        shared = -jnp.mean(jnp.clip(d, 0.0, MAX_TARGET_DISTANCE))
        return {a: shared for a in self.agents}

    def is_terminal(self, state: State) -> jax.Array:
        if not self.terminate_on_success:
            return jnp.array(False)
        return jnp.all(self.target_distances(state) < SUCCESS_DISTANCE)
