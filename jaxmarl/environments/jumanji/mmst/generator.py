"""Instance generators of MMST (the generator protocol is in ``jumanji.common``).

``SplitRandomGenerator`` is Jumanji 1.1.2's generator (its only one) and draws the same
instance from the same key: the node set is split into one block per agent, each block
gets a random spanning tree plus random edges, the blocks are merged one after the other
with random edges between them, and each agent's nodes are drawn from its own block.

A generator is any object with ``__call__(key) -> State`` (a jittable function returning
the first state of an episode, ``step`` 0) and the attributes in ``REQUIRED_ATTRIBUTES``.
"""

from __future__ import annotations

import numbers
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.jumanji.mmst import constants as C
from jaxmarl.environments.jumanji.mmst.types import State

__all__ = ["REQUIRED_ATTRIBUTES", "SplitRandomGenerator", "draw_distinct", "initial_state"]

# What MMST reads from a generator at construction to fix its shapes.
REQUIRED_ATTRIBUTES = ("num_agents", "num_nodes", "num_nodes_per_agent")

_UINT32_MAX = np.iinfo(np.uint32).max


def _shuffle_rounds(n: int) -> int:
    """Sorting rounds ``jax.random.permutation`` uses for ``n`` elements."""
    return int(np.ceil(3 * np.log(max(1, n)) / np.log(_UINT32_MAX)))


def draw_distinct(key: jax.Array, n: jax.Array, size: int, k: int) -> jax.Array:
    """``jax.random.choice(key, n, (k,), replace=False)`` for an ``n`` known only at run
    time (``k <= n <= size``, ``size`` static): the same ``k`` ints of ``[0, n)``.

    ``choice`` without replacement is the start of ``jax.random.permutation``, which
    stably sorts ``arange(n)`` by random 32-bit keys (one round below 1626 elements).
    The keys of ``size`` elements begin with those of ``n`` (threefry's partitionable
    bits, JAX's default), so sorting all ``size`` with the keys past ``n`` set to the
    largest value leaves the first ``n`` in the same order ahead of the others.
    """
    rounds = jnp.asarray([_shuffle_rounds(m) for m in range(size + 1)], jnp.int32)
    index = jnp.arange(size, dtype=jnp.int32)
    order = index
    for r in range(_shuffle_rounds(size)):
        key, subkey = jax.random.split(key)
        bits = jax.random.bits(subkey, (size,), jnp.uint32)
        bits = jnp.where(index < n, bits, jnp.uint32(_UINT32_MAX))
        order = jnp.where(r < rounds[n], order[jnp.argsort(bits, stable=True)], order)
    return order[:k]


def _draw_pair(key: jax.Array, n: jax.Array, size: int) -> tuple[jax.Array, jax.Array]:
    """``draw_distinct(key, n, size, 2)`` as two ordered nodes, by two minimum searches
    (cheaper than a sort) while one sorting round suffices."""
    if _shuffle_rounds(size) != 1:
        first, second = draw_distinct(key, n, size, 2)
        return first, second
    _, subkey = jax.random.split(key)
    index = jnp.arange(size, dtype=jnp.int32)
    bits = jnp.where(index < n, jax.random.bits(subkey, (size,), jnp.uint32), jnp.uint32(_UINT32_MAX))
    first = jnp.argmin(bits).astype(jnp.int32)  # the first of the smallest: a stable sort's first
    runner_up = jnp.min(jnp.where(index == first, jnp.uint32(_UINT32_MAX), bits))
    second = jnp.argmax((bits == runner_up) & (index != first)).astype(jnp.int32)
    return first, second


# ------------------------------------------------------------------ graph building
# Edges live in a list of ``(first, second)`` node pairs, the order in which Jumanji
# stores them; the list's slots are those of Jumanji's final ``graph.edges``. Jumanji
# refuses an edge whose ordered pair is already listed (``(a, b)`` and ``(b, a)`` are
# different pairs, so a reversed edge is accepted again and counted twice) or one of
# whose nodes already has a degree above ``max_degree``.


def _pick(values: jax.Array, index: jax.Array) -> jax.Array:
    """``values[index]`` as a masked sum: elementwise, so it stays fast under ``vmap``."""
    hit = jnp.arange(values.shape[0]) == index
    if values.dtype == jnp.bool_:
        return jnp.any(hit & values)
    return jnp.sum(jnp.where(hit, values, 0))


