"""``RolloutManager``: a batch of environments as padded arrays, for value-based learners.

Q-learning with a replay buffer wants every step of every environment as fixed-shape
arrays: observations ``(num_envs, num_agents, obs_dim)``, actions ``(num_envs,
num_agents)``, legal-action masks, per-agent rewards and dones, the observation each
step led to (before the automatic reset replaced it) and the centralised state a mixer
conditions on. This wrapper provides that for any environment with discrete (or 1-d
``Box``) actions, vectorising ``reset`` and ``step`` over ``num_envs`` environments and
padding heterogeneous agents with :class:`~jaxmarl.wrappers.AgentBatcher` (one-hot agent
ids, zero-padded observations, padded actions masked out of ``avail``).

It also groups agents into **teams** (e.g. predators and prey in ``simple_tag``), so a
learner can train each team on its own reward, independently of the others. It plays
the role of JaxMARL's ``CTRolloutManager`` and never imports a specific environment.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.wrappers.batching import AgentBatcher

__all__ = ["RolloutManager", "Team"]


class Team(NamedTuple):
    """A group of agents trained together: ``agents`` are row indices into the
    batched arrays (in the environment's agent order)."""

    name: str
    agents: tuple[int, ...]


def _stem(agent: str) -> str:
    """``"adversary_2"`` -> ``"adversary"``: the agent's name without its index."""
    head, _, tail = agent.rpartition("_")
    return head if head and tail.isdigit() else agent


def resolve_teams(agents: Sequence[str], teams: Mapping[str, Sequence[str]] | None) -> list[Team]:
    """Teams as row indices. ``teams`` maps a team name to agent names or name stems
    (``"adversary"`` stands for ``adversary_0``, ``adversary_1`` ...); every agent must
    belong to exactly one team. ``None`` puts all agents in one team, ``"team"``."""
    if not teams:
        return [Team("team", tuple(range(len(agents))))]
    members: dict[str, list[int]] = {name: [] for name in teams}
    for i, agent in enumerate(agents):
        owners = [name for name, entries in teams.items() if agent in entries or _stem(agent) in entries]
        if len(owners) != 1:
            where = "no team" if not owners else f"several teams {owners}"
            raise ValueError(
                f"agent {agent!r} is in {where}; teams {dict(teams)} must cover the agents {list(agents)} "
                "exactly once (give agent names or name stems such as 'adversary')"
            )
        members[owners[0]].append(i)
    empty = [name for name, idx in members.items() if not idx]
    if empty:
        raise ValueError(f"teams {empty} match none of the agents {list(agents)}")
    return [Team(name, tuple(idx)) for name, idx in members.items()]


class RolloutManager:
    """Step ``num_envs`` copies of ``env`` at once, with arrays instead of dicts.

    Args:
        env: the environment (or a wrapper of it, e.g. ``LogWrapper``).
        num_envs: number of environments stepped in parallel.
        agent_ids: append a one-hot agent id to each observation (``"auto"``: only when
            the agents' spaces differ); a network shared by all agents needs it to tell
            them apart.
        teams: team name -> agent names or name stems; ``None``: one team of all agents.

    Attributes:
        batcher: the :class:`AgentBatcher` that pads one environment's agents.
        agents, num_agents, obs_dim, action_dim: as in the batcher.
        state_dim: size of ``env.get_global_state(state)``.
        teams: the :class:`Team` list, in the order given.

    Example:
        >>> import jax, jaxmarl
        >>> from jaxmarl.wrappers import RolloutManager
        >>> manager = RolloutManager(jaxmarl.make("MPE_simple_tag_v3"), num_envs=4,
        ...                          teams={"predators": ["adversary"], "prey": ["agent"]})
        >>> obs, state = manager.reset(jax.random.PRNGKey(0))
        >>> obs.shape  # 4 envs, 4 agents, 16 (largest observation) + 4 (agent id)
        (4, 4, 20)
        >>> [team.agents for team in manager.teams]
        [(0, 1, 2), (3,)]
    """

    def __init__(
        self,
        env: Any,
        num_envs: int,
        agent_ids: bool | str = True,
        teams: Mapping[str, Sequence[str]] | None = None,
    ) -> None:
        if int(num_envs) < 1:
            raise ValueError(f"num_envs must be >= 1, got {num_envs}")
        self.env = env
        self.num_envs = int(num_envs)
        self.batcher = AgentBatcher(env, agent_ids)
        self.agents = self.batcher.agents
        self.num_agents = self.batcher.num_agents
        self.obs_dim = self.batcher.obs_dim
        self.action_dim = self.batcher.action_dim
        self.teams = resolve_teams(self.agents, teams)
        state = jax.eval_shape(env.reset, jax.random.PRNGKey(0))[1]
        self.state_dim = int(np.prod(jax.eval_shape(env.get_global_state, state).shape))

    def reset(self, key: jax.Array) -> tuple[jax.Array, Any]:
        """Reset every environment. Returns ``(obs (num_envs, num_agents, obs_dim), state)``."""
        obs, state = jax.vmap(self.env.reset)(jax.random.split(key, self.num_envs))
        return jax.vmap(self.batcher.obs)(obs), state

    def step(
        self, key: jax.Array, state: Any, actions: jax.Array
    ) -> tuple[jax.Array, Any, jax.Array, jax.Array, dict[str, Any]]:
        """Step every environment with ``actions`` ``(num_envs, num_agents)`` (or
        ``(num_envs, num_agents, action_dim)`` for continuous actions).

        Returns ``(obs, state, reward, done, info)``: ``obs`` ``(num_envs, num_agents,
        obs_dim)`` is the next step's input (the first of a new episode where one ended);
        ``reward`` and ``done`` are ``(num_envs, num_agents)``. ``info`` holds the
        environment's own entries, batched, and:

        - ``"episode_over"`` ``(num_envs,)``: ``done["__all__"]``;
        - ``"truncated"`` ``(num_envs, num_agents)``: the agent's episode hit the time limit;
        - ``"terminated"`` ``(num_envs, num_agents)``: it ended for any other reason, so
          nothing is to be bootstrapped past this step;
        - ``"final_obs"`` ``(num_envs, num_agents, obs_dim)``: the observation this step
          led to, before any automatic reset (equal to ``obs`` where nothing ended);
        - ``"final_state"``: the matching state (for ``avail_actions`` or
          ``global_state`` of where the step led).
        """
        env_actions = jax.vmap(self.batcher.actions)(actions)
        obs, state, reward, done, info = jax.vmap(self.env.step)(
            jax.random.split(key, self.num_envs), state, env_actions
        )
        per_agent = jax.vmap(self.batcher.per_agent)
        info = dict(info)
        done_agents = per_agent(done).astype(bool)
        truncated = per_agent(info["truncated"]).astype(bool)
        info["episode_over"] = done["__all__"]
        info["truncated"] = truncated
        info["terminated"] = done_agents & ~truncated
        info["final_obs"] = jax.vmap(self.batcher.obs)(info["final_obs"])
        return jax.vmap(self.batcher.obs)(obs), state, per_agent(reward), done_agents, info

    def avail_actions(self, state: Any) -> jax.Array:
        """Legal actions ``(num_envs, num_agents, action_dim)`` (padding is illegal)."""
        return jax.vmap(lambda s: self.batcher.avail(self.env.get_avail_actions(s)))(state)

    def global_state(self, state: Any) -> jax.Array:
        """Centralised state ``(num_envs, state_dim)`` (``env.get_global_state``)."""
        return jax.vmap(lambda s: jnp.ravel(self.env.get_global_state(s)))(state)

    def random_actions(self, key: jax.Array, state: Any) -> jax.Array:
        """Uniformly random legal discrete actions ``(num_envs, num_agents)``."""
        avail = self.avail_actions(state)
        return jax.random.categorical(key, jnp.where(avail, 0.0, -jnp.inf)).astype(jnp.int32)

    def team_sum(self, x: jax.Array) -> jax.Array:
        """Sum a per-agent quantity ``(..., num_agents)`` within each team: ``(..., num_teams)``."""
        return jnp.stack([x[..., list(team.agents)].sum(-1) for team in self.teams], axis=-1)
