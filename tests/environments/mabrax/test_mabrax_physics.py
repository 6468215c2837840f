"""MABrax against the single-agent Brax task: given the same actions, the multi-agent
environment moves the robot exactly as Brax does (state, reward, termination), the
agents' actions reach the robot's actuators, and local observations read the joints
they are labelled with. One compiled probe per task and one test per task (so that
pytest-xdist never compiles a probe twice), its checks in the helpers below."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import mujoco
import numpy as np
import pytest
from fast_compile import jit

import jaxmarl

TASKS = ["ant_4x2", "halfcheetah_6x1", "hopper_3x1", "humanoid_9|8", "walker2d_2x3"]
STEPS = 8
# Keys whose random actions keep the robot up for STEPS steps (the Ant's key 3 makes it
# jump past Brax's healthy height on the default pipeline).
SEEDS = {"ant_4x2": 0}


def split_action(env, action: jax.Array) -> dict[str, jax.Array]:
    """The agents' pieces of a robot action, found by joint name in the MuJoCo model
    (independently of the env's own tables)."""
    model = env.brax_env.sys.mj_model
    pieces = {}
    for agent in env.agents:
        ids = []
        for joint in env.agent_joints[agent]:
            jid = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, joint)
            ids.append(int(np.nonzero(model.actuator_trnid[:, 0] == jid)[0][0]))
        pieces[agent] = action[jnp.asarray(ids)]
    return pieces


@functools.cache
def probe(task: str) -> dict:
    """Reset, then ``STEPS`` steps of the multi-agent env and of the single-agent Brax
    task side by side from the same state with the same random actions."""
    env = jaxmarl.make(task)
    brax_env = env.brax_env
    num_actuators = brax_env.sys.mj_model.nu

    def run(key):
        key_reset, key_act = jax.random.split(key)
        _, state = env.reset(key_reset)
        actions = jax.random.uniform(key_act, (STEPS, num_actuators), minval=-1.0, maxval=1.0)

        def both(carry, action):
            ma_state, single = carry
            obs, ma_state, reward, done, _ = env.step_env(key, ma_state, split_action(env, action))
            single = brax_env.step(single, action)
            inner = env.brax_state(ma_state)
            out = {
                "ma_q": inner.pipeline_state.q,
                "ma_qd": inner.pipeline_state.qd,
                "ma_reward": jnp.stack([reward[a] for a in env.agents]),
                "ma_done": jnp.stack([done[a] for a in env.agents]),
                "ma_global": env.get_global_state(ma_state),
                "obs": obs,
                "q": single.pipeline_state.q,
                "qd": single.pipeline_state.qd,
                "torso_z": single.pipeline_state.x.pos[0, 2],
                "reward": single.reward,
                "done": single.done,
                "single_obs": single.obs,
            }
            return (ma_state, single), out

        _, trace = jax.lax.scan(both, (state, env.brax_state(state)), actions)
        return trace, actions

    trace, actions = jax.device_get(jit(run)(jax.random.PRNGKey(SEEDS.get(task, 3))))
    return {"env": env, "trace": trace, "actions": actions}


@pytest.mark.parametrize("task", TASKS)
def test_multi_agent_env_against_single_agent_brax(task):
    p = probe(task)
    check_same_motion_as_single_agent_brax(p)
    check_local_observations_read_their_joints(task, p)


def check_same_motion_as_single_agent_brax(p: dict) -> None:
    """The same states, observations, rewards and dones as single-agent Brax stepped with
    the robot action vector itself: so the agents' pieces (cut from that vector by joint
    name in the MuJoCo model, ``split_action``) reach exactly the actuators they belong to."""
    t = p["trace"]
    assert not t["done"][:-1].any(), "the robot fell during the probe; pick another key"
    np.testing.assert_allclose(t["ma_q"], t["q"], atol=1e-5, rtol=0)
    np.testing.assert_allclose(t["ma_qd"], t["qd"], atol=1e-5, rtol=0)
    np.testing.assert_allclose(t["ma_global"], t["single_obs"], atol=1e-5, rtol=0)
    np.testing.assert_allclose(
        t["ma_reward"], np.repeat(t["reward"][:, None], t["ma_reward"].shape[1], 1), 1e-6
    )
    np.testing.assert_array_equal(t["ma_done"], np.repeat(t["done"][:, None] > 0, t["ma_done"].shape[1], 1))
    assert np.ptp(t["q"][:, -1]) > 1e-3  # the robot really moved


def check_local_observations_read_their_joints(task: str, p: dict) -> None:
    """Every position / velocity entry of an agent's observation equals the physics
    state of the joint (or root coordinate) it is labelled with."""
    env, t = p["env"], p["trace"]
    model = env.brax_env.sys.mj_model
    clip = 10.0 if task.startswith(("hopper", "walker")) else np.inf
    for agent in env.agents:
        for i, feature in enumerate(env.observation_features[agent]):
            label = feature.label
            got = t["obs"][agent][:, i]
            if label.startswith(("qpos:", "qvel:")):
                kind, joint = label.split(":")
                jid = model.joint(joint).id
                if kind == "qpos":
                    want = t["q"][:, model.jnt_qposadr[jid]]
                else:
                    want = np.clip(t["qd"][:, model.jnt_dofadr[jid]], -clip, clip)
            elif label.startswith("global qpos"):
                index = int(label[len("global qpos[") : -1])
                # Brax's hopper and walker observe the torso's height in place of root z.
                if index == 1 and task.startswith(("hopper", "walker")):
                    want = t["torso_z"]
                else:
                    want = t["q"][:, index]
            elif label.startswith("global qvel"):
                want = np.clip(t["qd"][:, int(label[len("global qvel[") : -1])], -clip, clip)
            else:  # humanoid body features: read from the single-agent observation
                want = t["single_obs"][:, feature.obs_index]
            np.testing.assert_allclose(got, want, atol=1e-6, err_msg=f"{agent} {label}")
