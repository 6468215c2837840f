"""Rule tests of the MPE rewards (mpe2's ``Scenario.reward`` / ``global_reward``), with
expected values computed by hand from hand-built states."""

from __future__ import annotations

import numpy as np
import pytest
from mpe_testutils import (
    ADVERSARY,
    CRYPTO,
    KEY,
    PUSH,
    REFERENCE,
    SIMPLE,
    SPEAKER,
    SPREAD,
    TAG,
    TAG_2V2,
    WORLD,
    bound,
    close,
    discrete,
    get,
    norm,
    state,
)


def test_simple_reward_is_minus_squared_distance():
    s = state(SIMPLE.env, [[0.1, 0.2], [0.4, -0.2]])
    close(SIMPLE.rewards(s)["agent_0"], -(0.3**2 + 0.4**2))


# ------------------------------------------------------------------- spread
#   A0 (0,0) and A1 (0.2,0) overlap (r 0.15 each); A2 (1,1) alone.
#   L0 (0,0.5): nearest A0 at 0.5;  L1 (0.5,0): nearest A1 at 0.3;  L2 (1,0.6): A2 at 0.4
SPREAD_POS = [[0.0, 0.0], [0.2, 0.0], [1.0, 1.0], [0.0, 0.5], [0.5, 0.0], [1.0, 0.6]]
SPREAD_GLOBAL = -(0.5 + 0.3 + 0.4)
SPREAD_LOCAL = [-1.0, -1.0, 0.0]


@pytest.mark.parametrize("local_ratio", [0.0, 0.25, 0.5, 1.0])
def test_spread_reward_mixes_global_cover_and_local_collisions(local_ratio):
    fns = SPREAD if local_ratio == 0.5 else get("MPE_simple_spread_v3", local_ratio=local_ratio)
    rew = fns.rewards(state(fns.env, SPREAD_POS))
    for i, a in enumerate(fns.env.agents):
        expected = (1 - local_ratio) * SPREAD_GLOBAL + local_ratio * SPREAD_LOCAL[i]
        close(rew[a], expected)


def test_spread_collision_penalty_counts_every_other_overlapping_agent():
    # all three agents overlap each other pairwise (d <= 0.2 < 0.3): local -2 each
    pos = [[0.0, 0.0], [0.2, 0.0], [0.1, 0.1], [0.0, 0.0], [0.2, 0.0], [0.1, 0.1]]
    rew = SPREAD.rewards(state(SPREAD.env, pos))
    for a in SPREAD.env.agents:
        close(rew[a], 0.5 * 0.0 + 0.5 * -2.0)
    # touching exactly at d = r_i + r_j = 0.3 is not a collision (strict <)
    pos = [[0.0, 0.0], [0.3, 0.0], [0.9, 0.9], [0.0, 0.0], [0.3, 0.0], [0.9, 0.9]]
    rew = SPREAD.rewards(state(SPREAD.env, pos))
    for a in SPREAD.env.agents:
        close(rew[a], 0.0)


def test_spread_global_uses_min_over_agents_per_landmark():
    # every agent near L0, nobody near L1 (at distance 1 / 1.2 / 0.8 from the agents)
    pos = [[0.0, 0.0], [0.0, 0.4], [0.0, -0.4], [0.0, 0.1], [0.0, -1.2], [0.0, 0.45]]
    # L0 (0,0.1): min 0.1 (A0); L1 (0,-1.2): min 0.8 (A2); L2 (0,0.45): min 0.05 (A1)
    rew = SPREAD.rewards(state(SPREAD.env, pos))
    for a in SPREAD.env.agents:
        close(rew[a], 0.5 * -(0.1 + 0.8 + 0.05))


# ---------------------------------------------------------------------- tag
def test_tag_contact_rewards():
    # good G at origin touched by A0 (d 0.1) and A1 (d 0.12 < 0.125); A2 too far (0.13)
    pos = [[0.1, 0.0], [0.0, -0.12], [-0.13, 0.0], [0.0, 0.0], [0.7, 0.7], [-0.7, 0.7]]
    rew = TAG.rewards(state(TAG.env, pos))
    for a in ["adversary_0", "adversary_1", "adversary_2"]:
        close(rew[a], 20.0)
    close(rew["agent_0"], -20.0)


@pytest.mark.parametrize(
    "good_pos, penalty",
    [
        ([0.0, 0.0], 0.0),
        ([0.89, -0.5], 0.0),
        ([0.95, -1.2], 0.5 + np.exp(0.4)),
        ([-0.93, 0.97], 0.3 + 0.7),
        ([1.0, 3.0], 1.0 + 10.0),
        ([-1.5, 0.0], np.exp(1.0)),
        ([2.2, 2.2], 10.0 + 10.0),
    ],
)
def test_tag_bound_penalty(good_pos, penalty):
    # hand values agree with the piecewise rule
    assert np.isclose(penalty, bound(good_pos[0]) + bound(good_pos[1]))
    pos = [[-0.5, -0.5], [-0.5, 0.5], [0.5, -0.5], good_pos, [0.0, 0.5], [0.0, -0.5]]
    rew = TAG.rewards(state(TAG.env, pos))
    close(rew["agent_0"], -penalty, rtol=1e-5)
    for a in ["adversary_0", "adversary_1", "adversary_2"]:
        close(rew[a], 0.0, atol=0)


