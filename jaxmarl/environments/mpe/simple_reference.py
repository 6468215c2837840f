"""MPE ``simple_reference``: each agent guides the other to a landmark (mpe2 ``simple_reference_v3``)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.mpe import constants as C
from jaxmarl.environments.mpe.env import MPEEnv
from jaxmarl.environments.mpe.geometry import length
from jaxmarl.environments.mpe.observations import obs_spaces
from jaxmarl.environments.mpe.types import State

LANDMARK_COLOURS = np.array([[0.75, 0.25, 0.25], [0.25, 0.75, 0.25], [0.25, 0.25, 0.75]], np.float64)


class SimpleReferenceMPE(MPEEnv):
    """Two agents each know a target landmark for the *other* agent and must tell it
    where to go while moving to their own (unknown to them) target.

    - Agents: ``agent_0``, ``agent_1`` (movable, speak, ``dim_c = 10``, no collisions).
    - Landmarks: 3 (red, green, blue), spawned in ``[-1, 1]^2``. At reset each agent i
      draws a landmark ``state.goal[i]`` that the *other* agent should reach.
    - Observation (21): ``[self_vel (2), landmark_rel_pos (3, 2), goal_colour (3),
      other_agent_utterance (10)]``, where goal_colour is the colour of the landmark the
      other agent must reach.
    - Actions: ``Discrete(50)`` (``move + 5 * word``) or ``Box(0, 1, (15,))``
      (movement then utterance).
    - Reward: with ``r_i = -|p_other - p_{goal_i}|``, agent i gets
      ``(1 - local_ratio) * mean(r) + local_ratio * r_i``.

    Args:
        local_ratio: weight of the agent's own term, in [0, 1].
        action_type: ``"Discrete"`` (default) or ``"Continuous"``.
        max_steps: episode length (default 25).
    """

    def __init__(
        self, local_ratio: float = 0.5, action_type: str = C.DISCRETE_ACT, max_steps: int = C.MAX_STEPS
    ) -> None:
        if not 0.0 <= local_ratio <= 1.0:
            raise ValueError(f"{type(self).__name__}: local_ratio must be in [0, 1], got {local_ratio!r}")
        super().__init__(
            agents=["agent_0", "agent_1"],
            num_landmarks=3,
            dim_c=10,
            action_type=action_type,
            max_steps=max_steps,
            agent_collide=False,
            landmark_collide=False,
            agent_colour=(0.25, 0.25, 0.25),
            landmark_colour=LANDMARK_COLOURS,
        )
        self.local_ratio = local_ratio
        self.observation_spaces = obs_spaces({a: 21 for a in self.agents})

    def sample_goals(self, key: jax.Array) -> jax.Array:
        return jax.random.randint(key, (2,), 0, self.num_landmarks, dtype=jnp.int32)

    def entity_colours(self, state: State) -> jax.Array:
        # Each agent wears the colour of the landmark it must reach (chosen by the other).
        goal_colours = jnp.asarray(LANDMARK_COLOURS)[state.goal]
        return jnp.asarray(self.colour).at[:2].set(goal_colours[::-1])

    def get_obs(self, state: State) -> dict[str, jax.Array]:
        landmark_pos = state.p_pos[2:]
        goal_colours = jnp.asarray(LANDMARK_COLOURS)[state.goal]
        obs = [
            jnp.concatenate(
                [state.p_vel[i], (landmark_pos - state.p_pos[i]).ravel(), goal_colours[i], state.c[1 - i]]
            )
            for i in range(2)
        ]
        return {"agent_0": obs[0], "agent_1": obs[1]}

    def rewards(self, state: State) -> dict[str, jax.Array]:
        other_pos = state.p_pos[jnp.array([1, 0])]
        target_pos = state.p_pos[2 + state.goal]
        own = -length(other_pos - target_pos)
        rew = jnp.mean(own) * (1.0 - self.local_ratio) + own * self.local_ratio
        return self.to_dict(rew)
