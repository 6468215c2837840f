"""``AgentBatcher``: per-agent dicts <-> arrays with one row per agent, for learners.

A learner with one set of parameters for all agents wants arrays, not dicts. The
batcher stacks observations into ``(..., num_agents, obs_dim)`` and unstacks actions
back into the env's dict. Agents whose spaces differ (e.g. predators and prey) are
padded to a common shape and masked:

- observations are flattened and zero-padded to the largest size; optionally a one-hot
  agent id is appended so a shared network can tell agents apart;
- discrete actions use the largest ``n``; actions an agent does not have are masked out
  of ``avail`` (together with what ``env.get_avail_actions`` forbids);
- continuous actions use the largest dimension; ``action_dim_mask`` marks which
  dimensions each agent really has, and the extra entries are dropped when unstacking.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.spaces import Box, Discrete

__all__ = ["AgentBatcher"]


class AgentBatcher:
    """Convert between an environment's per-agent dicts and stacked arrays.

    Methods handle one environment; ``jax.vmap`` them over a batch of environments.

    Args:
        env: the environment (or a wrapper of it).
        agent_ids: append a one-hot agent id to every observation. ``"auto"`` (the
            default) appends it only when the agents' spaces differ.

    Attributes:
        agents: agent names, in row order.
        num_agents: number of rows.
        obs_dim: size of a stacked observation (including the id, if any).
        discrete: whether actions are discrete (else continuous ``Box``).
        action_dim: number of discrete actions, or size of a continuous action.
        action_dim_mask: ``(num_agents, action_dim)`` bool, the action entries each agent has.
        heterogeneous: whether the agents' spaces differ.
    """

    def __init__(self, env: Any, agent_ids: bool | str = "auto") -> None:
        self.agents = list(env.agents)
        self.num_agents = len(self.agents)
        obs_spaces = [env.observation_space(a) for a in self.agents]
        act_spaces = [env.action_space(a) for a in self.agents]
        self._obs_sizes = [int(np.prod(s.shape)) for s in obs_spaces]
        if all(isinstance(s, Discrete) for s in act_spaces):
            self.discrete = True
            sizes = [s.n for s in act_spaces]
        elif all(isinstance(s, Box) and len(s.shape) == 1 for s in act_spaces):
            self.discrete = False
            sizes = [s.shape[0] for s in act_spaces]
        else:
            kinds = sorted({type(s).__name__ for s in act_spaces})
            raise ValueError(
                f"AgentBatcher needs every agent to have Discrete actions or every agent 1-d Box "
                f"actions; {type(env).__name__} mixes {kinds}"
            )
        self.action_dim = max(sizes)
        self.action_dim_mask = np.arange(self.action_dim)[None, :] < np.asarray(sizes)[:, None]
        self.heterogeneous = len(set(self._obs_sizes)) > 1 or len(set(sizes)) > 1
        if agent_ids == "auto":
            agent_ids = self.heterogeneous
        if not isinstance(agent_ids, bool):
            raise ValueError(f"agent_ids must be True, False or 'auto', got {agent_ids!r}")
        self.agent_ids = agent_ids
        self.obs_dim = max(self._obs_sizes) + (self.num_agents if agent_ids else 0)

    def obs(self, obs: dict[str, jax.Array]) -> jax.Array:
        """Stack one environment's observations into ``(num_agents, obs_dim)``."""
        width = max(self._obs_sizes)
        rows = [
            jnp.pad(jnp.ravel(obs[a]), (0, width - size))
            for a, size in zip(self.agents, self._obs_sizes, strict=True)
        ]
        stacked = jnp.stack(rows)
        if self.agent_ids:
            stacked = jnp.concatenate([stacked, jnp.eye(self.num_agents, dtype=stacked.dtype)], axis=-1)
        return stacked

    def avail(self, masks: dict[str, jax.Array]) -> jax.Array:
        """Legal actions ``(num_agents, action_dim)`` for one environment: the env's masks,
        false where padded (discrete), or ``action_dim_mask`` (continuous)."""
        if not self.discrete:
            return jnp.asarray(self.action_dim_mask)
        rows = [
            jnp.pad(masks[a].astype(bool), (0, self.action_dim - masks[a].shape[-1])) for a in self.agents
        ]
        return jnp.stack(rows)

    def actions(self, actions: jax.Array) -> dict[str, jax.Array]:
        """Split ``(num_agents,)`` discrete or ``(num_agents, action_dim)`` continuous
        actions of one environment into the env's dict (dropping padded dimensions)."""
        out = {}
        for i, agent in enumerate(self.agents):
            out[agent] = actions[i] if self.discrete else actions[i, : int(self.action_dim_mask[i].sum())]
        return out

    def per_agent(self, values: dict[str, jax.Array]) -> jax.Array:
        """Stack one environment's per-agent scalars (rewards, dones, ...) into ``(num_agents,)``."""
        return jnp.stack([jnp.asarray(values[a]) for a in self.agents])
