"""The Coin Game (Lerer & Peysakhovich 2017; Foerster et al. 2018): a two-player social dilemma."""

from jaxmarl.environments.coin_game.constants import DOWN, LEFT, RIGHT, STAY, UP
from jaxmarl.environments.coin_game.env import CoinGame
from jaxmarl.environments.coin_game.types import State

__all__ = ["DOWN", "LEFT", "RIGHT", "STAY", "UP", "CoinGame", "State"]
