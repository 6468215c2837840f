"""Instance generators for SearchAndRescue (Jumanji's ``RandomGenerator``).

A generator is any object with the attributes in :data:`REQUIRED_ATTRIBUTES` and
``__call__(key) -> State`` (a pure function of the key, ``step`` 0); see
:mod:`jaxmarl.environments.jumanji.common`. Jumanji 1.1.2 ships one generator for this
task, :class:`RandomGenerator`.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxmarl.environments.jumanji.search_and_rescue import constants as C
from jaxmarl.environments.jumanji.search_and_rescue.types import SearcherState, State, TargetState

__all__ = ["REQUIRED_ATTRIBUTES", "RandomGenerator"]

REQUIRED_ATTRIBUTES = ("num_searchers", "num_targets", "env_size")


def _check_count(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"SearchAndRescue: {name} must be an int >= 1, got {value!r}")
    return value


def _check_number(name: str, value: object, minimum: float, strict: bool) -> float:
    bad = isinstance(value, bool) or not isinstance(value, (int, float))
    if bad or not (value > minimum if strict else value >= minimum):  # type: ignore[operator]
        relation = ">" if strict else ">="
        raise ValueError(f"SearchAndRescue: {name} must be a number {relation} {minimum}, got {value!r}")
    return float(value)  # type: ignore[arg-type]


class RandomGenerator:
    """Searchers and targets placed uniformly at random, targets at rest.

    With ``key, k_searchers, k_targets = split(key, 3)`` and ``k_pos, k_heading, k_speed =
    split(k_searchers, 3)`` (Jumanji's draws, so the same key gives Jumanji's instance):
    searcher positions uniform in ``[0, env_size)^2``, headings uniform in ``[0, 2 pi)``,
    speeds uniform in ``[searcher_min_speed, searcher_max_speed)``; target positions
    uniform in ``[0, env_size)^2``, velocities zero, none found; the state keeps ``key``
    for the target dynamics.

    Jumanji's generator reads the speed range from the env's searcher parameters at every
    reset; here it is the generator's own (the env passes its ``searcher_min_speed`` and
    ``searcher_max_speed`` to the default generator and refuses a generator whose range
    differs).

    Args:
        num_searchers: searchers (agents), >= 1.
        num_targets: targets, >= 1.
        env_size: side of the square torus, > 0.
        searcher_min_speed, searcher_max_speed: the initial speed range,
            ``0 <= min <= max``.

    Raises:
        ValueError: for a count below 1, a non-positive ``env_size`` or a bad speed range.
    """

    def __init__(
        self,
        num_searchers: int = C.NUM_SEARCHERS,
        num_targets: int = C.NUM_TARGETS,
        env_size: float = C.ENV_SIZE,
        searcher_min_speed: float = C.SEARCHER_MIN_SPEED,
        searcher_max_speed: float = C.SEARCHER_MAX_SPEED,
    ) -> None:
        self.num_searchers = _check_count("num_searchers", num_searchers)
        self.num_targets = _check_count("num_targets", num_targets)
        self.env_size = _check_number("env_size", env_size, 0.0, strict=True)
        self.searcher_min_speed = _check_number("searcher_min_speed", searcher_min_speed, 0.0, strict=False)
        self.searcher_max_speed = _check_number("searcher_max_speed", searcher_max_speed, 0.0, strict=False)
        if self.searcher_min_speed > self.searcher_max_speed:
            raise ValueError(
                f"SearchAndRescue: searcher_min_speed ({searcher_min_speed}) exceeds "
                f"searcher_max_speed ({searcher_max_speed})"
            )

    def __repr__(self) -> str:
        return (
            f"RandomGenerator(num_searchers={self.num_searchers}, num_targets={self.num_targets}, "
            f"env_size={self.env_size}, searcher_min_speed={self.searcher_min_speed}, "
            f"searcher_max_speed={self.searcher_max_speed})"
        )

    def __call__(self, key: jax.Array) -> State:
        key, searcher_key, target_key = jax.random.split(key, 3)
        k_pos, k_heading, k_speed = jax.random.split(searcher_key, 3)
        s, t, size = self.num_searchers, self.num_targets, self.env_size
        searchers = SearcherState(
            pos=jax.random.uniform(k_pos, (s, 2), minval=0.0, maxval=size),
            heading=jax.random.uniform(k_heading, (s,), minval=0.0, maxval=2.0 * jnp.pi),
            speed=jax.random.uniform(
                k_speed, (s,), minval=self.searcher_min_speed, maxval=self.searcher_max_speed
            ),
        )
        targets = TargetState(
            pos=jax.random.uniform(target_key, (t, 2), minval=0.0, maxval=size),
            vel=jnp.zeros((t, 2), jnp.float32),
            found=jnp.zeros((t,), bool),
        )
        return State(searchers=searchers, targets=targets, key=key, step=jnp.zeros((), jnp.int32))
