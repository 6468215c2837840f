"""MPE ``simple_spread``: N agents cover N landmarks without colliding (mpe2 ``simple_spread_v3``)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.mpe import constants as C
from jaxmarl.environments.mpe.env import MPEEnv, check_count
from jaxmarl.environments.mpe.geometry import length
from jaxmarl.environments.mpe.observations import obs_spaces, observe_nearest
from jaxmarl.environments.mpe.types import State

CAPTURE_RADIUS = 0.1  # an agent this close to a landmark covers it (terminate_on_success)


class SimpleSpreadMPE(MPEEnv):
    """Cooperative navigation: agents must cover every landmark while avoiding each other.

    - Agents: ``agent_0 ... agent_{N-1}`` (radius 0.15, collide, silent).
    - Landmarks: ``num_landmarks`` (default N), non-colliding, spawned in ``[-1, 1]^2``.
    - Observation of agent i (``4 + 2L + 4(N-1)`` = 18 for N=3):
      ``[self_vel (2), self_pos (2), landmark_rel_pos (L, 2), other_agent_rel_pos (N-1, 2),
      other_agent_comm (N-1, 2)]`` (the comm entries stay zero: agents are silent).
      With ``num_landmark_neighbors=k`` / ``num_agent_neighbors=m`` only the k nearest
      landmarks / m nearest agents (and their comm) are shown, nearest first,
      zero-padded to a fixed size.
    - Actions: ``Discrete(5)`` or ``Box(0, 1, (5,))``.
    - Reward: ``(1 - local_ratio) * global + local_ratio * local_i`` with
      ``global = -sum_landmarks min_agents |p_a - p_l|`` and ``local_i = -1`` per other
      agent overlapping agent i.
    - Episode: ``max_steps`` steps; with ``terminate_on_success`` it also ends once every
      landmark has an agent within 0.1.

    Args:
        num_agents: number of agents N (>= 1).
        num_landmarks: number of landmarks (default: N, as in mpe2).
        local_ratio: weight of the local (collision) reward, in [0, 1].
        action_type: ``"Discrete"`` (default) or ``"Continuous"``.
        max_steps: episode length (default 25).
        num_agent_neighbors: observe only this many nearest other agents (default: all).
        num_landmark_neighbors: observe only this many nearest landmarks (default: all).
        terminate_on_success: end the episode when every landmark is covered.
    """

    def __init__(
        self,
        num_agents: int = 3,
        num_landmarks: int | None = None,
        local_ratio: float = 0.5,
        action_type: str = C.DISCRETE_ACT,
        max_steps: int = C.MAX_STEPS,
        num_agent_neighbors: int | None = None,
        num_landmark_neighbors: int | None = None,
        terminate_on_success: bool = False,
    ) -> None:
        name = type(self).__name__
        num_agents = check_count(name, "num_agents", num_agents, 1)
        num_landmarks = (
            num_agents if num_landmarks is None else check_count(name, "num_landmarks", num_landmarks, 1)
        )
        if not 0.0 <= local_ratio <= 1.0:
            raise ValueError(f"{name}: local_ratio must be in [0, 1], got {local_ratio!r}")
        check_count(name, "num_agent_neighbors", num_agent_neighbors, 1, optional=True)
        check_count(name, "num_landmark_neighbors", num_landmark_neighbors, 1, optional=True)
        super().__init__(
            agents=[f"agent_{i}" for i in range(num_agents)],
            num_landmarks=num_landmarks,
            dim_c=2,
            action_type=action_type,
            max_steps=max_steps,
            agent_size=0.15,
            agent_silent=True,
            landmark_collide=False,
            agent_colour=C.AGENT_COLOUR,
            landmark_colour=C.LANDMARK_COLOUR,
        )
        self.local_ratio = local_ratio
        self.num_agent_neighbors = num_agent_neighbors
        self.num_landmark_neighbors = num_landmark_neighbors
        self.terminate_on_success = terminate_on_success
        n_l = num_landmarks if num_landmark_neighbors is None else num_landmark_neighbors
        n_a = num_agents - 1 if num_agent_neighbors is None else num_agent_neighbors
        self.observation_spaces = obs_spaces({a: 4 + 2 * n_l + (2 + self.dim_c) * n_a for a in self.agents})

    def get_obs(self, state: State) -> dict[str, jax.Array]:
        N = self.num_agents
        agent_pos = state.p_pos[:N]
        landmark_pos = state.p_pos[N:]

        def observe(i: jax.Array, others: jax.Array) -> jax.Array:
            pos = agent_pos[i]
            (landmark_part,) = observe_nearest(pos, landmark_pos, self.num_landmark_neighbors)
            other_part, comm_part = observe_nearest(
                pos, agent_pos[others], self.num_agent_neighbors, state.c[others]
            )
            return jnp.concatenate([state.p_vel[i], pos, landmark_part, other_part, comm_part])

        obs = jax.vmap(observe)(jnp.arange(N), jnp.asarray(self.others))
        return self.to_dict(obs)

    def _landmark_cover(self, state: State) -> jax.Array:
        """Distance from each landmark to its nearest agent, ``(L,)``."""
        N = self.num_agents
        d = length(state.p_pos[N:, None, :] - state.p_pos[None, :N, :])
        return jnp.min(d, axis=1)

    def rewards(self, state: State) -> dict[str, jax.Array]:
        N = self.num_agents
        global_rew = -jnp.sum(self._landmark_cover(state))
        i, j = np.triu_indices(N, 1)
        hits = self.is_collision(state, i, j)
        collisions = jnp.zeros((N,)).at[i].add(hits).at[j].add(hits)
        local = -collisions
        rew = global_rew * (1.0 - self.local_ratio) + local * self.local_ratio
        return self.to_dict(rew)

    def is_terminal(self, state: State) -> jax.Array:
        if not self.terminate_on_success:
            return jnp.array(False)
        return jnp.all(self._landmark_cover(state) < CAPTURE_RADIUS)
