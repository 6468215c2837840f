"""JaxMARL's start-state distributions (``jaxmarl.environments.smax.distributions``) as
thin classes over our generator functions (``generator.py``, which says how each
draws; positions stay ``SPAWN_MARGIN`` inside the map).

Each is built with the team sizes and the map size and draws with ``generate(key)``:

>>> import jax
>>> from jaxmarl.environments.smax.distributions import SurroundAndReflectPositionDistribution
>>> SurroundAndReflectPositionDistribution(5, 5, 32, 32).generate(jax.random.PRNGKey(0)).shape
(10, 2)
"""

from __future__ import annotations

import jax

from jaxmarl.environments.smax.constants import NUM_UNIT_TYPES
from jaxmarl.environments.smax.generator import (
    reflect_positions,
    smacv2_positions,
    smacv2_unit_types,
    surround_positions,
)

__all__ = [
    "Distribution",
    "ReflectPositionDistribution",
    "SurroundAndReflectPositionDistribution",
    "SurroundPositionDistribution",
    "UniformUnitTypeDistribution",
]


class Distribution:
    """A start-state distribution of ``n_allies`` allies and ``n_enemies`` enemies on a
    ``map_width x map_height`` map; ``generate(key)`` draws one (pure, jittable)."""

    def __init__(self, n_allies: int, n_enemies: int, map_width: float, map_height: float) -> None:
        self.n_allies, self.n_enemies = int(n_allies), int(n_enemies)
        self.map_width, self.map_height = float(map_width), float(map_height)

    def generate(self, key: jax.Array) -> jax.Array:
        raise NotImplementedError


class ReflectPositionDistribution(Distribution):
    """SMACv2's *reflect*: allies on the left half, enemies their mirror images; float32 ``(U, 2)``."""

    def generate(self, key: jax.Array) -> jax.Array:
        return reflect_positions(key, self.n_allies, self.n_enemies, self.map_width, self.map_height)


class SurroundPositionDistribution(Distribution):
    """SMACv2's *surrounded*: one team around the centre, the other in four groups on the
    diagonals; float32 ``(U, 2)``."""

    def generate(self, key: jax.Array) -> jax.Array:
        return surround_positions(key, self.n_allies, self.n_enemies, self.map_width, self.map_height)


class SurroundAndReflectPositionDistribution(Distribution):
    """Surrounded or reflected, with probability 1/2 each; float32 ``(U, 2)``."""

    def generate(self, key: jax.Array) -> jax.Array:
        return smacv2_positions(key, self.n_allies, self.n_enemies, self.map_width, self.map_height)


class UniformUnitTypeDistribution(Distribution):
    """Uniform ally unit types, mirrored by the enemies (extra enemies uniform); int32 ``(U,)``."""

    def __init__(
        self,
        n_allies: int,
        n_enemies: int,
        map_width: float,
        map_height: float,
        n_unit_types: int = NUM_UNIT_TYPES,
    ) -> None:
        super().__init__(n_allies, n_enemies, map_width, map_height)
        self.n_unit_types = int(n_unit_types)

    def generate(self, key: jax.Array) -> jax.Array:
        return smacv2_unit_types(key, self.n_allies, self.n_enemies, self.n_unit_types)
