"""The base class's rules: automatic reset, done aggregation, truncation, final_obs."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from stub_envs import CounterEnv, ones

from jaxmarl.environments import multi_agent_env
from jaxmarl.environments.spaces import Box


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


def random_actions(env, key):
    keys = jax.random.split(key, env.num_agents)
    return {a: jax.random.randint(k, (), 0, 2) for a, k in zip(env.agents, keys, strict=True)}


def rollout_batch(env, keys, num_steps, batched):
    """Step a batch of environments with random actions, under ``vmap`` when
    ``batched``, else one at a time (``lax.map``: each step's reset is a real branch)."""

    def one(key, state):
        key_act, key_step = jax.random.split(key)
        obs, state, reward, done, info = env.step(key_step, state, random_actions(env, key_act))
        return state, (obs, state, done)

    over = jax.vmap(one) if batched else (lambda k, s: jax.lax.map(lambda a: one(*a), (k, s)))
    _, state = jax.vmap(env.reset)(keys)

    def body(state, key):
        return over(jax.random.split(key, keys.shape[0]), state)

    return jax.lax.scan(body, state, jax.random.split(keys[0], num_steps))[1]


@pytest.fixture(params=[True, False], ids=["reset-only-finished", "reset-all-and-select"])
def reset_strategy(request, monkeypatch):
    """Both ways a vmapped step can reset: the CPU's (sample new episodes only where one
    ended, in chunks) and the accelerators' (sample everywhere, select)."""
    monkeypatch.setattr(multi_agent_env, "_reset_only_finished", lambda: request.param)


@pytest.mark.usefixtures("reset_strategy")
def test_vmapped_step_equals_stepping_each_environment_alone():
    # The result must be what each environment gets on its own, whichever way the
    # batch resets. 37 environments: chunks of 5, 8 of them, the last partly past the batch.
    # A batch of one takes a real branch instead.
    for n in (37, 1):
        keys = jax.random.split(jax.random.PRNGKey(0), n)
        for env in (CounterEnv(max_steps=6, goal=3.0), CounterEnv(max_steps=4)):
            batched = rollout_batch(env, keys, 13, batched=True)
            alone = rollout_batch(env, keys, 13, batched=False)
            for x, y in zip(jax.tree.leaves(batched), jax.tree.leaves(alone), strict=True):
                np.testing.assert_array_equal(x, y)
            ended = np.asarray(batched[2]["__all__"]).sum(axis=1)
            assert ended.max() > min(5, n - 1) and 0 in ended  # several chunks on some steps, none on others
            assert len(set(np.asarray(batched[1].start).ravel().tolist())) > n  # fresh episodes drawn


@pytest.mark.usefixtures("reset_strategy")
def test_nested_vmap_and_shared_key_reset_like_the_unbatched_step():
    env = CounterEnv(max_steps=6, goal=3.0)
    keys = jax.random.split(jax.random.PRNGKey(1), (3, 10))
    _, state = jax.vmap(jax.vmap(env.reset))(keys)
    actions = jax.vmap(jax.vmap(random_actions, in_axes=(None, 0)), in_axes=(None, 0))(env, keys)
    state = state.replace(count=state.count + 2.0)  # most episodes end on this step
    step_keys = jax.vmap(lambda k: jax.random.split(k, 10))(jax.random.split(jax.random.PRNGKey(2), 3))
    nested = jax.vmap(jax.vmap(env.step))(step_keys, state, actions)
    alone = jax.lax.map(lambda a: jax.lax.map(lambda b: env.step(*b), a), (step_keys, state, actions))
    for x, y in zip(jax.tree.leaves(nested), jax.tree.leaves(alone), strict=True):
        np.testing.assert_array_equal(x, y)
    # One key for the whole batch: every finished episode restarts from the same reset.
    first = jax.tree.map(lambda x: x[0], (state, actions))
    shared = jax.vmap(env.step, in_axes=(None, 0, 0))(step_keys[0, 0], *first)
    single = jax.lax.map(lambda b: env.step(step_keys[0, 0], *b), first)
    for x, y in zip(jax.tree.leaves(shared), jax.tree.leaves(single), strict=True):
        np.testing.assert_array_equal(x, y)
    assert np.asarray(shared[3]["__all__"]).sum() > 1


def test_vmapped_step_with_an_unbatched_episode_end():
    # The episode end depends only on the (shared) state's step counter here, so it is
    # not batched although the actions and the stepped states are.
    env = CounterEnv(max_steps=3)
    _, state = env.reset(jax.random.PRNGKey(0))
    actions = {a: jnp.arange(4) % 2 for a in env.agents}
    key = jax.random.PRNGKey(5)
    for steps in (1, 2):
        s = state.replace(step=jnp.int32(steps))
        batched = jax.vmap(env.step, in_axes=(None, None, 0))(key, s, actions)
        single = jax.lax.map(lambda a, s=s: env.step(key, s, a), actions)
        for x, y in zip(jax.tree.leaves(batched), jax.tree.leaves(single), strict=True):
            np.testing.assert_array_equal(x, y)


class DriftEnv(CounterEnv):
    """``CounterEnv`` with one continuous action per agent added to the counter, rewarded
    by the counter's square: differentiable in the actions."""

    def __init__(self, max_steps: int = 3) -> None:
        super().__init__(max_steps=max_steps)
        self.action_spaces = {a: Box(-1.0, 1.0, (1,)) for a in self.agents}

    def step_env(self, key, state, actions):
        count = state.count + sum(actions[a][0] for a in self.agents)
        state = state.replace(count=count, step=state.step + 1)
        reward = {a: count**2 for a in self.agents}
        return self.get_obs(state), state, reward, {a: jnp.bool_(False) for a in self.agents}, {}


@pytest.mark.usefixtures("reset_strategy")
def test_gradients_flow_through_a_vmapped_step_as_through_one_environment():
    env = DriftEnv(max_steps=3)
    keys = jax.random.split(jax.random.PRNGKey(0), 6)
    _, state = jax.vmap(env.reset)(keys)
    state = state.replace(step=jnp.arange(6) % 3)  # a third of the episodes end on this step
    actions = jax.random.uniform(jax.random.PRNGKey(1), (6, 2, 1), minval=-1.0, maxval=1.0)

    def loss(actions, over):
        acts = {a: actions[:, i] for i, a in enumerate(env.agents)}
        obs, new, reward, _, info = over(keys, state, acts)
        return sum(reward[a].sum() + obs[a].sum() + info["final_obs"][a].sum() for a in env.agents)

    batched = jax.grad(loss)(actions, jax.vmap(env.step))
    alone = jax.grad(loss)(actions, lambda *b: jax.lax.map(lambda x: env.step(*x), b))
    np.testing.assert_allclose(batched, alone, rtol=1e-6)
    assert np.all(np.asarray(batched) != 0)
