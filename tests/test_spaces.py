"""Spaces: sampling stays inside, contains rejects what is outside, metadata is right."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxmarl.environments.spaces import Box, Dict, Discrete, MultiDiscrete, Tuple

KEYS = jax.random.split(jax.random.PRNGKey(0), 2000)


def test_discrete_samples_cover_range_and_are_contained():
    space = Discrete(5)
    samples = np.asarray(jax.vmap(space.sample)(KEYS))
    assert space.shape == () and space.n == 5 and space.dtype == jnp.int32
    assert samples.dtype == np.int32
    assert set(samples.tolist()) == {0, 1, 2, 3, 4}
    assert bool(jnp.all(jax.vmap(space.contains)(samples)))


@pytest.mark.parametrize("n", [1, 6, 7, 1024, 1025, 100_000])
def test_discrete_samples_are_uniform(n):
    # Both paths (one 32-bit word modulo n up to n = 1024, randint above) are uniform:
    # a chi-square test on 200k draws, over all n values or over 64 equal bins of them.
    space = Discrete(n, dtype=jnp.int16 if n <= 1024 else jnp.int32)
    samples = np.asarray(jax.vmap(space.sample)(jax.random.split(jax.random.PRNGKey(n), 200_000)))
    assert samples.dtype == space.dtype and samples.min() >= 0 and samples.max() < n
    if n == 1:
        assert (samples == 0).all()
        return
    bins = min(n, 64)
    counts = np.bincount((samples.astype(np.int64) * bins) // n, minlength=bins)
    expected = np.bincount((np.arange(n) * bins) // n, minlength=bins) / n * samples.size
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    # 99.99th percentile of chi-square with bins - 1 degrees of freedom (Wilson-Hilferty).
    dof = bins - 1
    bound = dof * (1 - 2 / (9 * dof) + 3.719 * np.sqrt(2 / (9 * dof))) ** 3
    assert chi2 < bound, (chi2, bound)


@pytest.mark.parametrize("x", [-1, 5, 2.5, np.array([1, 2])])
def test_discrete_rejects_outside(x):
    assert not bool(Discrete(5).contains(x))


def test_discrete_contains_is_jittable():
    contains = jax.jit(Discrete(3).contains)
    assert bool(contains(jnp.int32(2))) and not bool(contains(jnp.int32(3)))


def test_discrete_rejects_bad_n():
    with pytest.raises(ValueError, match="positive integer"):
        Discrete(0)


def test_multidiscrete():
    space = MultiDiscrete([2, 3, 4])
    samples = np.asarray(jax.vmap(space.sample)(KEYS))
    assert space.shape == (3,)
    assert samples.min(0).tolist() == [0, 0, 0] and samples.max(0).tolist() == [1, 2, 3]
    assert bool(space.contains(jnp.array([1, 2, 3])))
    assert not bool(space.contains(jnp.array([2, 0, 0])))
    assert not bool(space.contains(jnp.array([0, 0])))


def test_box_bounded_samples_inside():
    space = Box(-1.0, np.array([0.0, 1.0, 2.0]))
    samples = np.asarray(jax.vmap(space.sample)(KEYS))
    assert space.shape == (3,) and space.dtype == jnp.float32
    assert samples.dtype == np.float32
    assert np.all(samples >= -1.0) and np.all(samples <= np.array([0.0, 1.0, 2.0]))
    assert samples[:, 2].max() > 1.5  # uses the whole range of each dimension
    assert bool(jnp.all(jax.vmap(space.contains)(samples)))


def test_box_contains_rejects_outside_wrong_shape_and_nan():
    space = Box(0.0, 1.0, (2,))
    assert bool(space.contains(jnp.array([0.0, 1.0])))
    assert not bool(space.contains(jnp.array([0.5, 1.01])))
    assert not bool(space.contains(jnp.array([0.5, 0.5, 0.5])))
    assert not bool(space.contains(jnp.array([jnp.nan, 0.5])))


def test_box_unbounded_samples_respect_one_sided_bounds():
    space = Box(np.array([-np.inf, 0.0, -np.inf, 2.0]), np.array([np.inf, np.inf, 3.0, 4.0]))
    samples = np.asarray(jax.vmap(space.sample)(KEYS))
    assert np.all(np.isfinite(samples))
    assert np.all(samples[:, 1] >= 0.0) and np.all(samples[:, 2] <= 3.0)
    assert samples[:, 0].min() < 0 < samples[:, 0].max()
    # the bounded entry of a partly unbounded box is still uniform on its interval
    assert np.all((samples[:, 3] >= 2.0) & (samples[:, 3] <= 4.0))
    assert samples[:, 3].min() < 2.5 and samples[:, 3].max() > 3.5


def test_box_rejects_low_above_high():
    with pytest.raises(ValueError, match="low must not exceed high"):
        Box(1.0, 0.0, (2,))


def test_integer_box_clips_bounds_to_its_dtype():
    """Bounds past an integer dtype's range (or infinite) mean the whole range, not values
    wrapped by the cast: every int16 is in ``Box(-inf, 1e10, dtype=int16)``."""
    box = Box(-np.inf, 1e10, (2,), jnp.int16)
    np.testing.assert_array_equal(box.low, [-32768, -32768])
    np.testing.assert_array_equal(box.high, [32767, 32767])
    assert bool(box.contains(jnp.array([-32768, 32767], jnp.int16)))
    assert box.sample(jax.random.PRNGKey(0)).dtype == jnp.int16


def test_tuple_and_dict():
    tup = Tuple([Discrete(2), Box(0.0, 1.0, (2,))])
    sample = tup.sample(jax.random.PRNGKey(1))
    assert isinstance(sample, tuple) and len(sample) == 2
    assert bool(tup.contains(sample))
    assert not bool(tup.contains((jnp.int32(2), jnp.zeros(2))))
    dct = Dict({"a": Discrete(3), "b": Box(-1.0, 1.0, (1,))})
    sample = dct.sample(jax.random.PRNGKey(2))
    assert set(sample) == {"a", "b"} and bool(dct.contains(sample))
    assert not bool(dct.contains({"a": jnp.int32(0)}))
    assert dct["a"] == Discrete(3)


def test_equality():
    assert Discrete(3) == Discrete(3) and Discrete(3) != Discrete(4)
    assert Box(0.0, 1.0, (2,)) == Box(0.0, 1.0, (2,))
    assert Box(0.0, 1.0, (2,)) != Box(0.0, 2.0, (2,))
