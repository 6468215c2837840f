"""Exact SMAX rules on hand-built battles: hits, ticks, range, cooldown, death, walls,
collisions, rewards (win, loss, draw) and what units observe.

Marines: 45 health, 9 damage, range 5, sight 9, cooldown 0.61 s, radius 0.375; a tick
is 1/16 s, so a marine fires on ticks 1, 11, 21, 31, 41 (ceil(0.61 * 16) = 10 ticks
apart) and kills a marine with its 5th hit, on tick 41 (during step 6).
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from fast_compile import jit
from smax_testutils import battle

from jaxmarl.environments.smax import SMAX, Scenario
from jaxmarl.environments.smax import constants as C

ATTACK = C.NUM_MOVE_ACTIONS  # attack enemy 0
KEY = jax.random.PRNGKey(0)


class Compiled:
    """An env with its step, obs and masks jitted once."""

    def __init__(self, env: SMAX) -> None:
        self.env = env
        self.step = jit(env.step)
        obs = jit(env.get_obs)
        self.obs = lambda state: {a: np.asarray(o) for a, o in obs(state).items()}
        self.avail = jit(env.get_avail_actions)

    def act(self, state, **actions):
        full = {a: jnp.int32(actions.get(a, C.STOP)) for a in self.env.agents}
        return self.step(KEY, state, full)


@pytest.fixture(scope="module")
def duel():
    """One marine against one marine, exact cooldowns."""
    return Compiled(SMAX(scenario=Scenario(["marine", "marine"], 1, 1), cooldown_jitter=False))


@pytest.fixture(scope="module")
def duel_ticks():
    """The same duel with one tick per step, to count ticks."""
    return Compiled(
        SMAX(
            scenario=Scenario(["marine", "marine"], 1, 1),
            cooldown_jitter=False,
            world_steps_per_env_step=1,
            max_steps=200,
        )
    )


@pytest.fixture(scope="module")
def two_vs_one():
    return Compiled(SMAX(scenario=Scenario(["marine"] * 3, 2, 1), cooldown_jitter=False))


#   y=16   A . . E        ally_0 at (10, 16), enemy_0 at (13, 16): 3 apart, in range
def test_a_marine_kills_a_marine_in_five_hits_on_tick_41(duel_ticks):
    state = battle(duel_ticks.env, [[10, 16], [13, 16]])
    healths = []
    for tick in range(1, 42):
        _, state, _, done, _ = duel_ticks.act(state, ally_0=ATTACK, enemy_0=ATTACK)
        healths.append(float(state.health[1]) if not done["__all__"] else 0.0)
        if tick < 41:
            assert not done["__all__"], tick
    assert done["__all__"]  # both die on tick 41: a draw
    hits = [t + 1 for t in range(41) if (healths[t - 1] if t else 45.0) != healths[t]]
    assert hits == [1, 11, 21, 31, 41]


def test_duel_rewards_per_step_and_draw(duel):
    state = battle(duel.env, [[10, 16], [13, 16]])
    rewards, health = [], []
    for _ in range(6):
        _, state, reward, done, info = duel.act(state, ally_0=ATTACK, enemy_0=ATTACK)
        rewards.append((float(reward["ally_0"]), float(reward["enemy_0"])))
        health.append(float(info["final_state"].health[1]))
    np.testing.assert_allclose(health, [36, 27, 18, 9, 9, 0])
    np.testing.assert_allclose(rewards, [(0.2, 0.2)] * 4 + [(0, 0), (0.2, 0.2)], atol=1e-6)
    assert done["__all__"] and done["ally_0"] and done["enemy_0"]
    assert not bool(info["won"][0]) and not info["truncated"]["ally_0"]  # a draw pays no bonus


def test_out_of_range_is_masked_and_misses(duel):
    # Exactly 5 apart: not strictly within range 5.
    state = battle(duel.env, [[10, 16], [15, 16]])
    assert not bool(duel.avail(state)["ally_0"][ATTACK])
    _, after, _, _, _ = duel.act(state, ally_0=ATTACK)
    assert float(after.health[1]) == 45.0 and float(after.cooldown[0]) == 0.0
    state = battle(duel.env, [[10, 16], [14.99, 16]])
    assert bool(duel.avail(state)["ally_0"][ATTACK])
    _, after, _, _, _ = duel.act(state, ally_0=ATTACK)
    assert float(after.health[1]) == 36.0


def test_cooldown_restarts_at_the_type_cooldown():
    env = SMAX(scenario=Scenario(["marine", "stalker"], 1, 1), world_steps_per_env_step=1)
    step = jit(env.step)
    state = battle(env, [[10, 16], [13, 16]])
    acts = {"ally_0": jnp.int32(ATTACK), "enemy_0": jnp.int32(ATTACK)}
    cooldowns = []
    for key in jax.random.split(KEY, 30):
        _, s, _, _, _ = step(key, state, acts)
        cooldowns.append(np.asarray(s.cooldown))
    cooldowns = np.stack(cooldowns)
    base = np.array([0.61, 1.87], np.float32)
    # PySC2-style noise: the restart lies in [cooldown - 1 tick, cooldown + 2 ticks).
    assert np.all(cooldowns >= base - 1 / 16 - 1e-6) and np.all(cooldowns < base + 2 / 16)
    assert np.ptp(cooldowns[:, 0]) > 0.05
    assert float(state.health[1] - s.health[1]) == 9.0 and float(state.health[0] - s.health[0]) == 13.0


#   A1(dead) . A0 . E0        a dead ally and a dead enemy do nothing and cannot be hit
def test_dead_units_cannot_act_or_be_targeted(two_vs_one):
    env = two_vs_one.env
    state = battle(env, [[10, 16], [8, 16], [12, 16]], health=[45, 0, 45])
    masks = two_vs_one.avail(state)
    np.testing.assert_array_equal(masks["ally_1"], [0, 0, 0, 0, 1, 0])  # dead: only stop
    np.testing.assert_array_equal(masks["enemy_0"], [1, 1, 1, 1, 1, 1, 0])  # ally_1 is no target
    _, after, _, done, _ = two_vs_one.act(state, ally_1=ATTACK, enemy_0=ATTACK + 1)
    np.testing.assert_array_equal(after.pos[1], state.pos[1])
    assert float(after.health[2]) == 45.0 and float(after.health[1]) == 0.0
    assert bool(done["ally_1"]) and not bool(done["ally_0"])
    _, after, _, _, _ = two_vs_one.act(state, ally_1=C.EAST)
    np.testing.assert_array_equal(after.pos[1], state.pos[1])
    assert int(after.last_attack[1]) == -1 and not np.any(np.asarray(after.last_move[1]))


def test_win_and_loss_rewards(two_vs_one):
    # Both allies shoot the enemy (18 per volley: ticks 1, 11, 21); it shoots ally_0.
    state = battle(two_vs_one.env, [[10, 15], [10, 17], [13, 16]])
    totals = np.zeros(2)
    for _ in range(3):
        _, state, reward, done, info = two_vs_one.act(state, ally_0=ATTACK, ally_1=ATTACK, enemy_0=ATTACK)
        totals += [float(reward["ally_0"]), float(reward["enemy_0"])]
        assert float(reward["ally_0"]) == float(reward["ally_1"])
    assert done["__all__"] and bool(info["won"][0]) and bool(info["won"][1])
    # Allies: all enemy health (1) + the win bonus (1); the enemy: 27 of 2 * 45 ally health.
    np.testing.assert_allclose(totals, [2.0, 27 / 45 / 2], atol=1e-6)
    np.testing.assert_allclose(float(reward["ally_0"]), 0.2 + 1.0, atol=1e-6)


def test_self_play_reward_is_zero_sum():
    env = SMAX(scenario=Scenario(["marine"] * 3, 2, 1), cooldown_jitter=False, use_self_play_reward=True)
    step = jit(env.step)
    state = battle(env, [[10, 15], [10, 17], [13, 16]], health=[45, 45, 9])
    acts = {"ally_0": jnp.int32(ATTACK), "ally_1": jnp.int32(C.STOP), "enemy_0": jnp.int32(C.STOP)}
    _, _, reward, done, _ = step(KEY, state, acts)
    assert done["__all__"] and float(reward["ally_0"]) == 1.0 and float(reward["enemy_0"]) == -1.0


def test_walking_into_the_edge_kills(duel):
    state = battle(duel.env, [[0.5, 16], [20, 16]])
    _, _, reward, done, info = duel.act(state, ally_0=C.WEST)
    after = info["final_state"]  # the lone ally died: the enemy won and the episode ended
    assert not bool(after.alive[0]) and float(after.pos[0, 0]) == 0.0
    # The enemy wins, and all health its enemies lost counts, whatever the cause.
    assert done["__all__"] and bool(info["won"][1]) and float(reward["enemy_0"]) == 2.0
    _, after, _, _, _ = duel.act(state, ally_0=C.EAST)  # away from the edge: 8 ticks of 3.15 / 16
    assert bool(after.alive[0])
    np.testing.assert_allclose(after.pos[0], [0.5 + 8 * 3.15 / 16, 16], atol=1e-5)


def test_collisions_leave_no_overlap(duel):
    # Two marines 0.2 apart (they need 0.75): pushed apart symmetrically, exactly.
    state = battle(duel.env, [[16, 16], [16.2, 16]])
    _, after, _, _, _ = duel.act(state)
    gap = np.linalg.norm(np.asarray(after.pos[0] - after.pos[1]))
    assert gap >= 0.75 - 1e-5
    np.testing.assert_allclose(np.asarray(after.pos).mean(0), [16.1, 16], atol=1e-5)
    # One walks into the other: still apart at the end of the step.
    state = battle(duel.env, [[15, 16], [16, 16]])
    _, after, _, _, _ = duel.act(state, ally_0=C.EAST)
    assert np.linalg.norm(np.asarray(after.pos[0] - after.pos[1])) >= 0.75 - 1e-5


#   E0 at 8.5 (seen) and 9.5 (unseen) from A0; marine sight range 9
def test_out_of_sight_units_observe_as_zero(two_vs_one):
    env = two_vs_one.env
    state = battle(env, [[10, 16], [10, 18], [18.5, 16]])
    obs = two_vs_one.obs(state)
    nf = len(env.unit_features)
    ally_block, enemy_block = obs["ally_0"][:nf], obs["ally_0"][nf : 2 * nf]
    np.testing.assert_allclose(enemy_block[:3], [1.0, 8.5 / 9, 0.0], atol=1e-6)
    np.testing.assert_allclose(ally_block[:3], [1.0, 0.0, 2 / 9], atol=1e-6)
    assert float(enemy_block[7]) == 1.0  # marine one-hot
    np.testing.assert_allclose(obs["ally_0"][-10:-6], [1.0, 10 / 32, 16 / 32, 0.0])
    # The enemy sees ally_0 (8.5 away) but not ally_1 (sqrt(8.5^2 + 2^2) = 8.73 < 9: seen too).
    np.testing.assert_allclose(obs["enemy_0"][[0, nf]], [1.0, 1.0])
    state = battle(env, [[10, 16], [10, 18], [19.5, 16]])
    obs = two_vs_one.obs(state)
    np.testing.assert_array_equal(obs["ally_0"][nf : 2 * nf], 0.0)
    np.testing.assert_array_equal(obs["enemy_0"][: 2 * nf], 0.0)


def test_dead_units_observe_zeros_and_are_unseen(two_vs_one):
    env = two_vs_one.env
    state = battle(env, [[10, 16], [10, 18], [13, 16]], health=[0, 45, 45])
    obs = two_vs_one.obs(state)
    np.testing.assert_array_equal(obs["ally_0"], 0.0)
    nf = len(env.unit_features)
    np.testing.assert_array_equal(obs["ally_1"][:nf], 0.0)  # dead ally_0 is not seen
    np.testing.assert_array_equal(obs["enemy_0"][:nf], 0.0)


def test_observation_order_puts_own_team_first(two_vs_one):
    env = two_vs_one.env
    state = battle(env, [[10, 16], [11, 17], [13, 16]], health=[45, 30, 45])
    obs = two_vs_one.obs(state)
    nf = len(env.unit_features)
    # enemy_0 sees (no teammates) ally_0, then ally_1.
    np.testing.assert_allclose(obs["enemy_0"][[0, 1, 2]], [1.0, -3 / 9, 0.0], atol=1e-6)
    np.testing.assert_allclose(obs["enemy_0"][[nf, nf + 1, nf + 2]], [30 / 45, -2 / 9, 1 / 9], atol=1e-6)
    # ally_1 sees ally_0 first, then enemy_0.
    np.testing.assert_allclose(obs["ally_1"][[1, 2]], [-1 / 9, -1 / 9], atol=1e-6)
    np.testing.assert_allclose(obs["ally_1"][[nf + 1, nf + 2]], [2 / 9, -1 / 9], atol=1e-6)
