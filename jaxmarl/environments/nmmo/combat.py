"""Combat: Neural MMO's ``Attack`` action and ``systems/combat.py``.

Attacks resolve as if one attacker at a time in Neural MMO's order (players by id, then
NPCs by slot): a target killed earlier in the tick cannot strike back and experience
gained by one hit counts for the next. ``resolve`` computes that result for all attacks at
once (see its docstring) and hands over the spoils kill by kill. An attack needs a
living, unfrozen attacker, a living target other than itself within 3 tiles (L-inf),
and, between players, a target alive for at least 20 ticks (spawn immunity).

Damage is ``int(max(m * offense - defense, 0.25 * offense))`` where

- a player's offense is ``10 + 5 * level(style) +`` the attack its equipped weapon and
  ammunition add to that style; an NPC's is its gear attack;
- a player's defense is ``5 *`` its highest skill level ``+`` its equipped armour and
  tool defense; an NPC's is its gear defense;
- ``m = 1.5`` when the attack's style beats the target's main style (the combat skill
  with the most experience, none if they tie: mage beats melee, melee beats range, range
  beats mage), else 1.

A player's attack gives it 6 experience in the style and fires one equipped ammunition
of that style. A kill records ``PLAYER_KILL``; the killer takes the victim's gold, and a
player killer also the victim's items in random order (a killed NPC drops its armour and
tool at its level) as far as its inventory takes them; an NPC that kills a player
destroys the player's items. Immortal players take no damage.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxmarl.environments.nmmo import constants as C
from jaxmarl.environments.nmmo import inventory as inv_ops
from jaxmarl.environments.nmmo import rng
from jaxmarl.environments.nmmo.events import Events, events
from jaxmarl.environments.nmmo.inventory import Inventory
from jaxmarl.environments.nmmo.types import State


def resolve(
    key: jax.Array, num_agents: int, state: State, target: jax.Array, style: jax.Array
) -> tuple[State, Events]:
    """Resolve every entity's attack (``target`` entity index or -1, ``style`` 0..2, both
    ``(E,)``) in order; returns the new state and the attacks' event rows (``E * 17``:
    hit, ammunition, level-up, kill, gold and 12 loot rows per entity, in entity order).

    The result is that of resolving the attacks one after the other (the module
    docstring), computed for all attacks at once: an attack sees the earlier ones only
    through its attacker's and its target's health and its target's own attack (the
    experience and level it gained), so every attack's validity and damage is a function
    of which earlier attacks were valid. Iterating ``valid <- f(valid)`` from "no attack
    kills" reaches the sequential answer, the unique fixed point, in one step more than
    the longest chain of kills that matter (two evaluations when nothing dies). Gold and
    items change hands only on kills, which are few: they are handed over one kill after
    the other, in order."""
    P = num_agents
    E = target.shape[0]
    now = state.step + 1
    idx = jnp.arange(E, dtype=jnp.int32)
    tt = jnp.maximum(target, 0)
    i_player, t_player = idx < P, tt < P
    ip, tp = jnp.minimum(idx, P - 1), jnp.minimum(tt, P - 1)
    inv = inv_ops.of(state)

    # What no earlier attack changes: positions, freezing, spawn immunity, gear, the
    # attacker's own level in its style.
    dist = jnp.max(jnp.abs(state.ent_pos - state.ent_pos[tt]), -1)
    immune = i_player & t_player & (state.ent_time_alive[tt] < C.SPAWN_IMMUNITY)
    possible = (
        (target >= 0)
        & state.ent_alive
        & state.ent_alive[tt]
        & (state.ent_freeze == 0)
        & (tt != idx)
        & (dist <= C.ATTACK_REACH)
        & ~immune
    )
    level_s = state.ent_level[idx, style]
    offense = jnp.where(
        i_player,
        C.STYLE_BASE_DAMAGE + C.STYLE_LEVEL_DAMAGE * level_s + inv_ops.equipment_attack(inv)[ip, style],
        state.npc_offense,
    )
    gear_defense = inv_ops.equipment_defense(inv)[tp]  # ammunition, the only gear used up, has none
    new_level, new_exp, levels_up = inv_ops.add_xp(level_s, state.ent_exp[idx, style], C.COMBAT_XP)
    target_attacked_first = (tt < idx)[:, None]  # the target's own attack came earlier
    # The hits an attack's target and its attacker took from earlier attacks, as sums
    # over the attacks sorted by (target, attacker): attacks on one target are a run,
    # ordered as they act. For attack k, the earlier attacks on its target are its run's
    # entries before it, and the earlier attacks on its attacker are the first entries of
    # the run on target k, up to attacker k. Sums of a run's entries are differences of
    # one running sum (``pre``), so no E x E table is built.
    by_target = tt * E + idx
    order = jnp.argsort(by_target)
    sorted_key = by_target[order]
    run_start = jnp.searchsorted(sorted_key, tt[order] * E)  # first attack on the same target
    own_start = jnp.zeros(E, jnp.int32).at[order].set(run_start.astype(jnp.int32))
    own_pos = jnp.zeros(E, jnp.int32).at[order].set(jnp.arange(E, dtype=jnp.int32))
    on_me_start = jnp.searchsorted(sorted_key, idx * E)  # first attack on attacker k
    on_me_end = jnp.searchsorted(sorted_key, idx * E + idx)  # ... up to attacker k
    health = state.ent_health

    def outcome(valid: jax.Array) -> tuple:
        """Every attack's damage and health seen, given which attacks are valid."""
        gains = valid & i_player
        level = state.ent_level.at[idx, style].set(jnp.where(gains, new_level, level_s))
        exp = state.ent_exp.at[idx, style].set(jnp.where(gains, new_exp, state.ent_exp[idx, style]))
        t_level = jnp.where(target_attacked_first, level[tt], state.ent_level[tt])
        t_exp = jnp.where(target_attacked_first, exp[tt, :3], state.ent_exp[tt, :3])
        defense = jnp.where(
            t_player,
            C.BASE_DEFENSE + C.LEVEL_DEFENSE * jnp.max(t_level, -1) + gear_defense,
            state.npc_defense[tt],
        )
        main = jnp.argmax(t_exp, -1)
        weak = (jnp.max(t_exp, -1) != jnp.min(t_exp, -1)) & (style == jnp.asarray(C.WEAKNESS)[main])
        mult = jnp.where(weak, C.WEAKNESS_MULTIPLIER, 1.0)
        raw = jnp.maximum(mult * offense - defense, offense * C.MINIMUM_DAMAGE_PROPORTION)
        dmg = jnp.maximum(raw.astype(jnp.int32), 0)
        hurt = valid & ~state.ent_immortal[tt]
        hits = jnp.where(hurt, dmg, 0)
        pre = jnp.concatenate([jnp.zeros(1, jnp.int32), jnp.cumsum(hits[order], dtype=jnp.int32)])
        t_health = health[tt] - (pre[own_pos] - pre[own_start])
        i_health = health - (pre[on_me_end] - pre[on_me_start])
        still_valid = possible & (i_health > 0) & (t_health > 0)
        return still_valid, (level, exp, t_level, dmg, hurt, t_health)

    # The carry is (next guess, guess, the outcome of guess): at the fixed point the two
    # guesses agree and the outcome of the answer is already at hand.
    def changed(carry: tuple) -> jax.Array:
        return jnp.any(carry[0] != carry[1])

    def iterate(carry: tuple) -> tuple:
        guess = carry[0]
        following, seen = outcome(guess)
        return following, guess, seen

    valid0 = possible & (health > 0) & (health[tt] > 0)
    next0, seen0 = outcome(valid0)
    _, valid, (level, exp, t_level, dmg, hurt, t_health) = jax.lax.while_loop(
        changed, iterate, (next0, valid0, seen0)
    )
    gains = valid & i_player
    killed = hurt & (t_health - dmg <= 0)

    # Health, the last hit and the last attacker of each target, combat ticks.
    taken = jax.ops.segment_sum(jnp.where(hurt, dmg, 0), tt, E)
    last_hit = jax.ops.segment_max(jnp.where(hurt, idx, -1), tt, E)
    last_attacker = jax.ops.segment_max(jnp.where(valid, idx, -1), tt, E)
    fought = valid | (jax.ops.segment_sum(valid.astype(jnp.int32), tt, E) > 0)
    state = state.replace(
        ent_health=jnp.where(taken > 0, jnp.maximum(health - taken, 0), health),
        ent_damage=jnp.where(last_hit >= 0, dmg[jnp.maximum(last_hit, 0)], state.ent_damage),
        ent_attacker=jnp.where(last_attacker >= 0, last_attacker, state.ent_attacker),
        ent_latest_combat_tick=jnp.where(fought, now, state.ent_latest_combat_tick),
        ent_level=level,
        ent_exp=exp,
    )

    # Each valid player attack fires one equipped ammunition of its style.
    p_style = style[:P, None]
    ammo = inv.equipped & jnp.asarray(C.IS_AMMUNITION)[inv.type]
    ammo = ammo & (jnp.asarray(C.ITEM_ATTACK_STYLE)[inv.type] == p_style)
    fires = valid[:P] & jnp.any(ammo, -1)
    aslot = jnp.argmax(ammo, -1)[:, None]
    fired = jax.tree.map(lambda f: jnp.take_along_axis(f, aslot, -1)[:, 0], inv)
    left = fired.quantity - 1
    in_slot = (jnp.arange(C.INVENTORY_CAPACITY) == aslot) & fires[:, None]
    inv = inv._replace(quantity=jnp.where(in_slot, left[:, None], inv.quantity))
    inv = Inventory(*(jnp.where(in_slot & (left == 0)[:, None], jnp.zeros_like(f), f) for f in inv))

    ids = state.ent_id
    victim_level = jnp.max(t_level[:, :3], -1)
    pad = jnp.zeros(E - P, jnp.int32)
    fire_valid = jnp.concatenate([fires, jnp.zeros(E - P, bool)])
    rows = jnp.stack(
        [
            events(gains, ids, now, C.SCORE_HIT, style + 1, 0, dmg, 0, ids[tt]).rows,
            events(
                fire_valid,
                ids,
                now,
                C.FIRE_AMMO,
                jnp.concatenate([fired.type, pad]),
                jnp.concatenate([fired.level, pad]),
                jnp.concatenate([left, pad]),
                0,
                jnp.concatenate([fired.uid, pad]),
            ).rows,
            events(gains & levels_up, ids, now, C.LEVEL_UP, style + 1, new_level).rows,
            events(killed, ids, now, C.PLAYER_KILL, 0, victim_level, 0, 0, ids[tt]).rows,
        ],
        1,
    )
    valid_rows = jnp.stack([gains, fire_valid, gains & levels_up, killed], 1)

    state, loot = _hand_over(key, P, state, inv, killed, tt, victim_level, now)
    return state, Events(
        jnp.concatenate([rows, loot.rows], 1).reshape(-1, 8),
        jnp.concatenate([valid_rows, loot.valid], 1).reshape(-1),
    )


