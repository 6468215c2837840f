"""SMAX against a built-in enemy: the allies are the agents, a policy plays the enemies.

- :class:`HeuristicEnemySMAX`: the decentralised heuristic (``heuristic.py``) plays
  the enemy team.
- :class:`PolicyEnemySMAX`: any policy function plays it, e.g. a trained network with
  its parameters; the parameters live in the state, so a batch of environments can
  face a batch of different opponents.
- :class:`LearnedPolicyEnemySMAX`: JaxMARL's variant of it, built from a Flax module
  and its parameters (registered as ``LearnedPolicyEnemySMAX``).

All take every keyword of :class:`SMAX` (the action and observation types included:
the allies act and observe as the env says) and forward unknown attributes to it.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.multi_agent_env import MultiAgentEnv
from jaxmarl.environments.smax.dynamics import battle_ticks
from jaxmarl.environments.smax.env import SMAX
from jaxmarl.environments.smax.heuristic import (
    check_attack_mode,
    heuristic_actions,
    heuristic_from_obs,
    heuristic_init,
    heuristic_memory,
)
from jaxmarl.environments.smax.observations import avail_actions
from jaxmarl.environments.smax.types import EnemyState, State

__all__ = ["EnemySMAX", "HeuristicEnemySMAX", "LearnedPolicyEnemySMAX", "PolicyEnemySMAX"]

EnemyPolicy = Callable[[Any, jax.Array, jax.Array, jax.Array], jax.Array]
Outputs = tuple[dict[str, jax.Array], EnemyState, dict[str, jax.Array], dict[str, jax.Array], dict[str, Any]]


class EnemySMAX(MultiAgentEnv):
    """SMAX with the enemy team played by ``enemy_actions``; subclasses say how.

    Agents are ``ally_0 ...`` only; spaces, observations, rewards and the episode are
    those of :class:`SMAX` for the allies. ``state.battle`` is the SMAX state. Enemy
    actions are decoded as ``enemy_action_type`` says (discrete unless a subclass says
    otherwise).
    """

    episode_metrics: ClassVar[Mapping[str, str]] = {
        "win_rate": "last"
    }  # 1 if the allies won the battle, else 0
    enemy_action_type = "discrete"

    def __init__(self, **env_kwargs: Any) -> None:
        accepted = [p for p in inspect.signature(SMAX).parameters]
        unknown = sorted(set(env_kwargs) - set(accepted))
        if unknown:
            raise TypeError(
                f"{type(self).__name__} got unexpected keyword argument(s) {', '.join(map(repr, unknown))}. "
                f"Accepted keywords: those of SMAX ({', '.join(accepted)}) and of {type(self).__name__}."
            )
        self._env = SMAX(**env_kwargs)
        engine = self._env
        super().__init__(num_agents=engine.num_allies)
        self.agents = engine.all_agents[: engine.num_allies]
        self.enemy_agents = engine.all_agents[engine.num_allies :]
        self.all_agents = engine.all_agents
        self.max_steps = engine.max_steps
        self.observation_spaces = {a: engine.observation_spaces[a] for a in self.agents}
        self.action_spaces = {a: engine.action_spaces[a] for a in self.agents}
        self._allies = np.arange(engine.num_allies)
        self._enemies = np.arange(engine.num_allies, engine.num_units)

    def __getattr__(self, name: str) -> Any:
        if name == "_env":
            raise AttributeError(name)
        return getattr(self._env, name)

    @property
    def engine(self) -> SMAX:
        """The underlying two-team :class:`SMAX`."""
        return self._env

    # ------------------------------------------------------------ enemy policy
    def enemy_policy_init(self, key: jax.Array, battle: State) -> Any:
        """The enemy policy's state at the start of a battle."""
        raise NotImplementedError

    def enemy_actions(self, key: jax.Array, policy_state: Any, battle: State) -> tuple[jax.Array, Any]:
        """Enemy actions (``(num_enemies,)`` discrete or ``(num_enemies, 4)`` continuous, as
        ``enemy_action_type``) and the policy's new state."""
        raise NotImplementedError

    def get_enemy_policy_initial_state(self, key: jax.Array) -> Any:
        """The enemy policy's state before a battle is known (JaxMARL's method)."""
        raise NotImplementedError

    def get_enemy_actions(
        self, key: jax.Array, policy_state: Any, enemy_obs: jax.Array
    ) -> tuple[dict[str, jax.Array], Any]:
        """The enemies' actions from their observations alone, float32 ``(num_enemies,
        obs_dim)`` (JaxMARL's method): a dict keyed by enemy and the policy's new state."""
        raise NotImplementedError

    # ------------------------------------------------------------------ episodes
    def reset_env(self, key: jax.Array) -> tuple[dict[str, jax.Array], EnemyState]:
        key_battle, key_policy = jax.random.split(key)
        battle = self._env.new_battle(key_battle)
        state = EnemyState(battle=battle, policy=self.enemy_policy_init(key_policy, battle), step=battle.step)
        return self.get_obs(state), state

    def noop_action(self, agent: str) -> Any:
        """What an out-of-range action is replaced by (``info["invalid_action"]``): ``stop``,
        or for continuous actions zeros."""
        return self._env.noop_action(agent)

    def _decoded(
        self, key: jax.Array, state: EnemyState, actions: dict[str, jax.Array]
    ) -> tuple[jax.Array, jax.Array, Any]:
        """Every unit's movement and attacked enemy, and the enemy policy's new state."""
        key_enemy, key_allies, key_enemies = jax.random.split(key, 3)
        enemy, policy = self.enemy_actions(key_enemy, state.policy, state.battle)
        allies = jnp.stack([jnp.asarray(actions[a]) for a in self.agents])
        move_a, attack_a = self._env.decode(key_allies, state.battle, allies, self._allies)
        move_e, attack_e = self._env.decode(
            key_enemies, state.battle, enemy, self._enemies, self.enemy_action_type
        )
        return jnp.concatenate([move_a, move_e]), jnp.concatenate([attack_a, attack_e]), policy

    def step_env(self, key: jax.Array, state: EnemyState, actions: dict[str, jax.Array]) -> Outputs:
        key_act, key_ticks = jax.random.split(key)
        move, attack, policy = self._decoded(key_act, state, actions)
        battle, reward, over, won = self._env.battle_transition(key_ticks, state.battle, move, attack)
        obs, battle, rewards, terminated, info = self._env._outputs(battle, reward, over, won, self._allies)
        return obs, EnemyState(battle=battle, policy=policy, step=battle.step), rewards, terminated, info

    def _ticks(self, key: jax.Array, state: EnemyState, actions: dict[str, jax.Array]) -> EnemyState:
        """The states after each tick of ``step(key, state, actions)``, stacked."""
        actions, _ = self.sanitise_actions(actions)
        key_step, _ = jax.random.split(key)  # as MultiAgentEnv.step
        key_act, key_ticks = jax.random.split(key_step)
        move, attack, _ = self._decoded(key_act, state, actions)
        jitter = self._env.draw_jitter(key_ticks)
        ticks = battle_ticks(state.battle, move, attack, jitter, self._env.rules)
        count = jitter.shape[0]
        policy = jax.tree.map(lambda x: jnp.broadcast_to(x, (count, *jnp.shape(x))), state.policy)
        return EnemyState(battle=ticks, policy=policy, step=ticks.step)

    def expand_state_seq(self, state_seq: Sequence[tuple[jax.Array, EnemyState, Any]]) -> list:
        """The world ticks inside recorded steps, for animations (see :meth:`SMAX.expand_state_seq`)."""
        from jaxmarl.environments.smax.viewer import expand_steps

        return expand_steps(self, state_seq)

    def is_terminal(self, state: EnemyState) -> jax.Array:
        """Whether the battle is over: a team wiped out or the time limit reached."""
        return self._env.is_terminal(state.battle)

    # ------------------------------------------------------------ observations
    def get_obs(self, state: EnemyState) -> dict[str, jax.Array]:
        obs = self._env.observe(state.battle, self._allies)
        return {a: obs[i] for i, a in enumerate(self.agents)}

    def get_enemy_obs(self, state: EnemyState) -> jax.Array:
        """The enemies' observations (of the env's observation type), float32
        ``(num_enemies, obs_dim)``."""
        return self._env.observe(state.battle, self._enemies)

    def get_all_unit_obs(self, state: EnemyState) -> dict[str, jax.Array]:
        """Observations of every unit, allies and enemies, keyed by agent (JaxMARL's method)."""
        return self._env.get_obs(state.battle)

    def get_avail_actions(self, state: EnemyState) -> dict[str, jax.Array]:
        allies, _ = avail_actions(state.battle, self._env.rules)
        return {a: allies[i] for i, a in enumerate(self.agents)}

    def get_global_state(self, state: EnemyState) -> jax.Array:
        return self._env.get_global_state(state.battle)

    def get_world_state(self, state: EnemyState) -> jax.Array:
        return self._env.get_global_state(state.battle)

    def render(self, state: EnemyState, size: int = 400) -> jax.Array:
        """The battle as an RGB image, uint8 ``(size, size, 3)``; ``size`` is the image's
        longer side in pixels (see :meth:`SMAX.render`)."""
        return self._env.render(state.battle, size=size)

    def _enemy_dict(self, actions: jax.Array) -> dict[str, jax.Array]:
        return {a: actions[i] for i, a in enumerate(self.enemy_agents)}


