"""GymnasiumVectorEnv: every agent of every copy is one sub-environment."""

from __future__ import annotations

import jax
import numpy as np
import pytest
from adapter_helpers import LeaverEnv, make_once
from fast_compile import COMPILER_OPTIONS
from stub_envs import CounterEnv

from jaxmarl.adapters import GymnasiumVectorEnv
from jaxmarl.environments.spaces import Discrete

gymnasium = pytest.importorskip("gymnasium")
data_equivalence = pytest.importorskip("gymnasium.utils.env_checker").data_equivalence


def vectorise(env, num_envs, **kwargs):
    return GymnasiumVectorEnv(env, num_envs, compiler_options=COMPILER_OPTIONS, **kwargs)


def test_shapes_spaces_and_metadata():
    envs = vectorise(make_once("MPE_simple_spread_v3", max_steps=4), 2, seed=0)
    assert isinstance(envs, gymnasium.vector.VectorEnv)
    assert envs.num_envs == 6 and envs.num_copies == 2
    assert envs.single_observation_space == gymnasium.spaces.Box(-np.inf, np.inf, (18,), np.float32)
    assert envs.single_action_space == gymnasium.spaces.Discrete(5, dtype=np.int32)
    assert envs.action_space == gymnasium.spaces.MultiDiscrete([5] * 6, dtype=np.int32)
    assert envs.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
    obs, infos = envs.reset(seed=0)
    assert obs.shape == (6, 18) and obs.dtype == np.float32 and envs.observation_space.contains(obs)
    assert infos["action_mask"].shape == (6, 5) and infos["action_mask"].dtype == np.int8
    assert infos["_action_mask"].all()
    envs.action_space.seed(0)
    for _ in range(5):
        obs, rewards, terms, truncs, infos = envs.step(envs.action_space.sample())
        assert envs.observation_space.contains(obs)
        assert rewards.shape == (6,) and rewards.dtype == np.float64
        assert terms.shape == truncs.shape == (6,) and terms.dtype == truncs.dtype == np.bool_


def test_sub_environment_i_is_agent_i_mod_num_agents_of_copy_i_div_num_agents():
    base = make_once("MPE_simple_spread_v3", max_steps=4)
    envs = vectorise(base, 2)
    obs, _ = envs.reset(seed=4)
    _, sub = jax.random.split(jax.random.PRNGKey(4))
    expected, _ = jax.vmap(base.reset)(jax.random.split(sub, 2))
    for i in range(envs.num_envs):
        copy, agent = divmod(i, base.num_agents)
        np.testing.assert_array_equal(obs[i], np.asarray(expected[base.agents[agent]][copy]))


def test_same_seed_same_run_other_seed_other_run():
    envs = vectorise(make_once("MPE_simple_spread_v3", max_steps=4), 2)

    def run(seed):
        record = [envs.reset(seed=seed)]
        envs.action_space.seed(0)
        record += [envs.step(envs.action_space.sample()) for _ in range(6)]
        return record

    first = run(1)
    assert data_equivalence(first, run(1), exact=True)
    assert not data_equivalence(first, run(2), exact=True)


def test_time_limit_truncates_and_autoresets_in_the_same_step():
    envs = vectorise(CounterEnv(max_steps=3), 2, seed=0)
    obs, _ = envs.reset()
    ones = np.ones(4, np.int32)
    for _ in range(2):
        obs, _, terms, truncs, infos = envs.step(ones)
        assert not terms.any() and not truncs.any() and "final_obs" not in infos
    obs, rewards, terms, truncs, infos = envs.step(ones)
    assert truncs.all() and not terms.any()
    assert rewards.tolist() == [1.0] * 4
    assert (obs[:, 0] == 0).all()  # the next episodes' first observations
    assert infos["_final_obs"].all()
    assert [final[0] for final in infos["final_obs"]] == [6.0] * 4  # 3 steps of 1 + 1
    obs, _, terms, truncs, infos = envs.step(ones)
    assert (obs[:, 0] == 2).all() and not truncs.any() and "final_obs" not in infos


