"""Start positions and unit types of a SMAX battle.

- **Fixed** (the SMAC maps): allies around ``(W/4, H/2)``, enemies around
  ``(3W/4, H/2)``, each unit offset by uniform noise in ``[-2, 2]^2``.
- **SMACv2-style** (JaxMARL paper, appendix B.1): with probability 1/2 *reflected*:
  allies uniform on the left half, enemies their mirror images through the vertical
  centre line (extra units of the larger team uniform on its half); otherwise
  *surrounded*: one team, drawn 50/50 (not always the allies, as in SMACv2), starts
  around the centre, the other in four groups, each on the diagonal from a map corner
  to the centre at a uniform fraction ``t`` of the way, with unit noise in ``[-2, 2]^2``.
  Units are assigned to groups uniformly.
- **SMACv2-style unit types**: every ally's type is uniform over the unit types (six by
  default) and the enemies copy the allies' types (extra enemies uniform).

All positions are clipped to stay ``SPAWN_MARGIN`` inside the map. Each function is
pure and jittable; swap them to change how battles start.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxmarl.environments.smax.constants import NUM_UNIT_TYPES, SPAWN_MARGIN, START_NOISE

__all__ = [
    "fixed_positions",
    "reflect_positions",
    "smacv2_positions",
    "smacv2_unit_types",
    "surround_positions",
]


def _clip(pos: jax.Array, width: float, height: float) -> jax.Array:
    return jnp.clip(pos, SPAWN_MARGIN, jnp.array([width - SPAWN_MARGIN, height - SPAWN_MARGIN]))


def fixed_positions(
    key: jax.Array, num_allies: int, num_enemies: int, width: float, height: float
) -> jax.Array:
    """Two noisy clusters facing each other, float32 ``(U, 2)``."""
    centres = jnp.concatenate(
        [
            jnp.tile(jnp.array([[width / 4, height / 2]]), (num_allies, 1)),
            jnp.tile(jnp.array([[3 * width / 4, height / 2]]), (num_enemies, 1)),
        ]
    )
    noise = jax.random.uniform(key, centres.shape, minval=-START_NOISE, maxval=START_NOISE)
    return _clip(centres + noise, width, height)


def reflect_positions(
    key: jax.Array, num_allies: int, num_enemies: int, width: float, height: float
) -> jax.Array:
    """SMACv2 *reflect*: the smaller team's units mirror the larger's, float32 ``(U, 2)``."""
    return _reflect(
        jax.random.uniform(key, (4 * max(num_allies, num_enemies),)), num_allies, num_enemies, width, height
    )


def _reflect(u: jax.Array, num_allies: int, num_enemies: int, width: float, height: float) -> jax.Array:
    n = max(num_allies, num_enemies)
    size = jnp.array([width / 2, height])
    left = u[: 2 * n].reshape(n, 2) * size
    right = u[2 * n :].reshape(n, 2) * size + jnp.array([width / 2, 0.0])
    mirror = left.at[:, 0].set(width - left[:, 0])
    # The first min(na, ne) units of each team are mirror images; extras are drawn uniformly.
    enemies = jnp.where(jnp.arange(n)[:, None] < num_allies, mirror, right)[:num_enemies]
    return _clip(jnp.concatenate([left[:num_allies], enemies]), width, height)


def surround_positions(
    key: jax.Array, num_allies: int, num_enemies: int, width: float, height: float
) -> jax.Array:
    """SMACv2 *surrounded*, symmetric in the teams: float32 ``(U, 2)``."""
    total = num_allies + num_enemies
    return _surround(jax.random.uniform(key, (5 * total + 5,)), num_allies, num_enemies, width, height)


def _surround(u: jax.Array, num_allies: int, num_enemies: int, width: float, height: float) -> jax.Array:
    total = num_allies + num_enemies
    centre = jnp.array([width / 2, height / 2])
    corners = jnp.array([[0.0, 0.0], [0.0, height], [width, 0.0], [width, height]])
    t = u[:4, None]
    groups = t * centre + (1.0 - t) * corners
    group = jnp.minimum((u[4 : 4 + total] * 4).astype(jnp.int32), 3)
    noise = (2.0 * u[4 + total : 4 + 5 * total].reshape(2, total, 2) - 1.0) * START_NOISE
    outside = groups[group] + noise[0]
    inside = centre + noise[1]
    allies_inside = u[-1] < 0.5
    inner = (jnp.arange(total) < num_allies) == allies_inside
    return _clip(jnp.where(inner[:, None], inside, outside), width, height)


def smacv2_positions(
    key: jax.Array, num_allies: int, num_enemies: int, width: float, height: float
) -> jax.Array:
    """Surrounded or reflected, with probability 1/2 each: float32 ``(U, 2)``.

    One draw of uniform numbers feeds both layouts (compiling one random-number kernel
    instead of several)."""
    total, n = num_allies + num_enemies, max(num_allies, num_enemies)
    u = jax.random.uniform(key, (1 + 5 * total + 5 + 4 * n,))
    surround = _surround(u[1 : 6 + 5 * total], num_allies, num_enemies, width, height)
    reflect = _reflect(u[6 + 5 * total :], num_allies, num_enemies, width, height)
    return jnp.where(u[0] < 0.5, surround, reflect)


def smacv2_unit_types(
    key: jax.Array, num_allies: int, num_enemies: int, num_types: int = NUM_UNIT_TYPES
) -> jax.Array:
    """Uniform ally types (over ``num_types``), mirrored by the enemies: int32 ``(U,)``."""
    n = max(num_allies, num_enemies)
    draws = jax.random.randint(key, (2, n), 0, num_types, dtype=jnp.int32)
    enemies = jnp.where(jnp.arange(n) < num_allies, draws[0], draws[1])[:num_enemies]
    return jnp.concatenate([draws[0, :num_allies], enemies])
