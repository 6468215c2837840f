"""MPE ``simple_crypto``: covert communication with a shared key (mpe2 ``simple_crypto_v3``)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.mpe import constants as C
from jaxmarl.environments.mpe.env import MPEEnv
from jaxmarl.environments.mpe.observations import obs_spaces
from jaxmarl.environments.mpe.types import State

DIM_C = 4
EVE, BOB, ALICE = 0, 1, 2
# The agents' names (JaxMARL 0.2.0's constants): the speaker Alice, the listener Bob and
# the adversary Eve.
SPEAKER, LISTENER, ADVERSARY = "alice_0", "bob_0", "eve_0"
ADVERSARY_NAMES = [ADVERSARY]
# Landmark i's "colour" is the one-hot vector e_i in R^4; for rendering, red and green.
LANDMARK_RENDER_COLOURS = np.array([[0.85, 0.25, 0.25], [0.25, 0.75, 0.25]], np.float32)


class SimpleCryptoMPE(MPEEnv):
    """Alice must tell Bob a secret (one of two landmark "colours") over a channel Eve
    hears too; Alice and Bob share a key Eve lacks. Nobody moves.

    - Agents: ``eve_0`` (adversary), ``bob_0`` (listener), ``alice_0`` (speaker); none
      moves or collides, all speak (``dim_c = 4``).
    - Landmarks: 2, whose colours are ``e_0, e_1`` in ``R^4``. At reset the goal
      (``state.goal[0]``) and the key (``state.goal[1]``) are drawn uniformly among them.
    - Observation: alice (8) ``[goal_colour (4), key (4)]``; bob (8)
      ``[key (4), alice_utterance (4)]``; eve (4) ``[alice_utterance (4)]``.
    - Actions: ``Discrete(4)`` (a one-hot utterance) or ``Box(0, 1, (4,))``.
    - Reward: eve ``-|c_eve - goal_colour|^2``; alice and bob
      ``-|c_bob - goal_colour|^2 + |c_eve - goal_colour|^2``. A term is 0 while that
      listener's utterance is all zeros (before it first speaks).

    Args:
        action_type: ``"Discrete"`` (default) or ``"Continuous"``.
        max_steps: episode length (default 25).
    """

    def __init__(self, action_type: str = C.DISCRETE_ACT, max_steps: int = C.MAX_STEPS) -> None:
        super().__init__(
            agents=["eve_0", "bob_0", "alice_0"],
            num_landmarks=2,
            dim_c=DIM_C,
            action_type=action_type,
            max_steps=max_steps,
            agent_movable=False,
            agent_collide=False,
            landmark_collide=False,
            agent_colour=[(0.75, 0.25, 0.25), (0.25, 0.25, 0.25), (0.25, 0.25, 0.25)],
            landmark_colour=LANDMARK_RENDER_COLOURS,
        )
        self.observation_spaces = obs_spaces({"eve_0": 4, "bob_0": 8, "alice_0": 8})
        # Roles under JaxMARL 0.2.0's names.
        self.adversaries, self.good_agents = list(ADVERSARY_NAMES), [SPEAKER, LISTENER]
        self.num_adversaries, self.num_good_agents = 1, 2

    def sample_goals(self, key: jax.Array) -> jax.Array:
        return jax.random.randint(key, (2,), 0, self.num_landmarks, dtype=jnp.int32)

    def entity_colours(self, state: State) -> jax.Array:
        return jnp.asarray(self.colour).at[BOB].set(jnp.asarray(LANDMARK_RENDER_COLOURS)[state.goal[0]])

    def get_obs(self, state: State) -> dict[str, jax.Array]:
        goal_colour = jax.nn.one_hot(state.goal[0], DIM_C)
        key = jax.nn.one_hot(state.goal[1], DIM_C)
        said = state.c[ALICE]
        return {
            "eve_0": said,
            "bob_0": jnp.concatenate([key, said]),
            "alice_0": jnp.concatenate([goal_colour, key]),
        }

    def rewards(self, state: State) -> dict[str, jax.Array]:
        goal_colour = jax.nn.one_hot(state.goal[0], DIM_C)

        def error(c: jax.Array) -> jax.Array:
            return jnp.where(jnp.any(c != 0), jnp.sum(jnp.square(c - goal_colour)), 0.0)

        eve_err, bob_err = error(state.c[EVE]), error(state.c[BOB])
        good = eve_err - bob_err
        return {"eve_0": -eve_err, "bob_0": good, "alice_0": good}
