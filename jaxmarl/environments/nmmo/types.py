"""State of a Neural-MMO-style episode: the whole game state as flat arrays.

This is Neural MMO 2.0's ``GameState`` (section 4.1 of the paper): one table per kind of
thing, fixed shapes, so predicates are array functions and thousands of worlds batch
under ``vmap``. Sizes: ``P`` players (``num_agents``), ``N`` NPC slots (``num_npcs``),
``E = P + N`` entities (players first, then NPCs), ``S`` the map side, ``I = 12``
inventory slots, ``L`` rows of the per-step event log, ``T`` task slots per agent.

Entity ``i < P`` is player ``agent_i``, Neural MMO's entity id ``i + 1``. NPC slot ``j``
is entity ``P + j``; its Neural MMO id (negative, a new one at every respawn) is in
``ent_id``. Dead entities stay in the table with ``ent_alive`` false (Neural MMO deletes
their rows; predicates here treat a dead row as absent).

Events (Neural MMO's event log, ``EventCode`` in ``constants``) are kept two ways:

- ``event_log``: the rows recorded during the last step, ``(L, 8)`` with Neural MMO's
  columns ``(ent_id, tick, event, type, level, number, gold, target_ent)``, grouped by
  the system that recorded them, in the order the systems run. **Overflow rule:** a step
  that records more than ``L`` rows keeps the first ``L``; ``event_log_count`` is the
  true number, so overflow is visible (``event_log_count > L``). The totals below never
  drop anything.
- Episode totals per player, which is all the built-in predicates read:
  ``event_counts`` (by event code), ``item_events`` (quantities of the item events by
  item type and level), ``hits`` (by combat style), ``kills`` (by victim kind and level)
  and ``gold_events`` (earned, looted, spent).
"""

from typing import TYPE_CHECKING, Any

import jax
from flax import struct


