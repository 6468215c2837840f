"""Differential-drive kinematics of JaxNav robots (JaxMARL 0.2.0's ``update_state``).

A robot's action is the velocity it asks for, ``(v, w)`` (linear m/s, angular rad/s).
Each step of ``dt`` seconds it accelerates towards it within its acceleration limits,
its velocity is clipped to the speed limits, and it moves along its heading at the new
speed before turning at the new rate::

    v' = clip(v + clip((v_cmd - v) / dt, -max_v_acc, max_v_acc) * dt, min_v, max_v)
    w' = clip(w + clip((w_cmd - w) / dt, -max_w_acc, max_w_acc) * dt, -max_w, max_w)
    x' = x + v' cos(theta) dt,  y' = y + v' sin(theta) dt,  theta' = wrap(theta + w' dt)

A robot that is frozen keeps its pose (or, when robots evaporate, is parked at the
origin, inside the corner wall) and its velocity becomes zero.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxmarl.environments.jaxnav.geometry import wrap

__all__ = ["Limits", "move"]


class Limits(NamedTuple):
    """Speed and acceleration limits and the time step (static, from the env)."""

    dt: float
    min_v: float
    max_v: float
    max_v_acc: float
    max_w: float
    max_w_acc: float


def move(
    pos: jax.Array,
    theta: jax.Array,
    vel: jax.Array,
    command: jax.Array,
    frozen: jax.Array,
    limits: Limits,
    evaporating: bool,
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """One step of every robot.

    Args:
        pos: ``(n, 2)``; theta: ``(n,)``; vel: ``(n, 2)`` current ``(v, w)``.
        command: the requested ``(v, w)``, ``(n, 2)``.
        frozen: robots that do not move, bool ``(n,)``.
        limits: speed and acceleration limits and ``dt``.
        evaporating: park frozen robots at the origin instead of leaving them in place.

    Returns:
        ``(pos, theta, vel)`` after the step.
    """
    dt = limits.dt
    v_acc = jnp.clip((command[:, 0] - vel[:, 0]) / dt, -limits.max_v_acc, limits.max_v_acc)
    w_acc = jnp.clip((command[:, 1] - vel[:, 1]) / dt, -limits.max_w_acc, limits.max_w_acc)
    v = jnp.clip(vel[:, 0] + v_acc * dt, limits.min_v, limits.max_v)
    w = jnp.clip(vel[:, 1] + w_acc * dt, -limits.max_w, limits.max_w)
    dx = v * jnp.cos(theta) * dt
    dy = v * jnp.sin(theta) * dt
    new_pos = pos + jnp.stack([dx, dy], axis=-1)
    new_theta = wrap(theta + w * dt)
    new_vel = jnp.stack([v, w], axis=-1).astype(jnp.float32)
    held = jnp.zeros_like(pos) if evaporating else pos
    frozen_col = frozen[:, None]
    return (
        jnp.where(frozen_col, held, new_pos),
        jnp.where(frozen, theta, new_theta),
        jnp.where(frozen_col, jnp.zeros_like(new_vel), new_vel),
    )
