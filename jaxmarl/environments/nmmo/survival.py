"""The start of a tick: every entity's update before actions run (Neural MMO's
``Player.update``, ``NPC.update`` and the skills' ``update``).

For each alive player, in id order: the equipped item level is refreshed, the freeze
timer counts down, the attacker is forgotten after a tick without damage, and then

- **health**: +10 (``floor(100 * 0.1)``) when food and water are both above half, -10
  at zero food and another -10 at zero water (skipped for immortal players);
- **gathering**, in Neural MMO's skill order: fishing (a fish tile next to the player),
  herbalism, prospecting, carving and alchemy (herb, ore, tree or crystal under the
  player). A harvest depletes the tile, gives the profession's experience (30 for
  fishing and herbalism, 15 for the others) and drops its item (ration, potion,
  whetstone, arrow, runes) into the inventory when a slot is free, plus with
  probability 0.025 a weapon (wand, spear, bow). The drop's level is 1, or one more
  than the matching tool's level when that tool is held (at most 10);
- **water and food**: each drops by 5; a player next to water drinks (water back to
  100), one on foliage eats (food to 100, the foliage depletes). Immortal players skip
  this.

When several players reach for the same resource tile, the lowest id gets it, as in
Neural MMO's sequential loop; a player harvests every fish tile around it that is
still there (one drop). NPCs regain 1 health per tick.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxmarl.environments.nmmo import constants as C
from jaxmarl.environments.nmmo import inventory as inv_ops
from jaxmarl.environments.nmmo.config import Config
from jaxmarl.environments.nmmo.events import Events, events
from jaxmarl.environments.nmmo.types import State

_NEIGHBOURS = ((-1, 0), (1, 0), (0, -1), (0, 1))  # Neural MMO's harvest_adjacent order


def _harvest(
    config: Config,
    pos: jax.Array,
    able: jax.Array,
    tile: jax.Array,
    material: int,
    depleted: int,
    adjacent: bool,
) -> tuple[jax.Array, jax.Array]:
    """Players take the ``material`` tiles they stand on (or stand next to when
    ``adjacent``), the lowest player index first where several reach for one tile.
    Returns ``(P,)`` which players took one and the map with every taken tile turned
    ``depleted``. Only the players' tiles are read and written (a scatter-min of their
    indices decides each contested tile), not the whole map."""
    size, num = config.map_size, pos.shape[0]
    claim = jnp.full((size, size), num, jnp.int32)
    index = jnp.arange(num, dtype=jnp.int32)
    targets = []
    for dr, dc in _NEIGHBOURS if adjacent else ((0, 0),):
        r, c = pos[:, 0] + dr, pos[:, 1] + dc
        ok = able & (tile[r, c] == material)
        targets.append((jnp.where(ok, r, size), c))  # row ``size``: no claim (dropped)
        claim = claim.at[targets[-1]].min(index, mode="drop")
    got = jnp.zeros(num, bool)
    for r, c in targets:
        got = got | (claim.at[r, c].get(mode="fill", fill_value=num) == index)
        tile = tile.at[r, c].set(depleted, mode="drop")
    return got, tile


def update_entities(key: jax.Array, config: Config, state: State) -> tuple[State, list[Events]]:
    """Run every entity's pre-action update for the tick (see the module docstring)."""
    P = config.num_agents
    tick = state.step + 1  # events carry the tick being played
    alive = state.ent_alive
    player_alive = alive[:P]

    # Entity.update for everyone alive.
    attacker = jnp.where(alive & (state.ent_damage == 0), -1, state.ent_attacker)
    state = state.replace(
        ent_freeze=jnp.where(alive, jnp.maximum(state.ent_freeze - 1, 0), state.ent_freeze),
        ent_attacker=attacker,
        ent_damage=jnp.where(alive, 0, state.ent_damage),
        ent_time_alive=state.ent_time_alive + alive,
        ent_item_level=state.ent_item_level.at[:P].set(
            jnp.where(player_alive, inv_ops.equipment_level(inv_ops.of(state)), state.ent_item_level[:P])
        ),
        ent_health=jnp.where(
            alive & (jnp.arange(config.num_entities) >= P),
            jnp.minimum(state.ent_health + 1, C.BASE_HEALTH),
            state.ent_health,
        ),
    )

    # Resources.update: regeneration and starvation (players).
    mortal = player_alive & ~state.ent_immortal[:P]
    food, water, health = state.ent_food[:P], state.ent_water[:P], state.ent_health[:P]
    half = C.REGEN_THRESHOLD * C.RESOURCE_BASE
    regen = mortal & (food > half) & (water > half)
    health = jnp.where(regen, jnp.minimum(health + C.REGEN_AMOUNT, C.BASE_HEALTH), health)
    health = health - jnp.where(mortal & (food == 0), C.STARVATION_DAMAGE, 0)
    health = health - jnp.where(mortal & (water == 0), C.STARVATION_DAMAGE, 0)
    health = jnp.maximum(health, 0)

    pos = state.ent_pos[:P]
    inv = inv_ops.of(state)
    tile = state.tile
    batches: list[Events] = []
    ids = state.ent_id[:P]
    # Which resource each player gathers: fishing (next to it) and at most one
    # profession on its own tile (a tile has one material).
    harvested = jnp.zeros(P, bool)
    drops: list[tuple[jax.Array, jax.Array, jax.Array]] = []  # (happens, type, level)
    xp_gain = jnp.zeros((P, C.NUM_SKILLS), jnp.int32)
    own = {
        "got": jnp.zeros(P, bool),
        "drop": jnp.zeros(P, jnp.int32),
        "weapon": jnp.zeros(P, jnp.int32),
        "level": jnp.ones(P, jnp.int32),
    }
    for skill, material, tool, drop, weapon, xp, adjacent in C.GATHERING:
        depleted = int(C.DEPLETED_FORM[material])
        got, tile = _harvest(config, pos, player_alive, tile, material, depleted, adjacent)
        tool_level = inv_ops.held_tool_level(inv, tool)
        level = jnp.where(tool_level > 0, jnp.minimum(1 + tool_level, C.LEVEL_MAX), 1)
        xp_gain = xp_gain.at[:, skill].add(jnp.where(got, xp, 0))
        if adjacent:
            drops.append((got, jnp.full(P, drop), level))
        else:
            own = {
                "got": own["got"] | got,
                "drop": jnp.where(got, drop, own["drop"]),
                "weapon": jnp.where(got, weapon, own["weapon"]),
                "level": jnp.where(got, level, own["level"]),
            }
        harvested = harvested | got
    weapon_roll = jax.random.uniform(key, (P,)) < C.WEAPON_DROP_PROB
    drops.append((own["got"], own["drop"], own["level"]))
    drops.append((own["got"] & (own["weapon"] > 0) & weapon_roll, own["weapon"], own["level"]))
    for happens, item, level in drops:
        # Neural MMO drops the item unless a slot is free (even onto a stack).
        keep = happens & jnp.any(inv.type == 0, -1)
        uid = state.next_item_uid + jnp.cumsum(keep) - 1
        inv, _ = jax.vmap(inv_ops.receive)(inv, item, level, jnp.ones(P, jnp.int32), uid, keep)
        state = state.replace(next_item_uid=state.next_item_uid + jnp.sum(keep))
        batches.append(events(keep, ids, tick, C.HARVEST_ITEM, item, level, 1, 0, uid))
    for skill in (C.FISHING, C.HERBALISM, C.PROSPECTING, C.CARVING, C.ALCHEMY):
        new_level, new_exp, up = inv_ops.add_xp(
            state.ent_level[:P, skill], state.ent_exp[:P, skill], xp_gain[:, skill]
        )
        state = state.replace(
            ent_level=state.ent_level.at[:P, skill].set(new_level),
            ent_exp=state.ent_exp.at[:P, skill].set(new_exp),
        )
        batches.append(events(up, ids, tick, C.LEVEL_UP, skill + 1, new_level))

    # Water and food (Skill Water/Food.update).
    drinker = player_alive & ~state.ent_immortal[:P]  # immortal players neither deplete nor eat
    near_water = jnp.zeros(P, bool)
    for dr, dc in _NEIGHBOURS:
        near_water = near_water | (tile[pos[:, 0] + dr, pos[:, 1] + dc] == C.WATER)
    drinks = drinker & near_water
    water = jnp.maximum(state.ent_water[:P] - C.RESOURCE_DEPLETION, 0)
    water = jnp.where(drinks, C.RESOURCE_BASE, jnp.where(drinker, water, state.ent_water[:P]))
    eats, tile = _harvest(config, pos, drinker, tile, C.FOLIAGE, C.SCRUB, False)
    food = jnp.maximum(state.ent_food[:P] - C.RESOURCE_DEPLETION, 0)
    food = jnp.where(eats, C.RESOURCE_BASE, jnp.where(drinker, food, state.ent_food[:P]))
    batches.append(events(drinks, ids, tick, C.DRINK_WATER))
    batches.append(events(eats, ids, tick, C.EAT_FOOD))

    state = inv_ops.store(state, inv).replace(
        tile=tile,
        ent_health=state.ent_health.at[:P].set(jnp.where(player_alive, health, state.ent_health[:P])),
        ent_food=state.ent_food.at[:P].set(food),
        ent_water=state.ent_water.at[:P].set(water),
    )
    return state, batches
