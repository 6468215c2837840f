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
  dimensions each agent really has, and the extra entries are dropped when unstacking;
- ``MultiDiscrete`` actions (one choice per head, e.g. Neural MMO's move, attack target,
  item ...) keep the environment's flat layout, head after head: head ``h`` gets
  ``head_sizes[h]`` entries, the most any agent has there, so ``action_dim =
  sum(head_sizes)`` (for agents with equal ``nvec`` the mask is ``get_avail_actions``'s
  own). Choices past an agent's head size are illegal, and a head the agent lacks allows
  only choice 0 (dropped when unstacking), so a factorised policy gives it probability one.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.spaces import Box, Dict, Discrete, MultiDiscrete, Tuple

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
        kind: ``"discrete"``, ``"continuous"`` (1-d ``Box``) or ``"multi_discrete"``.
        discrete: whether actions are ``Discrete`` (``kind == "discrete"``).
        action_dim: number of discrete actions, size of a continuous action, or
            ``sum(head_sizes)`` for ``MultiDiscrete`` actions.
        head_sizes: the ``MultiDiscrete`` heads' sizes in that layout (``None`` otherwise).
        action_dim_mask: ``(num_agents, action_dim)`` bool, the action entries each agent has.
        heterogeneous: whether the agents' spaces differ.
    """

    def __init__(self, env: Any, agent_ids: bool | str = "auto") -> None:
        self.agents = list(env.agents)
        self.num_agents = len(self.agents)
        obs_spaces = [env.observation_space(a) for a in self.agents]
        act_spaces = [env.action_space(a) for a in self.agents]
        structured = sorted({type(s).__name__ for s in obs_spaces if isinstance(s, (Dict, Tuple))})
        if structured:
            raise ValueError(
                f"AgentBatcher stacks array observations; {type(env).__name__}'s are structured "
                f"({structured}). Use the env's flat observation format "
                "(for NeuralMMO, obs_format='flat', the default)"
            )
        self._obs_sizes = [int(np.prod(s.shape)) for s in obs_spaces]
        self.head_sizes: tuple[int, ...] | None = None
        if all(isinstance(s, Discrete) for s in act_spaces):
            self.kind = "discrete"
            sizes = [s.n for s in act_spaces]
        elif all(isinstance(s, Box) and len(s.shape) == 1 for s in act_spaces):
            self.kind = "continuous"
            sizes = [s.shape[0] for s in act_spaces]
        elif all(isinstance(s, MultiDiscrete) for s in act_spaces):
            self.kind = "multi_discrete"
            self._nvecs = [np.asarray(s.nvec) for s in act_spaces]
            sizes = [tuple(n.tolist()) for n in self._nvecs]  # compared for heterogeneous
        else:
            kinds = sorted({type(s).__name__ for s in act_spaces})
            raise ValueError(
                f"AgentBatcher needs every agent to have Discrete actions, every agent 1-d Box "
                f"actions or every agent MultiDiscrete actions; {type(env).__name__} mixes {kinds}"
            )
        self.discrete = self.kind == "discrete"
        if self.kind == "multi_discrete":
            self._multi_discrete_layout()
        else:
            self.action_dim = max(sizes)
            self.action_dim_mask = np.arange(self.action_dim)[None, :] < np.asarray(sizes)[:, None]
        self.heterogeneous = len(set(self._obs_sizes)) > 1 or len(set(sizes)) > 1
        if agent_ids == "auto":
            agent_ids = self.heterogeneous
        if not isinstance(agent_ids, bool):
            raise ValueError(f"agent_ids must be True, False or 'auto', got {agent_ids!r}")
        self.agent_ids = agent_ids
        self.obs_dim = max(self._obs_sizes) + (self.num_agents if agent_ids else 0)

    def _multi_discrete_layout(self) -> None:
        """The flat layout of the heads; per agent, where each of its entries comes from in
        the agent's own mask (``_gather``), whether it exists (``action_dim_mask``) and the
        choice-0 entries of heads it lacks (``_padded_head``)."""
        num_heads = max(len(n) for n in self._nvecs)
        sizes = [max(int(n[h]) for n in self._nvecs if h < len(n)) for h in range(num_heads)]
        self.head_sizes = tuple(sizes)
        self.action_dim = sum(sizes)
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(int)
        gather = np.zeros((self.num_agents, self.action_dim), np.int32)
        exists = np.zeros((self.num_agents, self.action_dim), bool)
        padded_head = np.zeros((self.num_agents, self.action_dim), bool)
        for i, nvec in enumerate(self._nvecs):
            own_start = np.concatenate([[0], np.cumsum(nvec)[:-1]]).astype(int)
            for h, start in enumerate(starts):
                if h < len(nvec):
                    gather[i, start : start + nvec[h]] = own_start[h] + np.arange(nvec[h])
                    exists[i, start : start + nvec[h]] = True
                else:
                    padded_head[i, start] = True
        self._gather, self.action_dim_mask, self._padded_head = gather, exists, padded_head
        self._mask_width = max(int(n.sum()) for n in self._nvecs)

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
        if self.kind == "continuous":
            return jnp.asarray(self.action_dim_mask)
        if self.kind == "multi_discrete":
            own = jnp.stack(
                [
                    jnp.pad(jnp.asarray(masks[a]).astype(bool), (0, self._mask_width - masks[a].shape[-1]))
                    for a in self.agents
                ]
            )
            laid_out = jnp.take_along_axis(own, jnp.asarray(self._gather), axis=1)
            return laid_out & self.action_dim_mask | self._padded_head
        rows = [
            jnp.pad(masks[a].astype(bool), (0, self.action_dim - masks[a].shape[-1])) for a in self.agents
        ]
        return jnp.stack(rows)

    def actions(self, actions: jax.Array) -> dict[str, jax.Array]:
        """Split ``(num_agents,)`` discrete, ``(num_agents, action_dim)`` continuous or
        ``(num_agents, num_heads)`` multi-discrete actions of one environment into the env's
        dict (dropping padded dimensions and heads)."""
        out = {}
        for i, agent in enumerate(self.agents):
            if self.kind == "discrete":
                out[agent] = actions[i]
            elif self.kind == "multi_discrete":
                out[agent] = actions[i, : len(self._nvecs[i])]
            else:
                out[agent] = actions[i, : int(self.action_dim_mask[i].sum())]
        return out

    def per_agent(self, values: dict[str, jax.Array]) -> jax.Array:
        """Stack one environment's per-agent scalars (rewards, dones, ...) into ``(num_agents,)``."""
        return jnp.stack([jnp.asarray(values[a]) for a in self.agents])
