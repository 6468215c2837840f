"""LogWrapper bookkeeping across automatic resets and vmapped envs; WorldStateWrapper."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from stub_envs import CounterEnv, ScoringCounterEnv, ones

import jaxmarl
from jaxmarl.wrappers import LogWrapper, WorldStateWrapper


def test_log_wrapper_returns_and_lengths_across_resets():
    env = LogWrapper(CounterEnv(max_steps=3))
    _, state = env.reset(jax.random.PRNGKey(0))

    def body(state, key):
        actions = {"a": jnp.int32(1), "b": jnp.int32(0)}
        _, state, _, done, info = env.step(key, state, actions)
        return state, info

    _, info = jax.lax.scan(body, state, jax.random.split(jax.random.PRNGKey(1), 7))
    np.testing.assert_array_equal(info["returned_episode"][:, 0], [0, 0, 1, 0, 0, 1, 0])
    # Agent "a" earns 1 per step, "b" 0: the returned episode returns are (3, 0).
    np.testing.assert_array_equal(info["returned_episode_returns"][2], [3.0, 0.0])
    np.testing.assert_array_equal(info["returned_episode_returns"][5], [3.0, 0.0])
    np.testing.assert_array_equal(info["returned_episode_lengths"][:, 0], [0, 0, 3, 3, 3, 3, 3])
    # Until the first episode ends the returned values are placeholders (masked out).
    np.testing.assert_array_equal(info["returned_episode_returns"][:2], 0.0)
    assert info["returned_episode"].shape == (7, 2)


def test_log_wrapper_reports_the_envs_episode_metrics_by_their_rules():
    env = LogWrapper(ScoringCounterEnv(max_steps=3))
    _, state = env.reset(jax.random.PRNGKey(0))
    plays = jnp.array([1, 0, 1, 1, 1, 0, 0], jnp.int32)  # agent a; b always plays 1

    def body(state, x):
        key, a = x
        _, state, _, _, info = env.step(key, state, {"a": a, "b": jnp.int32(1)})
        return state, info

    _, info = jax.lax.scan(body, state, (jax.random.split(jax.random.PRNGKey(1), 7), plays))
    metrics = jax.tree.map(np.asarray, info["returned_episode_metrics"])
    # Episodes are steps 0-2 and 3-5; agent a played 1 twice in each ("sum"); "last" is
    # the counter at the episode's last step: 2 + 1 + 2 = 5, then 2 + 2 + 1 = 5.
    np.testing.assert_array_equal(metrics["hits"][[2, 5]], [2.0, 2.0])
    np.testing.assert_array_equal(metrics["count"][[2, 5]], [5.0, 5.0])
    np.testing.assert_array_equal(metrics["count"][2], info["final_state"].env_state.count[2])
    np.testing.assert_array_equal(metrics["hits"][:2], 0.0)  # placeholders until an episode ends
    np.testing.assert_array_equal(metrics["hits"][6], 2.0)  # the last finished episode's value


def test_declared_metrics_must_match_what_step_env_returns():
    class Wrong(ScoringCounterEnv):
        episode_metrics = {"hits": "sum"}  # noqa: RUF012

    with pytest.raises(ValueError, match=r"must return exactly those names in info\['metrics'\]"):
        Wrong().step(jax.random.PRNGKey(0), Wrong().reset(jax.random.PRNGKey(0))[1], ones(Wrong()))

    class BadRule(ScoringCounterEnv):
        episode_metrics = {"hits": "mean", "count": "last"}  # noqa: RUF012

    env = BadRule()
    with pytest.raises(ValueError, match="must map names to 'sum' or 'last'"):
        env.step(jax.random.PRNGKey(0), env.reset(jax.random.PRNGKey(0))[1], ones(env))


def test_log_wrapper_is_per_env_under_vmap():
    # Env 0 plays (1, 1): the counter hits the goal of 2 each step (episodes of length 1).
    # Env 1 plays (1, 0): episodes of length 2.
    env = LogWrapper(CounterEnv(max_steps=None, goal=2.0))
    keys = jax.random.split(jax.random.PRNGKey(0), 2)
    _, state = jax.vmap(env.reset)(keys)
    actions = {"a": jnp.array([1, 1]), "b": jnp.array([1, 0])}

    def body(state, key):
        _, state, _, _, info = jax.vmap(env.step, in_axes=(0, 0, 0))(jax.random.split(key, 2), state, actions)
        return state, info

    _, info = jax.lax.scan(body, state, jax.random.split(jax.random.PRNGKey(1), 4))
    np.testing.assert_array_equal(info["returned_episode"][:, :, 0], [[1, 0], [1, 1], [1, 0], [1, 1]])
    np.testing.assert_array_equal(info["returned_episode_lengths"][3, :, 0], [1, 2])
    np.testing.assert_array_equal(info["returned_episode_returns"][3], [[1.0, 1.0], [2.0, 0.0]])


def test_log_wrapper_forwards_env_methods():
    env = LogWrapper(jaxmarl.make("MPE_simple_spread_v3"))
    obs, state = env.reset(jax.random.PRNGKey(0))
    assert env.agents == ["agent_0", "agent_1", "agent_2"]
    assert env.observation_space("agent_0").shape == (18,)
    np.testing.assert_array_equal(env.get_obs(state)["agent_1"], obs["agent_1"])
    assert env.get_global_state(state).ndim == 1
    assert env.render(state).dtype == jnp.uint8
    assert env.unwrapped.name == "SimpleSpreadMPE"


def test_world_state_wrapper_adds_one_row_per_agent():
    base = jaxmarl.make("MPE_simple_tag_v3")
    env = WorldStateWrapper(base)
    obs, state = env.reset(jax.random.PRNGKey(0))
    global_state = base.get_global_state(state)
    assert obs["world_state"].shape == (4, global_state.shape[0] + 4)
    np.testing.assert_array_equal(obs["world_state"][2, : global_state.shape[0]], global_state)
    np.testing.assert_array_equal(obs["world_state"][:, global_state.shape[0] :], np.eye(4))
    assert env.world_state_space().shape == (global_state.shape[0] + 4,)
    actions = {a: base.action_space(a).sample(jax.random.PRNGKey(i)) for i, a in enumerate(base.agents)}
    obs2, state2, _, _, _ = env.step(jax.random.PRNGKey(1), state, actions)
    np.testing.assert_array_equal(
        obs2["world_state"][0, : global_state.shape[0]], base.get_global_state(state2)
    )
    assert set(obs2) == {*base.agents, "world_state"}


def test_world_state_wrapper_without_ids_composes_with_log_wrapper():
    env = WorldStateWrapper(LogWrapper(jaxmarl.make("MPE_simple_spread_v3")), agent_ids=False)
    obs, state = env.reset(jax.random.PRNGKey(0))
    assert obs["world_state"].shape == (3, env.get_global_state(state).shape[0])
    obs, state, _, _, info = env.step(jax.random.PRNGKey(1), state, ones(env))
    assert "returned_episode" in info


def test_final_state_survives_wrappers():
    """At a time limit, info["final_state"] is the state the episode ended in, in the
    outermost wrapper's state type, and WorldStateWrapper turns it into the final
    world state."""
    base = jaxmarl.make("MPE_simple_spread_v3", max_steps=2)
    env = WorldStateWrapper(LogWrapper(base), agent_ids=False)
    obs, state = env.reset(jax.random.PRNGKey(0))
    acts = {a: jnp.int32(2) for a in base.agents}  # everyone pushes +x
    _, state, _, _, info = env.step(jax.random.PRNGKey(1), state, acts)
    assert not bool(info["truncated"]["agent_0"])
    _, state, _, done, info = env.step(jax.random.PRNGKey(2), state, acts)
    assert bool(done["__all__"]) and bool(info["truncated"]["agent_0"])
    final = info["final_state"]
    assert int(final.env_state.step) == 2 and int(state.env_state.step) == 0  # reset happened
    final_world = base.get_global_state(final.env_state)
    np.testing.assert_array_equal(info["final_obs"]["world_state"][0], final_world)
    assert not np.array_equal(info["final_obs"]["world_state"][0], obs["world_state"][0])
    np.testing.assert_allclose(final.episode_returns, info["returned_episode_returns"])


def test_agent_batcher_pads_and_masks_heterogeneous_agents():
    from jaxmarl.wrappers import AgentBatcher

    env = jaxmarl.make(
        "MPE_simple_speaker_listener_v4"
    )  # speaker: obs 3, Discrete(3); listener: 11, Discrete(5)
    batcher = AgentBatcher(env)
    assert batcher.heterogeneous and batcher.agent_ids and batcher.discrete
    assert (batcher.obs_dim, batcher.action_dim) == (11 + 2, 5)
    obs, state = env.reset(jax.random.PRNGKey(0))
    x = batcher.obs(obs)
    np.testing.assert_array_equal(x[0, :3], obs["speaker_0"])
    np.testing.assert_array_equal(x[0, 3:11], 0)  # padding
    np.testing.assert_array_equal(x[:, 11:], np.eye(2))  # agent ids
    np.testing.assert_array_equal(
        batcher.avail(env.get_avail_actions(state)), [[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]]
    )
    actions = batcher.actions(jnp.array([2, 4]))
    assert {a: int(v) for a, v in actions.items()} == {"speaker_0": 2, "listener_0": 4}
    np.testing.assert_array_equal(batcher.per_agent({"speaker_0": 1.0, "listener_0": 2.0}), [1.0, 2.0])


def test_agent_batcher_continuous_dims():
    from jaxmarl.wrappers import AgentBatcher

    env = jaxmarl.make("MPE_simple_world_comm_v3", action_type="Continuous")  # leader Box(9), others Box(5)
    batcher = AgentBatcher(env, agent_ids=False)
    assert not batcher.discrete and batcher.action_dim == 9 and batcher.obs_dim == 34
    np.testing.assert_array_equal(batcher.action_dim_mask.sum(1), [9, 5, 5, 5, 5, 5])
    actions = batcher.actions(jnp.ones((6, 9)))
    assert actions["leadadversary_0"].shape == (9,) and actions["agent_1"].shape == (5,)


def test_agent_batcher_lays_out_multi_discrete_heads():
    """Agent a: nvec (3, 2); agent b: (2, 4, 2). Heads of 3, 4 and 2 entries, flat, head
    after head: each agent's mask lands in its heads, choices past its head size are
    illegal, a head the agent lacks allows only choice 0, and unstacking drops it."""
    from jaxmarl.environments.spaces import MultiDiscrete
    from jaxmarl.wrappers import AgentBatcher

    env = CounterEnv()
    env.action_spaces = {"a": MultiDiscrete([3, 2]), "b": MultiDiscrete([2, 4, 2])}
    batcher = AgentBatcher(env)
    assert batcher.kind == "multi_discrete" and not batcher.discrete and batcher.heterogeneous
    assert batcher.head_sizes == (3, 4, 2) and batcher.action_dim == 9
    masks = {
        "a": jnp.array([1, 0, 1, 0, 1], bool),  # head 0: choices 0, 2; head 1: choice 1
        "b": jnp.array([0, 1, 1, 1, 0, 1, 1, 0], bool),  # (1) (0, 1, 3) (0)
    }
    np.testing.assert_array_equal(
        batcher.avail(masks),
        [
            [1, 0, 1, 0, 1, 0, 0, 1, 0],  # the third head: padding, choice 0 only
            [0, 1, 0, 1, 1, 0, 1, 1, 0],
        ],
    )
    np.testing.assert_array_equal(batcher.action_dim_mask.sum(-1), [5, 8])
    actions = batcher.actions(jnp.array([[2, 1, 0], [1, 3, 0]]))
    np.testing.assert_array_equal(actions["a"], [2, 1])
    np.testing.assert_array_equal(actions["b"], [1, 3, 0])
    assert env.action_space("a").contains(actions["a"]) and env.action_space("b").contains(actions["b"])


def test_agent_batcher_keeps_equal_multi_discrete_masks_as_they_are():
    from jaxmarl.environments.spaces import MultiDiscrete
    from jaxmarl.wrappers import AgentBatcher

    env = CounterEnv()
    env.action_spaces = {a: MultiDiscrete([3, 2]) for a in env.agents}
    batcher = AgentBatcher(env)
    assert batcher.head_sizes == (3, 2) and not batcher.heterogeneous
    masks = {"a": jnp.array([1, 0, 1, 0, 1], bool), "b": jnp.array([0, 1, 1, 1, 0], bool)}
    np.testing.assert_array_equal(batcher.avail(masks), np.stack([masks["a"], masks["b"]]))


def test_agent_batcher_rejects_mixed_action_kinds():
    from jaxmarl.environments.spaces import Box, Discrete
    from jaxmarl.wrappers import AgentBatcher

    env = CounterEnv()
    env.action_spaces = {"a": Discrete(2), "b": Box(0.0, 1.0, (2,))}
    with pytest.raises(ValueError, match="mixes"):
        AgentBatcher(env)


def test_agent_batcher_rejects_structured_observations():
    """A Dict observation space (e.g. NeuralMMO's ``obs_format="tables"``) has no flat
    size to stack; the batcher says so instead of reading its shape ``()`` as one number."""
    from jaxmarl.environments.spaces import Box, Dict
    from jaxmarl.wrappers import AgentBatcher

    env = CounterEnv()
    env.observation_spaces = {a: Dict({"x": Box(0.0, 1.0, (3,))}) for a in env.agents}
    with pytest.raises(ValueError, match=r"structured.*obs_format='flat'"):
        AgentBatcher(env)
