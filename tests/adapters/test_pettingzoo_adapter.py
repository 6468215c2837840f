"""PettingZooParallelEnv: types, seeding, agents leaving, the hidden reset, masks, errors."""

from __future__ import annotations

import subprocess
import sys
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from adapter_helpers import LeaverEnv, make_once
from fast_compile import COMPILER_OPTIONS
from stub_envs import CounterEnv

from jaxmarl.adapters import PettingZooParallelEnv, to_gymnasium_space
from jaxmarl.adapters._kernels import kernels
from jaxmarl.adapters.spaces import harmless_action
from jaxmarl.environments.spaces import Box, Dict, Discrete, MultiDiscrete, Tuple
from jaxmarl.wrappers import LogWrapper

gymnasium = pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")


def adapt(env, **kwargs):
    return PettingZooParallelEnv(env, compiler_options=COMPILER_OPTIONS, **kwargs)


def functional_keys(seed: int, num_steps: int) -> tuple[jax.Array, list[jax.Array]]:
    """The keys the adapter gives ``reset`` and each ``step`` after ``reset(seed=seed)``."""
    key, reset_key = jax.random.split(jax.random.PRNGKey(seed))
    step_keys = []
    for _ in range(num_steps):
        key, sub = jax.random.split(key)
        step_keys.append(sub)
    return reset_key, step_keys


# ------------------------------------------------------------------ spaces
def test_spaces_convert_with_dtype_bounds_and_structure():
    spaces = gymnasium.spaces
    assert to_gymnasium_space(Discrete(7)) == spaces.Discrete(7, dtype=np.int32)
    assert to_gymnasium_space(MultiDiscrete([2, 3])) == spaces.MultiDiscrete([2, 3], dtype=np.int32)
    box = to_gymnasium_space(Box(np.array([-1.0, 0.0]), np.array([1.0, np.inf])))
    assert box.dtype == np.float32 and box.shape == (2,)
    np.testing.assert_array_equal(box.low, [-1.0, 0.0])
    np.testing.assert_array_equal(box.high, [1.0, np.inf])
    uint = to_gymnasium_space(Box(0, 20, (4, 5, 26), dtype=jnp.uint8))
    assert (uint.dtype, uint.low.max(), uint.high.min()) == (np.uint8, 0, 20)
    nested = to_gymnasium_space(
        Dict({"pos": Box(-1.0, 1.0, (2,)), "pair": Tuple([Discrete(2), Discrete(3)])})
    )
    assert nested == spaces.Dict(
        {
            "pos": spaces.Box(-1.0, 1.0, (2,), np.float32),
            "pair": spaces.Tuple([spaces.Discrete(2, dtype=np.int32), spaces.Discrete(3, dtype=np.int32)]),
        }
    )


def test_spaces_are_gymnasium_and_the_same_object_on_every_call():
    env = adapt(make_once("MPE_simple_world_comm_v3", max_steps=4))
    assert env.action_space("leadadversary_0") is env.action_space("leadadversary_0")
    assert env.observation_space("agent_0") is env.observation_space("agent_0")
    assert env.action_space("leadadversary_0") == gymnasium.spaces.Discrete(20, dtype=np.int32)
    assert env.action_space("agent_0") == gymnasium.spaces.Discrete(5, dtype=np.int32)
    assert env.observation_space("agent_0").shape == env.env.observation_space("agent_0").shape
    with pytest.raises(KeyError, match="unknown agent 'nobody'"):
        env.observation_space("nobody")


# ---------------------------------------------------------- types, seeding
def test_numpy_out_python_scalars_and_int8_masks():
    env = adapt(make_once("MPE_simple_spread_v3", max_steps=4), seed=0)
    obs, infos = env.reset()
    assert set(obs) == set(infos) == set(env.possible_agents) == set(env.agents)
    for agent in env.agents:
        assert type(obs[agent]) is np.ndarray and obs[agent].dtype == np.float32
        assert env.observation_space(agent).contains(obs[agent])
        mask = infos[agent]["action_mask"]
        assert mask.dtype == np.int8 and mask.tolist() == [1] * 5
        env.action_space(agent).sample(mask=mask)  # Gymnasium's masked sampling takes it as is
    obs, rewards, terms, truncs, infos = env.step({a: np.int64(1) for a in env.agents})
    for agent in env.possible_agents:
        assert type(obs[agent]) is np.ndarray and obs[agent].flags.writeable
        assert type(rewards[agent]) is float
        assert type(terms[agent]) is bool and type(truncs[agent]) is bool


