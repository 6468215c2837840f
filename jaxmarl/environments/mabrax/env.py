"""MABrax: Multi-Agent MuJoCo's factorisations of Brax's locomotion tasks.

One robot, one shared reward: each agent drives some of the robot's joints and sees
only the state near them. The physics, reward and termination are those of the
single-agent Brax task (Freeman et al., 2021), whose rules mirror Gymnasium's MuJoCo
tasks; the factorisations are Multi-Agent MuJoCo's (de Witt et al., 2020) as
Gymnasium-Robotics defines them (``factorisation.py``). The JaxMARL paper (Rutherford
et al., 2024, appendix B.8) calls this suite MABrax.

One transition (``step_env``):

1. Each agent's action (one entry per joint it drives, in the robot's actuator order)
   is clipped to its action space, ``[-1, 1]`` (the single-agent task's action range;
   Brax's humanoid scales it to its actuators' ``[-0.4, 0.4]``), and the pieces are
   assembled into the robot's action vector.
2. The single-agent Brax task steps with that vector: physics, reward, ``done``.
3. Every agent receives the task's reward; the episode terminates when the task is
   done (the robot fell) and is truncated after ``episode_length`` steps.
4. Each agent observes its own joints, the joints within ``agent_obsk`` hops of them,
   and the robot's root (``factorisation.observation_layout``); ``get_global_state``
   is the single-agent observation.

Brax is an optional dependency (``pip install "jaxmarl[brax]"``), imported when an
environment is built.
"""

from __future__ import annotations

import contextlib
import functools
import io
import re
import warnings
from typing import Any, ClassVar

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.mabrax.factorisation import TASKS, Feature, RobotLayout, Task, observation_layout
from jaxmarl.environments.mabrax.types import State
from jaxmarl.environments.multi_agent_env import MultiAgentEnv
from jaxmarl.environments.spaces import Box

__all__ = ["BACKENDS", "DEFAULT_BACKEND", "MABrax"]

BACKENDS = ("mjx", "generalized", "positional", "spring")
"""Brax's physics pipelines."""

DEFAULT_BACKEND = "positional"
"""JaxMARL 0.2.0's physics (Brax's position-based pipeline): the same trajectories as
JaxMARL's MABrax, at about its speed. ``"mjx"`` (MuJoCo's own algorithms) is the most
faithful to MuJoCo; docs/environments/mabrax.md gives the trade-off."""

# Brax's hopper and walker clip the velocities they observe to [-10, 10].
_CLIPPED_QVEL = {"hopper": 10.0, "walker2d": 10.0}


# MuJoCo's MJX prints these to stdout on import when the optional NVIDIA Warp backend is
# absent; MABrax never uses Warp, so they are dropped (any other output passes through).
_WARP_NOTICE = re.compile(r"^Failed to import (mujoco_)?warp: ")


def _load_brax_envs() -> Any:
    captured = io.StringIO()
    try:
        with contextlib.redirect_stdout(captured):
            from brax import envs
    except ImportError as err:
        raise ImportError(
            'MABrax environments need Brax, an optional dependency: pip install "jaxmarl[brax]"'
        ) from err
    finally:
        kept = [line for line in captured.getvalue().splitlines() if not _WARP_NOTICE.match(line)]
        if kept:
            print("\n".join(kept))
    return envs


def _quiet_mujoco_warnings() -> Any:
    """Route MuJoCo's warnings (e.g. the humanoid model's deprecated ``settotalmass``)
    to Python's ``warnings`` while Brax loads a model, instead of MUJOCO_LOG.TXT in the
    working directory. Returns a function restoring the previous handler."""
    import mujoco

    previous = mujoco.get_mju_user_warning()
    mujoco.set_mju_user_warning(lambda message: warnings.warn(f"MuJoCo: {message}", stacklevel=2))
    return lambda: mujoco.set_mju_user_warning(previous)


def _robot_layout(task: Task, mj_model: Any) -> RobotLayout:
    """Joint, actuator and body indices of the robot, looked up by name."""
    import mujoco  # installed with brax

    def joint_id(name: str) -> int:
        jid = mujoco.mj_name2id(mj_model, mujoco.mjtObj.mjOBJ_JOINT, name)
        if jid < 0:
            raise ValueError(f"the {task.robot} model has no joint {name!r}")
        return int(jid)

    actuated = {int(mj_model.actuator_trnid[a, 0]): a for a in range(mj_model.nu)}
    joints = task.joints
    if sorted(actuated[joint_id(j)] for j in joints) != list(range(mj_model.nu)):
        raise ValueError(f"the factorisation of {task.robot} must drive each of its actuators once")
    skip = 2 if int(mj_model.jnt_type[0]) == mujoco.mjtJoint.mjJNT_FREE else 1
    return RobotLayout(
        qpos={j: int(mj_model.jnt_qposadr[joint_id(j)]) for j in joints},
        qvel={j: int(mj_model.jnt_dofadr[joint_id(j)]) for j in joints},
        actuator={j: actuated[joint_id(j)] for j in joints},
        body={mj_model.body(b).name: b for b in range(mj_model.nbody) if mj_model.body(b).name},
        nq=int(mj_model.nq),
        nv=int(mj_model.nv),
        qpos_skip=skip,
        num_bodies=int(mj_model.nbody),
    )


