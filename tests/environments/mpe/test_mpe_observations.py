"""Rule tests of the MPE observations (mpe2's ``Scenario.observation``) on hand-built
states: layouts, relative positions, velocities, utterances, goal colours, forest
visibility in world_comm and nearest-first partial observability."""

from __future__ import annotations

import numpy as np
import pytest
from mpe_testutils import (
    ADVERSARY,
    CRYPTO,
    PUSH,
    REFERENCE,
    SIMPLE,
    SPEAKER,
    SPREAD,
    TAG,
    TAG_2V2,
    WORLD,
    close,
    get,
    state,
)


def test_simple_obs_is_velocity_and_landmark_offset():
    s = state(SIMPLE.env, [[0.1, 0.2], [0.4, -0.2]], vel=[[0.5, -0.6], [0.0, 0.0]])
    close(SIMPLE.get_obs(s)["agent_0"], [0.5, -0.6, 0.3, -0.4])


# ------------------------------------------------------------------- spread
SPREAD_POS = [[0.1, 0.2], [-0.5, 0.5], [0.7, -0.6], [0.0, 0.0], [0.5, 0.5], [-0.3, -0.9]]
SPREAD_VEL = [[0.3, -0.4], [0.05, 0.06], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]]
SPREAD_C = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]


def test_spread_obs_layout():
    obs = SPREAD.get_obs(state(SPREAD.env, SPREAD_POS, SPREAD_VEL, c=SPREAD_C))
    # [vel, pos, landmark rel (3x2), other agents rel (2x2), other agents comm (2x2)]
    close(
        obs["agent_0"],
        [0.3, -0.4, 0.1, 0.2, -0.1, -0.2, 0.4, 0.3, -0.4, -1.1, -0.6, 0.3, 0.6, -0.8, 3, 4, 5, 6],
    )
    close(
        obs["agent_1"],
        [0.05, 0.06, -0.5, 0.5, 0.5, -0.5, 1.0, 0.0, 0.2, -1.4, 0.6, -0.3, 1.2, -1.1, 1, 2, 5, 6],
    )
    close(
        obs["agent_2"],
        [0.0, 0.0, 0.7, -0.6, -0.7, 0.6, -0.2, 1.1, -1.0, -0.3, -0.6, 0.8, -1.2, 1.1, 1, 2, 3, 4],
    )


# A0 at the origin; landmarks at distance 0.9 (L0), 0.3 (L1), 0.5 (L2);
# agents A1 at distance 1.13, A2 at 0.45.
#
#        A1 (0.8, 0.8)
#   A2 (-0.4, 0.2)  L1 (0, 0.3)
#   L2 (-0.5, 0)  A0 (0, 0) . . . . L0 (0.9, 0)
PO_POS = [[0.0, 0.0], [0.8, 0.8], [-0.4, 0.2], [0.9, 0.0], [0.0, 0.3], [-0.5, 0.0]]


def test_spread_partial_observability_nearest_first():
    fns = get("MPE_simple_spread_v3", num_agent_neighbors=1, num_landmark_neighbors=2)
    obs = fns.get_obs(state(fns.env, PO_POS, c=SPREAD_C))
    close(obs["agent_0"], [0, 0, 0, 0, 0.0, 0.3, -0.5, 0.0, -0.4, 0.2, 5, 6])
    # agent_1 (0.8, 0.8): L0 at 0.81, L1 at 0.94 (L2 at 1.53); A0 at 1.13 (A2 at 1.34)
    close(obs["agent_1"], [0, 0, 0.8, 0.8, 0.1, -0.8, -0.8, -0.5, -0.8, -0.8, 1, 2])


def test_spread_partial_observability_zero_pads_missing_slots():
    fns = get("MPE_simple_spread_v3", num_agent_neighbors=4, num_landmark_neighbors=5)
    obs = fns.get_obs(state(fns.env, PO_POS, c=SPREAD_C))
    landmarks = [0.0, 0.3, -0.5, 0.0, 0.9, 0.0, 0, 0, 0, 0]
    others = [-0.4, 0.2, 0.8, 0.8, 0, 0, 0, 0]
    comm = [5, 6, 3, 4, 0, 0, 0, 0]
    close(obs["agent_0"], [0, 0, 0, 0, *landmarks, *others, *comm])


