"""SMAX scenarios: which units fight, and how they are placed.

A :class:`Scenario` is a plain, immutable value; build your own (any unit mix, mixed
races included) and pass it to the environment, no registry to edit::

    Scenario(["marine"] * 3 + ["zealot"], num_allies=3, num_enemies=1)

The named scenarios are the JaxMARL paper's Table 4 (the SMAC maps and three
SMACv2-style ones) plus JaxMARL's ``3m``, ``8m`` and ``25m``; :func:`register_scenario`
adds a name of your own (JaxMARL's function).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np

from jaxmarl.environments.smax.constants import UNIT_TYPE_NAMES, UNIT_TYPE_SHORTHANDS

__all__ = ["MAP_NAME_TO_SCENARIO", "Scenario", "map_name_to_scenario", "register_scenario"]


def _unit_type_id(value: Any, where: int) -> int:
    if isinstance(value, str):
        if value in UNIT_TYPE_NAMES:
            return UNIT_TYPE_NAMES.index(value)
        raise ValueError(
            f"Scenario: unknown unit type {value!r} at position {where}; "
            f"known types: {', '.join(UNIT_TYPE_NAMES)}"
        )
    if isinstance(value, (bool, np.bool_)) or int(value) != value or int(value) < 0:
        raise ValueError(
            f"Scenario: unit type {value!r} at position {where} must be a name or a non-negative id "
            f"({', '.join(f'{i} {n}' for i, n in enumerate(UNIT_TYPE_NAMES))} in the default unit table)"
        )
    return int(value)


@dataclass(frozen=True)
class Scenario:
    """The units of a battle and how their start is drawn.

    Args:
        unit_types: the type of every unit, allies first, then enemies: names
            (``"marine"``, ``"stalker"`` ...) or ids (indices into the environment's unit
            table, ``0..5`` for the default one; checked when an environment is built),
            any sequence or array of length ``num_allies + num_enemies``. With
            ``smacv2_unit_type_generation`` the types are drawn at every reset instead,
            and this may be empty.
        num_allies: units of team 0 (at least 1).
        num_enemies: units of team 1 (at least 1).
        smacv2_position_generation: draw SMACv2-style start positions (surrounded or
            reflected, 50/50) instead of two clusters facing each other.
        smacv2_unit_type_generation: draw every ally's type uniformly at each reset; the
            enemies mirror the allies' types (extra enemies are drawn uniformly).

    Raises:
        ValueError: for unknown unit types, a wrong number of them, or bad team sizes.
    """

    unit_types: tuple[int, ...]
    num_allies: int
    num_enemies: int
    smacv2_position_generation: bool = False
    smacv2_unit_type_generation: bool = False

    def __post_init__(self) -> None:
        for name in ("num_allies", "num_enemies"):
            value = getattr(self, name)
            if isinstance(value, bool) or int(value) != value or value < 1:
                raise ValueError(f"Scenario: {name} must be an integer >= 1, got {value!r}")
            object.__setattr__(self, name, int(value))
        raw = self.unit_types
        if isinstance(raw, str):
            raise ValueError("Scenario: unit_types must be a sequence of unit types, not one string")
        types = tuple(_unit_type_id(t, i) for i, t in enumerate(np.asarray(raw).reshape(-1).tolist()))
        total = self.num_allies + self.num_enemies
        if self.smacv2_unit_type_generation and not types:
            types = (0,) * total
        if len(types) != total:
            raise ValueError(
                f"Scenario: {len(types)} unit types given for {self.num_allies} allies + "
                f"{self.num_enemies} enemies = {total} units"
            )
        object.__setattr__(self, "unit_types", types)
        object.__setattr__(self, "smacv2_position_generation", bool(self.smacv2_position_generation))
        object.__setattr__(self, "smacv2_unit_type_generation", bool(self.smacv2_unit_type_generation))

    @property
    def num_units(self) -> int:
        return self.num_allies + self.num_enemies

    def describe(self, shorthands: Sequence[str] = UNIT_TYPE_SHORTHANDS) -> str:
        """A short text such as ``"2s3z vs 2s3z"`` (``"random"`` for generated types);
        ``shorthands`` are the unit types' letters (the default table's by default)."""
        if self.smacv2_unit_type_generation:
            return f"{self.num_allies} random vs {self.num_enemies} random"

        def team(types: Sequence[int]) -> str:
            letter = lambda t: shorthands[t] if t < len(shorthands) else f"<{t}>"  # noqa: E731
            counts = [(types.count(t), letter(t)) for t in dict.fromkeys(types)]
            return "".join(f"{c}{s}" for c, s in counts)

        return f"{team(self.unit_types[: self.num_allies])} vs {team(self.unit_types[self.num_allies :])}"


def _fixed(allies: str, enemies: str) -> Scenario:
    """A SMAC-style scenario from compact unit strings such as ``"2s3z"``."""

    def expand(text: str) -> list[int]:
        out, count = [], ""
        for ch in text:
            if ch.isdigit():
                count += ch
            else:
                out += [UNIT_TYPE_SHORTHANDS.index(ch)] * int(count)
                count = ""
        return out

    a, e = expand(allies), expand(enemies)
    return Scenario(tuple(a + e), len(a), len(e))


def _smacv2(n: int) -> Scenario:
    return Scenario((), n, n, smacv2_position_generation=True, smacv2_unit_type_generation=True)


# Shorthands: m marine, s stalker, Z zealot, h hydralisk (constants.UNIT_TYPE_SHORTHANDS).
_SCENARIOS: dict[str, Scenario] = {
    "2s3z": _fixed("2s3Z", "2s3Z"),
    "3s5z": _fixed("3s5Z", "3s5Z"),
    "5m_vs_6m": _fixed("5m", "6m"),
    "10m_vs_11m": _fixed("10m", "11m"),
    "27m_vs_30m": _fixed("27m", "30m"),
    "3s5z_vs_3s6z": _fixed("3s5Z", "3s6Z"),
    "3s_vs_5z": _fixed("3s", "5Z"),
    "6h_vs_8z": _fixed("6h", "8Z"),
    "smacv2_5_units": _smacv2(5),
    "smacv2_10_units": _smacv2(10),
    "smacv2_20_units": _smacv2(20),
    "3m": _fixed("3m", "3m"),
    "8m": _fixed("8m", "8m"),
    "25m": _fixed("25m", "25m"),
}
MAP_NAME_TO_SCENARIO: Mapping[str, Scenario] = MappingProxyType(_SCENARIOS)
"""Named scenarios (a read-only view; :func:`register_scenario` adds names). The first
eleven are the JaxMARL paper's Table 4."""

