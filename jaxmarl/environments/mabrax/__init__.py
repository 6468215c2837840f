"""MABrax: Multi-Agent MuJoCo's factorisations of Brax's locomotion tasks.

Registered as ``ant_4x2``, ``halfcheetah_6x1``, ``hopper_3x1``, ``humanoid_9|8`` and
``walker2d_2x3``, all built by :class:`MABrax`. Needs Brax (``pip install "jaxmarl[brax]"``),
imported only when an environment is built.
"""

from jaxmarl.environments.mabrax.env import BACKENDS, DEFAULT_BACKEND, MABrax
from jaxmarl.environments.mabrax.factorisation import TASKS
from jaxmarl.environments.mabrax.types import State

__all__ = ["BACKENDS", "DEFAULT_BACKEND", "TASKS", "MABrax", "State"]
