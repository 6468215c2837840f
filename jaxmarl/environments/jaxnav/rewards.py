"""JaxNav's reward (JaxMARL 0.2.0's ``compute_reward``, the "No Regrets" paper's reward).

Each robot's own reward for a step is the sum of five terms, all zero for a robot that
was already done before the step:

- ``r_g`` goal: ``goal_rew`` on the step it reaches its goal (within ``goal_radius``),
  otherwise ``weight_g`` times the distance it closed to its goal; zero once it has
  reached it;
- ``r_c`` collision: ``coll_rew`` on the step it hits a wall or another robot (once);
- ``r_w`` turning: ``weight_w * |w_cmd|`` when the commanded angular velocity exceeds
  ``lim_w`` in magnitude;
- ``r_t`` time: ``dt_rew`` every step until it reached its goal or collided;
- ``r_l`` lidar proximity: ``lidar_rew`` when a lidar reading is within ``lidar_thresh``
  of its radius (``reading <= lidar_thresh + rad``).

The *sparse* part is ``r_g`` on the step the goal is reached plus ``r_c`` and ``r_t``; the
*dense* part is ``r_g`` otherwise plus ``r_w`` and ``r_l``. Team mixing: each robot gets
``lambda * own + (1 - lambda) * shared``, ``shared`` being the mean own reward of all
robots (or the mean sparse part with ``share_only_sparse``).
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

__all__ = ["RewardWeights", "individual_rewards", "mix"]


class RewardWeights(NamedTuple):
    """The reward's weights (static, from the env's keywords)."""

    goal_rew: float
    weight_g: float
    lim_w: float
    weight_w: float
    dt_rew: float
    coll_rew: float
    lidar_thresh: float
    lidar_rew: float
    rad: float


def individual_rewards(
    w: RewardWeights,
    lidar: jax.Array,
    new_pos: jax.Array,
    old_pos: jax.Array,
    command: jax.Array,
    goal: jax.Array,
    collision: jax.Array,
    goal_reached: jax.Array,
    old_done: jax.Array,
    old_goal_reached: jax.Array,
    old_move_term: jax.Array,
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Each robot's own reward and its sparse and dense parts, float32 ``(n,)`` each.

    Args:
        w: the weights.
        lidar: the robots' new lidar readings in metres, ``(n, num_beams)``.
        new_pos, old_pos, goal: ``(n, 2)``.
        command: the requested velocities ``(v, w)``, ``(n, 2)``.
        collision, goal_reached: the robots' collision and goal flags after the step
            (kept from earlier steps unless robots evaporate), bool ``(n,)``.
        old_done, old_goal_reached, old_move_term: the flags before the step.
    """
    progress = w.weight_g * (
        jnp.linalg.norm(old_pos - goal, axis=-1) - jnp.linalg.norm(new_pos - goal, axis=-1)
    )
    r_goal = jnp.where(goal_reached, w.goal_rew, progress) * (1 - old_goal_reached)
    r_coll = collision * w.coll_rew * (1 - old_move_term)
    turn = jnp.abs(command[:, 1])
    r_turn = jnp.where(turn > w.lim_w, w.weight_w * turn, 0.0)
    r_time = w.dt_rew * (1 - (old_goal_reached | old_move_term))
    r_lidar = jnp.any(lidar <= (w.lidar_thresh + w.rad), axis=-1) * w.lidar_rew
    active = 1 - old_done
    total = (r_goal + r_coll + r_turn + r_time + r_lidar) * active
    sparse = (jnp.where(goal_reached, r_goal, 0.0) + r_coll + r_time) * active
    dense = (jnp.where(goal_reached, 0.0, r_goal) + r_turn + r_lidar) * active
    return total, sparse, dense


def mix(own: jax.Array, shared: jax.Array | float, rew_lambda: jax.Array | float) -> jax.Array:
    """``lambda * own + (1 - lambda) * shared`` for every robot, ``(n,)``."""
    return rew_lambda * own + (1 - rew_lambda) * shared
