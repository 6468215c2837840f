"""Connector (Jumanji's ``Connector-v3``): wires to route without crossing, one agent per
wire head; Jumanji's generators and reward functions and the Jumanji paper's cluster,
linear compression and explosion generators."""

from jaxmarl.environments.jumanji.connector.constants import DOWN, LEFT, NOOP, RIGHT, UP
from jaxmarl.environments.jumanji.connector.env import Connector
from jaxmarl.environments.jumanji.connector.generator import (
    REQUIRED_ATTRIBUTES,
    ClusterGenerator,
    ExplosionGenerator,
    LinearCompressionGenerator,
    RandomWalkGenerator,
    UniformRandomGenerator,
)
from jaxmarl.environments.jumanji.connector.reward import (
    DenseRewardFn,
    SharedDenseRewardFn,
    SharedSparseRewardFn,
    SparseRewardFn,
)
from jaxmarl.environments.jumanji.connector.rules import initial_state
from jaxmarl.environments.jumanji.connector.types import State

__all__ = [
    "DOWN",
    "LEFT",
    "NOOP",
    "REQUIRED_ATTRIBUTES",
    "RIGHT",
    "UP",
    "ClusterGenerator",
    "Connector",
    "DenseRewardFn",
    "ExplosionGenerator",
    "LinearCompressionGenerator",
    "RandomWalkGenerator",
    "SharedDenseRewardFn",
    "SharedSparseRewardFn",
    "SparseRewardFn",
    "State",
    "UniformRandomGenerator",
    "initial_state",
]
