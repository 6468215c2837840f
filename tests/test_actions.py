"""What ``step`` does with the actions it is given: structure errors when traced, out-of-range
values replaced by the no-op and flagged, ``StrictActions`` turning them into errors."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from stub_envs import CounterEnv

import jaxmarl
from jaxmarl.environments.actions import check_structure, sanitise
from jaxmarl.environments.spaces import Box, Discrete, MultiDiscrete
from jaxmarl.wrappers import InvalidActionError, LogWrapper, StrictActions


@pytest.fixture(scope="module")
def spread():
    env = jaxmarl.make("MPE_simple_spread_v3")
    return env, env.reset(jax.random.PRNGKey(0))[1]


@pytest.fixture(scope="module")
def continuous():
    env = jaxmarl.make("MPE_simple_spread_v3", action_type="Continuous")
    return env, env.reset(jax.random.PRNGKey(0))[1]


def good(env):
    return {a: env.action_space(a).sample(jax.random.PRNGKey(i)) for i, a in enumerate(env.agents)}


@pytest.mark.parametrize(
    ("change", "error", "message"),
    [
        (lambda a: {**a, "agent_9": jnp.int32(0)}, ValueError, "unknown agent(s) 'agent_9'"),
        (lambda a: {k: v for k, v in a.items() if k != "agent_2"}, ValueError, "no action for 'agent_2'"),
        (lambda a: {**a, "agent_0": 1.7}, TypeError, "'agent_0' has dtype float32 but its space Discrete(5)"),
        (lambda a: {**a, "agent_0": jnp.zeros(3, jnp.int32)}, ValueError, "'agent_0' has shape (3,) but"),
        (lambda a: list(a.values()), TypeError, "actions must be a dict"),
        (lambda a: {**a, "agent_1": True}, TypeError, "'agent_1' has dtype bool but its space Discrete(5)"),
    ],
)
def test_malformed_discrete_actions_are_clear_errors(spread, change, error, message):
    env, state = spread
    with pytest.raises(error) as info:
        env.step(jax.random.PRNGKey(1), state, change(good(env)))
    assert message in str(info.value)
    assert "SimpleSpreadMPE.step" in str(info.value)


@pytest.mark.parametrize(
    ("action", "error", "message"),
    [
        (
            jnp.zeros(3),
            ValueError,
            "has shape (3,) but its space Box(0.0, 1.0, (5,), float32) needs shape (5,)",
        ),
        (jnp.float32(0.5), ValueError, "has shape () but its space Box"),
        (jnp.zeros(5, jnp.int32), TypeError, "needs a floating-point dtype"),
        (jnp.zeros((4, 5)), ValueError, "jax.vmap it to step a batch"),
    ],
)
def test_malformed_continuous_actions_are_clear_errors(continuous, action, error, message):
    env, state = continuous
    with pytest.raises(error, match=None) as info:
        env.step(jax.random.PRNGKey(1), state, {**good(env), "agent_0": action})
    assert message in str(info.value)


def test_a_batch_of_actions_works_under_vmap(spread):
    env, _ = spread
    keys = jax.random.split(jax.random.PRNGKey(0), 4)
    _, states = jax.vmap(env.reset)(keys)
    actions = {a: jnp.arange(4, dtype=jnp.int32) for a in env.agents}
    _, _, _, _, info = jax.vmap(env.step)(keys, states, actions)
    assert info["invalid_action"]["agent_0"].shape == (4,) and not info["invalid_action"]["agent_0"].any()


def test_a_discrete_action_of_shape_one_is_its_entry_as_jaxmarls_scripts_give_it(spread):
    env, state = spread
    key = jax.random.PRNGKey(2)
    scalar = {a: jnp.int32(i + 1) for i, a in enumerate(env.agents)}
    expected = env.step(key, state, scalar)
    got = env.step(key, state, {a: v.reshape(1) for a, v in scalar.items()})
    for x, y in zip(jax.tree.leaves(got), jax.tree.leaves(expected), strict=True):
        np.testing.assert_array_equal(x, y)
    flagged = env.step(key, state, {**scalar, "agent_0": jnp.array([7], jnp.int32)})[4]["invalid_action"]
    assert bool(flagged["agent_0"]) and not bool(flagged["agent_1"])


def test_out_of_range_discrete_actions_act_as_the_noop_and_are_flagged():
    env = jaxmarl.make("SMAX", scenario="3m")  # the no-op is `stop` (4), not 0
    _, state = env.reset(jax.random.PRNGKey(0))
    key = jax.random.PRNGKey(3)
    noop = {a: jnp.int32(env.noop_action(a)) for a in env.agents}
    bad = {**noop, "ally_0": jnp.int32(99), "enemy_1": jnp.int32(-1)}
    out_bad = env.step(key, state, bad)
    out_noop = env.step(key, state, noop)
    for x, y in zip(jax.tree.leaves(out_bad[:4]), jax.tree.leaves(out_noop[:4]), strict=True):
        np.testing.assert_array_equal(x, y)
    flags = {a: bool(v) for a, v in out_bad[4]["invalid_action"].items()}
    assert flags == {a: a in ("ally_0", "enemy_1") for a in env.agents}
    assert env.noop_action("ally_0") == 4


def test_continuous_actions_are_clipped_and_nan_is_the_noop(continuous):
    env, state = continuous
    key = jax.random.PRNGKey(5)
    given = {a: jnp.full(5, 0.25) for a in env.agents}
    given["agent_0"] = jnp.array([jnp.nan, 2.0, -3.0, jnp.inf, 0.5])
    expected = dict(given, agent_0=jnp.array([0.0, 1.0, 0.0, 1.0, 0.5]))
    out = env.step(key, state, given)
    ref = env.step(key, state, expected)
    for x, y in zip(jax.tree.leaves(out[:4]), jax.tree.leaves(ref[:4]), strict=True):
        np.testing.assert_array_equal(x, y)
    assert bool(out[4]["invalid_action"]["agent_0"]) and not bool(out[4]["invalid_action"]["agent_1"])
    assert not any(bool(v) for v in ref[4]["invalid_action"].values())


def test_sanitise_rules_per_space():
    action, invalid = sanitise(Discrete(5), 2, jnp.int32(5))
    assert int(action) == 2 and bool(invalid)
    action, invalid = sanitise(MultiDiscrete([3, 4]), np.zeros(2, int), jnp.array([1, 7], jnp.int32))
    np.testing.assert_array_equal(action, [1, 0])
    assert bool(invalid)
    box = Box(-1.0, 1.0, (3,))
    action, invalid = sanitise(box, np.zeros(3, np.float32), jnp.array([0.5, -0.5, 1.0]))
    np.testing.assert_array_equal(action, [0.5, -0.5, 1.0])
    assert not bool(invalid)
    with pytest.raises(TypeError, match="needs an integer dtype"):
        check_structure("X", ["a"], {"a": MultiDiscrete([3, 4])}, {"a": jnp.zeros(2)})


def test_strict_actions_raise_eagerly_and_from_compiled_code():
    env = StrictActions(jaxmarl.make("MPE_simple_v3"))
    _, state = env.reset(jax.random.PRNGKey(0))
    with pytest.raises(
        InvalidActionError, match=r"the action for 'agent_0' is 7,\s+outside its space Discrete"
    ):
        env.step(jax.random.PRNGKey(1), state, {"agent_0": jnp.int32(7)})
    env.step(jax.random.PRNGKey(1), state, {"agent_0": jnp.int32(4)})  # in range: no error

    def rollout(key, action):
        _, state = env.reset(key)

        def body(state, k):
            _, state, reward, _, _ = env.step(k, state, {"agent_0": action})
            return state, reward["agent_0"]

        return jax.lax.scan(body, state, jax.random.split(key, 3))[1]

    keys = jax.random.split(jax.random.PRNGKey(0), 3)
    fine = jax.jit(jax.vmap(rollout))(keys, jnp.array([0, 1, 2], jnp.int32))
    assert fine.shape == (3, 3)
    with pytest.raises(Exception, match=r"the action for 'agent_0' is 9,\s+outside its space Discrete\(5\)"):
        jax.block_until_ready(jax.jit(jax.vmap(rollout))(keys, jnp.array([0, 9, 2], jnp.int32)))


def test_wrappers_keep_the_checks_and_the_flags():
    env = LogWrapper(CounterEnv())
    _, state = env.reset(jax.random.PRNGKey(0))
    with pytest.raises(ValueError, match="no action for 'b'"):
        env.step(jax.random.PRNGKey(1), state, {"a": jnp.int32(1)})
    _, _, _, _, info = env.step(jax.random.PRNGKey(1), state, {"a": jnp.int32(1), "b": jnp.int32(2)})
    assert not bool(info["invalid_action"]["a"]) and bool(info["invalid_action"]["b"])
