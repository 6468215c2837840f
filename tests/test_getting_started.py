"""The JaxMARL paper's Figure 10 snippet runs unchanged, and under jit, vmap and scan."""

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl import make


def test_figure_10_snippet():
    key = jax.random.PRNGKey(0)
    key, key_reset, key_act, key_step = jax.random.split(key, 4)
    env = make("MPE_simple_world_comm_v3")
    obs, state = env.reset(key_reset)
    key_act = jax.random.split(key_act, env.num_agents)
    actions = {agent: env.action_space(agent).sample(key_act[i]) for i, agent in enumerate(env.agents)}
    obs, state, reward, done, infos = env.step(key_step, state, actions)
    assert set(obs) == set(env.agents) and set(reward) == set(env.agents)
    assert set(done) == {*env.agents, "__all__"}
    assert int(state.step) == 1


def _random_actions(env, key):
    keys = jax.random.split(key, env.num_agents)
    return {agent: env.action_space(agent).sample(keys[i]) for i, agent in enumerate(env.agents)}


def test_under_jit_vmap_and_scan():
    env = make("MPE_simple_world_comm_v3")
    num_envs, num_steps = 16, 1000

    @jax.jit
    def run(key):
        key, key_reset = jax.random.split(key)
        obs, state = jax.vmap(env.reset)(jax.random.split(key_reset, num_envs))

        def body(carry, key):
            state, ret = carry
            key_act, key_step = jax.random.split(key)
            actions = jax.vmap(_random_actions, in_axes=(None, 0))(env, jax.random.split(key_act, num_envs))
            obs, state, reward, done, info = jax.vmap(env.step)(
                jax.random.split(key_step, num_envs), state, actions
            )
            return (state, ret + reward["agent_0"]), done["__all__"]

        (state, ret), dones = jax.lax.scan(
            body, (state, jnp.zeros(num_envs)), jax.random.split(key, num_steps)
        )
        return state, ret, dones

    state, ret, dones = run(jax.random.PRNGKey(0))
    assert dones.shape == (num_steps, num_envs)
    # 25-step episodes: 40 episode ends per env in 1000 steps, all at the same steps.
    assert int(dones.sum()) == 40 * num_envs
    np.testing.assert_array_equal(np.flatnonzero(dones[:, 0]) + 1, np.arange(25, 1001, 25))
    assert np.all(np.isfinite(np.asarray(ret)))
    assert state.p_pos.shape == (num_envs, 11, 2)
