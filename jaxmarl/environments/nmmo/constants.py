"""Constants of the Neural-MMO-style world: materials, items, skills, events and the game
balance of Neural MMO 2.1.1's ``config.Default`` (its Medium map with every game system on).

Numbers and names follow Neural MMO 2.1.1 (``nmmo/core/config.py``, ``nmmo/lib/material.py``,
``nmmo/systems/item.py``, ``nmmo/systems/skill.py``, ``nmmo/lib/event_code.py``) so that a
task written against Neural MMO reads the same here. Tables indexed by a material, item
type or skill are NumPy arrays: the step function gathers from them.

Positions are ``(row, col)`` tiles of the ``map_size`` x ``map_size`` map, row 0 at the top.
"""

import math
from typing import Any

import numpy as np

# --------------------------------------------------------------------------- materials
# Neural MMO's material indices (``material.<Name>.index``).
VOID, WATER, GRASS, SCRUB, FOLIAGE, STONE, SLAG, ORE = 0, 1, 2, 3, 4, 5, 6, 7
STUMP, TREE, FRAGMENT, CRYSTAL, WEEDS, HERB, OCEAN, FISH = 8, 9, 10, 11, 12, 13, 14, 15
NUM_MATERIALS = 16
MATERIAL_NAMES = (
    "void",
    "water",
    "grass",
    "scrub",
    "foilage",
    "stone",
    "slag",
    "ore",
    "stump",
    "tree",
    "fragment",
    "crystal",
    "weeds",
    "herb",
    "ocean",
    "fish",
)


def _material_set(*indices: int) -> np.ndarray:
    table = np.zeros(NUM_MATERIALS, bool)
    table[list(indices)] = True
    return table


# Agents walk on habitable tiles only (``material.Habitable``); the rest block movement.
HABITABLE = _material_set(GRASS, SCRUB, FOLIAGE, ORE, SLAG, TREE, STUMP, CRYSTAL, FRAGMENT, HERB, WEEDS)
# What a harvested tile turns into until it respawns (itself where it never depletes).
DEPLETED_FORM = np.arange(NUM_MATERIALS, dtype=np.int32)
DEPLETED_FORM[[FOLIAGE, ORE, TREE, CRYSTAL, HERB, FISH]] = [SCRUB, SLAG, STUMP, FRAGMENT, WEEDS, OCEAN]
# The resource a depleted tile grows back into.
RESPAWN_FORM = np.arange(NUM_MATERIALS, dtype=np.int32)
RESPAWN_FORM[[SCRUB, SLAG, STUMP, FRAGMENT, WEEDS, OCEAN]] = [FOLIAGE, ORE, TREE, CRYSTAL, HERB, FISH]
# Per-tick probability that a depleted tile respawns (``RESOURCE_FOILAGE_RESPAWN`` and
# ``PROFESSION_<X>_RESPAWN``). Ocean counts as depleted fish only where fish grew: the
# map keeps the original material to tell (see ``State.tile_base``).
RESPAWN_PROB = np.zeros(NUM_MATERIALS, np.float32)
RESPAWN_PROB[[SCRUB, SLAG, STUMP, FRAGMENT, WEEDS, OCEAN]] = [0.025, 0.10, 0.105, 0.10, 0.02, 0.02]

# --------------------------------------------------------------------------- skills
# ``SKILL_ID - 1`` of Neural MMO's skills: three combat styles, five gathering professions.
MELEE, RANGE, MAGE, FISHING, HERBALISM, PROSPECTING, CARVING, ALCHEMY = range(8)
NUM_SKILLS = 8
NUM_COMBAT_SKILLS = 3
SKILL_NAMES = ("melee", "range", "mage", "fishing", "herbalism", "prospecting", "carving", "alchemy")
# ``Melee.weakness = Mage`` and so on: attacking a target whose main style is ``s`` with
# ``WEAKNESS[s]`` multiplies the damage by ``COMBAT_WEAKNESS_MULTIPLIER``.
WEAKNESS = np.array([MAGE, MELEE, RANGE], np.int32)