def test_continuous_actions_take_floats_and_have_no_mask():
    env = adapt(make_once("MPE_simple_facmac_v1", max_steps=4), seed=0)
    _, infos = env.reset()
    assert all("action_mask" not in infos[a] for a in env.agents)
    space = env.action_space(env.agents[0])
    assert (space.dtype, space.shape, float(space.low.min()), float(space.high.max())) == (
        np.float32,
        (5,),
        0.0,
        1.0,
    )
    _, rewards, _, _, _ = env.step({a: np.full(5, 0.5) for a in env.agents})  # float64 is cast
    assert set(rewards) == set(env.agents)


def test_reset_seed_is_deterministic_and_matches_the_functional_api():
    base = make_once("MPE_simple_spread_v3", max_steps=4)
    env = adapt(base)
    first, _ = env.reset(seed=3)
    again, _ = env.reset(seed=3)
    other, _ = env.reset(seed=4)
    continued, _ = env.reset()  # no seed: the key stream goes on
    for agent in env.agents:
        np.testing.assert_array_equal(first[agent], again[agent])
        assert not np.array_equal(first[agent], other[agent])
        assert not np.array_equal(other[agent], continued[agent])
    # reset(seed=s) resets with the second half of jax.random.split(PRNGKey(s)).
    reset_key, _ = functional_keys(3, 0)
    expected, _ = base.reset(reset_key)
    for agent in env.agents:
        np.testing.assert_array_equal(first[agent], np.asarray(expected[agent]))
    # The constructor's seed is the seed of the first reset without one.
    seeded, _ = adapt(base, seed=3).reset()
    np.testing.assert_array_equal(seeded["agent_0"], first["agent_0"])


def test_reset_rejects_bad_seeds():
    env = adapt(make_once("MPE_simple_spread_v3", max_steps=4))
    for seed in (-1, 2**64, 1.5, "0"):
        with pytest.raises(ValueError, match="seed must be an integer"):
            env.reset(seed=seed)
    big, _ = env.reset(seed=2**40)
    small, _ = env.reset(seed=0)
    assert not np.array_equal(big["agent_0"], small["agent_0"])  # no silent truncation to 32 bits


def test_kernels_compile_once_even_if_a_step_returns_weak_types():
    env = adapt(LeaverEnv(b_leaves=3, a_leaves=3))
    step = kernels(COMPILER_OPTIONS).step
    env.reset(seed=0)
    env.step({"a": 0, "b": 0})
    compiled = step._cache_size()
    for seed in range(3):
        env.reset(seed=seed)
        while env.agents:
            env.step(dict.fromkeys(env.agents, np.int64(1)))
    assert step._cache_size() == compiled


# ------------------------------------------------------- episode boundaries
def test_time_limit_truncates_everyone_and_step_needs_a_reset():
    env = adapt(CounterEnv(max_steps=3))
    env.reset(seed=0)
    for _ in range(2):
        _, _, terms, truncs, _ = env.step({"a": 1, "b": 0})
        assert not any(terms.values()) and not any(truncs.values())
        assert env.agents == ["a", "b"]
    obs, rewards, terms, truncs, _ = env.step({"a": 1, "b": 0})
    assert truncs == {"a": True, "b": True} and terms == {"a": False, "b": False}
    assert rewards == {"a": 1.0, "b": 0.0}
    assert env.agents == []
    assert obs["a"][0] == 3.0  # the final observation (count 3), not the next episode's 0
    with pytest.raises(RuntimeError, match="call reset"):
        env.step({})
    env.reset()
    assert env.agents == ["a", "b"]


def test_termination_is_not_a_truncation():
    env = adapt(CounterEnv(max_steps=5, goal=2.0))
    env.reset(seed=0)
    obs, _, terms, truncs, _ = env.step({"a": 1, "b": 1})
    assert terms == {"a": True, "b": True} and truncs == {"a": False, "b": False}
    assert obs["a"][0] == 2.0 and env.agents == []


def test_final_observation_is_the_base_envs_final_obs():
    base = make_once("MPE_simple_spread_v3", max_steps=4)
    env = adapt(base)
    env.reset(seed=5)
    actions = {a: np.int32(i % 5) for i, a in enumerate(env.agents)}
    for _ in range(4):
        obs, _, _, truncs, _ = env.step(actions)
    assert all(truncs.values()) and env.agents == []
    # The same run through the functional API, with the adapter's keys.
    reset_key, step_keys = functional_keys(5, 4)
    _, state = base.reset(reset_key)
    for key in step_keys:
        new_obs, state, _, done, info = base.step(key, state, {a: jnp.asarray(v) for a, v in actions.items()})
    assert bool(done["__all__"])
    for agent in env.possible_agents:
        np.testing.assert_allclose(obs[agent], np.asarray(info["final_obs"][agent]), rtol=1e-6)
        assert not np.allclose(obs[agent], np.asarray(new_obs[agent]))  # not the auto-reset's