def _try_add(
    edges: jax.Array,
    degree: jax.Array,
    slot: jax.Array,
    first: jax.Array,
    second: jax.Array,
    max_degree: int,
    wanted: jax.Array | bool = True,
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Add edge ``(first, second)`` at ``slot`` if ``wanted`` and Jumanji's ``add_edge``
    accepts it. Returns ``(edges, degree, added)``.

    Written with masks rather than gathers and scatters, which are slow when batched."""
    listed = jnp.any((edges[:, 0] == first) & (edges[:, 1] == second))
    ends = (jnp.arange(degree.shape[0]) == first) | (jnp.arange(degree.shape[0]) == second)
    room = ~jnp.any(ends & (degree > max_degree))
    added = wanted & ~listed & room
    at_slot = (jnp.arange(edges.shape[0]) == slot)[:, None] & added
    edges = jnp.where(at_slot, jnp.stack([first, second]).astype(edges.dtype), edges)
    degree = degree + (ends & added).astype(degree.dtype)
    return edges, degree, added


def _add_random_edges(
    key: jax.Array,
    edges: jax.Array,
    degree: jax.Array,
    count: jax.Array,
    target: jax.Array,
    num_nodes: jax.Array,
    max_degree: int,
) -> tuple[jax.Array, jax.Array]:
    """Jumanji's ``add_random_edges``: draw two distinct nodes of ``[0, num_nodes)`` until
    ``target`` edges are listed. Returns ``(edges, degree)``."""
    size = degree.shape[0]

    def short(carry: tuple) -> jax.Array:
        return carry[2] < target

    def add_one(carry: tuple) -> tuple:
        edges, degree, count, key = carry
        draw_key, key = jax.random.split(key)
        first, second = _draw_pair(draw_key, num_nodes, size)
        edges, degree, added = _try_add(edges, degree, count, first, second, max_degree)
        return edges, degree, count + added, key

    edges, degree, _, _ = jax.lax.while_loop(short, add_one, (edges, degree, count, key))
    return edges, degree


def _sub_graph(
    key: jax.Array, num_nodes: jax.Array, num_edges: jax.Array, size: int, capacity: int, max_degree: int
) -> tuple[jax.Array, jax.Array]:
    """Jumanji's ``random_walk`` on nodes ``[0, num_nodes)`` (``num_nodes <= size``): a
    random walk on the complete graph joins each node it reaches for the first time to
    the node it came from (a uniform spanning tree, unless a degree refuses the edge),
    then random edges are added up to ``num_edges``.

    Returns ``(edges, degree)``: int32 ``(capacity, 2)`` local pairs (``-1`` unused) and
    int32 ``(size,)`` degrees."""
    start_key, key = jax.random.split(key)
    start = jax.random.randint(start_key, (1,), 0, num_nodes - 1, dtype=jnp.int32)[0]
    index = jnp.arange(size)
    visited = (index >= num_nodes) | (index == start)
    edges = jnp.full((capacity, 2), C.EMPTY_NODE, jnp.int32)
    degree = jnp.zeros((size,), jnp.int32)

    def unvisited_left(carry: tuple) -> jax.Array:
        return ~jnp.all(carry[0])

    def walk(carry: tuple) -> tuple:
        visited, edges, degree, count, current, key = carry
        step_key, key = jax.random.split(key)
        nxt = jax.random.randint(step_key, (1,), 0, num_nodes)[0]
        # A node reached for the first time joins the tree through the edge (smaller,
        # larger), unless the degree of the node the walk comes from refuses it.
        first, second = jnp.minimum(current, nxt), jnp.maximum(current, nxt)
        edges, degree, added = _try_add(edges, degree, count, first, second, max_degree, ~_pick(visited, nxt))
        return visited | ((index == nxt) & added), edges, degree, count + added, nxt, key

    carry = (visited, edges, degree, jnp.int32(0), start, key)
    _, edges, degree, count, _, key = jax.lax.while_loop(unvisited_left, walk, carry)
    return _add_random_edges(key, edges, degree, count, num_edges, num_nodes, max_degree)


def _stuck_degree_sum(num_nodes: int, max_degree: int) -> int:
    """The smallest total degree of a graph on ``num_nodes`` nodes to which Jumanji's
    random-edge loop can add nothing: ``u`` nodes still below the degree cap, each joined
    to the ``u - 1`` others in both orders, the others over the cap."""
    best = num_nodes * (max_degree + 1)
    for u in range(1, num_nodes + 1):
        if u >= 2 and 2 * (u - 1) > max_degree:
            break
        best = min(best, (num_nodes - u) * (max_degree + 1) + 2 * u * (u - 1))
    return best


def _check_int(name: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"SplitRandomGenerator: {name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


class SplitRandomGenerator:
    """Jumanji's ``SplitRandomGenerator``: a connected random graph in which every agent's
    nodes can be joined without sharing utility nodes.

    Nodes ``0..N-1`` are split into ``num_agents`` consecutive blocks (``np.array_split``:
    the first ``N % A`` blocks one node larger). Each block gets a random spanning tree
    (a random walk) and random edges up to its share of ``num_edges // 2`` (at least a
    tree, at most complete); block ``i`` is then merged into the union of blocks
    ``0..i-1`` with one random edge between the two and random edges among all their
    nodes, until the graph has ``num_edges`` edges. Agent ``i`` must connect
    ``num_nodes_per_agent`` nodes drawn from block ``i`` and starts on the first.

    As in Jumanji, a node whose degree is above ``max_degree`` accepts no new edge (so a
    degree can reach ``max_degree + 1``), and an edge drawn as ``(b, a)`` when ``(a, b)``
    exists is added again (the graph then has fewer distinct edges than ``num_edges``);
    with one agent nothing is merged and the graph keeps its block's share of the edges.
    For the same key the instance is Jumanji's (its merges reuse the last merge key, and
    this generator does the same).

    Args:
        num_nodes: nodes in the graph.
        num_edges: edges to place, ``num_nodes - 1 <= num_edges <= N (N - 1) / 2``.
        max_degree: degree above which a node accepts no new edge, at least 1.
        num_agents: agents, one tree each.
        num_nodes_per_agent: nodes each agent must connect, at least 2; all agents' nodes
            together at most 80% of the graph (Jumanji's rule).
        max_step: length of the path buffer ``State.path`` (``MMST`` passes its
            ``time_limit``).

    Raises:
        ValueError: for a configuration Jumanji rejects, one in which its generator
            would hang (a random-edge loop that can run out of joinable node pairs before
            reaching its edge count), or one in which a merge gets no edge of its own
            (Jumanji then drops the edge joining two blocks from its adjacency matrix
            while agents may still move along it).
    """

    def __init__(
        self,
        num_nodes: int = C.NUM_NODES,
        num_edges: int = C.NUM_EDGES,
        max_degree: int = C.MAX_DEGREE,
        num_agents: int = C.NUM_AGENTS,
        num_nodes_per_agent: int = C.NUM_NODES_PER_AGENT,
        max_step: int = C.TIME_LIMIT,
    ) -> None:
        self.num_nodes = N = _check_int("num_nodes", num_nodes, 2)
        self.num_edges = E = _check_int("num_edges", num_edges, 1)
        self.max_degree = _check_int("max_degree", max_degree, 1)
        self.num_agents = A = _check_int("num_agents", num_agents, 1)
        self.num_nodes_per_agent = K = _check_int("num_nodes_per_agent", num_nodes_per_agent, 2)
        self.max_step = _check_int("max_step", max_step, 1)
        if K * A > N * 0.8:
            raise ValueError(
                f"SplitRandomGenerator: num_agents * num_nodes_per_agent = {K * A} nodes to connect must "
                f"be at most 80% of num_nodes={N}, to leave nodes for the paths between them"
            )
        if not N - 1 <= E <= N * (N - 1) // 2:
            raise ValueError(
                f"SplitRandomGenerator: num_edges={E} must lie between num_nodes - 1 = {N - 1} (a tree) "
                f"and num_nodes * (num_nodes - 1) / 2 = {N * (N - 1) // 2} (a complete graph)"
            )

        # The plan of Jumanji's multi_random_walk, all static.
        self.block_sizes = np.array([len(b) for b in np.array_split(np.arange(N), A)], np.int32)
        self.block_offsets = np.concatenate([[0], np.cumsum(self.block_sizes)]).astype(np.int32)
        shares = [len(s) for s in np.array_split(np.arange(E // 2), A)]
        self.block_edges = np.array(
            [
                min(n * (n - 1) // 2, max(n - 1, s))
                for n, s in zip(self.block_sizes.tolist(), shares, strict=True)
            ],
            np.int32,
        )
        merge_total = E - int(self.block_edges.sum())
        if A > 1:
            cuts = np.cumsum(merge_total * np.arange(1, A - 1) / np.arange(1, A).sum()).astype(np.int32)
            merge_edges = [len(s) for s in np.split(np.arange(max(merge_total, 0)), cuts)]
        else:
            merge_edges = []
        self.merge_edges = np.array(merge_edges, np.int32)
        # Edges listed once block i is merged in (block 0 alone: its own edges).
        self.stage_totals = np.cumsum(
            np.concatenate([[self.block_edges[0]], self.block_edges[1:] + self.merge_edges])
        ).astype(np.int32)
        if A > 1 and (merge_total < 0 or np.any(self.merge_edges < 1)):
            raise ValueError(
                f"SplitRandomGenerator: num_edges={E} is too few for num_agents={A}: after the blocks' "
                f"own {int(self.block_edges.sum())} edges, Jumanji's split leaves merges "
                f"{[int(m) for m in self.merge_edges]} edges, and a merge needs at least 1 (with none, "
                f"Jumanji leaves the edge joining two blocks out of the adjacency matrix); raise num_edges"
            )
        self._check_reachable()

    def _check_reachable(self) -> None:
        """Refuse edge counts that Jumanji's random-edge loops might never reach."""
        D = self.max_degree
        stages = [
            (f"block {i}", int(n), int(e))
            for i, (n, e) in enumerate(zip(self.block_sizes, self.block_edges, strict=True))
        ]
        stages += [
            (f"merge {i}", int(self.block_offsets[i + 1]), int(self.stage_totals[i]))
            for i in range(1, self.num_agents)
        ]
        for name, nodes, target in stages:
            stuck = _stuck_degree_sum(nodes, D)
            if 2 * (target - 1) >= stuck:
                raise ValueError(
                    f"SplitRandomGenerator: num_edges={self.num_edges} is too many for max_degree={D}: "
                    f"{name} must place {target} edges among {nodes} nodes, but with the degree cap its "
                    f"random-edge loop can run out of node pairs it may join (and never end) once "
                    f"{(stuck + 1) // 2} edges are placed; lower num_edges or raise max_degree"
                )

    def __repr__(self) -> str:
        return (
            f"SplitRandomGenerator(num_nodes={self.num_nodes}, num_edges={self.num_edges}, "
            f"max_degree={self.max_degree}, num_agents={self.num_agents}, "
            f"num_nodes_per_agent={self.num_nodes_per_agent}, max_step={self.max_step})"
        )

    def __call__(self, key: jax.Array) -> State:
        """The first state of an episode, Jumanji's for the same ``key``."""
        graph_key, key = jax.random.split(key)
        adj_matrix = self.graph(graph_key)

        def next_key(carry: jax.Array, _: None) -> tuple[jax.Array, jax.Array]:
            select_key, carry = jax.random.split(carry)
            return carry, select_key

        key, select_keys = jax.lax.scan(next_key, key, None, length=self.num_agents)
        size = int(self.block_sizes.max())
        draw = jax.vmap(draw_distinct, in_axes=(0, 0, None, None))
        local = draw(select_keys, jnp.asarray(self.block_sizes), size, self.num_nodes_per_agent)
        nodes_to_connect = local + jnp.asarray(self.block_offsets[:-1])[:, None]
        return initial_state(adj_matrix, nodes_to_connect, self.max_step, key)

    def graph(self, key: jax.Array) -> jax.Array:
        """Jumanji's ``multi_random_walk``: the bool ``(N, N)`` adjacency matrix."""
        A, N, D = self.num_agents, self.num_nodes, self.max_degree
        sizes, offsets = jnp.asarray(self.block_sizes), jnp.asarray(self.block_offsets)
        block_key, merge_key = jax.random.split(key)

        # Every block at once, in its own node numbering.
        size, capacity = int(self.block_sizes.max()), int(self.block_edges.max())
        build = jax.vmap(_sub_graph, in_axes=(0, 0, 0, None, None, None))
        local_edges, local_degree = build(
            jax.random.split(block_key, A), sizes, jnp.asarray(self.block_edges), size, capacity, D
        )
        # Into the global list at Jumanji's slots: block 0 first, block i after the edges
        # listed once blocks 0..i-1 are merged.
        starts = jnp.asarray(np.concatenate([[0], self.stage_totals[:-1]]).astype(np.int32))
        slot = starts[:, None] + jnp.arange(capacity)
        slot = jnp.where(jnp.arange(capacity) < jnp.asarray(self.block_edges)[:, None], slot, self.num_edges)
        edges = jnp.full((self.num_edges, 2), C.EMPTY_NODE, jnp.int32)
        edges = edges.at[slot.reshape(-1)].set(
            (local_edges + offsets[:-1, None, None]).reshape(-1, 2), mode="drop"
        )
        degree = jnp.zeros((N,), jnp.int32)
        degree = degree.at[(offsets[:-1, None] + jnp.arange(size)).reshape(-1)].add(
            local_degree.reshape(-1), mode="drop"
        )

        if A > 1:
            # Jumanji indexes its A - 1 merge keys with 1..A-1: the last index is clamped.
            merge_keys = jax.random.split(merge_key, A - 1)[np.minimum(np.arange(1, A), A - 2)]
            stages = (
                merge_keys,
                offsets[1:-1],  # nodes already merged; block i starts there
                sizes[1:],
                offsets[2:],  # nodes after the merge
                jnp.asarray(self.stage_totals[:-1] + self.block_edges[1:]),  # listed before
                jnp.asarray(self.stage_totals[1:]),  # listed after
            )

            def merge(carry: tuple, stage: tuple) -> tuple[tuple, None]:
                edges, degree = carry
                key, start, block_size, merged, listed, target = stage
                bridge_key, key = jax.random.split(key)
                first_key, second_key = jax.random.split(bridge_key)
                first = jax.random.randint(first_key, (), 0, start)
                second = start + jax.random.randint(second_key, (), 0, block_size)
                edges, degree, added = _try_add(edges, degree, listed, first, second, D)
                edges, degree = _add_random_edges(key, edges, degree, listed + added, target, merged, D)
                return (edges, degree), None

            (edges, degree), _ = jax.lax.scan(merge, (edges, degree), stages)

        listed = edges[:, 0] >= 0
        rows = jnp.where(listed, edges[:, 0], N)
        adj = jnp.zeros((N, N), bool).at[rows, edges[:, 1]].set(True, mode="drop")
        return adj | adj.T


def initial_state(adj_matrix: jax.Array, nodes_to_connect: jax.Array, max_step: int, key: jax.Array) -> State:
    """The first state for a graph and the agents' nodes, as Jumanji's generator builds it:
    node types from ``nodes_to_connect``, every agent on its first node with a path of
    that node alone, nobody finished, ``step`` 0.

    Args:
        adj_matrix: bool ``(N, N)``, symmetric, no self-loops.
        nodes_to_connect: int32 ``(A, K)``, distinct nodes; ``[:, 0]`` are the starts.
        max_step: length of the path buffer.
        key: the state's PRNG key.
    """
    num_agents, num_nodes = nodes_to_connect.shape[0], adj_matrix.shape[0]
    nodes_to_connect = jnp.asarray(nodes_to_connect, jnp.int32)
    agents = jnp.arange(num_agents, dtype=jnp.int32)
    node_types = jnp.full((num_nodes,), C.UTILITY_NODE, jnp.int32)
    node_types = node_types.at[nodes_to_connect].set(
        jnp.broadcast_to(agents[:, None], nodes_to_connect.shape)
    )
    positions = nodes_to_connect[:, 0]
    path = jnp.full((num_agents, max_step), C.EMPTY_NODE, jnp.int32).at[:, 0].set(positions)
    no = jnp.zeros((num_agents,), bool)
    return State(
        node_types=node_types,
        adj_matrix=jnp.asarray(adj_matrix, bool),
        nodes_to_connect=nodes_to_connect,
        path=path,
        path_index=jnp.zeros((num_agents,), jnp.int32),
        visited=jnp.zeros((num_agents, num_nodes), bool).at[agents, positions].set(True),
        positions=positions,
        finished=no,
        mask_finished=no,
        step=jnp.zeros((), jnp.int32),
        key=key,
    )
