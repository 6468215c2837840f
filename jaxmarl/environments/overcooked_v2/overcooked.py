"""JaxMARL's module path of the environment: ``OvercookedV2``, ``ObservationType`` and
``State`` (defined in ``env.py`` and ``types.py``)."""

from jaxmarl.environments.overcooked_v2.env import ObservationType, OvercookedV2
from jaxmarl.environments.overcooked_v2.types import State

__all__ = ["ObservationType", "OvercookedV2", "State"]
