"""Hand-built game states for trying predicates out (tests, tutorials).

``make_state(config, **fields)`` returns a ``State`` of the shapes ``config`` fixes with
quiet defaults (a grass map inside a void border, every player alive at the map centre
with full health, level 1 in every skill, nothing owned, no events, no tasks) and the given
fields replaced. It is not the engine's reset: nothing is spawned or generated.
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.nmmo import constants as K
from jaxmarl.environments.nmmo.config import Config
from jaxmarl.environments.nmmo.observation import unobserved_rows, with_observed_rows
from jaxmarl.environments.nmmo.types import State


def default_fields(config: Config) -> dict[str, np.ndarray]:
    """The default value of every ``State`` field for ``config`` (NumPy arrays), except
    the ones ``make_state`` derives (``DERIVED``)."""
    P, N, S = config.num_agents, config.num_npcs, config.map_size
    E, I, T = P + N, K.INVENTORY_CAPACITY, config.tasks_per_agent
    L, NK = config.log_capacity, len(config.seize_targets)
    b = config.border
    tile = np.full((S, S), K.VOID, np.int32)
    tile[b : S - b, b : S - b] = K.GRASS
    players = np.arange(E) < P
    center = np.full((E, 2), S // 2, np.int32)

    def z(*shape: int, dtype: Any = np.int32) -> np.ndarray:
        return np.zeros(shape, dtype)

    return {
        "tile": tile,
        "tile_base": tile.copy(),
        "ent_id": np.where(players, np.arange(E) + 1, 0).astype(np.int32),
        "ent_alive": players.copy(),
        "ent_pos": center,
        "ent_spawn_pos": center.copy(),
        "ent_health": np.where(players, K.BASE_HEALTH, 0).astype(np.int32),
        "ent_food": np.where(players, K.RESOURCE_BASE, 0).astype(np.int32),
        "ent_water": np.where(players, K.RESOURCE_BASE, 0).astype(np.int32),
        "ent_gold": z(E),
        "ent_time_alive": z(E),
        "ent_freeze": z(E),
        "ent_damage": z(E),
        "ent_attacker": np.full(E, -1, np.int32),
        "ent_latest_combat_tick": z(E),
        "ent_message": z(E),
        "ent_level": np.ones((E, K.NUM_SKILLS), np.int32),
        "ent_exp": z(E, K.NUM_SKILLS),
        "ent_item_level": z(E),
        "ent_exploration": z(E),
        "ent_immortal": z(E, dtype=bool),
        "npc_type": z(E),
        "npc_style": z(E),
        "npc_offense": z(E),
        "npc_defense": z(E),
        "npc_drops": z(E, 2),
        "npc_target": np.full(E, -1, np.int32),
        "npc_danger": z(E, dtype=np.float32),
        "next_npc_id": np.array(-1, np.int32),
        "inv_type": z(P, I),
        "inv_level": z(P, I),
        "inv_quantity": z(P, I),
        "inv_equipped": z(P, I, dtype=bool),
        "inv_price": z(P, I),
        "inv_listed_tick": z(P, I),
        "inv_uid": z(P, I),
        "next_item_uid": np.array(1, np.int32),
        "task_index": np.full((P, T), -1, np.int32),
        "task_progress": z(P, T, dtype=np.float32),
        "task_completed_tick": np.full((P, T), -1, np.int32),
        "task_timer": z(P, T),
        "event_counts": z(P, K.NUM_EVENT_CODES),
        "item_events": z(P, len(K.ITEM_EVENTS), K.NUM_ITEM_TYPES, K.LEVEL_MAX + 1),
        "hits": z(P, K.NUM_COMBAT_SKILLS),
        "kills": z(P, 2, K.LEVEL_MAX + 1),
        "gold_events": z(P, 3),
        "event_log": z(L, len(K.EVENT_COLUMNS)),
        "event_log_count": np.array(0, np.int32),
        "seize_owner": np.full(NK, -1, np.int32),
        "seize_tick": z(NK),
        "died_this_tick": z(P, dtype=bool),
        "step": np.array(0, np.int32),
    }


DERIVED = ("obs_entities", "obs_market")


def make_state(config: Config, **fields: Any) -> State:
    """A ``State`` for ``config``: the defaults above with ``fields`` replaced (each must
    have the default's shape; it is cast to the default's dtype). The rows its
    observation shows (``obs_entities``, ``obs_market``) are derived from the rest."""
    values = default_fields(config)
    derived = set(fields) & set(DERIVED)
    if derived:
        raise TypeError(f"make_state: {sorted(derived)} are derived from the other fields; do not pass them")
    unknown = set(fields) - set(values)
    if unknown:
        raise TypeError(f"make_state: unknown State fields {sorted(unknown)}")
    for name, value in fields.items():
        arr = np.asarray(value)
        if arr.shape != values[name].shape:
            raise ValueError(f"make_state: {name} must have shape {values[name].shape}, got {arr.shape}")
        values[name] = arr.astype(values[name].dtype)
    state = State(**{k: jnp.asarray(v) for k, v in values.items()}, **unobserved_rows(config))
    return with_observed_rows(config, state)
