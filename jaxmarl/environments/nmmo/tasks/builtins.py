"""Leaf constructors for Neural MMO 2.1.1's 34 built-in predicates, with readable arguments.

Names, argument names, argument meanings and defaults follow ``nmmo/task/base_predicates.py``
(``num_agent`` defaults to 1 where Neural MMO has no default; ``CountEvent`` and ``ScoreHit``
take their count as ``n`` or Neural MMO's ``N``). Arguments are checked here, when the leaf
is built: names (events as in ``EventCode``, skills ``"melee"`` .. ``"alchemy"``, items
``"Hat"`` .. ``"Potion"``, materials, combat styles, agent types, quadrants; all
case-insensitive), types, and every count that Neural MMO divides by must be at least 1.
Agents are 0-based indices (Neural MMO's entity id is index + 1); a target may also be one
of Neural MMO's relative target words (``"left_team"``, ``"my_team_leader"``, ...), resolved
against the holder's team. The progress formulas are in ``predicates.py``.
"""

from __future__ import annotations

from jaxmarl.environments.nmmo import constants as K
from jaxmarl.environments.nmmo.config import Config
from jaxmarl.environments.nmmo.tasks import predicates as F
from jaxmarl.environments.nmmo.tasks.spec import (
    DEFAULT_GROUP,
    GroupArg,
    Leaf,
    PredicateDef,
    group_ref,
    is_int,
)

BUILTIN_NAMES = (
    "AllDead",
    "AllMembersWithinRange",
    "AttainSkill",
    "BuyItem",
    "CanSeeAgent",
    "CanSeeGroup",
    "CanSeeTile",
    "CheckAgentStatus",
    "ConsumeItem",
    "CountEvent",
    "DefeatEntity",
    "DistanceTraveled",
    "EarnGold",
    "EquipItem",
    "FireAmmo",
    "FullyArmed",
    "GainExperience",
    "HarvestItem",
    "HoardGold",
    "InventorySpaceGE",
    "ListItem",
    "MakeProfit",
    "OccupyTile",
    "OwnItem",
    "ProgressTowardCenter",
    "ProtectLeader",
    "ScoreHit",
    "SeizeCenter",
    "SeizeQuadCenter",
    "SeizeTile",
    "SpendGold",
    "StayAlive",
    "Success",
    "TickGE",
)
QUADRANTS = ("first", "second", "third", "fourth")


# --------------------------------------------------------------------------- checks
def _int(pred: str, arg: str, value: object, minimum: int | None = None, maximum: int | None = None) -> int:
    if not is_int(value):
        raise TypeError(f"{pred}: {arg} must be an int, got {value!r}")
    v = int(value)  # type: ignore[call-overload]
    if minimum is not None and v < minimum:
        raise ValueError(f"{pred}: {arg} must be >= {minimum}, got {v}")
    if maximum is not None and v > maximum:
        raise ValueError(f"{pred}: {arg} must be <= {maximum}, got {v}")
    return v


def _count(pred: str, arg: str, value: object) -> int:
    """A count Neural MMO divides by: an int >= 1."""
    return _int(pred, arg, value, minimum=1)


def _level(pred: str, value: object) -> int:
    return _int(pred, "level", value, 1, K.LEVEL_MAX)


def _fraction(pred: str, arg: str, value: object) -> float:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise TypeError(f"{pred}: {arg} must be a number, got {value!r}")
    return float(value)


def _name(pred: str, arg: str, value: object, names: dict[str, int]) -> int:
    if not isinstance(value, str):
        raise TypeError(f"{pred}: {arg} must be a name (str), got {value!r}")
    key = value.lower()
    if key not in names:
        raise ValueError(f"{pred}: unknown {arg} {value!r}; valid: {', '.join(names)}")
    return names[key]


