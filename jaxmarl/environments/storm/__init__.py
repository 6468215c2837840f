"""STORM: Spatial-Temporal Representations of Matrix Games (2 and n players).

Registered as ``storm``, ``storm_2p`` and ``storm_np``, all built by :class:`STORM`.
"""

from jaxmarl.environments.storm.env import STORM
from jaxmarl.environments.storm.types import State

__all__ = ["STORM", "State"]
