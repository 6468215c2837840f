"""MPE ``simple_tag``: predators chase prey among obstacles (mpe2 ``simple_tag_v3``)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.mpe import constants as C
from jaxmarl.environments.mpe.env import MPEEnv, check_count
from jaxmarl.environments.mpe.observations import map_bounds_penalty, obs_spaces, observe_nearest
from jaxmarl.environments.mpe.types import State


def predator_prey_world(is_adversary: np.ndarray) -> dict:
    """Entity settings shared by simple_tag and FACMAC's predator-prey: slow, large
    adversaries (radius 0.075, accel 3, max speed 1.0), fast, small good agents (0.05,
    4, 1.3), silent; obstacles of radius 0.2 spawned in ``[-0.9, 0.9]^2``."""
    return {
        "agent_size": np.where(is_adversary, 0.075, 0.05),
        "agent_accel": np.where(is_adversary, 3.0, 4.0),
        "agent_max_speed": np.where(is_adversary, 1.0, 1.3),
        "agent_silent": True,
        "landmark_size": 0.2,
        "landmark_spawn": 0.9,
        "agent_colour": np.where(is_adversary[:, None], C.ADVERSARY_COLOUR, C.GOOD_COLOUR),
        "landmark_colour": C.OBSTACLE_COLOUR,
    }


class SimpleTagMPE(MPEEnv):
    """Predator-prey: slower adversaries are rewarded for hitting the faster good agents.

    - Agents: ``adversary_0 ...`` (radius 0.075, accel 3, max speed 1.0) then
      ``agent_0 ...`` (radius 0.05, accel 4, max speed 1.3); all collide, all silent.
    - Landmarks: ``num_obs`` obstacles (radius 0.2, collide), spawned in ``[-0.9, 0.9]^2``.
    - Observation: ``[self_vel (2), self_pos (2), obstacle_rel_pos (L, 2),
      other_agent_rel_pos (N-1, 2), good_agent_vel]`` where the last part holds the
      velocity of every other good agent (16 for adversaries, 14 for the good agent with
      the defaults). With ``num_agent_neighbors=m`` the other agents shrink to the m
      nearest (nearest first, zero-padded) and ``good_agent_vel`` to m slots aligned with
      them (zero for adversaries); ``num_landmark_neighbors`` likewise for obstacles.
    - Actions: ``Discrete(5)`` or ``Box(0, 1, (5,))``.
    - Reward: every adversary gets +10 for each (good agent, adversary) pair in contact;
      a good agent gets -10 for each adversary touching it, minus a penalty for leaving
      the arena, summed over x and y: ``10 (|x| - 0.9)`` for ``0.9 <= |x| < 1`` and
      ``min(exp(2|x| - 2), 10)`` beyond.
    - Episode: ``max_steps`` steps; with ``terminate_on_success`` it also ends when every
      good agent is touched by an adversary.

    Args:
        num_good_agents: number of prey (>= 1).
        num_adversaries: number of predators (>= 1).
        num_obs: number of obstacles (>= 0).
        action_type: ``"Discrete"`` (default) or ``"Continuous"``.
        max_steps: episode length (default 25).
        num_agent_neighbors, num_landmark_neighbors: partial observability (see above).
        terminate_on_success: end the episode once every good agent is caught.
    """

    def __init__(
        self,
        num_good_agents: int = 1,
        num_adversaries: int = 3,
        num_obs: int = 2,
        action_type: str = C.DISCRETE_ACT,
        max_steps: int = C.MAX_STEPS,
        num_agent_neighbors: int | None = None,
        num_landmark_neighbors: int | None = None,
        terminate_on_success: bool = False,
    ) -> None:
        name = type(self).__name__
        num_good_agents = check_count(name, "num_good_agents", num_good_agents, 1)
        num_adversaries = check_count(name, "num_adversaries", num_adversaries, 1)
        num_obs = check_count(name, "num_obs", num_obs, 0)
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
            **predator_prey_world(is_adv),
        )
        self.is_adversary = is_adv
        self.num_agent_neighbors = num_agent_neighbors
        self.num_landmark_neighbors = num_landmark_neighbors
        self.terminate_on_success = terminate_on_success
        n_l = num_obs if num_landmark_neighbors is None else num_landmark_neighbors
        n_a = self.num_agents - 1 if num_agent_neighbors is None else num_agent_neighbors
        base = 4 + 2 * n_l + 2 * n_a
        if num_agent_neighbors is None:
            dims = {
                a: base + 2 * (num_good_agents - (0 if is_adv[i] else 1)) for i, a in enumerate(self.agents)
            }
        else:
            dims = {a: base + 2 * n_a for a in self.agents}
        self.observation_spaces = obs_spaces(dims)
        # Full observability: other_good[i] = indices of the good agents other than i.
        good = np.flatnonzero(~is_adv)
        self._other_good_adv = np.tile(good, (num_adversaries, 1))
        self._other_good_good = np.array([[g for g in good if g != i] for i in good], np.int32).reshape(
            num_good_agents, num_good_agents - 1
        )

    def get_obs(self, state: State) -> dict[str, jax.Array]:
        N = self.num_agents
        agent_pos, agent_vel = state.p_pos[:N], state.p_vel[:N]
        landmark_pos = state.p_pos[N:]
        good_mask = jnp.asarray(~self.is_adversary)

        def observe(i: jax.Array, others: jax.Array, other_good: jax.Array) -> jax.Array:
            pos = agent_pos[i]
            (landmark_part,) = observe_nearest(pos, landmark_pos, self.num_landmark_neighbors)
            if self.num_agent_neighbors is None:
                (other_part,) = observe_nearest(pos, agent_pos[others], None)
                vel_part = agent_vel[other_good].ravel()  # every other good agent
            else:  # velocity slots aligned with the nearest agents, zero for adversaries
                other_vel = jnp.where(good_mask[others][:, None], agent_vel[others], 0.0)
                other_part, vel_part = observe_nearest(
                    pos, agent_pos[others], self.num_agent_neighbors, other_vel
                )
            return jnp.concatenate([agent_vel[i], pos, landmark_part, other_part, vel_part])

        obs = {}
        for group, rows, other_good in (
            (self.adversaries, np.arange(self.num_adversaries), self._other_good_adv),
            (self.good_agents, np.arange(self.num_adversaries, N), self._other_good_good),
        ):
            group_obs = jax.vmap(observe)(
                jnp.asarray(rows), jnp.asarray(self.others[rows]), jnp.asarray(other_good)
            )
            obs.update(self.to_dict(group_obs, group))
        return obs

    def _caught(self, state: State) -> jax.Array:
        """``(num_good, num_adversaries)``: which adversaries touch each good agent."""
        adv = np.arange(self.num_adversaries)
        good = np.arange(self.num_adversaries, self.num_agents)
        return self.is_collision(state, good[:, None], adv[None, :])

    def rewards(self, state: State) -> dict[str, jax.Array]:
        caught = self._caught(state)
        adv_rew = 10.0 * jnp.sum(caught)
        good_pos = state.p_pos[self.num_adversaries : self.num_agents]
        good_rew = -10.0 * jnp.sum(caught, axis=1) - map_bounds_penalty(good_pos)
        rew = jnp.concatenate([jnp.full((self.num_adversaries,), adv_rew), good_rew])
        return self.to_dict(rew)

    def is_terminal(self, state: State) -> jax.Array:
        if not self.terminate_on_success:
            return jnp.array(False)
        return jnp.all(jnp.any(self._caught(state), axis=1))
