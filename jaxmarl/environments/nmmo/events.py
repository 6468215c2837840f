"""The event record: per-step log rows and the episode totals the predicates read.

Systems describe what happened as ``Events`` batches: fixed-shape rows with Neural MMO's
event columns (``constants.EVENT_COLUMNS``) and a validity mask. ``record`` writes the
valid rows of a step's batches, in order, into the ``(L, 8)`` log (the first ``L``;
``event_log_count`` keeps the true number) and adds every valid row of a player to the
episode totals (``event_counts``, ``item_events``, ``hits``, ``kills``, ``gold_events``).
Which row fields an event fills follows Neural MMO's ``EventLogger.record``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.nmmo import constants as C
from jaxmarl.environments.nmmo.types import State

# Row of ``state.item_events`` for each event code (-1: not an item event).
_ITEM_EVENT_ROW = np.full(C.NUM_EVENT_CODES, -1, np.int32)
for _k, _code in enumerate(C.ITEM_EVENTS):
    _ITEM_EVENT_ROW[_code] = _k


class Events(NamedTuple):
    """A batch of event rows: ``rows`` ``(B, 8)`` int32 and ``valid`` ``(B,)`` bool."""

    rows: jax.Array
    valid: jax.Array


def events(
    valid: jax.Array,
    ent_id: jax.Array | int,
    tick: jax.Array | int,
    code: int | jax.Array,
    type_: jax.Array | int = 0,
    level: jax.Array | int = 0,
    number: jax.Array | int = 0,
    gold: jax.Array | int = 0,
    target: jax.Array | int = 0,
) -> Events:
    """Build a batch; every argument broadcasts to ``valid``'s shape, which is flattened."""
    shape = jnp.shape(valid)
    columns = [ent_id, tick, code, type_, level, number, gold, target]
    rows = jnp.stack([jnp.broadcast_to(jnp.asarray(c, jnp.int32), shape) for c in columns], -1)
    return Events(rows.reshape(-1, 8), jnp.asarray(valid, bool).reshape(-1))


def in_order(
    body: Callable[[Any, jax.Array], tuple[Any, tuple[jax.Array, jax.Array]]],
    carry: Any,
    order: jax.Array,
    active: jax.Array,
    rows_per_item: int,
) -> tuple[Any, Events]:
    """Run ``body(carry, item) -> (carry, (rows (R, 8), valid (R,)))`` on the ``active``
    items of ``order`` one after the other, in that order; inactive items are skipped (a
    ``while_loop`` over the active ones only: most entities do not buy, give or attack in
    a given tick). Returns the carry and every row, ``len(order) * R`` of them."""
    n = order.shape[0]
    ranked = order[jnp.argsort(~active[order], stable=True)]
    count = jnp.sum(active)

    def step(c: tuple) -> tuple:
        i, carry, rows, valid = c
        carry, (r, v) = body(carry, ranked[i])
        return i + 1, carry, rows.at[i].set(r), valid.at[i].set(v)

    init = (
        jnp.array(0, jnp.int32),
        carry,
        jnp.zeros((n, rows_per_item, 8), jnp.int32),
        jnp.zeros((n, rows_per_item), bool),
    )
    _, carry, rows, valid = jax.lax.while_loop(lambda c: c[0] < count, step, init)
    return carry, Events(rows.reshape(-1, 8), valid.reshape(-1))


def concat(batches: list[Events]) -> Events:
    return Events(jnp.concatenate([b.rows for b in batches]), jnp.concatenate([b.valid for b in batches]))


def record(state: State, batches: list[Events], num_agents: int) -> State:
    """Write a step's event batches into the log and the episode totals."""
    batch = concat(batches)
    rows, valid = batch.rows, batch.valid
    capacity = state.event_log.shape[0]
    position = jnp.cumsum(valid) - 1
    slot = jnp.where(valid & (position < capacity), position, capacity)
    log = jnp.zeros_like(state.event_log).at[slot].set(rows, mode="drop")

    ent, code, type_, level, number, gold, target = (rows[:, i] for i in (0, 2, 3, 4, 5, 6, 7))
    player = valid & (ent > 0) & (ent <= num_agents)
    idx = jnp.where(player, ent - 1, num_agents)  # out of range rows are dropped
    counts = state.event_counts.at[idx, code].add(1, mode="drop")

    item_row = jnp.asarray(_ITEM_EVENT_ROW)[code]
    item_idx = jnp.where(item_row >= 0, idx, num_agents)
    level_c = jnp.clip(level, 0, C.LEVEL_MAX)
    item_events = state.item_events.at[item_idx, item_row, type_, level_c].add(number, mode="drop")

    hit_idx = jnp.where(code == C.SCORE_HIT, idx, num_agents)
    hits = state.hits.at[hit_idx, jnp.clip(type_ - 1, 0, 2)].add(1, mode="drop")

    kill_idx = jnp.where(code == C.PLAYER_KILL, idx, num_agents)
    kills = state.kills.at[kill_idx, (target > 0).astype(jnp.int32), level_c].add(1, mode="drop")

    gold_col = jnp.select([code == C.EARN_GOLD, code == C.LOOT_GOLD, code == C.BUY_ITEM], [0, 1, 2], -1)
    gold_idx = jnp.where(gold_col >= 0, idx, num_agents)
    gold_events = state.gold_events.at[gold_idx, gold_col].add(gold, mode="drop")

    return state.replace(
        event_log=log,
        event_log_count=jnp.sum(valid).astype(jnp.int32),
        event_counts=counts,
        item_events=item_events,
        hits=hits,
        kills=kills,
        gold_events=gold_events,
    )
