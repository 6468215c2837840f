"""The training scripts' shared pieces: the minibatch shuffle, rare branches."""

from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy import stats

from baselines.common import permutation, when_any


@pytest.mark.parametrize("n", [1, 2, 3, 5, 48, 257, 6144, 8193, 163840])
def test_permutation_is_a_permutation(n):
    perm = permutation(jax.random.PRNGKey(n), n)
    assert perm.dtype == np.int32 and perm.shape == (n,)
    np.testing.assert_array_equal(np.sort(np.asarray(perm)), np.arange(n))


def test_permutation_is_uniform_over_all_orders():
    """n = 4, one round: each of the 24 orders about equally often (chi-square, p > 0.001)."""
    draws = np.asarray(jax.vmap(lambda k: permutation(k, 4))(jax.random.split(jax.random.PRNGKey(0), 24_000)))
    index = {p: i for i, p in enumerate(itertools.permutations(range(4)))}
    counts = np.bincount([index[tuple(d)] for d in draws], minlength=24)
    assert stats.chisquare(counts).pvalue > 1e-3


def test_permutation_with_several_rounds_is_uniform_per_position():
    """n = 512 takes two sorting rounds: where sample 0 lands and which sample comes
    first are both uniform (chi-square, p > 0.001), and the rounds are not the identity."""
    draws = np.asarray(
        jax.vmap(lambda k: permutation(k, 512))(jax.random.split(jax.random.PRNGKey(1), 20_000))
    )
    first = np.bincount(draws[:, 0], minlength=512)
    where_zero = np.bincount(np.argmax(draws == 0, axis=1), minlength=512)
    assert stats.chisquare(first).pvalue > 1e-3
    assert stats.chisquare(where_zero).pvalue > 1e-3
    # neighbours in the input are independent in the output: sample 1 follows sample 0
    # about as often as any other (1 / 511 of the time).
    follows = np.mean(np.argmax(draws == 1, axis=1) == np.argmax(draws == 0, axis=1) + 1)
    assert abs(follows - 1 / 511) < 5 * np.sqrt((1 / 511) / 20_000)


def test_permutation_differs_by_key_and_repeats_with_it():
    a, b = (np.asarray(permutation(jax.random.PRNGKey(k), 6144)) for k in (0, 1))
    assert not np.array_equal(a, b)
    np.testing.assert_array_equal(a, np.asarray(permutation(jax.random.PRNGKey(0), 6144)))


def _counted(calls):
    def fn(x, y):
        jax.debug.callback(lambda: calls.append(1))
        return x * y + 1.0

    return fn


def test_when_any_is_a_real_branch_alone_and_under_vmap():
    calls = []
    fn = _counted(calls)

    def otherwise(x, y):
        return jnp.zeros_like(x)

    def f(pred, x, y):
        return when_any(pred, fn, otherwise, x, y)

    x, y = jnp.arange(3.0), jnp.float32(2.0)
    assert float(jax.jit(f)(True, x[1], y)) == 3.0 and float(jax.jit(f)(False, x[1], y)) == 0.0
    batched = jax.jit(jax.vmap(f, in_axes=(0, 0, None)))
    calls.clear()
    np.testing.assert_array_equal(batched(jnp.array([False, False, False]), x, y), [0, 0, 0])
    assert calls == []  # no element asked: fn never ran (a select would run it)
    # One element asks: the batch runs fn, for every element (callers select with pred).
    np.testing.assert_array_equal(batched(jnp.array([False, True, False]), x, y), [1, 3, 5])
    assert len(calls) == 1
    # Nested vmap (seeds x environments), unbatched operands broadcast.
    nested = jax.jit(jax.vmap(jax.vmap(f, in_axes=(0, None, None)), in_axes=(0, None, None)))
    out = nested(jnp.array([[False, False], [False, True]]), x[2], y)
    np.testing.assert_array_equal(out, [[5, 5], [5, 5]])