def test_agent_leaving_mid_episode_is_removed_and_passes_a_legal_action():
    env = adapt(LeaverEnv(b_leaves=2, a_leaves=4))
    env.reset(seed=0)
    env.step({"a": 0, "b": 1})
    obs, rewards, terms, truncs, infos = env.step({"a": 0, "b": 1})
    assert terms == {"a": False, "b": True} and truncs == {"a": False, "b": False}
    assert rewards == {"a": 1.0, "b": 2.0}
    assert env.agents == ["a"]
    assert infos["b"]["action_mask"].tolist() == [0, 0, 1]  # only 2 is legal once b has left
    with pytest.raises(ValueError, match=r"\['b'\] left the episode"):
        env.step({"a": 0, "b": 0})
    obs, rewards, terms, truncs, infos = env.step({"a": 1})
    assert set(obs) == set(rewards) == set(terms) == set(truncs) == set(infos) == {"a"}
    assert obs["a"][1:3].tolist() == [1.0, 2.0]  # the env received a=1 and b's legal 2
    _, _, terms, _, _ = env.step({"a": 1})
    assert terms == {"a": True} and env.agents == []


def test_dead_smax_unit_leaves_agents_while_the_battle_goes_on():
    env = adapt(make_once("SMAX"))
    _, infos = env.reset(seed=0)
    for _ in range(60):
        actions = {}
        for agent in env.agents:
            attacks = np.flatnonzero(infos[agent]["action_mask"][5:])
            toward_enemy = 1 if agent.startswith("ally") else 3  # east / west
            actions[agent] = 5 + attacks[0] if len(attacks) else toward_enemy
        _, _, terms, truncs, infos = env.step(actions)
        dead = [a for a in terms if terms[a]]
        if dead and env.agents:
            break
    else:
        pytest.fail("no unit died before the battle ended")
    assert not any(truncs.values())
    assert not set(dead) & set(env.agents)
    assert set(env.agents) == {a for a in actions if not terms[a]}
    stop_only = [0, 0, 0, 0, 1] + [0] * 5
    assert all(infos[a]["action_mask"].tolist() == stop_only for a in dead)
    assert all(harmless_action(env.env.action_space(a), infos[a]["action_mask"]) == 4 for a in dead)
    _, rewards, _, _, _ = env.step({a: 4 for a in env.agents})
    assert set(rewards) == set(actions) - set(dead)


# ------------------------------------------------------------ masks, extras
def test_action_masks_are_the_envs_avail_actions():
    env = adapt(make_once("hanabi"))
    _, infos = env.reset(seed=1)
    noop = env.env.noop if hasattr(env.env, "noop") else env.action_space("agent_1").n - 1
    waiting = infos["agent_1"]["action_mask"]
    assert waiting.sum() == 1 and waiting[noop] == 1  # only the no-op while agent_0 moves
    assert infos["agent_0"]["action_mask"][noop] == 0 and infos["agent_0"]["action_mask"].sum() > 1


def test_per_agent_env_info_is_passed_on():
    env = adapt(make_once("SMAX", max_steps=4))
    env.reset(seed=0)
    _, _, _, _, infos = env.step(dict.fromkeys(env.agents, 4))
    assert set(infos["ally_0"]) >= {"action_mask", "won"}
    assert type(infos["ally_0"]["won"]) is np.bool_ and not infos["ally_0"]["won"]


def test_a_wrapped_env_works_and_its_per_agent_info_is_passed_on():
    env = adapt(LogWrapper(CounterEnv(max_steps=3)))
    env.reset(seed=0)
    for _ in range(3):
        _, _, _, truncs, infos = env.step({"a": 1, "b": 0})
    assert all(truncs.values()) and env.agents == []
    assert bool(infos["a"]["returned_episode"])
    assert (float(infos["a"]["returned_episode_returns"]), float(infos["b"]["returned_episode_returns"])) == (
        3.0,
        0.0,
    )


