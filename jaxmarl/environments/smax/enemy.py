"""SMAX against a built-in enemy: the allies are the agents, a policy plays the enemies.

- :class:`HeuristicEnemySMAX`: the decentralised heuristic (``heuristic.py``) plays
  the enemy team.
- :class:`PolicyEnemySMAX`: any policy function plays it, e.g. a trained network with
  its parameters (JaxMARL's ``LearnedPolicyEnemySMAX``); the parameters live in the
  state, so a batch of environments can face a batch of different opponents.

Both take every keyword of :class:`SMAX` and forward unknown attributes to it.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.multi_agent_env import MultiAgentEnv
from jaxmarl.environments.smax.env import SMAX
from jaxmarl.environments.smax.heuristic import heuristic_actions, heuristic_init
from jaxmarl.environments.smax.observations import avail_actions, observe
from jaxmarl.environments.smax.types import EnemyState, State

__all__ = ["EnemySMAX", "HeuristicEnemySMAX", "PolicyEnemySMAX"]

EnemyPolicy = Callable[[Any, jax.Array, jax.Array, jax.Array], jax.Array]


class EnemySMAX(MultiAgentEnv):
    """SMAX with the enemy team played by ``enemy_actions``; subclasses say how.

    Agents are ``ally_0 ...`` only; spaces, observations, rewards and the episode are
    those of :class:`SMAX` for the allies. ``state.battle`` is the SMAX state.
    """

    episode_metrics: ClassVar[Mapping[str, str]] = {
        "win_rate": "last"
    }  # 1 if the allies won the battle, else 0

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
        """Enemy actions, int32 ``(num_enemies,)``, and the policy's new state."""
        raise NotImplementedError

    # ------------------------------------------------------------------ episodes
    def reset_env(self, key: jax.Array) -> tuple[dict[str, jax.Array], EnemyState]:
        key_battle, key_policy = jax.random.split(key)
        battle = self._env.new_battle(key_battle)
        state = EnemyState(battle=battle, policy=self.enemy_policy_init(key_policy, battle), step=battle.step)
        return self.get_obs(state), state

    def noop_action(self, agent: str) -> int:
        """``stop``: what an out-of-range action is replaced by (``info["invalid_action"]``)."""
        return self._env.noop_action(agent)

    def step_env(
        self, key: jax.Array, state: EnemyState, actions: dict[str, jax.Array]
    ) -> tuple[dict[str, jax.Array], EnemyState, dict[str, jax.Array], dict[str, jax.Array], dict[str, Any]]:
        key_enemy, key_step = jax.random.split(key)
        enemy, policy = self.enemy_actions(key_enemy, state.policy, state.battle)
        allies = jnp.stack([jnp.asarray(actions[a]) for a in self.agents]).astype(jnp.int32)
        act = jnp.concatenate([allies, enemy.astype(jnp.int32)])
        battle, reward, over, won = self._env.battle_transition(key_step, state.battle, act)
        obs, battle, rewards, terminated, info = self._env._outputs(battle, reward, over, won, self._allies)
        return obs, EnemyState(battle=battle, policy=policy, step=battle.step), rewards, terminated, info

    # ------------------------------------------------------------ observations
    def get_obs(self, state: EnemyState) -> dict[str, jax.Array]:
        obs = observe(
            state.battle, self._allies, self._env._others, self._env.rules, self._env.see_enemy_actions
        )
        return {a: obs[i] for i, a in enumerate(self.agents)}

    def get_enemy_obs(self, state: EnemyState) -> jax.Array:
        """The enemies' observations, float32 ``(num_enemies, obs_dim)``."""
        return observe(
            state.battle, self._enemies, self._env._others, self._env.rules, self._env.see_enemy_actions
        )

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


class HeuristicEnemySMAX(EnemySMAX):
    """SMAX against the decentralised heuristic (``heuristic.py``).

    Example::

        from jaxmarl import make
        from jaxmarl.environments.smax import map_name_to_scenario
        env = make("HeuristicEnemySMAX", scenario=map_name_to_scenario("2s3z"))

    Args:
        enemy_shoots: whether the enemies attack (False: they only move).
        attack_mode: ``"closest"``, the only mode: attack the closest enemy in range,
            keeping the target while it stays in range.
        **env_kwargs: keywords of :class:`SMAX` (``scenario``, ``max_steps`` ...).
    """

    def __init__(self, enemy_shoots: bool = True, attack_mode: str = "closest", **env_kwargs: Any) -> None:
        if attack_mode != "closest":
            raise ValueError(f"HeuristicEnemySMAX: attack_mode must be 'closest', got {attack_mode!r}")
        super().__init__(**env_kwargs)
        self.enemy_shoots = bool(enemy_shoots)
        self.attack_mode = attack_mode

    def enemy_policy_init(self, key: jax.Array, battle: State) -> Any:
        del key
        return heuristic_init(battle.pos[self._enemies], self._env.map_width, self._env.map_height)

    def enemy_actions(self, key: jax.Array, policy_state: Any, battle: State) -> tuple[jax.Array, Any]:
        del key
        return heuristic_actions(policy_state, battle, 1, self._env.rules, self.enemy_shoots)


class PolicyEnemySMAX(EnemySMAX):
    """SMAX against any policy, for example trained parameters.

    The policy is called as ``policy(params, key, obs, avail)`` with the enemies'
    observations, float32 ``(num_enemies, obs_dim)``, and action masks, bool
    ``(num_enemies, 5 + num_allies)``, and returns int actions ``(num_enemies,)``. The
    parameters are part of the state (``state.policy``), set from ``params`` at reset.

    Args:
        policy: the enemy policy function.
        params: its parameters (any pytree of arrays).
        **env_kwargs: keywords of :class:`SMAX`.
    """

    def __init__(self, policy: EnemyPolicy, params: Any = None, **env_kwargs: Any) -> None:
        if not callable(policy):
            raise ValueError(f"PolicyEnemySMAX: policy must be callable, got {type(policy).__name__}")
        super().__init__(**env_kwargs)
        self.policy = policy
        self.params = jax.tree.map(jnp.asarray, params)

    def enemy_policy_init(self, key: jax.Array, battle: State) -> Any:
        del key, battle
        return self.params

    def enemy_actions(self, key: jax.Array, policy_state: Any, battle: State) -> tuple[jax.Array, Any]:
        rules = self._env.rules
        obs = observe(battle, self._enemies, self._env._others, rules, self._env.see_enemy_actions)
        _, avail = avail_actions(battle, rules)
        actions = jnp.asarray(self.policy(policy_state, key, obs, avail)).reshape(len(self._enemies))
        return actions.astype(jnp.int32), policy_state
