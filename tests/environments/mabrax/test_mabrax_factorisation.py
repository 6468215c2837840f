"""MABrax factorisations: who drives which actuator and who sees which joint, checked
against Multi-Agent MuJoCo's published tables (written out here by hand); construction
errors; Brax as an optional dependency. Nothing here compiles physics."""

from __future__ import annotations

import subprocess
import sys

import jax.numpy as jnp
import mujoco
import numpy as np
import pytest

import jaxmarl
from jaxmarl.environments.mabrax import TASKS

# Multi-Agent MuJoCo (Gymnasium-Robotics MaMuJoCo v1): each agent's joints, and the
# joints one hop away in the robot's joint graph.
EXPECTED = {
    "ant_4x2": [
        (["hip_1", "ankle_1"], ["hip_2", "hip_3", "hip_4"]),
        (["hip_2", "ankle_2"], ["hip_1", "hip_3", "hip_4"]),
        (["hip_3", "ankle_3"], ["hip_1", "hip_2", "hip_4"]),
        (["hip_4", "ankle_4"], ["hip_1", "hip_2", "hip_3"]),
    ],
    "halfcheetah_6x1": [
        (["bthigh"], ["bshin", "fthigh"]),
        (["bshin"], ["bthigh", "bfoot"]),
        (["bfoot"], ["bshin"]),
        (["fthigh"], ["bthigh", "fshin"]),
        (["fshin"], ["fthigh", "ffoot"]),
        (["ffoot"], ["fshin"]),
    ],
    "hopper_3x1": [
        (["thigh_joint"], ["leg_joint"]),
        (["leg_joint"], ["thigh_joint", "foot_joint"]),
        (["foot_joint"], ["leg_joint"]),
    ],
    "humanoid_9|8": [
        (
            [
                "abdomen_x",
                "abdomen_y",
                "abdomen_z",
                "right_shoulder1",
                "right_shoulder2",
                "right_elbow",
                "left_shoulder1",
                "left_shoulder2",
                "left_elbow",
            ],
            ["right_hip_x", "right_hip_y", "right_hip_z", "left_hip_x", "left_hip_y", "left_hip_z"],
        ),
        (
            [
                "right_hip_x",
                "right_hip_y",
                "right_hip_z",
                "right_knee",
                "left_hip_x",
                "left_hip_y",
                "left_hip_z",
                "left_knee",
            ],
            ["abdomen_x", "abdomen_y", "abdomen_z"],
        ),
    ],
    "walker2d_2x3": [
        (["thigh_joint", "leg_joint", "foot_joint"], ["thigh_left_joint"]),
        (["thigh_left_joint", "leg_left_joint", "foot_left_joint"], ["thigh_joint"]),
    ],
}
# Global features: root positions (without x, y) and root velocities (qvel indices).
GLOBAL_QPOS = {"ant_4x2": [2, 3, 4, 5, 6], "humanoid_9|8": [2, 3, 4, 5, 6]}
GLOBAL_QVEL = {"ant_4x2": list(range(6)), "humanoid_9|8": list(range(6))}
ACTUATORS = {"ant_4x2": 8, "halfcheetah_6x1": 6, "hopper_3x1": 3, "humanoid_9|8": 17, "walker2d_2x3": 6}
IDS = list(EXPECTED)


@pytest.fixture(scope="module")
def envs():
    return {task: jaxmarl.make(task) for task in IDS}


def actuator_of(model, joint: str) -> int:
    """The actuator driving ``joint`` in the robot's MuJoCo model."""
    jid = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, joint)
    (hits,) = np.nonzero(model.actuator_trnid[:, 0] == jid)
    assert len(hits) == 1, joint
    return int(hits[0])


def test_registered_names_are_jaxmarls():
    assert set(IDS) <= set(jaxmarl.registered_envs)
    assert set(TASKS) == set(IDS)


@pytest.mark.parametrize("task", IDS)
def test_agents_drive_the_documented_joints(envs, task):
    env = envs[task]
    assert env.agents == [f"agent_{i}" for i in range(len(EXPECTED[task]))]
    for agent, (own, _) in zip(env.agents, EXPECTED[task], strict=True):
        assert sorted(env.agent_joints[agent]) == sorted(own)
        space = env.action_space(agent)
        assert space.shape == (len(own),)
        np.testing.assert_array_equal(space.low, -1.0)  # the single-agent task's range
        np.testing.assert_array_equal(space.high, 1.0)


@pytest.mark.parametrize("task", IDS)
def test_action_pieces_land_on_each_actuator_once(envs, task):
    """Every agent's action entries go to the actuators of its joints; together they
    cover every actuator of the robot exactly once."""
    env = envs[task]
    model = env.brax_env.sys.mj_model
    assert model.nu == ACTUATORS[task]
    # Distinct values per (agent, entry), inside the action space.
    values, expected, n = {}, {}, 0
    for agent in env.agents:
        joints = env.agent_joints[agent]
        piece = 0.3 * (np.arange(len(joints)) + n + 1) / model.nu
        values[agent] = jnp.asarray(piece, jnp.float32)
        for joint, v in zip(joints, piece, strict=True):
            expected[actuator_of(model, joint)] = v
        n += len(joints)
    assert sorted(expected) == list(range(model.nu))  # each actuator once
    action = np.asarray(env.assemble_action(values))
    assert action.shape == (model.nu,)
    np.testing.assert_allclose(action, [expected[i] for i in range(model.nu)], rtol=1e-6)


