"""Multi-Agent MuJoCo's factorisations of the five Brax robots, as plain data.

Each task splits one robot's actuated joints among agents and says what each agent
observes. The definitions follow Multi-Agent MuJoCo (de Witt et al., 2020, "Deep
Multi-Agent Reinforcement Learning for Decentralized Continuous Cooperative Control")
in the revised form Gymnasium-Robotics publishes (MaMuJoCo v1): the joint graph of each
robot (hyper-edges joining joints that share a body or a limb), the partition of its
joints among agents, and the global features every agent sees.

An agent's local observation, built by :func:`observation_layout`:

- for each of its own joints (hop 0): the joint's position and velocity, and for the
  humanoid also the inertia and velocity of the bodies the joint moves and the actuator
  force on the joint (``cinert``, ``cvel``, ``qfrc_actuator``);
- for each joint 1 to ``k`` hops away in the joint graph: the joint's position;
- the robot's global features: the root's positions (without the ``x``/``y``
  position, which the single-agent task hides too) followed by its velocities.

Within a hop level joints are listed in the robot's actuator order; a body's features
appear once per agent even when several of its joints move that body. Every feature is
read from the single-agent Brax observation, so an agent sees nothing the single-agent
task does not: Multi-Agent MuJoCo's contact forces (``cfrc_ext``, Ant and Humanoid) are
left out because Brax's tasks do not observe them.

This module needs neither Brax nor JAX; ``env.py`` resolves joint names to indices with
the robot's MuJoCo model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

__all__ = ["TASKS", "Feature", "RobotLayout", "Task", "joints_within", "observation_layout"]


@dataclass(frozen=True)
class Task:
    """One factorisation of one robot.

    Attributes:
        robot: the Brax environment name (``brax.envs.get_environment``).
        parts: per agent, the joints it actuates, in the robot's actuator order.
        edges: hyper-edges of the joint graph: joints in one edge are neighbours.
        global_qpos: ``qpos`` indices every agent observes (the root's, minus x/y).
        global_qvel: ``qvel`` indices every agent observes.
        local_categories: features observed of each own joint (hop 0).
        bodies: per joint, the bodies whose ``cinert``/``cvel`` its agent observes
            (humanoid only).
    """

    robot: str
    parts: tuple[tuple[str, ...], ...]
    edges: tuple[frozenset[str], ...]
    global_qpos: tuple[int, ...]
    global_qvel: tuple[int, ...]
    local_categories: tuple[str, ...] = ("qpos", "qvel")
    bodies: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def num_agents(self) -> int:
        return len(self.parts)

    @property
    def joints(self) -> tuple[str, ...]:
        """Every actuated joint, agent by agent."""
        return tuple(j for part in self.parts for j in part)


def _edges(*groups: Sequence[str]) -> tuple[frozenset[str], ...]:
    return tuple(frozenset(g) for g in groups)


_HUMANOID_TORSO = ("torso", "lwaist", "pelvis")

TASKS: dict[str, Task] = {
    # Four legs, each a hip and an ankle; the four hips share the torso.
    "ant_4x2": Task(
        robot="ant",
        parts=(("hip_1", "ankle_1"), ("hip_2", "ankle_2"), ("hip_3", "ankle_3"), ("hip_4", "ankle_4")),
        edges=_edges(
            ("ankle_4", "hip_4"),
            ("ankle_1", "hip_1"),
            ("ankle_2", "hip_2"),
            ("ankle_3", "hip_3"),
            ("hip_4", "hip_1", "hip_2", "hip_3"),
        ),
        global_qpos=(2, 3, 4, 5, 6),  # torso z and orientation quaternion
        global_qvel=(0, 1, 2, 3, 4, 5),  # torso linear and angular velocity
    ),
    # A chain: back foot - back shin - back thigh - front thigh - front shin - front foot.
    "halfcheetah_6x1": Task(
        robot="halfcheetah",
        parts=(("bthigh",), ("bshin",), ("bfoot",), ("fthigh",), ("fshin",), ("ffoot",)),
        edges=_edges(
            ("bfoot", "bshin"),
            ("bshin", "bthigh"),
            ("bthigh", "fthigh"),
            ("fthigh", "fshin"),
            ("fshin", "ffoot"),
        ),
        global_qpos=(1, 2),  # root z, root pitch (root x is hidden)
        global_qvel=(0, 1, 2),
    ),
    "hopper_3x1": Task(
        robot="hopper",
        parts=(("thigh_joint",), ("leg_joint",), ("foot_joint",)),
        edges=_edges(("foot_joint", "leg_joint"), ("leg_joint", "thigh_joint")),
        global_qpos=(1, 2),
        global_qvel=(0, 1, 2),
    ),
    # Upper body (abdomen and arms) and lower body (legs).
    "humanoid_9|8": Task(
        robot="humanoid",
        parts=(
            (
                "abdomen_y",
                "abdomen_z",
                "abdomen_x",
                "right_shoulder1",
                "right_shoulder2",
                "right_elbow",
                "left_shoulder1",
                "left_shoulder2",
                "left_elbow",
            ),
            (
                "right_hip_x",
                "right_hip_z",
                "right_hip_y",
                "right_knee",
                "left_hip_x",
                "left_hip_z",
                "left_hip_y",
                "left_knee",
            ),
        ),
        edges=_edges(
            ("abdomen_x", "abdomen_y", "abdomen_z"),
            ("right_hip_x", "right_hip_y", "right_hip_z"),
            ("left_hip_x", "left_hip_y", "left_hip_z"),
            ("left_elbow", "left_shoulder1", "left_shoulder2"),
            ("right_elbow", "right_shoulder1", "right_shoulder2"),
            ("left_knee", "left_hip_x", "left_hip_y", "left_hip_z"),
            ("right_knee", "right_hip_x", "right_hip_y", "right_hip_z"),
            ("left_shoulder1", "left_shoulder2", "abdomen_x", "abdomen_y", "abdomen_z"),
            ("right_shoulder1", "right_shoulder2", "abdomen_x", "abdomen_y", "abdomen_z"),
            ("abdomen_x", "abdomen_y", "abdomen_z", "left_hip_x", "left_hip_y", "left_hip_z"),
            ("abdomen_x", "abdomen_y", "abdomen_z", "right_hip_x", "right_hip_y", "right_hip_z"),
        ),
        global_qpos=(2, 3, 4, 5, 6),
        global_qvel=(0, 1, 2, 3, 4, 5),
        local_categories=("qpos", "qvel", "cinert", "cvel", "qfrc_actuator"),
        bodies={
            "abdomen_y": _HUMANOID_TORSO,
            "abdomen_z": _HUMANOID_TORSO,
            "abdomen_x": ("pelvis", "right_thigh", "left_thigh"),
            "right_hip_x": ("right_thigh", "right_shin"),
            "right_hip_z": ("right_thigh", "right_shin"),
            "right_hip_y": ("right_thigh", "right_shin"),
            "right_knee": ("right_shin",),  # Brax's humanoid has no foot bodies
            "left_hip_x": ("left_thigh", "left_shin"),
            "left_hip_z": ("left_thigh", "left_shin"),
            "left_hip_y": ("left_thigh", "left_shin"),
            "left_knee": ("left_shin",),
            "right_shoulder1": ("torso", "right_upper_arm", "right_lower_arm"),
            "right_shoulder2": ("torso", "right_upper_arm", "right_lower_arm"),
            "right_elbow": ("right_lower_arm",),
            "left_shoulder1": ("torso", "left_upper_arm", "left_lower_arm"),
            "left_shoulder2": ("torso", "left_upper_arm", "left_lower_arm"),
            "left_elbow": ("left_lower_arm",),
        },
    ),
    # Two legs of thigh, leg and foot; the thighs share the torso.
    "walker2d_2x3": Task(
        robot="walker2d",
        parts=(
            ("thigh_joint", "leg_joint", "foot_joint"),
            ("thigh_left_joint", "leg_left_joint", "foot_left_joint"),
        ),
        edges=_edges(
            ("foot_joint", "leg_joint"),
            ("leg_joint", "thigh_joint"),
            ("foot_left_joint", "leg_left_joint"),
            ("leg_left_joint", "thigh_left_joint"),
            ("thigh_joint", "thigh_left_joint"),
        ),
        global_qpos=(1, 2),
        global_qvel=(0, 1, 2),
    ),
}


def joints_within(task: Task, agent: int, k: int, rank: Mapping[str, int] | None = None) -> list[list[str]]:
    """The joints ``0, 1, ..., k`` hops from an agent's own joints in the joint graph.

    Returns ``k + 1`` lists: the agent's own joints, then at each further hop the joints
    not seen at a smaller one, each list sorted by ``rank`` (default: ``task.joints``
    order; ``env.py`` passes the actuator order).
    """
    if k < 0:
        raise ValueError(f"k must be >= 0, got {k}")
    if rank is None:
        rank = {j: i for i, j in enumerate(task.joints)}
    seen = set(task.parts[agent])
    levels = [sorted(seen, key=rank.__getitem__)]
    frontier = set(seen)
    for _ in range(k):
        nxt = {n for j in frontier for e in task.edges if j in e for n in e} - seen
        seen |= nxt
        frontier = nxt
        levels.append(sorted(nxt, key=rank.__getitem__))
    return levels


@dataclass(frozen=True)
class RobotLayout:
    """Where things are in the robot's MuJoCo model and the single-agent observation.

    Attributes:
        qpos: joint name -> its ``qpos`` index.
        qvel: joint name -> its ``qvel`` (dof) index.
        actuator: joint name -> index of the actuator driving it.
        body: body name -> body index (0 is the world).
        nq, nv: sizes of ``qpos`` and ``qvel``.
        qpos_skip: leading ``qpos`` entries the observation leaves out (root x, y).
        num_bodies: bodies including the world.
    """

    qpos: Mapping[str, int]
    qvel: Mapping[str, int]
    actuator: Mapping[str, int]
    body: Mapping[str, int]
    nq: int
    nv: int
    qpos_skip: int
    num_bodies: int

    def obs_index(self, category: str, index: int) -> int:
        """Index in the single-agent observation of ``qpos[index]``, ``qvel[index]``,
        or (humanoid) ``cinert[body]``'s first entry, ``cvel[body]``'s, or
        ``qfrc_actuator[dof]``.

        The observation is ``qpos[qpos_skip:], qvel`` and, for the humanoid,
        ``cinert`` (10 per body but the world), ``cvel`` (6 per body) and
        ``qfrc_actuator`` (one per dof).
        """
        links = self.num_bodies - 1
        if category == "qpos":
            if index < self.qpos_skip:
                raise ValueError(f"qpos[{index}] is not observed")
            return index - self.qpos_skip
        start = self.nq - self.qpos_skip
        if category == "qvel":
            return start + index
        start += self.nv
        if category == "cinert":
            return start + 10 * (index - 1)
        start += 10 * links
        if category == "cvel":
            return start + 6 * (index - 1)
        start += 6 * links
        if category == "qfrc_actuator":
            return start + index
        raise ValueError(f"unknown observation category {category!r}")

    def obs_size(self, body_features: bool) -> int:
        """Length of the single-agent observation (``body_features``: the humanoid's)."""
        size = self.nq - self.qpos_skip + self.nv
        return size + 16 * (self.num_bodies - 1) + self.nv if body_features else size


@dataclass(frozen=True)
class Feature:
    """One observed scalar: what it is and where it sits in the single-agent observation."""

    label: str  # e.g. "qpos:hip_1", "cinert[3]:torso", "global qvel[0]"
    obs_index: int


def observation_layout(task: Task, layout: RobotLayout, agent: int, k: int) -> list[Feature]:
    """The features of one agent's local observation, in order (see the module docstring)."""
    levels = joints_within(task, agent, k, layout.actuator)
    features: list[Feature] = []
    seen_bodies: dict[str, set[str]] = {"cinert": set(), "cvel": set()}
    for joint in levels[0]:
        for category in task.local_categories:
            if category in ("qpos", "qvel", "qfrc_actuator"):
                source = layout.qpos if category == "qpos" else layout.qvel
                start = layout.obs_index(category, source[joint])
                features.append(Feature(f"{category}:{joint}", start))
            else:  # cinert / cvel of the bodies the joint moves, each body once
                width = 10 if category == "cinert" else 6
                for body in task.bodies[joint]:
                    if body in seen_bodies[category]:
                        continue
                    seen_bodies[category].add(body)
                    start = layout.obs_index(category, layout.body[body])
                    features.extend(Feature(f"{category}[{i}]:{body}", start + i) for i in range(width))
    for level in levels[1:]:
        features.extend(Feature(f"qpos:{j}", layout.obs_index("qpos", layout.qpos[j])) for j in level)
    features.extend(Feature(f"global qpos[{i}]", layout.obs_index("qpos", i)) for i in task.global_qpos)
    features.extend(Feature(f"global qvel[{i}]", layout.obs_index("qvel", i)) for i in task.global_qvel)
    return features