_EVENTS = {k.lower(): v for k, v in K.EVENT_CODES.items()}
_SKILLS = {name: i for i, name in enumerate(K.SKILL_NAMES)}
_STYLES = {name: i for i, name in enumerate(K.SKILL_NAMES[: K.NUM_COMBAT_SKILLS])}
_ITEMS = {name.lower(): i for i, name in enumerate(K.ITEM_NAMES) if name}
_MATERIALS = {name: i for i, name in enumerate(K.MATERIAL_NAMES)}
_MATERIALS["foliage"] = K.FOLIAGE
_AGENT_TYPES = {"npc": 0, "player": 1}
_STATUS = {"alive": 0, "dead": 1}
_QUADRANTS = {q: i for i, q in enumerate(QUADRANTS)}


def _event_name(pred: str, value: object) -> int:
    if not isinstance(value, str):
        raise TypeError(f"{pred}: event must be an EventCode name (str), got {value!r}")
    if value.lower() not in _EVENTS:
        raise ValueError(f"{pred}: unknown event {value!r}; valid events: {', '.join(K.EVENT_CODES)}")
    return _EVENTS[value.lower()]


def _n(pred: str, n: object, N: object) -> int:
    if (n is None) == (N is None):
        raise TypeError(f"{pred}: give the count as n (or Neural MMO's N), exactly once")
    return _count(pred, "n", n if n is not None else N)


def _def(name: str, fn: F.PredicateFn, resolve: object = None) -> PredicateDef:
    return PredicateDef(name, fn, BUILTIN_NAMES.index(name), resolve)  # type: ignore[arg-type]


def _leaf(
    pdef: PredicateDef,
    ints: tuple[int, ...] = (),
    floats: tuple[float, ...] = (),
    shown: tuple[object, ...] = (),
    subject: GroupArg = None,
    target: GroupArg = None,
    single_target: bool = False,
) -> Leaf:
    subj = group_ref(subject, f"{pdef.name} target") if subject is not None else DEFAULT_GROUP
    tgt = (
        group_ref(target, f"{pdef.name} target", single=single_target)
        if target is not None
        else DEFAULT_GROUP
    )
    label = f"{pdef.name}({','.join(str(s) for s in shown)})"
    return Leaf(pdef, ints, floats, subj, tgt, label)


# --------------------------------------------------------------------------- resolvers
def _tile_in_map(pred: str, row: int, col: int, config: Config) -> None:
    if not (0 <= row < config.map_size and 0 <= col < config.map_size):
        raise ValueError(f"{pred}: tile {(row, col)} is outside the {config.map_size}x{config.map_size} map")


def _resolve_occupy(leaf: Leaf, config: Config) -> tuple[tuple[int, ...], tuple[float, ...]]:
    _tile_in_map(leaf.pred.name, leaf.ints[0], leaf.ints[1], config)
    return leaf.ints, leaf.floats


def _resolve_tick(leaf: Leaf, config: Config) -> tuple[tuple[int, ...], tuple[float, ...]]:
    return ((leaf.ints[0] if leaf.ints[0] > 0 else config.horizon),), leaf.floats


def _seize(pred: str, row: int, col: int, num_ticks: int, config: Config) -> tuple[int, ...]:
    _tile_in_map(pred, row, col, config)
    targets = list(config.seize_targets)
    if (row, col) not in targets:
        raise ValueError(
            f"{pred}: tile {(row, col)} is not a seize target of the Config (seize_targets={targets}); "
            "only those tiles are tracked (Neural MMO's seize_status), so add it there"
        )
    return (row, col, num_ticks, targets.index((row, col)))


def _resolve_seize_tile(leaf: Leaf, config: Config) -> tuple[tuple[int, ...], tuple[float, ...]]:
    row, col, num_ticks = leaf.ints
    return _seize(leaf.pred.name, row, col, num_ticks, config), leaf.floats


def _resolve_seize_center(leaf: Leaf, config: Config) -> tuple[tuple[int, ...], tuple[float, ...]]:
    c = config.map_size // 2
    return _seize(leaf.pred.name, c, c, leaf.ints[0], config), leaf.floats


def quadrant_center(quadrant: str, config: Config) -> tuple[int, int]:
    """Neural MMO's quadrant centre tiles (``SeizeQuadCenter``, ``Map.quad_centers``)."""
    c, h = config.map_size // 2, config.map_center // 4
    return {
        "first": (c + h, c + h),
        "second": (c - h, c + h),
        "third": (c - h, c - h),
        "fourth": (c + h, c - h),
    }[quadrant]


