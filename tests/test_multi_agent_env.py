"""The base class's rules: automatic reset, done aggregation, truncation, final_obs."""

import jax
import jax.numpy as jnp
import numpy as np
from stub_envs import CounterEnv, ones


def run(env, num_steps, key=None, reset_state=None):
    key = jax.random.PRNGKey(0) if key is None else key
    _, state = env.reset(key)

    def body(state, key):
        obs, state, reward, done, info = env.step(key, state, ones(env), reset_state)
        return state, (obs, state, reward, done, info)

    _, out = jax.lax.scan(body, state, jax.random.split(key, num_steps))
    return out


def test_time_limit_truncates_then_resets():
    env = CounterEnv(max_steps=3)
    obs, state, reward, done, info = run(env, 7)
    np.testing.assert_array_equal(done["__all__"], [0, 0, 1, 0, 0, 1, 0])
    np.testing.assert_array_equal(done["a"], done["__all__"])
    np.testing.assert_array_equal(info["truncated"]["a"], [0, 0, 1, 0, 0, 1, 0])
    # final_obs is the last observation of the episode; obs is the next episode's first.
    np.testing.assert_array_equal(info["final_obs"]["a"][:, 0], [2, 4, 6, 2, 4, 6, 2])
    np.testing.assert_array_equal(obs["a"][:, 0], [2, 4, 0, 2, 4, 0, 2])
    np.testing.assert_array_equal(state.step, [1, 2, 0, 1, 2, 0, 1])
    np.testing.assert_array_equal(reward["b"], np.ones(7))


def test_termination_is_not_truncation():
    env = CounterEnv(max_steps=10, goal=4.0)  # reaches 4 after 2 steps
    _, _, _, done, info = run(env, 4)
    np.testing.assert_array_equal(done["__all__"], [0, 1, 0, 1])
    assert not np.any(info["truncated"]["a"])


def test_termination_at_the_time_limit_is_termination():
    env = CounterEnv(max_steps=2, goal=4.0)
    _, _, _, done, info = run(env, 2)
    np.testing.assert_array_equal(done["__all__"], [0, 1])
    assert not np.any(info["truncated"]["a"])


def test_no_time_limit():
    env = CounterEnv(max_steps=None)
    _, _, _, done, info = run(env, 20)
    assert not np.any(done["__all__"]) and not np.any(info["truncated"]["b"])


def test_reset_state_is_used_for_automatic_reset():
    env = CounterEnv(max_steps=2)
    _, custom = env.reset(jax.random.PRNGKey(1))
    custom = custom.replace(count=jnp.float32(100.0))
    obs, state, _, done, _ = run(env, 3, reset_state=custom)
    np.testing.assert_array_equal(obs["a"][:, 0], [2, 100, 102])
    np.testing.assert_array_equal(state.count, [2, 100, 102])


def test_same_key_same_trajectory_different_key_different_reset():
    env = CounterEnv()
    a = run(env, 6, jax.random.PRNGKey(3))
    b = run(env, 6, jax.random.PRNGKey(3))
    c = run(env, 6, jax.random.PRNGKey(4))
    for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b), strict=True):
        np.testing.assert_array_equal(x, y)
    assert not np.array_equal(a[1].start, c[1].start)


def test_vmap_over_keys():
    env = CounterEnv(max_steps=4)
    keys = jax.random.split(jax.random.PRNGKey(0), 16)
    obs, state = jax.vmap(env.reset)(keys)
    obs, state, reward, done, info = jax.vmap(env.step, in_axes=(0, 0, None))(keys, state, ones(env))
    assert obs["a"].shape == (16, 2) and done["__all__"].shape == (16,)
    assert len(set(np.asarray(state.start).tolist())) == 16


def test_default_avail_actions_and_global_state():
    env = CounterEnv()
    _, state = env.reset(jax.random.PRNGKey(0))
    masks = env.get_avail_actions(state)
    np.testing.assert_array_equal(masks["a"], [True, True])
    gs = env.get_global_state(state)
    assert gs.shape == (4,)