@struct.dataclass
class State:
    """One world: map, entities, inventories, market, tasks and the event record.

    Attributes (shapes; int32 unless stated):
        tile: ``(S, S)`` current material of each tile (``constants.VOID`` ...).
        tile_base: ``(S, S)`` the material the tile was generated as this episode; a
            depleted resource (``tile != tile_base``) respawns back into it.
        ent_id: ``(E,)`` Neural MMO entity id (players ``1..P``, NPCs negative, 0 for an
            empty NPC slot).
        ent_alive: ``(E,)`` bool.
        ent_pos: ``(E, 2)`` ``(row, col)``.
        ent_spawn_pos: ``(E, 2)`` where the entity spawned.
        ent_health, ent_food, ent_water, ent_gold: ``(E,)`` (NPCs have no food/water).
        ent_time_alive: ``(E,)`` ticks since spawning.
        ent_freeze: ``(E,)`` ticks left frozen (Neural MMO's ``status.freeze``).
        ent_damage: ``(E,)`` damage received during the last tick.
        ent_attacker: ``(E,)`` entity index of the last attacker, ``-1`` for none.
        ent_latest_combat_tick: ``(E,)`` tick after the last attack given or taken
            (0: never).
        ent_message: ``(E,)`` last communication token (0: none).
        ent_level, ent_exp: ``(E, 8)`` level and experience of the eight skills
            (``constants.MELEE`` ... ``ALCHEMY``).
        ent_item_level: ``(E,)`` summed level of the equipped items (NPCs: their gear
            level).
        ent_exploration: ``(E,)`` farthest progress toward the map centre so far.
        ent_immortal: ``(E,)`` bool, cannot be damaged or starve.
        npc_type: ``(E,)`` 0 for players, ``PASSIVE``/``NEUTRAL``/``HOSTILE`` for NPCs.
        npc_style: ``(E,)`` NPC attack style (0 melee, 1 range, 2 mage).
        npc_offense, npc_defense: ``(E,)`` NPC gear attack (every style) and defense.
        npc_drops: ``(E, 2)`` the armour and tool type an NPC drops when killed.
        npc_target: ``(E,)`` entity index an NPC is chasing, ``-1`` for none.
        npc_danger: ``(E,)`` float32, the spawn danger of the NPC's slot (its level).
        next_npc_id: ``()`` the (negative) id the next NPC gets.
        inv_type, inv_level, inv_quantity: ``(P, I)`` inventory slots (type 0: empty).
        inv_equipped: ``(P, I)`` bool.
        inv_price: ``(P, I)`` listed price on the market (0: not listed).
        inv_listed_tick: ``(P, I)`` tick at which the item was listed.
        inv_uid: ``(P, I)`` item id (unique within the episode, 0 for empty).
        next_item_uid: ``()``.
        task_index: ``(P, T)`` row of the env's task table each slot holds (-1: none).
        task_progress: ``(P, T)`` float32 progress of each task.
        task_completed_tick: ``(P, T)`` tick the task was completed, -1 if not yet.
        task_timer: ``(P, T)`` ticks the task's predicate has held (hold-duration tasks).
        event_counts: ``(P, 92)`` events recorded for each player by code.
        item_events: ``(P, 5, 18, 11)`` summed ``number`` of the item events
            ``constants.ITEM_EVENTS`` by item type and level.
        hits: ``(P, 3)`` hits scored by combat style.
        kills: ``(P, 2, 11)`` kills by victim kind (0 NPC, 1 player) and victim level.
        gold_events: ``(P, 3)`` gold earned selling, looted, and spent buying.
        event_log: ``(L, 8)`` the rows recorded during the last step.
        event_log_count: ``()`` rows recorded during the last step (may exceed ``L``).
        seize_owner: ``(K,)`` player index holding each seize target (-1: nobody).
        seize_tick: ``(K,)`` tick it was seized.
        died_this_tick: ``(P,)`` bool, players that died in the last step.
        step: ``()`` ticks taken (Neural MMO's ``realm.tick``).
        obs_entities: ``(P, 100)`` entity index of each row of the ``Entity`` table this
            state was observed with (-1 pads; ``observation.visible_entities``).
        obs_market: ``(384,)`` flat ``player * 12 + slot`` of each ``Market`` row it was
            observed with (-1 pads; ``observation.market_rows``).

    The last two are derived: ``reset``, ``step`` and ``tasks.testing.make_state`` set them
    from the rest (``observation.with_observed_rows``). The observation and action masks
    are built from them, and the next step resolves the action arguments that index
    ``Entity`` or ``Market`` rows (attack, give and gold targets, buy) against them: the
    rows the agents were shown. A state edited by hand (positions, aliveness, listings)
    needs ``with_observed_rows`` again before it is observed or stepped.
    """

    tile: jax.Array
    tile_base: jax.Array
    ent_id: jax.Array
    ent_alive: jax.Array
    ent_pos: jax.Array
    ent_spawn_pos: jax.Array
    ent_health: jax.Array
    ent_food: jax.Array
    ent_water: jax.Array
    ent_gold: jax.Array
    ent_time_alive: jax.Array
    ent_freeze: jax.Array
    ent_damage: jax.Array
    ent_attacker: jax.Array
    ent_latest_combat_tick: jax.Array
    ent_message: jax.Array
    ent_level: jax.Array
    ent_exp: jax.Array
    ent_item_level: jax.Array
    ent_exploration: jax.Array
    ent_immortal: jax.Array
    npc_type: jax.Array
    npc_style: jax.Array
    npc_offense: jax.Array
    npc_defense: jax.Array
    npc_drops: jax.Array
    npc_target: jax.Array
    npc_danger: jax.Array
    next_npc_id: jax.Array
    inv_type: jax.Array
    inv_level: jax.Array
    inv_quantity: jax.Array
    inv_equipped: jax.Array
    inv_price: jax.Array
    inv_listed_tick: jax.Array
    inv_uid: jax.Array
    next_item_uid: jax.Array
    task_index: jax.Array
    task_progress: jax.Array
    task_completed_tick: jax.Array
    task_timer: jax.Array
    event_counts: jax.Array
    item_events: jax.Array
    hits: jax.Array
    kills: jax.Array
    gold_events: jax.Array
    event_log: jax.Array
    event_log_count: jax.Array
    seize_owner: jax.Array
    seize_tick: jax.Array
    died_this_tick: jax.Array
    step: jax.Array
    obs_entities: jax.Array
    obs_market: jax.Array

    if TYPE_CHECKING:  # provided by flax.struct at runtime

        def replace(self, **changes: Any) -> "State": ...