def test_spread_partial_observability_with_a_single_agent_pads_zeros():
    # One agent has no other agent to observe: its agent slots are all padding
    # (mpe2's padded_relative_positions / padded_comms fill them with zeros).
    fns = get("MPE_simple_spread_v3", num_agents=1, num_agent_neighbors=2)
    s = state(fns.env, [[0.1, 0.2], [0.4, -0.2]], vel=[[0.5, 0.5], [0.0, 0.0]])
    obs = fns.get_obs(s)
    close(obs["agent_0"], [0.5, 0.5, 0.1, 0.2, 0.3, -0.4, 0, 0, 0, 0, 0, 0, 0, 0])


# ---------------------------------------------------------------------- tag
TAG_POS = [[0.0, 0.0], [0.5, 0.0], [-0.5, 0.0], [0.0, 0.5], [0.3, -0.5], [-0.3, -0.5]]
TAG_VEL = [[0.1, 0.2], [0.0, 0.0], [0.0, 0.0], [0.7, -0.2], [0.0, 0.0], [0.0, 0.0]]


def test_tag_obs_layout_and_good_agent_velocities():
    obs = TAG.get_obs(state(TAG.env, TAG_POS, TAG_VEL))
    # [vel, pos, obstacles rel, other agents rel, good agents' velocities]
    close(obs["adversary_0"], [0.1, 0.2, 0, 0, 0.3, -0.5, -0.3, -0.5, 0.5, 0, -0.5, 0, 0, 0.5, 0.7, -0.2])
    close(obs["adversary_1"], [0, 0, 0.5, 0, -0.2, -0.5, -0.8, -0.5, -0.5, 0, -1.0, 0, -0.5, 0.5, 0.7, -0.2])
    # the good agent sees no adversary velocity (no other good agent: nothing)
    close(obs["agent_0"], [0.7, -0.2, 0, 0.5, 0.3, -1.0, -0.3, -1.0, 0, -0.5, 0.5, -0.5, -0.5, -0.5])


def test_tag_good_agent_sees_only_other_good_agents_velocities():
    # adversary_0, adversary_1, agent_0, agent_1, obstacle
    pos = [[0.0, 0.0], [0.5, 0.0], [0.0, 0.5], [0.5, 0.5], [-0.5, -0.5]]
    vel = [[0.1, 0.1], [0.2, 0.2], [0.3, 0.4], [-0.5, 0.6], [0.0, 0.0]]
    obs = TAG_2V2.get_obs(state(TAG_2V2.env, pos, vel))
    close(obs["agent_0"], [0.3, 0.4, 0, 0.5, -0.5, -1.0, 0, -0.5, 0.5, -0.5, 0.5, 0, -0.5, 0.6])
    close(obs["agent_1"], [-0.5, 0.6, 0.5, 0.5, -1.0, -1.0, -0.5, -0.5, 0, -0.5, -0.5, 0, 0.3, 0.4])
    close(obs["adversary_1"][-4:], [0.3, 0.4, -0.5, 0.6])


# A0 (0,0); A1 (0.5,0); A2 (-0.9,0); G (0,0.3); O0 (0.3,-0.5) at 0.58; O1 (-0.2,-0.4) at 0.45
TAG_PO_POS = [[0.0, 0.0], [0.5, 0.0], [-0.9, 0.0], [0.0, 0.3], [0.3, -0.5], [-0.2, -0.4]]
TAG_PO_VEL = [[0.1, 0.2], [0.3, 0.3], [0.4, 0.4], [0.7, -0.2], [0.0, 0.0], [0.0, 0.0]]


def test_tag_partial_observability_aligns_velocities_with_neighbours():
    fns = get("MPE_simple_tag_v3", num_agent_neighbors=2, num_landmark_neighbors=1)
    obs = fns.get_obs(state(fns.env, TAG_PO_POS, TAG_PO_VEL))
    # A0's nearest: G (0.3) then A1 (0.5); velocity slots: G's, then zeros for the adversary
    close(obs["adversary_0"], [0.1, 0.2, 0, 0, -0.2, -0.4, 0, 0.3, 0.5, 0, 0.7, -0.2, 0, 0])
    # G's nearest: A0 (0.3), A1 (0.58); both adversaries -> zero velocities
    close(obs["agent_0"], [0.7, -0.2, 0, 0.3, -0.2, -0.7, 0, -0.3, 0.5, -0.3, 0, 0, 0, 0])


