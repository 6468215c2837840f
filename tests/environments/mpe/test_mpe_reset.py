"""Rule tests of MPE resets over a batch of 3000 vmapped resets: agents start uniformly
in [-1, 1]^2, landmarks in [-1, 1]^2 or [-0.9, 0.9]^2 (tag, world_comm, facmac),
[-0.95, 0.95]^2 (collect_treasure) or [-0.5, 0.5]^2 (formation; the line's in its own test),
velocities and utterances at zero, and goal landmarks drawn uniformly."""

from __future__ import annotations

import jax
import numpy as np
import pytest
from mpe_testutils import KEY, get

N = 3000
KEYS = jax.random.split(KEY, N)

# env id -> (landmark spawn half-width, number of goals)
SPAWN = {
    "MPE_simple_v3": (1.0, 0),
    "MPE_simple_spread_v3": (1.0, 0),
    "MPE_simple_tag_v3": (0.9, 0),
    "MPE_simple_world_comm_v3": (0.9, 0),
    "MPE_simple_adversary_v3": (1.0, 1),
    "MPE_simple_crypto_v3": (1.0, 2),
    "MPE_simple_push_v3": (1.0, 1),
    "MPE_simple_reference_v3": (1.0, 2),
    "MPE_simple_speaker_listener_v4": (1.0, 1),
    "MPE_simple_facmac_3a_v1": (0.9, 0),
    "MPE_collect_treasure_v1": (0.95, 0),
    "MPE_simple_formation_v1": (0.5, 0),
}


@pytest.fixture(scope="module", params=list(SPAWN))
def batch(request):
    fns = get(request.param)
    obs, st = fns.reset(KEYS)
    return request.param, fns.env, obs, jax.tree.map(np.asarray, st)


def test_agents_uniform_in_unit_square(batch):
    _, env, _, st = batch
    agents = st.p_pos[:, : env.num_world_agents].reshape(-1, 2)
    assert agents.min() >= -1.0 and agents.max() <= 1.0
    # the whole square is used (not a smaller box) and the distribution is uniform
    assert agents.min() < -0.99 and agents.max() > 0.99
    np.testing.assert_allclose(agents.mean(axis=0), 0.0, atol=0.05)
    np.testing.assert_allclose(agents.std(axis=0), 1.0 / np.sqrt(3.0), atol=0.02)


def test_landmarks_uniform_in_their_spawn_square(batch):
    env_id, env, _, st = batch
    r = SPAWN[env_id][0]
    landmarks = st.p_pos[:, env.num_world_agents :].reshape(-1, 2)
    assert landmarks.shape[0] == N * env.num_landmarks
    assert landmarks.min() >= -r and landmarks.max() <= r
    assert landmarks.min() < -0.98 * r and landmarks.max() > 0.98 * r
    np.testing.assert_allclose(landmarks.std(axis=0), r / np.sqrt(3.0), atol=0.03)


def test_velocities_utterances_and_step_start_at_zero(batch):
    _, env, _, st = batch
    assert st.p_vel.shape == (N, env.num_entities, 2)
    assert np.all(st.p_vel == 0.0)
    assert st.c.shape == (N, env.num_world_agents, env.dim_c)
    assert np.all(st.c == 0.0)
    assert np.all(st.step == 0)


def test_resets_differ_and_agents_and_landmarks_are_independent(batch):
    _, env, _, st = batch
    assert len({tuple(p) for p in st.p_pos[:, 0]}) == N
    agent_x = st.p_pos[:, 0, 0]
    landmark_x = st.p_pos[:, env.num_world_agents, 0]
    assert abs(np.corrcoef(agent_x, landmark_x)[0, 1]) < 0.1


def test_goals_cover_every_landmark_uniformly(batch):
    env_id, env, _, st = batch
    num_goals = SPAWN[env_id][1]
    assert st.goal.shape == (N, num_goals)
    for g in range(num_goals):
        counts = np.bincount(st.goal[:, g], minlength=env.num_landmarks)
        assert counts.shape == (env.num_landmarks,), counts  # no index out of range
        expected = N / env.num_landmarks
        assert np.all(np.abs(counts - expected) < 0.2 * expected), (g, counts)
    if num_goals == 2:
        # the two draws are independent: equal with probability 1 / num_landmarks
        same = np.mean(st.goal[:, 0] == st.goal[:, 1])
        assert abs(same - 1.0 / env.num_landmarks) < 0.05, same


def test_reset_obs_start_with_zero_velocity():
    fns = get("MPE_simple_spread_v3")
    obs, st = fns.reset(KEYS[:10])
    for i, a in enumerate(fns.env.agents):
        np.testing.assert_array_equal(np.asarray(obs[a][:, :2]), 0.0)
        np.testing.assert_allclose(np.asarray(obs[a][:, 2:4]), np.asarray(st.p_pos[:, i]), rtol=0, atol=0)
