"""Reward functions of MMST.

A reward function is any callable ``reward_fn(state, actions, nodes_to_connect)`` that
returns each agent's share, float32 ``(num_agents,)``; ``MMST`` gives every agent the sum
of the shares, Jumanji's (scalar) reward. Its arguments:

- ``state``: the state after the agents moved, with ``finished`` still holding the flags
  from before the step (Jumanji updates them after the reward);
- ``actions``: int32 ``(num_agents,)``, each agent's resolved action: the node it chose
  (it moved there), or one of ``INVALID_CHOICE`` (-1), ``INVALID_TIE_BREAK`` (-2),
  ``INVALID_ALREADY_TRAVERSED`` (-3) from ``constants``;
- ``nodes_to_connect``: int32 ``(num_agents, num_nodes_per_agent)``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import jax
import jax.numpy as jnp

from jaxmarl.environments.jumanji.mmst import constants as C
from jaxmarl.environments.jumanji.mmst.types import State

__all__ = ["DenseRewardFn"]


class DenseRewardFn:
    """Jumanji's ``DenseRewardFn``: a reward for every node an agent connects, a cost for
    every other step, a further cost for an invalid choice.

    With ``reward_values = (connected, time_step, noop)`` (default ``(10, -1, -1)``), an
    unfinished agent's share in a step is

    - ``connected`` if it moved onto one of its own nodes for the first time;
    - ``0`` if it lost a tie-break for its node (``INVALID_TIE_BREAK``);
    - ``time_step + noop`` if its choice had no usable edge (``INVALID_CHOICE``);
    - ``time_step`` otherwise (a move to a utility or another agent's node, or back onto
      its own tree, ``INVALID_ALREADY_TRAVERSED``);

    and a finished agent's share is 0.

    Args:
        reward_values: three finite numbers ``(connected, time_step, noop)``.
    """

    def __init__(self, reward_values: Sequence[float] = C.REWARD_VALUES) -> None:
        values = tuple(reward_values)
        if len(values) != 3 or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in values
        ):
            raise ValueError(
                f"DenseRewardFn: reward_values must be three finite numbers (connected, time_step, noop), "
                f"got {reward_values!r}"
            )
        self.reward_values = tuple(float(v) for v in values)

    def __repr__(self) -> str:
        return f"DenseRewardFn(reward_values={self.reward_values})"

    def __call__(self, state: State, actions: jax.Array, nodes_to_connect: jax.Array) -> jax.Array:
        connected, time_step, noop = self.reward_values
        is_noop = actions == C.INVALID_CHOICE
        is_tie = actions == C.INVALID_TIE_BREAK
        arrived = jnp.any(state.positions[:, None] == nodes_to_connect, axis=1)
        is_connection = arrived & (actions > C.INVALID_CHOICE)
        # Jumanji's expressions, so float32 rounding is the same for any reward_values.
        reward = jnp.where(
            is_connection,
            connected - is_tie * connected,
            time_step + is_noop * noop - is_tie * time_step,
        ).astype(jnp.float32)
        return reward * ~state.finished
