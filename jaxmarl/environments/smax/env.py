"""SMAX: StarCraft-like unit micromanagement in pure JAX, both teams as agents.

Rules from the JaxMARL paper (Rutherford et al., 2024; appendix B.1 and Table 4),
made exact where the paper is silent by following JaxMARL's SMAX. The dynamics are in
``dynamics.py``, actions in ``decoding.py``, observations in ``observations.py``, start
states in ``generator.py``, scenarios in ``scenarios.py`` and the heuristic in
``heuristic.py``; ``docs/environments/smax.md`` has the unit table and lists what
differs from JaxMARL.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.multi_agent_env import MultiAgentEnv
from jaxmarl.environments.smax import constants as C
from jaxmarl.environments.smax.decoding import decode_continuous, decode_discrete
from jaxmarl.environments.smax.dynamics import Rules, battle_step, battle_ticks, push_apart
from jaxmarl.environments.smax.generator import fixed_positions, smacv2_positions, smacv2_unit_types
from jaxmarl.environments.smax.observations import (
    avail_actions,
    observe,
    observe_conic,
    others_table,
    own_features,
    unit_features,
    world_features,
    world_state,
)
from jaxmarl.environments.smax.scenarios import Scenario, map_name_to_scenario
from jaxmarl.environments.smax.types import State
from jaxmarl.environments.smax.units import unit_table
from jaxmarl.environments.spaces import Box, Discrete

__all__ = ["SMAX"]

Decoded = tuple[jax.Array, jax.Array]  # movement (n, 2), attacked enemy k or -1 (n,)


def _positive(name: str, value: Any, integer: bool = False) -> Any:
    bad = isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating))
    if bad or value <= 0 or (integer and int(value) != value):
        kind = "a positive integer" if integer else "a positive number"
        raise ValueError(f"SMAX: {name} must be {kind}, got {value!r}")
    return int(value) if integer else float(value)


def _choice(name: str, value: Any, options: Sequence[str]) -> str:
    if value not in options:
        raise ValueError(f"SMAX: unknown {name} {value!r}; expected one of {', '.join(map(repr, options))}")
    return str(value)


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

    - **Actions** (``action_type``, rules in ``decoding.py``): ``"discrete"``,
      ``Discrete(5 + number of enemies)`` per unit: ``0`` north (+y), ``1`` east (+x),
      ``2`` south, ``3`` west, ``4`` stop, ``5 + k`` attack the unit's enemy ``k``
      (enemies in index order: for allies ``enemy_k``, for enemies ``ally_k``);
      ``"continuous"``, ``Box(0, 1, (4,))``: the probabilities of attacking the last
      target and of shooting rather than moving, then polar coordinates of the
      movement and of the aim point (the living enemy nearest to it is attacked).
      ``get_avail_actions`` gives the discrete masks (for either type): moves only to
      living units, attacks only on living enemies within range; stop is always
      allowed. Dead units do nothing whatever they are given.
    - **Observation** (``observation_type``, layouts in ``observations.py`` and the
      docs): ``"unit_list"``, float32 ``((U - 1) * 13 + 10,)`` (SMAC's unit list) or
      ``"conic"``, float32 ``(64 * 13 + 10,)`` (the units in 32 angular sections around
      the unit, 2 per section); every entry in ``[-1, 1]``; out-of-sight units are zeros.
    - **Reward:** per team, each step: the health it removed from the enemy units this
      step, each unit's loss as a fraction of its maximum, averaged over the enemy units
      (1 in all once every enemy is dead), plus ``won_battle_bonus`` (1) on the step
      where every enemy is dead and one of its units lives. Both teams wiped out on the
      same tick is a draw: no bonus. So half of the best return is for damage and half
      for winning, whatever the unit count. Dead agents keep receiving their team's
      reward. With ``use_self_play_reward`` the reward is instead ``+won_battle_bonus``
      for a win, ``-won_battle_bonus`` for a loss, else 0.
    - **Episode:** ends when a team is wiped out (a termination) or after ``max_steps``
      steps (a truncation). ``done[agent]`` is also true once the agent's unit is dead.
      ``info["won"]`` (bool ``(num_agents,)``) marks, on the last step, the winners.
    - **State:** :class:`jaxmarl.environments.smax.State`; ``get_global_state`` is the
      world state (``world_features`` per unit, then time).

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
        unit_type_names: names of the unit types (JaxMARL's six by default); the
            ``unit_type_*`` stats below then need one value per type.
        unit_type_shorthands: one-letter names of the unit types.
        unit_type_velocities: speeds, map units per second.
        unit_type_attacks: damage per hit.
        unit_type_attack_ranges: attack ranges.
        unit_type_sight_ranges: sight ranges.
        unit_type_radiuses: disc radii.
        unit_type_health: maximum health.
        unit_type_weapon_cooldowns: seconds between hits.
        use_self_play_reward: zero-sum win/loss reward instead.
        see_enemy_actions: whether units observe the other team's last actions.
        won_battle_bonus: reward for winning (1).
        walls_cause_death: a unit that walks into the map's edge dies (JaxMARL's rule).
        max_steps: time limit in steps (100).
        smacv2_position_generation: SMACv2-style start positions (when no scenario).
        smacv2_unit_type_generation: SMACv2-style unit types (when no scenario).
        observation_type: ``"unit_list"`` or ``"conic"``.
        action_type: ``"discrete"`` or ``"continuous"``.
        cooldown_jitter: add PySC2's random ``[-1, 2]``-tick noise to weapon cooldowns.

    Raises:
        ValueError: for an unknown scenario name (listing the known ones), action or
            observation type, or a bad value.
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
        unit_type_names: Sequence[str] | None = None,
        unit_type_shorthands: Sequence[str] | None = None,
        unit_type_velocities: Any = None,
        unit_type_attacks: Any = None,
        unit_type_attack_ranges: Any = None,
        unit_type_sight_ranges: Any = None,
        unit_type_radiuses: Any = None,
        unit_type_health: Any = None,
        unit_type_weapon_cooldowns: Any = None,
        use_self_play_reward: bool = False,
        see_enemy_actions: bool = True,
        won_battle_bonus: float = 1.0,
        walls_cause_death: bool = True,
        max_steps: int = C.MAX_STEPS,
        smacv2_position_generation: bool = False,
        smacv2_unit_type_generation: bool = False,
        observation_type: str = "unit_list",
        action_type: str = "discrete",
        cooldown_jitter: bool = True,
    ) -> None:
        self.observation_type = _choice("observation_type", observation_type, C.OBSERVATION_TYPES)
        self.action_type = _choice("action_type", action_type, C.ACTION_TYPES)
        self.scenario = _resolve_scenario(
            scenario, num_allies, num_enemies, smacv2_position_generation, smacv2_unit_type_generation
        )
        sc = self.scenario
        units = unit_table(
            unit_type_names,
            unit_type_shorthands,
            {
                "unit_type_velocities": unit_type_velocities,
                "unit_type_attacks": unit_type_attacks,
                "unit_type_attack_ranges": unit_type_attack_ranges,
                "unit_type_sight_ranges": unit_type_sight_ranges,
                "unit_type_radiuses": unit_type_radiuses,
                "unit_type_health": unit_type_health,
                "unit_type_weapon_cooldowns": unit_type_weapon_cooldowns,
            },
        )
        if max(sc.unit_types) >= units.num_types:
            raise ValueError(
                f"SMAX: the scenario has unit type {max(sc.unit_types)}, but the unit table has "
                f"{units.num_types} types ({', '.join(units.names)})"
            )
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
            units=units,
        )
        self.units = units
        self.map_width, self.map_height = self.rules.width, self.rules.height
        self.world_steps_per_env_step = self.rules.ticks
        self.time_per_step = self.rules.tick_seconds
        self.walls_cause_death = self.rules.walls_cause_death
        self.smacv2_position_generation = sc.smacv2_position_generation
        self.smacv2_unit_type_generation = sc.smacv2_unit_type_generation
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
        self.agent_ids = {a: i for i, a in enumerate(self.all_agents)}
        self.unit_type_names = list(units.names)
        self.unit_type_shorthands = list(units.shorthands)
        self.unit_type_bits = units.num_types
        self.unit_features = list(unit_features(units.names))
        self.own_features = list(own_features(units.names))
        self.world_features = list(world_features(units.names))
        self.num_movement_actions = C.NUM_MOVE_ACTIONS
        self.continuous_action_dims = list(C.CONTINUOUS_ACTION_DIMS)
        self.num_sections = C.NUM_SECTIONS
        self.max_units_per_section = C.MAX_UNITS_PER_SECTION
        self.cooldown_jitter = self.rules.cooldown_jitter
        self._others = others_table(sc.num_allies, sc.num_enemies)
        self._all_units = np.arange(self.num_units)
        self._fixed_types = np.asarray(sc.unit_types, np.int32)
        nf, no = len(self.unit_features), len(self.own_features)
        if self.observation_type == "conic":
            self.obs_size = C.NUM_SECTIONS * C.MAX_UNITS_PER_SECTION * nf + no
        else:
            self.obs_size = (self.num_units - 1) * nf + no
        self.state_size = self.num_units * len(self.world_features) + 1
        self.num_ally_actions = C.NUM_MOVE_ACTIONS + sc.num_enemies
        self.num_enemy_actions = C.NUM_MOVE_ACTIONS + sc.num_allies
        self.observation_spaces = {a: Box(-1.0, 1.0, (self.obs_size,)) for a in self.all_agents}
        self.action_spaces = {a: self._action_space(i) for i, a in enumerate(self.all_agents)}

    def _action_space(self, unit: int) -> Discrete | Box:
        if self.action_type == "continuous":
            return Box(0.0, 1.0, (len(C.CONTINUOUS_ACTION_DIMS),))
        return Discrete(self.num_ally_actions if unit < self.num_allies else self.num_enemy_actions)

    # ------------------------------------------------- JaxMARL's table attributes
    @property
    def teams(self) -> jax.Array:
        """Each unit's team (0 allies, 1 enemies), uint8 ``(U,)``."""
        return jnp.asarray(np.arange(self.num_units) >= self.num_allies, jnp.uint8)

    unit_type_velocities = property(lambda self: self.units.array("speed"), doc="Speeds, float32 (types,).")
    unit_type_attacks = property(lambda self: self.units.array("damage"), doc="Damage per hit (types,).")
    unit_type_attack_ranges = property(lambda self: self.units.array("attack_range"), doc="Attack ranges.")
    unit_type_sight_ranges = property(lambda self: self.units.array("sight_range"), doc="Sight ranges.")
    unit_type_radiuses = property(lambda self: self.units.array("radius"), doc="Disc radii.")
    unit_type_health = property(lambda self: self.units.array("health"), doc="Maximum health.")
    unit_type_weapon_cooldowns = property(lambda self: self.units.array("cooldown"), doc="Cooldowns (s).")

    @property
    def position_generator(self) -> Any:
        """SMACv2's start-position distribution for this map (``.generate(key)``)."""
        from jaxmarl.environments.smax.distributions import SurroundAndReflectPositionDistribution

        return SurroundAndReflectPositionDistribution(
            self.num_allies, self.num_enemies, self.map_width, self.map_height
        )

    @property
    def unit_type_generator(self) -> Any:
        """SMACv2's unit-type distribution for these teams (``.generate(key)``)."""
        from jaxmarl.environments.smax.distributions import UniformUnitTypeDistribution

        return UniformUnitTypeDistribution(
            self.num_allies, self.num_enemies, self.map_width, self.map_height, self.unit_type_bits
        )

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
            unit_type = smacv2_unit_types(key_types, sc.num_allies, sc.num_enemies, self.units.num_types)
        else:
            unit_type = jnp.asarray(self._fixed_types)
        alive = jnp.ones((self.num_units,), bool)
        pos = push_apart(pos, alive, self.units.array("radius")[unit_type])
        pos = jnp.clip(pos, C.SPAWN_MARGIN, jnp.array([r.width, r.height]) - C.SPAWN_MARGIN)
        return State(
            pos=pos.astype(jnp.float32),
            health=self.units.array("health")[unit_type],
            alive=alive,
            unit_type=unit_type,
            cooldown=jnp.zeros((self.num_units,), jnp.float32),
            last_move=jnp.zeros((self.num_units, 2), jnp.float32),
            last_attack=jnp.full((self.num_units,), -1, jnp.int32),
            last_attacked=jnp.full((self.num_units,), -1, jnp.int32),
            step=jnp.int32(0),
        )

    def reset_env(self, key: jax.Array) -> tuple[dict[str, jax.Array], State]:
        state = self.new_battle(key)
        return self.get_obs(state), state

    # ------------------------------------------------------------------ actions
    def noop_action(self, agent: str) -> Any:
        """What an out-of-range action is replaced by (``info["invalid_action"]``): ``stop``
        (4), or for continuous actions zeros (move by 0: stand still)."""
        del agent
        if self.action_type == "continuous":
            return np.zeros(len(C.CONTINUOUS_ACTION_DIMS), np.float32)
        return C.STOP

    def decode(
        self,
        key: jax.Array,
        state: State,
        actions: jax.Array,
        units: np.ndarray,
        action_type: str | None = None,
    ) -> Decoded:
        """Actions of the units ``units`` (static int array, ``n`` of them; int ``(n,)``
        discrete or float ``(n, 4)`` continuous, as ``action_type``, by default the env's)
        -> movement float32 ``(n, 2)`` and attacked enemy ``k`` (-1 for none) int32 ``(n,)``.
        ``key`` draws the continuous actions' coin flips."""
        if (action_type or self.action_type) == "continuous":
            coins = jax.random.uniform(key, (2, len(units)))
            return decode_continuous(state, actions, units, self.rules, coins)
        return decode_discrete(actions, np.asarray(self.rules.num_targets)[units])

    def decode_actions(self, key: jax.Array, state: State, actions: jax.Array) -> Decoded:
        """Every unit's actions (allies first, ``(U,)`` or ``(U, 4)``) decoded; see :meth:`decode`."""
        return self.decode(key, state, actions, self._all_units)

    # ------------------------------------------------------------------- rules
    def draw_jitter(self, key: jax.Array) -> jax.Array:
        """The cooldown noise of one step: uniform float32 ``(ticks, U)`` in ``[0, 1)``."""
        return jax.random.uniform(key, (self.rules.ticks, self.num_units))

    def transition(
        self, state: State, move: jax.Array, attack: jax.Array, jitter: jax.Array
    ) -> tuple[State, jax.Array, jax.Array, jax.Array]:
        """One step of the battle from decoded actions and explicit cooldown noise.

        Args:
            state: the battle.
            move: movement of every unit, float32 ``(U, 2)`` (see ``battle_step``).
            attack: attacked enemy ``k`` of every unit, -1 for none, int32 ``(U,)``.
            jitter: the cooldown noise, float32 ``(ticks, U)`` in ``[0, 1)``.

        Returns:
            ``(state, team_reward, over, won)``: the new state (``step`` incremented),
            float32 ``(2,)`` rewards of team 0 and team 1, whether a team is wiped out,
            and bool ``(2,)`` which team won this step.
        """
        new = battle_step(state, move, attack, jitter, self.rules)
        new = new.replace(step=state.step + 1)
        reward, over, won = self._team_rewards(new.unit_type, state.health, new.health, new.alive)
        return new, reward, over, won

    def battle_transition(
        self, key: jax.Array, state: State, move: jax.Array, attack: jax.Array
    ) -> tuple[State, jax.Array, jax.Array, jax.Array]:
        """:meth:`transition` with the cooldown noise drawn from ``key``."""
        return self.transition(state, move, attack, self.draw_jitter(key))

    def _team_rewards(
        self, unit_type: jax.Array, health_before: jax.Array, health_after: jax.Array, alive: jax.Array
    ) -> tuple[jax.Array, jax.Array, jax.Array]:
        """Rewards of team 0 and team 1 (float32 ``(2,)``), whether a team is wiped out,
        and which team won (bool ``(2,)``)."""
        na = self.num_allies
        lost = (health_before - health_after) / self.units.array("health")[unit_type]  # (U,)
        damage = jnp.stack([jnp.mean(lost[na:]), jnp.mean(lost[:na])])
        allies_dead = ~jnp.any(alive[:na])
        enemies_dead = ~jnp.any(alive[na:])
        won = jnp.stack([enemies_dead & ~allies_dead, allies_dead & ~enemies_dead])
        bonus = self.won_battle_bonus * won.astype(jnp.float32)
        reward = bonus - bonus[::-1] if self.use_self_play_reward else damage + bonus
        return reward, allies_dead | enemies_dead, won

    def compute_reward(
        self, state: State, health_before: jax.Array, health_after: jax.Array
    ) -> dict[str, jax.Array]:
        """Every agent's reward for a step that took the units' health from
        ``health_before`` to ``health_after`` and ended in ``state`` (JaxMARL's method)."""
        reward, _, _ = self._team_rewards(state.unit_type, health_before, health_after, state.alive)
        return {a: reward[int(i >= self.num_allies)] for i, a in enumerate(self.all_agents)}

    def is_terminal(self, state: State) -> jax.Array:
        """Whether the battle is over: a team wiped out or the time limit reached."""
        na = self.num_allies
        wiped = ~jnp.any(state.alive[:na]) | ~jnp.any(state.alive[na:])
        return wiped | (state.step >= self._time_limit)

    # ------------------------------------------------------------------ stepping
    def step_env(
        self, key: jax.Array, state: State, actions: dict[str, jax.Array]
    ) -> tuple[dict[str, jax.Array], State, dict[str, jax.Array], dict[str, jax.Array], dict[str, Any]]:
        key_decode, key_ticks = jax.random.split(key)
        act = jnp.stack([jnp.asarray(actions[a]) for a in self.agents])
        move, attack = self.decode_actions(key_decode, state, act)
        return self.step_decoded(state, move, attack, self.draw_jitter(key_ticks))

    def step_decoded(
        self, state: State, move: jax.Array, attack: jax.Array, jitter: jax.Array
    ) -> tuple[dict[str, jax.Array], State, dict[str, jax.Array], dict[str, jax.Array], dict[str, Any]]:
        """``step_env`` from decoded actions and explicit cooldown noise (see :meth:`transition`)."""
        new, reward, over, won = self.transition(state, move, attack, jitter)
        return self._outputs(new, reward, over, won, self._all_units)

    def step_env_no_decode(
        self, key: jax.Array, state: State, actions: tuple[jax.Array, jax.Array]
    ) -> tuple[dict[str, jax.Array], State, dict[str, jax.Array], dict[str, jax.Array], dict[str, Any]]:
        """``step_env`` from JaxMARL's decoded actions: ``(movement, attack_actions)``,
        movement float ``(U, 2)`` and attack actions int ``(U,)`` (``5 + k`` attacks the
        unit's enemy ``k``, anything below 5 attacks no one)."""
        movement, attack_ids = actions
        k = jnp.asarray(attack_ids).astype(jnp.int32) - C.NUM_MOVE_ACTIONS
        attack = jnp.where((k >= 0) & (k < jnp.asarray(self.rules.num_targets)), k, -1)
        return self.step_decoded(state, jnp.asarray(movement, jnp.float32), attack, self.draw_jitter(key))

    def _outputs(
        self, new: State, reward: jax.Array, over: jax.Array, won: jax.Array, units: np.ndarray
    ) -> tuple[dict[str, jax.Array], State, dict[str, jax.Array], dict[str, jax.Array], dict[str, Any]]:
        """Dicts for the agents controlling ``units`` (static, in agent order)."""
        team = (units >= self.num_allies).astype(np.int32)
        obs_arr = self.observe(new, units)
        names = [self.all_agents[u] for u in units]
        obs = {a: obs_arr[i] for i, a in enumerate(names)}
        rewards = {a: reward[team[i]] for i, a in enumerate(names)}
        dead = ~new.alive[units]
        terminated = {a: dead[i] for i, a in enumerate(names)}
        terminated["__all__"] = over
        info = {"won": won[team], "metrics": {"win_rate": won[0].astype(jnp.float32)}}
        return obs, new, rewards, terminated, info

    def expand_state_seq(self, state_seq: Sequence[tuple[jax.Array, State, dict[str, jax.Array]]]) -> list:
        """The world ticks inside recorded steps, for animations (JaxMARL's method).

        Args:
            state_seq: ``(key, state, actions)`` per step, as given to ``env.step``.

        Returns:
            ``(key, state, actions)`` per tick: each step's ticks, preceded by the step's
            own state when it starts an episode.
        """
        from jaxmarl.environments.smax.viewer import expand_steps

        return expand_steps(self, state_seq)

    def _ticks(self, key: jax.Array, state: State, actions: dict[str, jax.Array]) -> State:
        """The states after each tick of ``step(key, state, actions)``, stacked."""
        actions, _ = self.sanitise_actions(actions)
        key_step, _ = jax.random.split(key)  # as MultiAgentEnv.step
        key_decode, key_ticks = jax.random.split(key_step)
        act = jnp.stack([jnp.asarray(actions[a]) for a in self.agents])
        move, attack = self.decode_actions(key_decode, state, act)
        return battle_ticks(state, move, attack, self.draw_jitter(key_ticks), self.rules)

    # ------------------------------------------------------------ observations
    def observe(self, state: State, units: np.ndarray) -> jax.Array:
        """Observations (of the env's type) of the units ``units``, float32 ``(n, obs_size)``."""
        if self.observation_type == "conic":
            return observe_conic(state, units, self.rules, self.see_enemy_actions)
        return observe(state, units, self._others, self.rules, self.see_enemy_actions)

    def get_obs(self, state: State) -> dict[str, jax.Array]:
        obs = self.observe(state, self._all_units)
        return {a: obs[i] for i, a in enumerate(self.all_agents)}

    def get_obs_unit_list(self, state: State) -> dict[str, jax.Array]:
        """Unit-list observations of every unit, whatever ``observation_type`` is."""
        obs = observe(state, self._all_units, self._others, self.rules, self.see_enemy_actions)
        return {a: obs[i] for i, a in enumerate(self.all_agents)}

    def get_obs_conic(self, state: State) -> dict[str, jax.Array]:
        """Conic observations of every unit, whatever ``observation_type`` is."""
        obs = observe_conic(state, self._all_units, self.rules, self.see_enemy_actions)
        return {a: obs[i] for i, a in enumerate(self.all_agents)}

    def get_avail_actions(self, state: State) -> dict[str, jax.Array]:
        """The discrete action masks of every unit (for either action type)."""
        allies, enemies = avail_actions(state, self.rules)
        masks = {a: allies[i] for i, a in enumerate(self.all_agents[: self.num_allies])}
        masks.update({a: enemies[i] for i, a in enumerate(self.all_agents[self.num_allies :])})
        return masks

    def get_global_state(self, state: State) -> jax.Array:
        """The world state, float32 ``(U * len(world_features) + 1,)``; see
        ``observations.world_state``."""
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

    def init_render(self, ax: Any, state: Any, step: int = 0, env_step: int = 0) -> Any:
        """Draw ``state`` (a state, or a ``(key, state, actions)`` tuple) on the matplotlib
        axes ``ax`` and return the image artist (JaxMARL's method; ``step``, the tick
        within the step, is accepted and not drawn)."""
        from jaxmarl.environments.smax.viewer import draw_on_axes

        del step
        return draw_on_axes(self, ax, state, env_step)

    def update_render(self, im: Any, state: Any, step: int = 0, env_step: int = 0) -> Any:
        """Redraw the axes of the image artist ``im`` with ``state`` (JaxMARL's method)."""
        return self.init_render(im.axes, state, step, env_step)