def test_tag_partial_observability_zero_pads_missing_slots():
    fns = get("MPE_simple_tag_v3", num_agent_neighbors=5, num_landmark_neighbors=3)
    obs = fns.get_obs(state(fns.env, TAG_PO_POS, TAG_PO_VEL))
    landmarks = [-0.2, -0.4, 0.3, -0.5, 0, 0]
    others = [0, 0.3, 0.5, 0, -0.9, 0, 0, 0, 0, 0]
    vels = [0.7, -0.2, 0, 0, 0, 0, 0, 0, 0, 0]
    close(obs["adversary_0"], [0.1, 0.2, 0, 0, *landmarks, *others, *vels])


def test_tag_landmark_neighbours_without_obstacles_pads_zeros():
    # num_obs=0 is a valid count and num_landmark_neighbors=2 asks for two landmark slots:
    # with no obstacle at all both slots are padding (mpe2 pads with zeros).
    fns = get("MPE_simple_tag_v3", num_obs=0, num_landmark_neighbors=2)
    pos = [[0.0, 0.0], [0.5, 0.0], [-0.5, 0.0], [0.0, 0.5]]
    obs = fns.get_obs(state(fns.env, pos))
    close(obs["adversary_0"], [0, 0, 0, 0, 0, 0, 0, 0, 0.5, 0, -0.5, 0, 0, 0.5, 0, 0])
    close(obs["agent_0"], [0, 0, 0, 0.5, 0, 0, 0, 0, 0, -0.5, 0.5, -0.5, -0.5, -0.5])


# --------------------------------------------------------------- world_comm
# Forests F0 (-0.5, 0.5) and F1 (0.5, 0.5), radius 0.3:
#
#        +----F0----+      +----F1----+
#        |  a0  g0  |      |    a2    |
#        +----------+      +----------+
#                     g1 (0,0)
#                                 a1 (0.5,-0.5)
#                 L (0,-0.8)
#
# entities: leadadversary_0, adversary_0..2, agent_0..1, obstacle, food0, food1, F0, F1
WORLD_LAND = [[0.9, 0.0], [0.8, -0.8], [-0.8, -0.8], [-0.5, 0.5], [0.5, 0.5]]
WORLD_AGENTS = [[0.0, -0.8], [-0.5, 0.45], [0.5, -0.5], [0.55, 0.55], [-0.45, 0.5], [0.0, 0.0]]
WORLD_VEL = [[0.01, 0.02], [0.03, 0.04], [0.05, 0.06], [0.07, 0.08], [0.1, 0.2], [0.3, 0.4]]
WORLD_VEL += [[0.0, 0.0]] * 5
LEADER_SAID = [0.1, 0.2, 0.3, 0.4]


def world_obs(agent_pos):
    c = np.zeros((6, 4))
    c[0] = LEADER_SAID
    return WORLD.get_obs(state(WORLD.env, agent_pos + WORLD_LAND, WORLD_VEL, c=c))


def test_world_comm_adversary_layout():
    obs = world_obs(WORLD_AGENTS)
    # adversary_2 (in F1 alone): landmarks always visible, every other agent hidden
    expected = [0.07, 0.08, 0.55, 0.55]
    expected += [0.35, -0.55, 0.25, -1.35, -1.35, -1.35, -1.05, -0.05, -0.05, -0.05]
    expected += [0.0] * 10  # other agents (hidden)
    expected += [0.0] * 4  # good agents' velocities (hidden)
    expected += [-1.0, 1.0]  # in F0? no; in F1? yes
    expected += LEADER_SAID
    close(obs["adversary_2"], expected)