LEVEL_MAX = 10  # PROGRESSION_LEVEL_MAX
BASE_LEVEL = 1  # PROGRESSION_BASE_LEVEL
# PROGRESSION_EXP_THRESHOLD = default_exp_threshold(90, 10): the experience needed to reach
# level ``l`` is EXP_THRESHOLD[l - 1].
_EXTRA_EXP = [round(90 * math.sqrt(level)) for level in range(1, LEVEL_MAX + 1)]
EXP_THRESHOLD = np.array([sum(_EXTRA_EXP[:level]) for level in range(LEVEL_MAX)], np.int32)
COMBAT_XP = 6  # PROGRESSION_COMBAT_XP_SCALE, per attack
AMMUNITION_XP = 15  # PROGRESSION_AMMUNITION_XP_SCALE, per prospecting/carving/alchemy harvest
CONSUMABLE_XP = 30  # PROGRESSION_CONSUMABLE_XP_SCALE, per fishing/herbalism harvest

# --------------------------------------------------------------------------- items
# Neural MMO's ``ITEM_TYPE_ID`` (1 is unused there too).
HAT, TOP, BOTTOM, SPEAR, BOW, WAND, ROD, GLOVES, PICKAXE, AXE, CHISEL = 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12
WHETSTONE, ARROW, RUNES, RATION, POTION = 13, 14, 15, 16, 17
NUM_ITEM_TYPES = 18  # type ids 0..17; 0 marks an empty inventory slot
ITEM_NAMES = (
    "",
    "",
    "Hat",
    "Top",
    "Bottom",
    "Spear",
    "Bow",
    "Wand",
    "Rod",
    "Gloves",
    "Pickaxe",
    "Axe",
    "Chisel",
    "Whetstone",
    "Arrow",
    "Runes",
    "Ration",
    "Potion",
)
ARMOR_TYPES = (HAT, TOP, BOTTOM)
WEAPON_TYPES = (SPEAR, BOW, WAND)  # melee, range, mage
TOOL_TYPES = (ROD, GLOVES, PICKAXE, AXE, CHISEL)
AMMUNITION_TYPES = (WHETSTONE, ARROW, RUNES)  # melee, range, mage
CONSUMABLE_TYPES = (RATION, POTION)

# Equipment slots: what a type occupies when equipped (-1: not equipment).
SLOT_HAT, SLOT_TOP, SLOT_BOTTOM, SLOT_HELD, SLOT_AMMUNITION = range(5)
NUM_SLOTS = 5
ITEM_SLOT = np.full(NUM_ITEM_TYPES, -1, np.int32)
ITEM_SLOT[[HAT, TOP, BOTTOM]] = [SLOT_HAT, SLOT_TOP, SLOT_BOTTOM]
ITEM_SLOT[list(WEAPON_TYPES + TOOL_TYPES)] = SLOT_HELD
ITEM_SLOT[list(AMMUNITION_TYPES)] = SLOT_AMMUNITION
IS_EQUIPMENT = ITEM_SLOT >= 0
IS_AMMUNITION = np.isin(np.arange(NUM_ITEM_TYPES), AMMUNITION_TYPES)  # stackable by (type, level)
IS_CONSUMABLE = np.isin(np.arange(NUM_ITEM_TYPES), CONSUMABLE_TYPES)

# The skill whose level an item requires (``Item._level``); -1: the agent's highest level
# over all eight skills (armour and consumables).
ITEM_SKILL = np.full(NUM_ITEM_TYPES, -1, np.int32)
ITEM_SKILL[list(WEAPON_TYPES)] = [MELEE, RANGE, MAGE]
ITEM_SKILL[list(AMMUNITION_TYPES)] = [MELEE, RANGE, MAGE]
ITEM_SKILL[list(TOOL_TYPES)] = [FISHING, HERBALISM, PROSPECTING, CARVING, ALCHEMY]
# The combat style an item adds attack to (-1: none).
ITEM_ATTACK_STYLE = np.full(NUM_ITEM_TYPES, -1, np.int32)
ITEM_ATTACK_STYLE[list(WEAPON_TYPES)] = [MELEE, RANGE, MAGE]
ITEM_ATTACK_STYLE[list(AMMUNITION_TYPES)] = [MELEE, RANGE, MAGE]