def _resolve_seize_quad(leaf: Leaf, config: Config) -> tuple[tuple[int, ...], tuple[float, ...]]:
    row, col = quadrant_center(QUADRANTS[leaf.ints[1]], config)
    return _seize(leaf.pred.name, row, col, leaf.ints[0], config), leaf.floats


_ALL_DEAD = _def("AllDead", F.all_dead)
_ALL_MEMBERS_WITHIN_RANGE = _def("AllMembersWithinRange", F.all_members_within_range)
_ATTAIN_SKILL = _def("AttainSkill", F.attain_skill)
_BUY_ITEM = _def("BuyItem", F.item_event)
_CAN_SEE_AGENT = _def("CanSeeAgent", F.can_see)
_CAN_SEE_GROUP = _def("CanSeeGroup", F.can_see)
_CAN_SEE_TILE = _def("CanSeeTile", F.can_see_tile)
_CHECK_AGENT_STATUS = _def("CheckAgentStatus", F.check_agent_status)
_CONSUME_ITEM = _def("ConsumeItem", F.item_event)
_COUNT_EVENT = _def("CountEvent", F.count_event)
_DEFEAT_ENTITY = _def("DefeatEntity", F.defeat_entity)
_DISTANCE_TRAVELED = _def("DistanceTraveled", F.distance_traveled)
_EARN_GOLD = _def("EarnGold", F.gold)
_EQUIP_ITEM = _def("EquipItem", F.equip_item)
_FIRE_AMMO = _def("FireAmmo", F.item_event)
_FULLY_ARMED = _def("FullyArmed", F.fully_armed)
_GAIN_EXPERIENCE = _def("GainExperience", F.gain_experience)
_HARVEST_ITEM = _def("HarvestItem", F.item_event)
_HOARD_GOLD = _def("HoardGold", F.hoard_gold)
_INVENTORY_SPACE_GE = _def("InventorySpaceGE", F.inventory_space_ge)
_LIST_ITEM = _def("ListItem", F.item_event)
_MAKE_PROFIT = _def("MakeProfit", F.gold)
_OCCUPY_TILE = _def("OccupyTile", F.occupy_tile, _resolve_occupy)
_OWN_ITEM = _def("OwnItem", F.own_item)
_PROGRESS_TOWARD_CENTER = _def("ProgressTowardCenter", F.progress_toward_center)
_PROTECT_LEADER = _def("ProtectLeader", F.protect_leader)
_SCORE_HIT = _def("ScoreHit", F.score_hit)
_SEIZE_CENTER = _def("SeizeCenter", F.seize_tile, _resolve_seize_center)
_SEIZE_QUAD_CENTER = _def("SeizeQuadCenter", F.seize_tile, _resolve_seize_quad)
_SEIZE_TILE = _def("SeizeTile", F.seize_tile, _resolve_seize_tile)
_SPEND_GOLD = _def("SpendGold", F.gold)
_STAY_ALIVE = _def("StayAlive", F.stay_alive)
_SUCCESS = _def("Success", F.success)
_TICK_GE = _def("TickGE", F.tick_ge, _resolve_tick)
BUILTINS = tuple(
    sorted((v for v in globals().values() if isinstance(v, PredicateDef)), key=lambda d: d.code or 0)
)
assert [d.name for d in BUILTINS] == list(BUILTIN_NAMES)


# --------------------------------------------------------------------------- constructors
def AllDead(target: GroupArg = None) -> Leaf:
    """1 - (alive members with nonzero health) / len(subject). As in Neural MMO's task
    specs, ``target`` (if given) is the subject; default: the task holder."""
    return _leaf(_ALL_DEAD, shown=(target,) if target is not None else (), subject=target)


def StayAlive(target: GroupArg = None) -> Leaf:
    """1 if every member of the subject is alive (``target``, if given, is the subject)."""
    return _leaf(_STAY_ALIVE, shown=(target,) if target is not None else (), subject=target)