def test_world_comm_forest_visibility_state_1():
    obs = world_obs(WORLD_AGENTS)
    # adversary slices: others 14:24 (5 x 2), good velocities 24:28, forest flags 28:30, comm 30:34
    # adversary_0 (in F0): sees only g0 (also in F0). Others: L, a1, a2, g0, g1
    close(
        obs["adversary_0"][14:34], [0, 0, 0, 0, 0, 0, 0.05, 0.05, 0, 0, 0.1, 0.2, 0, 0, 1, -1, *LEADER_SAID]
    )
    # adversary_1 (outside): sees the outside agents L and g1. Others: L, a0, a2, g0, g1
    close(obs["adversary_1"][14:30], [-0.5, -0.3, 0, 0, 0, 0, 0, 0, -0.5, 0.5, 0, 0, 0.3, 0.4, -1, -1])
    # the leader sees everyone. Others: a0, a1, a2, g0, g1
    close(
        obs["leadadversary_0"][14:30],
        [-0.5, 1.25, 0.5, 0.3, 0.55, 1.35, -0.45, 1.3, 0, 0.8, 0.1, 0.2, 0.3, 0.4, -1, -1],
    )
    # good slices: others 14:24, forest flags 24:26, other good agent's velocity 26:28
    # agent_0 (in F0): sees a0 only. Others: L, a0, a1, a2, g1
    close(obs["agent_0"][14:28], [0, 0, -0.05, -0.05, 0, 0, 0, 0, 0, 0, 1, -1, 0, 0])
    # agent_1 (outside): sees L and a1, not g0 (in a forest). Others: L, a0, a1, a2, g0
    close(obs["agent_1"][14:28], [0, -0.8, 0, 0, 0.5, -0.5, 0, 0, 0, 0, -1, -1, 0, 0])
    # good agents do not hear the leader
    assert obs["agent_0"].shape == (28,)


def test_world_comm_forest_visibility_state_2():
    # the leader walks into F1 (with a2) and g1 into F0 (with a0, g0)
    agents = [p[:] for p in WORLD_AGENTS]
    agents[0] = [0.45, 0.45]
    agents[5] = [-0.55, 0.5]
    obs = world_obs(agents)
    # the leader in a forest still sees everyone
    close(
        obs["leadadversary_0"][14:30],
        [-0.95, 0.0, 0.05, -0.95, 0.1, 0.1, -0.9, 0.05, -1.0, 0.05, 0.1, 0.2, 0.3, 0.4, -1, 1],
    )
    # adversary_2 now shares F1 with the leader. Others: L, a0, a1, g0, g1
    close(obs["adversary_2"][14:30], [-0.1, -0.1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 1])
    # adversary_1 (outside) sees nobody: the leader and g1 are now in forests
    close(obs["adversary_1"][14:28], np.zeros(14))
    # adversary_0 (F0) sees both good agents and their velocities. Others: L, a1, a2, g0, g1
    close(obs["adversary_0"][14:28], [0, 0, 0, 0, 0, 0, 0.05, 0.05, -0.05, 0.05, 0.1, 0.2, 0.3, 0.4])
    # agent_0 and agent_1 see each other (and a0) in F0
    close(obs["agent_0"][14:28], [0, 0, -0.05, -0.05, 0, 0, 0, 0, -0.1, 0, 1, -1, 0.3, 0.4])
    close(obs["agent_1"][14:28], [0, 0, 0.05, -0.05, 0, 0, 0, 0, 0.1, 0, 1, -1, 0.1, 0.2])


# ---------------------------------------------------------------- adversary
# adversary_0 (0.6,0.8), agent_0 (1,1), agent_1 (-0.5,0); L0 (0.9,0.9), L1 (0,0)
ADV_POS = [[0.6, 0.8], [1.0, 1.0], [-0.5, 0.0], [0.9, 0.9], [0.0, 0.0]]


def test_adversary_obs_goal_only_for_good_agents():
    obs = ADVERSARY.get_obs(state(ADVERSARY.env, ADV_POS, goal=[1]))
    close(obs["adversary_0"], [0.3, 0.1, -0.6, -0.8, 0.4, 0.2, -1.1, -0.8])
    close(obs["agent_0"], [-1.0, -1.0, -0.1, -0.1, -1.0, -1.0, -0.4, -0.2, -1.5, -1.0])
    close(obs["agent_1"], [0.5, 0.0, 1.4, 0.9, 0.5, 0.0, 1.1, 0.8, 1.5, 1.0])
    obs = ADVERSARY.get_obs(state(ADVERSARY.env, ADV_POS, goal=[0]))
    close(obs["agent_0"][:2], [-0.1, -0.1])
    close(obs["agent_1"][:2], [1.4, 0.9])
    close(obs["adversary_0"], [0.3, 0.1, -0.6, -0.8, 0.4, 0.2, -1.1, -0.8])