class HeuristicEnemySMAX(EnemySMAX):
    """SMAX against the decentralised heuristic (``heuristic.py``).

    The heuristic reads the state (exactly what each enemy sees) and plays discrete
    actions, whatever the allies' action and observation types.

    Example::

        from jaxmarl import make
        from jaxmarl.environments.smax import map_name_to_scenario
        env = make("HeuristicEnemySMAX", scenario=map_name_to_scenario("2s3z"))

    Args:
        enemy_shoots: whether the enemies attack (False: they only move).
        attack_mode: ``"closest"`` (attack the closest enemy in range) or ``"random"``
            (one in range drawn uniformly); either way a target is kept while it stays
            in range.
        **env_kwargs: keywords of :class:`SMAX` (``scenario``, ``max_steps`` ...).
    """

    def __init__(self, enemy_shoots: bool = True, attack_mode: str = "closest", **env_kwargs: Any) -> None:
        check_attack_mode(attack_mode, "HeuristicEnemySMAX")
        super().__init__(**env_kwargs)
        self.enemy_shoots = bool(enemy_shoots)
        self.attack_mode = attack_mode

    @property
    def heuristic_policy(self) -> Callable[..., tuple[jax.Array, Any]]:
        """The enemies' heuristic as JaxMARL's per-unit policy
        ``policy(key, policy_state, obs) -> (action, policy_state)`` (``create_heuristic_policy``)."""
        from jaxmarl.environments.smax.heuristic_enemy import create_heuristic_policy

        return create_heuristic_policy(self, 1, shoot=self.enemy_shoots, attack_mode=self.attack_mode)

    def enemy_policy_init(self, key: jax.Array, battle: State) -> Any:
        del key
        return heuristic_init(battle.pos[self._enemies], self._env.map_width, self._env.map_height)

    def enemy_actions(self, key: jax.Array, policy_state: Any, battle: State) -> tuple[jax.Array, Any]:
        return heuristic_actions(
            policy_state, battle, 1, self._env.rules, self.enemy_shoots, self.attack_mode, key
        )

    def get_enemy_policy_initial_state(self, key: jax.Array) -> Any:
        del key
        return heuristic_memory((self._env.num_enemies,))

    def get_enemy_actions(
        self, key: jax.Array, policy_state: Any, enemy_obs: jax.Array
    ) -> tuple[dict[str, jax.Array], Any]:
        """The heuristic's actions from the enemies' unit-list observations (as
        ``get_obs_unit_list`` gives them), float32 ``(num_enemies, obs_dim)``."""
        env = self._env
        actions, policy_state = heuristic_from_obs(
            policy_state,
            enemy_obs,
            env.num_enemies,
            env.map_width,
            env.map_height,
            env.units,
            self.enemy_shoots,
            self.attack_mode,
            key,
        )
        return self._enemy_dict(actions), policy_state


