"""Player actions other than attacks (Neural MMO's ``core/action.py`` and
``systems/exchange.py``), in Neural MMO's priority order: Use, Buy, Give and GiveGold,
Destroy, (Attack: ``combat.py``), Move, Sell, Comm.

An action refers to what the agent observed at the start of the tick: an inventory row
(slot), an entity row of its ``Entity`` observation, a market row. It is ignored when
its arguments are the no-op, when the agent is dead or frozen, or when the referenced
item has moved since (ids are compared). Item actions other than Use of equipment are
refused within 3 ticks of a fight (Neural MMO's ``in_combat``).

- **Use**: equip (unequipping the slot's current item) or unequip an item whose level
  the agent meets; eat a ration (+``50 + 5 * level`` food and water) or drink a potion
  (+``50 + 5 * level`` health). Not for listed items.
- **Buy** (buyers in a random order, as Neural MMO shuffles them): a listed item of
  another player, for its price, with room for it.
- **Give** an unequipped, unlisted item, or **GiveGold** ``1..99`` gold, to a living
  player within 7 tiles (givers in id order).
- **Destroy** an unequipped item.
- **Move** one tile onto habitable ground (entities may share tiles).
- **Sell**: list an unequipped item at price ``1..99`` for 3 ticks.
- **Comm**: set the message token.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxmarl.environments.nmmo import constants as C
from jaxmarl.environments.nmmo import inventory as inv_ops
from jaxmarl.environments.nmmo import rng
from jaxmarl.environments.nmmo.events import Events, events, in_order
from jaxmarl.environments.nmmo.inventory import Inventory
from jaxmarl.environments.nmmo.types import State


def can_act(state: State) -> jax.Array:
    """``(E,)`` entities whose actions run now: alive and not frozen."""
    return state.ent_alive & (state.ent_health > 0) & (state.ent_freeze == 0)


def in_combat(state: State) -> jax.Array:
    """``(E,)`` Neural MMO's ``in_combat`` at the current tick."""
    last = state.ent_latest_combat_tick
    return (last != 0) & (state.step - last < C.COMBAT_STATUS_DURATION)


def _slot_item(start_uid: jax.Array, inv: Inventory, slot: jax.Array) -> tuple[jax.Array, jax.Array]:
    """``(slot, still_there)`` for a chosen inventory row (no-op rows are never there)."""
    s = jnp.minimum(slot, C.INVENTORY_CAPACITY - 1)
    uid = jnp.take_along_axis(start_uid, s[:, None], -1)[:, 0]
    now = jnp.take_along_axis(inv.uid, s[:, None], -1)[:, 0]
    kind = jnp.take_along_axis(inv.type, s[:, None], -1)[:, 0]
    return s, (slot < C.INVENTORY_CAPACITY) & (uid > 0) & (uid == now) & (kind > 0)


def _gather(inv: Inventory, slot: jax.Array) -> Inventory:
    return Inventory(*(jnp.take_along_axis(f, slot[:, None], -1)[:, 0] for f in inv))


def use(state: State, num_agents: int, slot: jax.Array) -> tuple[State, list[Events]]:
    """Use (priority 10) for every player at once: it only touches the user."""
    P = num_agents
    inv = inv_ops.of(state)
    s, there = _slot_item(inv.uid, inv, slot)
    item = _gather(inv, s)
    ok = there & can_act(state)[:P] & ~in_combat(state)[:P] & (item.price == 0)
    ok = ok & (item.level <= inv_ops.required_level(state.ent_level[:P], item.type))
    tick, ids = state.step + 1, state.ent_id[:P]
    equipment = jnp.asarray(C.IS_EQUIPMENT)[item.type]
    unequip = ok & equipment & item.equipped
    equip = ok & equipment & ~item.equipped
    slot_kind = jnp.asarray(C.ITEM_SLOT)[inv.type]
    same_slot = (slot_kind == jnp.asarray(C.ITEM_SLOT)[item.type][:, None]) & inv.equipped
    rows = jnp.arange(C.INVENTORY_CAPACITY)[None, :] == s[:, None]
    equipped = jnp.where(equip[:, None] & same_slot, False, inv.equipped)
    equipped = jnp.where(rows & equip[:, None], True, jnp.where(rows & unequip[:, None], False, equipped))
    consume = ok & jnp.asarray(C.IS_CONSUMABLE)[item.type]
    restore = C.CONSUMABLE_BASE_RESTORE + C.CONSUMABLE_LEVEL_RESTORE * item.level
    ration, potion = consume & (item.type == C.RATION), consume & (item.type == C.POTION)
    food = jnp.minimum(state.ent_food[:P] + jnp.where(ration, restore, 0), C.RESOURCE_BASE)
    water = jnp.minimum(state.ent_water[:P] + jnp.where(ration, restore, 0), C.RESOURCE_BASE)
    health = jnp.minimum(state.ent_health[:P] + jnp.where(potion, restore, 0), C.BASE_HEALTH)
    inv = inv._replace(equipped=equipped)
    inv = Inventory(*(jnp.where(rows & consume[:, None], jnp.zeros_like(f), f) for f in inv))
    state = inv_ops.store(state, inv).replace(
        ent_food=state.ent_food.at[:P].set(food),
        ent_water=state.ent_water.at[:P].set(water),
        ent_health=state.ent_health.at[:P].set(health),
    )
    batches = [
        events(equip, ids, tick, C.EQUIP_ITEM, item.type, item.level, item.quantity, 0, item.uid),
        events(consume, ids, tick, C.CONSUME_ITEM, item.type, item.level, item.quantity, 0, item.uid),
    ]
    return state, batches


