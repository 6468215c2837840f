"""Hanabi: the cooperative card game, equal to the Hanabi Learning Environment.

Registered as ``hanabi`` (2 players by default; ``make("hanabi", num_agents=4)``).
"""

from jaxmarl.environments.hanabi.env import Hanabi
from jaxmarl.environments.hanabi.types import GameConfig, State

HanabiEnv = Hanabi  # JaxMARL 0.2.0's name

__all__ = ["GameConfig", "Hanabi", "HanabiEnv", "State"]