PAPER_SCENARIOS: tuple[str, ...] = tuple(MAP_NAME_TO_SCENARIO)[:11]
BUILT_IN_SCENARIOS: tuple[str, ...] = tuple(MAP_NAME_TO_SCENARIO)


def register_scenario(map_name: str, scenario: Scenario) -> None:
    """Name ``scenario`` so that ``map_name_to_scenario(map_name)`` and
    ``SMAX(scenario=map_name)`` find it (JaxMARL's function).

    Registering a name again with an equal scenario does nothing.

    Raises:
        ValueError: for a name that is empty or already names another scenario, or a
            ``scenario`` that is not a :class:`Scenario`.
    """
    if not isinstance(map_name, str) or not map_name:
        raise ValueError(f"register_scenario: map_name must be a non-empty string, got {map_name!r}")
    if not isinstance(scenario, Scenario):
        raise ValueError(f"register_scenario: scenario must be a Scenario, got {type(scenario).__name__}")
    known = _SCENARIOS.get(map_name)
    if known is None:
        _SCENARIOS[map_name] = scenario
    elif known != scenario:
        raise ValueError(
            f"register_scenario: {map_name!r} already names {known.describe()!r}; choose another name"
        )


def map_name_to_scenario(map_name: str) -> Scenario:
    """The named scenario, e.g. ``map_name_to_scenario("2s3z")``.

    Raises:
        ValueError: for an unknown name (the message lists the known ones).
    """
    try:
        return MAP_NAME_TO_SCENARIO[map_name]
    except (KeyError, TypeError):
        raise ValueError(
            f"Unknown SMAX scenario {map_name!r}; known scenarios: {', '.join(MAP_NAME_TO_SCENARIO)}"
        ) from None