def _hand_over(
    key: jax.Array,
    num_agents: int,
    state: State,
    inv: Inventory,
    killed: jax.Array,
    tt: jax.Array,
    victim_level: jax.Array,
    now: jax.Array,
) -> tuple[State, Events]:
    """The kills' spoils, one kill after the other in attack order: the killer takes the
    victim's gold; a player killer takes a player victim's items in random order, or a
    killed NPC's armour and tool drops; whatever a dead player held is gone. Returns the
    state (with ``inv`` stored) and, per entity, its kill's gold row and loot rows
    ``(E, 1 + I)``."""
    P = num_agents
    E, I = killed.shape[0], C.INVENTORY_CAPACITY
    shuffles = jax.random.bits(key, (E, I), jnp.uint32)  # a looting order per killer
    ranked = jnp.argsort(~killed, stable=True)

    def hand_over(carry: tuple) -> tuple:
        n, gold, inv, next_uid, rows, valid = carry
        i = ranked[n]
        t = tt[i]
        i_player, t_player = i < P, t < P
        ip, tp = jnp.minimum(i, P - 1), jnp.minimum(t, P - 1)
        ids = state.ent_id
        gold_t = gold[t]
        loots_gold = gold_t > 0
        gold = gold.at[i].add(jnp.where(loots_gold, gold_t, 0)).at[t].set(jnp.where(loots_gold, 0, gold_t))
        gold_row = events(loots_gold, ids[i], now, C.LOOT_GOLD, 0, 0, 0, gold_t, ids[t])

        inv_i = Inventory(*(f[ip] for f in inv))
        inv_t = Inventory(*(f[tp] for f in inv))
        order = rng.permutation(shuffles[i])
        drops = jnp.zeros(I, jnp.int32).at[:2].set(state.npc_drops[t])
        player_loot = i_player & t_player
        npc_loot = i_player & ~t_player

        def take(k: int, acc: tuple) -> tuple:
            inv_i, next_uid, loot_rows, loot_valid = acc
            slot = order[k]
            from_player = player_loot & (inv_t.type[slot] > 0)
            from_npc = npc_loot & (drops[k] > 0) & jnp.any(inv_i.type == 0)
            type_ = jnp.where(from_player, inv_t.type[slot], drops[k])
            level = jnp.where(from_player, inv_t.level[slot], victim_level[i])
            qty = jnp.where(from_player, inv_t.quantity[slot], 1)
            uid = jnp.where(from_player, inv_t.uid[slot], next_uid)
            inv_i, got = inv_ops.receive(inv_i, type_, level, qty, uid, from_player | from_npc)
            row = events(got, ids[i], now, C.LOOT_ITEM, type_, level, qty, 0, uid)
            return (
                inv_i,
                next_uid + from_npc,
                loot_rows.at[k].set(row.rows[0]),
                loot_valid.at[k].set(row.valid[0]),
            )

        no_rows = (jnp.zeros((I, 8), jnp.int32), jnp.zeros(I, bool))
        inv_i, next_uid, loot_rows, loot_valid = jax.lax.cond(
            player_loot | npc_loot,
            lambda acc: jax.lax.fori_loop(0, I, take, acc),
            lambda acc: acc,
            (inv_i, next_uid, *no_rows),
        )

        def put(f: jax.Array, fi: jax.Array) -> jax.Array:
            f = f.at[tp].set(jnp.where(t_player, jnp.zeros_like(f[tp]), f[tp]))
            return f.at[ip].set(jnp.where(i_player, fi, f[ip]))

        inv = Inventory(*(put(f, fi) for f, fi in zip(inv, inv_i, strict=True)))
        rows = rows.at[i].set(jnp.concatenate([gold_row.rows, loot_rows]))
        valid = valid.at[i].set(jnp.concatenate([gold_row.valid, loot_valid]))
        return n + 1, gold, inv, next_uid, rows, valid

    init = (
        jnp.zeros((), jnp.int32),
        state.ent_gold,
        inv,
        state.next_item_uid,
        jnp.zeros((E, 1 + I, 8), jnp.int32),
        jnp.zeros((E, 1 + I), bool),
    )
    count = jnp.sum(killed)
    _, gold, inv, next_uid, rows, valid = jax.lax.while_loop(lambda c: c[0] < count, hand_over, init)
    state = inv_ops.store(state, inv).replace(ent_gold=gold, next_item_uid=next_uid)
    return state, Events(rows, valid)