def test_actions_outside_the_space_are_clipped(envs):
    env = envs["humanoid_9|8"]
    big = {a: jnp.full(env.action_space(a).shape, 3.0) for a in env.agents}
    np.testing.assert_allclose(env.assemble_action(big), 1.0)


@pytest.mark.parametrize("task", IDS)
def test_local_observations_hold_exactly_the_documented_joints(envs, task):
    env = envs[task]
    body = task.startswith("humanoid")
    gq = GLOBAL_QPOS.get(task, [1, 2])
    gv = GLOBAL_QVEL.get(task, [0, 1, 2])
    for agent, (own, near) in zip(env.agents, EXPECTED[task], strict=True):
        labels = [f.label for f in env.observation_features[agent]]
        joint_labels = [lab for lab in labels if lab.startswith(("qpos:", "qvel:", "qfrc_actuator:"))]
        expected = {f"qpos:{j}" for j in own + near} | {f"qvel:{j}" for j in own}
        if body:
            expected |= {f"qfrc_actuator:{j}" for j in own}
        assert sorted(joint_labels) == sorted(expected), agent
        globals_ = [lab for lab in labels if lab.startswith("global")]
        assert globals_ == [f"global qpos[{i}]" for i in gq] + [f"global qvel[{i}]" for i in gv]
        if not body:
            assert len(labels) == len(expected) + len(gq) + len(gv)
        assert env.observation_space(agent).shape == (len(labels),)


def test_humanoid_agents_see_the_bodies_their_joints_move(envs):
    env = envs["humanoid_9|8"]
    upper, lower = (
        {
            lab.split(":")[1]
            for lab in (f.label for f in env.observation_features[a])
            if lab.startswith("cinert[0]")
        }
        for a in env.agents
    )
    assert upper == {
        "torso",
        "lwaist",
        "pelvis",
        "right_thigh",
        "left_thigh",
        "right_upper_arm",
        "right_lower_arm",
        "left_upper_arm",
        "left_lower_arm",
    }
    assert lower == {"right_thigh", "right_shin", "left_thigh", "left_shin"}
    sizes = [env.observation_space(a).shape[0] for a in env.agents]
    # 27 joint entries + 6 neighbours + 11 global; 9 bodies x 16; and 24 + 3 + 11; 4 x 16
    assert sizes == [27 + 6 + 11 + 9 * 16, 24 + 3 + 11 + 4 * 16]


def test_agent_obsk_sets_how_far_agents_see():
    own_only = jaxmarl.make("ant_4x2", agent_obsk=0)
    labels = [f.label for f in own_only.observation_features["agent_0"] if not f.label.startswith("global")]
    assert labels == ["qpos:hip_1", "qvel:hip_1", "qpos:ankle_1", "qvel:ankle_1"]
    far = jaxmarl.make("ant_4x2", agent_obsk=2)  # two hops: the other hips, then their ankles
    labels = {f.label for f in far.observation_features["agent_0"]}
    joints = [j for part in TASKS["ant_4x2"].parts for j in part]
    assert {f"qpos:{j}" for j in joints} <= labels
    assert far.observation_space("agent_0").shape == (4 + 6 + 11,)


def test_velocities_hopper_and_walker_clip_are_bounded_in_the_space(envs):
    for task in ["hopper_3x1", "walker2d_2x3"]:
        env = envs[task]
        for agent in env.agents:
            space = env.observation_space(agent)
            for f, lo, hi in zip(env.observation_features[agent], space.low, space.high, strict=True):
                bound = 10.0 if "qvel" in f.label else np.inf
                assert (lo, hi) == (-bound, bound), f.label


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"task": "ant_8x1"}, "unknown task 'ant_8x1'"),
        ({"agent_obsk": -1}, "agent_obsk must be an integer >= 0"),
        ({"episode_length": 0}, "episode_length must be an integer >= 1"),
        ({"backend": "physx"}, "unknown backend 'physx'"),
    ],
)
def test_bad_arguments_are_clear_errors(kwargs, message):
    from jaxmarl.environments.mabrax import MABrax

    with pytest.raises(ValueError, match=message):
        MABrax(**kwargs)


def test_without_brax_import_works_and_make_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "brax", None)  # any `import brax` now fails
    with pytest.raises(ImportError, match=r'pip install "jaxmarl\[brax\]"'):
        jaxmarl.make("ant_4x2")


def test_importing_jaxmarl_does_not_import_brax():
    code = (
        "import sys; sys.modules['brax'] = None\n"
        "import jaxmarl, jaxmarl.environments.mabrax\n"
        "assert 'ant_4x2' in jaxmarl.registered_envs\n"
        "try:\n    jaxmarl.make('hopper_3x1')\nexcept ImportError as e:\n    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert 'pip install "jaxmarl[brax]"' in out.stdout


def test_making_a_task_prints_nothing():
    # MJX prints "Failed to import warp" to stdout on import when NVIDIA Warp is absent;
    # a user building an env (or a doctest) must not see it.
    code = "import jaxmarl; jaxmarl.make('hopper_3x1')"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout == ""
