"""JaxMARL 0.2.0's SMAX options on hand-built battles: continuous actions (aiming,
repeating the last target, moving, the coin flips' probabilities), the conic
observation, custom unit tables, named scenarios, and LearnedPolicyEnemySMAX."""

import distrax
import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from fast_compile import COMPILER_OPTIONS, fast_compilation, jit
from smax_testutils import battle

import jaxmarl
from jaxmarl.environments.smax import (
    SMAX,
    LearnedPolicyEnemySMAX,
    Scenario,
    map_name_to_scenario,
    register_scenario,
)
from jaxmarl.environments.smax import constants as C
from jaxmarl.testing import check_env

KEY = jax.random.PRNGKey(0)
TICKS = 8 * 3.15 / 16  # a marine's full-speed move in one step


def act(shoot_last: float, do_shoot: float, r: float, t: float) -> jax.Array:
    return jnp.array([shoot_last, do_shoot, r, t], jnp.float32)


@pytest.fixture(scope="module")
def aiming():
    """One marine against three: the continuous action space."""
    env = SMAX(scenario=Scenario(["marine"] * 4, 1, 3), action_type="continuous", cooldown_jitter=False)
    return env, jit(env.step)


#   y=19  E1
#   y=16  A0 E2(dead) . E0        A0 (10, 16); E2 dead at (11, 16); E0 (13, 16); E1 (10, 19)
def test_continuous_shots_hit_the_living_enemy_nearest_the_aim_point(aiming):
    env, step = aiming
    state = battle(env, [[10, 16], [13, 16], [10, 19], [11, 16]], health=[45, 45, 45, 0])
    still = {f"enemy_{i}": act(0, 0, 0, 0) for i in range(3)}
    _, after, _, _, _ = step(KEY, state, {"ally_0": act(0, 1, 1, 0), **still})  # aim east, at (11, 16)
    assert int(after.last_attack[0]) == 0 and float(after.health[1]) == 36.0  # E0, not the dead E2
    np.testing.assert_array_equal(after.pos[0], state.pos[0])  # shooting units do not move
    _, after, _, _, _ = step(KEY, state, {"ally_0": act(0, 1, 1, 0.25), **still})  # aim north
    assert int(after.last_attack[0]) == 1 and float(after.health[2]) == 36.0
    # shoot_last_enemy = 1: the last target again, wherever the aim is; none if there was none.
    _, after, _, _, _ = step(
        KEY, state.replace(last_attack=state.last_attack.at[0].set(1)), {"ally_0": act(1, 1, 1, 0), **still}
    )
    assert int(after.last_attack[0]) == 1 and float(after.health[2]) == 36.0
    _, after, _, _, _ = step(KEY, state, {"ally_0": act(1, 1, 1, 0), **still})
    assert int(after.last_attack[0]) == -1 and float(after.health[1]) == 45.0


def test_continuous_moves_go_r_times_full_speed_in_the_direction(aiming):
    env, step = aiming
    state = battle(env, [[10, 16], [20, 16], [20, 20], [20, 12]])
    still = {f"enemy_{i}": act(0, 0, 0, 0) for i in range(3)}
    _, after, _, _, _ = step(KEY, state, {"ally_0": act(0, 0, 0.5, 0.25), **still})  # north, half speed
    np.testing.assert_allclose(after.pos[0], [10, 16 + 0.5 * TICKS], atol=1e-5)
    np.testing.assert_allclose(after.last_move[0], [0, 0.5], atol=1e-6)
    assert int(after.last_attack[0]) == -1
    _, after, _, _, _ = step(KEY, state, {"ally_0": act(0, 0, 1.0, 0.625), **still})  # south-west
    np.testing.assert_allclose(after.pos[0], [10 - TICKS / 2**0.5, 16 - TICKS / 2**0.5], atol=1e-5)
    np.testing.assert_array_equal(after.pos[1:], state.pos[1:])  # zeros: stand still (the no-op)


def test_continuous_coin_flips_have_the_given_probabilities(aiming):
    env, _ = aiming
    state = battle(env, [[10, 16], [13, 16], [10, 19], [11, 16]], health=[45, 45, 45, 0]).replace(
        last_attack=jnp.array([1, -1, -1, -1], jnp.int32)
    )
    actions = jnp.stack([act(0.6, 0.3, 1, 0)] * 4)  # shoot 30%; of those, repeat E1 60%, else E0

    def decode(key):
        return env.decode_actions(key, state, actions)[1][0]

    attack = np.asarray(jit(jax.vmap(decode))(jax.random.split(KEY, 4000)))
    shots = attack >= 0
    assert abs(shots.mean() - 0.3) < 0.03
    assert abs((attack[shots] == 1).mean() - 0.6) < 0.05 and set(np.unique(attack)) == {-1, 0, 1}


