"""A Neural-MMO-style world with its task system (Neural MMO 2.1.1's rules), in pure JAX.

``jaxmarl.make("nmmo_v0")`` builds Neural MMO's default world (128 agents, 160-tile map);
``jaxmarl.environments.nmmo.tasks`` holds the predicates, tasks and samplers. See
``docs/environments/nmmo.md``.
"""

from jaxmarl.environments.nmmo import tasks
from jaxmarl.environments.nmmo.config import Config
from jaxmarl.environments.nmmo.env import OBS_TABLES, NeuralMMO
from jaxmarl.environments.nmmo.types import State

__all__ = ["OBS_TABLES", "Config", "NeuralMMO", "State", "tasks"]