def Success() -> Leaf:
    """Always 1 (Neural MMO: for debugging)."""
    return _leaf(_SUCCESS)


def TickGE(num_tick: int | None = None) -> Leaf:
    """``tick / num_tick``; ``num_tick`` defaults to the horizon (Neural MMO's default task)."""
    n = 0 if num_tick is None else _count("TickGE", "num_tick", num_tick)
    return _leaf(_TICK_GE, (n,), shown=(num_tick,))


def CanSeeTile(tile_type: str) -> Leaf:
    """1 if a member sees a tile of material ``tile_type`` (``"water"``, ``"ore"`` ...)."""
    return _leaf(
        _CAN_SEE_TILE, (_name("CanSeeTile", "tile_type", tile_type, _MATERIALS),), shown=(tile_type,)
    )


def CheckAgentStatus(target: GroupArg, status: str) -> Leaf:
    """Share of the target agents that are alive (``status="alive"``) or dead (``"dead"``)."""
    if target is None:
        raise TypeError("CheckAgentStatus: target is required")
    code = _name("CheckAgentStatus", "status", status, _STATUS)
    return _leaf(_CHECK_AGENT_STATUS, (code,), shown=(target, status), target=target)


def OccupyTile(row: int, col: int) -> Leaf:
    """1 if a member stands on tile ``(row, col)``."""
    r, c = _int("OccupyTile", "row", row, 0), _int("OccupyTile", "col", col, 0)
    return _leaf(_OCCUPY_TILE, (r, c), shown=(r, c))


def CanSeeAgent(target: GroupArg) -> Leaf:
    """1 if a member sees the target agent (an index or a ``*_leader`` word)."""
    if target is None:
        raise TypeError("CanSeeAgent: target is required")
    return _leaf(_CAN_SEE_AGENT, shown=(target,), target=target, single_target=True)


def CanSeeGroup(target: GroupArg) -> Leaf:
    """1 if a member sees any agent of the target group."""
    if target is None:
        raise TypeError("CanSeeGroup: target is required")
    return _leaf(_CAN_SEE_GROUP, shown=(target,), target=target)


def DistanceTraveled(dist: int) -> Leaf:
    """Summed L-inf distance of the members from their spawn tiles ``/ dist``."""
    return _leaf(_DISTANCE_TRAVELED, (_count("DistanceTraveled", "dist", dist),), shown=(dist,))


def AttainSkill(skill: str, level: int, num_agent: int = 1) -> Leaf:
    """Summed ``level - 1`` of the members' ``skill`` ``/ (num_agent * (level - 1))``."""
    s = _name("AttainSkill", "skill", skill, _SKILLS)
    lv, n = _level("AttainSkill", level), _count("AttainSkill", "num_agent", num_agent)
    return _leaf(_ATTAIN_SKILL, (s, lv, n), shown=(skill, level, num_agent))


def GainExperience(skill: str, experience: int, num_agent: int = 1) -> Leaf:
    """Summed ``skill`` experience of the members ``/ (experience * num_agent)``."""
    s = _name("GainExperience", "skill", skill, _SKILLS)
    e, n = (
        _count("GainExperience", "experience", experience),
        _count("GainExperience", "num_agent", num_agent),
    )
    return _leaf(_GAIN_EXPERIENCE, (s, e, n), shown=(skill, experience, num_agent))


def CountEvent(event: str, n: int | None = None, *, N: int | None = None) -> Leaf:
    """Members' events of the ``EventCode`` name ``event`` ``/ n``."""
    code, count = _event_name("CountEvent", event), _n("CountEvent", n, N)
    return _leaf(_COUNT_EVENT, (code, count), shown=(event.upper(), count))


def ScoreHit(combat_style: str, n: int | None = None, *, N: int | None = None) -> Leaf:
    """Members' hits scored with ``combat_style`` (melee, range, mage) ``/ n``."""
    style, count = _name("ScoreHit", "combat_style", combat_style, _STYLES), _n("ScoreHit", n, N)
    return _leaf(_SCORE_HIT, (style, count), shown=(combat_style, count))


