"""SMAX unit types: the table of their stats, JaxMARL's by default.

A :class:`UnitTable` lives on the environment (in its ``Rules``), so any stat can be
changed per environment with JaxMARL's ``unit_type_*`` keywords of ``SMAX``, and new
unit types added (``unit_type_names`` with one value per type for every stat).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.smax import constants as C

__all__ = ["DEFAULT_UNITS", "UnitTable", "unit_table"]


class UnitTable(NamedTuple):
    """Unit types and their stats, one entry per type (hashable: tuples of Python values).

    Attributes:
        names: type names (``"marine"`` ...); their order is the type ids'.
        shorthands: one-letter names used in scenario descriptions and drawings.
        speed: map units per second.
        damage: health removed per hit.
        attack_range: attack range, centre to centre.
        sight_range: sight range, centre to centre.
        radius: the unit's disc radius.
        health: maximum health.
        cooldown: seconds between hits.
    """

    names: tuple[str, ...]
    shorthands: tuple[str, ...]
    speed: tuple[float, ...]
    damage: tuple[float, ...]
    attack_range: tuple[float, ...]
    sight_range: tuple[float, ...]
    radius: tuple[float, ...]
    health: tuple[float, ...]
    cooldown: tuple[float, ...]

    @property
    def num_types(self) -> int:
        return len(self.names)

    def array(self, stat: str) -> jax.Array:
        """One stat of every type as a float32 ``(num_types,)`` array."""
        return jnp.asarray(getattr(self, stat), jnp.float32)


DEFAULT_UNITS = UnitTable(
    names=C.UNIT_TYPE_NAMES,
    shorthands=C.UNIT_TYPE_SHORTHANDS,
    speed=tuple(float(v) for v in C.SPEED),
    damage=tuple(float(v) for v in C.DAMAGE),
    attack_range=tuple(float(v) for v in C.ATTACK_RANGE),
    sight_range=tuple(float(v) for v in C.SIGHT_RANGE),
    radius=tuple(float(v) for v in C.RADIUS),
    health=tuple(float(v) for v in C.HEALTH),
    cooldown=tuple(float(v) for v in C.COOLDOWN),
)
"""JaxMARL's SMAX unit table (``constants.py``)."""


# keyword -> (UnitTable field, whether 0 is allowed)
_STATS = {
    "unit_type_velocities": ("speed", True),
    "unit_type_attacks": ("damage", True),
    "unit_type_attack_ranges": ("attack_range", True),
    "unit_type_sight_ranges": ("sight_range", False),
    "unit_type_radiuses": ("radius", False),
    "unit_type_health": ("health", False),
    "unit_type_weapon_cooldowns": ("cooldown", False),
}


def unit_table(names: Any, shorthands: Any, stats: dict[str, Any]) -> UnitTable:
    """The unit table from JaxMARL's ``unit_type_*`` keywords (None: the default's).

    Args:
        names: the types' names, or None for the default table's six.
        shorthands: their one-letter names, or None (the default's, or first letters).
        stats: keyword (``unit_type_velocities`` ...) -> one value per type, or None.

    Raises:
        ValueError: for names that are not unique strings, or stats of the wrong length
            or not finite and positive (speed, damage and attack range may be 0).
    """
    default = DEFAULT_UNITS
    name_list = default.names if names is None else names
    if isinstance(name_list, str) or not all(isinstance(n, str) for n in name_list) or not name_list:
        raise ValueError(f"SMAX: unit_type_names must be a non-empty sequence of strings, got {names!r}")
    if len(set(name_list)) != len(name_list):
        raise ValueError(f"SMAX: unit_type_names must be unique, got {list(name_list)}")
    n = len(name_list)
    fields: dict[str, Any] = {"names": tuple(name_list)}
    if shorthands is None:
        shorthands = default.shorthands if n == default.num_types else tuple(str(x)[0] for x in name_list)
    if isinstance(shorthands, str) or len(shorthands) != n or not all(isinstance(s, str) for s in shorthands):
        raise ValueError(
            f"SMAX: unit_type_shorthands must be {n} strings, one per unit type, got {shorthands!r}"
        )
    fields["shorthands"] = tuple(shorthands)
    for keyword, (stat, zero_ok) in _STATS.items():
        value = stats[keyword]
        arr = np.asarray(getattr(default, stat) if value is None else value, np.float64)
        if arr.shape != (n,):
            raise ValueError(
                f"SMAX: {keyword} must have one value per unit type ({n}: {', '.join(name_list)}), "
                f"got shape {arr.shape}"
            )
        if not np.all(np.isfinite(arr)) or np.any(arr < 0) or (not zero_ok and np.any(arr == 0)):
            kind = "non-negative" if zero_ok else "positive"
            raise ValueError(f"SMAX: {keyword} must be finite and {kind}, got {arr.tolist()}")
        fields[stat] = tuple(float(v) for v in arr.astype(np.float32))
    return UnitTable(**fields)
