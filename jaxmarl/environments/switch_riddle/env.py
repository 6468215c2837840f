"""The Switch Riddle: prisoners who must agree, through one light bulb, that all have
been in the interrogation room.

The riddle is the cooperative communication task of Foerster et al. (2016, "Learning to
Communicate with Deep Multi-Agent Reinforcement Learning", DIAL), included in JaxMARL as
a debugging task; the rules below are those of the JaxMARL paper, Appendix B.4, with
DIAL's time limit of ``4n - 6`` days.
"""

from __future__ import annotations

from typing import Any, ClassVar

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.multi_agent_env import MultiAgentEnv
from jaxmarl.environments.spaces import Discrete, MultiDiscrete
from jaxmarl.environments.switch_riddle import constants as C
from jaxmarl.environments.switch_riddle.types import State

__all__ = ["SwitchRiddle"]


def _check_int(name: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"SwitchRiddle: {name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _check_real(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"SwitchRiddle: {name} must be a real number, got {value!r}")
    if not np.isfinite(value):
        raise ValueError(f"SwitchRiddle: {name} must be finite, got {value!r}")
    return float(value)


def _check_bool(name: str, value: Any) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"SwitchRiddle: {name} must be a bool, got {value!r}")
    return bool(value)


class SwitchRiddle(MultiAgentEnv):
    """``n`` prisoners, one light bulb: tell the warden once everyone has been in the room.

    Every day the warden picks one prisoner uniformly at random (independently of the
    previous days) and brings them to a room with a light bulb. That prisoner sees the
    bulb and may leave it, toggle it, or tell the warden that every prisoner has been in
    the room. A correct tell frees everyone, a wrong one dooms everyone; the riddle also
    ends, with nothing gained, after ``max_steps`` days.

    - **Agents:** ``agent_0 ... agent_{n-1}``.
    - **Actions:** ``Discrete(3)``: ``0`` none, ``1`` toggle the bulb, ``2`` tell the
      warden. Only the prisoner in the room acts; the actions of the others are ignored,
      and ``get_avail_actions`` allows them only ``0`` (the prisoner in the room may
      take all three).
    - **Observation** of agent ``i``, int32 ``MultiDiscrete``:
      ``[in_room, bulb_seen]`` (``nvec = [2, 2]``), where ``in_room`` is 1 if ``i`` is
      in the room today and ``bulb_seen`` is 1 if ``i`` is in the room and the bulb is
      on (0 for prisoners outside, who see nothing). With ``observe_day=True`` the day
      is appended: ``[in_room, bulb_seen, day]`` with ``day`` the days passed so far
      (0 on the first day; ``nvec = [2, 2, max_steps + 1]``).
    - **Reward**, the same for every agent: ``reward_all_live`` (+1) if today's prisoner
      tells and every prisoner (today's included) has been in the room,
      ``reward_all_die`` (-1) if they tell too early, 0 otherwise, at the time limit too.
    - **Episode:** terminates on a tell or at the end of day ``max_steps`` (default
      ``4n - 6``, DIAL's limit: 6 days for 3 prisoners, 2 for 2). The deadline is part of
      the riddle (nothing can be won after it), so it is a termination, never a
      truncation: ``info["truncated"]`` stays false.
    - **State** (:class:`~jaxmarl.environments.switch_riddle.types.State`): ``bulb``,
      ``in_room``, ``visited`` (today's prisoner included) and ``step`` (days passed).
    - **Global state** (``get_global_state``), float32 ``(2n + 2,)``:
      ``[bulb, visited (n), day / max_steps, one-hot in_room (n)]``.

    Args:
        num_agents: number of prisoners ``n`` (at least 2).
        initial_bulb_state: whether the bulb is on at the start of each episode.
        reward_all_live: reward of every agent for a correct tell.
        reward_all_die: reward of every agent for a wrong tell.
        max_steps: number of days before the riddle ends unsolved (default
            ``4 * num_agents - 6``).
        observe_day: append the number of days passed to every observation.

    Example::

        import jax, jaxmarl
        env = jaxmarl.make("switch_riddle", num_agents=4)
        obs, state = env.reset(jax.random.PRNGKey(0))
        masks = env.get_avail_actions(state)  # only the prisoner in the room may act
    """

    max_steps: int  # always set, unlike the base class's optional limit

    def __init__(
        self,
        num_agents: int = 3,
        initial_bulb_state: bool = False,
        reward_all_live: float = 1.0,
        reward_all_die: float = -1.0,
        max_steps: int | None = None,
        observe_day: bool = False,
    ) -> None:
        num_agents = _check_int("num_agents", num_agents, C.MIN_AGENTS)
        super().__init__(num_agents=num_agents)
        self.agents = [f"agent_{i}" for i in range(num_agents)]
        self.initial_bulb_state = _check_bool("initial_bulb_state", initial_bulb_state)
        self.reward_all_live = _check_real("reward_all_live", reward_all_live)
        self.reward_all_die = _check_real("reward_all_die", reward_all_die)
        self.max_steps = (
            C.dial_time_limit(num_agents) if max_steps is None else _check_int("max_steps", max_steps, 1)
        )
        self.observe_day = _check_bool("observe_day", observe_day)
        nvec = [2, 2, self.max_steps + 1] if self.observe_day else [2, 2]
        self.observation_spaces = {a: MultiDiscrete(nvec) for a in self.agents}
        self.action_spaces = {a: Discrete(C.NUM_ACTIONS) for a in self.agents}

    # ------------------------------------------------------ JaxMARL 0.2.0's names
    # JaxMARL's names of the actions: none, toggle ("switch light") and tell.
    game_actions: ClassVar[dict[str, int]] = {"NOTHING": C.NONE, "SWITCH_LIGHT": C.TOGGLE, "TELL": C.TELL}
    game_actions_idx: ClassVar[dict[int, str]] = {v: k for k, v in game_actions.items()}

    @property
    def agent_range(self) -> jax.Array:
        """Agent indices, ``arange(num_agents)``."""
        return jnp.arange(self.num_agents)

    @property
    def a_to_i(self) -> dict[str, int]:
        """Each agent's index."""
        return {a: i for i, a in enumerate(self.agents)}

    # ------------------------------------------------------------------- env API
    def _draw_prisoner(self, key: jax.Array) -> jax.Array:
        """A uniformly random prisoner index, int32 ``()``.

        One 32-bit random word modulo ``n`` (a bias below ``n / 2**32``): one call of the
        random-bit generator, where ``jax.random.randint`` makes three (a split and two
        draws), which is most of the cost of a step.
        """
        bits = jax.random.bits(key, (), jnp.uint32)
        return (bits % jnp.uint32(self.num_agents)).astype(jnp.int32)

    def reset_env(self, key: jax.Array) -> tuple[dict[str, jax.Array], State]:
        in_room = self._draw_prisoner(key)
        state = State(
            bulb=jnp.asarray(self.initial_bulb_state),
            in_room=in_room,
            visited=jnp.arange(self.num_agents) == in_room,
            step=jnp.zeros((), jnp.int32),
        )
        return self.get_obs(state), state

    def step_env(
        self, key: jax.Array, state: State, actions: dict[str, jax.Array]
    ) -> tuple[dict[str, jax.Array], State, dict[str, jax.Array], dict[str, jax.Array], dict]:
        acts = jnp.stack([jnp.asarray(actions[a], jnp.int32) for a in self.agents])
        in_room = jnp.arange(self.num_agents) == state.in_room
        action = jnp.sum(jnp.where(in_room, acts, 0))  # the action of the prisoner in the room
        tell = action == C.TELL
        reward = jnp.where(
            tell,
            jnp.where(jnp.all(state.visited), self.reward_all_live, self.reward_all_die),
            0.0,
        ).astype(jnp.float32)
        day = state.step + 1
        tomorrow = self._draw_prisoner(key)
        state = State(
            bulb=state.bulb ^ (action == C.TOGGLE),
            in_room=tomorrow,
            visited=state.visited | (jnp.arange(self.num_agents) == tomorrow),
            step=day,
        )
        over = tell | (day >= self.max_steps)
        terminated = {a: over for a in self.agents}
        terminated["__all__"] = over
        rewards = {a: reward for a in self.agents}
        return self.get_obs(state), state, rewards, terminated, {}

    def get_obs(self, state: State) -> dict[str, jax.Array]:
        """``[in_room, bulb_seen]`` (and ``day``) per agent, int32; see the class docstring."""
        in_room = jnp.arange(self.num_agents) == state.in_room
        cols = [in_room, in_room & state.bulb]
        if self.observe_day:
            cols.append(jnp.broadcast_to(state.step, (self.num_agents,)))
        obs = jnp.stack(cols, axis=-1).astype(jnp.int32)
        return {a: obs[i] for i, a in enumerate(self.agents)}

    def get_avail_actions(self, state: State) -> dict[str, jax.Array]:
        """Boolean masks ``(3,)``: all actions for the prisoner in the room, only ``0`` (none)
        for the others."""
        in_room = jnp.arange(self.num_agents) == state.in_room
        masks = jnp.stack([jnp.ones_like(in_room), in_room, in_room], axis=-1)
        return {a: masks[i] for i, a in enumerate(self.agents)}

    def get_global_state(self, state: State) -> jax.Array:
        """The true state, float32 ``(2n + 2,)``: ``[bulb, visited (n), day / max_steps,
        one-hot in_room (n)]``."""
        return jnp.concatenate(
            [
                state.bulb[None].astype(jnp.float32),
                state.visited.astype(jnp.float32),
                (state.step / self.max_steps)[None].astype(jnp.float32),
                jax.nn.one_hot(state.in_room, self.num_agents, dtype=jnp.float32),
            ]
        )

    def render(self, state: State, size: int = 144) -> jax.Array:
        """Draw the room as an RGB ``uint8`` image: the bulb on top, the prisoners below
        (green once they have visited, the one in the room on a blue tile) and a bar of
        days passed.

        Args:
            state: the state.
            size: the image's longer side in pixels, a Python ``int`` fixed at trace time.
                The room is ``max(n, 3)`` cells wide; each cell gets ``c = size //
                max(n, 3)`` whole pixels, so the image is ``(2 * c + max(c // 4, 1),
                max(n, 3) * c, 3)``, up to ``max(n, 3) - 1`` pixels narrower than
                ``size``. The default draws 48-pixel cells for 3 prisoners.
                ``ValueError`` unless ``size >= max(n, 3)``.

        Pure JAX, so a batch of states renders with ``jax.vmap``.
        """
        from jaxmarl.environments.switch_riddle.viewer import render_room
        from jaxmarl.viz.raster import pixels_per_cell

        cell = pixels_per_cell(size, max(self.num_agents, 3))
        return render_room(state, self.num_agents, self.max_steps, cell)
