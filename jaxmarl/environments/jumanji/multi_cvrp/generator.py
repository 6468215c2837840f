"""Instance generators of MultiCVRP: Jumanji's uniform one and the Jumanji paper's three
custom ones.

A generator is any object with ``__call__(key) -> State`` and the attributes in
``REQUIRED_ATTRIBUTES`` (see :mod:`jaxmarl.environments.jumanji.common`): the numbers of
customers and vehicles, the map's side ``map_max`` (coordinates lie in ``[0, map_max]``)
and the vehicles' ``max_capacity`` (what they reload at the depot). ``max_end_window``
and ``max_penalty_coef``, when a generator has them, bound the observation space's
windows and penalty coefficients (infinite otherwise). :func:`initial_state` builds the
start state from an instance's arrays, so a user's generator needs no base class.

- :class:`UniformRandomGenerator` (Jumanji's default, key for key): coordinates uniform
  on the map, random demands scaled so the fleet's total capacity roughly covers them,
  random time windows and penalty coefficients, from the paper's settings for the
  instance size or from manual ones.
- :class:`ClusterGenerator`, :class:`LinearCompressionGenerator` and
  :class:`ExplosionGenerator` (Bonnet et al. 2024, Figure 4): the same instance as the
  uniform generator for the same key (depot, demands, windows, coefficients), with the
  customers moved: into a disc, towards a line, or away from a point.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp

from jaxmarl.environments.jumanji.multi_cvrp import constants as C
from jaxmarl.environments.jumanji.multi_cvrp.types import State

__all__ = [
    "REQUIRED_ATTRIBUTES",
    "ClusterGenerator",
    "ExplosionGenerator",
    "LinearCompressionGenerator",
    "UniformRandomGenerator",
    "initial_state",
    "paper_settings",
]

REQUIRED_ATTRIBUTES = ("num_customers", "num_vehicles", "map_max", "max_capacity")

SETTING_NAMES = tuple(C.MANUAL_DEFAULTS)


def initial_state(
    coordinates: jax.Array,
    demands: jax.Array,
    window_start: jax.Array,
    window_end: jax.Array,
    early_coefs: jax.Array,
    late_coefs: jax.Array,
    num_vehicles: int,
    max_capacity: int,
) -> State:
    """The start of an episode on an instance: every vehicle at the depot with a full load.

    Args:
        coordinates: float ``(N, 2)``, node 0 the depot.
        demands: int ``(N,)``, 0 at the depot.
        window_start, window_end, early_coefs, late_coefs: float ``(N,)``.
        num_vehicles: ``V``.
        max_capacity: each vehicle's load.
    """
    num_customers = coordinates.shape[0] - 1
    zeros = jnp.zeros(num_vehicles, jnp.float32)
    return State(
        coordinates=jnp.asarray(coordinates, jnp.float32),
        demands=jnp.asarray(demands, jnp.int32),
        window_start=jnp.asarray(window_start, jnp.float32),
        window_end=jnp.asarray(window_end, jnp.float32),
        early_coefs=jnp.asarray(early_coefs, jnp.float32),
        late_coefs=jnp.asarray(late_coefs, jnp.float32),
        positions=jnp.full(num_vehicles, C.DEPOT, jnp.int32),
        local_times=zeros,
        capacities=jnp.full(num_vehicles, max_capacity, jnp.int32),
        distances=zeros,
        time_penalties=zeros,
        routes=jnp.full((num_vehicles, 2 * num_customers + 1), C.DEPOT, jnp.int32),
        step=jnp.zeros((), jnp.int32),
    )


def paper_settings(num_customers: int, num_vehicles: int) -> dict[str, Any]:
    """The paper's settings for an instance size (Jumanji's ``get_init_settings``): map
    side, capacity, latest window start, penalty coefficient ranges, largest demand and
    window length.

    Raises:
        ValueError: for a size the paper does not define.
    """
    settings = C.PAPER_SETTINGS.get((num_customers, num_vehicles))
    if settings is None:
        sizes = ", ".join(f"{c}/{v}" for c, v in C.PAPER_SETTINGS)
        raise ValueError(
            f"MultiCVRP: the paper defines no instance with num_customers={num_customers} and "
            f"num_vehicles={num_vehicles} (customers/vehicles: {sizes}); pass manual_settings=True "
            "with map_max, max_capacity, ... to choose the settings yourself"
        )
    return dict(settings)


def _int(name: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"MultiCVRP generator: {name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _float(name: str, value: Any, minimum: float, strict: bool = False) -> float:
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)
    if not ok or value < minimum or (strict and value == minimum):
        bound = f"> {minimum}" if strict else f">= {minimum}"
        raise ValueError(f"MultiCVRP generator: {name} must be a finite number {bound}, got {value!r}")
    return float(value)


def _range(name: str, value: Any) -> tuple[float, float]:
    try:
        low, high = value
    except (TypeError, ValueError):
        raise ValueError(f"MultiCVRP generator: {name} must be a pair (low, high), got {value!r}") from None
    low, high = _float(f"{name}[0]", low, 0.0), _float(f"{name}[1]", high, 0.0)
    if low > high:
        raise ValueError(f"MultiCVRP generator: {name} must have low <= high, got {value!r}")
    return low, high


def _point(name: str, value: Any, low: float, high: float) -> tuple[float, float] | None:
    if value is None:
        return None
    try:
        x, y = value
    except (TypeError, ValueError):
        raise ValueError(
            f"MultiCVRP generator: {name} must be a point (x, y) or None, got {value!r}"
        ) from None
    x, y = _float(f"{name}[0]", x, -math.inf), _float(f"{name}[1]", y, -math.inf)
    if not (low <= x <= high and low <= y <= high):
        raise ValueError(
            f"MultiCVRP generator: {name}={value!r} must lie in [{low:g}, {high:g}] on both axes"
        )
    return x, y


class UniformRandomGenerator:
    """Jumanji's ``UniformRandomGenerator``: the same instance for the same key.

    From the key, ``problem_key, spare_key = split(key)`` and ``problem_key`` is split in
    five for the coordinates, demands, window starts, early and late coefficients:

    - nodes (the depot and the customers) uniform in ``[0, map_max)^2``;
    - demands: integers uniform in ``[0, customer_demand_max)``, 0 at the depot, scaled by
      ``num_vehicles * max_capacity / sum`` (so the fleet's total capacity about covers
      them), truncated to integers and capped at ``customer_demand_max``. Customers whose
      demand is 0 need no visit;
    - window starts uniform in ``[0, max_start_window)``, each window
      ``time_window_length`` long;
    - early and late coefficients uniform in ``early_coef_rand`` and ``late_coef_rand``,
      0 at the depot.

    Every vehicle starts at the depot with ``max_capacity``. ``spare_key`` is unused here
    (Jumanji stores it in its state); the custom generators draw from it.

    Args:
        num_customers: customers (nodes besides the depot).
        num_vehicles: vehicles (agents).
        manual_settings: ``False`` (Jumanji's only choice): the paper's settings for the
            size (see :func:`paper_settings`; sizes 6/2-3, 20/2-3, 50/2-5, 100/2-5, 150/5).
            ``True``: the keywords below, defaulting to Jumanji's base-class defaults
            (``map_max=10, max_capacity=60, max_start_window=10.0, early_coef_rand=(0.0,
            0.2), late_coef_rand=(0.0, 1.0), customer_demand_max=10,
            time_window_length=20.0``).
        map_max, max_capacity, max_start_window, early_coef_rand, late_coef_rand,
            customer_demand_max, time_window_length: the settings, with
            ``manual_settings=True`` only.

    Raises:
        ValueError: for a size the paper does not define (without manual settings),
            settings given without ``manual_settings=True``, or settings that make no
            instance: no customer or vehicle, a map of side 0, a capacity below the
            largest demand (a customer no vehicle could serve), ``customer_demand_max <
            2`` (all demands would be 0), negative windows or coefficients.
    """

    def __init__(
        self,
        num_customers: int = C.NUM_CUSTOMERS,
        num_vehicles: int = C.NUM_VEHICLES,
        manual_settings: bool = False,
        map_max: float | None = None,
        max_capacity: int | None = None,
        max_start_window: float | None = None,
        early_coef_rand: Sequence[float] | None = None,
        late_coef_rand: Sequence[float] | None = None,
        customer_demand_max: int | None = None,
        time_window_length: float | None = None,
    ) -> None:
        self.num_customers = _int("num_customers", num_customers, 1)
        self.num_vehicles = _int("num_vehicles", num_vehicles, 1)
        if not isinstance(manual_settings, bool):
            raise ValueError(
                f"MultiCVRP generator: manual_settings must be True or False, got {manual_settings!r}"
            )
        self.manual_settings = manual_settings
        given = {
            "map_max": map_max,
            "max_capacity": max_capacity,
            "max_start_window": max_start_window,
            "early_coef_rand": early_coef_rand,
            "late_coef_rand": late_coef_rand,
            "customer_demand_max": customer_demand_max,
            "time_window_length": time_window_length,
        }
        given = {k: v for k, v in given.items() if v is not None}
        if manual_settings:
            settings = {**C.MANUAL_DEFAULTS, **given}
        elif given:
            raise ValueError(
                f"MultiCVRP generator: {sorted(given)} are manual settings; pass manual_settings=True "
                "to use them (without it the paper's settings for the instance size apply)"
            )
        else:
            settings = paper_settings(self.num_customers, self.num_vehicles)
        self.map_max = _float("map_max", settings["map_max"], 0.0, strict=True)
        self.max_capacity = _int("max_capacity", settings["max_capacity"], 1)
        self.max_start_window = _float("max_start_window", settings["max_start_window"], 0.0)
        self.early_coef_rand = _range("early_coef_rand", settings["early_coef_rand"])
        self.late_coef_rand = _range("late_coef_rand", settings["late_coef_rand"])
        self.customer_demand_max = _int("customer_demand_max", settings["customer_demand_max"], 2)
        self.time_window_length = _float("time_window_length", settings["time_window_length"], 0.0)
        if self.max_capacity < self.customer_demand_max:
            raise ValueError(
                f"MultiCVRP generator: max_capacity={self.max_capacity} is below customer_demand_max="
                f"{self.customer_demand_max}: a customer could want more than a vehicle carries"
            )
        if self.max_capacity * self.num_vehicles >= 2**15:
            raise ValueError(
                "MultiCVRP generator: num_vehicles * max_capacity must be below 32768 (Jumanji keeps "
                f"loads in int16), got {self.num_vehicles} * {self.max_capacity}"
            )
        if self.map_max == int(self.map_max):  # keep Jumanji's int map side an int
            self.map_max = int(self.map_max)

    @property
    def max_end_window(self) -> float:
        """The latest a window can end, ``max_start_window + time_window_length``."""
        return self.max_start_window + self.time_window_length

    @property
    def max_penalty_coef(self) -> float:
        """The largest penalty coefficient."""
        return max(self.early_coef_rand[1], self.late_coef_rand[1])

    def __repr__(self) -> str:
        return f"{type(self).__name__}(num_customers={self.num_customers}, num_vehicles={self.num_vehicles})"

    def __call__(self, key: jax.Array) -> State:
        problem_key, spare_key = jax.random.split(key)
        coordinates, demands, start, early, late = self._uniform_problem(problem_key)
        customers = self._move_customers(spare_key, coordinates[1:])
        coordinates = coordinates.at[1:].set(customers)
        end = start + self.time_window_length
        return initial_state(
            coordinates, demands, start, end, early, late, self.num_vehicles, self.max_capacity
        )

    def _uniform_problem(self, key: jax.Array) -> tuple[jax.Array, ...]:
        """Jumanji's ``generate_uniform_random_problem``: coordinates, demands, window
        starts, early and late coefficients."""
        n = self.num_customers + 1
        coord_key, demand_key, window_key, early_key, late_key = jax.random.split(key, 5)
        coordinates = jax.random.uniform(coord_key, (n, 2), minval=0, maxval=self.map_max)
        raw = jax.random.randint(demand_key, (n,), minval=0, maxval=self.customer_demand_max)
        raw = raw.at[C.DEPOT].set(0)
        total_capacity = self.max_capacity * self.num_vehicles
        demands = (raw * (total_capacity / jnp.sum(raw))).astype(jnp.int32)
        demands = jnp.minimum(demands, self.customer_demand_max)
        start = jax.random.uniform(window_key, (n,), minval=0, maxval=self.max_start_window)
        early = jax.random.uniform(
            early_key, (n,), minval=self.early_coef_rand[0], maxval=self.early_coef_rand[1]
        )
        late = jax.random.uniform(
            late_key, (n,), minval=self.late_coef_rand[0], maxval=self.late_coef_rand[1]
        )
        early = early.at[C.DEPOT].set(0.0)
        late = late.at[C.DEPOT].set(0.0)
        return coordinates, demands, start, early, late

    def _move_customers(self, key: jax.Array, customers: jax.Array) -> jax.Array:
        """Where the customers go, from their uniform coordinates ``(C, 2)``; the uniform
        generator leaves them."""
        del key
        return customers


class ClusterGenerator(UniformRandomGenerator):
    """The uniform instance with every customer moved into one disc (the paper's
    "cluster" generator: "allocates points within a specified radius and center point").

    Customers are uniform in the disc of ``radius`` around ``center``; the depot,
    demands, windows and coefficients are the uniform generator's for the same key.

    Args:
        num_customers, num_vehicles, manual_settings, ...: as
            :class:`UniformRandomGenerator`.
        center: the disc's centre ``(x, y)``, at least ``radius`` from every edge of the
            map; ``None`` (default): uniform among such points, per instance.
        radius: the disc's radius, in ``(0, map_max / 2]``; ``None`` (default):
            ``0.2 * map_max``.
    """

    def __init__(
        self,
        num_customers: int = C.NUM_CUSTOMERS,
        num_vehicles: int = C.NUM_VEHICLES,
        center: Sequence[float] | None = None,
        radius: float | None = None,
        **settings: Any,
    ) -> None:
        super().__init__(num_customers, num_vehicles, **settings)
        radius = C.CLUSTER_RADIUS * self.map_max if radius is None else radius
        self.radius = _float("radius", radius, 0.0, strict=True)
        if self.radius > self.map_max / 2:
            raise ValueError(
                f"MultiCVRP generator: radius={radius!r} must be at most map_max / 2 = {self.map_max / 2:g}"
            )
        self.center = _point("center", center, self.radius, self.map_max - self.radius)

    def _move_customers(self, key: jax.Array, customers: jax.Array) -> jax.Array:
        centre_key, radius_key, angle_key = jax.random.split(key, 3)
        if self.center is None:
            centre = jax.random.uniform(
                centre_key, (2,), minval=self.radius, maxval=self.map_max - self.radius
            )
        else:
            centre = jnp.asarray(self.center, jnp.float32)
        n = customers.shape[0]
        r = self.radius * jnp.sqrt(jax.random.uniform(radius_key, (n,)))
        angle = 2 * jnp.pi * jax.random.uniform(angle_key, (n,))
        points = centre + r[:, None] * jnp.stack([jnp.cos(angle), jnp.sin(angle)], -1)
        return jnp.clip(points, 0.0, self.map_max)


class LinearCompressionGenerator(UniformRandomGenerator):
    """The uniform instance with the customers pulled towards a random line (the paper's
    "linear compression" generator: "randomly aligns the points along a 2D line").

    The line passes through a uniform point of the map at a uniform angle; each customer
    moves ``compression`` of the way to the nearest point of the line's chord across the
    map (so it stays on the map). ``compression=1`` puts every customer on the line,
    ``0`` leaves the uniform instance.

    Args:
        num_customers, num_vehicles, manual_settings, ...: as
            :class:`UniformRandomGenerator`.
        compression: in ``[0, 1]``; default 0.9.
    """

    def __init__(
        self,
        num_customers: int = C.NUM_CUSTOMERS,
        num_vehicles: int = C.NUM_VEHICLES,
        compression: float = C.COMPRESSION,
        **settings: Any,
    ) -> None:
        super().__init__(num_customers, num_vehicles, **settings)
        self.compression = _float("compression", compression, 0.0)
        if self.compression > 1.0:
            raise ValueError(f"MultiCVRP generator: compression must be in [0, 1], got {compression!r}")

    def _move_customers(self, key: jax.Array, customers: jax.Array) -> jax.Array:
        point_key, angle_key = jax.random.split(key)
        anchor = jax.random.uniform(point_key, (2,), minval=0.0, maxval=self.map_max)
        angle = jax.random.uniform(angle_key, (), minval=0.0, maxval=jnp.pi)
        direction = jnp.stack([jnp.cos(angle), jnp.sin(angle)])
        # The chord anchor + t * direction inside [0, map_max]^2: t in [lo, hi] on both axes.
        safe = jnp.where(jnp.abs(direction) > 1e-7, direction, 1e-7)
        bounds = jnp.stack([(0.0 - anchor) / safe, (self.map_max - anchor) / safe])
        lo, hi = jnp.max(jnp.min(bounds, 0)), jnp.min(jnp.max(bounds, 0))
        t = jnp.clip((customers - anchor) @ direction, lo, hi)
        foot = anchor + t[:, None] * direction
        return jnp.clip(customers + self.compression * (foot - customers), 0.0, self.map_max)


class ExplosionGenerator(UniformRandomGenerator):
    """The uniform instance with the customers near a point pushed away from it (the
    paper's "explosion" generator: "pushes the points away from a given reference point").

    A customer at distance ``d < radius`` from ``center`` moves along the ray from the
    centre to distance ``2 * radius - d`` (mirrored across the circle: the nearest go
    farthest), then is clipped to the map; customers farther than ``radius`` stay. No
    customer ends up nearer the centre than it was, and the disc is left empty except
    where the map's edge clips a pushed customer back.

    Args:
        num_customers, num_vehicles, manual_settings, ...: as
            :class:`UniformRandomGenerator`.
        center: the reference point ``(x, y)`` on the map; ``None`` (default): uniform on
            the map, per instance.
        radius: the blast radius, ``> 0``; ``None`` (default): ``0.3 * map_max``.
    """

    def __init__(
        self,
        num_customers: int = C.NUM_CUSTOMERS,
        num_vehicles: int = C.NUM_VEHICLES,
        center: Sequence[float] | None = None,
        radius: float | None = None,
        **settings: Any,
    ) -> None:
        super().__init__(num_customers, num_vehicles, **settings)
        radius = C.EXPLOSION_RADIUS * self.map_max if radius is None else radius
        self.radius = _float("radius", radius, 0.0, strict=True)
        self.center = _point("center", center, 0.0, self.map_max)

    def _move_customers(self, key: jax.Array, customers: jax.Array) -> jax.Array:
        if self.center is None:
            centre = jax.random.uniform(key, (2,), minval=0.0, maxval=self.map_max)
        else:
            centre = jnp.asarray(self.center, jnp.float32)
        offset = customers - centre
        d = jnp.linalg.norm(offset, axis=-1)
        unit = jnp.where(d[:, None] > 0, offset / jnp.maximum(d, 1e-12)[:, None], jnp.array([1.0, 0.0]))
        pushed = centre + unit * (2 * self.radius - d)[:, None]
        moved = jnp.where((d < self.radius)[:, None], pushed, customers)
        return jnp.clip(moved, 0.0, self.map_max)