def test_adversary_partial_observability_keeps_the_goal():
    fns = get("MPE_simple_adversary_v3", num_agent_neighbors=1, num_landmark_neighbors=1)
    obs = fns.get_obs(state(fns.env, ADV_POS, goal=[0]))
    close(obs["adversary_0"], [0.3, 0.1, 0.4, 0.2])
    # agent_1's nearest landmark is L1, but the goal L0 is still shown first
    close(obs["agent_1"], [1.4, 0.9, 0.5, 0.0, 1.1, 0.8])


# --------------------------------------------------------------------- push
PUSH_POS = [[0.0, 0.0], [0.3, 0.4], [1.0, 0.0], [0.0, -1.0]]
PUSH_VEL = [[0.1, 0.2], [-0.1, 0.05], [0.0, 0.0], [0.0, 0.0]]
PUSH_LANDMARK_COLOURS = [0.1, 0.9, 0.1, 0.1, 0.1, 0.9]


@pytest.mark.parametrize(
    "goal, goal_rel, colour",
    [(0, [0.7, -0.4], [0.25, 0.75, 0.25]), (1, [-0.3, -1.4], [0.25, 0.25, 0.75])],
)
def test_push_obs(goal, goal_rel, colour):
    obs = PUSH.get_obs(state(PUSH.env, PUSH_POS, PUSH_VEL, goal=[goal]))
    expected = [-0.1, 0.05, *goal_rel, *colour, 0.7, -0.4, -0.3, -1.4, *PUSH_LANDMARK_COLOURS, -0.3, -0.4]
    close(obs["agent_0"], expected)
    close(obs["adversary_0"], [0.1, 0.2, 1.0, 0.0, 0.0, -1.0, 0.3, 0.4])


# ---------------------------------------------------------------- reference
def test_reference_obs_goal_colour_and_other_utterance():
    pos = [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.0]]
    vel = [[0.1, 0.2], [0.3, 0.4], [0, 0], [0, 0], [0, 0]]
    c = np.zeros((2, 10))
    c[0, 1] = 1.0
    c[1, 7] = 1.0
    obs = REFERENCE.get_obs(state(REFERENCE.env, pos, vel, c=c, goal=[2, 0]))
    # agent i sees the colour of ITS goal landmark (the one the other must reach)
    close(obs["agent_0"], [0.1, 0.2, 0, 1, 1, 1, -1, 0, 0.25, 0.25, 0.75, *np.eye(10)[7]])
    close(obs["agent_1"], [0.3, 0.4, -1, 1, 0, 1, -2, 0, 0.75, 0.25, 0.25, *np.eye(10)[1]])


# -------------------------------------------------------- speaker listener
@pytest.mark.parametrize(
    "goal, colour", [(0, [0.65, 0.15, 0.15]), (1, [0.15, 0.65, 0.15]), (2, [0.15, 0.15, 0.65])]
)
def test_speaker_listener_obs(goal, colour):
    pos = [[0.9, -0.9], [0.3, -0.4], [-1.0, -1.0], [0.0, 0.0], [1.0, 1.0]]
    vel = [[0, 0], [0.2, 0.1], [0, 0], [0, 0], [0, 0]]
    c = [[0.2, 0.5, 0.9], [0.0, 0.0, 0.0]]
    obs = SPEAKER.get_obs(state(SPEAKER.env, pos, vel, c=c, goal=[goal]))
    close(obs["speaker_0"], colour)
    close(obs["listener_0"], [0.2, 0.1, -1.3, -0.6, -0.3, 0.4, 0.7, 1.4, 0.2, 0.5, 0.9])


# ------------------------------------------------------------------- crypto
@pytest.mark.parametrize("goal, key", [(1, 0), (0, 1), (1, 1)])
def test_crypto_obs(goal, key):
    pos = [[0.1, 0.2], [0.3, 0.4], [0.5, 0.6], [-0.5, 0.0], [0.0, -0.5]]
    c = [[1, 0, 0, 0], [0, 0, 1, 0], [0.1, 0.2, 0.3, 0.4]]
    obs = CRYPTO.get_obs(state(CRYPTO.env, pos, c=c, goal=[goal, key]))
    e = np.eye(4)
    close(obs["alice_0"], [*e[goal], *e[key]])
    close(obs["bob_0"], [*e[key], 0.1, 0.2, 0.3, 0.4])
    close(obs["eve_0"], [0.1, 0.2, 0.3, 0.4])
