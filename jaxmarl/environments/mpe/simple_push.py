"""MPE ``simple_push``: an adversary pushes the agent away from its goal (mpe2 ``simple_push_v3``)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.mpe import constants as C
from jaxmarl.environments.mpe.env import MPEEnv
from jaxmarl.environments.mpe.geometry import length
from jaxmarl.environments.mpe.observations import obs_spaces
from jaxmarl.environments.mpe.types import State

LANDMARK_COLOURS = np.array([[0.1, 0.9, 0.1], [0.1, 0.1, 0.9]], np.float64)
# JaxMARL 0.2.0's names: the two landmark colours, and both as the agent observes them.
COLOUR_1, COLOUR_2 = LANDMARK_COLOURS
OBS_COLOUR = LANDMARK_COLOURS.ravel()


class SimplePushMPE(MPEEnv):
    """Keep-away: the good agent wants to reach the goal landmark; the adversary, who
    does not know which landmark it is, wants to keep the agent away from it.

    - Agents: ``adversary_0``, ``agent_0`` (radius 0.05, collide, silent).
    - Landmarks: 2, non-colliding, spawned in ``[-1, 1]^2``; the goal (``state.goal[0]``)
      is drawn uniformly at reset. Landmark colours are green and blue; the good agent
      wears a tint of its goal's colour.
    - Observation: agent (19) ``[self_vel (2), goal_rel_pos (2), self_colour (3),
      landmark_rel_pos (2, 2), landmark_colours (2, 3), adversary_rel_pos (2)]``;
      adversary (8) ``[self_vel (2), landmark_rel_pos (2, 2), agent_rel_pos (2)]``.
    - Actions: ``Discrete(5)`` or ``Box(0, 1, (5,))``.
    - Reward: agent ``-|p_agent - p_goal|``; adversary
      ``|p_agent - p_goal| - |p_adv - p_goal|``.

    Args:
        action_type: ``"Discrete"`` (default) or ``"Continuous"``.
        max_steps: episode length (default 25).
    """

    def __init__(self, action_type: str = C.DISCRETE_ACT, max_steps: int = C.MAX_STEPS) -> None:
        super().__init__(
            agents=["adversary_0", "agent_0"],
            num_landmarks=2,
            dim_c=2,
            action_type=action_type,
            max_steps=max_steps,
            agent_silent=True,
            landmark_collide=False,
            agent_colour=[(0.75, 0.25, 0.25), (0.25, 0.25, 0.25)],
            landmark_colour=LANDMARK_COLOURS,
        )
        self.observation_spaces = obs_spaces({"adversary_0": 8, "agent_0": 19})
        self.adversaries, self.good_agents = ["adversary_0"], ["agent_0"]
        self.num_adversaries, self.num_good_agents = 1, 1

    def sample_goals(self, key: jax.Array) -> jax.Array:
        return jax.random.randint(key, (1,), 0, self.num_landmarks, dtype=jnp.int32)

    def _agent_colour(self, goal: jax.Array) -> jax.Array:
        return jnp.array([0.25, 0.25, 0.25]).at[goal + 1].add(0.5)

    def entity_colours(self, state: State) -> jax.Array:
        return jnp.asarray(self.colour).at[1].set(self._agent_colour(state.goal[0]))

    def get_obs(self, state: State) -> dict[str, jax.Array]:
        pos, vel = state.p_pos, state.p_vel
        landmark_pos = pos[2:]
        goal_pos = landmark_pos[state.goal[0]]
        agent = jnp.concatenate(
            [
                vel[1],
                goal_pos - pos[1],
                self._agent_colour(state.goal[0]),
                (landmark_pos - pos[1]).ravel(),
                OBS_COLOUR,
                pos[0] - pos[1],
            ]
        )
        adversary = jnp.concatenate([vel[0], (landmark_pos - pos[0]).ravel(), pos[1] - pos[0]])
        return {"adversary_0": adversary, "agent_0": agent}

    def rewards(self, state: State) -> dict[str, jax.Array]:
        goal_pos = state.p_pos[2 + state.goal[0]]
        agent_dist = length(state.p_pos[1] - goal_pos)
        adv_dist = length(state.p_pos[0] - goal_pos)
        return {"adversary_0": agent_dist - adv_dist, "agent_0": -agent_dist}