# Equipment balance (``EQUIPMENT_*``) and consumables (``PROFESSION_CONSUMABLE_RESTORE``).
WEAPON_BASE_DAMAGE, WEAPON_LEVEL_DAMAGE = 5, 5
AMMUNITION_BASE_DAMAGE, AMMUNITION_LEVEL_DAMAGE = 5, 10
TOOL_BASE_DEFENSE, TOOL_LEVEL_DEFENSE = 15, 0
ARMOR_BASE_DEFENSE, ARMOR_LEVEL_DEFENSE = 0, 3
CONSUMABLE_BASE_RESTORE, CONSUMABLE_LEVEL_RESTORE = 50, 5


def item_attack(item_type: Any, level: Any) -> Any:
    """Attack an item adds to its style (0 for items without one); works on JAX arrays."""
    weapon = (WEAPON_BASE_DAMAGE + WEAPON_LEVEL_DAMAGE * level) * ((item_type >= SPEAR) & (item_type <= WAND))
    ammo = (AMMUNITION_BASE_DAMAGE + AMMUNITION_LEVEL_DAMAGE * level) * (
        (item_type >= WHETSTONE) & (item_type <= RUNES)
    )
    return weapon + ammo


def item_defense(item_type: Any, level: Any) -> Any:
    """Defense an item adds against every style (armour and tools); works on JAX arrays."""
    armor = (ARMOR_BASE_DEFENSE + ARMOR_LEVEL_DEFENSE * level) * ((item_type >= HAT) & (item_type <= BOTTOM))
    tool = (TOOL_BASE_DEFENSE + TOOL_LEVEL_DEFENSE * level) * ((item_type >= ROD) & (item_type <= CHISEL))
    return armor + tool


# Gathering: the material harvested, the profession it trains, the tool that raises the
# drop level and what drops. Order = Neural MMO's skill update order.
# (skill, material, tool, sure drop, rare weapon drop or 0, experience, adjacent?)
GATHERING = (
    (FISHING, FISH, ROD, RATION, 0, CONSUMABLE_XP, True),
    (HERBALISM, HERB, GLOVES, POTION, 0, CONSUMABLE_XP, False),
    (PROSPECTING, ORE, PICKAXE, WHETSTONE, WAND, AMMUNITION_XP, False),
    (CARVING, TREE, AXE, ARROW, SPEAR, AMMUNITION_XP, False),
    (ALCHEMY, CRYSTAL, CHISEL, RUNES, BOW, AMMUNITION_XP, False),
)
WEAPON_DROP_PROB = 0.025

