"""Rule tests of MPE action decoding (mpe2's ``SimpleEnv._set_action``).

Rules:
- discrete movement ``0`` no-op, ``1`` -x, ``2`` +x, ``3`` -y, ``4`` +y, scaled by the
  agent's accel (5 by default; tag/world_comm adversaries 3, good agents 4);
- an agent that moves and speaks has ``5 * dim_c`` discrete actions ``move + 5 * word``;
  an immovable speaker's discrete action is the word itself; the utterance is one-hot;
- continuous ``[noop, -x, +x, -y, +y]`` clipped to [0, 1], ``u = [a2 - a1, a4 - a3] * accel``,
  followed by the ``dim_c`` utterance values (clipped too);
- silent agents' utterances are zero.
"""

from __future__ import annotations

import numpy as np
import pytest
from mpe_testutils import KEY, close, continuous, discrete, get, state

SIMPLE = get("MPE_simple_v3")
SIMPLE_C = get("MPE_simple_v3", action_type="Continuous")
TAG = get("MPE_simple_tag_v3")
TAG_C = get("MPE_simple_tag_v3", action_type="Continuous")
SPREAD = get("MPE_simple_spread_v3")
SPREAD_C = get("MPE_simple_spread_v3", action_type="Continuous")
WORLD = get("MPE_simple_world_comm_v3")
WORLD_C = get("MPE_simple_world_comm_v3", action_type="Continuous")
REFERENCE = get("MPE_simple_reference_v3")
REFERENCE_C = get("MPE_simple_reference_v3", action_type="Continuous")
SPEAKER = get("MPE_simple_speaker_listener_v4")
SPEAKER_C = get("MPE_simple_speaker_listener_v4", action_type="Continuous")
CRYPTO = get("MPE_simple_crypto_v3")
CRYPTO_C = get("MPE_simple_crypto_v3", action_type="Continuous")

FAR_TAG = [[-0.8, -0.8], [-0.8, 0.8], [0.8, -0.8], [0.8, 0.8], [0.0, 0.3], [0.0, -0.3]]

# world_comm: leadadversary_0, adversary_0..2, agent_0..1, obstacle, food x2, forest x2.
# All far apart and outside the forests (forests at the bottom corners).
FAR_WORLD = [
    [-0.6, 0.6],
    [-0.2, 0.6],
    [0.2, 0.6],
    [0.6, 0.6],
    [-0.6, 0.1],
    [0.6, 0.1],
    [0.0, -0.2],
    [-0.3, -0.2],
    [0.3, -0.2],
    [-0.7, -0.75],
    [0.7, -0.75],
]
WORLD_ADV = ["leadadversary_0", "adversary_0", "adversary_1", "adversary_2"]

# reference: agent_0, agent_1, landmarks 0..2
REF_POS = [[-0.5, 0.0], [0.5, 0.0], [0.0, 0.8], [-0.8, -0.8], [0.8, -0.8]]


def onehot(i: int, n: int) -> np.ndarray:
    return np.eye(n)[i]


# ------------------------------------------------------------ discrete moves
@pytest.mark.parametrize(
    "action, expected",
    [(0, [0.0, 0.0]), (1, [-0.5, 0.0]), (2, [0.5, 0.0]), (3, [0.0, -0.5]), (4, [0.0, 0.5])],
)
def test_discrete_moves_scaled_by_default_accel_5(action, expected):
    s = state(SIMPLE.env, [[0.0, 0.0], [0.5, 0.5]])
    _, s2, *_ = SIMPLE.step_env(KEY, s, discrete(SIMPLE.env, agent_0=action))
    close(s2.p_vel[0], expected, atol=0)


def test_tag_accel_is_3_for_adversaries_and_4_for_good_agents():
    s = state(TAG.env, FAR_TAG)
    acts = discrete(TAG.env, adversary_0=2, adversary_1=3, adversary_2=1, agent_0=4)
    _, s2, *_ = TAG.step_env(KEY, s, acts)
    close(s2.p_vel[:4], [[0.3, 0.0], [0.0, -0.3], [-0.3, 0.0], [0.0, 0.4]])


def test_world_comm_accel_and_leader_move_plus_word():
    s = state(WORLD.env, FAR_WORLD)
    # leader 13 = move 3 (-y) + 5 * word 2; adversary_0 +y; agent_0 -x; agent_1 +x
    acts = discrete(WORLD.env, leadadversary_0=13, adversary_0=4, agent_0=1, agent_1=2)
    obs, s2, *_ = WORLD.step_env(KEY, s, acts)
    close(s2.p_vel[:6], [[0.0, -0.3], [0.0, 0.3], [0.0, 0.0], [0.0, 0.0], [-0.4, 0.0], [0.4, 0.0]])
    close(s2.c[0], onehot(2, 4), atol=0)
    close(s2.c[1:], np.zeros((5, 4)), atol=0)  # silent agents
    for a in WORLD_ADV:  # every adversary hears the leader (last 4 entries)
        close(obs[a][30:34], onehot(2, 4), atol=0)


