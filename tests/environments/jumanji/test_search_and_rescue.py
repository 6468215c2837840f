"""SearchAndRescue rules on hand-built states, generator invariants, configuration errors,
user components, the conformance kit and rendering."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from fast_compile import COMPILER_OPTIONS
from fast_compile import jit as fast_jit

from jaxmarl.environments.jumanji.search_and_rescue import (
    AgentAndTargetObservationFn,
    IndividualRewardFn,
    RandomGenerator,
    RandomWalk,
    SearchAndRescue,
    SearcherState,
    State,
    TargetState,
)
from jaxmarl.environments.jumanji.search_and_rescue import constants as C
from jaxmarl.testing import check_env

STILL = RandomWalk(acc_std=0.0, vel_max=0.0)  # targets that do not move
# Two searchers, three targets, no target motion, speeds allowed down to 0.
ENV = SearchAndRescue(num_targets=3, time_limit=10, searcher_min_speed=0.0, target_dynamics=STILL)
STEP = fast_jit(ENV.step_env)
ZERO = {a: jnp.zeros(2, jnp.float32) for a in ENV.agents}


def make_state(searcher_pos, heading, speed, target_pos, found=None, vel=None, step=0, key=0) -> State:
    target_pos = jnp.asarray(target_pos, jnp.float32)
    num_t = target_pos.shape[0]
    return State(
        searchers=SearcherState(
            pos=jnp.asarray(searcher_pos, jnp.float32),
            heading=jnp.asarray(heading, jnp.float32),
            speed=jnp.asarray(speed, jnp.float32),
        ),
        targets=TargetState(
            pos=target_pos,
            vel=jnp.zeros((num_t, 2), jnp.float32) if vel is None else jnp.asarray(vel, jnp.float32),
            found=jnp.zeros(num_t, bool) if found is None else jnp.asarray(found),
        ),
        key=jax.random.PRNGKey(key),
        step=jnp.asarray(step, jnp.int32),
    )


def actions(rows) -> dict:
    return {a: jnp.asarray(r, jnp.float32) for a, r in zip(ENV.agents, rows, strict=True)}


FAR = [[0.9, 0.9], [0.9, 0.1], [0.1, 0.9]]  # targets away from the searchers


# --------------------------------------------------------------------------- motion
def test_searchers_turn_accelerate_clip_and_wrap():
    state = make_state([[0.99, 0.5], [0.5, 0.002]], [0.0, 1.5 * np.pi], [0.015, 0.01], FAR)
    # agent_0: full left turn (0.25 pi) and full acceleration (+0.005, clipped at 0.02);
    # agent_1: action beyond the box (clipped to -1, -1): turn right, slow down.
    _, new, *_ = STEP(jax.random.PRNGKey(0), state, actions([[1.0, 1.0], [-3.0, -5.0]]))
    heading = np.asarray(new.searchers.heading)
    np.testing.assert_allclose(heading, [0.25 * np.pi, 1.25 * np.pi], atol=1e-6)
    np.testing.assert_allclose(new.searchers.speed, [0.02, 0.005], atol=1e-7)
    expected = np.array([[0.99, 0.5], [0.5, 0.002]]) + np.array([0.02, 0.005])[:, None] * np.stack(
        [np.cos(heading), np.sin(heading)], -1
    )
    np.testing.assert_allclose(new.searchers.pos, expected % 1.0, atol=1e-6)
    assert new.searchers.pos[0, 0] < 0.01  # wrapped past x = 1
    assert new.searchers.pos[1, 1] > 0.99  # wrapped below y = 0
    # Headings wrap into [0, 2 pi); speed never drops below searcher_min_speed.
    state = make_state([[0.5, 0.5], [0.2, 0.2]], [1.9 * np.pi, 0.0], [0.0, 0.0], FAR)
    _, new, *_ = STEP(jax.random.PRNGKey(0), state, actions([[1.0, -1.0], [0.0, -1.0]]))
    np.testing.assert_allclose(new.searchers.heading[0], 0.15 * np.pi, atol=1e-5)
    np.testing.assert_array_equal(new.searchers.speed, [0.0, 0.0])
    np.testing.assert_array_equal(new.searchers.pos, state.searchers.pos)


def test_targets_walk_from_state_key_not_step_key():
    env = SearchAndRescue(num_targets=3, time_limit=10)
    state = make_state(
        [[0.5, 0.5], [0.2, 0.2]], [0.0, 0.0], [0.01, 0.01], FAR, vel=[[0.0025, 0.0], [0, 0], [0, 0]]
    )
    step = fast_jit(env.step_env)
    _, a, *_ = step(jax.random.PRNGKey(1), state, ZERO)
    _, b, *_ = step(jax.random.PRNGKey(2), state, ZERO)
    np.testing.assert_array_equal(a.targets.pos, b.targets.pos)  # the step key is not used
    key, target_key = jax.random.split(state.key)
    np.testing.assert_array_equal(a.key, key)
    vel = state.targets.vel + 1e-4 * jax.random.normal(target_key, (3, 2))
    norm = np.linalg.norm(vel, axis=1, keepdims=True)
    vel = np.where(norm > 0.002, 0.002 * vel / norm, vel)
    np.testing.assert_allclose(a.targets.vel, vel, atol=1e-9)
    np.testing.assert_allclose(a.targets.pos, (np.asarray(FAR) + vel) % 1.0, atol=1e-7)
    assert np.linalg.norm(a.targets.vel[0]) == pytest.approx(0.002, abs=1e-8)  # capped at vel_max
    _, c, *_ = step(jax.random.PRNGKey(1), state.replace(key=jax.random.PRNGKey(9)), ZERO)
    assert not np.array_equal(c.targets.pos, a.targets.pos)


# ----------------------------------------------------------------- finding, rewards
def test_finding_needs_range_and_view_cone_and_pays_once():
    # agent_0 at (0.5, 0.5) heading +x, speed 0.005: it moves to (0.505, 0.5).
    # Target 0 ahead within 0.02 (found), target 1 behind within 0.02 (not in the cone),
    # target 2 ahead but 0.025 away (out of range).
    state = make_state(
        [[0.5, 0.5], [0.1, 0.1]], [0.0, 0.0], [0.005, 0.005], [[0.52, 0.5], [0.49, 0.5], [0.53, 0.5]]
    )
    obs, new, reward, term, info = STEP(jax.random.PRNGKey(0), state, ZERO)
    np.testing.assert_array_equal(new.targets.found, [True, False, False])
    assert float(reward["agent_0"]) == 1.0 and float(reward["agent_1"]) == 0.0  # step 0: scale 1
    assert not bool(term["__all__"])
    assert float(info["metrics"]["percent_found"]) == pytest.approx(100 / 3)
    assert float(obs["agent_0"][ENV.view_size]) == pytest.approx(2 / 3)  # targets_remaining
    # The found target stays found and pays nothing more.
    _, newer, reward, *_ = STEP(jax.random.PRNGKey(0), new.replace(searchers=state.searchers), ZERO)
    np.testing.assert_array_equal(newer.targets.found, [True, False, False])
    assert float(reward["agent_0"]) == 0.0


def test_finding_across_the_torus_edge():
    # agent_0 near x = 1 heading +x; the target just past the edge at x = 0.004.
    state = make_state([[0.99, 0.3], [0.5, 0.5]], [0.0, 0.0], [0.0, 0.0], [[0.004, 0.3], *FAR[1:]])
    _, new, reward, *_ = STEP(jax.random.PRNGKey(0), state, ZERO)
    assert bool(new.targets.found[0]) and float(reward["agent_0"]) == 1.0


def test_shared_find_is_split_and_rewards_shrink_over_time():
    # Both searchers face target 0 from either side, at step 4 of 10: 0.5 * 0.6 each.
    state = make_state(
        [[0.505, 0.5], [0.535, 0.5]], [0.0, np.pi], [0.0, 0.0], [[0.52, 0.5], *FAR[1:]], step=4
    )
    _, new, reward, *_ = STEP(jax.random.PRNGKey(0), state, ZERO)
    np.testing.assert_allclose([reward["agent_0"], reward["agent_1"]], [0.3, 0.3], rtol=1e-6)
    assert all(reward[a].dtype == jnp.float32 for a in ENV.agents)
    # Unsplit and unscaled: each gets the full 1.
    env = SearchAndRescue(
        num_targets=3,
        time_limit=10,
        searcher_min_speed=0.0,
        target_dynamics=STILL,
        reward_fn=IndividualRewardFn(split_rewards=False, scale_rewards=False),
    )
    _, _, reward, *_ = fast_jit(env.step_env)(jax.random.PRNGKey(0), state, ZERO)
    np.testing.assert_array_equal([reward["agent_0"], reward["agent_1"]], [1.0, 1.0])


def test_all_found_terminates_and_time_limit_truncates():
    found_two = [False, True, True]
    state = make_state(
        [[0.5, 0.5], [0.1, 0.1]], [0.0, 0.0], [0.0, 0.0], [[0.51, 0.5], *FAR[1:]], found=found_two
    )
    step = jax.jit(ENV.step, compiler_options=COMPILER_OPTIONS)
    _, after, _, done, info = step(jax.random.PRNGKey(0), state, ZERO)
    assert all(bool(done[a]) for a in [*ENV.agents, "__all__"])
    assert not any(bool(info["truncated"][a]) for a in ENV.agents)
    assert int(after.step) == 0  # reset automatically
    assert float(info["metrics"]["percent_found"]) == pytest.approx(100.0)
    # The last step of the time limit with a target left: truncation.
    late = state.replace(step=jnp.asarray(9, jnp.int32), targets=state.targets.replace(pos=jnp.asarray(FAR)))
    _, _, _, done, info = step(jax.random.PRNGKey(0), late, ZERO)
    assert bool(done["__all__"]) and all(bool(info["truncated"][a]) for a in ENV.agents)
    # Finding the last target on that step: termination wins.
    _, _, _, done, info = step(jax.random.PRNGKey(0), state.replace(step=jnp.asarray(9, jnp.int32)), ZERO)
    assert bool(done["__all__"]) and not any(bool(info["truncated"][a]) for a in ENV.agents)
    # One step earlier nothing ends.
    _, _, _, done, _ = step(jax.random.PRNGKey(0), late.replace(step=jnp.asarray(8, jnp.int32)), ZERO)
    assert not bool(done["__all__"])


# ------------------------------------------------------------------- observations
def test_observation_layout_and_views():
    # Nobody moves (speed 0). agent_0 at (0.3, 0.5) faces +x: agent_1 straight ahead at
    # 0.2 (channel 0: 0.2 / 0.4), the unfound target 0 ahead at 0.08 (channel 2: 0.8),
    # the found target 1 ahead and to the left, at (+0.05, +0.02) (channel 1, on rays of
    # negative angle: Jumanji's angles are heading minus bearing). agent_1 faces -y and
    # sees nothing.
    targets = [[0.38, 0.5], [0.35, 0.52], [0.9, 0.1]]
    state = make_state(
        [[0.3, 0.5], [0.5, 0.5]], [0.0, 1.5 * np.pi], [0.0, 0.0], targets, found=[False, True, False]
    )
    obs, new, *_ = STEP(jax.random.PRNGKey(0), state, ZERO)
    v = C.NUM_VISION
    assert ENV.observation_space("agent_0").shape == (3 * v + 2 + 4,) == obs["agent_0"].shape
    view0 = np.asarray(obs["agent_0"][: 3 * v]).reshape(3, v)
    centre = [v // 2 - 1, v // 2]
    np.testing.assert_allclose(view0[0, centre], 0.5, rtol=1e-6)
    np.testing.assert_allclose(view0[2, centre], 0.8, rtol=1e-6)
    assert view0[0, 0] == view0[0, -1] == -1.0 and view0[2, 0] == -1.0
    seen = view0[1] >= 0
    np.testing.assert_allclose(view0[1][seen], np.hypot(0.05, 0.02) / 0.1, rtol=1e-5)
    rays = np.linspace(-0.4 * np.pi, 0.4 * np.pi, v)
    assert seen.any() and np.all(rays[seen] < 0)  # heading - bearing < 0
    assert view0[1, centre].max() == -1.0  # the found target is not on channel 2's rays
    view1 = np.asarray(obs["agent_1"][: 3 * v])
    assert np.all(view1 == -1.0)  # agent_1 sees nothing, not itself either
    shared = np.asarray(obs["agent_0"][3 * v :])
    np.testing.assert_allclose(shared, [2 / 3, 1.0, 0.3, 0.5, 0.5, 0.5], rtol=1e-6)
    np.testing.assert_array_equal(obs["agent_1"][3 * v :], obs["agent_0"][3 * v :])
    # The global state: the true state's layout.
    g = np.asarray(ENV.get_global_state(new))
    assert g.shape == (5 * 2 + 5 * 3 + 2,) and g.dtype == np.float32
    np.testing.assert_allclose(g[:4], [0.3, 0.5, 0.5, 0.5], rtol=1e-6)
    np.testing.assert_allclose(g[4:8], [1.0, 0.0, 0.0, -1.0], atol=1e-6)
    np.testing.assert_allclose(g[-5:], [0.0, 1.0, 0.0, 2 / 3, 0.1], rtol=1e-6)


def test_searchers_see_each_other_across_the_edge_and_out_of_range_not_at_all():
    # agent_1 0.3 to the right of agent_0 across x = 1; agent_0 faces +x: seen at 0.75.
    state = make_state([[0.85, 0.2], [0.15, 0.2]], [0.0, 0.0], [0.0, 0.0], FAR)
    obs, *_ = STEP(jax.random.PRNGKey(0), state, ZERO)
    np.testing.assert_allclose(obs["agent_0"][C.NUM_VISION // 2], 0.75, rtol=1e-5)
    # 0.45 apart (beyond the 0.4 range): not seen.
    state = make_state([[0.5, 0.2], [0.95, 0.2]], [0.0, 0.0], [0.0, 0.0], FAR)
    obs, *_ = STEP(jax.random.PRNGKey(0), state, ZERO)
    assert np.all(np.asarray(obs["agent_0"][: C.NUM_VISION]) == -1.0)


# ---------------------------------------------------------------------- generator
def test_generator_invariants_on_many_keys():
    gen = RandomGenerator(num_searchers=5, num_targets=30, env_size=2.5, searcher_min_speed=0.01)
    states = fast_jit(jax.vmap(gen))(jax.random.split(jax.random.PRNGKey(0), 4096))
    s, t = states.searchers, states.targets
    assert s.pos.shape == (4096, 5, 2) and t.pos.shape == (4096, 30, 2)
    assert np.all((s.pos >= 0) & (s.pos < 2.5)) and np.all((t.pos >= 0) & (t.pos < 2.5))
    assert np.all((s.heading >= 0) & (s.heading < 2 * np.pi))
    assert np.all((s.speed >= 0.01) & (s.speed <= 0.02))
    assert not np.any(t.found) and np.all(t.vel == 0) and np.all(states.step == 0)
    assert s.pos.dtype == t.pos.dtype == jnp.float32 and states.step.dtype == jnp.int32
    # Uniform: the mean position is the centre, the keys all differ.
    np.testing.assert_allclose(np.mean(t.pos), 1.25, atol=0.01)
    assert len({tuple(k) for k in np.asarray(states.key)}) == 4096


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_searchers": 0}, "num_searchers"),
        ({"num_targets": 0}, "num_targets"),
        ({"num_targets": 2.5}, "num_targets"),
        ({"env_size": 0.0}, "env_size"),
        ({"searcher_min_speed": 0.03}, "searcher_max_speed"),
        ({"searcher_min_speed": -0.1}, "searcher_min_speed"),
        ({"searcher_max_rotate": 1.5}, "searcher_max_rotate"),
        ({"searcher_max_accelerate": -1.0}, "searcher_max_accelerate"),
        ({"time_limit": 0}, "time_limit"),
        ({"time_limit": 10.0}, "time_limit"),
        ({"target_contact_range": 0.0}, "target_contact_range"),
        ({"env_size": 0.3}, "searcher_vision_range"),  # the default 0.4 does not fit
        ({"env_size": 0.01}, "target_contact_range"),
        ({"observation": AgentAndTargetObservationFn(env_size=2.0)}, "env_size"),
        ({"generator": RandomGenerator(searcher_max_speed=0.05)}, "initial speeds"),
    ],
)
def test_bad_configurations_raise(kwargs, message):
    with pytest.raises(ValueError, match=message):
        SearchAndRescue(**kwargs)


def test_bad_components_raise():
    for kwargs in (
        {"num_vision": 0},
        {"view_angle": 1.5},
        {"target_vision_range": 2.0},
        {"searcher_vision_range": -0.1},
        {"agent_radius": 0.0},
    ):
        with pytest.raises(ValueError, match=next(iter(kwargs))):
            AgentAndTargetObservationFn(**kwargs)
    with pytest.raises(ValueError, match="acc_std"):
        RandomWalk(acc_std=-1.0)
    with pytest.raises(ValueError, match="split_rewards"):
        IndividualRewardFn(split_rewards=1)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="generator keywords"):
        SearchAndRescue(generator=RandomGenerator(), num_targets=3)
    with pytest.raises(TypeError, match="env_size"):
        SearchAndRescue(generator=lambda key: None)
    with pytest.raises(TypeError, match="view_angle"):
        SearchAndRescue(observation=lambda state: None)
    with pytest.raises(TypeError, match="reward_fn"):
        SearchAndRescue(reward_fn=3)


class LineGenerator:
    """A user generator (no base class): searchers on the left edge facing +x, targets on
    a vertical line at x = 0.5."""

    num_searchers = 3
    num_targets = 4
    env_size = 1.0

    def __call__(self, key):
        del key
        ys = jnp.linspace(0.1, 0.9, self.num_targets)
        return State(
            searchers=SearcherState(
                pos=jnp.stack([jnp.full(3, 0.4), jnp.linspace(0.1, 0.9, 3)], -1),
                heading=jnp.zeros(3),
                speed=jnp.full(3, 0.02),
            ),
            targets=TargetState(
                pos=jnp.stack([jnp.full(self.num_targets, 0.5), ys], -1),
                vel=jnp.zeros((self.num_targets, 2)),
                found=jnp.zeros(self.num_targets, bool),
            ),
            key=jax.random.PRNGKey(0),
            step=jnp.zeros((), jnp.int32),
        )


def test_user_generator_and_reward_without_subclassing():
    def flat_reward(found, step, time_limit):
        del step, time_limit
        return 2.0 * jnp.sum(found, axis=1)

    env = SearchAndRescue(
        generator=LineGenerator(), reward_fn=flat_reward, target_dynamics=STILL, time_limit=20
    )
    assert env.agents == ["agent_0", "agent_1", "agent_2"] and env.num_targets == 4

    def run(key):
        obs, state = env.reset(key)
        go = {a: jnp.zeros(2) for a in env.agents}

        def body(state, _):
            _, state, reward, _, _ = env.step_env(key, state, go)
            return state, jnp.stack([reward[a] for a in env.agents])

        return jax.lax.scan(body, state, None, length=6)

    state, rewards = fast_jit(run)(jax.random.PRNGKey(0))
    # Straight ahead at 0.02 per step: the searchers at y = 0.1 and 0.9 reach the
    # targets there at x = 0.5 (y = 0.5 has no target, 0.367 and 0.633 are missed).
    np.testing.assert_array_equal(state.targets.found, [True, False, False, True])
    np.testing.assert_array_equal(rewards.sum(0), [2.0, 0.0, 2.0])


# ------------------------------------------------------------ conformance, render
def test_check_env():
    check_env(
        SearchAndRescue(num_targets=4, time_limit=25, target_contact_range=0.1),
        num_envs=4,
        compiler_options=COMPILER_OPTIONS,
    )


def test_render_draws_searchers_and_targets():
    state = make_state(
        [[0.25, 0.75], [0.75, 0.25]],
        [0.0, np.pi / 2],
        [0.0, 0.0],
        [[0.5, 0.5], [0.25, 0.25], [0.8, 0.8]],
        found=[False, True, False],
    )
    render = jax.jit(ENV.render, static_argnames="size", compiler_options=COMPILER_OPTIONS)
    img = np.asarray(render(state, size=200))
    assert img.shape == (200, 200, 3) and img.dtype == np.uint8
    hex_rgb = lambda c: np.round(np.asarray(c) * 255)  # noqa: E731
    np.testing.assert_array_equal(img[100, 100], hex_rgb(C.TARGET_LOST_COLOUR))  # (0.5, 0.5)
    np.testing.assert_array_equal(img[150, 50], hex_rgb(C.TARGET_FOUND_COLOUR))  # (0.25, 0.25): y up
    np.testing.assert_array_equal(img[50, 50], hex_rgb(C.SEARCHER_COLOUR))  # agent_0's arrow
    np.testing.assert_array_equal(img[50, 150], [255, 255, 255])  # empty
    np.testing.assert_array_equal(img[0, 0], [0, 0, 0])  # the frame
    # agent_0 points +x: its arrow reaches right of its centre, not above it; agent_1
    # points +y (up in the image).
    assert img[50, 50 + 2].max() < 100 and img[50 - 4, 50].min() > 200
    assert img[150 - 2, 150].max() < 100 and img[150, 150 + 4].min() > 200
    # Exactly size x size, and batches render under vmap.
    assert jax.eval_shape(lambda s: ENV.render(s, size=97), state).shape == (97, 97, 3)
    batch = jax.tree.map(lambda x: jnp.stack([x, x]), state)
    assert jax.vmap(lambda s: ENV.render(s, size=16))(batch).shape == (2, 16, 16, 3)
    with pytest.raises(ValueError, match="size"):
        ENV.render(state, size=0)
