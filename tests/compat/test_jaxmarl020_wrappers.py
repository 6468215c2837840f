"""``jaxmarl.wrappers.baselines`` (JaxMARL's names) means what it means in JaxMARL 0.2.0."""

from __future__ import annotations

import json

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from stub_envs import CounterEnv

import jaxmarl
from jaxmarl.environments.spaces import Box, Discrete, MultiDiscrete
from jaxmarl.wrappers.baselines import (
    LIBRARY_INFO_KEYS,
    CTRolloutManager,
    JaxMARLWrapper,
    LogWrapper,
    MPELogWrapper,
    SMAXLogWrapper,
    get_space_dim,
    load_params,
    save_params,
)
from tests.oracles.jaxmarl020 import run_oracle

PARAMS = {
    "params": {
        "Dense_0": {"kernel": np.arange(6, dtype=np.float32).reshape(2, 3), "bias": np.ones(3, np.float32)},
        "Dense_1": {"kernel": np.full((3, 1), 0.5, np.float32)},
    }
}


def assert_same_tree(a, b):
    assert jax.tree.structure(a) == jax.tree.structure(b)
    for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b), strict=True):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))


@pytest.mark.oracle
def test_params_files_are_interchangeable_with_jaxmarl(tmp_path):
    ours, theirs = tmp_path / "ours.safetensors", tmp_path / "theirs.safetensors"
    save_params(PARAMS, ours)
    script = tmp_path / "roundtrip.py"
    script.write_text(
        "import json, sys\n"
        "import numpy as np\n"
        "from jaxmarl.wrappers.baselines import load_params, save_params\n"
        "p = load_params(sys.argv[1])\n"
        "tree = {k: {n: np.asarray(v).tolist() for n, v in d.items()} for k, d in p['params'].items()}\n"
        "print(json.dumps(tree))\n"
        "save_params(p, sys.argv[2])\n"
    )
    out = run_oracle(script, str(ours), str(theirs), cwd=tmp_path)
    read_by_jaxmarl = json.loads(out.strip().splitlines()[-1])
    expected = {k: {n: np.asarray(v).tolist() for n, v in d.items()} for k, d in PARAMS["params"].items()}
    assert read_by_jaxmarl == expected
    assert_same_tree(load_params(theirs), PARAMS)


def rollout(env, steps, actions):
    key = jax.random.PRNGKey(0)
    obs, state = env.reset(key)
    infos = []
    for t in range(steps):
        obs, state, reward, done, info = env.step(jax.random.fold_in(key, t), state, actions)
        infos.append(info)
    return infos


def test_log_wrapper_replace_info_keeps_only_the_logging_keys():
    env = CounterEnv(max_steps=3)
    acts = {"a": jnp.int32(1), "b": jnp.int32(0)}
    logging_keys = {"returned_episode", "returned_episode_returns", "returned_episode_lengths"}
    assert set(rollout(LogWrapper(env, replace_info=True), 3, acts)[-1]) == logging_keys
    # Without replace_info the environment's own entries stay, this library's additions not.
    raw_info = env.step(jax.random.PRNGKey(0), env.reset(jax.random.PRNGKey(0))[1], acts)[-1]
    own = set(raw_info) - set(LIBRARY_INFO_KEYS)
    assert set(rollout(LogWrapper(env), 3, acts)[-1]) == logging_keys | own
    assert {"final_obs", "truncated"} <= set(raw_info) - own


# Where an environment's info differs from JaxMARL 0.2.0's on purpose, entry -> why.
INFO_DIFFERENCES = {
    "SMAX": {"won": "ours marks the winners on the last step"},
    "HeuristicEnemySMAX": {"won": "as SMAX"},
    "storm": {
        "discount": "JaxMARL's is always 0",
        "inner_episode_done": "ours marks the last step of every inner episode",
    },
    "storm_2p": {"discount": "as storm", "inner_episode_done": "as storm"},
    "storm_np": {"discount": "as storm", "inner_episode_done": "as storm", "coin_ratio": "JaxMARL's only"},
    "overcooked": {"sparse_reward": "ours gives each cook's own delivery reward"},
    "coin_game": {"own_coin_collected": "ours says who took whose coin", "other_coin_collected": "as own"},
}
# JaxMARL's facmac scenarios log their adversaries too (4, 8 and 12 agents); ours have
# only the controlled agents. MABrax's info in JaxMARL is Brax's internal state.
INFO_NOT_COMPARED = ("MPE_simple_facmac", "ant_", "halfcheetah_", "hopper_", "humanoid_", "walker2d_")
INFO_SHAPES = (
    "import json, sys, jax\n"
    "import jaxmarl\n"
    "from jaxmarl.wrappers.baselines import LogWrapper\n"
    "from jaxmarl.registration import registered_envs\n"
    "out = {}\n"
    "for name in registered_envs:\n"
    "    if name.startswith(tuple(json.loads(sys.argv[1]))):\n"
    "        continue\n"
    "    env = LogWrapper(jaxmarl.make(name))\n"
    "    state = jax.eval_shape(env.reset, jax.random.PRNGKey(0))[1]\n"
    "    acts = {a: env.action_space(a).sample(jax.random.PRNGKey(1)) for a in env.agents}\n"
    "    info = jax.eval_shape(env.step, jax.random.PRNGKey(2), state, acts)[-1]\n"
    "    out[name] = {k: [list(x.shape) for x in jax.tree.leaves(v)] for k, v in info.items()}\n"
    "print(json.dumps(out))\n"
)


