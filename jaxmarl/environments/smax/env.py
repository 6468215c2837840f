"""SMAX: StarCraft-like unit micromanagement in pure JAX, both teams as agents.

Rules from the JaxMARL paper (Rutherford et al., 2024; appendix B.1 and Table 4),
made exact where the paper is silent by following JaxMARL's SMAX. The dynamics are in
``dynamics.py``, observations in ``observations.py``, start states in
``generator.py``, scenarios in ``scenarios.py`` and the heuristic in ``heuristic.py``;
``docs/environments/smax.md`` has the unit table and lists what differs from JaxMARL.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.multi_agent_env import MultiAgentEnv
from jaxmarl.environments.smax import constants as C
from jaxmarl.environments.smax.dynamics import Rules, battle_step, push_apart
from jaxmarl.environments.smax.generator import fixed_positions, smacv2_positions, smacv2_unit_types
from jaxmarl.environments.smax.observations import (
    OWN_FEATURES,
    UNIT_FEATURES,
    WORLD_FEATURES,
    avail_actions,
    observe,
    others_table,
    world_state,
)
from jaxmarl.environments.smax.scenarios import Scenario, map_name_to_scenario
from jaxmarl.environments.smax.types import State
from jaxmarl.environments.spaces import Box, Discrete

__all__ = ["SMAX"]


def _positive(name: str, value: Any, integer: bool = False) -> Any:
    bad = isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating))
    if bad or value <= 0 or (integer and int(value) != value):
        kind = "a positive integer" if integer else "a positive number"
        raise ValueError(f"SMAX: {name} must be {kind}, got {value!r}")
    return int(value) if integer else float(value)


def _resolve_scenario(
    scenario: Scenario | str | None, num_allies: int, num_enemies: int, v2_pos: bool, v2_types: bool
) -> Scenario:
    if isinstance(scenario, str):
        return map_name_to_scenario(scenario)
    if isinstance(scenario, Scenario):
        return scenario
    if scenario is not None:
        raise ValueError(
            f"SMAX: scenario must be a Scenario, a scenario name or None, got {type(scenario).__name__}"
        )
    na = _positive("num_allies", num_allies, integer=True)
    ne = _positive("num_enemies", num_enemies, integer=True)
    return Scenario((C.MARINE,) * (na + ne), na, ne, v2_pos, v2_types)


class SMAX(MultiAgentEnv):
    """Two teams of StarCraft II units fight on an open map; every unit is an agent.

    Units are discs on a ``map_width x map_height`` map; allies (team 0) are agents
    ``ally_0 ...``, enemies (team 1) ``enemy_0 ...``. One step is 8 world ticks of
    1/16 game second (rules in ``dynamics.py``).

    - **Actions:** ``Discrete(5 + number of enemies)`` per unit: ``0`` north (+y),
      ``1`` east (+x), ``2`` south, ``3`` west, ``4`` stop, ``5 + k`` attack the
      unit's enemy ``k`` (enemies in index order: for allies ``enemy_k``, for enemies
      ``ally_k``). ``get_avail_actions`` allows moves only to living units and attacks
      only on living enemies within range; stop is always allowed; dead units act as
      stop whatever they are given.
    - **Observation:** float32 ``((U - 1) * 13 + 10,)`` in ``[-1, 1]``, SMAC's unit list
      (layout in ``observations.py`` and the docs); out-of-sight units are all zeros.
    - **Reward:** per team, each step: the health it removed from the enemy units this
      step, each unit's loss as a fraction of its maximum, averaged over the enemy units
      (1 in all once every enemy is dead),
      plus ``won_battle_bonus`` (1) on the step where every enemy is dead and one of
      its units lives. Both teams wiped out on the same tick is a draw: no bonus. So
      half of the best return is for damage and half for winning, whatever the unit
      count. Dead agents keep receiving their team's reward. With
      ``use_self_play_reward`` the reward is instead +1 for a win, -1 for a loss, else 0.
    - **Episode:** ends when a team is wiped out (a termination) or after ``max_steps``
      steps (a truncation). ``done[agent]`` is also true once the agent's unit is dead.
      ``info["won"]`` (bool ``(num_agents,)``) marks, on the last step, the winners.
    - **State:** :class:`jaxmarl.environments.smax.State`; ``get_global_state`` is the
      world state (``WORLD_FEATURES`` per unit, then time).

    Example::

        env = SMAX(scenario="3s5z")
        obs, state = env.reset(jax.random.PRNGKey(0))
        actions = {a: jnp.int32(4) for a in env.agents}  # everyone stops
        obs, state, reward, done, info = env.step(jax.random.PRNGKey(1), state, actions)

    Args:
        num_allies: allies (marines) when no ``scenario`` is given.
        num_enemies: enemies (marines) when no ``scenario`` is given.
        map_width: map width (32).
        map_height: map height (32).
        world_steps_per_env_step: ticks per step (8).
        time_per_step: game seconds per tick (1/16).
        scenario: a :class:`Scenario`, a scenario name (``"2s3z"`` ...) or None.
        use_self_play_reward: zero-sum +1 / -1 win-loss reward instead.
        see_enemy_actions: whether units observe the other team's last actions.
        won_battle_bonus: reward for winning (1).
        walls_cause_death: a unit that walks into the map's edge dies (JaxMARL's rule).
        max_steps: time limit in steps (100).
        smacv2_position_generation: SMACv2-style start positions (when no scenario).
        smacv2_unit_type_generation: SMACv2-style unit types (when no scenario).
        cooldown_jitter: add PySC2's random ``[-1, 2]``-tick noise to weapon cooldowns.

    Raises:
        ValueError: for an unknown scenario name (listing the known ones) or a bad value.
    """

    episode_metrics: ClassVar[Mapping[str, str]] = {
        "win_rate": "last"
    }  # 1 if the allies (team 0) won the battle, else 0

    def __init__(
        self,
        num_allies: int = 5,
        num_enemies: int = 5,
        map_width: float = C.MAP_WIDTH,
        map_height: float = C.MAP_HEIGHT,
        world_steps_per_env_step: int = C.TICKS_PER_STEP,
        time_per_step: float = C.TICK_SECONDS,
        scenario: Scenario | str | None = None,
        use_self_play_reward: bool = False,
        see_enemy_actions: bool = True,
        won_battle_bonus: float = 1.0,
        walls_cause_death: bool = True,
        max_steps: int = C.MAX_STEPS,
        smacv2_position_generation: bool = False,
        smacv2_unit_type_generation: bool = False,
        cooldown_jitter: bool = True,
    ) -> None:
        self.scenario = _resolve_scenario(
            scenario, num_allies, num_enemies, smacv2_position_generation, smacv2_unit_type_generation
        )
        sc = self.scenario
        self.num_allies, self.num_enemies = sc.num_allies, sc.num_enemies
        self.rules = Rules(
            num_allies=sc.num_allies,
            num_enemies=sc.num_enemies,
            width=_positive("map_width", map_width),
            height=_positive("map_height", map_height),
            ticks=_positive("world_steps_per_env_step", world_steps_per_env_step, integer=True),
            tick_seconds=_positive("time_per_step", time_per_step),
            walls_cause_death=bool(walls_cause_death),
            cooldown_jitter=bool(cooldown_jitter),
        )
        self.map_width, self.map_height = self.rules.width, self.rules.height
        self.world_steps_per_env_step = self.rules.ticks
        self.max_steps = self._time_limit = _positive("max_steps", max_steps, integer=True)
        self.use_self_play_reward = bool(use_self_play_reward)
        self.see_enemy_actions = bool(see_enemy_actions)
        self.won_battle_bonus = float(won_battle_bonus)
        self.num_units = sc.num_units
        super().__init__(num_agents=self.num_units)
        self.all_agents = [f"ally_{i}" for i in range(sc.num_allies)] + [
            f"enemy_{i}" for i in range(sc.num_enemies)
        ]
        self.agents = list(self.all_agents)
        self.unit_features = list(UNIT_FEATURES)
        self.own_features = list(OWN_FEATURES)
        self.world_features = list(WORLD_FEATURES)
        self.num_movement_actions = C.NUM_MOVE_ACTIONS
        self.unit_type_names = list(C.UNIT_TYPE_NAMES)
        self._others = others_table(sc.num_allies, sc.num_enemies)
        self._all_units = np.arange(self.num_units)
        self._fixed_types = np.asarray(sc.unit_types, np.int32)
        self.obs_size = (self.num_units - 1) * len(UNIT_FEATURES) + len(OWN_FEATURES)
        self.state_size = self.num_units * len(WORLD_FEATURES) + 1
        self.num_ally_actions = C.NUM_MOVE_ACTIONS + sc.num_enemies
        self.num_enemy_actions = C.NUM_MOVE_ACTIONS + sc.num_allies
        self.observation_spaces = {a: Box(-1.0, 1.0, (self.obs_size,)) for a in self.all_agents}
        self.action_spaces = {
            a: Discrete(self.num_ally_actions if i < sc.num_allies else self.num_enemy_actions)
            for i, a in enumerate(self.all_agents)
        }

    # ------------------------------------------------------------------ episodes
    def new_battle(self, key: jax.Array) -> State:
        """A freshly drawn battle (start positions, unit types), units pushed apart."""
        key_pos, key_types = jax.random.split(key)
        sc, r = self.scenario, self.rules
        if sc.smacv2_position_generation:
            pos = smacv2_positions(key_pos, sc.num_allies, sc.num_enemies, r.width, r.height)
        else:
            pos = fixed_positions(key_pos, sc.num_allies, sc.num_enemies, r.width, r.height)
        if sc.smacv2_unit_type_generation:
            unit_type = smacv2_unit_types(key_types, sc.num_allies, sc.num_enemies)
        else:
            unit_type = jnp.asarray(self._fixed_types)
        alive = jnp.ones((self.num_units,), bool)
        pos = push_apart(pos, alive, jnp.asarray(C.RADIUS)[unit_type])
        pos = jnp.clip(pos, C.SPAWN_MARGIN, jnp.array([r.width, r.height]) - C.SPAWN_MARGIN)
        return State(
            pos=pos.astype(jnp.float32),
            health=jnp.asarray(C.HEALTH)[unit_type],
            alive=alive,
            unit_type=unit_type,
            cooldown=jnp.zeros((self.num_units,), jnp.float32),
            last_action=jnp.zeros((self.num_units,), jnp.int32),
            last_attacked=jnp.full((self.num_units,), -1, jnp.int32),
            step=jnp.int32(0),
        )

    def reset_env(self, key: jax.Array) -> tuple[dict[str, jax.Array], State]:
        state = self.new_battle(key)
        return self.get_obs(state), state

    # ------------------------------------------------------------------- rules
    def battle_transition(
        self, key: jax.Array, state: State, actions: jax.Array
    ) -> tuple[State, jax.Array, jax.Array, jax.Array]:
        """One step of the battle from an action array.

        Args:
            key: PRNG key (cooldown noise).
            state: the battle.
            actions: int32 ``(U,)``, allies first.

        Returns:
            ``(state, team_reward, over, won)``: the new state (``step`` incremented),
            float32 ``(2,)`` rewards of team 0 and team 1, whether a team is wiped out,
            and bool ``(2,)`` which team won this step.
        """
        jitter = jax.random.uniform(key, (self.rules.ticks, self.num_units))
        new = battle_step(state, actions, jitter, self.rules)
        new = new.replace(step=state.step + 1)
        na = self.num_allies
        max_health = jnp.asarray(C.HEALTH)[state.unit_type]
        lost = (state.health - new.health) / max_health  # (U,)
        damage = jnp.stack([jnp.mean(lost[na:]), jnp.mean(lost[:na])])
        allies_dead = ~jnp.any(new.alive[:na])
        enemies_dead = ~jnp.any(new.alive[na:])
        won = jnp.stack([enemies_dead & ~allies_dead, allies_dead & ~enemies_dead])
        if self.use_self_play_reward:
            reward = won.astype(jnp.float32) - won[::-1].astype(jnp.float32)
        else:
            reward = damage + self.won_battle_bonus * won.astype(jnp.float32)
        return new, reward, allies_dead | enemies_dead, won

    def noop_action(self, agent: str) -> int:
        """``stop``: what an out-of-range action is replaced by (``info["invalid_action"]``)."""
        del agent
        return C.STOP

    def step_env(
        self, key: jax.Array, state: State, actions: dict[str, jax.Array]
    ) -> tuple[dict[str, jax.Array], State, dict[str, jax.Array], dict[str, jax.Array], dict[str, Any]]:
        act = jnp.stack([jnp.asarray(actions[a]) for a in self.agents]).astype(jnp.int32)
        new, reward, over, won = self.battle_transition(key, state, act)
        return self._outputs(new, reward, over, won, self._all_units)

    def _outputs(
        self, new: State, reward: jax.Array, over: jax.Array, won: jax.Array, units: np.ndarray
    ) -> tuple[dict[str, jax.Array], State, dict[str, jax.Array], dict[str, jax.Array], dict[str, Any]]:
        """Dicts for the agents controlling ``units`` (static, in agent order)."""
        team = (units >= self.num_allies).astype(np.int32)
        obs_arr = observe(new, units, self._others, self.rules, self.see_enemy_actions)
        names = [self.all_agents[u] for u in units]
        obs = {a: obs_arr[i] for i, a in enumerate(names)}
        rewards = {a: reward[team[i]] for i, a in enumerate(names)}
        dead = ~new.alive[units]
        terminated = {a: dead[i] for i, a in enumerate(names)}
        terminated["__all__"] = over
        info = {"won": won[team], "metrics": {"win_rate": won[0].astype(jnp.float32)}}
        return obs, new, rewards, terminated, info

    # ------------------------------------------------------------ observations
    def get_obs(self, state: State) -> dict[str, jax.Array]:
        obs = observe(state, self._all_units, self._others, self.rules, self.see_enemy_actions)
        return {a: obs[i] for i, a in enumerate(self.all_agents)}

    def get_avail_actions(self, state: State) -> dict[str, jax.Array]:
        allies, enemies = avail_actions(state, self.rules)
        masks = {a: allies[i] for i, a in enumerate(self.all_agents[: self.num_allies])}
        masks.update({a: enemies[i] for i, a in enumerate(self.all_agents[self.num_allies :])})
        return masks

    def get_global_state(self, state: State) -> jax.Array:
        """The world state, float32 ``(U * 15 + 1,)``; see ``observations.world_state``."""
        return world_state(state, self.rules, self._time_limit)

    def get_world_state(self, state: State) -> jax.Array:
        """JaxMARL's name for :meth:`get_global_state`."""
        return self.get_global_state(state)

    def render(self, state: State, size: int = 400) -> jax.Array:
        """The battle as an RGB image, uint8 ``(size, size, 3)``: units as discs coloured by
        team and type with health bars, lines from attackers to the units they hit.

        ``size`` is the image's longer side in pixels (here both sides: the map's longer
        side spans the square), a Python ``int`` fixed at trace time; ``ValueError``
        unless positive."""
        from jaxmarl.environments.smax.viewer import render_battle
        from jaxmarl.viz.raster import check_size

        return render_battle(state, self.rules, check_size(size))
