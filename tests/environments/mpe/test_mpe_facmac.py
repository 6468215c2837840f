"""Rule tests of FACMAC's cooperative predator-prey (``simple_facmac.py``): only the
predators act; the scripted prey picks the best of 100 sampled moves in the unit disc
as an (unscaled) force, or stays put when every move is blocked; observations are
cut to ``view_radius``; every predator gets +10 per (prey, predator) contact."""

from __future__ import annotations

import jax
import numpy as np
import pytest
from mpe_testutils import KEY, close, continuous, discrete, get, norm, state

FACMAC3 = get("MPE_simple_facmac_3a_v1")  # "min", view radius 1.5, continuous
FACMAC3_SUM = get("MPE_simple_facmac_v1", score_function="sum")
FACMAC3_FULL = get("MPE_simple_facmac_3a_v1", view_radius=None)
FACMAC6 = get("MPE_simple_facmac_6a_v1")

KEYS = list(jax.random.split(jax.random.PRNGKey(42), 16))
R_PRED, R_PREY = 0.075, 0.05

# 3a entities: adversary_0..2 (predators), agent_0 (prey), landmark_0..1.
#
#   A1 (-1.5, 0.1)                P (0,0)  A0 (0.3, 0)
#   A2 (-1.5,-0.1)
#
# "min": run from the nearest predator A0, i.e. towards -x.
# "sum": maximise the summed distance to all, i.e. away from A1/A2 towards +x, but
#        the straight path to +x runs through A0 and is blocked.
FLEE_POS = [[0.3, 0.0], [-1.5, 0.1], [-1.5, -0.1], [0.0, 0.0], [0.0, 1.8], [0.0, -1.8]]


def test_agents_are_only_the_predators():
    env = FACMAC3.env
    assert env.agents == ["adversary_0", "adversary_1", "adversary_2"]
    assert env.scripted_agents == ["agent_0"]
    s = state(env, FLEE_POS)
    obs, s2, rew, done, _ = FACMAC3.step_env(KEY, s, continuous(env))
    assert set(obs) == set(rew) == set(env.agents)
    assert set(done) == {*env.agents, "__all__"}
    assert s2.p_pos.shape == (6, 2)
    close(s2.c, np.zeros((4, 2)), atol=0)  # nobody speaks


def test_min_prey_flees_the_nearest_predator():
    s = state(FACMAC3.env, FLEE_POS)
    for key in KEYS:
        f = np.asarray(FACMAC3.scripted_forces(key, s))
        assert f.shape == (1, 2)
        assert norm(f[0]) <= 1.0 + 1e-6
        assert f[0, 0] < -0.7, f  # straight away from A0, towards A1/A2
        assert norm(f[0] - np.array([0.3, 0.0])) > 1.0


def test_sum_prey_maximises_total_distance_without_passing_through_agents():
    s = state(FACMAC3_SUM.env, FLEE_POS)
    others = np.asarray(FLEE_POS[:3])
    for key in KEYS:
        f = np.asarray(FACMAC3_SUM.scripted_forces(key, s))[0]
        assert norm(f) <= 1.0 + 1e-6
        assert f[0] > 0.3, f  # away from the two far predators
        # none of the 5 waypoints (k/5) f lies inside a predator (A0 blocks the +x path)
        for k in range(1, 6):
            waypoint = k / 5 * f
            dist = np.linalg.norm(others - waypoint, axis=1)
            assert np.all(dist >= R_PRED + R_PREY), (f, k, dist)


