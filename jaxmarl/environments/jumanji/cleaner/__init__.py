"""Cleaner (Jumanji 1.1.2's ``Cleaner-v0``): cleaners sweep the dirty tiles of a random maze."""

from jaxmarl.environments.jumanji.cleaner.constants import DOWN, LEFT, RIGHT, UP
from jaxmarl.environments.jumanji.cleaner.env import Cleaner
from jaxmarl.environments.jumanji.cleaner.generator import REQUIRED_ATTRIBUTES, RandomGenerator, generate_maze
from jaxmarl.environments.jumanji.cleaner.types import State

__all__ = [
    "DOWN",
    "LEFT",
    "REQUIRED_ATTRIBUTES",
    "RIGHT",
    "UP",
    "Cleaner",
    "RandomGenerator",
    "State",
    "generate_maze",
]
