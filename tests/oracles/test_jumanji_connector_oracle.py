"""Connector against jumanji 1.1.2 (the original): the same generator key gives the same
instance, and the same joint actions give, at every step of whole episodes, the same
per-agent observations, action masks, rewards (1e-6), episode ends (per agent and for the
episode; terminated / truncated), ``extras`` and states.

Jumanji 1.1.2 observes the grid once, with agent 0's codes; our agent ``i`` sees it
relabelled by Jumanji's former ``switch_perspective`` (written out below from its
definition), then ``step_count``. Actions are random: most steps uniformly among each
agent's legal actions, the others uniformly among all five, so illegal moves and
collisions are exercised too (Jumanji accepts any action). Both envs run in one
``jit(vmap(scan))`` per configuration; steps after an episode's end are not compared
(ours resets automatically, Jumanji's does not).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from fast_compile import parity_jit as fast_jit

from jaxmarl.environments.jumanji.connector import (
    Connector,
    RandomWalkGenerator,
    SharedDenseRewardFn,
    SparseRewardFn,
    UniformRandomGenerator,
)

jumanji = pytest.importorskip("jumanji", reason="the jumanji 1.1.2 oracle is in the test extra")
from jumanji.environments.routing.connector import Connector as TheirConnector  # noqa: E402
from jumanji.environments.routing.connector import generator as their_generators  # noqa: E402
from jumanji.environments.routing.connector import reward as their_rewards  # noqa: E402

pytestmark = [pytest.mark.oracle, pytest.mark.xdist_group("jumanji_connector_oracle")]

TOL = 1e-6
NUM_SEEDS = 128


def joint_action(key, mask):
    """Random actions (N,): legal ones (three steps in four) or any of the five."""
    k_any, k_legal, k_kind = jax.random.split(key, 3)
    legal = jax.random.categorical(k_legal, jnp.where(mask, 0.0, -jnp.inf), axis=-1)
    anything = jax.random.randint(k_any, mask.shape[:1], 0, 5)
    return jnp.where(jax.random.bernoulli(k_kind, 0.75), legal, anything).astype(jnp.int32)


def their_views(grid, num_agents):
    """Jumanji's ``switch_perspective`` (jumanji < 1.0) for every agent: (..., N, G, G)."""
    grid = grid[..., None, :, :]
    agent = np.arange(num_agents)[:, None, None]
    new = (grid - 1 - 3 * agent) % (3 * num_agents) + 1
    return np.where(grid >= 1, new, grid)


def their_obs(j_obs, num_agents, time_limit):
    """Jumanji's observation as our flat per-agent vectors: (..., N, G * G + 1), the step
    count scaled by the time limit."""
    views = their_views(np.asarray(j_obs.grid), num_agents)
    flat = views.reshape((*views.shape[:-2], -1)).astype(np.float32)
    time = np.asarray(j_obs.step_count, np.float32) * np.float32(1 / time_limit)
    step = np.broadcast_to(time[..., None, None], (*flat.shape[:-1], 1))
    return np.concatenate([flat, step], axis=-1)


def replay(ours, theirs, steps, seed=0):
    """Run both envs on NUM_SEEDS keys for ``steps`` steps; numpy arrays of ours and theirs
    (leading axes: seed, step) and whether each step is in the first episode."""
    agents = ours.agents

    def episode(key):
        obs, state = ours.reset(key)
        j_state, j_ts = theirs.reset(key)
        first = {"obs": jnp.stack([obs[a] for a in agents]), "state": state}
        j_first = {"obs": j_ts.observation, "state": j_state}

        def body(carry, key):
            state, j_state, j_ts = carry
            act = joint_action(key, j_ts.observation.action_mask)
            # reset_state: the automatic reset restarts from the same instance (no generator).
            _, new_state, reward, done, info = ours.step(
                key, state, {a: act[i] for i, a in enumerate(agents)}, reset_state=first["state"]
            )
            j_state, j_ts = theirs.step(j_state, act)
            step_state = info["final_state"]
            out = {
                "obs": jnp.stack([info["final_obs"][a] for a in agents]),
                "mask": jnp.stack([ours.get_avail_actions(step_state)[a] for a in agents]),
                "reward": jnp.stack([reward[a] for a in agents]),
                "done": done["__all__"],
                "agent_done": jnp.stack([done[a] for a in agents]),
                "truncated": jnp.stack([info["truncated"][a] for a in agents]),
                "metrics": info["metrics"],
                "state": step_state,
            }
            j_out = {
                "obs": j_ts.observation,
                "reward": j_ts.reward,
                "last": j_ts.last(),
                "discount": j_ts.discount,
                "extras": j_ts.extras,
                "state": j_state,
            }
            return (new_state, j_state, j_ts), (out, j_out)

        _, (outs, j_outs) = jax.lax.scan(body, (state, j_state, j_ts), jax.random.split(key, steps))
        return first, j_first, outs, j_outs

    keys = jax.random.split(jax.random.PRNGKey(seed), NUM_SEEDS)
    result = fast_jit(jax.vmap(episode))(keys)
    first, j_first, outs, j_outs = jax.tree.map(np.asarray, result)
    ended_before = np.cumsum(outs["done"], axis=1) - outs["done"] > 0
    return first, j_first, outs, j_outs, ~ended_before