# Observer A0 at (16, 16), marine sight 9; sections are 11.25 degrees wide, section 16
# starts due east (0 to 11.25 degrees), section 31 ends due west.
#   A1 (18, 16.2) 5.7 deg, E0 (19, 16.5) 9.5 deg, E1 (20, 16.3) 4.3 deg: all in section 16,
#   the two of lowest index (A1, E0) shown; E2 dead at (16, 18); E3 (16, 26) out of sight;
#   E4 (14, 16.1) at 177 deg: section 31.
def test_conic_observation_sections():
    env = SMAX(scenario=Scenario(["marine"] * 7, 2, 5), observation_type="conic")
    state = battle(
        env,
        [[16, 16], [18, 16.2], [19, 16.5], [20, 16.3], [16, 18], [16, 26], [14, 16.1]],
        health=[45, 30, 45, 45, 0, 45, 45],
    )
    obs = np.asarray(jit(env.get_obs)(state)["ally_0"])
    nf = len(env.unit_features)
    slots = obs[: 64 * nf].reshape(32, 2, nf)
    assert obs.shape == (64 * 13 + 10,) == env.observation_space("ally_0").shape
    np.testing.assert_allclose(slots[16, 0, :3], [30 / 45, 2 / 9, 0.2 / 9], atol=1e-6)  # A1
    np.testing.assert_allclose(slots[16, 1, :3], [1.0, 3 / 9, 0.5 / 9], atol=1e-6)  # E0 (not E1)
    np.testing.assert_allclose(slots[31, 0, :3], [1.0, -2 / 9, 0.1 / 9], atol=1e-6)  # E4
    assert float(slots[31, 0, 7]) == 1.0  # a marine
    occupied = np.argwhere(slots[..., 0] > 0)
    assert occupied.tolist() == [[16, 0], [16, 1], [31, 0]]  # dead E2 and distant E3 unseen
    np.testing.assert_allclose(obs[-10:-6], [1.0, 0.5, 0.5, 0.0])
    # ally_0 is seen like any unit (JaxMARL's conic view never shows unit 0): from E0,
    # A0 is at (-3, -0.5), angle -170.5 deg, section 0.
    seen_by_e0 = np.asarray(jit(env.get_obs)(state)["enemy_0"])[: 64 * nf].reshape(32, 2, nf)
    np.testing.assert_allclose(seen_by_e0[0, 0, :3], [1.0, -3 / 9, -0.5 / 9], atol=1e-6)
    # get_obs_unit_list gives the other kind whatever the env's type.
    assert jit(env.get_obs_unit_list)(state)["ally_0"].shape == ((7 - 1) * 13 + 10,)


def test_custom_unit_table():
    names = [*C.UNIT_TYPE_NAMES, "medic"]
    env = SMAX(
        scenario=Scenario([6, 0], 1, 1),
        unit_type_names=names,
        unit_type_shorthands=[*C.UNIT_TYPE_SHORTHANDS, "d"],
        unit_type_velocities=[*C.SPEED, 1.0],
        unit_type_attacks=[*C.DAMAGE, 0.0],
        unit_type_attack_ranges=[*C.ATTACK_RANGE, 0.0],
        unit_type_sight_ranges=[*C.SIGHT_RANGE, 4.0],
        unit_type_radiuses=[*C.RADIUS, 0.4],
        unit_type_health=[*C.HEALTH, 60.0],
        unit_type_weapon_cooldowns=[*C.COOLDOWN, 1.0],
        cooldown_jitter=False,
    )
    assert env.unit_type_bits == 7 and env.unit_features[-1] == "is_medic"
    assert env.observation_space("ally_0").shape == (1 * (7 + 7) + 4 + 7,)
    _, state = jit(env.reset_env)(KEY)
    np.testing.assert_array_equal(state.health, [60.0, 45.0])
    state = battle(env, [[10, 16], [13, 16]])
    step = jit(env.step)
    obs, after, _, _, _ = step(KEY, state, {"ally_0": jnp.int32(C.EAST), "enemy_0": jnp.int32(C.STOP)})
    np.testing.assert_allclose(after.pos[0], [10 + 8 * 1.0 / 16, 16], atol=1e-6)  # speed 1
    np.testing.assert_allclose(obs["ally_0"][:3], [1.0, (13 - 10.5) / 4, 0.0], atol=1e-6)  # sight 4
    assert float(obs["ally_0"][-1]) == 1.0  # the medic's type bit
    _, after, _, _, _ = step(KEY, state, {"ally_0": jnp.int32(5), "enemy_0": jnp.int32(5)})
    assert float(after.health[1]) == 45.0 and float(after.health[0]) == 51.0  # range 0: no hit


