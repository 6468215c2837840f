"""MMST (Multiple Minimum Spanning Trees), Jumanji's ``MMST-v0``: one agent per tree."""

from jaxmarl.environments.jumanji.mmst.env import MMST
from jaxmarl.environments.jumanji.mmst.generator import (
    REQUIRED_ATTRIBUTES,
    SplitRandomGenerator,
    initial_state,
)
from jaxmarl.environments.jumanji.mmst.reward import DenseRewardFn
from jaxmarl.environments.jumanji.mmst.types import State

__all__ = ["MMST", "REQUIRED_ATTRIBUTES", "DenseRewardFn", "SplitRandomGenerator", "State", "initial_state"]