@pytest.mark.oracle
def test_log_wrapper_info_has_jaxmarls_entries_and_shapes(tmp_path):
    """JaxMARL's scripts reshape every info entry to one value per agent of the batch
    (``x.reshape(NUM_ACTORS)``): the entries and their shapes are JaxMARL 0.2.0's, on every
    environment both register, but for the differences listed above."""
    # JaxRobotarium needs a package JaxMARL never published; LearnedPolicyEnemySMAX, a policy.
    skip = ["JaxRobotarium", "LearnedPolicyEnemySMAX", *INFO_NOT_COMPARED]
    script = tmp_path / "info_shapes.py"
    script.write_text(INFO_SHAPES)
    theirs = json.loads(run_oracle(script, json.dumps(skip), cwd=tmp_path).strip().splitlines()[-1])
    names = sorted(theirs)
    assert len(names) >= 20 and set(names) <= set(jaxmarl.registered_envs)
    for name in names:
        env = LogWrapper(jaxmarl.make(name))
        state = jax.eval_shape(env.reset, jax.random.PRNGKey(0))[1]
        acts = {a: env.action_space(a).sample(jax.random.PRNGKey(1)) for a in env.agents}
        info = jax.eval_shape(env.step, jax.random.PRNGKey(2), state, acts)[-1]
        ours = {k: [list(x.shape) for x in jax.tree.leaves(v)] for k, v in info.items()}
        differ = INFO_DIFFERENCES.get(name, {})
        assert {k: v for k, v in ours.items() if k not in differ} == {
            k: v for k, v in theirs[name].items() if k not in differ
        }, name
        for key in differ:
            assert (key in ours) != (key in theirs[name]), (name, key)  # the list stays true


def test_a_wrapper_written_for_jaxmarl_works_inside_ours():
    class WorldState(JaxMARLWrapper):  # JaxMARL 0.2.0's step signature, as mappo_rnn_mpe.py's wrapper
        def step(self, key, state, action):
            obs, state, reward, done, info = self._env.step(key, state, action)
            return obs, state, reward, done, {**info, "seen": jnp.ones(2)}

    acts = {"a": jnp.int32(1), "b": jnp.int32(0)}
    for wrapper in (LogWrapper, MPELogWrapper, SMAXLogWrapper):
        info = rollout(wrapper(WorldState(CounterEnv(max_steps=3))), 3, acts)[-1]
        assert bool(info["returned_episode"][0]) and info["seen"].shape == (2,)


def test_wrappers_take_the_environments_own_state_as_jaxmarls_scripts_pass_it():
    # ippo_rnn_smax.py: jax.vmap(env.get_avail_actions)(env_state.env_state)
    env = jaxmarl.make("HeuristicEnemySMAX", scenario=None)
    for wrapper in (LogWrapper, SMAXLogWrapper):
        wrapped = wrapper(env)
        obs, state = wrapped.reset(jax.random.PRNGKey(0))
        for method in ("get_avail_actions", "get_obs"):
            expected = getattr(env, method)(state.env_state)
            assert_same_tree(getattr(wrapped, method)(state.env_state), expected)
            assert_same_tree(getattr(wrapped, method)(state), expected)


def test_mpe_log_wrapper_reports_returns_times_the_number_of_agents():
    env = jaxmarl.make("MPE_simple_spread_v3", max_steps=4)
    acts = {a: jnp.int32(1) for a in env.agents}
    plain = rollout(LogWrapper(env), 4, acts)[-1]
    scaled = rollout(MPELogWrapper(env), 4, acts)[-1]
    assert bool(plain["returned_episode"][0])
    np.testing.assert_allclose(
        scaled["returned_episode_returns"], 3 * plain["returned_episode_returns"], rtol=1e-6
    )
    assert float(plain["returned_episode_returns"][0]) != 0.0