def buy(
    key: jax.Array, state: State, num_agents: int, market: jax.Array, start_uid: jax.Array, choice: jax.Array
) -> tuple[State, Events]:
    """Buy (priority 20): buyers in a random order. ``market`` ``(M,)`` holds the flat
    ``player * I + slot`` of each market row observed at the start of the tick (-1 pad)."""
    P, I = num_agents, C.INVENTORY_CAPACITY
    M = market.shape[0]
    order = rng.permutation(jax.random.bits(key, (P,), jnp.uint32))
    tick = state.step + 1
    busy = in_combat(state)
    able = can_act(state)

    def one(carry: tuple, b: jax.Array) -> tuple[tuple, tuple[jax.Array, jax.Array]]:
        inv, gold = carry
        row = choice[b]
        flat = jnp.where(row < M, market[jnp.minimum(row, M - 1)], -1)
        seller, slot = jnp.maximum(flat, 0) // I, jnp.maximum(flat, 0) % I
        uid = start_uid[seller, slot]
        price = inv.price[seller, slot]
        type_, level, qty = inv.type[seller, slot], inv.level[seller, slot], inv.quantity[seller, slot]
        mine = Inventory(*(f[b] for f in inv))
        ok = (flat >= 0) & (inv.uid[seller, slot] == uid) & (uid > 0) & (price > 0) & (seller != b)
        ok = ok & able[b] & ~busy[b] & (gold[b] >= price) & inv_ops.can_receive(mine, type_, level)
        mine, _ = inv_ops.receive(mine, type_, level, qty, uid, ok)
        inv = Inventory(*(f.at[b].set(m) for f, m in zip(inv, mine, strict=False)))
        inv = Inventory(
            *(
                f.at[seller, slot].set(jnp.where(ok, jnp.zeros_like(f[seller, slot]), f[seller, slot]))
                for f in inv
            )
        )
        gold = gold.at[b].add(jnp.where(ok, -price, 0)).at[seller].add(jnp.where(ok, price, 0))
        ids = state.ent_id
        rows = jnp.stack(
            [
                jnp.stack([ids[b], tick, C.BUY_ITEM, type_, level, qty, price, uid]),
                jnp.stack([ids[seller], tick, C.EARN_GOLD, 0, 0, 0, price, 0]),
            ]
        ).astype(jnp.int32)
        return (inv, gold), (rows, jnp.stack([ok, ok]))

    (inv, gold), batch = in_order(one, (inv_ops.of(state), state.ent_gold), order, choice < M, 2)
    return inv_ops.store(state, inv).replace(ent_gold=gold), batch


def give(
    state: State,
    num_agents: int,
    start_uid: jax.Array,
    item_slot: jax.Array,
    item_target: jax.Array,
    gold_amount: jax.Array,
    gold_target: jax.Array,
) -> tuple[State, Events]:
    """Give then GiveGold (priority 30) for each player in id order. Targets are entity
    indices (-1: no-op)."""
    P = num_agents
    tick = state.step + 1
    busy = in_combat(state)
    able = can_act(state)

    def near_player(g: jax.Array, t: jax.Array, alive: jax.Array) -> jax.Array:
        tt = jnp.clip(t, 0, P - 1)
        dist = jnp.max(jnp.abs(state.ent_pos[g] - state.ent_pos[tt]))
        return (t >= 0) & (t < P) & (t != g) & alive[tt] & (dist <= C.VISION_RADIUS)

    def one(carry: tuple, g: jax.Array) -> tuple[tuple, tuple[jax.Array, jax.Array]]:
        inv, gold = carry
        alive = state.ent_alive & (state.ent_health > 0)
        actor = able[g] & ~busy[g]
        slot = jnp.minimum(item_slot[g], C.INVENTORY_CAPACITY - 1)
        uid = start_uid[g, slot]
        t = item_target[g]
        tt = jnp.clip(t, 0, P - 1)
        type_, level, qty = inv.type[g, slot], inv.level[g, slot], inv.quantity[g, slot]
        theirs = Inventory(*(f[tt] for f in inv))
        ok = actor & (item_slot[g] < C.INVENTORY_CAPACITY) & (uid > 0) & (inv.uid[g, slot] == uid)
        ok = ok & ~inv.equipped[g, slot] & (inv.price[g, slot] == 0) & near_player(g, t, alive)
        ok = ok & inv_ops.can_receive(theirs, type_, level)
        theirs, _ = inv_ops.receive(theirs, type_, level, qty, uid, ok)
        inv = Inventory(
            *(f.at[g, slot].set(jnp.where(ok, jnp.zeros_like(f[g, slot]), f[g, slot])) for f in inv)
        )
        inv = Inventory(*(f.at[tt].set(jnp.where(ok, th, f[tt])) for f, th in zip(inv, theirs, strict=False)))
        gt = gold_target[g]
        amount = gold_amount[g]
        gives_gold = actor & near_player(g, gt, alive) & (amount <= gold[g])
        gold = (
            gold.at[g]
            .add(jnp.where(gives_gold, -amount, 0))
            .at[jnp.clip(gt, 0, P - 1)]
            .add(jnp.where(gives_gold, amount, 0))
        )
        ids = state.ent_id
        rows = jnp.stack(
            [
                jnp.stack([ids[g], tick, C.GIVE_ITEM, 0, 0, 0, 0, 0]),
                jnp.stack([ids[g], tick, C.GIVE_GOLD, 0, 0, 0, 0, 0]),
            ]
        ).astype(jnp.int32)
        return (inv, gold), (rows, jnp.stack([ok, gives_gold]))

    active = (item_slot < C.INVENTORY_CAPACITY) | (gold_target >= 0)
    (inv, gold), batch = in_order(one, (inv_ops.of(state), state.ent_gold), jnp.arange(P), active, 2)
    return inv_ops.store(state, inv).replace(ent_gold=gold), batch


