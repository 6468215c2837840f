"""MPE ``simple_formation``: N agents form a circle around a landmark (mpe2 ``simple_formation_v1``)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.mpe import constants as C
from jaxmarl.environments.mpe.assignment import matched_distances
from jaxmarl.environments.mpe.env import MPEEnv, check_count
from jaxmarl.environments.mpe.observations import obs_spaces
from jaxmarl.environments.mpe.types import State

TARGET_RADIUS = 0.5  # the circle's radius around the landmark
SUCCESS_DISTANCE = 0.05  # terminate_on_success: every agent this close to its target
MAX_TARGET_DISTANCE = 2.0  # matched distances are clipped to [0, 2] in the reward


class SimpleFormationMPE(MPEEnv):
    """Agents must stand evenly spaced on a circle of radius 0.5 around the landmark.

    - Agents: ``agent_0 ... agent_{N-1}`` (radius 0.05, collide, silent).
    - Landmark: one (radius 0.03, does not collide), spawned in ``[-0.5, 0.5]^2``.
    - Targets, recomputed every step: ``N`` points on the circle of radius 0.5 around the
      landmark, ``2 pi / N`` apart, the first at the smallest polar angle (in
      ``[0, 2 pi)``, about the landmark) of any agent. Agents are matched to targets at
      minimum total distance (mpe2's Hungarian algorithm).
    - Observation of each agent (6): ``[self_vel (2), self_pos (2), landmark_rel_pos (2)]``.
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
            num_landmarks=1,
            dim_c=0,
            action_type=action_type,
            max_steps=max_steps,
            agent_size=0.05,
            agent_silent=True,
            landmark_size=0.03,
            landmark_collide=False,
            landmark_spawn=0.5,
        )
        self.terminate_on_success = terminate_on_success
        self.observation_spaces = obs_spaces(dict.fromkeys(self.agents, 6))
        self._spacing = 2.0 * np.pi / num_agents

    def targets(self, state: State) -> jax.Array:
        """The circle's points this step, ``(N, 2)``, before matching."""
        N = self.num_agents
        centre = state.p_pos[N]
        rel = state.p_pos[:N] - centre
        angle = jnp.arctan2(rel[:, 1], rel[:, 0])
        angle = jnp.where(angle < 0.0, angle + 2.0 * np.pi, angle)
        theta = jnp.min(angle) + np.arange(N) * self._spacing
        return centre + TARGET_RADIUS * jnp.stack([jnp.cos(theta), jnp.sin(theta)], axis=-1)

    def target_distances(self, state: State) -> jax.Array:
        """Distance from each agent to its matched target, ``(N,)``."""
        return matched_distances(state.p_pos[: self.num_agents], self.targets(state))

    def get_obs(self, state: State) -> dict[str, jax.Array]:
        N = self.num_agents
        pos = state.p_pos[:N]
        landmark_rel = state.p_pos[N] - pos
        return self.to_dict(jnp.concatenate([state.p_vel[:N], pos, landmark_rel], axis=-1))

    def rewards(self, state: State) -> dict[str, jax.Array]:
        d = self.target_distances(state)
        shared = -jnp.mean(jnp.clip(d, 0.0, MAX_TARGET_DISTANCE))
        return {a: shared for a in self.agents}

    def is_terminal(self, state: State) -> jax.Array:
        if not self.terminate_on_success:
            return jnp.array(False)
        return jnp.all(self.target_distances(state) < SUCCESS_DISTANCE)
