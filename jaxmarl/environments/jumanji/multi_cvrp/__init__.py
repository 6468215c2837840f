"""MultiCVRP (Jumanji 1.1.2's ``MultiCVRP-v0``): vehicles serve customers from a depot
within soft time windows, one agent per vehicle."""

from jaxmarl.environments.jumanji.multi_cvrp.env import MultiCVRP
from jaxmarl.environments.jumanji.multi_cvrp.generator import (
    REQUIRED_ATTRIBUTES,
    ClusterGenerator,
    ExplosionGenerator,
    LinearCompressionGenerator,
    UniformRandomGenerator,
    initial_state,
    paper_settings,
)
from jaxmarl.environments.jumanji.multi_cvrp.reward import DenseReward, SparseReward
from jaxmarl.environments.jumanji.multi_cvrp.types import State

__all__ = [
    "REQUIRED_ATTRIBUTES",
    "ClusterGenerator",
    "DenseReward",
    "ExplosionGenerator",
    "LinearCompressionGenerator",
    "MultiCVRP",
    "SparseReward",
    "State",
    "UniformRandomGenerator",
    "initial_state",
    "paper_settings",
]
