"""MABrax: Multi-Agent MuJoCo's factorisations of Brax's locomotion tasks.

Registered as ``ant_4x2``, ``halfcheetah_6x1``, ``hopper_3x1``, ``humanoid_9|8`` and
``walker2d_2x3``, all built by :class:`MABrax` (as are JaxMARL 0.2.0's ``MABraxEnv``,
``Ant``, ``HalfCheetah``, ``Hopper``, ``Humanoid`` and ``Walker2d``). Needs Brax
(``pip install "jaxmarl[brax]"``), imported only when an environment is built.
"""

from jaxmarl.environments.mabrax.env import BACKENDS, DEFAULT_BACKEND, MABrax
from jaxmarl.environments.mabrax.factorisation import TASKS
from jaxmarl.environments.mabrax.mabrax_env import Ant, HalfCheetah, Hopper, Humanoid, MABraxEnv, Walker2d
from jaxmarl.environments.mabrax.types import State

__all__ = [
    "BACKENDS",
    "DEFAULT_BACKEND",
    "TASKS",
    "Ant",
    "HalfCheetah",
    "Hopper",
    "Humanoid",
    "MABrax",
    "MABraxEnv",
    "State",
    "Walker2d",
]
