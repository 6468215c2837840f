"""jaxmarl: multi-agent reinforcement learning environments and baselines in pure JAX.

>>> import jax, jaxmarl
>>> env = jaxmarl.make("MPE_simple_spread_v3")
>>> obs, state = env.reset(jax.random.PRNGKey(0))
>>> obs["agent_0"].shape
(18,)
"""

from jaxmarl.registration import make, register, registered_envs

__version__ = "0.1.0"

__all__ = ["__version__", "make", "register", "registered_envs"]
