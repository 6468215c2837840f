"""State and level types of JaxNav."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import jax
import jax.numpy as jnp
from flax import struct


@struct.dataclass
class State:
    """State of a JaxNav episode (the field names and meanings of JaxMARL 0.2.0's
    ``jaxnav_env.State``, so states move between the two). ``n`` is the number of robots;
    positions are in metres, ``x`` to the right and ``y`` up, angles in radians.

    Attributes:
        pos: robot centres, float32 ``(n, 2)``.
        theta: robot headings in ``[-pi, pi)``, float32 ``(n,)``.
        vel: linear and angular velocity ``(v, w)``, float32 ``(n, 2)``.
        done: whether each robot is out of the episode, bool ``(n,)``. With evaporating
            robots a robot is done once it reached its goal, collided or the time ran
            out; otherwise every robot is done when the episode is.
        term: ``done`` before the last step (the robot's last action was ignored),
            bool ``(n,)``.
        goal_reached: reached its goal; kept once true unless robots evaporate (then
            true only on the step it happens), bool ``(n,)``.
        move_term: collided; kept once true unless robots evaporate, bool ``(n,)``.
        step: steps taken in the episode, int32 ``()``.
        ep_done: whether the episode is over, bool ``()``.
        goal: goal positions, float32 ``(n, 2)``.
        map_data: occupancy grid, int32 ``(height, width)``, 1 for a wall; row ``r``
            covers ``y`` in ``[r, r + 1) * cell_size``.
        rew_lambda: weight of each robot's own reward against the team's mean, float32
            ``()`` (JaxMARL stores ``(1,)`` when it samples it; both are accepted).
    """

    pos: jax.Array
    theta: jax.Array
    vel: jax.Array
    done: jax.Array
    term: jax.Array
    goal_reached: jax.Array
    move_term: jax.Array
    step: jax.Array
    ep_done: jax.Array
    goal: jax.Array
    map_data: jax.Array
    rew_lambda: jax.Array

    if TYPE_CHECKING:  # provided by flax.struct at runtime

        def replace(self, **changes: Any) -> State: ...


@struct.dataclass
class EnvInstance:
    """A level to start an episode from (``JaxNav.set_env_instance``).

    Attributes:
        agent_pos: start positions, float32 ``(n, 2)``.
        agent_theta: start headings, float32 ``(n,)``.
        goal_pos: goal positions, float32 ``(n, 2)``.
        map_data: occupancy grid, int32 ``(height, width)``.
        rew_lambda: the episode's reward weight, float32 ``()``.
    """

    agent_pos: jax.Array
    agent_theta: jax.Array
    goal_pos: jax.Array
    map_data: jax.Array
    rew_lambda: jax.Array


@struct.dataclass
class Reward:
    """A robot's reward split in two (``JaxNav.compute_reward``): ``sparse`` (goal reached,
    collision, time penalty) and ``dense`` (progress to the goal, turning and lidar
    proximity penalties), each float32 ``(n,)``."""

    sparse: jax.Array
    dense: jax.Array


def start_state(map_data: jax.Array, test_case: jax.Array, rew_lambda: jax.Array | float) -> State:
    """The start of an episode on a level: ``map_data`` ``(height, width)``, ``test_case``
    ``(n, 2, 3)`` (each robot's start pose and goal), the reward weight ``rew_lambda``."""
    n = test_case.shape[0]
    false = jnp.zeros((n,), bool)
    return State(
        pos=jnp.asarray(test_case[:, 0, :2], jnp.float32),
        theta=jnp.asarray(test_case[:, 0, 2], jnp.float32),
        vel=jnp.zeros((n, 2), jnp.float32),
        done=false,
        term=false,
        goal_reached=false,
        move_term=false,
        step=jnp.int32(0),
        ep_done=jnp.array(False),
        goal=jnp.asarray(test_case[:, 1, :2], jnp.float32),
        map_data=jnp.asarray(map_data, jnp.int32),
        rew_lambda=jnp.reshape(jnp.asarray(rew_lambda, jnp.float32), ()),
    )