class PolicyEnemySMAX(EnemySMAX):
    """SMAX against any policy, for example trained parameters.

    The policy is called as ``policy(params, key, obs, avail)`` with the enemies'
    observations (of the env's observation type), float32 ``(num_enemies, obs_dim)``,
    and discrete action masks, bool ``(num_enemies, 5 + num_allies)``, and returns their
    actions, of the env's action type: int ``(num_enemies,)`` or float ``(num_enemies,
    4)``. The parameters are part of the state (``state.policy``), set from ``params``
    at reset.

    Args:
        policy: the enemy policy function.
        params: its parameters (any pytree of arrays).
        **env_kwargs: keywords of :class:`SMAX`.
    """

    def __init__(self, policy: EnemyPolicy, params: Any = None, **env_kwargs: Any) -> None:
        if not callable(policy):
            raise ValueError(f"{type(self).__name__}: policy must be callable, got {type(policy).__name__}")
        super().__init__(**env_kwargs)
        self.policy = policy
        self._policy_fn = policy
        self.params = jax.tree.map(jnp.asarray, params)
        self.enemy_action_type = self._env.action_type

    def enemy_policy_init(self, key: jax.Array, battle: State) -> Any:
        del key, battle
        return self.params

    def get_enemy_policy_initial_state(self, key: jax.Array) -> Any:
        del key
        return self.params

    def _play(self, params: Any, key: jax.Array, obs: jax.Array, avail: jax.Array) -> jax.Array:
        actions = jnp.asarray(self._policy_fn(params, key, obs, avail))
        if self.enemy_action_type == "continuous":
            return actions.reshape(len(self._enemies), -1).astype(jnp.float32)
        return actions.reshape(len(self._enemies)).astype(jnp.int32)

    def enemy_actions(self, key: jax.Array, policy_state: Any, battle: State) -> tuple[jax.Array, Any]:
        obs = self._env.observe(battle, self._enemies)
        _, avail = avail_actions(battle, self._env.rules)
        return self._play(policy_state, key, obs, avail), policy_state

    def get_enemy_actions(
        self, key: jax.Array, policy_state: Any, enemy_obs: jax.Array
    ) -> tuple[dict[str, jax.Array], Any]:
        """The policy's actions from the enemies' observations alone (every action taken
        as available)."""
        avail = jnp.ones((len(self._enemies), self._env.num_enemy_actions), bool)
        return self._enemy_dict(self._play(policy_state, key, enemy_obs, avail)), policy_state