def destroy(state: State, num_agents: int, start_uid: jax.Array, slot: jax.Array) -> tuple[State, Events]:
    """Destroy (priority 40) an unequipped item."""
    P = num_agents
    inv = inv_ops.of(state)
    s, there = _slot_item(start_uid, inv, slot)
    item = _gather(inv, s)
    ok = there & can_act(state)[:P] & ~in_combat(state)[:P] & ~item.equipped
    rows = jnp.arange(C.INVENTORY_CAPACITY)[None, :] == s[:, None]
    inv = Inventory(*(jnp.where(rows & ok[:, None], jnp.zeros_like(f), f) for f in inv))
    return inv_ops.store(state, inv), events(ok, state.ent_id[:P], state.step + 1, C.DESTROY_ITEM)


def move(
    state: State, config_centre: tuple[int, int, int], num_agents: int, direction: jax.Array
) -> tuple[State, Events]:
    """Move (priority 60) every entity one tile; ``direction`` ``(E,)`` (``C.STAY`` = none).
    ``config_centre`` is ``(centre_row, centre_col, map_center // 2)``."""
    P = num_agents
    step = jnp.asarray(C.MOVES)[direction]
    new = state.ent_pos + step
    size = state.tile.shape[0]
    inside = jnp.all((new >= 0) & (new < size), -1)
    ok = can_act(state) & (direction != C.STAY) & inside
    ok = (
        ok
        & jnp.asarray(C.HABITABLE)[
            state.tile[jnp.clip(new[:, 0], 0, size - 1), jnp.clip(new[:, 1], 0, size - 1)]
        ]
    )
    pos = jnp.where(ok[:, None], new, state.ent_pos)
    cr, cc, half = config_centre
    progress = half - jnp.maximum(jnp.abs(pos[:, 0] - cr), jnp.abs(pos[:, 1] - cc))
    further = ok & (progress > state.ent_exploration)
    exploration = jnp.where(further, progress, state.ent_exploration)
    record = further[:P] & (progress[:P] > 0)
    batch = events(record, state.ent_id[:P], state.step + 1, C.GO_FARTHEST, 0, 0, progress[:P])
    return state.replace(ent_pos=pos, ent_exploration=exploration), batch


def sell(
    state: State, num_agents: int, start_uid: jax.Array, slot: jax.Array, price: jax.Array
) -> tuple[State, Events]:
    """Sell (priority 70): list an item at ``price`` (1..99) from this tick."""
    P = num_agents
    inv = inv_ops.of(state)
    s, there = _slot_item(start_uid, inv, slot)
    item = _gather(inv, s)
    ok = there & can_act(state)[:P] & ~in_combat(state)[:P] & ~item.equipped & (item.price == 0) & (price > 0)
    rows = (jnp.arange(C.INVENTORY_CAPACITY)[None, :] == s[:, None]) & ok[:, None]
    inv = inv._replace(
        price=jnp.where(rows, price[:, None], inv.price),
        listed_tick=jnp.where(rows, state.step, inv.listed_tick),
    )
    batch = events(
        ok,
        state.ent_id[:P],
        state.step + 1,
        C.LIST_ITEM,
        item.type,
        item.level,
        item.quantity,
        price,
        item.uid,
    )
    return inv_ops.store(state, inv), batch


def comm(state: State, num_agents: int, token: jax.Array) -> State:
    """Comm (priority 99): the message is the token (1..127)."""
    P = num_agents
    ok = can_act(state)[:P]
    return state.replace(
        ent_message=state.ent_message.at[:P].set(jnp.where(ok, token + 1, state.ent_message[:P]))
    )
