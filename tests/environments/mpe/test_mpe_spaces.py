"""Agents, observation and action spaces of every MPE scenario with its default
arguments (as in mpe2), and the sizes of the observations actually produced."""

from __future__ import annotations

import jax
import numpy as np
import pytest

import jaxmarl
from jaxmarl.environments.spaces import Box, Discrete

WORLD_ADV = ["leadadversary_0", "adversary_0", "adversary_1", "adversary_2"]

# env id -> {agent: (obs size, Discrete n, continuous Box size)} in agent order
SPECS = {
    "MPE_simple_v3": {"agent_0": (4, 5, 5)},
    "MPE_simple_spread_v3": {f"agent_{i}": (18, 5, 5) for i in range(3)},
    "MPE_simple_tag_v3": {
        "adversary_0": (16, 5, 5),
        "adversary_1": (16, 5, 5),
        "adversary_2": (16, 5, 5),
        "agent_0": (14, 5, 5),
    },
    "MPE_simple_world_comm_v3": {
        "leadadversary_0": (34, 20, 9),
        "adversary_0": (34, 5, 5),
        "adversary_1": (34, 5, 5),
        "adversary_2": (34, 5, 5),
        "agent_0": (28, 5, 5),
        "agent_1": (28, 5, 5),
    },
    "MPE_simple_adversary_v3": {"adversary_0": (8, 5, 5), "agent_0": (10, 5, 5), "agent_1": (10, 5, 5)},
    "MPE_simple_crypto_v3": {"eve_0": (4, 4, 4), "bob_0": (8, 4, 4), "alice_0": (8, 4, 4)},
    "MPE_simple_push_v3": {"adversary_0": (8, 5, 5), "agent_0": (19, 5, 5)},
    "MPE_simple_reference_v3": {"agent_0": (21, 50, 15), "agent_1": (21, 50, 15)},
    "MPE_simple_speaker_listener_v4": {"speaker_0": (3, 3, 3), "listener_0": (11, 5, 5)},
    # FACMAC: only the predators act; continuous is the default action type
    "MPE_simple_facmac_3a_v1": {f"adversary_{i}": (16, 5, 5) for i in range(3)},
    "MPE_simple_facmac_6a_v1": {f"adversary_{i}": (30, 5, 5) for i in range(6)},
    "MPE_simple_facmac_9a_v1": {f"adversary_{i}": (44, 5, 5) for i in range(9)},
    "MPE_collect_treasure_v1": {
        **{f"collector_{i}": (86, 5, 5) for i in range(6)},
        **{f"deposit_{i}": (84, 5, 5) for i in range(2)},
    },
    "MPE_simple_formation_v1": {f"agent_{i}": (6, 5, 5) for i in range(4)},
    "MPE_simple_line_v1": {f"agent_{i}": (8, 5, 5) for i in range(4)},
}


def _obs_shapes(env):
    obs, _ = jax.eval_shape(env.reset_env, jax.random.PRNGKey(0))
    return {a: o.shape for a, o in obs.items()}


@pytest.mark.parametrize("env_id", list(SPECS))
def test_agents_and_discrete_spaces(env_id):
    spec = SPECS[env_id]
    env = jaxmarl.make(env_id, action_type="Discrete")
    assert env.agents == list(spec)
    assert env.num_agents == len(spec)
    for agent, (obs_dim, n, _) in spec.items():
        assert env.observation_space(agent).shape == (obs_dim,), agent
        space = env.action_space(agent)
        assert isinstance(space, Discrete), agent
        assert space.n == n, agent
    assert _obs_shapes(env) == {a: (d,) for a, (d, _, _) in spec.items()}


@pytest.mark.parametrize("env_id", list(SPECS))
def test_continuous_spaces(env_id):
    spec = SPECS[env_id]
    env = jaxmarl.make(env_id, action_type="Continuous")
    assert env.agents == list(spec)
    for agent, (obs_dim, _, d) in spec.items():
        assert env.observation_space(agent).shape == (obs_dim,), agent
        space = env.action_space(agent)
        assert isinstance(space, Box), agent
        assert space.shape == (d,), agent
        np.testing.assert_array_equal(space.low, np.zeros(d))
        np.testing.assert_array_equal(space.high, np.ones(d))
    assert _obs_shapes(env) == {a: (o,) for a, (o, _, _) in spec.items()}


def test_default_action_types():
    assert isinstance(jaxmarl.make("MPE_simple_spread_v3").action_space("agent_0"), Discrete)
    facmac = jaxmarl.make("MPE_simple_facmac_3a_v1")
    assert isinstance(facmac.action_space("adversary_0"), Box)
    assert facmac.action_space("adversary_0").shape == (5,)


