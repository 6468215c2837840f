"""RolloutManager: batched arrays, padding of heterogeneous agents, the observation an
episode ended on, truncation vs termination, teams."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from fast_compile import jit
from stub_envs import CounterEnv

import jaxmarl
from jaxmarl.wrappers import LogWrapper, RolloutManager
from jaxmarl.wrappers.rollout import resolve_teams


def test_shapes_padding_ids_and_masks_for_heterogeneous_agents():
    env = jaxmarl.make("MPE_simple_world_comm_v3")  # obs 34 / 28, actions 20 / 5
    manager = RolloutManager(env, num_envs=3)
    obs, state = jit(manager.reset)(jax.random.PRNGKey(0))
    assert obs.shape == (3, 6, 34 + 6) and manager.action_dim == 20
    # Good agents' 28-dim observations are zero-padded; every row ends with its one-hot id.
    np.testing.assert_array_equal(obs[:, 4:, 28:34], 0.0)
    np.testing.assert_array_equal(obs[:, :, 34:], np.broadcast_to(np.eye(6), (3, 6, 6)))
    avail = jit(manager.avail_actions)(state)
    assert avail.shape == (3, 6, 20)
    assert np.all(avail[:, 0]) and np.all(avail[:, 1:, :5]) and not np.any(avail[:, 1:, 5:])
    assert jit(manager.global_state)(state).shape == (3, manager.state_dim)
    actions = jnp.zeros((3, 6), jnp.int32).at[:, 0].set(19)  # the leader's largest action
    obs, _, reward, done, info = jit(manager.step)(jax.random.PRNGKey(1), state, actions)
    assert obs.shape == (3, 6, 40) and reward.shape == (3, 6) and done.shape == (3, 6)
    assert info["final_obs"].shape == (3, 6, 40) and info["episode_over"].shape == (3,)


def test_final_obs_is_where_the_episode_ended_and_truncation_is_not_termination():
    # Env 0 plays (1, 1) and reaches the goal 4 after two steps (termination); env 1
    # plays (1, 0) and hits the 3-step time limit first (truncation).
    manager = RolloutManager(CounterEnv(max_steps=3, goal=4.0), num_envs=2, agent_ids=False)
    obs, state = manager.reset(jax.random.PRNGKey(0))
    actions = jnp.array([[1, 1], [1, 0]], jnp.int32)
    step = jit(manager.step)
    expected_over = [[False, False], [True, False], [False, True]]
    for t, key in enumerate(jax.random.split(jax.random.PRNGKey(1), 3)):
        start = state.start
        obs, state, _, done, info = step(key, state, actions)
        np.testing.assert_array_equal(info["episode_over"], expected_over[t])
        np.testing.assert_array_equal(done, np.repeat(np.array(expected_over[t])[:, None], 2, axis=1))
        if t == 1:  # env 0 terminated on count 4: no bootstrap; its obs is a fresh episode
            np.testing.assert_array_equal(info["terminated"][0], [True, True])
            np.testing.assert_array_equal(info["final_obs"][0, :, 0], [4.0, 4.0])
            np.testing.assert_array_equal(obs[0, :, 0], [0.0, 0.0])
            assert info["final_obs"][0, 0, 1] == start[0] != state.start[0]
        if t == 2:  # env 1 was cut by the time limit at count 3: truncated, not terminated
            np.testing.assert_array_equal(info["truncated"][1], [True, True])
            np.testing.assert_array_equal(info["terminated"][1], [False, False])
            np.testing.assert_array_equal(info["final_obs"][1, :, 0], [3.0, 3.0])
            np.testing.assert_array_equal(obs[1, :, 0], [0.0, 0.0])
        not_over = ~np.array(expected_over[t])
        np.testing.assert_array_equal(info["final_obs"][not_over], obs[not_over])


def test_log_wrapper_info_passes_through_batched():
    manager = RolloutManager(LogWrapper(CounterEnv(max_steps=2)), num_envs=2)
    _, state = manager.reset(jax.random.PRNGKey(0))
    actions = jnp.ones((2, 2), jnp.int32)
    for key in jax.random.split(jax.random.PRNGKey(1), 2):
        _, state, _, _, info = manager.step(key, state, actions)
    np.testing.assert_array_equal(info["returned_episode"], np.ones((2, 2), bool))
    np.testing.assert_array_equal(info["returned_episode_returns"], np.full((2, 2), 2.0))


def test_teams_from_names_and_stems():
    agents = ["leadadversary_0", "adversary_0", "adversary_1", "agent_0", "agent_1"]
    teams = resolve_teams(agents, {"bad": ["leadadversary_0", "adversary"], "good": ["agent"]})
    assert [(t.name, t.agents) for t in teams] == [("bad", (0, 1, 2)), ("good", (3, 4))]
    assert [t.agents for t in resolve_teams(agents, None)] == [(0, 1, 2, 3, 4)]
    with pytest.raises(ValueError, match="'agent_0' is in no team"):
        resolve_teams(agents, {"bad": ["leadadversary", "adversary"]})
    with pytest.raises(ValueError, match="'agent_1' is in several teams"):
        resolve_teams(agents, {"bad": ["leadadversary", "adversary", "agent_1"], "good": ["agent"]})
    with pytest.raises(ValueError, match=r"teams \['ghosts'\] match none"):
        resolve_teams(agents, {"all": ["leadadversary", "adversary", "agent"], "ghosts": ["ghost"]})


def test_team_sum_adds_members_rewards():
    env = jaxmarl.make("MPE_simple_tag_v3")
    manager = RolloutManager(env, num_envs=1, teams={"predators": ["adversary"], "prey": ["agent"]})
    x = jnp.array([[1.0, 2.0, 4.0, 8.0]])
    np.testing.assert_array_equal(manager.team_sum(x), [[7.0, 8.0]])