@pytest.mark.parametrize(
    "action, move, word",
    [(0, [0.0, 0.0], 0), (17, [0.5, 0.0], 3), (24, [0.0, 0.5], 4), (45, [0.0, 0.0], 9), (41, [-0.5, 0.0], 8)],
)
def test_reference_discrete_50_is_move_plus_5_word(action, move, word):
    s = state(REFERENCE.env, REF_POS, goal=[0, 1])
    obs, s2, *_ = REFERENCE.step_env(KEY, s, discrete(REFERENCE.env, agent_0=action, agent_1=49))
    close(s2.p_vel[0], move, atol=0)
    close(s2.c[0], onehot(word, 10), atol=0)
    # agent_1 hears agent_0's word in the last 10 entries of its observation
    close(obs["agent_1"][11:21], onehot(word, 10), atol=0)
    # agent_1's 49 = move 4 (+y) + 5 * word 9
    close(s2.p_vel[1], [0.0, 0.5], atol=0)
    close(obs["agent_0"][11:21], onehot(9, 10), atol=0)


# ---------------------------------------------------------- continuous moves
def test_continuous_actions_are_clipped_to_unit_interval():
    s = state(SIMPLE_C.env, [[0.0, 0.0], [0.5, 0.5]])
    # [noop, -x, +x, -y, +y] = [0.3, 1.7, -0.5, 0.2, 0.9] acts as [., 1.0, 0.0, 0.2, 0.9]
    act = continuous(SIMPLE_C.env, agent_0=[0.3, 1.7, -0.5, 0.2, 0.9])
    _, s2, *_ = SIMPLE_C.step_env(KEY, s, act)
    close(s2.p_vel[0], [(0.0 - 1.0) * 5 * 0.1, (0.9 - 0.2) * 5 * 0.1])
    # 1.7 on +x acts like 1.0; the no-op entry is ignored
    act = continuous(SIMPLE_C.env, agent_0=[5.0, 0.0, 1.7, -3.0, 0.0])
    _, s2, *_ = SIMPLE_C.step_env(KEY, s, act)
    close(s2.p_vel[0], [0.5, 0.0])


def test_continuous_actions_scaled_by_per_agent_accel():
    s = state(TAG_C.env, FAR_TAG)
    acts = continuous(
        TAG_C.env,
        adversary_0=[0.0, 0.0, 0.5, 0.0, 0.0],
        adversary_1=[0.0, 0.25, 0.0, 0.0, 1.0],
        agent_0=[0.0, 0.0, 0.0, 0.75, 0.0],
    )
    _, s2, *_ = TAG_C.step_env(KEY, s, acts)
    close(s2.p_vel[:4], [[0.15, 0.0], [-0.075, 0.3], [0.0, 0.0], [0.0, -0.3]])


def test_continuous_utterance_follows_the_movement_block():
    s = state(REFERENCE_C.env, REF_POS, goal=[0, 1])
    comm = [0.1, 1.5, -0.3, 0.4, 0.0, 0.0, 0.7, 1.0, 0.2, 0.05]
    acts = continuous(REFERENCE_C.env, agent_0=[0.0, 0.0, 1.0, 0.0, 0.0, *comm])
    obs, s2, *_ = REFERENCE_C.step_env(KEY, s, acts)
    said = [0.1, 1.0, 0.0, 0.4, 0.0, 0.0, 0.7, 1.0, 0.2, 0.05]  # clipped
    close(s2.c[0], said)
    close(obs["agent_1"][11:21], said)
    close(s2.p_vel[0], [0.5, 0.0])
    close(s2.c[1], np.zeros(10), atol=0)
    close(obs["agent_0"][11:21], np.zeros(10), atol=0)


def test_world_comm_continuous_leader_box_9():
    s = state(WORLD_C.env, FAR_WORLD)
    acts = continuous(WORLD_C.env, leadadversary_0=[0.0, 0.0, 0.0, 0.0, 1.0, 0.2, 0.4, 1.3, -1.0])
    obs, s2, *_ = WORLD_C.step_env(KEY, s, acts)
    close(s2.p_vel[0], [0.0, 0.3])
    close(s2.c[0], [0.2, 0.4, 1.0, 0.0])
    close(s2.c[1:], np.zeros((5, 4)), atol=0)
    for a in WORLD_ADV:
        close(obs[a][30:34], [0.2, 0.4, 1.0, 0.0])


# ------------------------------------------------------------ silent agents
def test_silent_agents_utterances_are_zero_discrete():
    pos = [[-0.6, -0.6], [0.0, 0.6], [0.6, -0.6], [0.0, 0.0], [0.9, 0.9], [-0.9, 0.9]]
    s = state(SPREAD.env, pos, c=np.ones((3, 2)))  # stale utterances in the state
    obs, s2, *_ = SPREAD.step_env(KEY, s, discrete(SPREAD.env, agent_0=4, agent_1=0, agent_2=2))
    close(s2.c, np.zeros((3, 2)), atol=0)
    for a in SPREAD.env.agents:
        close(obs[a][14:18], np.zeros(4), atol=0)