def test_prey_force_is_not_scaled_by_accel_and_obeys_max_speed():
    s = state(FACMAC3.env, FLEE_POS)
    acts = continuous(FACMAC3.env, adversary_0=[0.0, 0.0, 1.0, 0.0, 0.0])
    _, s2, *_ = FACMAC3.step_env(KEY, s, acts)
    prey_vel = np.asarray(s2.p_vel[3])
    # F = the chosen move (|F| <= 1, here F_x < -0.7): v = F * dt, not F * 4 * dt
    assert norm(prey_vel) <= 0.1 + 1e-7
    assert -0.1 - 1e-7 <= prey_vel[0] < -0.07
    close(s2.p_pos[3], [0.0, 0.0], atol=0)
    # predators use accel 3
    close(s2.p_vel[0], [0.3, 0.0])
    # a fast prey is capped at 1.3, a fast predator at 1.0
    vel = [[0.0, 0.0], [0.0, 2.0], [0.0, 0.0], [2.0, 0.0], [0.0, 0.0], [0.0, 0.0]]
    _, s2, *_ = FACMAC3.step_env(KEY, state(FACMAC3.env, FLEE_POS, vel), continuous(FACMAC3.env))
    close(norm(s2.p_vel[3]), 1.3)
    close(s2.p_vel[1], [0.0, 1.0])


def test_boxed_in_prey_stays_put_min():
    # "min" blocks moves that END inside a predator: a 15 x 15 grid of predators with
    # spacing 0.15 leaves no point of the unit disc around the prey farther than
    # 0.106 < 0.125 from a predator.
    grid = np.arange(15) * 0.15 - 1.05
    predators = np.stack(np.meshgrid(grid, grid), -1).reshape(-1, 2)
    fns = get("MPE_simple_facmac_v1", num_adversaries=225, num_landmarks=0, score_function="min")
    s = state(fns.env, [*predators.tolist(), [0.01, 0.02]])
    for key in KEYS[:4]:
        close(fns.scripted_forces(key, s), [[0.0, 0.0]], atol=0)


RING = [[0.1 * np.cos(a), 0.1 * np.sin(a)] for a in np.arange(8) * np.pi / 4]


def test_boxed_in_prey_stays_put_sum():
    # "sum" blocks a move if any of its 5 waypoints is inside another agent: a ring of 8
    # predators at distance 0.1 covers the disc of radius 0.2 holding the first waypoint.
    fns = get("MPE_simple_facmac_v1", num_adversaries=8, num_landmarks=0, score_function="sum")
    s = state(fns.env, [*RING, [0.0, 0.0]])
    for key in KEYS[:4]:
        close(fns.scripted_forces(key, s), [[0.0, 0.0]], atol=0)
    # open the ring on the +x side (the predators at -45, 0 and 45 degrees leave): the
    # first waypoint clears the ring only through the gap (within 59 degrees of +x)
    ring = [p[:] for p in RING]
    ring[7], ring[0], ring[1] = [0.0, 5.0], [0.0, -5.0], [-5.0, 0.0]
    s = state(fns.env, [*ring, [0.0, 0.0]])
    for key in KEYS[:4]:
        f = np.asarray(fns.scripted_forces(key, s))[0]
        assert norm(f) > 0.8, f
        assert f[0] > 0.4, f


# ------------------------------------------------------------ view radius
# A0 (0,0): L0 (1,0) seen; L1 (1.6,0) hidden; A1 (0,1.5) seen (on the radius);
# A2 (-2,0) hidden; prey (1,1) seen (1.41).
VIEW_POS = [[0.0, 0.0], [0.0, 1.5], [-2.0, 0.0], [1.0, 1.0], [1.0, 0.0], [1.6, 0.0]]
VIEW_VEL = [[0.1, -0.1], [0.0, 0.0], [0.05, 0.05], [0.3, 0.2], [0.0, 0.0], [0.0, 0.0]]


def test_view_radius_hides_far_entities_and_prey_velocity():
    obs = FACMAC3.get_obs(state(FACMAC3.env, VIEW_POS, VIEW_VEL))
    # [vel, pos, landmarks rel (2x2), other agents rel (A1, A2, prey), prey vel]
    close(obs["adversary_0"], [0.1, -0.1, 0, 0, 1, 0, 0, 0, 0, 1.5, 0, 0, 1, 1, 0.3, 0.2])
    # A2 is alone: its own velocity and position stay, everything else is hidden
    close(obs["adversary_2"], [0.05, 0.05, -2, 0, *[0.0] * 12])
    # A1 (0,1.5): sees A0 (1.5) and the prey (1.12), not the landmarks (1.80, 2.19)
    close(obs["adversary_1"], [0, 0, 0, 1.5, 0, 0, 0, 0, 0, -1.5, 0, 0, 1, -0.5, 0.3, 0.2])
    # the prey moves out of A0's view (1.70 away): its position and velocity vanish
    pos = [p[:] for p in VIEW_POS]
    pos[3] = [1.2, 1.2]
    obs = FACMAC3.get_obs(state(FACMAC3.env, pos, VIEW_VEL))
    close(obs["adversary_0"][10:16], [0, 0, 0, 0, 0, 0])
    close(obs["adversary_1"][10:16], [0, 0, 1.2, -0.3, 0.3, 0.2])


