"""jaxmarl: multi-agent reinforcement learning environments and baselines in pure JAX.

>>> import jax, jaxmarl
>>> env = jaxmarl.make("MPE_simple_spread_v3")
>>> obs, state = env.reset(jax.random.PRNGKey(0))
>>> obs["agent_0"].shape
(18,)
"""

import importlib
import importlib.util
from typing import Any

from jaxmarl.registration import make, register, registered_envs

__version__ = "0.1.0"

__all__ = ["__version__", "load_policy", "make", "register", "registered_envs"]


def __getattr__(name: str) -> Any:
    # load_policy imports JAX and the training scripts; only when it is first used.
    if name == "load_policy":
        from jaxmarl.policy import load_policy

        return load_policy
    # Sub-packages are imported when first used: jaxmarl.environments.jumanji.connector works
    # after a bare ``import jaxmarl``.
    if not name.startswith("_") and importlib.util.find_spec(f"{__name__}.{name}") is not None:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'jaxmarl' has no attribute {name!r}")
