"""What a JaxNav robot observes (JaxMARL 0.2.0's ``JaxNav._get_obs``).

A robot's observation is ``num_beams + 5`` numbers:

- ``[0, num_beams)``: its lidar readings (see ``lidar.py``);
- ``num_beams``, ``+1``: its linear and angular velocity ``(v, w)``;
- ``+2``: the distance to its goal, capped at the lidar's range;
- ``+3``: the direction of its goal relative to its heading, in ``[-pi, pi)``;
- ``+4``: the episode's reward weight ``lambda``.

Normalised (the default): readings and distance ``/ max_range - 0.5`` (in
``[-0.5, 0.5]``), ``v / max_v - 0.5``, ``w / max_w``, direction ``/ pi``,
``lambda - 0.5``.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.jaxnav.geometry import cart2pol, wrap

__all__ = ["ObsConfig", "bounds", "build", "normalise_lidar", "unnormalise", "unnormalise_lidar"]


class ObsConfig(NamedTuple):
    """What the observation needs from the env (static)."""

    normalise: bool
    max_range: float
    max_v: float
    max_w: float
    num_beams: int


def normalise_lidar(cfg: ObsConfig, ranges: jax.Array) -> jax.Array:
    """Readings in metres to ``[-0.5, 0.5]``."""
    return ranges / cfg.max_range - 0.5


def unnormalise_lidar(cfg: ObsConfig, ranges: jax.Array) -> jax.Array:
    """Normalised readings back to metres."""
    return (ranges + 0.5) * cfg.max_range


def build(
    cfg: ObsConfig,
    lidar: jax.Array,
    pos: jax.Array,
    theta: jax.Array,
    vel: jax.Array,
    goal: jax.Array,
    rew_lambda: jax.Array,
) -> jax.Array:
    """Every robot's observation, float32 ``(n, num_beams + 5)``.

    Args:
        cfg: the observation settings.
        lidar: readings in metres, ``(n, num_beams)``.
        pos, vel, goal: ``(n, 2)``; theta: ``(n,)``; rew_lambda: scalar or ``(1,)``.
    """
    n = pos.shape[0]
    to_goal = goal - pos
    polar = jax.vmap(cart2pol)(to_goal[:, 0], to_goal[:, 1])  # (n, 2)
    dist = jnp.clip(polar[:, 0], 0, cfg.max_range)
    orient = wrap(polar[:, 1] - theta)
    lam = jnp.broadcast_to(jnp.reshape(rew_lambda, ()), (n,))
    if cfg.normalise:
        lidar = normalise_lidar(cfg, lidar)
        vel = vel / jnp.array([cfg.max_v, cfg.max_w]) - jnp.array([0.5, 0.0])
        dist = dist / cfg.max_range - 0.5
        orient = orient / jnp.pi
        lam = lam - 0.5
    rest = jnp.concatenate([vel, dist[:, None], orient[:, None], lam[:, None]], axis=1)
    return jnp.concatenate([lidar, rest], axis=1).astype(jnp.float32)


def unnormalise(cfg: ObsConfig, obs: jax.Array) -> jax.Array:
    """Normalised observations ``(n, num_beams + 5)`` back to metres, m/s, rad."""
    b = cfg.num_beams
    lidar = unnormalise_lidar(cfg, obs[:, :b])
    vel = (obs[:, b : b + 2] + jnp.array([0.5, 0.0])) * jnp.array([cfg.max_v, cfg.max_w])
    dist = (obs[:, b + 2 : b + 3] + 0.5) * cfg.max_range
    orient = obs[:, b + 3 : b + 4] * jnp.pi
    lam = obs[:, -1:] + 0.5
    return jnp.concatenate([lidar, vel, dist, orient, lam], axis=1)


def bounds(
    cfg: ObsConfig, min_v: float, lambda_low: float, lambda_high: float
) -> tuple[np.ndarray, np.ndarray]:
    """Exact float32 bounds of one observation (the normalisation applied, in float32
    as the env does, to the extreme raw values; a stopped robot has ``v = 0``)."""
    f = np.float32
    v_low, v_high = f(min(min_v, 0.0)), f(max(cfg.max_v, 0.0))
    raw_low = [f(0), v_low, f(-cfg.max_w), f(0), f(-np.pi), f(lambda_low)]
    raw_high = [f(cfg.max_range), v_high, f(cfg.max_w), f(cfg.max_range), f(np.pi), f(lambda_high)]
    if cfg.normalise:
        r, half = f(cfg.max_range), f(0.5)
        raw_low = [
            f(0) / r - half,
            v_low / f(cfg.max_v) - half,
            f(-1),
            f(0) / r - half,
            f(-1),
            raw_low[5] - half,
        ]
        raw_high = [r / r - half, v_high / f(cfg.max_v) - half, f(1), r / r - half, f(1), raw_high[5] - half]
    low = np.array([raw_low[0]] * cfg.num_beams + raw_low[1:], np.float32)
    high = np.array([raw_high[0]] * cfg.num_beams + raw_high[1:], np.float32)
    return low, high
