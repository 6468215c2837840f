"""MPE ``simple_adversary``: good agents hide the goal from an adversary (mpe2 ``simple_adversary_v3``)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.mpe import constants as C
from jaxmarl.environments.mpe.env import MPEEnv, check_count
from jaxmarl.environments.mpe.geometry import length
from jaxmarl.environments.mpe.observations import obs_spaces, observe_nearest
from jaxmarl.environments.mpe.types import State

GOAL_COLOUR = (0.15, 0.65, 0.15)


class SimpleAdversaryMPE(MPEEnv):
    """Physical deception: good agents know which landmark is the goal, the adversary
    does not; good agents want one of them at the goal and the adversary far from it.

    - Agents: ``adversary_0 ...`` then ``agent_0 ...`` (radius 0.15, no collisions,
      silent).
    - Landmarks: ``num_obs`` (default: the number of good agents), radius 0.08, spawned
      in ``[-1, 1]^2``; one, drawn uniformly at reset, is the goal (``state.goal[0]``).
    - Observation: good agent ``[goal_rel_pos (2), landmark_rel_pos (L, 2),
      other_agent_rel_pos (N-1, 2)]`` (10 with defaults); adversary the same without the
      goal (8). ``num_landmark_neighbors`` / ``num_agent_neighbors`` restrict landmarks /
      other agents to the nearest ones (zero-padded); the goal stays visible.
    - Actions: ``Discrete(5)`` or ``Box(0, 1, (5,))``.
    - Reward: adversary ``-|p_adv - p_goal|``; every good agent
      ``-min_good |p_good - p_goal| + sum_adv |p_adv - p_goal|``.

    Args:
        num_good_agents: number of good agents (mpe2's ``N``, >= 1).
        num_adversaries: number of adversaries (>= 1; mpe2 has 1).
        num_obs: number of landmarks (default: ``num_good_agents``).
        action_type: ``"Discrete"`` (default) or ``"Continuous"``.
        max_steps: episode length (default 25).
        num_agent_neighbors, num_landmark_neighbors: partial observability.
    """

    def __init__(
        self,
        num_good_agents: int = 2,
        num_adversaries: int = 1,
        num_obs: int | None = None,
        action_type: str = C.DISCRETE_ACT,
        max_steps: int = C.MAX_STEPS,
        num_agent_neighbors: int | None = None,
        num_landmark_neighbors: int | None = None,
    ) -> None:
        name = type(self).__name__
        num_good_agents = check_count(name, "num_good_agents", num_good_agents, 1)
        num_adversaries = check_count(name, "num_adversaries", num_adversaries, 1)
        num_obs = num_good_agents if num_obs is None else check_count(name, "num_obs", num_obs, 1)
        check_count(name, "num_agent_neighbors", num_agent_neighbors, 1, optional=True)
        check_count(name, "num_landmark_neighbors", num_landmark_neighbors, 1, optional=True)
        self.num_good_agents, self.num_adversaries = num_good_agents, num_adversaries
        self.adversaries = [f"adversary_{i}" for i in range(num_adversaries)]
        self.good_agents = [f"agent_{i}" for i in range(num_good_agents)]
        is_adv = np.array([True] * num_adversaries + [False] * num_good_agents)
        super().__init__(
            agents=self.adversaries + self.good_agents,
            num_landmarks=num_obs,
            dim_c=2,
            action_type=action_type,
            max_steps=max_steps,
            agent_size=0.15,
            agent_silent=True,
            agent_collide=False,
            landmark_size=0.08,
            landmark_collide=False,
            agent_colour=np.where(is_adv[:, None], C.ADVERSARY_COLOUR, C.AGENT_COLOUR),
            landmark_colour=(0.15, 0.15, 0.15),
        )
        self.num_agent_neighbors = num_agent_neighbors
        self.num_landmark_neighbors = num_landmark_neighbors
        n_l = num_obs if num_landmark_neighbors is None else num_landmark_neighbors
        n_a = self.num_agents - 1 if num_agent_neighbors is None else num_agent_neighbors
        self.observation_spaces = obs_spaces(
            {a: 2 * n_l + 2 * n_a + (0 if is_adv[i] else 2) for i, a in enumerate(self.agents)}
        )

    def sample_goals(self, key: jax.Array) -> jax.Array:
        return jax.random.randint(key, (1,), 0, self.num_landmarks, dtype=jnp.int32)

    def entity_colours(self, state: State) -> jax.Array:
        return jnp.asarray(self.colour).at[self.num_agents + state.goal[0]].set(jnp.asarray(GOAL_COLOUR))

    def get_obs(self, state: State) -> dict[str, jax.Array]:
        N = self.num_agents
        agent_pos, landmark_pos = state.p_pos[:N], state.p_pos[N:]
        goal_pos = landmark_pos[state.goal[0]]

        def observe(i: jax.Array, others: jax.Array) -> jax.Array:
            pos = agent_pos[i]
            (landmark_part,) = observe_nearest(pos, landmark_pos, self.num_landmark_neighbors)
            (other_part,) = observe_nearest(pos, agent_pos[others], self.num_agent_neighbors)
            return jnp.concatenate([goal_pos - pos, landmark_part, other_part])

        obs = jax.vmap(observe)(jnp.arange(N), jnp.asarray(self.others))
        n_adv = self.num_adversaries
        out = self.to_dict(obs[:n_adv, 2:], self.adversaries)
        out.update(self.to_dict(obs[n_adv:], self.good_agents))
        return {a: out[a] for a in self.agents}

    def rewards(self, state: State) -> dict[str, jax.Array]:
        goal_pos = state.p_pos[self.num_agents + state.goal[0]]
        dist = length(state.p_pos[: self.num_agents] - goal_pos)
        adv_dist = dist[: self.num_adversaries]
        good_rew = -jnp.min(dist[self.num_adversaries :]) + jnp.sum(adv_dist)
        rew = jnp.concatenate([-adv_dist, jnp.full((self.num_good_agents,), good_rew)])
        return self.to_dict(rew)
