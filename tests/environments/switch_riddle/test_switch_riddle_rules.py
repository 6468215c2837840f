"""Rule tests of the Switch Riddle (JaxMARL paper, Appendix B.4; DIAL's 4n - 6 day limit)
on hand-built states, with exact asserts: rewards of a right tell, a wrong tell, the
deadline and a no-op; termination; the action mask; the bulb; observations; the global
state; the random choice of the prisoner; the automatic reset."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxmarl
from jaxmarl.environments.switch_riddle import NONE, TELL, TOGGLE, State

# Tiny states compile far slower than they run: skip LLVM's backend optimisations.
OPTS = {"xla_backend_optimization_level": 0}

ENV = jaxmarl.make("switch_riddle")  # 3 prisoners, 6 days
STEP_ENV = jax.jit(ENV.step_env, compiler_options=OPTS)
STEP = jax.jit(ENV.step, compiler_options=OPTS)
GET_OBS = jax.jit(ENV.get_obs, compiler_options=OPTS)
MASKS = jax.jit(ENV.get_avail_actions, compiler_options=OPTS)
GLOBAL = jax.jit(ENV.get_global_state, compiler_options=OPTS)
KEY = jax.random.PRNGKey(0)


def state(in_room: int, visited: str, bulb: bool = False, day: int = 0) -> State:
    """A hand-built state; ``visited`` is one character per prisoner, ``x`` (has been in
    the room) or ``.`` (has not), e.g. ``"xx."``."""
    return State(
        bulb=jnp.asarray(bulb),
        in_room=jnp.int32(in_room),
        visited=jnp.asarray([c == "x" for c in visited]),
        step=jnp.int32(day),
    )


def acts(**by_agent: int) -> dict[str, jax.Array]:
    """Actions keyed by agent (unnamed agents: none)."""
    return {a: jnp.int32(by_agent.get(a, NONE)) for a in ENV.agents}


def flag(x: jax.Array) -> bool:
    return bool(np.asarray(x))


def test_time_limit_is_dial_4n_minus_6():
    assert ENV.max_steps == 6
    assert jaxmarl.make("switch_riddle", num_agents=2).max_steps == 2
    assert jaxmarl.make("switch_riddle", num_agents=5).max_steps == 14
    assert jaxmarl.make("switch_riddle", num_agents=5, max_steps=40).max_steps == 40


# ------------------------------------------------------------------ rewards
@pytest.mark.parametrize("teller", [0, 1, 2])
def test_right_tell_rewards_everyone_and_terminates(teller):
    # everyone has been in the room (today's prisoner included)
    obs, s, rew, term, info = STEP_ENV(KEY, state(teller, "xxx", day=3), acts(**{f"agent_{teller}": TELL}))
    assert [float(rew[a]) for a in ENV.agents] == [1.0, 1.0, 1.0]
    assert flag(term["__all__"]) and all(flag(term[a]) for a in ENV.agents)


def test_right_tell_on_the_first_visit_of_the_last_prisoner():
    # agent_2 is in the room for the first time today: visited already counts it
    _, s, rew, term, _ = STEP_ENV(KEY, state(2, "xxx", day=2), acts(agent_2=TELL))
    assert float(rew["agent_0"]) == 1.0 and flag(term["__all__"])


@pytest.mark.parametrize("visited", ["xx.", "x.x", ".xx", "x..", ".x.", "..x"])
def test_wrong_tell_punishes_everyone_and_terminates(visited):
    teller = visited.index("x")
    _, _, rew, term, _ = STEP_ENV(KEY, state(teller, visited, day=1), acts(**{f"agent_{teller}": TELL}))
    assert [float(rew[a]) for a in ENV.agents] == [-1.0, -1.0, -1.0]
    assert flag(term["__all__"])


def test_custom_rewards():
    env = jaxmarl.make("switch_riddle", reward_all_live=2.5, reward_all_die=-7.0)
    step = jax.jit(env.step_env, compiler_options=OPTS)
    _, _, rew, _, _ = step(KEY, state(0, "xxx"), acts(agent_0=TELL))
    assert float(rew["agent_1"]) == 2.5
    _, _, rew, _, _ = step(KEY, state(0, "x.x"), acts(agent_0=TELL))
    assert float(rew["agent_1"]) == -7.0


@pytest.mark.parametrize("action", [NONE, TOGGLE])
def test_no_tell_gives_zero_and_goes_on(action):
    _, s, rew, term, _ = STEP_ENV(KEY, state(1, "xxx", day=2), acts(agent_1=action))
    assert [float(rew[a]) for a in ENV.agents] == [0.0, 0.0, 0.0]
    assert not flag(term["__all__"]) and not any(flag(term[a]) for a in ENV.agents)
    assert int(s.step) == 3


def test_only_the_prisoner_in_the_room_acts():
    # the others tell and toggle: ignored
    _, s, rew, term, _ = STEP_ENV(KEY, state(1, ".x.", day=0), acts(agent_0=TELL, agent_2=TOGGLE))
    assert float(rew["agent_0"]) == 0.0 and not flag(term["__all__"])
    assert not flag(s.bulb)


# --------------------------------------------------- deadline and the episode
def test_deadline_terminates_with_zero_reward_not_truncation():
    # day 5 of 6: whatever the prisoner does short of telling, the riddle ends unsolved
    for action in (NONE, TOGGLE):
        obs, s, rew, done, info = STEP(KEY, state(0, "xxx", day=5), acts(agent_0=action))
        assert flag(done["__all__"]) and all(flag(done[a]) for a in ENV.agents)
        assert [float(rew[a]) for a in ENV.agents] == [0.0, 0.0, 0.0]
        assert not any(flag(info["truncated"][a]) for a in ENV.agents)
    # the day before, the episode goes on
    _, _, _, done, _ = STEP(KEY, state(0, "xxx", day=4), acts())
    assert not flag(done["__all__"])


def test_tell_on_the_last_day_still_counts():
    _, _, rew, done, info = STEP(KEY, state(2, "xxx", day=5), acts(agent_2=TELL))
    assert float(rew["agent_0"]) == 1.0 and flag(done["__all__"])
    assert not flag(info["truncated"]["agent_0"])


def test_step_resets_after_a_tell():
    obs, s, _, done, info = STEP(KEY, state(1, "xxx", bulb=True, day=3), acts(agent_1=TELL))
    assert flag(done["__all__"])
    # a fresh episode: day 0, bulb off, only today's prisoner has visited
    assert int(s.step) == 0 and not flag(s.bulb)
    np.testing.assert_array_equal(np.asarray(s.visited), np.arange(3) == int(s.in_room))
    np.testing.assert_array_equal(np.asarray(obs[f"agent_{int(s.in_room)}"]), [1, 0])
    # final_obs is the observation of the state the tell led to (no reset in between)
    final = {a: np.asarray(info["final_obs"][a]) for a in ENV.agents}
    assert sum(int(o[0]) for o in final.values()) == 1


def test_a_full_episode_lasts_six_days_without_a_tell():
    s = state(0, "x..")
    for day in range(1, 7):
        _, s, rew, done, _ = STEP(jax.random.PRNGKey(day), s, acts())
        assert flag(done["__all__"]) == (day == 6), day
        assert float(rew["agent_0"]) == 0.0
    assert int(s.step) == 0


# ------------------------------------------------------------- bulb and room
def test_toggle_flips_the_bulb_and_none_keeps_it():
    _, s, _, _, _ = STEP_ENV(KEY, state(2, "..x", bulb=False), acts(agent_2=TOGGLE))
    assert flag(s.bulb)
    _, s, _, _, _ = STEP_ENV(KEY, state(2, "..x", bulb=True), acts(agent_2=TOGGLE))
    assert not flag(s.bulb)
    _, s, _, _, _ = STEP_ENV(KEY, state(2, "..x", bulb=True), acts(agent_2=NONE))
    assert flag(s.bulb)


def test_initial_bulb_state():
    on = jaxmarl.make("switch_riddle", initial_bulb_state=True)
    _, s = jax.jit(on.reset, compiler_options=OPTS)(KEY)
    assert flag(s.bulb)
    _, s = ENV.reset(KEY)
    assert not flag(s.bulb)


def test_next_prisoner_is_marked_visited():
    keys = jax.random.split(KEY, 64)
    step = jax.jit(jax.vmap(ENV.step_env, in_axes=(0, None, None)), compiler_options=OPTS)
    _, s, _, _, _ = step(keys, state(0, "x..", day=1), acts())
    in_room = np.asarray(s.in_room)
    expected = (np.arange(3)[None, :] == in_room[:, None]) | np.array([True, False, False])
    np.testing.assert_array_equal(np.asarray(s.visited), expected)


def test_prisoner_of_the_day_is_uniform():
    # 30000 draws: each prisoner's share within 0.015 of 1/3 (about 8 standard deviations)
    keys = jax.random.split(jax.random.PRNGKey(1), 30000)
    step = jax.jit(jax.vmap(ENV.step_env, in_axes=(0, None, None)), compiler_options=OPTS)
    _, s, _, _, _ = step(keys, state(0, "x.."), acts())
    share = np.bincount(np.asarray(s.in_room), minlength=3) / 30000
    np.testing.assert_allclose(share, 1 / 3, atol=0.015)
    _, s0 = jax.vmap(ENV.reset)(keys)
    share = np.bincount(np.asarray(s0.in_room), minlength=3) / 30000
    np.testing.assert_allclose(share, 1 / 3, atol=0.015)


# ------------------------------------------------------- mask and observation
@pytest.mark.parametrize("in_room", [0, 1, 2])
def test_mask_allows_only_the_prisoner_in_the_room_to_act(in_room):
    masks = MASKS(state(in_room, "xxx"))
    for i, a in enumerate(ENV.agents):
        expected = [True, True, True] if i == in_room else [True, False, False]
        assert np.asarray(masks[a]).tolist() == expected, a
        assert masks[a].dtype == jnp.bool_


@pytest.mark.parametrize("bulb", [False, True])
def test_only_the_prisoner_in_the_room_sees_the_bulb(bulb):
    obs = GET_OBS(state(1, ".x.", bulb=bulb, day=4))
    assert np.asarray(obs["agent_0"]).tolist() == [0, 0]
    assert np.asarray(obs["agent_1"]).tolist() == [1, int(bulb)]
    assert np.asarray(obs["agent_2"]).tolist() == [0, 0]
    assert obs["agent_1"].dtype == jnp.int32


def test_observation_after_a_toggle_shows_the_new_prisoner_the_new_bulb():
    obs, s, _, _, _ = STEP_ENV(KEY, state(0, "x..", bulb=False), acts(agent_0=TOGGLE))
    today = int(s.in_room)
    for i, a in enumerate(ENV.agents):
        assert np.asarray(obs[a]).tolist() == ([1, 1] if i == today else [0, 0]), a


def test_observe_day_appends_the_days_passed():
    env = jaxmarl.make("switch_riddle", num_agents=2, observe_day=True)
    assert env.max_steps == 2
    assert env.observation_space("agent_0").nvec.tolist() == [2, 2, 3]
    obs = jax.jit(env.get_obs, compiler_options=OPTS)(state(0, "x.", bulb=True, day=1))
    assert np.asarray(obs["agent_0"]).tolist() == [1, 1, 1]
    assert np.asarray(obs["agent_1"]).tolist() == [0, 0, 1]


def test_global_state_is_the_true_state():
    gs = GLOBAL(state(2, "x.x", bulb=True, day=3))
    np.testing.assert_array_equal(np.asarray(gs), [1, 1, 0, 1, 0.5, 0, 0, 1])
    assert gs.dtype == jnp.float32


# ------------------------------------------------------------------ render
def test_render_shows_the_bulb_and_the_room():
    render = jax.jit(ENV.render, compiler_options=OPTS)
    off, on = render(state(0, "x..", bulb=False)), render(state(2, "x.x", bulb=True, day=6))
    assert off.shape == (108, 144, 3) and off.dtype == jnp.uint8
    bulb_px = np.asarray(on[24, 72]), np.asarray(off[24, 72])  # centre of the bulb
    np.testing.assert_array_equal(bulb_px[0], np.round(np.array([1.0, 0.85, 0.10]) * 255))
    np.testing.assert_array_equal(bulb_px[1], np.round(np.array([0.3, 0.3, 0.3]) * 255))
    # today's tile (top-left corner of the prisoner's cell) is blue-ish only under agent_2
    assert np.asarray(on[50, 98]).tolist() == np.round(np.array([0.8, 0.88, 1.0]) * 255).tolist()
    assert np.asarray(off[50, 98]).tolist() != np.asarray(on[50, 98]).tolist()
    # the day bar is full on the last day and empty on the first
    assert np.asarray(on[105, 140]).tolist() == np.round(np.array([0.35, 0.35, 0.85]) * 255).tolist()
    assert np.asarray(off[105, 140]).tolist() == np.round(np.array([0.96] * 3) * 255).tolist()
    frames = jax.vmap(ENV.render)(jax.tree.map(lambda *x: jnp.stack(x), state(0, "x.."), state(1, "xx.")))
    assert frames.shape == (2, 108, 144, 3)