def test_smax_log_wrapper_flags_agents_whose_last_reward_was_at_least_one():
    env = SMAXLogWrapper(CounterEnv(max_steps=3))
    infos = rollout(env, 3, {"a": jnp.int32(1), "b": jnp.int32(0)})
    np.testing.assert_array_equal(infos[1]["returned_won_episode"], [0.0, 0.0])  # no episode finished yet
    np.testing.assert_array_equal(infos[2]["returned_won_episode"], [1.0, 0.0])
    np.testing.assert_array_equal(infos[2]["returned_episode_returns"], [3.0, 0.0])


def test_space_dims():
    assert get_space_dim(Discrete(7)) == 7
    assert get_space_dim(Box(0.0, 1.0, (2, 3))) == 6
    assert get_space_dim(MultiDiscrete([2, 3])) == 2


def test_ct_rollout_manager_pads_observations_adds_ids_global_state_and_reward():
    env = jaxmarl.make("MPE_simple_tag_v3")  # observations of 16 (adversaries) and 14 (the good agent)
    manager = CTRolloutManager(env, batch_size=3)
    assert manager.max_obs_length == 16 and manager.obs_size == 16 + env.num_agents
    obs, state = manager.batch_reset(jax.random.PRNGKey(0))
    raw = jax.vmap(env.get_obs)(state)
    for i, agent in enumerate(env.agents):
        n = raw[agent].shape[-1]
        np.testing.assert_array_equal(obs[agent][:, :n], raw[agent])
        np.testing.assert_array_equal(obs[agent][:, n:16], 0.0)
        np.testing.assert_array_equal(obs[agent][:, 16:], np.tile(np.eye(env.num_agents)[i], (3, 1)))
    # JaxMARL's global state: the raw observations concatenated (16 + 16 + 16 + 14 numbers)
    np.testing.assert_array_equal(obs["__all__"], np.concatenate([raw[a] for a in env.agents], axis=-1))
    assert obs["__all__"].shape == (3, 62)
    actions = {a: manager.batch_sample(jax.random.PRNGKey(i), a) for i, a in enumerate(env.agents)}
    assert actions[env.agents[0]].shape == (3,)
    obs, state, reward, done, info = manager.batch_step(jax.random.PRNGKey(1), state, actions)
    np.testing.assert_allclose(reward["__all__"], sum(reward[a] for a in env.agents), rtol=1e-6)
    masks = manager.get_valid_actions(state)
    assert masks[env.agents[0]].shape == (3, 5)


def test_ct_rollout_manager_takes_smaxs_world_state_from_get_global_state():
    # JaxMARL's SMAX put its world state in obs["world_state"], which its manager read
    env = jaxmarl.make("HeuristicEnemySMAX", scenario=None)
    manager = CTRolloutManager(SMAXLogWrapper(env), batch_size=2)
    obs, state = manager.batch_reset(jax.random.PRNGKey(0))
    np.testing.assert_array_equal(obs["__all__"], jax.vmap(env.get_global_state)(state.env_state))
    masks = manager.get_valid_actions(state.env_state)  # as the Q-learning scripts call it
    np.testing.assert_array_equal(masks["ally_0"], jax.vmap(env.get_avail_actions)(state.env_state)["ally_0"])


def test_overcooked_v2_log_wrapper_files_each_episode_return_under_its_recipe():
    from jaxmarl.wrappers.baselines import OvercookedV2LogWrapper

    env = jaxmarl.make("overcooked_v2", layout="cramped_room", max_steps=3)
    wrapped = OvercookedV2LogWrapper(env)
    assert set(wrapped.recipe_dict) == {
        "_".join(map(str, r)) for r in np.asarray(env.possible_recipes).tolist()
    }
    key = jax.random.PRNGKey(0)
    obs, state = wrapped.reset(key)
    recipe = int(state.env_state.recipe)
    stay = {a: jnp.int32(4) for a in env.agents}
    for t in range(3):
        if t == 2:  # a return to file: pretend the cooks earned 2 and 3 so far
            state = state.replace(log_state=state.log_state.replace(episode_returns=jnp.array([2.0, 3.0])))
        obs, state, reward, done, info = wrapped.step(jax.random.fold_in(key, t), state, stay)
    assert bool(done["__all__"])
    per_recipe = info["returned_episode_recipe_returns"]
    plain = np.asarray(info["returned_episode_returns"])
    assert plain.tolist() == [2.0, 3.0]
    for name, code in wrapped.recipe_dict.items():
        expected = plain if int(code) == recipe else np.zeros_like(plain)
        np.testing.assert_array_equal(np.asarray(per_recipe[name]), expected)
