"""jaxmarl: multi-agent reinforcement learning environments and baselines in pure JAX.

>>> import jax, jaxmarl
>>> env = jaxmarl.make("MPE_simple_spread_v3")
>>> obs, state = env.reset(jax.random.PRNGKey(0))
>>> obs["agent_0"].shape
(18,)
"""

from typing import Any

from jaxmarl.registration import make, register, registered_envs

__version__ = "0.1.0"

__all__ = ["__version__", "load_policy", "make", "register", "registered_envs"]


def __getattr__(name: str) -> Any:
    # load_policy imports JAX and the training scripts; only when it is first used.
    if name == "load_policy":
        from jaxmarl.policy import load_policy

        return load_policy
    raise AttributeError(f"module 'jaxmarl' has no attribute {name!r}")
