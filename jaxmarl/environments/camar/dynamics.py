"""Agent dynamics of CAMAR (paper section "Dynamic Model & Action Space"; camar 0.4.0).

Every dynamic maps ``(force, physical state, actions)`` to the physical state one
integration step ``dt`` later; the environment calls it ``frameskip + 1`` times per
``step``, recomputing the contact force before each call. Actions are in ``[-1, 1]^2``.

- :class:`HolonomicDynamic`: a point mass pushed by ``accel * action`` plus the contact
  force; semi-implicit Euler with damping and a speed limit::

      v <- (1 - damping) v + (force + accel * action) / mass * dt
      v <- v / |v| * max_speed          if |v| > max_speed (and max_speed >= 0)
      x <- x + v dt

- :class:`DiffDriveDynamic`: a differential-drive robot. The actions map linearly onto
  ``[linear_speed_min, linear_speed_max]`` and ``[angular_speed_min,
  angular_speed_max]`` (then clipped); the contact force adds ``force / mass * dt`` to
  the velocity; the heading is wrapped into ``[-pi, pi)``. Robots start facing their goal.
- :class:`MixedDynamic`: consecutive groups of agents, each with its own dynamic, in one
  world (all must share ``dt``).

Integrators. ``integrate`` is camar's scheme, the environment's default
(``integrator="euler"``). ``derivative`` gives the continuous-time model that scheme
discretises, for ``integrator="rk4"`` (classical fourth-order Runge-Kutta, four contact
force evaluations per ``dt``):

- holonomic: ``dx/dt = v``, ``dv/dt = -(damping / dt) v + (force + accel * action) / mass``;
  ``damping`` is the velocity decay per step ``dt``, so ``damping / dt`` is a rate per
  unit time and ``(damping, dt) = (1.25, 0.05)`` is the same model as ``(0.25, 0.01)``.
  Euler needs ``damping < 1`` (beyond, the velocity flips sign every step); RK4 is stable
  up to ``damping`` about 2.7. The speed limit is applied after every step.
- differential drive: ``dx/dt = u (cos theta, sin theta) + force / mass * dt`` (camar's
  contact push, a velocity proportional to ``dt``), ``d theta/dt = omega``; the velocity
  reported after a step is the mean ``dx/dt`` over it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp

from jaxmarl.environments.camar.spatial import length

__all__ = ["DYNAMICS", "DiffDriveDynamic", "Dynamic", "HolonomicDynamic", "MixedDynamic", "make_dynamic"]


def _positive(owner: str, name: str, value: Any, allow_zero: bool = False) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{owner}: {name} must be a number, got {value!r}") from None
    if not (x >= 0 if allow_zero else x > 0):
        raise ValueError(
            f"{owner}: {name} must be {'non-negative' if allow_zero else 'positive'}, got {value!r}"
        )
    return x


class Dynamic:
    """Base of the dynamics: ``action_size``, ``dt``, ``initial_angle`` and ``integrate``."""

    action_size = 2
    dt: float
    #: per-agent tag written in the state (0 holonomic, 1 differential drive)
    kind = 0
    #: whether the velocity is set by the action each step rather than integrated
    kinematic = False

    def integrate(
        self, force: jax.Array, pos: jax.Array, vel: jax.Array, angle: jax.Array, actions: jax.Array
    ) -> tuple[jax.Array, jax.Array, jax.Array]:
        """One step: ``force``, ``pos``, ``vel`` ``(n, 2)``, ``angle`` ``(n,)``,
        ``actions`` ``(n, 2)`` -> new ``(pos, vel, angle)``."""
        raise NotImplementedError

    def derivative(
        self, force: jax.Array, pos: jax.Array, vel: jax.Array, angle: jax.Array, actions: jax.Array
    ) -> tuple[jax.Array, jax.Array, jax.Array]:
        """Time derivatives ``(dpos, dvel, dangle)`` of the continuous-time model (module
        docstring), same shapes as the state."""
        raise NotImplementedError

    def project(self, vel: jax.Array, angle: jax.Array) -> tuple[jax.Array, jax.Array]:
        """Constraints applied after each Runge-Kutta step (speed limit, heading wrap)."""
        return vel, angle

    def check_integrator(self, integrator: str) -> None:
        """Raise ``ValueError`` if this dynamic cannot run under ``integrator``."""

    def kinematic_mask(self, num_agents: int) -> list[bool]:
        """Per agent: whether its velocity follows from the action (no velocity state)."""
        return [self.kinematic] * num_agents

    def initial_angle(self, agent_pos: jax.Array, goal_pos: jax.Array) -> jax.Array:
        """Heading of each agent at reset, ``(n,)``."""
        return jnp.zeros(agent_pos.shape[:1], agent_pos.dtype)

    def kinds(self, num_agents: int) -> list[int]:
        """The dynamic kind of each agent (for rendering and the global state)."""
        return [self.kind] * num_agents

    def config(self) -> dict[str, Any]:
        """Keyword arguments that rebuild this dynamic."""
        raise NotImplementedError

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.config().items())
        return f"{type(self).__name__}({args})"


class HolonomicDynamic(Dynamic):
    """Point mass with damping and a speed limit (module docstring).

    Args:
        accel: force per unit of action.
        max_speed: speed limit (negative: none).
        damping: velocity decay per step ``dt``, at least 0; below 1 for the Euler
            integrator (module docstring).
        mass: agent mass.
        dt: integration step.
    """

    kind = 0

    def __init__(
        self,
        accel: float = 5.0,
        max_speed: float = 6.0,
        damping: float = 0.25,
        mass: float = 1.0,
        dt: float = 0.01,
    ) -> None:
        owner = "HolonomicDynamic"
        self.accel = _positive(owner, "accel", accel)
        self.max_speed = float(max_speed)
        self.damping = _positive(owner, "damping", damping, allow_zero=True)
        self.mass = _positive(owner, "mass", mass)
        self.dt = _positive(owner, "dt", dt)

    def config(self) -> dict[str, Any]:
        return {
            "accel": self.accel,
            "max_speed": self.max_speed,
            "damping": self.damping,
            "mass": self.mass,
            "dt": self.dt,
        }

    def integrate(
        self, force: jax.Array, pos: jax.Array, vel: jax.Array, angle: jax.Array, actions: jax.Array
    ) -> tuple[jax.Array, jax.Array, jax.Array]:
        vel = (1 - self.damping) * vel
        vel = vel + (force + self.accel * actions) / self.mass * self.dt
        if self.max_speed >= 0:
            speed = length(vel, keepdims=True)
            vel = jnp.where(speed > self.max_speed, vel / speed * self.max_speed, vel)
        return pos + vel * self.dt, vel, angle

    def check_integrator(self, integrator: str) -> None:
        if integrator == "euler" and not self.damping < 1.0:
            raise ValueError(
                f"HolonomicDynamic: damping must be below 1 for the Euler integrator, got {self.damping!r} "
                "(the velocity would flip sign every step); lower it, or use integrator='rk4'"
            )

    def derivative(
        self, force: jax.Array, pos: jax.Array, vel: jax.Array, angle: jax.Array, actions: jax.Array
    ) -> tuple[jax.Array, jax.Array, jax.Array]:
        dvel = -(self.damping / self.dt) * vel + (force + self.accel * actions) / self.mass
        return vel, dvel, jnp.zeros_like(angle)

    def project(self, vel: jax.Array, angle: jax.Array) -> tuple[jax.Array, jax.Array]:
        if self.max_speed >= 0:
            speed = length(vel, keepdims=True)
            vel = jnp.where(speed > self.max_speed, vel / speed * self.max_speed, vel)
        return vel, angle


class DiffDriveDynamic(Dynamic):
    """Differential-drive robot (module docstring).

    Args:
        linear_speed_max, linear_speed_min: forward speed range.
        angular_speed_max, angular_speed_min: turning rate range (rad per unit time).
        mass: robot mass (scales the contact force).
        dt: integration step.
    """

    kind = 1
    kinematic = True

    def __init__(
        self,
        linear_speed_max: float = 1.0,
        linear_speed_min: float = -1.0,
        angular_speed_max: float = 2.0,
        angular_speed_min: float = -2.0,
        mass: float = 1.0,
        dt: float = 0.01,
    ) -> None:
        owner = "DiffDriveDynamic"
        self.linear_speed_max, self.linear_speed_min = float(linear_speed_max), float(linear_speed_min)
        self.angular_speed_max, self.angular_speed_min = float(angular_speed_max), float(angular_speed_min)
        if self.linear_speed_max < self.linear_speed_min:
            raise ValueError(f"{owner}: linear_speed_max must be at least linear_speed_min")
        if self.angular_speed_max < self.angular_speed_min:
            raise ValueError(f"{owner}: angular_speed_max must be at least angular_speed_min")
        self.mass = _positive(owner, "mass", mass)
        self.dt = _positive(owner, "dt", dt)

    def config(self) -> dict[str, Any]:
        return {
            "linear_speed_max": self.linear_speed_max,
            "linear_speed_min": self.linear_speed_min,
            "angular_speed_max": self.angular_speed_max,
            "angular_speed_min": self.angular_speed_min,
            "mass": self.mass,
            "dt": self.dt,
        }

    def initial_angle(self, agent_pos: jax.Array, goal_pos: jax.Array) -> jax.Array:
        to_goal = goal_pos - agent_pos
        return jnp.arctan2(to_goal[:, 1], to_goal[:, 0])

    def _speeds(self, actions: jax.Array) -> tuple[jax.Array, jax.Array]:
        """Forward and turning speeds ``(n,)`` for ``actions`` in ``[-1, 1]``."""
        lin_gain = (self.linear_speed_max - self.linear_speed_min) / 2
        ang_gain = (self.angular_speed_max - self.angular_speed_min) / 2
        linear = jnp.clip(
            lin_gain * (actions[:, 0] + 1) + self.linear_speed_min,
            self.linear_speed_min,
            self.linear_speed_max,
        )
        angular = jnp.clip(
            ang_gain * (actions[:, 1] + 1) + self.angular_speed_min,
            self.angular_speed_min,
            self.angular_speed_max,
        )
        return linear, angular

    def derivative(
        self, force: jax.Array, pos: jax.Array, vel: jax.Array, angle: jax.Array, actions: jax.Array
    ) -> tuple[jax.Array, jax.Array, jax.Array]:
        linear, angular = self._speeds(actions)
        dpos = jnp.stack([linear * jnp.cos(angle), linear * jnp.sin(angle)], axis=-1)
        return dpos + force / self.mass * self.dt, jnp.zeros_like(vel), angular

    def project(self, vel: jax.Array, angle: jax.Array) -> tuple[jax.Array, jax.Array]:
        return vel, jnp.remainder(angle + jnp.pi, 2 * jnp.pi) - jnp.pi

    def integrate(
        self, force: jax.Array, pos: jax.Array, vel: jax.Array, angle: jax.Array, actions: jax.Array
    ) -> tuple[jax.Array, jax.Array, jax.Array]:
        vel, _, angular = self.derivative(force, pos, vel, angle, actions)
        vel, angle = self.project(vel, angle + angular * self.dt)
        return pos + vel * self.dt, vel, angle


class MixedDynamic(Dynamic):
    """Consecutive groups of agents with their own dynamics: agents ``0 ..
    num_agents_batch[0] - 1`` follow ``dynamics_batch[0]``, the next
    ``num_agents_batch[1]`` the second, and so on.

    Args:
        dynamics_batch: a dynamic per group (instances, or names with default settings).
        num_agents_batch: the size of each group.
    """

    def __init__(self, dynamics_batch: Sequence[Dynamic | str], num_agents_batch: Sequence[int]) -> None:
        owner = "MixedDynamic"
        groups = [make_dynamic(d) for d in dynamics_batch]
        sizes = [int(n) for n in num_agents_batch]
        if not groups or len(groups) != len(sizes):
            raise ValueError(
                f"{owner}: dynamics_batch and num_agents_batch must be non-empty and of equal length"
            )
        if any(isinstance(g, MixedDynamic) for g in groups):
            raise ValueError(f"{owner}: groups cannot be MixedDynamic themselves")
        if any(n < 1 for n in sizes):
            raise ValueError(f"{owner}: every group needs at least one agent, got {sizes}")
        if len({g.dt for g in groups}) != 1:
            raise ValueError(f"{owner}: all dynamics must have the same dt, got {[g.dt for g in groups]}")
        self.dynamics_batch, self.num_agents_batch = groups, sizes
        self.dt = groups[0].dt
        self.action_size = max(g.action_size for g in groups)
        self.offsets = [sum(sizes[:i]) for i in range(len(sizes))]

    @property
    def num_agents(self) -> int:
        return sum(self.num_agents_batch)

    def config(self) -> dict[str, Any]:
        return {"dynamics_batch": self.dynamics_batch, "num_agents_batch": self.num_agents_batch}

    def kinds(self, num_agents: int) -> list[int]:
        return [
            g.kind for g, n in zip(self.dynamics_batch, self.num_agents_batch, strict=True) for _ in range(n)
        ]

    def _split(self, x: jax.Array) -> list[jax.Array]:
        return [x[o : o + n] for o, n in zip(self.offsets, self.num_agents_batch, strict=True)]

    def kinematic_mask(self, num_agents: int) -> list[bool]:
        return [
            g.kinematic
            for g, n in zip(self.dynamics_batch, self.num_agents_batch, strict=True)
            for _ in range(n)
        ]

    def check_integrator(self, integrator: str) -> None:
        for g in self.dynamics_batch:
            g.check_integrator(integrator)

    def initial_angle(self, agent_pos: jax.Array, goal_pos: jax.Array) -> jax.Array:
        parts = zip(self.dynamics_batch, self._split(agent_pos), self._split(goal_pos), strict=True)
        return jnp.concatenate([g.initial_angle(p, q) for g, p, q in parts])

    def _per_group(self, method: str, *arrays: jax.Array, actions: jax.Array | None = None) -> tuple:
        """``method`` of every group on its agents' slices, concatenated."""
        outs = []
        for i, g in enumerate(self.dynamics_batch):
            args = [self._split(x)[i] for x in arrays]
            if actions is not None:
                args.append(self._split(actions)[i][:, : g.action_size])
            outs.append(getattr(g, method)(*args))
        return tuple(jnp.concatenate(parts) for parts in zip(*outs, strict=True))

    def integrate(
        self, force: jax.Array, pos: jax.Array, vel: jax.Array, angle: jax.Array, actions: jax.Array
    ) -> tuple[jax.Array, jax.Array, jax.Array]:
        return self._per_group("integrate", force, pos, vel, angle, actions=actions)

    def derivative(
        self, force: jax.Array, pos: jax.Array, vel: jax.Array, angle: jax.Array, actions: jax.Array
    ) -> tuple[jax.Array, jax.Array, jax.Array]:
        return self._per_group("derivative", force, pos, vel, angle, actions=actions)

    def project(self, vel: jax.Array, angle: jax.Array) -> tuple[jax.Array, jax.Array]:
        return self._per_group("project", vel, angle)


DYNAMICS: dict[str, type[Dynamic]] = {
    "HolonomicDynamic": HolonomicDynamic,
    "DiffDriveDynamic": DiffDriveDynamic,
    "MixedDynamic": MixedDynamic,
}


def make_dynamic(spec: Dynamic | str | type, kwargs: dict[str, Any] | None = None) -> Dynamic:
    """A dynamic from an instance, a class, or a name in :data:`DYNAMICS`, built with
    ``kwargs``."""
    if isinstance(spec, Dynamic):
        if kwargs:
            raise ValueError("dynamic_kwargs cannot be given with a dynamic instance")
        return spec
    if isinstance(spec, str):
        if spec not in DYNAMICS:
            raise ValueError(f"unknown dynamic {spec!r}; choose one of {sorted(DYNAMICS)}")
        spec = DYNAMICS[spec]
    if isinstance(spec, type) and issubclass(spec, Dynamic):
        try:
            return spec(**(kwargs or {}))
        except TypeError as err:
            raise TypeError(f"{spec.__name__}: {err}") from None
    raise TypeError(
        f"dynamic must be a Dynamic instance, subclass or one of {sorted(DYNAMICS)}, got {spec!r}"
    )
