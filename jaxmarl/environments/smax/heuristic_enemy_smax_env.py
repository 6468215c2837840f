"""JaxMARL's module path ``jaxmarl.environments.smax.heuristic_enemy_smax_env``: SMAX
against a built-in enemy, re-exported from ``enemy.py``. ``State`` is the state of these
environments (:class:`~jaxmarl.environments.smax.EnemyState`: the battle and the enemy
policy's state, also readable under JaxMARL's names ``state`` and
``enemy_policy_state``)."""

from jaxmarl.environments.smax.enemy import EnemySMAX, HeuristicEnemySMAX, LearnedPolicyEnemySMAX
from jaxmarl.environments.smax.types import EnemyState as State

__all__ = ["EnemySMAX", "HeuristicEnemySMAX", "LearnedPolicyEnemySMAX", "State"]
