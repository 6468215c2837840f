"""JaxMARL 0.2.0's module path for the JaxNav environment and its types (see ``env.py``)."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxmarl.environments.jaxnav.constants import DEFAULT_MAP_PARAMS, DISCRETE_ACTS
from jaxmarl.environments.jaxnav.env import JaxNav
from jaxmarl.environments.jaxnav.types import EnvInstance, Reward, State

__all__ = [
    "AGENT_BASE",
    "DISCRETE_ACTS",
    "MAP_PARAMS",
    "NUM_REWARD_COMPONENTS",
    "REWARD_COMPONENT_DENSE",
    "REWARD_COMPONENT_SPARSE",
    "EnvInstance",
    "JaxNav",
    "Reward",
    "State",
    "discrete_act_map",
    "listify_reward",
]

AGENT_BASE = "agent"
MAP_PARAMS = dict(DEFAULT_MAP_PARAMS)
NUM_REWARD_COMPONENTS = 2
REWARD_COMPONENT_SPARSE = 0
REWARD_COMPONENT_DENSE = 1


def discrete_act_map(action: jax.Array) -> jax.Array:
    """The ``(v, w)`` commands of discrete actions ``(n,)``, ``(n, 2)``."""
    return jnp.asarray(DISCRETE_ACTS)[action]


def listify_reward(reward: Reward, do_batchify: bool = False) -> jax.Array:
    """A :class:`Reward`'s parts stacked on a last axis ``(..., n, 2)`` (sparse, dense);
    ``do_batchify`` moves robots before a leading batch axis and flattens them,
    ``(n * batch, 2)``, as JaxMARL's batchify does."""
    out = jnp.stack([reward.sparse, reward.dense], axis=-1)
    if do_batchify:
        out = jnp.swapaxes(out, 0, 1).reshape(-1, *out.shape[2:])
    return out