def DefeatEntity(agent_type: str, level: int, num_agent: int = 1) -> Leaf:
    """Members' kills of ``agent_type`` (``"player"``/``"npc"``) of level ``>= level``
    ``/ num_agent`` (1 if ``num_agent == 0``)."""
    kind = _name("DefeatEntity", "agent_type", agent_type, _AGENT_TYPES)
    lv, n = _level("DefeatEntity", level), _int("DefeatEntity", "num_agent", num_agent, 0)
    return _leaf(_DEFEAT_ENTITY, (kind, lv, n), shown=(agent_type, level, num_agent))


def HoardGold(amount: int) -> Leaf:
    """Alive members' gold ``/ amount``."""
    return _leaf(_HOARD_GOLD, (_count("HoardGold", "amount", amount),), shown=(amount,))


def _gold(pdef: PredicateDef, mode: int, amount: int) -> Leaf:
    return _leaf(pdef, (mode, _count(pdef.name, "amount", amount)), shown=(amount,))


def EarnGold(amount: int) -> Leaf:
    """Members' gold earned selling and looting ``/ amount``."""
    return _gold(_EARN_GOLD, F.GOLD_EARN, amount)


def SpendGold(amount: int) -> Leaf:
    """Members' gold spent buying ``/ amount``."""
    return _gold(_SPEND_GOLD, F.GOLD_SPEND, amount)


def MakeProfit(amount: int) -> Leaf:
    """Members' gold earned minus spent ``/ amount``."""
    return _gold(_MAKE_PROFIT, F.GOLD_PROFIT, amount)


def InventorySpaceGE(space: int) -> Leaf:
    """1 if every alive member has at least ``space`` (0..12) free inventory slots."""
    return _leaf(
        _INVENTORY_SPACE_GE,
        (_int("InventorySpaceGE", "space", space, 0, K.INVENTORY_CAPACITY),),
        shown=(space,),
    )


def _item(pred: str, item: object) -> int:
    if is_int(item) and int(item) in _ITEMS.values():  # type: ignore[call-overload]
        return int(item)  # type: ignore[call-overload]
    return _name(pred, "item", item, _ITEMS)


def _item_leaf(
    pdef: PredicateDef, prefix: tuple[int, ...], item: str, level: int, last: str, value: int
) -> Leaf:
    t, lv = _item(pdef.name, item), _level(pdef.name, level)
    v = _count(pdef.name, last, value) if last == "quantity" else _int(pdef.name, last, value, 0)
    return _leaf(pdef, (*prefix, t, lv, v), shown=(item, level, value))


def OwnItem(item: str, level: int, quantity: int) -> Leaf:
    """Quantity of ``item`` at level ``>= level`` in alive members' inventories ``/ quantity``."""
    return _item_leaf(_OWN_ITEM, (), item, level, "quantity", quantity)


def EquipItem(item: str, level: int, num_agent: int = 1) -> Leaf:
    """Alive members with ``item`` of level ``>= level`` equipped ``/ num_agent`` (1 if 0)."""
    return _item_leaf(_EQUIP_ITEM, (), item, level, "num_agent", num_agent)


def FullyArmed(combat_style: str, level: int, num_agent: int = 1) -> Leaf:
    """Alive members with hat, top, bottom, weapon and ammunition of ``combat_style`` all
    equipped at level ``>= level``, ``/ num_agent`` (1 if 0)."""
    style = _name("FullyArmed", "combat_style", combat_style, _STYLES)
    lv, n = _level("FullyArmed", level), _int("FullyArmed", "num_agent", num_agent, 0)
    return _leaf(_FULLY_ARMED, (style, lv, n), shown=(combat_style, level, num_agent))


def _item_event(pdef: PredicateDef, event: int, item: str, level: int, quantity: int) -> Leaf:
    return _item_leaf(pdef, (K.ITEM_EVENTS.index(event),), item, level, "quantity", quantity)


def ConsumeItem(item: str, level: int, quantity: int) -> Leaf:
    """Quantity of ``item`` (level ``>= level``) the members consumed ``/ quantity``."""
    return _item_event(_CONSUME_ITEM, K.CONSUME_ITEM, item, level, quantity)