# --------------------------------------------------------------------------- events
# Neural MMO's ``EventCode``.
EAT_FOOD, DRINK_WATER, GO_FARTHEST, SEIZE_TILE = 1, 2, 3, 4
SCORE_HIT, PLAYER_KILL, FIRE_AMMO = 11, 12, 13
CONSUME_ITEM, GIVE_ITEM, DESTROY_ITEM, HARVEST_ITEM, EQUIP_ITEM, LOOT_ITEM = 21, 22, 23, 24, 25, 26
GIVE_GOLD, LIST_ITEM, EARN_GOLD, BUY_ITEM, LOOT_GOLD = 31, 32, 33, 34, 35
LEVEL_UP = 41
AGENT_CULLED = 91
EVENT_CODES = {
    "EAT_FOOD": EAT_FOOD,
    "DRINK_WATER": DRINK_WATER,
    "GO_FARTHEST": GO_FARTHEST,
    "SEIZE_TILE": SEIZE_TILE,
    "SCORE_HIT": SCORE_HIT,
    "PLAYER_KILL": PLAYER_KILL,
    "FIRE_AMMO": FIRE_AMMO,
    "CONSUME_ITEM": CONSUME_ITEM,
    "GIVE_ITEM": GIVE_ITEM,
    "DESTROY_ITEM": DESTROY_ITEM,
    "HARVEST_ITEM": HARVEST_ITEM,
    "EQUIP_ITEM": EQUIP_ITEM,
    "LOOT_ITEM": LOOT_ITEM,
    "GIVE_GOLD": GIVE_GOLD,
    "LIST_ITEM": LIST_ITEM,
    "EARN_GOLD": EARN_GOLD,
    "BUY_ITEM": BUY_ITEM,
    "LOOT_GOLD": LOOT_GOLD,
    "LEVEL_UP": LEVEL_UP,
    "AGENT_CULLED": AGENT_CULLED,
}
NUM_EVENT_CODES = 92  # codes index count tables directly
# Item events whose quantities the item predicates sum, in this order in ``State.item_events``.
ITEM_EVENTS = (CONSUME_ITEM, HARVEST_ITEM, FIRE_AMMO, LIST_ITEM, BUY_ITEM)
# Columns of a row of the per-step event log (Neural MMO's ``EventState`` less ``recorded``).
EVENT_COLUMNS = ("ent_id", "tick", "event", "type", "level", "number", "gold", "target_ent")

# --------------------------------------------------------------------------- entities
PLAYER, PASSIVE, NEUTRAL, HOSTILE = 0, 1, 2, 3  # ``npc_type`` (-1 marks immortal players)
# Neural MMO's ``EntityState`` attributes, the columns of an ``Entity`` observation row.
ENTITY_COLUMNS = (
    "id",
    "npc_type",
    "row",
    "col",
    "damage",
    "time_alive",
    "freeze",
    "item_level",
    "attacker_id",
    "latest_combat_tick",
    "message",
    "gold",
    "health",
    "food",
    "water",
    "melee_level",
    "melee_exp",
    "range_level",
    "range_exp",
    "mage_level",
    "mage_exp",
    "fishing_level",
    "fishing_exp",
    "herbalism_level",
    "herbalism_exp",
    "prospecting_level",
    "prospecting_exp",
    "carving_level",
    "carving_exp",
    "alchemy_level",
    "alchemy_exp",
)
# Neural MMO's ``ItemState`` attributes, the columns of ``Inventory`` and ``Market`` rows.
ITEM_COLUMNS = (
    "id",
    "type_id",
    "owner_id",
    "level",
    "capacity",
    "quantity",
    "melee_attack",
    "range_attack",
    "mage_attack",
    "melee_defense",
    "range_defense",
    "mage_defense",
    "health_restore",
    "resource_restore",
    "equipped",
    "listed_price",
)

