"""The bulk random draws of ``jaxmarl.environments.nmmo.rng``: the counter hash behind the
tile respawn rolls is deterministic per key, unrelated across keys and positions, and
uniform enough that each material respawns at its documented rate."""

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.nmmo import NeuralMMO, rng
from jaxmarl.environments.nmmo import constants as C


def test_hashed_bits_are_a_function_of_the_key_and_the_position():
    key = jax.random.PRNGKey(7)
    a = np.asarray(rng.hashed_bits(key, (40, 50)))
    assert a.shape == (40, 50) and a.dtype == np.uint32
    np.testing.assert_array_equal(a, np.asarray(rng.hashed_bits(key, (40, 50))))
    # A typed key with the same data draws the same bits.
    np.testing.assert_array_equal(a, np.asarray(rng.hashed_bits(jax.random.key(7), (40, 50))))
    # The first positions do not depend on the shape asked for (flat index order).
    np.testing.assert_array_equal(a.reshape(-1)[:100], np.asarray(rng.hashed_bits(key, (100,))))
    other = np.asarray(rng.hashed_bits(jax.random.PRNGKey(8), (40, 50)))
    assert np.mean(a == other) < 0.01
    # Keys differing in either word only give unrelated streams.
    for data in ([0, 1], [1, 0], [0x80000000, 0]):
        b = np.asarray(rng.hashed_bits(jnp.asarray(data, jnp.uint32), (40, 50)))
        assert np.mean(a == b) < 0.01


def test_hashed_bits_are_balanced_and_uncorrelated():
    n = 1 << 16
    keys = jax.random.split(jax.random.PRNGKey(0), 64)
    bits = np.asarray(jax.vmap(lambda k: rng.hashed_bits(k, (n,)))(keys))  # (64, n)
    # Every bit position is set half the time (standard error 1/(2 sqrt(64 n))).
    ones = np.stack([(bits >> b) & 1 for b in range(32)]).reshape(32, -1).mean(1)
    assert np.all(np.abs(ones - 0.5) < 5 * 0.5 / np.sqrt(bits.size)), ones
    u = np.asarray(rng.uniform(jnp.asarray(bits)), np.float64)
    assert u.min() >= 0.0 and u.max() < 1.0
    # Uniform in 16 bins (chi-square, 15 degrees of freedom; 60 is far beyond p = 1e-6).
    counts = np.histogram(u, bins=16, range=(0, 1))[0]
    expected = u.size / 16
    assert np.sum((counts - expected) ** 2 / expected) < 60, counts
    # Neighbouring positions and the same position under consecutive keys are uncorrelated.
    z = u - 0.5
    limit = 5 / np.sqrt(u.size)
    assert abs(np.mean(z[:, 1:] * z[:, :-1]) / np.var(z)) < limit
    assert abs(np.mean(z[1:] * z[:-1]) / np.var(z)) < limit
    # Each position, over keys, is not biased (its mean over 64 keys has sd 0.036).
    assert np.abs(z.mean(0)).max() < 6 * np.sqrt(1 / 12 / 64)


def test_depleted_tiles_respawn_at_their_materials_rates():
    env = NeuralMMO(preset="small", num_npcs=0)
    _, state = env.reset(jax.random.PRNGKey(0))
    size = state.tile.shape[0]
    materials = [C.SCRUB, C.SLAG, C.STUMP, C.FRAGMENT, C.WEEDS]
    bases = [C.FOLIAGE, C.ORE, C.TREE, C.CRYSTAL, C.HERB]
    # A map striped with every depleted material, each stripe remembering its resource.
    stripe = np.arange(size * size).reshape(size, size) % len(materials)
    tile = jnp.asarray(np.asarray(materials)[stripe], jnp.int32)
    base = jnp.asarray(np.asarray(bases)[stripe], jnp.int32)
    state = state.replace(tile=tile, tile_base=base)
    keys = jax.random.split(jax.random.PRNGKey(1), 40)
    grown = np.asarray(jax.vmap(lambda k: env._end_of_tick(k, state).tile == base)(keys))
    for m, material in enumerate(materials):
        rolls = grown[:, stripe == m]
        p = float(C.RESPAWN_PROB[material])
        sd = np.sqrt(p * (1 - p) / rolls.size)
        assert abs(rolls.mean() - p) < 5 * sd, (material, rolls.mean(), p)
