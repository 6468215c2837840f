"""MPE ``simple_world_comm``: predator-prey with food, forests and a speaking leader
(mpe2 ``simple_world_comm_v3``)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.mpe import constants as C
from jaxmarl.environments.mpe.env import MPEEnv, check_count
from jaxmarl.environments.mpe.geometry import length
from jaxmarl.environments.mpe.observations import map_bounds_penalty, obs_spaces
from jaxmarl.environments.mpe.types import State

GOOD_COLOUR = (0.45, 0.95, 0.45)
ADVERSARY_COLOUR = (0.95, 0.45, 0.45)
LEADER_COLOUR = (0.65, 0.15, 0.15)
FOOD_COLOUR = (0.15, 0.15, 0.65)
FOREST_COLOUR = (0.6, 0.9, 0.6)


class SimpleWorldCommMPE(MPEEnv):
    """Like ``simple_tag``, with food the good agents want, forests that hide whoever is
    inside, and a leader adversary who sees everything and talks to the other
    adversaries.

    - Agents: ``leadadversary_0``, ``adversary_0 ...`` (radius 0.075, accel 3, max speed
      1.0), then ``agent_0 ...`` (radius 0.045, accel 4, max speed 1.3); all collide;
      only the leader speaks (``dim_c = 4``). As in JaxMARL, ``env.leader`` names the
      leader, ``env.adversaries`` the other adversaries and ``env.good_agents`` the rest;
      ``num_adversaries`` counts the leader.
    - Landmarks, spawned in ``[-0.9, 0.9]^2``, in this order: ``num_obs`` obstacles
      (radius 0.2, collide), ``num_food`` food (0.03) and ``num_forests`` forests (0.3).
    - Visibility: an agent is "in" a forest when it overlaps it. Another agent's position
      (and velocity) is shown only if both are in a common forest, or neither is in any
      forest, or the observer is the leader; otherwise it reads as zeros.
    - Observation: adversaries and leader (34 with defaults) ``[self_vel (2), self_pos (2),
      landmark_rel_pos (L, 2), other_agent_rel_pos (N-1, 2), good_agent_vel (G, 2),
      self_in_forest (F), leader_utterance (4)]``; good agents (28)
      ``[self_vel, self_pos, landmark_rel_pos, other_agent_rel_pos, self_in_forest (F),
      other_good_agent_vel (G-1, 2)]``; ``self_in_forest`` is +1 / -1 per forest.
    - Actions: leader ``Discrete(20)`` (``move + 5 * word``) or ``Box(0, 1, (9,))``; the
      others ``Discrete(5)`` or ``Box(0, 1, (5,))``.
    - Reward: adversaries (all the same bonus) ``+5`` per (good, adversary) pair in
      contact, minus ``0.1 *`` the distance to the nearest good agent; good agents
      ``-5`` per adversary touching them, ``-2 *`` the arena penalty of ``simple_tag``,
      ``+2`` per food touched and ``-0.05 *`` the distance to the nearest food.

    Args:
        num_good_agents: number of good agents (>= 1).
        num_adversaries: number of adversaries including the leader (>= 1).
        num_obs: number of obstacles (>= 0).
        num_food: number of food landmarks (>= 1).
        num_forests: number of forests (>= 0).
        action_type: ``"Discrete"`` (default) or ``"Continuous"``.
        max_steps: episode length (default 25).
    """

    def __init__(
        self,
        num_good_agents: int = 2,
        num_adversaries: int = 4,
        num_obs: int = 1,
        num_food: int = 2,
        num_forests: int = 2,
        action_type: str = C.DISCRETE_ACT,
        max_steps: int = C.MAX_STEPS,
    ) -> None:
        name = type(self).__name__
        num_good_agents = check_count(name, "num_good_agents", num_good_agents, 1)
        num_adversaries = check_count(name, "num_adversaries", num_adversaries, 1)
        num_obs = check_count(name, "num_obs", num_obs, 0)
        num_food = check_count(name, "num_food", num_food, 1)
        num_forests = check_count(name, "num_forests", num_forests, 0)
        self.num_good_agents, self.num_adversaries = num_good_agents, num_adversaries
        self.num_obs, self.num_food, self.num_forests = num_obs, num_food, num_forests
        # JaxMARL 0.2.0's roles: the leader, the other adversaries, the good agents.
        self.leader, self.leader_idx = "leadadversary_0", 0
        self.adversaries = [f"adversary_{i}" for i in range(num_adversaries - 1)]
        self.good_agents = [f"agent_{i}" for i in range(num_good_agents)]
        is_adv = np.array([True] * num_adversaries + [False] * num_good_agents)
        agent_colour = np.where(is_adv[:, None], ADVERSARY_COLOUR, GOOD_COLOUR)
        agent_colour[0] = LEADER_COLOUR
        super().__init__(
            agents=[self.leader, *self.adversaries, *self.good_agents],
            num_landmarks=num_obs + num_food + num_forests,
            dim_c=4,
            action_type=action_type,
            max_steps=max_steps,
            agent_size=np.where(is_adv, 0.075, 0.045),
            agent_accel=np.where(is_adv, 3.0, 4.0),
            agent_max_speed=np.where(is_adv, 1.0, 1.3),
            agent_silent=np.arange(len(is_adv)) > 0,
            landmark_size=[0.2] * num_obs + [0.03] * num_food + [0.3] * num_forests,
            landmark_collide=[True] * num_obs + [False] * (num_food + num_forests),
            landmark_spawn=0.9,
            agent_colour=agent_colour,
            landmark_colour=[C.OBSTACLE_COLOUR] * num_obs
            + [FOOD_COLOUR] * num_food
            + [FOREST_COLOUR] * num_forests,
        )
        self.is_adversary = is_adv
        N, L = self.num_agents, self.num_landmarks
        base = 4 + 2 * L + 2 * (N - 1) + num_forests
        self.observation_spaces = obs_spaces(
            {
                a: base + (2 * num_good_agents + self.dim_c if is_adv[i] else 2 * (num_good_agents - 1))
                for i, a in enumerate(self.agents)
            }
        )
        self._food = N + num_obs + np.arange(num_food)
        self._forests = N + num_obs + num_food + np.arange(num_forests)
        good = np.flatnonzero(~is_adv)
        self._good = good
        self._other_good_good = np.array([[g for g in good if g != i] for i in good], np.int32).reshape(
            num_good_agents, num_good_agents - 1
        )

    @property
    def landmarks(self) -> list[str]:
        """The landmarks' names, in world order (JaxMARL's): obstacles ``"landmark i"``,
        then ``"food i"`` and ``"forest i"``."""
        return (
            [f"landmark {i}" for i in range(self.num_obs)]
            + [f"food {i}" for i in range(self.num_food)]
            + [f"forest {i}" for i in range(self.num_forests)]
        )

    def get_obs(self, state: State) -> dict[str, jax.Array]:
        N = self.num_agents
        pos, vel = state.p_pos[:N], state.p_vel[:N]
        # in_forest[i, f]: agent i overlaps forest f.
        in_forest = self.is_collision(state, np.arange(N)[:, None], self._forests[None, :])
        # visible[i, j]: agent i sees agent j.
        share_forest = jnp.any(in_forest[:, None, :] & in_forest[None, :, :], axis=-1)
        outside = ~jnp.any(in_forest, axis=-1)
        visible = share_forest | (outside[:, None] & outside[None, :])
        visible = visible.at[0].set(True)  # the leader sees everyone
        forest_flag = jnp.where(in_forest, 1.0, -1.0)
        landmark_rel = (state.p_pos[None, N:, :] - pos[:, None, :]).reshape(N, -1)
        others = self.others
        seen = visible[np.arange(N)[:, None], others]  # (N, N-1)
        other_rel = jnp.where(seen[..., None], pos[others] - pos[:, None, :], 0.0).reshape(N, -1)
        good_vel = jnp.where(visible[:, self._good, None], vel[self._good][None], 0.0)  # (N, G, 2)
        head = jnp.concatenate([vel, pos, landmark_rel, other_rel], axis=-1)

        n_adv = self.num_adversaries
        leader_said = jnp.broadcast_to(state.c[0], (n_adv, self.dim_c))
        adv_obs = jnp.concatenate(
            [head[:n_adv], good_vel[:n_adv].reshape(n_adv, -1), forest_flag[:n_adv], leader_said], axis=-1
        )
        good_rows = self._good
        other_good_vel = jnp.where(
            visible[good_rows[:, None], self._other_good_good][..., None], vel[self._other_good_good], 0.0
        )
        good_obs = jnp.concatenate(
            [head[n_adv:], forest_flag[n_adv:], other_good_vel.reshape(self.num_good_agents, -1)], axis=-1
        )
        out = self.to_dict(adv_obs, [self.leader, *self.adversaries])
        out.update(self.to_dict(good_obs, self.good_agents))
        return out

    def rewards(self, state: State) -> dict[str, jax.Array]:
        n_adv = self.num_adversaries
        good = self._good
        adv = np.arange(n_adv)
        caught = self.is_collision(state, good[:, None], adv[None, :])  # (G, A)
        good_pos = state.p_pos[good]
        # Adversaries: shaped by the distance to the nearest good agent.
        adv_to_good = length(state.p_pos[:n_adv, None, :] - good_pos[None])
        adv_rew = 5.0 * jnp.sum(caught) - 0.1 * jnp.min(adv_to_good, axis=1)
        # Good agents.
        food_pos = state.p_pos[self._food]
        eats = self.is_collision(state, good[:, None], self._food[None, :])
        food_dist = length(good_pos[:, None, :] - food_pos[None])
        good_rew = (
            -5.0 * jnp.sum(caught, axis=1)
            - 2.0 * map_bounds_penalty(good_pos)
            + 2.0 * jnp.sum(eats, axis=1)
            - 0.05 * jnp.min(food_dist, axis=1)
        )
        return self.to_dict(jnp.concatenate([adv_rew, good_rew]))