def test_silent_agents_utterances_are_zero_continuous():
    pos = [[-0.6, -0.6], [0.0, 0.6], [0.6, -0.6], [0.0, 0.0], [0.9, 0.9], [-0.9, 0.9]]
    s = state(SPREAD_C.env, pos, c=np.ones((3, 2)))
    acts = continuous(SPREAD_C.env, agent_0=[1.0] * 5, agent_1=[0.5] * 5, agent_2=[0.0, 0.0, 1.0, 1.0, 1.0])
    _, s2, *_ = SPREAD_C.step_env(KEY, s, acts)
    close(s2.c, np.zeros((3, 2)), atol=0)
    acts = continuous(WORLD_C.env, **{a: [1.0] * 5 for a in WORLD_C.env.agents[1:]})
    _, s2, *_ = WORLD_C.step_env(KEY, state(WORLD_C.env, FAR_WORLD, c=np.ones((6, 4))), acts)
    close(s2.c, np.zeros((6, 4)), atol=0)  # the leader said all zeros, the others are silent


# ----------------------------------------------------- immovable speakers
def test_speaker_listener_discrete_speaker_action_is_the_word():
    pos = [[0.0, 0.0], [-0.3, 0.0], [0.5, 0.5], [0.6, -0.5], [-0.5, -0.5]]
    s = state(SPEAKER.env, pos, goal=[1])
    obs, s2, *_ = SPEAKER.step_env(KEY, s, discrete(SPEAKER.env, speaker_0=2, listener_0=3))
    close(s2.c[0], [0.0, 0.0, 1.0], atol=0)
    close(s2.c[1], [0.0, 0.0, 0.0], atol=0)  # the listener is silent
    close(obs["listener_0"][8:11], [0.0, 0.0, 1.0], atol=0)
    close(s2.p_vel[1], [0.0, -0.5], atol=0)
    close(s2.p_vel[0], [0.0, 0.0], atol=0)  # the word does not move the speaker
    _, s2, *_ = SPEAKER.step_env(KEY, s, discrete(SPEAKER.env, speaker_0=0))
    close(s2.c[0], [1.0, 0.0, 0.0], atol=0)


def test_speaker_listener_continuous_speaker_box_3():
    pos = [[0.0, 0.0], [-0.3, 0.0], [0.5, 0.5], [0.6, -0.5], [-0.5, -0.5]]
    s = state(SPEAKER_C.env, pos, goal=[1])
    acts = continuous(SPEAKER_C.env, speaker_0=[0.2, 0.5, 1.4], listener_0=[0.0, 0.0, 0.0, 0.0, 1.0])
    obs, s2, *_ = SPEAKER_C.step_env(KEY, s, acts)
    close(s2.c[0], [0.2, 0.5, 1.0])
    close(obs["listener_0"][8:11], [0.2, 0.5, 1.0])
    close(s2.p_vel[1], [0.0, 0.5])
    close(s2.p_pos[0], [0.0, 0.0], atol=0)


def test_crypto_discrete_4_is_a_one_hot_utterance():
    pos = [[0.1, 0.2], [0.3, 0.4], [0.5, 0.6], [-0.5, 0.0], [0.0, -0.5]]
    s = state(CRYPTO.env, pos, goal=[1, 0])
    obs, s2, *_ = CRYPTO.step_env(KEY, s, discrete(CRYPTO.env, eve_0=1, bob_0=0, alice_0=3))
    close(s2.c, [onehot(1, 4), onehot(0, 4), onehot(3, 4)], atol=0)
    close(obs["eve_0"], onehot(3, 4), atol=0)
    close(obs["bob_0"], [*onehot(0, 4), *onehot(3, 4)], atol=0)  # [key, alice's word]


def test_crypto_continuous_box_4_is_the_utterance():
    pos = [[0.1, 0.2], [0.3, 0.4], [0.5, 0.6], [-0.5, 0.0], [0.0, -0.5]]
    s = state(CRYPTO_C.env, pos, goal=[1, 0])
    acts = continuous(CRYPTO_C.env, alice_0=[0.1, -1.0, 0.5, 2.0], eve_0=[0.3, 0.3, 0.3, 0.3])
    obs, s2, *_ = CRYPTO_C.step_env(KEY, s, acts)
    close(s2.c[2], [0.1, 0.0, 0.5, 1.0])
    close(s2.c[0], [0.3, 0.3, 0.3, 0.3])
    close(s2.c[1], np.zeros(4), atol=0)
    close(obs["eve_0"], [0.1, 0.0, 0.5, 1.0])
    close(s2.p_pos, pos, atol=0)
