"""Rule tests of ``simple_formation`` and ``simple_line``: the targets (a circle anchored
at the smallest polar angle of any agent; points evenly spaced between the landmarks),
the minimum-distance matching of agents to targets (every permutation for up to five
agents, the Hungarian algorithm beyond), the clipped shared reward, early success, the
observations and the line's reset rule. Expected matchings are found by trying every
permutation in NumPy."""

from __future__ import annotations

import itertools

import jax
import numpy as np
import pytest
from fast_compile import jit
from mpe_testutils import KEY, close, discrete, get, state

from jaxmarl.environments.mpe import assignment

FORMATION = get("MPE_simple_formation_v1", num_agents=3, terminate_on_success=True)
LINE = get("MPE_simple_line_v1", terminate_on_success=True)  # 4 agents
LINE7 = get("MPE_simple_line_v1", num_agents=7)


def best_matching(positions, targets) -> np.ndarray:
    """Matched distances of the cheapest permutation, by brute force in float64."""
    p, t = np.asarray(positions, np.float64), np.asarray(targets, np.float64)
    d = np.linalg.norm(p[:, None] - t[None], axis=-1)
    n = len(p)
    best = min(itertools.permutations(range(n)), key=lambda perm: d[np.arange(n), perm].sum())
    return d[np.arange(n), list(best)]


def polar(radius: float, degrees: float, centre=(0.0, 0.0)) -> list[float]:
    a = np.radians(degrees)
    return [centre[0] + radius * np.cos(a), centre[1] + radius * np.sin(a)]


# --------------------------------------------------------------- formation
# Landmark L at (0.1, -0.1); agents at polar angles 350, 100 and 200 degrees about it: the
# smallest angle in [0, 360) is 100 (350 is not -10), so the targets sit at 100, 220 and
# 340 degrees, radius 0.5.
CENTRE = (0.1, -0.1)
AGENTS = [polar(0.7, 350, CENTRE), polar(0.3, 100, CENTRE), polar(0.55, 200, CENTRE)]
TARGETS = [polar(0.5, a, CENTRE) for a in (100, 220, 340)]


def test_formation_targets_start_at_the_smallest_angle_and_agents_take_the_nearest_share():
    s = state(FORMATION.env, [*AGENTS, CENTRE])
    close(FORMATION.env.targets(s), TARGETS, atol=1e-6)
    d = best_matching(AGENTS, TARGETS)
    _, _, rew, done, info = FORMATION.step(KEY, s, discrete(FORMATION.env))
    for a in FORMATION.env.agents:
        close(rew[a], -np.mean(d), rtol=1e-6)
    assert not bool(done["__all__"])


def test_formation_reward_clips_each_distance_at_two():
    far = [-2.4, 1.9]  # more than 2 from every target
    s = state(FORMATION.env, [AGENTS[0], AGENTS[1], far, CENTRE])
    targets = np.asarray(FORMATION.env.targets(s))
    d = best_matching([AGENTS[0], AGENTS[1], far], targets)
    assert d.max() > 2.0
    close(FORMATION.rewards(s)["agent_0"], -np.mean(np.minimum(d, 2.0)), rtol=1e-6)


@pytest.mark.parametrize("offset, success", [(0.045, True), (0.055, False)])
def test_formation_succeeds_when_every_agent_is_within_0_05(offset, success):
    # On the circle at 30, 150, 270 degrees; agent 2 is `offset` outside it.
    pos = [polar(0.5, 30, CENTRE), polar(0.5, 150, CENTRE), polar(0.5 + offset, 270, CENTRE), CENTRE]
    _, s2, rew, done, info = FORMATION.step(KEY, state(FORMATION.env, pos), discrete(FORMATION.env))
    assert bool(done["__all__"]) == success
    assert not bool(info["truncated"]["agent_0"])
    close(rew["agent_1"], -offset / 3, atol=1e-6)


def test_success_on_the_last_step_is_a_termination_not_a_truncation():
    """The documented rule (MultiAgentEnv): mpe2 checks the time limit first and reports
    a truncation; we report the termination, which a learner must not bootstrap through."""
    pos = [polar(0.5, 30, CENTRE), polar(0.5, 150, CENTRE), polar(0.5, 270, CENTRE), CENTRE]
    last_step = FORMATION.env.max_steps - 1
    _, s2, _, done, info = FORMATION.step(
        KEY, state(FORMATION.env, pos, step=last_step), discrete(FORMATION.env)
    )
    assert bool(done["__all__"])
    for a in FORMATION.env.agents:
        assert bool(done[a]) and not bool(info["truncated"][a])
    close(s2.step, 0)  # the episode was over: automatic reset
    # Away from the circle the same step is a plain truncation.
    pos[0] = polar(0.2, 30, CENTRE)
    _, _, _, done, info = FORMATION.step(
        KEY, state(FORMATION.env, pos, step=last_step), discrete(FORMATION.env)
    )
    assert bool(done["__all__"]) and bool(info["truncated"]["agent_0"])


def test_formation_observation():
    vel = [[0.1, -0.2], [0.0, 0.3], [-0.4, 0.0], [0.0, 0.0]]
    s = state(FORMATION.env, [*AGENTS, CENTRE], vel)
    obs = FORMATION.get_obs(s)
    for i, a in enumerate(FORMATION.env.agents):
        expected = np.concatenate([vel[i], AGENTS[i], np.subtract(CENTRE, AGENTS[i])])
        close(obs[a], expected, atol=1e-6)


def test_formation_resets_its_landmark_in_the_inner_half_square():
    _, st = get("MPE_simple_formation_v1").reset(jax.random.split(KEY, 2000))
    landmark = np.asarray(st.p_pos[:, 4])
    assert np.abs(landmark).max() <= 0.5 and np.abs(landmark).max() > 0.49
    np.testing.assert_allclose(landmark.std(axis=0), 0.5 / np.sqrt(3.0), atol=0.02)


