"""Observation and action spaces.

Spaces describe the arrays an environment takes and returns. They are plain Python
objects holding static metadata (shapes, bounds as NumPy arrays), so building one
never touches a device, and their methods are pure JAX functions usable under
``jit`` and ``vmap``:

- ``sample(key)`` draws a uniformly random element (for unbounded ``Box``
  dimensions: a standard normal, shifted exponential or clipped normal, as gymnasium
  does).
- ``contains(x)`` returns a boolean JAX scalar: whether ``x`` has the space's shape
  and every value lies inside it. It is traceable, so a jitted conformance check can
  call it on every step.
- ``shape`` and ``dtype``; ``Discrete`` also has ``n``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

__all__ = ["Box", "Dict", "Discrete", "MultiDiscrete", "Space", "Tuple"]


class Space:
    """Base class: a set of arrays with a fixed ``shape`` and ``dtype``."""

    shape: tuple[int, ...]
    dtype: Any

    def sample(self, key: jax.Array) -> Any:
        """A random element of the space."""
        raise NotImplementedError

    def contains(self, x: Any) -> jax.Array:
        """Whether ``x`` belongs to the space, as a boolean JAX scalar."""
        raise NotImplementedError


_MODULO_SAMPLE_MAX_N = 1024


def _has_shape(x: Any, shape: tuple[int, ...]) -> bool:
    return tuple(np.shape(x)) == tuple(shape)


class Discrete(Space):
    """The integers ``{0, 1, ..., n - 1}`` as a scalar.

    Args:
        n: number of elements, at least 1.
        dtype: integer dtype of samples (default ``int32``).
    """

    def __init__(self, n: int, dtype: Any = jnp.int32) -> None:
        if int(n) != n or n < 1:
            raise ValueError(f"Discrete space needs a positive integer n, got {n!r}")
        self.n = int(n)
        self.shape: tuple[int, ...] = ()
        self.dtype = jnp.dtype(dtype)

    def sample(self, key: jax.Array) -> jax.Array:
        """A uniformly random element.

        For ``n <= 1024`` (every action space in this library) one 32-bit word is drawn
        and reduced modulo ``n``: no element's probability is off by more than a factor
        ``1 + n / 2**32`` (below ``2.4e-7``, under float32's resolution), at a third of
        the cost of ``jax.random.randint`` (one threefry call instead of a split and two
        draws). Larger ``n`` uses ``randint``."""
        if self.n <= _MODULO_SAMPLE_MAX_N:
            word = jax.random.bits(key, (), jnp.uint32)
            return (word % jnp.uint32(self.n)).astype(self.dtype)
        return jax.random.randint(key, (), 0, self.n, dtype=self.dtype)

    def contains(self, x: Any) -> jax.Array:
        if not _has_shape(x, ()):
            return jnp.array(False)
        x = jnp.asarray(x)
        integral = x == jnp.round(x) if jnp.issubdtype(x.dtype, jnp.floating) else True
        return jnp.logical_and(jnp.logical_and(x >= 0, x < self.n), integral)

    def __repr__(self) -> str:
        return f"Discrete({self.n})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Discrete) and other.n == self.n and other.dtype == self.dtype

    def __hash__(self) -> int:
        return hash(("Discrete", self.n, str(self.dtype)))


class MultiDiscrete(Space):
    """A vector of independent discrete choices; element ``i`` is in ``[0, nvec[i])``.

    Args:
        nvec: number of choices per dimension, each at least 1.
        dtype: integer dtype of samples (default ``int32``).
    """

    def __init__(self, nvec: Sequence[int] | np.ndarray, dtype: Any = jnp.int32) -> None:
        nvec_arr = np.asarray(nvec, dtype=np.int64)
        if nvec_arr.ndim != 1 or nvec_arr.size == 0 or np.any(nvec_arr < 1):
            raise ValueError(f"MultiDiscrete needs a non-empty 1-d nvec of positive ints, got {nvec!r}")
        self.nvec = nvec_arr
        self.shape = (int(nvec_arr.size),)
        self.dtype = jnp.dtype(dtype)

    def sample(self, key: jax.Array) -> jax.Array:
        u = jax.random.uniform(key, self.shape)
        return jnp.floor(u * jnp.asarray(self.nvec)).astype(self.dtype)

    def contains(self, x: Any) -> jax.Array:
        if not _has_shape(x, self.shape):
            return jnp.array(False)
        x = jnp.asarray(x)
        return jnp.all(jnp.logical_and(x >= 0, x < jnp.asarray(self.nvec)))

    def __repr__(self) -> str:
        return f"MultiDiscrete({self.nvec.tolist()})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MultiDiscrete) and np.array_equal(other.nvec, self.nvec)

    def __hash__(self) -> int:
        return hash(("MultiDiscrete", tuple(self.nvec.tolist())))


class Box(Space):
    """Arrays of a fixed shape whose entries lie in ``[low, high]`` (bounds may be infinite).

    Args:
        low: lower bound, a scalar or an array broadcastable to ``shape``.
        high: upper bound, a scalar or an array broadcastable to ``shape``.
        shape: shape of the arrays; inferred from ``low``/``high`` if omitted.
        dtype: floating (or integer) dtype (default ``float32``). With an integer dtype,
            bounds past its range (or infinite) are clipped to it.
    """

    def __init__(
        self,
        low: float | np.ndarray | jax.Array,
        high: float | np.ndarray | jax.Array,
        shape: Sequence[int] | None = None,
        dtype: Any = jnp.float32,
    ) -> None:
        self.dtype = jnp.dtype(dtype)
        low_arr = np.asarray(low, dtype=np.float64)
        high_arr = np.asarray(high, dtype=np.float64)
        if shape is None:
            shape = np.broadcast_shapes(low_arr.shape, high_arr.shape)
        self.shape = tuple(int(s) for s in shape)
        if jnp.issubdtype(self.dtype, jnp.integer):
            # Bounds past the dtype's range (infinities included) mean its whole range.
            info = jnp.iinfo(self.dtype)
            low_arr, high_arr = np.clip(low_arr, info.min, info.max), np.clip(high_arr, info.min, info.max)
        self.low = np.broadcast_to(low_arr, self.shape).astype(self.dtype)
        self.high = np.broadcast_to(high_arr, self.shape).astype(self.dtype)
        if np.any(self.low > self.high):
            raise ValueError(f"Box low must not exceed high (low={low!r}, high={high!r})")

    def sample(self, key: jax.Array) -> jax.Array:
        """Uniform in ``[low, high]`` where both bounds are finite; ``low`` plus an
        exponential, ``high`` minus one, or a standard normal where one or both are
        infinite. The bounds are known when the space is built, so only the draws some
        entry needs are made (a bounded box costs one uniform draw)."""
        if jnp.issubdtype(self.dtype, jnp.integer):
            return jax.random.randint(key, self.shape, self.low, jnp.asarray(self.high) + 1, dtype=self.dtype)
        bounded_low, bounded_high = np.isfinite(self.low), np.isfinite(self.high)
        both = bounded_low & bounded_high
        if both.all():
            return jax.random.uniform(key, self.shape, self.dtype, self.low, self.high)
        k_u, k_n, k_e = jax.random.split(key, 3)
        out = jax.random.normal(k_n, self.shape, self.dtype)
        if both.any():
            uniform = jax.random.uniform(
                k_u, self.shape, self.dtype, np.where(both, self.low, 0.0), np.where(both, self.high, 1.0)
            )
            out = jnp.where(both, uniform, out)
        if (bounded_low ^ bounded_high).any():
            expo = jax.random.exponential(k_e, self.shape, self.dtype)
            out = jnp.where(bounded_low & ~bounded_high, np.where(bounded_low, self.low, 0.0) + expo, out)
            out = jnp.where(~bounded_low & bounded_high, np.where(bounded_high, self.high, 0.0) - expo, out)
        return out.astype(self.dtype)

    def contains(self, x: Any) -> jax.Array:
        if not _has_shape(x, self.shape):
            return jnp.array(False)
        x = jnp.asarray(x)
        return jnp.all(jnp.logical_and(x >= self.low, x <= self.high))

    def __repr__(self) -> str:
        lo = self.low.min() if self.low.size else 0.0
        hi = self.high.max() if self.high.size else 0.0
        return f"Box({lo}, {hi}, {self.shape}, {self.dtype})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Box)
            and other.shape == self.shape
            and other.dtype == self.dtype
            and np.array_equal(other.low, self.low)
            and np.array_equal(other.high, self.high)
        )

    def __hash__(self) -> int:
        return hash(("Box", self.shape, str(self.dtype)))


class Tuple(Space):
    """A fixed-length tuple of spaces; elements are tuples."""

    def __init__(self, spaces: Sequence[Space]) -> None:
        self.spaces = tuple(spaces)
        if not all(isinstance(s, Space) for s in self.spaces):
            raise TypeError("Tuple space elements must all be Space instances")
        self.shape = ()
        self.dtype = None

    def sample(self, key: jax.Array) -> tuple[Any, ...]:
        keys = jax.random.split(key, max(len(self.spaces), 1))
        return tuple(s.sample(k) for s, k in zip(self.spaces, keys, strict=False))

    def contains(self, x: Any) -> jax.Array:
        if not isinstance(x, (tuple, list)) or len(x) != len(self.spaces):
            return jnp.array(False)
        return jnp.all(jnp.array([s.contains(v) for s, v in zip(self.spaces, x, strict=True)]))

    def __len__(self) -> int:
        return len(self.spaces)

    def __getitem__(self, i: int) -> Space:
        return self.spaces[i]

    def __repr__(self) -> str:
        return f"Tuple({', '.join(map(repr, self.spaces))})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Tuple) and other.spaces == self.spaces

    def __hash__(self) -> int:
        return hash(("Tuple", self.spaces))


class Dict(Space):
    """A mapping from names to spaces; elements are dicts with the same keys."""

    def __init__(self, spaces: Mapping[str, Space]) -> None:
        self.spaces = dict(spaces)
        if not all(isinstance(s, Space) for s in self.spaces.values()):
            raise TypeError("Dict space values must all be Space instances")
        self.shape = ()
        self.dtype = None

    def sample(self, key: jax.Array) -> dict[str, Any]:
        keys = jax.random.split(key, max(len(self.spaces), 1))
        return {name: s.sample(k) for (name, s), k in zip(self.spaces.items(), keys, strict=False)}

    def contains(self, x: Any) -> jax.Array:
        if not isinstance(x, Mapping) or set(x) != set(self.spaces):
            return jnp.array(False)
        return jnp.all(jnp.array([s.contains(x[name]) for name, s in self.spaces.items()]))

    def __getitem__(self, name: str) -> Space:
        return self.spaces[name]

    def __repr__(self) -> str:
        inner = ", ".join(f"{k!r}: {v!r}" for k, v in self.spaces.items())
        return f"Dict({{{inner}}})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Dict) and other.spaces == self.spaces

    def __hash__(self) -> int:
        return hash(("Dict", tuple(self.spaces)))
