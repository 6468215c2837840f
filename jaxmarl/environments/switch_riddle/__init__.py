"""The Switch Riddle (Foerster et al. 2016, DIAL): a cooperative communication task."""

from jaxmarl.environments.switch_riddle.constants import NONE, TELL, TOGGLE
from jaxmarl.environments.switch_riddle.env import SwitchRiddle
from jaxmarl.environments.switch_riddle.types import State

__all__ = ["NONE", "TELL", "TOGGLE", "State", "SwitchRiddle"]
