"""LevelBasedForaging (Jumanji 1.1.2's ``LevelBasedForaging-v0``): foragers cooperate to load food."""

from jaxmarl.environments.jumanji.lbf.constants import DOWN, LEFT, LOAD, NOOP, RIGHT, UP
from jaxmarl.environments.jumanji.lbf.env import LevelBasedForaging
from jaxmarl.environments.jumanji.lbf.generator import REQUIRED_ATTRIBUTES, RandomGenerator
from jaxmarl.environments.jumanji.lbf.types import State

__all__ = [
    "DOWN",
    "LEFT",
    "LOAD",
    "NOOP",
    "REQUIRED_ATTRIBUTES",
    "RIGHT",
    "UP",
    "LevelBasedForaging",
    "RandomGenerator",
    "State",
]
