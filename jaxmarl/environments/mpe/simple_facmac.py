"""Cooperative predator-prey of FACMAC (Peng et al., 2021): predators learn, prey flee
by a scripted policy, and every predator shares the team reward.

Rules follow FACMAC's ``continuous_pred_prey`` scenarios (the ``3a``, ``6a`` and ``9a``
maps). Like the rest of our MPE family the world uses mpe2's physics; FACMAC's own copy
of the particle world integrated velocity before position.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.mpe import constants as C
from jaxmarl.environments.mpe.env import MPEEnv, check_count
from jaxmarl.environments.mpe.geometry import length, length_sq
from jaxmarl.environments.mpe.observations import obs_spaces
from jaxmarl.environments.mpe.simple_tag import predator_prey_world
from jaxmarl.environments.mpe.types import State

NUM_PREY_SAMPLES = 100  # candidate moves the prey scores each step
NUM_WAYPOINTS = 5  # points checked for collisions along a candidate move ("sum")
BLOCKED = -9999999.0  # score of a candidate move that runs into someone
SCORE_FUNCTIONS = ("sum", "min")
# FACMAC's maps: the keywords of ``MPE_simple_facmac_{3a,6a,9a}_v1``.
FACMAC_MAPS: dict[str, dict[str, Any]] = {
    f"{3 * k}a": {
        "num_good_agents": k,
        "num_adversaries": 3 * k,
        "num_landmarks": 2 * k,
        "score_function": "min",
    }
    for k in (1, 2, 3)
}


class SimpleFacmacMPE(MPEEnv):
    """Cooperative predator-prey: predators are rewarded together for touching prey
    that run away from them by a scripted policy.

    - Agents (learning): ``adversary_0 ...`` predators (radius 0.075, accel 3, max speed
      1.0). Scripted prey ``agent_0 ...`` (radius 0.05, max speed 1.3) are world
      entities but not in ``env.agents``. Everyone collides; nobody speaks.
    - Landmarks: ``num_landmarks`` obstacles (radius 0.2, collide), spawned in
      ``[-0.9, 0.9]^2``.
    - Observation of a predator (16 for 3 predators, 1 prey, 2 obstacles):
      ``[self_vel (2), self_pos (2), landmark_rel_pos (L, 2),
      other_agent_rel_pos (predators and prey but self, 2 each), prey_vel (P, 2)]``.
      Anything farther than ``view_radius`` reads as zeros.
    - Actions: ``Box(0, 1, (5,))`` (``u = [a2 - a1, a4 - a3] * accel``, default) or
      ``Discrete(5)``.
    - Prey policy: each prey samples 100 moves uniformly in the unit disc and takes the
      best-scoring one as its force (not scaled by accel, as in FACMAC), or stays put if
      all are blocked. ``"min"``: a move is blocked if it ends inside a predator, and
      scores its distance to the predator nearest the prey. ``"sum"``: a move is
      blocked if any of 5 points along it is inside another agent, and scores the sum
      of its end point's distances to all other agents.
    - Reward (every predator): ``+10`` per (prey, predator) pair in contact.

    Args:
        num_good_agents: number of prey (>= 1).
        num_adversaries: number of predators (>= 1).
        num_landmarks: number of obstacles (>= 0).
        view_radius: observation radius; ``None`` or a negative value for full
            observability.
        score_function: prey policy, ``"sum"`` or ``"min"``.
        action_type: ``"Continuous"`` (default) or ``"Discrete"``.
        max_steps: episode length (default 25).
    """

    def __init__(
        self,
        num_good_agents: int = 1,
        num_adversaries: int = 3,
        num_landmarks: int = 2,
        view_radius: float | None = 1.5,
        score_function: str = "sum",
        action_type: str = C.CONTINUOUS_ACT,
        max_steps: int = C.MAX_STEPS,
    ) -> None:
        name = type(self).__name__
        num_good_agents = check_count(name, "num_good_agents", num_good_agents, 1)
        num_adversaries = check_count(name, "num_adversaries", num_adversaries, 1)
        num_landmarks = check_count(name, "num_landmarks", num_landmarks, 0)
        if score_function not in SCORE_FUNCTIONS:
            raise ValueError(
                f"{name}: score_function must be one of {SCORE_FUNCTIONS}, got {score_function!r}"
            )
        self.num_good_agents, self.num_adversaries = num_good_agents, num_adversaries
        self.adversaries = [f"adversary_{i}" for i in range(num_adversaries)]
        self.good_agents = [f"agent_{i}" for i in range(num_good_agents)]
        is_adv = np.array([True] * num_adversaries + [False] * num_good_agents)
        super().__init__(
            agents=self.adversaries,
            scripted_agents=self.good_agents,
            num_landmarks=num_landmarks,
            dim_c=2,
            action_type=action_type,
            max_steps=max_steps,
            **predator_prey_world(is_adv),
        )
        self.view_radius = np.inf if view_radius is None or view_radius < 0 else float(view_radius)
        self.score_function = score_function
        W = self.num_world_agents
        self.observation_spaces = obs_spaces(
            {a: 4 + 2 * num_landmarks + 2 * (W - 1) + 2 * num_good_agents for a in self.agents}
        )
        self._prey = np.arange(num_adversaries, W)

    # ---------------------------------------------------------------- prey policy
    def scripted_forces(self, key: jax.Array, state: State) -> jax.Array:
        """Every prey's force, ``(P, 2)``: the best of its own 100 candidate moves.

        All prey are scored at once on ``(P, S, ...)`` arrays. Random bits are what a
        step spends most on, so each candidate costs one 32-bit word: its high 16 bits
        give the squared length and its low 16 bits the angle (a uniform grid of
        ``2^16`` values each, far finer than anything a move can resolve).
        """
        P, S, W = self.num_good_agents, NUM_PREY_SAMPLES, self.num_world_agents
        prey = self._prey
        bits = jax.random.bits(key, (P, S), jnp.uint32)
        radius = jnp.sqrt((bits >> 16).astype(jnp.float32) * (1.0 / 65536))
        angle = (bits & 0xFFFF).astype(jnp.float32) * (2 * jnp.pi / 65536)
        move = radius[..., None] * jnp.stack([jnp.cos(angle), jnp.sin(angle)], axis=-1)  # (P, S, 2)
        size = jnp.asarray(self.size[:W])
        here = state.p_pos[prey]  # (P, 2)
        dest = here[:, None] + move  # (P, S, 2)
        if self.score_function == "min":
            A = self.num_adversaries
            adv_pos = state.p_pos[:A]
            reach = size[:A][None, :] + size[prey][:, None]  # (P, A) contact distances
            # Gather the nearest predator's position (2 numbers per prey), not its column
            # of the (S, A) distances (S numbers): a per-sample gather is slow on CPU.
            nearest = jnp.argmin(length_sq(adv_pos[None] - here[:, None]), axis=-1)
            target = adv_pos[nearest]  # (P, 2)
            dist = length(dest[:, :, None] - adv_pos[None, None])  # (P, S, A)
            blocked = jnp.any(dist < reach[:, None], axis=-1)
            score = length(dest - target[:, None])
        else:
            agent_pos = state.p_pos[:W]
            reach = size[None, :] + size[prey][:, None]  # (P, W)
            others = np.arange(W)[None, :] != prey[:, None]  # (P, W)
            fractions = jnp.arange(1, NUM_WAYPOINTS + 1) / NUM_WAYPOINTS
            waypoints = here[:, None, None] + fractions[None, :, None, None] * move[:, None]  # (P, K, S, 2)
            dist = length(waypoints[..., None, :] - agent_pos)  # (P, K, S, W)
            hit = (dist < reach[:, None, None]) & others[:, None, None]
            blocked = jnp.any(hit, axis=(1, 3))
            score = jnp.sum(jnp.where(others[:, None], dist[:, -1], 0.0), axis=-1)
        score = jnp.where(blocked, BLOCKED, score)  # (P, S)
        best = jnp.argmax(score, axis=-1)
        chosen = jnp.take_along_axis(move, best[:, None, None], axis=1)[:, 0]
        return jnp.where((jnp.max(score, axis=-1) < 0)[:, None], 0.0, chosen)

    # ------------------------------------------------------------ obs and rewards
    def get_obs(self, state: State) -> dict[str, jax.Array]:
        W, A = self.num_world_agents, self.num_agents
        pos, vel = state.p_pos[:A], state.p_vel[:A]
        landmark_rel = state.p_pos[None, W:, :] - pos[:, None, :]  # (A, L, 2)
        other_rel = state.p_pos[self.others[:A]] - pos[:, None, :]  # (A, W-1, 2)
        prey_rel = state.p_pos[self._prey][None] - pos[:, None, :]  # (A, P, 2)

        def hide(rel: jax.Array) -> jax.Array:
            seen = (length(rel) <= self.view_radius)[..., None]
            return jnp.where(seen, rel, 0.0)

        prey_seen = (length(prey_rel) <= self.view_radius)[..., None]
        prey_vel = jnp.where(prey_seen, state.p_vel[self._prey][None], 0.0)
        obs = jnp.concatenate(
            [
                vel,
                pos,
                hide(landmark_rel).reshape(A, -1),
                hide(other_rel).reshape(A, -1),
                prey_vel.reshape(A, -1),
            ],
            axis=-1,
        )
        return self.to_dict(obs)

    def rewards(self, state: State) -> dict[str, jax.Array]:
        caught = self.is_collision(state, self._prey[:, None], np.arange(self.num_adversaries)[None, :])
        rew = 10.0 * jnp.sum(caught)
        return {a: rew for a in self.agents}


# FACMAC's three maps under JaxMARL 0.2.0's names (registered as
# ``MPE_simple_facmac_3a_v1`` ...): predators, prey and obstacles, the "min" prey policy.
def SimpleFacmacMPE3a(**kwargs: Any) -> SimpleFacmacMPE:
    """FACMAC's 3-predator map: 3 predators, 1 prey, 2 obstacles."""
    return SimpleFacmacMPE(**{**FACMAC_MAPS["3a"], **kwargs})


def SimpleFacmacMPE6a(**kwargs: Any) -> SimpleFacmacMPE:
    """FACMAC's 6-predator map: 6 predators, 2 prey, 4 obstacles."""
    return SimpleFacmacMPE(**{**FACMAC_MAPS["6a"], **kwargs})


def SimpleFacmacMPE9a(**kwargs: Any) -> SimpleFacmacMPE:
    """FACMAC's 9-predator map: 9 predators, 3 prey, 6 obstacles."""
    return SimpleFacmacMPE(**{**FACMAC_MAPS["9a"], **kwargs})