# ------------------------------------------------------------ state, render
def test_state_is_the_global_state():
    base = make_once("MPE_simple_spread_v3", max_steps=4)
    env = adapt(base, seed=2)
    env.reset()
    state = env.state()
    _, expected = base.reset(functional_keys(2, 0)[0])
    np.testing.assert_allclose(state, np.asarray(base.get_global_state(expected)), rtol=1e-6)
    assert env.state_space.shape == state.shape and env.state_space.contains(state)


def test_render_returns_an_rgb_frame_of_the_current_state():
    env = adapt(LeaverEnv(), render_mode="rgb_array")
    with pytest.raises(RuntimeError, match="reset"):
        env.render()
    env.reset(seed=0)
    env.step({"a": 0, "b": 0})
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.shape == (4, 6, 3) and (frame == 1).all()
    quiet = adapt(LeaverEnv())
    quiet.reset(seed=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert quiet.render() is None
    assert any("render_mode" in str(w.message) for w in caught)
    with pytest.raises(ValueError, match="render_mode"):
        adapt(LeaverEnv(), render_mode="human")


def test_render_of_a_registered_env_is_an_image():
    env = adapt(make_once("MPE_simple_spread_v3", max_steps=4), render_mode="rgb_array")
    env.reset(seed=0)
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[-1] == 3 and frame.std() > 0
    assert env.metadata == {
        "name": "SimpleSpreadMPE",
        "render_modes": ["rgb_array"],
        "is_parallelizable": True,
    }
    assert PettingZooParallelEnv("MPE_simple_spread_v3").metadata["name"] == "MPE_simple_spread_v3"


# ------------------------------------------------------------------ errors
def test_bad_actions_raise_clear_errors():
    env = adapt(LeaverEnv())
    with pytest.raises(RuntimeError, match="call reset"):
        env.step({"a": 0, "b": 0})
    env.reset(seed=0)
    cases = [
        ({"a": 0}, r"no action for live agent\(s\) \['b'\]"),
        ({"a": 0, "b": 0, "c": 0}, r"\['c'\] \(not agents of this environment\)"),
        ({"a": 3, "b": 0}, r"agent 'a': action 3 is not in its action space Discrete\(3\) \(out of range\)"),
        ({"a": 1.0, "b": 0}, r"agent 'a'.*Discrete\(3\).*integer dtype"),
        ({"a": [0], "b": 0}, r"agent 'a'.*shape \(1,\), expected \(\)"),
        ([0, 0], "must be a dict keyed by agent"),
    ]
    for actions, message in cases:
        with pytest.raises(ValueError, match=message):
            env.step(actions)
    box = adapt(make_once("MPE_simple_facmac_v1", max_steps=4))
    box.reset(seed=0)
    actions = {a: np.full(5, 0.5, np.float32) for a in box.agents}
    actions["adversary_0"] = np.full(5, 1.5, np.float32)
    with pytest.raises(ValueError, match=r"agent 'adversary_0'.*Box\(0.0, 1.0, \(5,\), float32\).*bounds"):
        box.step(actions)


def test_construction_errors():
    with pytest.raises(ValueError, match="Did you mean 'MPE_simple_spread_v3'"):
        PettingZooParallelEnv("MPE_simple_sprad_v3")
    with pytest.raises(TypeError, match="num_agentz"):
        PettingZooParallelEnv("MPE_simple_spread_v3", num_agentz=3)
    with pytest.raises(TypeError, match="need an environment id"):
        PettingZooParallelEnv(LeaverEnv(), max_steps=3)


def test_adapters_import_lazily_and_say_what_to_install():
    """``import jaxmarl.adapters`` loads neither library; without them, building an
    adapter says what to install (in a fresh interpreter where both imports fail)."""
    code = """
import sys
import jaxmarl.adapters
print(sorted(m for m in ("pettingzoo", "gymnasium") if m in sys.modules))
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("pettingzoo", "gymnasium"):
            raise ImportError(f"blocked {name}")
sys.meta_path.insert(0, Block())
for name, args in (("PettingZooParallelEnv", ()), ("GymnasiumVectorEnv", (2,))):
    try:
        getattr(jaxmarl.adapters, name)("MPE_simple_spread_v3", *args)
    except ImportError as err:
        print(err)
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 3
    assert lines[0] == "[]"
    assert (
        "PettingZooParallelEnv needs the optional dependency 'pettingzoo': pip install pettingzoo" in lines[1]
    )
    assert "GymnasiumVectorEnv needs the optional dependency 'gymnasium': pip install gymnasium" in lines[2]