def test_registered_scenario_names():
    sc = Scenario(["marine", "marine", "zealot"], 2, 1)
    register_scenario("test_2m_vs_1z", sc)
    register_scenario("test_2m_vs_1z", Scenario(["marine", "marine", "zealot"], 2, 1))  # same again: fine
    assert map_name_to_scenario("test_2m_vs_1z") is sc
    assert jaxmarl.make("SMAX", scenario="test_2m_vs_1z").agents == ["ally_0", "ally_1", "enemy_0"]
    with pytest.raises(ValueError, match="'test_2m_vs_1z' already names '2m vs 1Z'"):
        register_scenario("test_2m_vs_1z", Scenario(["marine"] * 3, 2, 1))
    with pytest.raises(ValueError, match="'2s3z' already names"):
        register_scenario("2s3z", sc)


class ActorCritic(nn.Module):
    """JaxMARL's tutorial policy shape: (distribution, value)."""

    num_actions: int

    @nn.compact
    def __call__(self, x):
        logits = nn.Dense(self.num_actions)(x)
        return distrax.Categorical(logits=logits), jnp.squeeze(nn.Dense(1)(x), -1)


def always(params, action: int):
    """Parameters that make the policy pick ``action`` (zero weights, one big bias)."""
    dense = params["params"]["Dense_0"]
    bias = jnp.where(jnp.arange(dense["bias"].shape[0]) == action, 50.0, -50.0)
    return {"params": {**params["params"], "Dense_0": {"kernel": dense["kernel"] * 0, "bias": bias}}}


def test_learned_policy_enemies_play_the_module():
    # The module is built for the env's observations (here conic), as its enemies see them.
    env = SMAX(scenario="3m", observation_type="conic")
    module = ActorCritic(env.num_enemy_actions)
    with fast_compilation():
        params = module.init(KEY, jnp.zeros(env.observation_space("enemy_0").shape))
    game = jaxmarl.make(
        "LearnedPolicyEnemySMAX", policy=module, params=params, scenario="3m", observation_type="conic"
    )
    assert game.policy is module
    _, start = jit(game.reset_env)(KEY)
    step = jit(game.step)
    for action, last_attack in [(C.STOP, -1), (C.NUM_MOVE_ACTIONS + 2, 2)]:
        state = start.replace(policy=always(params, action))  # the parameters live in the state
        for key in jax.random.split(KEY, 3):
            _, state, _, _, _ = step(key, state, {a: jnp.int32(C.STOP) for a in game.agents})
            np.testing.assert_array_equal(state.battle.last_attack[3:], last_attack)
            np.testing.assert_array_equal(state.battle.last_move[3:], 0.0)


def test_learned_policy_takes_raw_logits_and_rejects_functions():
    class Logits(nn.Module):
        @nn.compact
        def __call__(self, x):
            return nn.Dense(10)(x)

    env = jaxmarl.make("SMAX")
    with fast_compilation():
        params = Logits().init(KEY, jnp.zeros(env.observation_space("enemy_0").shape))
    params = always(params, C.WEST)
    game = jaxmarl.make("LearnedPolicyEnemySMAX", policy=Logits(), params=params)
    _, state = jit(game.reset_env)(KEY)
    _, state, _, _, _ = jit(game.step)(KEY, state, {a: jnp.int32(C.STOP) for a in game.agents})
    np.testing.assert_array_equal(state.battle.last_move[5:], [[-1.0, 0.0]] * 5)
    with pytest.raises(ValueError, match="policy must be a Flax module"):
        LearnedPolicyEnemySMAX(policy=lambda params, key, obs, avail: obs)


def test_continuous_conic_heuristic_enemy_keeps_the_contract():
    env = jaxmarl.make(
        "HeuristicEnemySMAX", scenario="3m", action_type="continuous", observation_type="conic"
    )
    assert env.action_space("ally_0").shape == (4,) and env.noop_action("ally_0").tolist() == [0, 0, 0, 0]
    check_env(env, num_envs=4, compiler_options=COMPILER_OPTIONS)