def test_tag_bound_penalty_adds_to_contact_penalty():
    pos = [[0.95, 0.1], [-0.5, 0.5], [0.5, -0.5], [0.95, 0.0], [0.0, 0.5], [-0.5, -0.5]]
    rew = TAG.rewards(state(TAG.env, pos))
    close(rew["agent_0"], -10.0 - 0.5, rtol=1e-5)
    close(rew["adversary_1"], 10.0)


def test_tag_every_pair_counts_for_every_adversary():
    # 2 adversaries, 2 good agents: G0 touched by A0 and A1, G1 touched by A1 only.
    #   A0 (-0.1, 0)   G0 (0, 0)   A1 (0.1, 0)   G1 (0.2, 0)
    pos = [[-0.1, 0.0], [0.1, 0.0], [0.0, 0.0], [0.2, 0.0], [0.0, 0.8]]
    rew = TAG_2V2.rewards(state(TAG_2V2.env, pos))
    close(rew["adversary_0"], 30.0)
    close(rew["adversary_1"], 30.0)
    close(rew["agent_0"], -20.0)
    close(rew["agent_1"], -10.0)


# --------------------------------------------------------------- world_comm
# leadadversary_0, adversary_0..2, agent_0, agent_1, obstacle, food0, food1, forest0, forest1
WORLD_POS = [
    [0.1, 0.0],  # leader: touches G0 (0.1 < 0.075 + 0.045)
    [0.0, 0.5],  # A0: nearest good G0 at 0.5
    [-0.5, -0.5],  # A1: nearest good G0 at sqrt(0.5)
    [0.95, 0.3],  # A2: touches G1 (0.1)
    [0.0, 0.0],  # G0
    [0.95, 0.4],  # G1: bound penalty 0.5 on x
    [-0.6, 0.6],  # obstacle
    [0.0, -0.05],  # food0: eaten by G0 (0.05 < 0.045 + 0.03)
    [0.5, -0.5],  # food1
    [-0.6, -0.8],  # forest0
    [0.6, -0.8],  # forest1
]


def test_world_comm_rewards():
    rew = WORLD.rewards(state(WORLD.env, WORLD_POS))
    bonus = 5.0 * 2  # two (good, adversary) pairs in contact
    close(rew["leadadversary_0"], bonus - 0.1 * 0.1)
    close(rew["adversary_0"], bonus - 0.1 * 0.5)
    close(rew["adversary_1"], bonus - 0.1 * np.sqrt(0.5))
    close(rew["adversary_2"], bonus - 0.1 * 0.1)
    close(rew["agent_0"], -5.0 + 2.0 - 0.05 * 0.05)
    g1_food = min(norm([0.95 - 0.0, 0.4 + 0.05]), norm([0.95 - 0.5, 0.4 + 0.5]))
    close(rew["agent_1"], -5.0 - 2.0 * 0.5 - 0.05 * g1_food)


def test_world_comm_food_counts_each_food_touched():
    pos = [p[:] for p in WORLD_POS]
    pos[8] = [0.0, 0.05]  # food1 also within 0.075 of G0
    rew = WORLD.rewards(state(WORLD.env, pos))
    close(rew["agent_0"], -5.0 + 4.0 - 0.05 * 0.05)


def test_world_comm_no_contact_no_food():
    pos = [[-0.8, 0.8], [-0.4, 0.8], [0.0, 0.8], [0.4, 0.8], [0.0, 0.0], [0.0, -0.5]]
    pos += [[0.8, 0.0], [0.3, 0.0], [0.0, -0.9], [-0.6, -0.6], [0.6, -0.6]]
    rew = WORLD.rewards(state(WORLD.env, pos))
    close(rew["leadadversary_0"], -0.1 * norm([0.8, 0.8]))
    close(rew["adversary_2"], -0.1 * norm([0.4, 0.8]))
    close(rew["agent_0"], -0.05 * 0.3)
    close(rew["agent_1"], -0.05 * 0.4)


# ---------------------------------------------------------------- adversary
# adversary_0, agent_0, agent_1, landmark_0 (0.9, 0.9), landmark_1 (0, 0)
ADV_POS = [[0.6, 0.8], [1.0, 1.0], [-0.5, 0.0], [0.9, 0.9], [0.0, 0.0]]


def test_adversary_rewards_goal_1():
    rew = ADVERSARY.rewards(state(ADVERSARY.env, ADV_POS, goal=[1]))
    close(rew["adversary_0"], -1.0)
    # good: -min(|G0 - goal|, |G1 - goal|) + |A - goal| = -0.5 + 1
    close(rew["agent_0"], 0.5)
    close(rew["agent_1"], 0.5)