def _module_policy(module: Any, action_type: str) -> EnemyPolicy:
    """JaxMARL's learned policy: ``module.apply(params, obs)`` returns a distribution (or a
    tuple whose first element is one, as an actor-critic's ``(pi, value)``), sampled
    with the key; a plain array is taken as logits (discrete) or as the actions
    (continuous)."""

    def policy(params: Any, key: jax.Array, obs: jax.Array, avail: jax.Array) -> jax.Array:
        del avail
        out = module.apply(params, obs)
        if isinstance(out, (tuple, list)):
            out = out[0]
        if hasattr(out, "sample"):
            return out.sample(seed=key)
        if action_type == "continuous":
            return jnp.asarray(out)
        return jax.random.categorical(key, jnp.asarray(out), axis=-1)

    return policy


def _random_policy(num_actions: int, action_type: str) -> EnemyPolicy:
    """Uniformly random legal actions (discrete) or uniform actions in the box (continuous)."""

    def policy(params: Any, key: jax.Array, obs: jax.Array, avail: jax.Array) -> jax.Array:
        del params
        if action_type == "continuous":
            return jax.random.uniform(key, (obs.shape[0], 4))
        return jax.random.categorical(key, jnp.where(avail[:, :num_actions], 0.0, -jnp.inf), axis=-1)

    return policy


class LearnedPolicyEnemySMAX(PolicyEnemySMAX):
    """SMAX against a learned policy, JaxMARL's constructor: a Flax module and its
    parameters (registered as ``LearnedPolicyEnemySMAX``).

    Each step the enemies' observations (of the env's observation type), float32
    ``(num_enemies, obs_dim)``, go through ``policy.apply(params, obs)``; its output (a
    distribution, or a tuple whose first element is one, such as an actor-critic's
    ``(pi, value)``; a plain array is taken as logits, or as the actions for continuous
    actions) is sampled with the step's key for the enemies' actions. Without a
    ``policy`` the enemies act uniformly at random (legal discrete actions, or uniform
    continuous ones).

    Args:
        policy: a Flax module (anything with ``apply(params, obs)``), or None.
        params: its parameters.
        **env_kwargs: keywords of :class:`SMAX`.

    Raises:
        ValueError: for a ``policy`` without ``apply`` (use :class:`PolicyEnemySMAX` for
            a policy function).
    """

    def __init__(self, policy: Any = None, params: Any = None, **env_kwargs: Any) -> None:
        if policy is not None and not callable(getattr(policy, "apply", None)):
            raise ValueError(
                "LearnedPolicyEnemySMAX: policy must be a Flax module (with apply(params, obs)) or None, "
                f"got {type(policy).__name__}; for a function policy(params, key, obs, avail) use "
                "PolicyEnemySMAX"
            )
        super().__init__(_random_policy(0, "discrete"), params, **env_kwargs)
        engine = self._env
        if policy is None:
            self._policy_fn = _random_policy(engine.num_enemy_actions, engine.action_type)
        else:
            self._policy_fn = _module_policy(policy, engine.action_type)
        self.policy = policy  # the module, as in JaxMARL
