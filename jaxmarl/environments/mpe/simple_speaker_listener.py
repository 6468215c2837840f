"""MPE ``simple_speaker_listener``: a speaker guides a listener to a landmark
(mpe2 ``simple_speaker_listener_v4``)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.mpe import constants as C
from jaxmarl.environments.mpe.env import MPEEnv
from jaxmarl.environments.mpe.geometry import length_sq
from jaxmarl.environments.mpe.observations import obs_spaces
from jaxmarl.environments.mpe.types import State

LANDMARK_COLOURS = np.array([[0.65, 0.15, 0.15], [0.15, 0.65, 0.15], [0.15, 0.15, 0.65]], np.float64)
# The agents' names (JaxMARL 0.2.0's constants).
SPEAKER, LISTENER = "speaker_0", "listener_0"
AGENT_NAMES = [SPEAKER, LISTENER]


class SimpleSpeakerListenerMPE(MPEEnv):
    """Cooperative communication: the speaker sees the goal's colour but cannot move;
    the listener moves but sees only landmarks and what the speaker says.

    - Agents: ``speaker_0`` (immovable, speaks, ``dim_c = 3``), ``listener_0`` (movable,
      silent); radius 0.075, no collisions.
    - Landmarks: 3 (red, green, blue; radius 0.04), spawned in ``[-1, 1]^2``; the goal
      ``state.goal[0]`` is drawn uniformly at reset.
    - Observation: speaker (3) ``[goal_colour]``; listener (11)
      ``[self_vel (2), landmark_rel_pos (3, 2), speaker_utterance (3)]``.
    - Actions: speaker ``Discrete(3)`` / ``Box(0, 1, (3,))``; listener ``Discrete(5)`` /
      ``Box(0, 1, (5,))``.
    - Reward (both): ``-|p_listener - p_goal|^2``.

    Args:
        action_type: ``"Discrete"`` (default) or ``"Continuous"``.
        max_steps: episode length (default 25).
    """

    def __init__(self, action_type: str = C.DISCRETE_ACT, max_steps: int = C.MAX_STEPS) -> None:
        super().__init__(
            agents=AGENT_NAMES,
            num_landmarks=3,
            dim_c=3,
            action_type=action_type,
            max_steps=max_steps,
            agent_size=0.075,
            agent_movable=[False, True],
            agent_silent=[False, True],
            agent_collide=False,
            landmark_size=0.04,
            landmark_collide=False,
            agent_colour=(0.25, 0.25, 0.25),
            landmark_colour=LANDMARK_COLOURS,
        )
        self.observation_spaces = obs_spaces({"speaker_0": 3, "listener_0": 11})

    def sample_goals(self, key: jax.Array) -> jax.Array:
        return jax.random.randint(key, (1,), 0, self.num_landmarks, dtype=jnp.int32)

    def entity_colours(self, state: State) -> jax.Array:
        listener = jnp.asarray(LANDMARK_COLOURS)[state.goal[0]] + 0.45
        return jnp.asarray(self.colour).at[1].set(listener)

    def get_obs(self, state: State) -> dict[str, jax.Array]:
        goal_colour = jnp.asarray(LANDMARK_COLOURS)[state.goal[0]]
        listener = jnp.concatenate([state.p_vel[1], (state.p_pos[2:] - state.p_pos[1]).ravel(), state.c[0]])
        return {"speaker_0": goal_colour, "listener_0": listener}

    def rewards(self, state: State) -> dict[str, jax.Array]:
        rew = -length_sq(state.p_pos[1] - state.p_pos[2 + state.goal[0]])
        return {"speaker_0": rew, "listener_0": rew}