class MABrax(MultiAgentEnv):
    """A Brax robot whose joints are split among agents (Multi-Agent MuJoCo).

    Example:
        >>> import jax, jaxmarl
        >>> env = jaxmarl.make("hopper_3x1")
        >>> env.agents
        ['agent_0', 'agent_1', 'agent_2']
        >>> env.action_space("agent_0").shape, env.observation_space("agent_0").shape
        ((1,), (8,))

    Args:
        task: one of ``ant_4x2``, ``halfcheetah_6x1``, ``hopper_3x1``,
            ``humanoid_9|8``, ``walker2d_2x3``.
        agent_obsk: how many hops away in the joint graph an agent sees joints
            (0: only its own; Multi-Agent MuJoCo's default 1).
        episode_length: steps before the episode is truncated (1000, as Gymnasium's).
        backend: Brax's physics pipeline, one of ``BACKENDS`` (default ``positional``,
            JaxMARL 0.2.0's; ``mjx`` for MuJoCo's own algorithms).

    Observations, ``(obs_dim,)`` float32 per agent: see ``observation_features``.
    Actions, ``(num_joints,)`` float32 per agent, one torque per joint it drives in
    the order of ``agent_joints``.
    """

    def __init__(
        self,
        task: str = "ant_4x2",
        agent_obsk: int = 1,
        episode_length: int = 1000,
        backend: str = DEFAULT_BACKEND,
    ) -> None:
        if task not in TASKS:
            raise ValueError(f"MABrax: unknown task {task!r}; choose one of {sorted(TASKS)}")
        if isinstance(agent_obsk, bool) or not isinstance(agent_obsk, (int, np.integer)) or agent_obsk < 0:
            raise ValueError(f"MABrax: agent_obsk must be an integer >= 0, got {agent_obsk!r}")
        if (
            isinstance(episode_length, bool)
            or not isinstance(episode_length, (int, np.integer))
            or episode_length < 1
        ):
            raise ValueError(f"MABrax: episode_length must be an integer >= 1, got {episode_length!r}")
        if backend not in BACKENDS:
            raise ValueError(f"MABrax: unknown backend {backend!r}; choose one of {list(BACKENDS)}")
        envs = _load_brax_envs()
        self.task_name = task
        self.task = TASKS[task]
        self.backend = backend
        self.agent_obsk = int(agent_obsk)
        self.max_steps = self._episode_length = int(episode_length)
        restore = _quiet_mujoco_warnings()
        try:
            self.brax_env = envs.get_environment(self.task.robot, backend=backend)
        finally:
            restore()
        mj_model = self.brax_env.sys.mj_model
        self.layout = _robot_layout(self.task, mj_model)
        super().__init__(num_agents=self.task.num_agents)
        self.agents = [f"agent_{i}" for i in range(self.num_agents)]

        # Actions: the agents' pieces, concatenated in agent order, are permuted into
        # actuator order with one gather.
        self.agent_joints = {a: part for a, part in zip(self.agents, self.task.parts, strict=True)}
        actuator_of_piece = np.array([self.layout.actuator[j] for j in self.task.joints])
        self._action_order = jnp.asarray(np.argsort(actuator_of_piece))
        for agent, part in self.agent_joints.items():
            self.action_spaces[agent] = Box(-1.0, 1.0, (len(part),))

        # Observations: one gather of the single-agent observation per step.
        body_features = "cinert" in self.task.local_categories
        self.obs_size = self.layout.obs_size(body_features)
        self.observation_features: dict[str, list[Feature]] = {
            a: observation_layout(self.task, self.layout, i, self.agent_obsk)
            for i, a in enumerate(self.agents)
        }
        low, high = self._single_agent_bounds()
        widths = [len(f) for f in self.observation_features.values()]
        index = np.zeros((self.num_agents, max(widths)), np.int32)
        for i, feats in enumerate(self.observation_features.values()):
            ids = [f.obs_index for f in feats]
            index[i, : len(ids)] = ids
            self.observation_spaces[self.agents[i]] = Box(low[ids], high[ids], (len(ids),))
        self._obs_index = jnp.asarray(index)
        self._obs_widths = widths
        self.global_state_space = Box(low, high, (self.obs_size,))

    # ------------------------------------------------------ JaxMARL 0.2.0's names
    # JaxMARL's settings, fixed here: one physics step per environment step, automatic
    # resets (in ``step``), each agent with its own observation and action sizes.
    action_repeat: ClassVar[int] = 1
    auto_reset: ClassVar[bool] = True
    homogenisation_method: ClassVar[str | None] = None

    @property
    def episode_length(self) -> int:
        """Steps before the episode is truncated (``max_steps``)."""
        return self._episode_length

    @property
    def env(self) -> Any:
        """The single-agent Brax task (``brax_env``; our state holds its state, see
        :meth:`brax_state`)."""
        return self.brax_env

    @property
    def sys(self) -> Any:
        """The robot's Brax system."""
        return self.brax_env.sys

    @property
    def agent_action_mapping(self) -> dict[str, jax.Array]:
        """The entries of the robot's action vector each agent drives, in its action's order."""
        return {
            a: jnp.asarray([self.layout.actuator[j] for j in part]) for a, part in self.agent_joints.items()
        }

    @property
    def agent_obs_mapping(self) -> dict[str, jax.Array]:
        """The entries of the single-agent observation (``get_global_state``) each agent
        observes, in its observation's order."""
        return {
            a: jnp.asarray([f.obs_index for f in feats]) for a, feats in self.observation_features.items()
        }

    def map_agents_to_global_action(self, agent_actions: dict[str, jax.Array]) -> jax.Array:
        """The robot's action vector from the agents' actions (:meth:`assemble_action`)."""
        return self.assemble_action(agent_actions)

    def map_global_obs_to_agents(self, global_obs: jax.Array) -> dict[str, jax.Array]:
        """Each agent's observation from the single-agent observation ``(obs_size,)``."""
        gathered = global_obs[self._obs_index]
        return {a: gathered[i, : self._obs_widths[i]] for i, a in enumerate(self.agents)}

    def _single_agent_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        high = np.full(self.obs_size, np.inf, np.float32)
        clip = _CLIPPED_QVEL.get(self.task.robot)
        if clip is not None:
            start = self.layout.obs_index("qvel", 0)
            high[start : start + self.layout.nv] = clip
        return -high, high

    @property
    def name(self) -> str:
        return f"MABrax({self.task_name})"

    @functools.cached_property
    def _brax_treedef(self) -> Any:
        """Structure of the Brax task's state (traced once, on first use)."""
        return jax.tree.structure(jax.eval_shape(self.brax_env.reset, jax.random.PRNGKey(0)))

    def brax_state(self, state: State) -> Any:
        """The single-agent Brax task's state (``brax.envs.State``) inside ``state``."""
        return jax.tree.unflatten(self._brax_treedef, state.physics)

    def _wrap(self, brax_state: Any, step: jax.Array) -> State:
        leaves, treedef = jax.tree.flatten(brax_state)
        if treedef != self._brax_treedef:
            raise RuntimeError(f"{self.name}: the Brax state changed structure")
        return State(physics=tuple(leaves), step=step)

    # ------------------------------------------------------------------ actions
    def assemble_action(self, actions: dict[str, jax.Array]) -> jax.Array:
        """The robot's action vector ``(num_actuators,)`` from the agents' actions,
        each clipped to its action space."""
        pieces = jnp.concatenate([jnp.asarray(actions[a], jnp.float32).reshape(-1) for a in self.agents])
        pieces = jnp.clip(pieces, -1.0, 1.0)
        return pieces[self._action_order]

    # --------------------------------------------------------------- transitions
    def reset_env(self, key: jax.Array) -> tuple[dict[str, jax.Array], State]:
        state = self._wrap(self.brax_env.reset(key), jnp.zeros((), jnp.int32))
        return self.get_obs(state), state

    def step_env(
        self, key: jax.Array, state: State, actions: dict[str, jax.Array]
    ) -> tuple[dict[str, jax.Array], State, dict[str, jax.Array], dict[str, jax.Array], dict]:
        del key  # the physics is deterministic
        brax_state = self.brax_env.step(self.brax_state(state), self.assemble_action(actions))
        state = self._wrap(brax_state, state.step + 1)
        reward = brax_state.reward.astype(jnp.float32)
        terminated = brax_state.done > 0
        rewards = {a: reward for a in self.agents}
        dones = {a: terminated for a in self.agents}
        dones["__all__"] = terminated
        return self.get_obs(state), state, rewards, dones, {}

    # -------------------------------------------------------------- observations
    def get_obs(self, state: State) -> dict[str, jax.Array]:
        return self.map_global_obs_to_agents(self.brax_state(state).obs)

    def get_global_state(self, state: State) -> jax.Array:
        """The single-agent Brax observation ``(obs_size,)``: the full robot state."""
        return self.brax_state(state).obs

    def render(self, state: State, size: int = 200) -> jax.Array:
        """A side view (x right, z up) of the robot, each limb in its agent's colour,
        ``uint8`` ``(size, size, 3)``.

        ``size`` is the image's longer side in pixels (here both sides: the view is
        square and its scale grows with it; 200 pixels span 3 m), a Python ``int`` fixed
        at trace time; ``ValueError`` unless positive."""
        from jaxmarl.environments.mabrax.viewer import render_side_view
        from jaxmarl.viz.raster import check_size

        return render_side_view(self, state, check_size(size))