# --------------------------------------------------------------------------- balance
BASE_HEALTH = 100  # PLAYER_BASE_HEALTH (NPCs too)
RESOURCE_BASE = 100  # food and water capacity
RESOURCE_DEPLETION = 5  # food and water lost per tick
STARVATION_DAMAGE = 10  # health lost per tick at zero food (and again at zero water)
REGEN_THRESHOLD = 0.5  # regenerate above half food and half water ...
REGEN_AMOUNT = 10  # ... by floor(100 * 0.1) health per tick
VISION_RADIUS = 7  # PLAYER_VISION_RADIUS
ATTACK_REACH = 3  # COMBAT_{MELEE,RANGE,MAGE}_REACH
SPAWN_IMMUNITY = 20  # COMBAT_SPAWN_IMMUNITY: players younger cannot be attacked by players
COMBAT_STATUS_DURATION = 3  # no Use/Give/Sell/Buy/Destroy within 3 ticks of a fight
WEAKNESS_MULTIPLIER = 1.5
MINIMUM_DAMAGE_PROPORTION = 0.25
STYLE_BASE_DAMAGE, STYLE_LEVEL_DAMAGE = 10, 5  # PROGRESSION_{MELEE,RANGE,MAGE}_*_DAMAGE
BASE_DEFENSE, LEVEL_DEFENSE = 0, 5  # PROGRESSION_*_DEFENSE, per level of the highest skill
NPC_LEVEL_MIN = 1
NPC_LEVEL_DAMAGE = NPC_LEVEL_DEFENSE = 8  # NPC_LEVEL_{DAMAGE,DEFENSE} x NPC_LEVEL_MULTIPLIER
NPC_SPAWN_AGGRESSIVE, NPC_SPAWN_NEUTRAL = 0.80, 0.50  # danger thresholds
NPC_SPAWN_ATTEMPTS = 25  # spawn tries per tick while below NPC_N
INVENTORY_CAPACITY = 12  # ITEM_INVENTORY_CAPACITY
EXCHANGE_BASE_GOLD = 1
LISTING_DURATION = 3  # EXCHANGE_LISTING_DURATION
PRICE_N_OBS = 99  # prices 1..99
COMMUNICATION_NUM_TOKENS = 127
COMMUNICATION_N_OBS = 32
PLAYER_N_OBS = 100  # entity rows in an observation
MARKET_N_OBS = 384  # market rows in an observation
TERRAIN_WATER, TERRAIN_GRASS, TERRAIN_FOILAGE = 0.30, 0.70, 0.85  # fractal thresholds

# Move directions: Neural MMO's ``Direction.edges`` order, Stay last (the no-op).
NORTH, SOUTH, EAST, WEST, STAY = range(5)
MOVES = np.array([[-1, 0], [1, 0], [0, 1], [0, -1], [0, 0]], np.int32)
# Attack styles, ``Style.edges``.
STYLE_NAMES = ("Melee", "Range", "Mage")

# Action heads of an agent's MultiDiscrete action, in this order: (action, argument, size).
# Target, InventoryItem and MarketItem end with a no-op index (Neural MMO's
# PROVIDE_NOOP_ACTION_TARGET); Direction's no-op is Stay.
ACTION_HEADS = (
    ("Move", "Direction", 5),
    ("Attack", "Style", 3),
    ("Attack", "Target", PLAYER_N_OBS + 1),
    ("Use", "InventoryItem", INVENTORY_CAPACITY + 1),
    ("Give", "InventoryItem", INVENTORY_CAPACITY + 1),
    ("Give", "Target", PLAYER_N_OBS + 1),
    ("Destroy", "InventoryItem", INVENTORY_CAPACITY + 1),
    ("Sell", "InventoryItem", INVENTORY_CAPACITY + 1),
    ("Sell", "Price", PRICE_N_OBS),
    ("Buy", "MarketItem", MARKET_N_OBS + 1),
    ("GiveGold", "Price", PRICE_N_OBS),
    ("GiveGold", "Target", PLAYER_N_OBS + 1),
    ("Comm", "Token", COMMUNICATION_NUM_TOKENS),
)
(
    H_MOVE,
    H_ATTACK_STYLE,
    H_ATTACK_TARGET,
    H_USE,
    H_GIVE_ITEM,
    H_GIVE_TARGET,
    H_DESTROY,
    H_SELL_ITEM,
    H_SELL_PRICE,
    H_BUY,
    H_GOLD_PRICE,
    H_GOLD_TARGET,
    H_COMM,
) = range(len(ACTION_HEADS))
ACTION_NVEC = tuple(n for _, _, n in ACTION_HEADS)
NOOP_ACTION = (
    STAY,
    0,
    PLAYER_N_OBS,
    INVENTORY_CAPACITY,
    INVENTORY_CAPACITY,
    PLAYER_N_OBS,
    INVENTORY_CAPACITY,
    INVENTORY_CAPACITY,
    0,
    MARKET_N_OBS,
    0,
    PLAYER_N_OBS,
    0,
)
