"""SMAX actions, decoded into what the dynamics take: a movement and an attacked enemy.

**Discrete** (``action_type="discrete"``): ``Discrete(5 + number of enemies)``; ``0``
north (+y), ``1`` east (+x), ``2`` south, ``3`` west move at full speed, ``4`` stop,
``5 + k`` attacks the unit's enemy ``k`` (for an ally ``enemy_k``, for an enemy
``ally_k``) and does not move.

**Continuous** (``action_type="continuous"``, JaxMARL's): ``Box(0, 1, (4,))``, the
entries ``CONTINUOUS_ACTION_DIMS``:

- ``shoot_last_enemy`` (``p_last``) and ``do_shoot`` (``p_shoot``) are probabilities:
  the unit shoots with probability ``p_shoot``, otherwise it moves; when it shoots, it
  attacks the enemy it chose last step with probability ``p_last`` (no attack if it
  chose none), otherwise the living enemy nearest to the aim point below.
- ``coordinate_1`` (``r``) and ``coordinate_2`` (``t``) are polar coordinates: the
  vector ``r * (cos 2 pi t, sin 2 pi t)`` is the movement (a unit moves ``r`` times its
  speed in the direction ``2 pi t``), and, added to the unit's position, the aim point.

The coin flips are uniform draws (``coins``, float32 ``(2, n)``: ``shoot = coins[0] <
p_shoot``, ``last = coins[1] < p_last``), so 0 and 1 are certain.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.smax import constants as C
from jaxmarl.environments.smax.dynamics import Rules
from jaxmarl.environments.smax.types import State

__all__ = ["decode_continuous", "decode_discrete"]


def decode_discrete(actions: jax.Array, num_targets: np.ndarray) -> tuple[jax.Array, jax.Array]:
    """Discrete actions of ``n`` units -> movement, float32 ``(n, 2)``, and attacked enemy
    ``k`` (-1 for none), int32 ``(n,)``. ``num_targets`` (static, ``(n,)``) is each unit's
    number of enemies; an attack past it is no attack."""
    actions = jnp.asarray(actions).astype(jnp.int32)
    move = jnp.asarray(C.MOVE_VECTORS)[jnp.clip(actions, 0, C.STOP)]
    k = actions - C.NUM_MOVE_ACTIONS
    attack = jnp.where((k >= 0) & (k < jnp.asarray(num_targets)), k, -1)
    return move, attack


def decode_continuous(
    state: State, actions: jax.Array, units: np.ndarray, rules: Rules, coins: jax.Array
) -> tuple[jax.Array, jax.Array]:
    """Continuous actions of the units ``units`` (static int array, ``n`` of them), float
    ``(n, 4)`` -> movement, float32 ``(n, 2)``, and attacked enemy ``k`` (-1 for none),
    int32 ``(n,)``; ``coins`` float32 ``(2, n)`` uniform in ``[0, 1)`` (see the module)."""
    a = jnp.clip(jnp.asarray(actions, jnp.float32), 0.0, 1.0)
    shoot = coins[0] < a[:, C.DO_SHOOT]
    last = coins[1] < a[:, C.SHOOT_LAST]
    angle = 2.0 * jnp.pi * a[:, C.ANGLE_DIM]
    vec = a[:, C.RADIUS_DIM, None] * jnp.stack([jnp.cos(angle), jnp.sin(angle)], -1)
    aim = state.pos[units] + vec  # (n, 2)
    offset = np.asarray(rules.enemy_offset)[units]  # (n,) static
    count = np.asarray(rules.num_targets)[units]
    k = np.arange(max(rules.num_allies, rules.num_enemies))
    enemy = np.minimum(offset[:, None] + k, rules.num_units - 1)  # (n, m) unit indices
    exists = k[None, :] < count[:, None]
    gap = state.pos[enemy] - aim[:, None, :]
    d2 = jnp.where(exists & state.alive[enemy], jnp.sum(gap * gap, -1), jnp.inf)
    nearest = jnp.where(jnp.isfinite(jnp.min(d2, -1)), jnp.argmin(d2, -1), -1).astype(jnp.int32)
    chosen = jnp.where(last, state.last_attack[units], nearest)
    attack = jnp.where(shoot, chosen, -1)
    move = jnp.where(shoot[:, None], 0.0, vec)
    return move, attack
