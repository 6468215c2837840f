"""How searchers and targets move (Jumanji's ``update_state`` and ``RandomWalk``).

Target dynamics are any callable ``(key, targets, env_size) -> targets`` on
:class:`~jaxmarl.environments.jumanji.search_and_rescue.types.TargetState` that keeps the
targets on the torus (``[0, env_size)``); ``found`` should be passed through.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxmarl.environments.jumanji.search_and_rescue import constants as C
from jaxmarl.environments.jumanji.search_and_rescue.types import SearcherState, TargetState

__all__ = ["RandomWalk", "move_searchers"]


def move_searchers(
    searchers: SearcherState,
    actions: jax.Array,
    *,
    max_rotate: float,
    max_accelerate: float,
    min_speed: float,
    max_speed: float,
    env_size: float,
) -> SearcherState:
    """Turn, accelerate, then move every searcher.

    Args:
        searchers: the searchers before the step.
        actions: float32 ``(num_searchers, 2)``, ``[rotation, acceleration]``, clipped to
            ``[-1, 1]``.
        max_rotate: the turn of a rotation of 1, a fraction of pi.
        max_accelerate: the change of speed of an acceleration of 1.
        min_speed, max_speed: the new speed is clipped to this range.
        env_size: side of the torus; positions wrap.
    """
    actions = jnp.clip(actions, -1.0, 1.0)
    rotation = actions[:, 0] * max_rotate * jnp.pi
    acceleration = actions[:, 1] * max_accelerate
    heading = (searchers.heading + rotation) % (2 * jnp.pi)
    speed = jnp.clip(searchers.speed + acceleration, min_speed, max_speed)
    step = jnp.stack([speed * jnp.cos(heading), speed * jnp.sin(heading)], axis=-1)
    return SearcherState(pos=(searchers.pos + step) % env_size, heading=heading, speed=speed)


class RandomWalk:
    """Targets drift with a random walk of their velocity.

    Each step every velocity gets a normal kick of standard deviation ``acc_std`` per
    axis (``jax.random.normal(key, (num_targets, 2))``), is scaled down to length
    ``vel_max`` if longer, and moves its target (positions wrap).

    Args:
        acc_std: standard deviation of the velocity kicks (>= 0).
        vel_max: the largest speed of a target (>= 0).
    """

    def __init__(self, acc_std: float = C.TARGET_ACC_STD, vel_max: float = C.TARGET_VEL_MAX) -> None:
        for name, value in (("acc_std", acc_std), ("vel_max", vel_max)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
                raise ValueError(f"SearchAndRescue: RandomWalk {name} must be a number >= 0, got {value!r}")
        self.acc_std = float(acc_std)
        self.vel_max = float(vel_max)

    def __repr__(self) -> str:
        return f"RandomWalk(acc_std={self.acc_std}, vel_max={self.vel_max})"

    def __call__(self, key: jax.Array, targets: TargetState, env_size: float) -> TargetState:
        vel = targets.vel + self.acc_std * jax.random.normal(key, targets.pos.shape)
        norm = jnp.sqrt(jnp.sum(vel * vel, axis=1))[:, None]
        vel = jnp.where(norm > self.vel_max, self.vel_max * vel / norm, vel)
        return targets.replace(pos=(targets.pos + vel) % env_size, vel=vel)
