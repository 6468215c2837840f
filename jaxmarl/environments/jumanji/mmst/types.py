"""State of an MMST episode."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import jax
from flax import struct


@struct.dataclass
class State:
    """The graph, each agent's tree so far, and the step counter.

    ``A`` is the number of agents, ``N`` of nodes, ``K`` of nodes per agent and ``T`` the
    length of the path buffer (the generator's ``max_step``). Jumanji's ``node_edges``
    and ``action_mask`` are not stored: both follow from ``adj_matrix``, ``node_types``,
    ``visited``, ``positions`` and ``mask_finished`` (see ``MMST.get_avail_actions``).

    Attributes:
        node_types: int32 ``(N,)``: the agent that must connect each node, ``-1`` for a
            utility node (Jumanji's ``node_types``).
        adj_matrix: bool ``(N, N)``: the symmetric adjacency matrix, no self-loops.
        nodes_to_connect: int32 ``(A, K)``: each agent's nodes; ``[:, 0]`` is its start.
        path: int32 ``(A, T)``: the nodes each agent has stood on, in order, padded with
            ``-1`` (Jumanji's ``connected_nodes``); moves past slot ``T - 1`` are not
            written, as in Jumanji.
        path_index: int32 ``(A,)``: how many moves each agent has made, the slot of its
            position in ``path`` when below ``T`` (Jumanji's ``position_index``).
        visited: bool ``(A, N)``: the nodes each agent has ever stood on (Jumanji's
            ``connected_nodes_index != -1``).
        positions: int32 ``(A,)``: the node each agent stands on.
        finished: bool ``(A,)``: the agent's nodes are all on its path.
        mask_finished: bool ``(A,)``: ``finished`` one step earlier (all false at reset):
            the flags Jumanji's action mask uses, so a mask closes one step after its
            agent finishes.
        step: int32 ``()``: steps taken (Jumanji's ``step_count``).
        key: PRNG key ``(2,)`` uint32: Jumanji's state key, split at every step for the
            order in which agents claim contested nodes.
    """

    node_types: jax.Array
    adj_matrix: jax.Array
    nodes_to_connect: jax.Array
    path: jax.Array
    path_index: jax.Array
    visited: jax.Array
    positions: jax.Array
    finished: jax.Array
    mask_finished: jax.Array
    step: jax.Array
    key: jax.Array

    if TYPE_CHECKING:  # provided by flax.struct at runtime

        def replace(self, **changes: Any) -> State: ...