# -------------------------------------------------------------------- line
# Landmarks at (-0.5, 0.2) and (0.75, 0.2): four targets 1.25 / 3 apart along y = 0.2.
LINE_LANDMARKS = [[-0.5, 0.2], [0.75, 0.2]]
LINE_TARGETS = [[-0.5 + k * 1.25 / 3, 0.2] for k in range(4)]


def test_line_targets_are_evenly_spaced_between_the_landmarks():
    agents = [[0.7, 0.1], [-0.4, 0.5], [0.3, -0.3], [-0.1, 0.2]]
    s = state(LINE.env, agents + LINE_LANDMARKS)
    close(LINE.env.targets(s), LINE_TARGETS, atol=1e-6)
    d = best_matching(agents, LINE_TARGETS)
    close(LINE.rewards(s)["agent_2"], -np.mean(d), rtol=1e-6)
    _, _, _, done, _ = LINE.step(KEY, s, discrete(LINE.env))
    assert not bool(done["__all__"])


def test_line_succeeds_when_every_agent_is_on_a_target():
    agents = [LINE_TARGETS[k] for k in (2, 0, 3, 1)]
    agents[3] = [agents[3][0] + 0.03, agents[3][1] - 0.03]  # 0.042 away
    _, _, rew, done, info = LINE.step(KEY, state(LINE.env, agents + LINE_LANDMARKS), discrete(LINE.env))
    assert bool(done["__all__"]) and not bool(info["truncated"]["agent_0"])
    close(rew["agent_0"], -np.hypot(0.03, 0.03) / 4, atol=1e-6)


def test_a_single_agents_target_is_the_first_landmark():
    fns = get("MPE_simple_line_v1", num_agents=1)
    s = state(fns.env, [[0.3, 0.4], *LINE_LANDMARKS])
    close(fns.env.targets(s), [LINE_LANDMARKS[0]], atol=0)
    close(fns.rewards(s)["agent_0"], -np.hypot(0.8, 0.2), rtol=1e-6)


def test_seven_agents_are_matched_by_the_hungarian_algorithm():
    assert LINE7.env.num_agents > assignment.MAX_ENUMERATED
    rng = np.random.default_rng(0)
    for _ in range(3):
        agents = rng.uniform(-1.2, 1.2, (7, 2))
        s = state(LINE7.env, [*agents, *LINE_LANDMARKS])
        targets = np.asarray(LINE7.env.targets(s))
        d = best_matching(agents, targets)
        close(jit(LINE7.env.target_distances)(s), d, atol=1e-5)  # the same matched distances
        close(LINE7.rewards(s)["agent_6"], -np.mean(np.minimum(d, 2.0)), rtol=1e-5)


def test_line_observation():
    agents = [[0.7, 0.1], [-0.4, 0.5], [0.3, -0.3], [-0.1, 0.2]]
    vel = [[0.1, 0.0], [0.0, 0.2], [-0.3, 0.1], [0.0, -0.1], [0, 0], [0, 0]]
    obs = LINE.get_obs(state(LINE.env, agents + LINE_LANDMARKS, vel))
    for i, a in enumerate(LINE.env.agents):
        rel = np.subtract(LINE_LANDMARKS, agents[i]).ravel()
        close(obs[a], np.concatenate([vel[i], agents[i], rel]), atol=1e-6)


def test_line_reset_turns_the_second_landmark_in_5_degree_steps_until_it_fits():
    keys = jax.random.split(KEY, 500)
    _, st = LINE.reset(keys)
    start, end = np.asarray(st.p_pos[:, 4]), np.asarray(st.p_pos[:, 5])
    assert np.abs(start).max() <= 0.25
    np.testing.assert_allclose(np.linalg.norm(end - start, axis=1), 1.25, rtol=1e-5)
    assert np.all(np.abs(end) < 1.0)
    # The same draws by hand: the first of angle + k * 5 degrees that lands inside.
    for i, key in enumerate(keys[:50]):
        key_landmarks = jax.random.split(key, 3)[1]
        key_start, key_angle = jax.random.split(key_landmarks)
        s0 = np.asarray(jax.random.uniform(key_start, (2,), minval=-0.25, maxval=0.25), np.float64)
        angle = float(jax.random.uniform(key_angle, (), minval=0.0, maxval=2 * np.pi))
        while True:
            candidate = s0 + 1.25 * np.array([np.cos(angle), np.sin(angle)])
            if np.all(np.abs(candidate) < 1.0):
                break
            angle += np.radians(5.0)
        close(start[i], s0, atol=1e-7)
        close(end[i], candidate, atol=1e-5)


def test_one_turn_always_finds_a_place_for_the_second_landmark():
    """From every first landmark in [-0.25, 0.25]^2 the directions that fit form an arc
    wider than 5 degrees, so the 72 turns of the reset never all miss."""
    starts = np.stack(np.meshgrid(np.linspace(-0.25, 0.25, 11), np.linspace(-0.25, 0.25, 11)), -1).reshape(
        -1, 2
    )
    angles = np.radians(np.arange(0.0, 360.0, 0.25))
    ends = starts[:, None] + 1.25 * np.stack([np.cos(angles), np.sin(angles)], -1)[None]
    fits = np.all(np.abs(ends) < 1.0, axis=-1)  # (starts, angles)
    for row in fits:
        runs = np.diff(np.flatnonzero(np.diff(np.concatenate([[0], np.tile(row, 2), [0]]))))[::2]
        assert runs.max() * 0.25 > 5.0