@pytest.mark.parametrize("view_radius", [None, -1.0])
def test_no_view_radius_shows_everything(view_radius):
    fns = FACMAC3_FULL if view_radius is None else get("MPE_simple_facmac_3a_v1", view_radius=view_radius)
    obs = fns.get_obs(state(fns.env, VIEW_POS, VIEW_VEL))
    close(obs["adversary_2"], [0.05, 0.05, -2, 0, 3, 0, 3.6, 0, 2, 0, 2, 1.5, 3, 1, 0.3, 0.2])


def test_small_view_radius():
    fns = get("MPE_simple_facmac_3a_v1", view_radius=0.5)
    pos = [[0.0, 0.0], [0.3, 0.39], [0.0, -0.51], [-0.4, 0.0], [0.49, 0.0], [0.0, 0.6]]
    obs = fns.get_obs(state(fns.env, pos, VIEW_VEL))
    close(obs["adversary_0"], [0.1, -0.1, 0, 0, 0.49, 0, 0, 0, 0.3, 0.39, 0, 0, -0.4, 0, 0.3, 0.2])


# ------------------------------------------------------------------ rewards
def test_reward_10_per_contact_for_every_predator_3a():
    # prey (0,0): A0 at 0.1 and A1 at 0.12 touch (< 0.125), A2 at 0.2 does not
    pos = [[0.1, 0.0], [0.0, 0.12], [0.0, -0.2], [0.0, 0.0], [0.8, 0.8], [-0.8, 0.8]]
    rew = FACMAC3.rewards(state(FACMAC3.env, pos))
    for a in FACMAC3.env.agents:
        close(rew[a], 20.0)
    far = [[0.5, 0.0], [0.0, 0.5], [-0.5, 0.0], [0.0, 0.0], [0.8, 0.8], [-0.8, 0.8]]
    rew = FACMAC3.rewards(state(FACMAC3.env, far))
    for a in FACMAC3.env.agents:
        close(rew[a], 0.0, atol=0)


def test_reward_10_per_contact_for_every_predator_6a():
    # prey0 (0,0) touched by A0; prey1 (0.5,0.5) touched by A1 and A2; A3..A5 far
    predators = [[0.1, 0.0], [0.6, 0.5], [0.5, 0.6], [-0.8, -0.8], [-0.8, 0.8], [0.8, -0.8]]
    prey = [[0.0, 0.0], [0.5, 0.5]]
    landmarks = [[0.0, -0.6], [-0.4, 0.0], [0.0, 0.9], [0.9, 0.0]]
    rew = FACMAC6.rewards(state(FACMAC6.env, predators + prey + landmarks))
    assert set(rew) == {f"adversary_{i}" for i in range(6)}
    for a in rew:
        close(rew[a], 30.0)


def test_discrete_facmac_predators_use_accel_3():
    fns = get("MPE_simple_facmac_3a_v1", action_type="Discrete")
    s = state(fns.env, [[0.3, 0.0], [-1.5, 0.1], [-1.5, -0.1], [0.0, 0.0], [0.0, 1.8], [0.0, -1.8]])
    _, s2, *_ = fns.step_env(KEY, s, discrete(fns.env, adversary_0=4, adversary_1=1))
    close(s2.p_vel[:3], [[0.0, 0.3], [-0.3, 0.0], [0.0, 0.0]])


def test_9a_prey_forces_shape():
    env = get("MPE_simple_facmac_9a_v1").env
    _, st = jax.eval_shape(env.reset_env, KEY)
    assert jax.eval_shape(env.scripted_forces, KEY, st).shape == (3, 2)