def test_adversary_rewards_goal_0():
    rew = ADVERSARY.rewards(state(ADVERSARY.env, ADV_POS, goal=[0]))
    adv = norm([0.6 - 0.9, 0.8 - 0.9])
    good = min(norm([0.1, 0.1]), norm([1.4, 0.9]))
    close(rew["adversary_0"], -adv)
    close(rew["agent_0"], -good + adv)
    close(rew["agent_1"], -good + adv)


# --------------------------------------------------------------------- push
PUSH_POS = [[0.0, 0.0], [0.3, 0.4], [1.0, 0.0], [0.0, -1.0]]  # adversary, agent, L0, L1


@pytest.mark.parametrize("goal", [0, 1])
def test_push_rewards(goal):
    rew = PUSH.rewards(state(PUSH.env, PUSH_POS, goal=[goal]))
    agent_dist = [np.sqrt(0.7**2 + 0.4**2), np.sqrt(0.3**2 + 1.4**2)][goal]
    adv_dist = 1.0
    close(rew["agent_0"], -agent_dist)
    close(rew["adversary_0"], agent_dist - adv_dist)


# ---------------------------------------------------------------- reference
# agent_0 (0,0), agent_1 (1,0); L0 (0,1), L1 (1,1), L2 (-1,0).
# goal = [2, 1]: agent_0 wants agent_1 at L2 (2 away); agent_1 wants agent_0 at L1 (sqrt 2).
REF_POS = [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.0]]


@pytest.mark.parametrize("local_ratio", [0.0, 0.5, 1.0])
def test_reference_rewards(local_ratio):
    fns = REFERENCE if local_ratio == 0.5 else get("MPE_simple_reference_v3", local_ratio=local_ratio)
    rew = fns.rewards(state(fns.env, REF_POS, goal=[2, 1]))
    own = [-2.0, -np.sqrt(2.0)]
    mean = (own[0] + own[1]) / 2
    close(rew["agent_0"], (1 - local_ratio) * mean + local_ratio * own[0])
    close(rew["agent_1"], (1 - local_ratio) * mean + local_ratio * own[1])


# ----------------------------------------------------------- speaker listener
@pytest.mark.parametrize("goal, expected", [(1, -(0.3**2 + 0.4**2)), (2, -(0.7**2 + 1.4**2))])
def test_speaker_listener_reward_is_minus_squared_distance(goal, expected):
    # speaker, listener (0.3,-0.4), L0 (-1,-1), L1 (0,0), L2 (1,1)
    pos = [[0.9, -0.9], [0.3, -0.4], [-1.0, -1.0], [0.0, 0.0], [1.0, 1.0]]
    rew = SPEAKER.rewards(state(SPEAKER.env, pos, goal=[goal]))
    close(rew["speaker_0"], expected)
    close(rew["listener_0"], expected)


# ------------------------------------------------------------------- crypto
CRYPTO_POS = [[0.1, 0.2], [0.3, 0.4], [0.5, 0.6], [-0.5, 0.0], [0.0, -0.5]]


@pytest.mark.parametrize(
    "eve, bob, eve_err, bob_err",
    [
        ([0, 0, 0, 0], [0, 0, 0, 0], 0.0, 0.0),  # nobody spoke: both terms 0
        ([0, 1, 0, 0], [1, 0, 0, 0], 2.0, 0.0),
        ([0, 0, 0, 0], [0.5, 0, 0, 0.5], 0.0, 0.5),  # eve silent: her term is 0
        ([0.5, 0.5, 0, 0], [0, 1, 0, 0], 0.5, 2.0),
        ([1, 0, 0, 0], [0, 0, 0, 0], 0.0, 0.0),  # eve right, bob silent
    ],
)
def test_crypto_rewards_goal_0(eve, bob, eve_err, bob_err):
    # goal colour e0 (goal landmark 0), key landmark 1; alice's own utterance is irrelevant
    c = [eve, bob, [0.3, 0.1, 0.9, 0.2]]
    rew = CRYPTO.rewards(state(CRYPTO.env, CRYPTO_POS, c=c, goal=[0, 1]))
    close(rew["eve_0"], -eve_err)
    close(rew["bob_0"], eve_err - bob_err)
    close(rew["alice_0"], eve_err - bob_err)


def test_crypto_rewards_use_goal_colour_not_key():
    # goal 1 (colour e1), key 0: bob says e1 (right), eve says e0 (wrong)
    c = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0, 0]]
    rew = CRYPTO.rewards(state(CRYPTO.env, CRYPTO_POS, c=c, goal=[1, 0]))
    close(rew["eve_0"], -2.0)
    close(rew["bob_0"], 2.0)
    close(rew["alice_0"], 2.0)


def test_crypto_rewards_after_a_step_use_the_new_utterances():
    s = state(CRYPTO.env, CRYPTO_POS, goal=[0, 1])
    _, _, rew, *_ = CRYPTO.step_env(KEY, s, discrete(CRYPTO.env, eve_0=1, bob_0=0, alice_0=2))
    close(rew["eve_0"], -2.0)
    close(rew["bob_0"], 2.0)
    close(rew["alice_0"], 2.0)