@pytest.mark.parametrize(
    "env_id, predators, prey, landmarks",
    [
        ("MPE_simple_facmac_3a_v1", 3, 1, 2),
        ("MPE_simple_facmac_6a_v1", 6, 2, 4),
        ("MPE_simple_facmac_9a_v1", 9, 3, 6),
    ],
)
def test_facmac_maps(env_id, predators, prey, landmarks):
    env = jaxmarl.make(env_id)
    assert env.agents == [f"adversary_{i}" for i in range(predators)]
    assert env.scripted_agents == [f"agent_{i}" for i in range(prey)]
    assert env.num_landmarks == landmarks
    assert env.score_function == "min"
    _, st = jax.eval_shape(env.reset_env, jax.random.PRNGKey(0))
    assert st.p_pos.shape == (predators + prey + landmarks, 2)
    assert st.c.shape[0] == predators + prey
    # obs: vel 2 + pos 2 + landmarks 2L + other agents 2(A+P-1) + prey velocities 2P
    size = 4 + 2 * landmarks + 2 * (predators + prey - 1) + 2 * prey
    assert env.observation_space("adversary_0").shape == (size,)


@pytest.mark.parametrize(
    "kwargs, sizes",
    [
        # 4 + 2 * landmark slots + 4 * agent slots (position + comm)
        ({"num_agent_neighbors": 1}, 4 + 6 + 4),
        ({"num_landmark_neighbors": 1}, 4 + 2 + 8),
        ({"num_agent_neighbors": 4, "num_landmark_neighbors": 5}, 4 + 10 + 16),
        ({"num_agents": 5}, 4 + 10 + 16),
        ({"num_agents": 2, "num_landmarks": 4}, 4 + 8 + 4),
    ],
)
def test_spread_obs_sizes(kwargs, sizes):
    env = jaxmarl.make("MPE_simple_spread_v3", **kwargs)
    assert {env.observation_space(a).shape for a in env.agents} == {(sizes,)}
    assert set(_obs_shapes(env).values()) == {(sizes,)}


@pytest.mark.parametrize(
    "kwargs, adv, good",
    [
        # full: 4 + 2L + 2(N-1) + 2 * (other good agents)
        ({}, 16, 14),
        ({"num_good_agents": 2}, 4 + 4 + 8 + 4, 4 + 4 + 8 + 2),
        ({"num_obs": 0}, 4 + 6 + 2, 4 + 6),
        # partial: 4 + 2 * landmark slots + 2 * agent slots (positions) + 2 * agent slots (vel)
        ({"num_agent_neighbors": 2}, 4 + 4 + 4 + 4, 4 + 4 + 4 + 4),
        ({"num_landmark_neighbors": 1}, 4 + 2 + 6 + 2, 4 + 2 + 6),
        ({"num_agent_neighbors": 5, "num_landmark_neighbors": 3}, 4 + 6 + 10 + 10, 4 + 6 + 10 + 10),
    ],
)
def test_tag_obs_sizes(kwargs, adv, good):
    env = jaxmarl.make("MPE_simple_tag_v3", **kwargs)
    shapes = _obs_shapes(env)
    for a in env.agents:
        expected = adv if a.startswith("adversary") else good
        assert env.observation_space(a).shape == (expected,), a
        assert shapes[a] == (expected,), a


@pytest.mark.parametrize(
    "kwargs, adv, good",
    [
        ({}, 8, 10),
        ({"num_good_agents": 3}, 6 + 6, 2 + 6 + 6),
        ({"num_landmark_neighbors": 1}, 2 + 4, 2 + 2 + 4),
        ({"num_agent_neighbors": 1}, 4 + 2, 2 + 4 + 2),
        ({"num_agent_neighbors": 3, "num_landmark_neighbors": 3}, 6 + 6, 2 + 6 + 6),
    ],
)
def test_adversary_obs_sizes(kwargs, adv, good):
    env = jaxmarl.make("MPE_simple_adversary_v3", **kwargs)
    shapes = _obs_shapes(env)
    for a in env.agents:
        expected = adv if a.startswith("adversary") else good
        assert env.observation_space(a).shape == (expected,), a
        assert shapes[a] == (expected,), a


@pytest.mark.parametrize(
    "kwargs, collector, deposit",
    [
        # 4 (+ D holding for collectors) + (A - 1) others * (4 + 2D) + T treasures * (2 + D)
        ({"num_collectors": 1, "num_deposits": 1, "num_treasures": 1}, 4 + 1 + 6 + 3, 4 + 6 + 3),
        (
            {"num_collectors": 4, "num_deposits": 3, "num_treasures": 5},
            4 + 3 + 6 * 10 + 5 * 5,
            4 + 6 * 10 + 5 * 5,
        ),
    ],
)
def test_collect_treasure_obs_sizes(kwargs, collector, deposit):
    env = jaxmarl.make("MPE_collect_treasure_v1", **kwargs)
    shapes = _obs_shapes(env)
    for a in env.agents:
        expected = collector if a.startswith("collector") else deposit
        assert env.observation_space(a).shape == shapes[a] == (expected,), a


def test_world_comm_sizes_follow_counts():
    env = jaxmarl.make("MPE_simple_world_comm_v3", num_good_agents=3, num_adversaries=2, num_forests=1)
    assert env.agents == ["leadadversary_0", "adversary_0", "agent_0", "agent_1", "agent_2"]
    # L = 1 obstacle + 2 food + 1 forest; base = 4 + 2L + 2(N-1) + F = 4 + 8 + 8 + 1
    shapes = _obs_shapes(env)
    for a in env.agents:
        expected = 21 + (2 * 3 + 4 if "adversary" in a else 2 * 2)
        assert env.observation_space(a).shape == (expected,), a
        assert shapes[a] == (expected,), a
