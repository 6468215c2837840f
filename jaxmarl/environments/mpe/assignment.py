"""Matching agents to target positions at minimum total distance (``simple_formation``,
``simple_line``).

mpe2 scores these scenarios by solving a linear assignment problem every step (the
Hungarian algorithm, ``scipy.optimize.linear_sum_assignment``): each agent is matched to
one target so that the sum of agent-target distances is smallest, and the reward is
computed from the matched distances. Any minimum-cost matching gives the same matched
distances unless two matchings tie exactly.

Teams of up to :data:`MAX_ENUMERATED` agents try every permutation at once (120 at
most), which vectorises best under ``vmap``; larger teams run optax's Hungarian
algorithm (cubic time).
"""

from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.mpe.geometry import length

__all__ = ["MAX_ENUMERATED", "matched_costs", "matched_distances"]

MAX_ENUMERATED = 5


def matched_costs(cost: jax.Array) -> jax.Array:
    """The cost of each row's partner in a minimum-cost perfect matching.

    Args:
        cost: ``(n, n)``; row ``i``, column ``j`` is the cost of matching ``i`` to ``j``.

    Returns:
        ``(n,)``: ``cost[i, match[i]]`` for a matching ``match`` that minimises
        ``sum_i cost[i, match[i]]``.
    """
    n = cost.shape[0]
    if n <= MAX_ENUMERATED:
        perms = np.array(list(itertools.permutations(range(n))), np.int32)  # (n!, n)
        per_row = cost[np.arange(n)[None, :], perms]  # (n!, n)
        return per_row[jnp.argmin(jnp.sum(per_row, axis=1))]
    from optax.assignment import hungarian_algorithm  # imported only for large teams

    rows, cols = hungarian_algorithm(cost)
    return jnp.zeros((n,), cost.dtype).at[rows].set(cost[rows, cols])


def matched_distances(positions: jax.Array, targets: jax.Array) -> jax.Array:
    """Distance from each of ``positions`` (``(n, 2)``) to the target it is matched to
    when the ``n`` targets (``(n, 2)``) are shared out at minimum total distance, ``(n,)``."""
    return matched_costs(length(positions[:, None, :] - targets[None, :, :]))