def assert_same_state(state, j_state, where=...):
    np.testing.assert_array_equal(state.grid[where], j_state.grid[where])
    np.testing.assert_array_equal(state.position[where], j_state.agents.position[where])
    np.testing.assert_array_equal(state.target[where], j_state.agents.target[where])
    np.testing.assert_array_equal(state.action_mask[where], j_state.action_mask[where])
    np.testing.assert_array_equal(state.step[where], j_state.step_count[where])


def check(ours, theirs, steps, seed=0):
    n = ours.num_agents
    first, j_first, outs, j_outs, alive = replay(ours, theirs, steps, seed)
    # Reset: the same instance (same generator key), observations and masks.
    assert_same_state(first["state"], j_first["state"])
    np.testing.assert_array_equal(first["obs"], their_obs(j_first["obs"], n, ours.time_limit))
    np.testing.assert_array_equal(first["obs"][:, 0, :-1], j_first["obs"].grid.reshape(NUM_SEEDS, -1))
    # Every step of the first episode.
    np.testing.assert_array_equal(outs["obs"][alive], their_obs(j_outs["obs"], n, ours.time_limit)[alive])
    np.testing.assert_array_equal(outs["mask"][alive], j_outs["obs"].action_mask[alive])
    np.testing.assert_allclose(outs["reward"][alive], j_outs["reward"][alive], rtol=0, atol=TOL)
    for name in ("num_connections", "ratio_connections", "total_path_length"):
        np.testing.assert_allclose(
            outs["metrics"][name][alive], j_outs["extras"][name][alive], rtol=0, atol=TOL
        )
    assert_same_state(outs["state"], j_outs["state"], alive)
    # Ends: an agent with discount 0 is done; LAST ends the episode, and agents still at
    # discount 1 then are truncated (Jumanji's time limit), the others terminated.
    j_last = j_outs["last"][alive]
    j_agent_over = j_outs["discount"][alive] == 0.0  # (steps, N)
    np.testing.assert_array_equal(outs["done"][alive], j_last)
    np.testing.assert_array_equal(outs["agent_done"][alive], j_agent_over | j_last[:, None])
    np.testing.assert_array_equal(outs["truncated"][alive], j_last[:, None] & ~j_agent_over)
    truncations = int(np.sum(j_last & ~j_agent_over.all(axis=1)))
    terminations = int(np.sum(j_last)) - truncations
    return {
        "terminations": terminations,
        "truncations": truncations,
        "connections": int(np.sum(outs["reward"][alive] > 0)),
        "agents_done_early": int(np.sum(j_agent_over & ~j_last[:, None])),
        "illegal": int(np.sum(~outs["mask"][alive])),
    }


def test_default_instance_whole_episodes():
    ours, theirs = Connector(), TheirConnector()
    assert (ours.time_limit, ours.num_agents, ours.grid_size) == (theirs.time_limit, theirs.num_agents, 10)
    seen = check(ours, theirs, steps=50)
    assert seen["truncations"] > 0 and seen["connections"] > 0 and seen["agents_done_early"] > 0


def test_small_random_walks_shared_dense_reward_episodes_terminate():
    generator = {"grid_size": 6, "num_agents": 4, "temperature": 0.5, "max_steps": 8}
    reward = {"connected_reward": 2.0, "timestep_reward": -0.1}
    ours = Connector(
        generator=RandomWalkGenerator(**generator), reward_fn=SharedDenseRewardFn(**reward), time_limit=12
    )
    theirs = TheirConnector(
        generator=their_generators.RandomWalkGenerator(**generator),
        reward_fn=their_rewards.SharedDenseRewardFn(**reward),
        time_limit=12,
    )
    seen = check(ours, theirs, steps=12, seed=2)
    assert seen["terminations"] > 0 and seen["truncations"] > 0 and seen["connections"] > 0


def test_uniform_generator_sparse_reward():
    ours = Connector(generator=UniformRandomGenerator(5, 6), reward_fn=SparseRewardFn(), time_limit=10)
    theirs = TheirConnector(
        generator=their_generators.UniformRandomGenerator(5, 6),
        reward_fn=their_rewards.SparseRewardFn(),
        time_limit=10,
    )
    seen = check(ours, theirs, steps=10, seed=3)
    assert seen["truncations"] > 0 and seen["connections"] > 0 and seen["agents_done_early"] > 0
