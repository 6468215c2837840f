"""MPE ``simple``: one agent, one landmark, a debugging task (mpe2 ``simple_v3``)."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxmarl.environments.mpe import constants as C
from jaxmarl.environments.mpe.env import MPEEnv
from jaxmarl.environments.mpe.geometry import length_sq
from jaxmarl.environments.mpe.observations import obs_spaces
from jaxmarl.environments.mpe.types import State


class SimpleMPE(MPEEnv):
    """A single agent is rewarded for getting close to a landmark.

    - Agents: ``agent_0`` (movable, silent, does not collide).
    - Landmarks: 1, spawned uniformly in ``[-1, 1]^2``.
    - Observation (4): ``[self_vel (2), landmark_rel_pos (2)]``.
    - Actions: ``Discrete(5)`` or ``Box(0, 1, (5,))``.
    - Reward: ``-|p_agent - p_landmark|^2``.

    Args:
        action_type: ``"Discrete"`` (default) or ``"Continuous"``.
        max_steps: episode length (default 25).
    """

    def __init__(self, action_type: str = C.DISCRETE_ACT, max_steps: int = C.MAX_STEPS) -> None:
        super().__init__(
            agents=["agent_0"],
            num_landmarks=1,
            dim_c=0,
            action_type=action_type,
            max_steps=max_steps,
            agent_silent=True,
            agent_collide=False,
            landmark_collide=False,
            agent_colour=(0.25, 0.25, 0.25),
            landmark_colour=(0.75, 0.25, 0.25),
        )
        self.observation_spaces = obs_spaces({"agent_0": 4})

    def get_obs(self, state: State) -> dict[str, jax.Array]:
        obs = jnp.concatenate([state.p_vel[0], state.p_pos[1] - state.p_pos[0]])
        return {"agent_0": obs}

    def rewards(self, state: State) -> dict[str, jax.Array]:
        return {"agent_0": -length_sq(state.p_pos[0] - state.p_pos[1])}