def test_termination_is_not_a_truncation_and_other_copies_go_on():
    envs = vectorise(CounterEnv(max_steps=5, goal=2.0), 2, seed=0)
    envs.reset()
    obs, _, terms, truncs, infos = envs.step(np.array([1, 1, 0, 0], np.int32))  # copy 0 reaches 2
    assert terms.tolist() == [True, True, False, False] and not truncs.any()
    assert infos["_final_obs"].tolist() == [True, True, False, False]
    assert infos["final_obs"][0][0] == 2.0 and infos["final_obs"][2] is None
    assert obs[:2, 0].tolist() == [0.0, 0.0]  # copy 0 restarted


def test_record_episode_statistics_understands_same_step_autoreset():
    envs = gymnasium.wrappers.vector.RecordEpisodeStatistics(vectorise(CounterEnv(max_steps=3), 1, seed=0))
    envs.reset()
    for _ in range(6):
        _, _, _, _, infos = envs.step(np.array([1, 0], np.int32))
    assert infos["_episode"].all()
    assert infos["episode"]["l"].tolist() == [3, 3]
    assert infos["episode"]["r"].tolist() == [3.0, 0.0]  # agent a plays 1 each step, b 0
    assert envs.episode_count == 4


def test_agent_that_leaves_early_keeps_terminating_and_is_marked_inactive():
    envs = vectorise(LeaverEnv(b_leaves=2, a_leaves=4), 1, seed=0)
    _, infos = envs.reset()
    actions = np.array([0, 0], np.int32)
    steps = [envs.step(actions) for _ in range(5)]
    terms = [s[2].tolist() for s in steps]
    active = [s[4]["active"].tolist() for s in steps]
    assert terms == [[False, False], [False, True], [False, True], [True, True], [False, False]]
    assert active == [[True, True], [True, True], [True, False], [True, False], [True, True]]
    assert steps[1][4]["final_info"]["action_mask"][1].tolist() == [0, 0, 1]
    assert steps[4][4]["action_mask"].tolist() == [[1, 1, 1]] * 2


def test_agents_must_share_their_spaces():
    with pytest.raises(
        ValueError, match=r"share one observation space.*'adversary_0'.*'agent_0'.*PettingZoo"
    ):
        vectorise(make_once("MPE_simple_tag_v3", max_steps=4), 2)
    odd = LeaverEnv()
    odd.action_spaces = {"a": Discrete(3), "b": Discrete(4)}
    with pytest.raises(
        ValueError, match=r"share one action space.*'a' has Discrete\(3\) and 'b' has Discrete\(4\)"
    ):
        vectorise(odd, 2)
    with pytest.raises(ValueError, match="num_envs must be a positive integer"):
        vectorise(CounterEnv(), 0)


def test_bad_actions_name_the_sub_environment():
    envs = vectorise(CounterEnv(), 2, seed=0)
    with pytest.raises(RuntimeError, match="reset"):
        envs.step(np.zeros(4, np.int32))
    envs.reset()
    with pytest.raises(ValueError, match=r"shape \(3,\), expected \(4,\).*2 copies x 2 agents"):
        envs.step(np.zeros(3, np.int32))
    with pytest.raises(ValueError, match=r"sub-environment 3 \(copy 1, agent 'b'\).*Discrete\(2\)"):
        envs.step(np.array([0, 1, 1, 2]))
    with pytest.raises(ValueError, match="needs integers"):
        envs.step(np.zeros(4))
    box = vectorise(make_once("MPE_simple_facmac_v1", max_steps=4), 1, seed=0)
    box.reset()
    assert box.single_action_space == gymnasium.spaces.Box(0.0, 1.0, (5,), np.float32)
    actions = np.full((3, 5), 0.5)
    box.step(actions)  # float64 in the box is fine
    actions[1, 2] = -0.1
    with pytest.raises(ValueError, match=r"sub-environment 1 \(copy 0, agent 'adversary_1'\)"):
        box.step(actions)
    with pytest.raises(TypeError, match="one integer"):
        box.reset(seed=[1, 2, 3])
    with pytest.raises(ValueError, match="reset_mask"):
        box.reset(options={"reset_mask": np.ones(3, bool)})


def test_render_gives_one_frame_per_sub_environment():
    envs = vectorise(LeaverEnv(), 2, seed=0, render_mode="rgb_array")
    envs.reset()
    envs.step(np.zeros(4, np.int32))
    frames = envs.render()
    assert len(frames) == 4
    assert all(f.dtype == np.uint8 and f.shape == (4, 6, 3) and (f == 1).all() for f in frames)
    envs.close()
    assert envs.closed
