"""STORM: Spatial-Temporal Representations of Matrix Games (2 and n players).

Registered as ``storm``, ``storm_2p`` and ``storm_np``, all built by :class:`STORM`.
"""

from jaxmarl.environments.storm.env import STORM
from jaxmarl.environments.storm.types import State

# JaxMARL 0.2.0's classes of ``storm``, ``storm_2p`` and ``storm_np``: one class here.
InTheGrid = InTheGrid_2p = InTheMatrix = STORM

__all__ = ["STORM", "InTheGrid", "InTheGrid_2p", "InTheMatrix", "State"]
