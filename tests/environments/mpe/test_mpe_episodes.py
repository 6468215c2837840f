"""Rule tests of MPE episodes: the time limit (``max_steps``, 25 by default, mpe2's
``max_cycles``) truncates every agent, ``env.step`` resets automatically and reports the
pre-reset observation in ``info["final_obs"]``; ``terminate_on_success`` ends spread
and tag episodes early as a termination, not a truncation."""

from __future__ import annotations

import numpy as np
import pytest
from mpe_testutils import KEY, close, discrete, get, state

SIMPLE_5 = get("MPE_simple_v3", max_steps=5)
SPREAD = get("MPE_simple_spread_v3")
SPREAD_SUCCESS = get("MPE_simple_spread_v3", terminate_on_success=True)
TAG_SUCCESS = get(
    "MPE_simple_tag_v3", num_good_agents=2, num_adversaries=2, num_obs=1, terminate_on_success=True
)

# spread: three far-apart agents, landmarks far from them
SPREAD_FAR = [[-0.6, -0.6], [0.0, 0.6], [0.6, -0.6], [0.9, 0.9], [-0.9, 0.9], [0.0, -0.1]]


def test_simple_max_steps_5_truncates_and_resets():
    fns = SIMPLE_5
    s = state(fns.env, [[0.0, 0.0], [0.5, 0.5]])
    acts = discrete(fns.env, agent_0=2)  # +x every step
    p, v = 0.0, 0.0  # the agent's x, by hand: p += 0.1 v; v = 0.75 v + 0.5
    for t in range(1, 6):
        key = np.asarray([0, t], np.uint32)
        obs, s, rew, done, info = fns.step(key, s, acts)
        p, v = p + 0.1 * v, 0.75 * v + 0.5
        final = [v, 0.0, 0.5 - p, 0.5]
        close(info["final_obs"]["agent_0"], final)
        close(rew["agent_0"], -((0.5 - p) ** 2 + 0.25))
        if t < 5:
            assert not bool(done["__all__"]) and not bool(done["agent_0"]), t
            assert not bool(info["truncated"]["agent_0"]), t
            close(s.step, t)
            close(obs["agent_0"], final)  # no reset: obs is the final obs
    # step 5 = max_steps: the episode ends as a truncation
    assert bool(done["__all__"]) and bool(done["agent_0"])
    assert bool(info["truncated"]["agent_0"])
    # ... and the env reset: fresh episode, zero velocity, new positions
    close(s.step, 0)
    close(s.p_vel, np.zeros((2, 2)), atol=0)
    assert np.all(np.abs(np.asarray(s.p_pos)) <= 1.0)
    assert not np.allclose(np.asarray(s.p_pos[0]), [p, 0.0])
    close(obs["agent_0"], [0.0, 0.0, *np.asarray(s.p_pos[1] - s.p_pos[0])])
    # the new episode counts again from zero: five more steps to the next truncation
    for t in range(1, 6):
        obs, s, rew, done, info = fns.step(np.asarray([1, t], np.uint32), s, acts)
        assert bool(done["__all__"]) == (t == 5), t
    close(s.step, 0)


def test_spread_default_time_limit_is_25_for_every_agent():
    fns = SPREAD
    assert fns.env.max_steps == 25
    s = state(fns.env, SPREAD_FAR)
    acts = discrete(fns.env)
    # noop and far apart: positions never change, so the final obs is known by hand
    expected_final = [0, 0, -0.6, -0.6, 1.5, 1.5, -0.3, 1.5, 0.6, 0.5, 0.6, 1.2, 1.2, 0.0, 0, 0, 0, 0]
    for t in range(1, 26):
        obs, s, _, done, info = fns.step(np.asarray([2, t], np.uint32), s, acts)
        for a in fns.env.agents:
            assert bool(done[a]) == (t == 25), (t, a)
            assert bool(info["truncated"][a]) == (t == 25), (t, a)
        assert bool(done["__all__"]) == (t == 25), t
    close(info["final_obs"]["agent_0"], expected_final)
    close(s.step, 0)
    assert not np.allclose(np.asarray(obs["agent_0"]), expected_final)


def test_step_env_never_resets_nor_truncates():
    fns = SIMPLE_5
    s = state(fns.env, [[0.0, 0.0], [0.5, 0.5]], step=4)
    _, s2, _, terminated, _ = fns.step_env(KEY, s, discrete(fns.env))
    close(s2.step, 5)
    close(s2.p_pos, [[0.0, 0.0], [0.5, 0.5]], atol=0)
    assert not bool(terminated["__all__"])


# ---------------------------------------------------------- terminate_on_success
def spread_cover(l2_offset):
    # every landmark has an agent within 0.05; landmark_2's agent is l2_offset away
    agents = [[-0.6, -0.6], [0.0, 0.6], [0.6, -0.6]]
    landmarks = [[-0.55, -0.6], [0.0, 0.69], [0.6 + l2_offset[0], -0.6 + l2_offset[1]]]
    return agents + landmarks


def test_spread_terminates_when_every_landmark_is_covered():
    s = state(SPREAD_SUCCESS.env, spread_cover([-0.03, 0.04]))
    _, s2, _, done, info = SPREAD_SUCCESS.step(KEY, s, discrete(SPREAD_SUCCESS.env))
    assert bool(done["__all__"])
    for a in SPREAD_SUCCESS.env.agents:
        assert bool(done[a])
        assert not bool(info["truncated"][a])  # a termination, not a time limit
    close(s2.step, 0)  # auto-reset
    # pre-reset obs of agent_0: landmark rel (0.05, 0), (0.6, 1.29), (1.17, 0.04)
    close(info["final_obs"]["agent_0"][4:10], [0.05, 0.0, 0.6, 1.29, 1.17, 0.04])
    _, _, _, terminated, _ = SPREAD_SUCCESS.step_env(KEY, s, discrete(SPREAD_SUCCESS.env))
    assert all(bool(terminated[a]) for a in [*SPREAD_SUCCESS.env.agents, "__all__"])


def test_spread_does_not_terminate_with_an_uncovered_landmark():
    s = state(SPREAD_SUCCESS.env, spread_cover([0.0, 0.12]))  # 0.12 >= 0.1
    _, s2, _, done, _ = SPREAD_SUCCESS.step(KEY, s, discrete(SPREAD_SUCCESS.env))
    assert not bool(done["__all__"])
    close(s2.step, 1)


def test_spread_success_is_ignored_without_terminate_on_success():
    s = state(SPREAD.env, spread_cover([-0.03, 0.04]))
    _, s2, _, done, _ = SPREAD.step(KEY, s, discrete(SPREAD.env))
    assert not bool(done["__all__"])
    close(s2.step, 1)


@pytest.mark.parametrize("g1_x, caught", [(0.6, True), (0.7, False)])
def test_tag_terminates_when_every_good_agent_is_touched(g1_x, caught):
    # A0 (0,0) touches G0 (0.1,0); A1 (0.5,0.5) touches G1 at (0.6,0.5) but not at (0.7,0.5)
    pos = [[0.0, 0.0], [0.5, 0.5], [0.1, 0.0], [g1_x, 0.5], [-0.7, -0.7]]
    s = state(TAG_SUCCESS.env, pos)
    _, s2, rew, done, info = TAG_SUCCESS.step(KEY, s, discrete(TAG_SUCCESS.env))
    assert bool(done["__all__"]) == caught
    for a in TAG_SUCCESS.env.agents:
        assert bool(done[a]) == caught
        assert not bool(info["truncated"][a])
    close(s2.step, 0 if caught else 1)
    close(rew["adversary_0"], 20.0 if caught else 10.0)
