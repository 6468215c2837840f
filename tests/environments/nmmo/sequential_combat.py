"""The reference for ``jaxmarl.environments.nmmo.combat.resolve``: Neural MMO's combat
resolved literally, one attacking entity after the other in order (a ``while_loop`` over
the attackers, each attack reading the state the earlier ones left). This was the
engine's own implementation; ``resolve`` now computes the same result for all attacks at
once, and ``test_combat.py`` checks the two agree exactly."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxmarl.environments.nmmo import constants as C
from jaxmarl.environments.nmmo import inventory as inv_ops
from jaxmarl.environments.nmmo import rng
from jaxmarl.environments.nmmo.events import Events, in_order
from jaxmarl.environments.nmmo.inventory import Inventory
from jaxmarl.environments.nmmo.types import State


def _row(valid: jax.Array, *columns: jax.Array | int) -> tuple[jax.Array, jax.Array]:
    return jnp.stack([jnp.asarray(c, jnp.int32) for c in columns]), valid


def resolve(
    key: jax.Array, num_agents: int, state: State, target: jax.Array, style: jax.Array
) -> tuple[State, Events]:
    """Resolve every entity's attack (``target`` entity index or -1, ``style`` 0..2, both
    ``(E,)``) in order; returns the new state and the attacks' event rows."""
    P = num_agents
    E = target.shape[0]
    now = state.step + 1
    # The looting order of each killer, drawn as combat.resolve draws it.
    shuffles = jax.random.bits(key, (E, C.INVENTORY_CAPACITY), jnp.uint32)

    def one(carry: tuple, i: jax.Array) -> tuple[tuple, tuple[jax.Array, jax.Array]]:
        st, inv, next_uid = carry
        t = target[i]
        tt = jnp.maximum(t, 0)
        s = style[i]
        i_player, t_player = i < P, tt < P
        ip, tp = jnp.minimum(i, P - 1), jnp.minimum(tt, P - 1)
        alive = st.ent_alive & (st.ent_health > 0)
        dist = jnp.max(jnp.abs(st.ent_pos[i] - st.ent_pos[tt]))
        immune = i_player & t_player & (st.ent_time_alive[tt] < C.SPAWN_IMMUNITY)
        valid = (
            (t >= 0) & alive[i] & (st.ent_freeze[i] == 0) & alive[tt] & (tt != i) & (dist <= C.ATTACK_REACH)
        )
        valid = valid & ~immune

        inv_i = Inventory(*(f[ip] for f in inv))
        inv_t = Inventory(*(f[tp] for f in inv))
        offense = jnp.where(
            i_player,
            C.STYLE_BASE_DAMAGE
            + C.STYLE_LEVEL_DAMAGE * st.ent_level[i, s]
            + inv_ops.equipment_attack(inv_i)[s],
            st.npc_offense[i],
        )
        defense = jnp.where(
            t_player,
            C.BASE_DEFENSE + C.LEVEL_DEFENSE * jnp.max(st.ent_level[tt]) + inv_ops.equipment_defense(inv_t),
            st.npc_defense[tt],
        )
        combat_exp = st.ent_exp[tt, :3]
        main = jnp.argmax(combat_exp)
        weak = (jnp.max(combat_exp) != jnp.min(combat_exp)) & (s == jnp.asarray(C.WEAKNESS)[main])
        mult = jnp.where(weak, C.WEAKNESS_MULTIPLIER, 1.0)
        raw = jnp.maximum(mult * offense - defense, offense * C.MINIMUM_DAMAGE_PROPORTION)
        dmg = jnp.maximum(raw.astype(jnp.int32), 0)

        # Ammunition of the style fires.
        ammo = inv_i.equipped & jnp.asarray(C.IS_AMMUNITION)[inv_i.type]
        ammo = ammo & (jnp.asarray(C.ITEM_ATTACK_STYLE)[inv_i.type] == s)
        fires = valid & i_player & jnp.any(ammo)
        aslot = jnp.argmax(ammo)
        left = inv_i.quantity[aslot] - 1
        fire_row = _row(
            fires,
            st.ent_id[i],
            now,
            C.FIRE_AMMO,
            inv_i.type[aslot],
            inv_i.level[aslot],
            left,
            0,
            inv_i.uid[aslot],
        )
        inv_i = inv_i._replace(
            quantity=inv_i.quantity.at[aslot].set(jnp.where(fires, left, inv_i.quantity[aslot]))
        )
        inv_i = inv_ops.clear(inv_i, aslot, fires & (left == 0))

        hit_row = _row(valid & i_player, st.ent_id[i], now, C.SCORE_HIT, s + 1, 0, dmg, 0, st.ent_id[tt])
        new_level, new_exp, up = inv_ops.add_xp(st.ent_level[i, s], st.ent_exp[i, s], C.COMBAT_XP)
        gains = valid & i_player
        up = gains & up
        level_row = _row(up, st.ent_id[i], now, C.LEVEL_UP, s + 1, new_level, 0, 0, 0)

        hurt = valid & ~st.ent_immortal[tt]
        health_t = jnp.where(hurt, jnp.maximum(st.ent_health[tt] - dmg, 0), st.ent_health[tt])
        killed = hurt & (health_t == 0)
        victim_level = jnp.max(st.ent_level[tt, :3])
        kill_row = _row(killed, st.ent_id[i], now, C.PLAYER_KILL, 0, victim_level, 0, 0, st.ent_id[tt])
        gold_t = st.ent_gold[tt]
        loots_gold = killed & (gold_t > 0)
        gold_row = _row(loots_gold, st.ent_id[i], now, C.LOOT_GOLD, 0, 0, 0, gold_t, st.ent_id[tt])

        # Items: a player killer takes the victim's items in random order; a killed NPC
        # drops its armour and tool; an NPC killer destroys the player's items.
        order = rng.permutation(shuffles[i])
        npc_drop_types = jnp.zeros(C.INVENTORY_CAPACITY, jnp.int32).at[:2].set(st.npc_drops[tt])
        player_loot = killed & i_player & t_player
        npc_loot = killed & i_player & ~t_player
        inv_t_after = inv_t

        def take(k: int, acc: tuple) -> tuple:
            inv_i, inv_t_after, next_uid, loot_rows = acc
            slot = order[k]
            from_player = player_loot & (inv_t.type[slot] > 0)
            from_npc = npc_loot & (npc_drop_types[k] > 0) & jnp.any(inv_i.type == 0)
            type_ = jnp.where(from_player, inv_t.type[slot], npc_drop_types[k])
            level = jnp.where(from_player, inv_t.level[slot], victim_level)
            qty = jnp.where(from_player, inv_t.quantity[slot], 1)
            uid = jnp.where(from_player, inv_t.uid[slot], next_uid)
            inv_i, got = inv_ops.receive(inv_i, type_, level, qty, uid, from_player | from_npc)
            next_uid = next_uid + from_npc
            row = jnp.stack([st.ent_id[i], now, C.LOOT_ITEM, type_, level, qty, 0, uid]).astype(jnp.int32)
            loot_rows = (loot_rows[0].at[k].set(row), loot_rows[1].at[k].set(got))
            return inv_i, inv_t_after, next_uid, loot_rows

        empty_rows = (jnp.zeros((C.INVENTORY_CAPACITY, 8), jnp.int32), jnp.zeros(C.INVENTORY_CAPACITY, bool))
        # Looting is rare: a real branch for one world (a select under vmap).
        inv_i, inv_t_after, next_uid, loot_rows = jax.lax.cond(
            player_loot | npc_loot,
            lambda acc: jax.lax.fori_loop(0, C.INVENTORY_CAPACITY, take, acc),
            lambda acc: acc,
            (inv_i, inv_t_after, next_uid, empty_rows),
        )
        # Whatever a dead player held is gone (taken above or destroyed).
        dead_player = killed & t_player
        inv_t_after = Inventory(*(jnp.where(dead_player, jnp.zeros_like(f), f) for f in inv_t_after))

        def put(arr: jax.Array, idx: jax.Array, value: jax.Array | int, where: jax.Array) -> jax.Array:
            return arr.at[idx].set(jnp.where(where, value, arr[idx]))

        inv = Inventory(
            *(
                put(put(f, tp, ft, t_player & valid), ip, fi, i_player & valid)
                for f, fi, ft in zip(inv, inv_i, inv_t_after, strict=False)
            )
        )
        st = st.replace(
            ent_health=put(st.ent_health, tt, health_t, valid),
            ent_damage=put(st.ent_damage, tt, dmg, hurt),
            ent_attacker=put(st.ent_attacker, tt, i, valid),
            ent_latest_combat_tick=put(put(st.ent_latest_combat_tick, i, now, valid), tt, now, valid),
            ent_level=st.ent_level.at[i, s].set(jnp.where(gains, new_level, st.ent_level[i, s])),
            ent_exp=st.ent_exp.at[i, s].set(jnp.where(gains, new_exp, st.ent_exp[i, s])),
            ent_gold=put(put(st.ent_gold, i, st.ent_gold[i] + gold_t, loots_gold), tt, 0, loots_gold),
        )
        rows = jnp.concatenate(
            [jnp.stack([hit_row[0], fire_row[0], level_row[0], kill_row[0], gold_row[0]]), loot_rows[0]]
        )
        valid_rows = jnp.concatenate(
            [jnp.stack([hit_row[1], fire_row[1], level_row[1], kill_row[1], gold_row[1]]), loot_rows[1]]
        )
        return (st, inv, next_uid), (rows, valid_rows)

    inv = inv_ops.of(state)
    (state, inv, next_uid), batch = in_order(
        one,
        (state, inv, state.next_item_uid),
        jnp.arange(E, dtype=jnp.int32),
        target >= 0,
        5 + C.INVENTORY_CAPACITY,
    )
    state = inv_ops.store(state, inv).replace(next_item_uid=next_uid)
    return state, batch
