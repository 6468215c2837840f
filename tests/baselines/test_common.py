"""The training scripts' shared pieces: the minibatch shuffle, rare branches, the GRU."""

from __future__ import annotations

import functools
import itertools
import math

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy import stats

from baselines.common import Dense, ScannedGRU, orthogonal, permutation, when_any


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


@pytest.mark.parametrize("n, sorts", [(48, 1), (512, 2), (6144, 2), (8192, 3), (8193, 3)])
def test_permutation_sorts_as_few_rounds_as_jax_random_permutation_asks(n, sorts):
    """At least 3 log2(n) random bits per sample in all, as jax.random.permutation asks,
    and no more rounds than that: PPO's 6,144 samples take two sorts (19 random bits
    each), not three (a sort is 0.17 ms there, every epoch)."""
    jaxpr = jax.make_jaxpr(permutation, static_argnums=1)(jax.random.PRNGKey(0), n)
    calls = [e for e in jaxpr.eqns if "sort" in (e.primitive.name, str(e.params.get("name")))]
    assert len(calls) == sorts
    random_bits = 32 - (n - 1).bit_length()
    assert sorts * random_bits >= 3 * math.log2(n) > (sorts - 1) * random_bits


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


# ------------------------------------------------------------------------- GRU


class _FlaxGRU(nn.Module):
    """The reference: Flax's ``nn.GRUCell`` under ``nn.scan``, the state zeroed at resets."""

    hidden: int

    @functools.partial(
        nn.scan, variable_broadcast="params", in_axes=0, out_axes=0, split_rngs={"params": False}
    )
    @nn.compact
    def __call__(self, carry, inputs):
        x, resets = inputs
        carry = jnp.where(resets[:, None], 0.0, carry)
        return nn.GRUCell(self.hidden, recurrent_kernel_init=orthogonal())(carry, x)


class _Net(nn.Module):
    gru: type

    @nn.compact
    def __call__(self, hidden, x, resets):
        return self.gru(16, name="ScannedGRU_0")(hidden, (nn.relu(nn.Dense(16)(x)), resets))


def test_scanned_gru_is_flax_gru_cell_with_its_parameters_values_and_gradients():
    """ScannedGRU computes nn.GRUCell's recurrence with hoisted input maps and its own
    backward pass: the same parameters (names, shapes, initial values), the same states,
    and the same gradients for the parameters, the inputs and the initial state, through
    resets and the last state."""
    key = jax.random.PRNGKey(0)
    x = jax.random.normal(key, (9, 5, 7))
    resets = jnp.zeros((9, 5), bool).at[0, 1].set(True).at[4, 0].set(True).at[6].set(True)
    h0 = jax.random.normal(jax.random.PRNGKey(1), (5, 16))
    ours, flax = _Net(ScannedGRU), _Net(_FlaxGRU)
    params = ours.init(key, h0, x, resets)
    reference = flax.init(key, h0, x, resets)
    assert jax.tree.structure(params) == jax.tree.structure(reference)
    jax.tree.map(np.testing.assert_array_equal, params, reference)

    def loss(net):
        def f(params, h0, x):
            last, states = net.apply(params, h0, x, resets)
            return jnp.sum(jnp.sin(3.0 * states)) + jnp.sum(last**2)

        return f

    for a, b in zip(ours.apply(params, h0, x, resets), flax.apply(params, h0, x, resets), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    grads = jax.jit(jax.grad(loss(ours), argnums=(0, 1, 2)))(params, h0, x)
    expected = jax.grad(loss(flax), argnums=(0, 1, 2))(params, h0, x)
    jax.tree.map(lambda a, b: np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5), grads, expected)
    # a reset drops what came before: no gradient reaches the initial state of row 1
    assert np.all(np.asarray(grads[1])[1] == 0.0) and np.any(np.asarray(grads[1])[2] != 0.0)
    # under a seeds' vmap too
    batched = jax.vmap(jax.grad(loss(ours)), in_axes=(None, 0, None))(params, jnp.stack([h0, h0]), x)
    jax.tree.map(lambda a, b: np.testing.assert_allclose(a[1], b, rtol=1e-4, atol=1e-5), batched, grads[0])


# ------------------------------------------------------------------------- Dense


@pytest.mark.parametrize("features", [1, 5, 64])
def test_dense_is_flax_dense_with_its_parameters_values_and_gradients(features):
    """Dense is nn.Dense (parameter names, shapes, initial values, outputs) whose kernel
    gradient takes another route under a seeds' vmap: the gradients equal nn.Dense's
    alone, under vmap of one seed and of three (the transposed-copy route), nested vmap,
    and with the inputs shared by every seed (not batched)."""
    key = jax.random.PRNGKey(0)
    x = jax.random.normal(key, (3, 4, 11, 7))  # (seeds, time, rows, features)
    ours, flax = Dense(features), nn.Dense(features)
    params = ours.init(key, x[0])
    jax.tree.map(np.testing.assert_array_equal, params, flax.init(key, x[0]))
    np.testing.assert_allclose(ours.apply(params, x), flax.apply(params, x), rtol=1e-6)

    def grads(module):
        return jax.grad(lambda p, x: jnp.sum(jnp.tanh(module.apply(p, x)) ** 2), argnums=(0, 1))

    def close(a, b):
        jax.tree.map(lambda u, v: np.testing.assert_allclose(u, v, rtol=1e-5, atol=1e-6), a, b)

    seeds = jax.tree.map(lambda a: jnp.stack([a, 2 * a, -a]), params)
    for in_axes, xs in (((0, 0), x), ((0, 0), x[:1]), ((0, None), x[0])):
        p = seeds if xs.shape[0] == 3 or in_axes[1] is None else jax.tree.map(lambda a: a[:1], seeds)
        close(jax.jit(jax.vmap(grads(ours), in_axes))(p, xs), jax.vmap(grads(flax), in_axes)(p, xs))
    close(jax.jit(grads(ours))(params, x[0]), grads(flax)(params, x[0]))
    nested = jax.vmap(jax.vmap(grads(ours), (None, 0)), (0, None))
    close(jax.jit(nested)(seeds, x), jax.vmap(jax.vmap(grads(flax), (None, 0)), (0, None))(seeds, x))