def HarvestItem(item: str, level: int, quantity: int) -> Leaf:
    """Quantity of ``item`` (level ``>= level``) the members harvested ``/ quantity``."""
    return _item_event(_HARVEST_ITEM, K.HARVEST_ITEM, item, level, quantity)


def FireAmmo(item: str, level: int, quantity: int) -> Leaf:
    """Quantity of ammunition ``item`` (level ``>= level``) the members fired ``/ quantity``."""
    return _item_event(_FIRE_AMMO, K.FIRE_AMMO, item, level, quantity)


def ListItem(item: str, level: int, quantity: int) -> Leaf:
    """Quantity of ``item`` (level ``>= level``) the members listed for sale ``/ quantity``."""
    return _item_event(_LIST_ITEM, K.LIST_ITEM, item, level, quantity)


def BuyItem(item: str, level: int, quantity: int) -> Leaf:
    """Quantity of ``item`` (level ``>= level``) the members bought ``/ quantity``."""
    return _item_event(_BUY_ITEM, K.BUY_ITEM, item, level, quantity)


def ProgressTowardCenter() -> Leaf:
    """``1 - d / (map_center / 2)``, ``d`` the closest alive member's distance to the centre."""
    return _leaf(_PROGRESS_TOWARD_CENTER)


def AllMembersWithinRange(dist: int) -> Leaf:
    """1 if the alive members' L-inf spread is ``<= dist`` (``dist >= 0``), else a bonus."""
    return _leaf(_ALL_MEMBERS_WITHIN_RANGE, (_int("AllMembersWithinRange", "dist", dist, 0),), shown=(dist,))


def SeizeTile(
    row: int, col: int, num_ticks: int, progress_bonus: float = 0.4, seize_bonus: float = 0.3
) -> Leaf:
    """Seize tile ``(row, col)`` (a ``Config.seize_targets`` tile) and hold it ``num_ticks``."""
    r, c = _int("SeizeTile", "row", row, 0), _int("SeizeTile", "col", col, 0)
    n = _count("SeizeTile", "num_ticks", num_ticks)
    pb, sb = (
        _fraction("SeizeTile", "progress_bonus", progress_bonus),
        _fraction("SeizeTile", "seize_bonus", seize_bonus),
    )
    return _leaf(_SEIZE_TILE, (r, c, n), (pb, sb), shown=(r, c, n))


def SeizeCenter(num_ticks: int, progress_bonus: float = 0.3) -> Leaf:
    """``SeizeTile`` on the centre tile ``map_size // 2`` (seize bonus 0.3)."""
    n = _count("SeizeCenter", "num_ticks", num_ticks)
    pb = _fraction("SeizeCenter", "progress_bonus", progress_bonus)
    return _leaf(_SEIZE_CENTER, (n,), (pb, 0.3), shown=(n,))


def SeizeQuadCenter(num_ticks: int, quadrant: str, progress_bonus: float = 0.3) -> Leaf:
    """``SeizeTile`` on a quadrant's centre (``"first"`` .. ``"fourth"``, Neural MMO's)."""
    n = _count("SeizeQuadCenter", "num_ticks", num_ticks)
    q = _name("SeizeQuadCenter", "quadrant", quadrant, _QUADRANTS)
    pb = _fraction("SeizeQuadCenter", "progress_bonus", progress_bonus)
    return _leaf(_SEIZE_QUAD_CENTER, (n, q), (pb, 0.3), shown=(n, quadrant))


def ProtectLeader(target_protect: GroupArg, target_destroy: GroupArg = None) -> Leaf:
    """``tick / horizon`` while ``target_protect`` (one agent) is alive, else 0.
    ``target_destroy`` is informational, as in Neural MMO (checked, not used)."""
    if target_protect is None:
        raise TypeError("ProtectLeader: target_protect is required")
    if target_destroy is not None:
        group_ref(target_destroy, "ProtectLeader target_destroy")
    return _leaf(_PROTECT_LEADER, shown=(target_protect,), target=target_protect, single_target=True)
