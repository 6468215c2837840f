"""JaxMARL's heuristic-policy API (``jaxmarl.environments.smax.heuristic_enemy``), on our
heuristic (``heuristic.py``).

``create_heuristic_policy(env, team)`` returns ``policy(key, policy_state, obs) ->
(action, policy_state)`` for one unit of ``team`` (0 allies, 1 enemies): ``obs`` is the
unit's unit-list observation (``env.get_obs_unit_list(state)[agent]``, which is also
``obs[agent]`` when the env's ``observation_type`` is ``"unit_list"``), ``action`` a
discrete action id (for either action type, as in JaxMARL: ``HeuristicEnemySMAX``'s
enemies play discrete actions whatever the allies' type). Start every unit from
``get_heuristic_policy_initial_state()``; ``jax.vmap`` the policy to play a team.

>>> import jax
>>> from jaxmarl import make
>>> from jaxmarl.environments.smax.heuristic_enemy import (
...     create_heuristic_policy, get_heuristic_policy_initial_state)
>>> env = make("SMAX", scenario="3m")
>>> obs, state = env.reset(jax.random.PRNGKey(0))
>>> policy = create_heuristic_policy(env, 0)
>>> action, memory = policy(jax.random.PRNGKey(1), get_heuristic_policy_initial_state(), obs["ally_0"])
>>> int(action) in range(env.num_ally_actions)
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

from jaxmarl.environments.smax.heuristic import check_attack_mode, heuristic_from_obs, heuristic_memory
from jaxmarl.environments.smax.types import HeuristicState

__all__ = ["HeuristicPolicyState", "create_heuristic_policy", "get_heuristic_policy_initial_state"]

HeuristicPolicyState = HeuristicState
"""A unit's heuristic memory (JaxMARL's name; see :class:`~jaxmarl.environments.smax.HeuristicState`)."""

HeuristicPolicy = Callable[[jax.Array, HeuristicState, jax.Array], tuple[jax.Array, HeuristicState]]


def get_heuristic_policy_initial_state() -> HeuristicState:
    """A fresh memory for one unit (it takes its position at its first decision as its start)."""
    return heuristic_memory(())


def create_heuristic_policy(
    env: Any, team: int, shoot: bool = True, attack_mode: str = "closest"
) -> HeuristicPolicy:
    """The decentralised heuristic as a per-unit policy.

    Args:
        env: an SMAX environment (``SMAX`` or an enemy variant such as ``HeuristicEnemySMAX``).
        team: 0 for the allies, 1 for the enemies.
        shoot: whether the units attack at all (False: they only move).
        attack_mode: ``"closest"`` or ``"random"``: how a new target is chosen among the
            enemies in range (a target is kept while it stays in range).

    Returns:
        ``policy(key, policy_state, obs) -> (action, policy_state)``: ``obs`` a unit-list
        observation, float32 ``(obs_dim,)`` (or a batch ``(n, obs_dim)`` with a batched
        state), ``action`` an int32 discrete action.

    Raises:
        ValueError: for a team other than 0 and 1 or an unknown attack mode; the policy
            raises (when traced) for observations that are not unit lists.
    """
    if team not in (0, 1):
        raise ValueError(f"create_heuristic_policy: team must be 0 (allies) or 1 (enemies), got {team!r}")
    check_attack_mode(attack_mode, "create_heuristic_policy")
    team_size = env.num_allies if team == 0 else env.num_enemies
    units = env.units
    size = (env.num_allies + env.num_enemies - 1) * (7 + units.num_types) + 4 + units.num_types
    width, height = env.map_width, env.map_height

    def policy(
        key: jax.Array, policy_state: HeuristicState, obs: jax.Array
    ) -> tuple[jax.Array, HeuristicState]:
        obs = jnp.asarray(obs, jnp.float32)
        if obs.ndim not in (1, 2) or obs.shape[-1] != size:
            raise ValueError(
                f"the SMAX heuristic reads unit-list observations of shape ({size},), got {obs.shape}; "
                "with observation_type='conic' give it env.get_obs_unit_list(state)[agent]"
            )
        single = obs.ndim == 1
        memory = jax.tree.map(lambda x: x[None], policy_state) if single else policy_state
        actions, memory = heuristic_from_obs(
            memory, obs.reshape(-1, size), team_size, width, height, units, shoot, attack_mode, key
        )
        if single:
            return actions[0], jax.tree.map(lambda x: x[0], memory)
        return actions, memory

    return policy
