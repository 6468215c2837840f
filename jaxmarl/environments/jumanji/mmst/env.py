"""MMST (Multiple Minimum Spanning Trees), Jumanji 1.1.2's ``MMST-v0``, one agent per tree."""

from __future__ import annotations

import numbers
from typing import Any, ClassVar

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.jumanji.common import agent_names, build_generator
from jaxmarl.environments.jumanji.mmst import constants as C
from jaxmarl.environments.jumanji.mmst.generator import REQUIRED_ATTRIBUTES, SplitRandomGenerator
from jaxmarl.environments.jumanji.mmst.reward import DenseRewardFn
from jaxmarl.environments.jumanji.mmst.types import State
from jaxmarl.environments.multi_agent_env import MultiAgentEnv
from jaxmarl.environments.spaces import Box, Discrete

__all__ = ["MMST"]


class MMST(MultiAgentEnv):
    """Agents grow trees on a shared graph, each joining its own nodes without passing
    through a utility node another agent has used.

    The graph has ``N`` nodes (36 by default). Each of the ``A`` agents (3) owns
    ``K = num_nodes_per_agent`` nodes (4); the other nodes are *utility* nodes. An agent
    starts on its first node and walks along edges; every node it stands on joins its
    tree. It is done (*finished*) once all its nodes are on its path. A utility node an
    agent has stood on is closed to every other agent for the rest of the episode; nodes
    owned by an agent are never closed.

    - **Agents:** ``agent_0..agent_{A-1}``, agent ``i`` owning Jumanji's node type ``i``.
    - **Actions:** ``Discrete(N)``, Jumanji's numbering: the node to move to. A step
      resolves every agent's choice as Jumanji does, in this order:

      1. the choice is *usable* if an edge joins the agent's node to it and it is not
         closed to the agent; otherwise the agent stays (``INVALID_CHOICE``, -1);
      2. agents are ordered at random (``jax.random.permutation`` of the state's key); of
         the agents choosing the same usable node the first in that order takes it and
         the others stay (``INVALID_TIE_BREAK``, -2). Finished agents take part too;
      3. a choice of a node already on the agent's own path becomes
         ``INVALID_ALREADY_TRAVERSED`` (-3), but the agent still moves there (even after
         losing the tie-break: two agents then share the node). Jumanji looks an unusable
         choice up as node ``N - 1`` here, so an unusable choice by an agent whose path
         holds node ``N - 1`` also becomes -3 (and it stays);
      4. a finished agent's action becomes -1 and it stays.

      An agent moves when its resolved action is a node or -3 and its choice was usable;
      the node is appended to its path (slots past ``max_step - 1`` are not written, as
      in Jumanji, and a node first reached that late does not count towards finishing).
    - **Action masks** (``get_avail_actions``): Jumanji's ``action_mask`` rows: the usable
      nodes from the agent's position, all false for an agent that was already finished
      before the previous step (the mask closes one step after the agent finishes, as in
      Jumanji). Where a row would allow nothing (an agent finished, or boxed in by closed
      nodes) the mask allows the agent's own node instead: choosing it never moves the
      agent, and unlike other choices it never wins a tie-break against an unfinished
      agent.
    - **Rewards:** every agent gets the team reward, Jumanji's scalar: the sum over
      agents of ``reward_fn``'s shares (``DenseRewardFn``: +10 for reaching one of its
      own nodes for the first time, 0 after losing a tie-break, -2 for an unusable
      choice, -1 for any other step, 0 once finished). ``info["agent_reward"]`` holds
      each agent's share.
    - **Episode end:** when every agent has finished (``terminated``, all agents), or
      after ``time_limit`` steps (a truncation; Jumanji reports a termination there).
      If both happen on the same step it is a termination.
    - **Observation** of agent ``i``, float32, ``2 + A + N + N * N`` entries
      (1337 by default), agent ``i``'s own view first:

      ====================  ===========  ==================  ======================================
      field                 shape        offset              values
      ====================  ===========  ==================  ======================================
      ``node_types``        ``(N,)``     ``0``               agent ``i``'s view (below)
      ``position``          ``(1,)``     ``N``               agent ``i``'s node
      ``positions``         ``(A,)``     ``N + 1``           every agent's node, agent order
      ``adj_matrix``        ``(N*N,)``   ``N + 1 + A``       adjacency, row-major, 0/1
      time                  ``(1,)``     ``N + 1 + A + N*N`` ``step_count / time_limit``
      ====================  ===========  ==================  ======================================

      ``node_types`` is Jumanji's relative view (its observation is agent 0's): a node on
      the path of agent ``k`` is ``2 * ((k - i) % A)`` (the highest such ``k`` when
      several agents stood on it), else a node owned by agent ``k`` is
      ``2 * ((k - i) % A) + 1``, else (a utility node nobody stood on) ``-1``. So ``0`` and
      ``1`` are the agent's own connected and unconnected nodes, and a utility node
      another agent stood on (closed to ``i``) has an even value of at least 2. The time
      is Jumanji's ``step_count`` scaled to ``[0, 1]``, as in the family's other tasks (a
      raw count grows past anything a critic was trained on).
    - **Global state** (``get_global_state``), float32 ``N + A * N + 2 * A + N * N + 1``:
      absolute node types (owner, -1 for utility), each agent's visited nodes (0/1, agent
      major), positions, finished flags, the adjacency matrix and the time.
    - **Info:** ``metrics`` (Jumanji's extras, ``"last"``): ``num_connections``, the
      agents' own nodes on their paths beyond their starts, summed, and
      ``ratio_connections``, that count over ``K - 1`` averaged over agents;
      ``agent_reward`` and ``finished``, keyed by agent.
    - **Instances** come from ``generator`` (default ``SplitRandomGenerator``, Jumanji's):
      ``reset(key)`` gives Jumanji's ``reset(key)`` instance, and the state keeps Jumanji's
      key, so the same actions replay Jumanji's episode.

    An out-of-range action acts as action 0 (the base class's no-op for ``Discrete``;
    MMST has no action that always stays) and is flagged in ``info["invalid_action"]``.

    Args:
        generator: instance generator (see ``jumanji.common``); default
            ``SplitRandomGenerator`` built from the keywords below.
        reward_fn: a reward function (see ``mmst.reward``); default
            ``DenseRewardFn(reward_values=(10.0, -1.0, -1.0))``.
        time_limit: steps per episode, ``max_steps``.
        num_nodes, num_edges, max_degree, num_agents, num_nodes_per_agent, max_step: the
            default generator's keywords (defaults 36, 72, 5, 3, 4 and ``time_limit``);
            not allowed together with ``generator``.

    Raises:
        ValueError: for a bad ``time_limit`` or generator configuration.
        TypeError: for a generator or reward function that keeps no protocol, or a
            generator together with generator keywords.
    """

    episode_metrics: ClassVar[dict[str, str]] = {"num_connections": "last", "ratio_connections": "last"}
    max_steps: int
    time_limit: int
    generator: Any
    reward_fn: Any
    num_nodes: int
    num_nodes_per_agent: int
    obs_size: int
    palette: np.ndarray  # float32 (A, 3): agent colours
    layout_start: np.ndarray  # float32 (N, 2): the spring layout's starting positions

    def __init__(
        self,
        generator: Any | None = None,
        reward_fn: Any | None = None,
        time_limit: int = C.TIME_LIMIT,
        num_nodes: int | None = None,
        num_edges: int | None = None,
        max_degree: int | None = None,
        num_agents: int | None = None,
        num_nodes_per_agent: int | None = None,
        max_step: int | None = None,
    ) -> None:
        if isinstance(time_limit, bool) or not isinstance(time_limit, numbers.Integral) or time_limit < 1:
            raise ValueError(f"MMST: time_limit must be an integer >= 1, got {time_limit!r}")
        self.time_limit = int(time_limit)

        def default(**kwargs: Any) -> SplitRandomGenerator:
            return SplitRandomGenerator(**{"max_step": self.time_limit, **kwargs})

        self.generator = build_generator(
            "MMST",
            generator,
            default,
            {
                "num_nodes": num_nodes,
                "num_edges": num_edges,
                "max_degree": max_degree,
                "num_agents": num_agents,
                "num_nodes_per_agent": num_nodes_per_agent,
                "max_step": max_step,
            },
            REQUIRED_ATTRIBUTES,
        )
        self.reward_fn = DenseRewardFn() if reward_fn is None else reward_fn
        if not callable(self.reward_fn):
            raise TypeError(f"MMST: reward_fn must be callable, got {type(self.reward_fn).__name__}")
        A = int(self.generator.num_agents)
        N = int(self.generator.num_nodes)
        self.num_nodes = N
        self.num_nodes_per_agent = int(self.generator.num_nodes_per_agent)
        super().__init__(num_agents=A)
        self.agents = agent_names(A)
        self.max_steps = self.time_limit

        low = np.concatenate([np.full(N, -1.0), np.zeros(1 + A + N * N + 1)])
        high = np.concatenate([np.full(N, 2.0 * A - 1), np.full(1 + A, N - 1.0), np.ones(N * N), [1.0]])
        self.obs_size = low.size
        self.observation_spaces = {a: Box(low, high, (self.obs_size,), jnp.float32) for a in self.agents}
        self.action_spaces = {a: Discrete(N) for a in self.agents}

        # Rendering constants: Jumanji's agent colours and spring-layout start.
        palette = np.random.RandomState(C.PALETTE_SEED)
        self.palette = np.array(
            [[palette.randint(0, 192) / 255 for _ in range(3)] for _ in range(A)], np.float32
        )
        self.layout_start = (np.random.default_rng(C.LAYOUT_SEED).random((N, 2)) * 2 - 1).astype(np.float32)

    # ------------------------------------------------------------------- env API
    def reset_env(self, key: jax.Array) -> tuple[dict[str, jax.Array], State]:
        _, problem_key = jax.random.split(key)  # Jumanji's reset splits first
        state = self.generator(problem_key)
        return self.get_obs(state), state

    def step_env(
        self, key: jax.Array, state: State, actions: dict[str, jax.Array]
    ) -> tuple[dict[str, jax.Array], State, dict[str, jax.Array], dict[str, jax.Array], dict]:
        del key  # the state carries Jumanji's key
        A, N = self.num_agents, self.num_nodes
        agents = jnp.arange(A)
        chosen = jnp.stack([jnp.asarray(actions[a], jnp.int32) for a in self.agents])
        key, order_key = jax.random.split(state.key)

        # 1. Usable choices.
        usable = state.adj_matrix[state.positions, chosen] & ~self._closed(state)[agents, chosen]
        target = jnp.where(usable, chosen, C.EMPTY_NODE)
        # 2. Tie-breaks: the first agent in a random order takes a contested node.
        rank = jnp.zeros((A,), jnp.int32).at[jax.random.permutation(order_key, A)].set(agents)
        beaten = (target[:, None] == target[None, :]) & (rank[None, :] < rank[:, None])
        resolved = jnp.where(
            usable, jnp.where(jnp.any(beaten, axis=1), C.INVALID_TIE_BREAK, chosen), C.INVALID_CHOICE
        )
        # 3. Back onto the own path (an unusable choice is looked up as node N - 1).
        revisit = state.visited[agents, target % N]
        resolved = jnp.where(revisit, C.INVALID_ALREADY_TRAVERSED, resolved)
        # 4. Finished agents do nothing.
        resolved = jnp.where(state.finished, C.INVALID_CHOICE, resolved)

        moves = usable & (resolved != C.INVALID_CHOICE) & (resolved != C.INVALID_TIE_BREAK)
        positions = jnp.where(moves, target, state.positions)
        path_index = state.path_index + moves
        slot = jnp.where(moves, path_index, state.path.shape[1])  # past the end: not written
        moved = state.replace(
            path=state.path.at[agents, slot].set(positions, mode="drop"),
            path_index=path_index,
            visited=state.visited.at[agents, positions].set(True),
            positions=positions,
        )
        shares = jnp.asarray(self.reward_fn(moved, resolved, state.nodes_to_connect), jnp.float32)
        connected = self._connected(moved)
        finished = jnp.sum(connected, axis=1) == self.num_nodes_per_agent
        new_state = moved.replace(
            finished=finished, mask_finished=state.finished, step=state.step + 1, key=key
        )

        team = jnp.sum(shares)
        done = jnp.all(finished)
        terminated = {a: done for a in self.agents}
        terminated["__all__"] = done
        info = {
            "metrics": self._metrics(connected),
            "agent_reward": {a: shares[i] for i, a in enumerate(self.agents)},
            "finished": {a: finished[i] for i, a in enumerate(self.agents)},
        }
        return self.get_obs(new_state), new_state, {a: team for a in self.agents}, terminated, info

    def get_obs(self, state: State) -> dict[str, jax.Array]:
        """Each agent's float32 vector; see the class docstring for the layout."""
        A = self.num_agents
        shared = jnp.concatenate(
            [
                state.positions.astype(jnp.float32),
                state.adj_matrix.reshape(-1).astype(jnp.float32),
                self._time(state)[None],
            ]
        )
        own = jnp.concatenate([self.node_views(state), state.positions[:, None]], axis=1).astype(jnp.float32)
        obs = jnp.concatenate([own, jnp.broadcast_to(shared, (A, shared.size))], axis=1)
        return {a: obs[i] for i, a in enumerate(self.agents)}

    def get_avail_actions(self, state: State) -> dict[str, jax.Array]:
        """Jumanji's action mask rows, with the agent's own node allowed where a row
        allows nothing (see the class docstring)."""
        mask = self.action_mask(state)
        stay = jax.nn.one_hot(state.positions, self.num_nodes, dtype=bool)
        mask = mask | (stay & ~jnp.any(mask, axis=1, keepdims=True))
        return {a: mask[i] for i, a in enumerate(self.agents)}

    def get_global_state(self, state: State) -> jax.Array:
        """float32 ``(N + A * N + 2 * A + N * N + 1,)``: node types (absolute), visited
        nodes per agent, positions, finished flags, adjacency matrix, ``step / time_limit``."""
        parts = [
            state.node_types,
            state.visited.reshape(-1),
            state.positions,
            state.finished,
            state.adj_matrix.reshape(-1),
            self._time(state)[None],
        ]
        return jnp.concatenate([jnp.asarray(p, jnp.float32) for p in parts])

    def _time(self, state: State) -> jax.Array:
        """``step / time_limit``, float32 ``()``, as ``step * float32(1 / time_limit)`` (what
        XLA makes of the division anyway)."""
        return state.step.astype(jnp.float32) * np.float32(1 / self.time_limit)

    def render(self, state: State, size: int = 512) -> jax.Array:
        """Draw the graph: uint8 ``(size, size, 3)``.

        Nodes sit on a spring layout of the graph (Fruchterman-Reingold with Jumanji's
        forces and fixed starting points, so the same graph is always drawn the same
        way; ``viewer.spring_layout``). Edges are grey, or
        in an agent's colour where they are on its path; nodes are filled with their
        owner's colour (black for utility nodes) and ringed yellow where an agent stands,
        blue elsewhere. Pure JAX (jit, vmap).

        Args:
            state: the state.
            size: side of the square image in pixels, a Python ``int`` (at least 16).
        """
        from jaxmarl.environments.jumanji.mmst.viewer import render_graph
        from jaxmarl.viz.raster import check_size

        size = check_size(size, minimum=16)
        return render_graph(state, size, self.palette, self.layout_start)

    # ------------------------------------------------------------------ helpers
    def action_mask(self, state: State) -> jax.Array:
        """Jumanji's ``action_mask``, bool ``(A, N)``: usable nodes from each agent's
        position, none for agents finished before the previous step."""
        usable = state.adj_matrix[state.positions] & ~self._closed(state)
        return usable & ~state.mask_finished[:, None]

    def node_views(self, state: State) -> jax.Array:
        """int32 ``(A, N)``: ``node_types`` as each agent sees it (class docstring)."""
        A = self.num_agents
        me = jnp.arange(A)[:, None]
        owned = ((state.node_types[None, :] - me) % A) * 2 + 1
        view = jnp.where(state.node_types[None, :] == C.UTILITY_NODE, -1, owned)
        last = jnp.max(jnp.where(state.visited, jnp.arange(A)[:, None], -1), axis=0)  # last agent on node
        return jnp.where(last[None, :] >= 0, 2 * ((last[None, :] - me) % A), view).astype(jnp.int32)

    def _closed(self, state: State) -> jax.Array:
        """bool ``(A, N)``: utility nodes another agent has stood on."""
        by_others = (jnp.sum(state.visited, axis=0)[None, :] - state.visited) > 0
        return (state.node_types == C.UTILITY_NODE)[None, :] & by_others

    def _connected(self, state: State) -> jax.Array:
        """bool ``(A, K)``: which of its nodes each agent has on its path buffer."""
        return jnp.any(state.nodes_to_connect[:, :, None] == state.path[:, None, :], axis=2)

    def _metrics(self, connected: jax.Array) -> dict[str, jax.Array]:
        """Jumanji's extras ``num_connections`` and ``ratio_connections``."""
        count = jnp.sum(connected, axis=1).astype(jnp.float32) - 1.0
        return {
            "num_connections": jnp.sum(count),
            "ratio_connections": jnp.mean(count / (self.num_nodes_per_agent - 1.0)),
        }

    @property
    def num_actions(self) -> int:
        """Actions per agent: one per node."""
        return self.num_nodes

    def __repr__(self) -> str:
        return (
            f"MMST(generator={self.generator!r}, reward_fn={self.reward_fn!r}, time_limit={self.time_limit})"
        )
