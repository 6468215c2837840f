"""Random draws in bulk.

Each ``jax.random`` call is one run of the threefry hash, and on the CPU JAX emits every
run as a loop of five rounds (to keep compile times down): a tick making thirty small
draws spent a fifth of its time in those loops. The systems here draw all the random
bits a part of the tick needs with one call and turn them into what they need:

- ``uniform(bits)``: floats in ``[0, 1)`` (23 random bits, as ``jax.random.uniform``);
- ``randint(bits, low, high)``: integers in ``[low, high)`` (``floor(u * (high - low))``,
  so a range of ``r`` values is off uniform by at most ``r / 2**23``);
- ``permutation(bits)``: a uniform random order of the positions (an argsort of 32-bit
  keys; ties, about ``n**2 / 2**33`` likely, keep index order).

``hashed_bits`` makes bits for many positions at once without a threefry run: an integer
hash of each position's index, keyed by the key's two words (the tile respawn rolls,
25,600 per tick on the Medium map, where threefry took about 80 microseconds of a
128-agent tick on one core and the hash takes about 13).
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp


def bits(key: jax.Array, *shapes: tuple[int, ...]) -> list[jax.Array]:
    """One ``uint32`` array per shape, all from one threefry call."""
    sizes = [math.prod(shape) for shape in shapes]
    flat = jax.random.bits(key, (sum(sizes),), jnp.uint32)
    out, start = [], 0
    for shape, size in zip(shapes, sizes, strict=True):
        out.append(flat[start : start + size].reshape(shape))
        start += size
    return out


def _mix(h: jax.Array) -> jax.Array:
    """A 32-bit integer hash (Wellons' ``lowbias32``: two multiply-xorshift rounds)."""
    h = h ^ (h >> jnp.uint32(16))
    h = h * jnp.uint32(0x7FEB352D)
    h = h ^ (h >> jnp.uint32(15))
    h = h * jnp.uint32(0x846CA68B)
    return h ^ (h >> jnp.uint32(16))


def hashed_bits(key: jax.Array, shape: tuple[int, ...]) -> jax.Array:
    """``uint32`` bits of ``shape`` from a PRNG key: each position's flat index hashed with
    the key's first word, added to its second and hashed again. Distinct keys give
    unrelated streams as far as a game's rolls can tell; it is not a cryptographic
    generator (use ``bits`` where draws must be threefry's)."""
    data = jax.random.key_data(key) if jnp.issubdtype(key.dtype, jax.dtypes.prng_key) else key
    data = data.astype(jnp.uint32)
    index = jnp.arange(math.prod(shape), dtype=jnp.uint32).reshape(shape)
    return _mix(_mix(index ^ data[0]) + data[1])


def uniform(b: jax.Array) -> jax.Array:
    """``float32`` in ``[0, 1)`` from random ``uint32`` bits (their top 23)."""
    mantissa = (b >> jnp.uint32(9)) | jnp.uint32(0x3F800000)
    return jax.lax.bitcast_convert_type(mantissa, jnp.float32) - 1.0


def randint(b: jax.Array, low: jax.Array | int, high: jax.Array | int) -> jax.Array:
    """``int32`` in ``[low, high)`` (``high > low``) from random ``uint32`` bits."""
    low, high = jnp.asarray(low, jnp.int32), jnp.asarray(high, jnp.int32)
    span = (high - low).astype(jnp.float32)
    return jnp.minimum(low + jnp.floor(uniform(b) * span).astype(jnp.int32), high - 1)


def permutation(b: jax.Array) -> jax.Array:
    """A random order of ``0 .. n - 1`` from ``n`` random ``uint32`` keys (last axis)."""
    return jnp.argsort(b, axis=-1, stable=True).astype(jnp.int32)
