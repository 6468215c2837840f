"""Rule tests of the MPE world physics (mpe2's ``World.integrate_state`` and
``get_collision_force``), on tiny hand-built states.

Rules:
- explicit Euler in mpe2's order: ``p += v * dt``, then ``v *= 1 - 0.25``, then
  ``v += F / m * dt`` (dt = 0.1, m = 1), then ``v`` is rescaled to ``max_speed``;
- the soft contact force ``F = 100 * (p_i - p_j) / |p_i - p_j| * softplus(-(d - r_i - r_j) / k) * k``
  (k = 1e-3) between colliding entities, summed over pairs;
- immovable entities never move and receive no force; non-colliding entities exert none.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from mpe_testutils import KEY, close, contact, continuous, discrete, get, state

SIMPLE = get("MPE_simple_v3")
SIMPLE_C = get("MPE_simple_v3", action_type="Continuous")
TAG = get("MPE_simple_tag_v3")
SPREAD = get("MPE_simple_spread_v3")
ADVERSARY = get("MPE_simple_adversary_v3")
SPEAKER = get("MPE_simple_speaker_listener_v4")
CRYPTO = get("MPE_simple_crypto_v3")

# simple_tag entities: adversary_0..2 (r 0.075), agent_0 (r 0.05), obstacles 0..1 (r 0.2)
R_ADV, R_GOOD, R_OBS = 0.075, 0.05, 0.2


def tag_state(pos, vel=None):
    return state(TAG.env, pos, vel)


# Far-apart tag layout (no contact anywhere):
#
#   A1 . . . . G        A = adversary, G = good agent, O = obstacle
#   .    O0    .
#   .    O1    .
#   A0 . . . . A2
FAR_TAG = [[-0.8, -0.8], [-0.8, 0.8], [0.8, -0.8], [0.8, 0.8], [0.0, 0.3], [0.0, -0.3]]


# ---------------------------------------------------------------- integration
def test_euler_order_position_uses_old_velocity_then_damping_then_force():
    # agent_0 at (0.1, -0.2) moving (0.4, 0.3), pushes +x (accel 5: u = (5, 0)).
    s = state(SIMPLE.env, [[0.1, -0.2], [0.5, 0.5]], vel=[[0.4, 0.3], [0.0, 0.0]])
    _, s2, *_ = SIMPLE.step_env(KEY, s, discrete(SIMPLE.env, agent_0=2))
    # p' = p + v*dt with the OLD velocity (semi-implicit Euler would give (0.18, -0.1775))
    close(s2.p_pos[0], [0.1 + 0.04, -0.2 + 0.03])
    # v' = v*(1-0.25) + u*dt  (damping before force; (v + u dt)*0.75 would give 0.675)
    close(s2.p_vel[0], [0.4 * 0.75 + 5.0 * 0.1, 0.3 * 0.75])
    close(s2.step, 1)


def test_damping_alone_removes_a_quarter_of_the_velocity():
    s = state(SIMPLE.env, [[0.0, 0.0], [0.5, 0.5]], vel=[[1.0, -2.0], [0.0, 0.0]])
    _, s2, *_ = SIMPLE.step_env(KEY, s, discrete(SIMPLE.env))
    close(s2.p_vel[0], [0.75, -1.5])
    close(s2.p_pos[0], [0.1, -0.2])
    # two steps: p'' = p' + v' dt
    _, s3, *_ = SIMPLE.step_env(KEY, s2, discrete(SIMPLE.env))
    close(s3.p_vel[0], [0.5625, -1.125])
    close(s3.p_pos[0], [0.175, -0.35])


def test_continuous_force_integrates_like_discrete():
    s = state(SIMPLE.env, [[0.0, 0.0], [0.5, 0.5]], vel=[[0.2, 0.0], [0.0, 0.0]])
    act = continuous(SIMPLE_C.env, agent_0=[0.0, 0.1, 0.6, 0.3, 0.5])
    _, s2, *_ = SIMPLE_C.step_env(KEY, s, act)
    # u = [0.6 - 0.1, 0.5 - 0.3] * 5 = (2.5, 1.0)
    close(s2.p_vel[0], [0.2 * 0.75 + 0.25, 0.1])
    close(s2.p_pos[0], [0.02, 0.0])


def test_max_speed_rescales_adversaries_to_1_and_good_agents_to_1_3():
    vel = [[0.0, 1.2], [0.8, 0.8], [1.2, 1.6], [1.6, 0.0], [0.0, 0.0], [0.0, 0.0]]
    s = tag_state(FAR_TAG, vel)
    _, s2, *_ = TAG.step_env(KEY, s, discrete(TAG.env, adversary_0=4))
    # adversary_0: 0.9 + 3*0.1 = 1.2 > 1.0 -> (0, 1.0)
    close(s2.p_vel[0], [0.0, 1.0])
    # adversary_1: (0.6, 0.6), speed 0.85 < 1 -> unchanged
    close(s2.p_vel[1], [0.6, 0.6])
    # adversary_2: (0.9, 1.2), speed 1.5 -> rescaled to (0.6, 0.8)
    close(s2.p_vel[2], [0.6, 0.8])
    # good agent: (1.2, 0) is under its cap of 1.3 (an adversary would be capped at 1)
    close(s2.p_vel[3], [1.2, 0.0])
    # positions moved with the old, uncapped velocities
    close(s2.p_pos[:4], np.asarray(FAR_TAG[:4]) + 0.1 * np.asarray(vel[:4]))

    s = tag_state(FAR_TAG, [[0.0, 0.0]] * 3 + [[0.0, -2.0]] + [[0.0, 0.0]] * 2)
    _, s2, *_ = TAG.step_env(KEY, s, discrete(TAG.env))
    # good agent: (0, -1.5) -> capped at 1.3
    close(s2.p_vel[3], [0.0, -1.3])


def test_simple_agent_has_no_speed_cap():
    s = state(SIMPLE.env, [[0.0, 0.0], [0.5, 0.5]], vel=[[10.0, 0.0], [0.0, 0.0]])
    _, s2, *_ = SIMPLE.step_env(KEY, s, discrete(SIMPLE.env, agent_0=2))
    close(s2.p_vel[0], [8.0, 0.0])


# -------------------------------------------------------------- contact forces
def test_contact_force_between_overlapping_adversaries():
    # A1 sits at (0.06, 0.08) from A0: d = 0.1 < 0.15 = r0 + r1
    pos = [[0.0, 0.0], [0.06, 0.08], [0.8, -0.8], [0.8, 0.8], [-0.6, 0.6], [-0.6, -0.6]]
    _, s2, *_ = TAG.step_env(KEY, tag_state(pos), discrete(TAG.env))
    f1 = contact(pos[1], pos[0], R_ADV, R_ADV)
    # |F| = 100 * softplus(50) * 1e-3 ~ 5, along (0.6, 0.8)
    np.testing.assert_allclose(f1, [3.0, 4.0], rtol=1e-9, atol=1e-9)
    close(s2.p_vel[1], f1 * 0.1)
    close(s2.p_vel[0], -f1 * 0.1)
    close(s2.p_vel[2:], np.zeros((4, 2)))
    # zero initial velocity: positions do not change in this step
    close(s2.p_pos, pos)


def test_contact_force_between_adversary_and_good_agent_uses_both_radii():
    pos = [[0.0, 0.0], [-0.8, 0.8], [0.8, -0.8], [0.1, 0.0], [-0.6, -0.6], [0.6, -0.6]]
    _, s2, *_ = TAG.step_env(KEY, tag_state(pos), discrete(TAG.env))
    f = contact(pos[3], pos[0], R_GOOD, R_ADV)  # d = 0.1, r = 0.125: ~ (2.5, 0)
    np.testing.assert_allclose(f, [2.5, 0.0], rtol=1e-9, atol=1e-9)
    close(s2.p_vel[3], f * 0.1)
    close(s2.p_vel[0], -f * 0.1)


def test_contact_forces_sum_over_pairs_and_obstacles_do_not_move():
    #        A1 at (0.1, 0)
    #   A0 at (0, 0)
    #   O0 at (0, -0.25), r = 0.2: overlaps both A0 (d 0.25 < 0.275) and A1 (d 0.269)
    pos = [[0.0, 0.0], [0.1, 0.0], [0.8, 0.8], [-0.8, 0.8], [0.0, -0.25], [-0.8, -0.8]]
    vel = [[0.0, 0.0]] * 4 + [[0.5, 0.5], [0.0, 0.0]]  # an (artificial) obstacle velocity
    _, s2, *_ = TAG.step_env(KEY, tag_state(pos, vel), discrete(TAG.env))
    f0 = contact(pos[0], pos[1], R_ADV, R_ADV) + contact(pos[0], pos[4], R_ADV, R_OBS)
    f1 = contact(pos[1], pos[0], R_ADV, R_ADV) + contact(pos[1], pos[4], R_ADV, R_OBS)
    close(s2.p_vel[0], f0 * 0.1)
    close(s2.p_vel[1], f1 * 0.1)
    # the obstacle is immovable: neither pushed nor integrated
    close(s2.p_pos[4], pos[4])
    close(s2.p_vel[4], [0.5, 0.5])


def test_contact_force_just_outside_touching_is_small_but_positive():
    # d = r0 + r1 + 0.002: softplus(-2) * 1e-3 * 100 = 0.0126928
    pos = [[0.0, 0.0], [0.152, 0.0], [0.8, -0.8], [0.8, 0.8], [-0.6, 0.6], [-0.6, -0.6]]
    _, s2, *_ = TAG.step_env(KEY, tag_state(pos), discrete(TAG.env))
    expected = 100.0 * np.log1p(np.exp(-2.0)) * 1e-3
    close(s2.p_vel[1], [expected * 0.1, 0.0], rtol=1e-4, atol=1e-9)
    close(s2.p_vel[0], [-expected * 0.1, 0.0], rtol=1e-4, atol=1e-9)


def test_far_apart_entities_feel_no_force():
    _, s2, *_ = TAG.step_env(KEY, tag_state(FAR_TAG), discrete(TAG.env))
    close(s2.p_vel, np.zeros((6, 2)), atol=1e-12)
    close(s2.p_pos, FAR_TAG, atol=0)


def test_non_colliding_landmarks_exert_no_force_in_spread():
    # agent_0 overlaps landmark_0 (spread landmarks do not collide): no force.
    # agent_1 and agent_2 (r 0.15, collide) overlap each other: pushed apart.
    pos = [[-0.5, -0.5], [0.5, 0.5], [0.7, 0.5], [-0.49, -0.5], [0.9, -0.9], [-0.9, 0.9]]
    _, s2, *_ = SPREAD.step_env(KEY, state(SPREAD.env, pos), discrete(SPREAD.env))
    close(s2.p_vel[0], [0.0, 0.0], atol=0)
    f = contact(pos[2], pos[1], 0.15, 0.15)  # d 0.2, r 0.3: ~ (10, 0)
    np.testing.assert_allclose(f, [10.0, 0.0], rtol=1e-9)
    close(s2.p_vel[2], f * 0.1)
    close(s2.p_vel[1], -f * 0.1)
    close(s2.p_pos[3:], pos[3:], atol=0)


def test_non_colliding_agents_exert_no_force_in_adversary():
    # simple_adversary agents do not collide: three overlapping agents stay still
    pos = [[0.0, 0.0], [0.05, 0.0], [0.0, 0.05], [0.02, 0.02], [0.5, 0.5]]
    _, s2, *_ = ADVERSARY.step_env(KEY, state(ADVERSARY.env, pos, goal=[0]), discrete(ADVERSARY.env))
    close(s2.p_vel, np.zeros((5, 2)), atol=0)
    close(s2.p_pos, pos, atol=0)


# ------------------------------------------------------------ immovable agents
def test_immovable_speaker_never_moves():
    pos = [[0.3, 0.3], [-0.3, 0.0], [0.5, 0.5], [0.6, -0.5], [-0.5, -0.5]]
    vel = [[0.2, -0.1], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]]
    s = state(SPEAKER.env, pos, vel, goal=[0])
    _, s2, *_ = SPEAKER.step_env(KEY, s, discrete(SPEAKER.env, speaker_0=2, listener_0=2))
    close(s2.p_pos[0], [0.3, 0.3], atol=0)
    close(s2.p_vel[0], [0.2, -0.1], atol=0)  # not integrated, not damped
    close(s2.p_vel[1], [0.5, 0.0])  # while the listener moves
    close(s2.p_pos[2:], pos[2:], atol=0)


def test_crypto_agents_never_move():
    pos = [[0.1, 0.2], [0.3, 0.4], [0.5, 0.6], [-0.5, 0.0], [0.0, -0.5]]
    s = state(CRYPTO.env, pos, goal=[0, 1])
    _, s2, *_ = CRYPTO.step_env(KEY, s, discrete(CRYPTO.env, eve_0=1, bob_0=2, alice_0=3))
    close(s2.p_pos, pos, atol=0)
    close(s2.p_vel, jnp.zeros((5, 2)), atol=0)
