"""The built-in predicates of Neural MMO 2.1.1 (``nmmo/task/base_predicates.py``) in JAX.

Every function here has one signature::

    fn(gs: GameView, subject: (P,) bool, ia: (NI,) int32, fa: (NF,) float32,
       target: (P,) bool) -> () float32

``gs`` reads the ``State``, the per-step ``TaskContext`` and the static ``Config``;
``subject`` is the group the predicate is about (Neural MMO's ``subject`` ``Group``);
``ia``/``fa`` are the leaf's integer and float arguments in the layout listed on each
function; ``target`` is the leaf's target group (empty where unused). The value is
Neural MMO's ``_evaluate``; the caller clips it to ``[0, 1]`` as ``Predicate.__call__``
does. Several Neural MMO predicates share one function here (the five item-event
predicates, the three gold-event predicates, the three seize predicates, CanSeeAgent and
CanSeeGroup) with an argument telling them apart, so a compiled table dispatches over
fewer branches.

Neural MMO semantics kept on purpose: entity and item data (health, position, skills,
gold, inventory) come only from alive members (Neural MMO deletes dead rows), events
(``event_counts``, ``item_events``, ``hits``, ``kills``, ``gold_events``) from every member,
dead or alive, and ``len(subject)`` counts every member. Where Neural MMO reads an
agent's observation (CanSeeTile, CanSeeAgent, CanSeeGroup, InventorySpaceGE) the state
equivalent is used: the ``15 x 15`` window around each alive member (``TaskContext``).
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp

from jaxmarl.environments.nmmo import constants as K
from jaxmarl.environments.nmmo.tasks.context import GameView

PredicateFn = Callable[[GameView, jax.Array, jax.Array, jax.Array, jax.Array], jax.Array]

F32 = jnp.float32
_BIG = 1 << 20

# Modes of the shared gold predicate (``ia[0]``).
GOLD_EARN, GOLD_SPEND, GOLD_PROFIT = 0, 1, 2


def _f(x: jax.Array | float | int) -> jax.Array:
    return jnp.asarray(x, F32)


def _members(gs: GameView, subject: jax.Array) -> jax.Array:
    """Subject members whose entity rows exist (alive)."""
    return subject & gs.alive


def _healthy(gs: GameView, subject: jax.Array) -> jax.Array:
    """``subject.health > 0`` over the subject's (alive) entity rows."""
    return _members(gs, subject) & (gs.state.ent_health[: gs.num_agents] > 0)


def _min_linf(gs: GameView, members: jax.Array, row: jax.Array, col: jax.Array) -> jax.Array:
    """Smallest L-inf distance from a member to ``(row, col)`` (huge when nobody)."""
    pos = gs.ctx.pos
    d = jnp.maximum(jnp.abs(pos[:, 0] - row), jnp.abs(pos[:, 1] - col))
    return jnp.where(members, d, _BIG).min()


def success(gs: GameView, subject: jax.Array, ia: jax.Array, fa: jax.Array, target: jax.Array) -> jax.Array:
    """Success: 1."""
    return _f(1.0)


def tick_ge(gs: GameView, subject: jax.Array, ia: jax.Array, fa: jax.Array, target: jax.Array) -> jax.Array:
    """TickGE, ``ia = [num_tick]``: ``tick / num_tick``."""
    return _f(gs.tick) / _f(ia[0])


def stay_alive(
    gs: GameView, subject: jax.Array, ia: jax.Array, fa: jax.Array, target: jax.Array
) -> jax.Array:
    """StayAlive: 1 if ``count(health > 0)`` over alive members equals ``len(subject)``."""
    return _f(_healthy(gs, subject).sum() == subject.sum())


def all_dead(gs: GameView, subject: jax.Array, ia: jax.Array, fa: jax.Array, target: jax.Array) -> jax.Array:
    """AllDead: ``1 - count_nonzero(health of alive members) / len(subject)``."""
    nonzero = (_members(gs, subject) & (gs.state.ent_health[: gs.num_agents] != 0)).sum()
    return 1.0 - _f(nonzero) / _f(jnp.maximum(subject.sum(), 1))


def check_agent_status(
    gs: GameView, subject: jax.Array, ia: jax.Array, fa: jax.Array, target: jax.Array
) -> jax.Array:
    """CheckAgentStatus, ``ia = [status]`` (0 alive, 1 dead): share of targets alive/dead."""
    n = _f(jnp.maximum(target.sum(), 1))
    n_alive = _f((target & gs.alive).sum())
    return jnp.where(ia[0] == 0, n_alive / n, (n - n_alive) / n)


def occupy_tile(
    gs: GameView, subject: jax.Array, ia: jax.Array, fa: jax.Array, target: jax.Array
) -> jax.Array:
    """OccupyTile, ``ia = [row, col]``: 1 if an alive member stands on the tile."""
    pos = gs.ctx.pos
    on = (pos[:, 0] == ia[0]) & (pos[:, 1] == ia[1])
    return _f((_members(gs, subject) & on).any())


def can_see(gs: GameView, subject: jax.Array, ia: jax.Array, fa: jax.Array, target: jax.Array) -> jax.Array:
    """CanSeeAgent and CanSeeGroup: 1 if an alive member sees an (alive) target agent.

    Neural MMO reads the members' entity observations; here ``TaskContext.sees_agent``.
    """
    seen = gs.ctx.sees_agent & _members(gs, subject)[:, None] & target[None, :]
    return _f(seen.any())


def can_see_tile(
    gs: GameView, subject: jax.Array, ia: jax.Array, fa: jax.Array, target: jax.Array
) -> jax.Array:
    """CanSeeTile, ``ia = [material]``: 1 if an alive member's window holds the material."""
    seen = gs.ctx.sees_material[:, ia[0]] & _members(gs, subject)
    return _f(seen.any())


def distance_traveled(
    gs: GameView, subject: jax.Array, ia: jax.Array, fa: jax.Array, target: jax.Array
) -> jax.Array:
    """DistanceTraveled, ``ia = [dist]``: summed L-inf distance from spawn over alive
    members ``/ dist``; 0 if no member has ``health > 0``."""
    P = gs.num_agents
    d = jnp.abs(gs.ctx.pos - gs.state.ent_spawn_pos[:P]).max(axis=-1)
    total = jnp.where(_members(gs, subject), d, 0).sum()
    return jnp.where(_healthy(gs, subject).any(), _f(total) / _f(ia[0]), 0.0)


def attain_skill(
    gs: GameView, subject: jax.Array, ia: jax.Array, fa: jax.Array, target: jax.Array
) -> jax.Array:
    """AttainSkill, ``ia = [skill, level, num_agent]``: 1 if ``level <= 1``, else
    ``sum(member level - 1) / (num_agent * (level - 1))`` over alive members."""
    levels = gs.state.ent_level[: gs.num_agents, ia[0]]
    total = jnp.where(_members(gs, subject), levels - 1, 0).sum()
    denom = _f(ia[2]) * _f(jnp.maximum(ia[1] - 1, 1))
    return jnp.where(ia[1] <= 1, 1.0, _f(total) / denom)


def gain_experience(
    gs: GameView, subject: jax.Array, ia: jax.Array, fa: jax.Array, target: jax.Array
) -> jax.Array:
    """GainExperience, ``ia = [skill, experience, num_agent]``: summed experience of alive
    members ``/ (experience * num_agent)``."""
    exp = gs.state.ent_exp[: gs.num_agents, ia[0]]
    total = jnp.where(_members(gs, subject), exp, 0).sum()
    return _f(total) / (_f(ia[1]) * _f(ia[2]))


def count_event(
    gs: GameView, subject: jax.Array, ia: jax.Array, fa: jax.Array, target: jax.Array
) -> jax.Array:
    """CountEvent, ``ia = [event_code, N]``: members' events of that code ``/ N``."""
    counts = gs.state.event_counts[:, ia[0]]
    return _f(jnp.where(subject, counts, 0).sum()) / _f(ia[1])


def score_hit(gs: GameView, subject: jax.Array, ia: jax.Array, fa: jax.Array, target: jax.Array) -> jax.Array:
    """ScoreHit, ``ia = [style, N]`` (style 0 melee, 1 range, 2 mage): members' hits ``/ N``."""
    hits = gs.state.hits[:, ia[0]]
    return _f(jnp.where(subject, hits, 0).sum()) / _f(ia[1])


def defeat_entity(
    gs: GameView, subject: jax.Array, ia: jax.Array, fa: jax.Array, target: jax.Array
) -> jax.Array:
    """DefeatEntity, ``ia = [kind, level, num_agent]`` (kind 0 NPC, 1 player): members'
    kills of that kind at victim level ``>= level``, ``/ num_agent`` (1 if ``num_agent <= 0``)."""
    kills = gs.state.kills[:, ia[0], :]  # (P, 11)
    levels = jnp.arange(kills.shape[-1])
    total = jnp.where(subject[:, None] & (levels >= ia[1])[None, :], kills, 0).sum()
    return jnp.where(ia[2] > 0, _f(total) / _f(jnp.maximum(ia[2], 1)), 1.0)


def item_event(
    gs: GameView, subject: jax.Array, ia: jax.Array, fa: jax.Array, target: jax.Array
) -> jax.Array:
    """ConsumeItem, HarvestItem, FireAmmo, ListItem, BuyItem,
    ``ia = [event_slot, item_type, level, quantity]`` (``event_slot`` indexes
    ``constants.ITEM_EVENTS``): members' summed ``number`` of those events for the item at
    level ``>= level``, ``/ quantity``."""
    events = gs.state.item_events[:, ia[0], ia[1], :]  # (P, 11)
    levels = jnp.arange(events.shape[-1])
    total = jnp.where(subject[:, None] & (levels >= ia[2])[None, :], events, 0).sum()
    return _f(total) / _f(ia[3])


def gold(gs: GameView, subject: jax.Array, ia: jax.Array, fa: jax.Array, target: jax.Array) -> jax.Array:
    """EarnGold, SpendGold, MakeProfit, ``ia = [mode, amount]``: members' gold earned
    (EARN_GOLD + LOOT_GOLD), spent (BUY_ITEM) or earned minus spent, ``/ amount``."""
    ev = jnp.where(subject[:, None], gs.state.gold_events, 0).sum(axis=0)
    earned, spent = ev[0] + ev[1], ev[2]
    value = jnp.where(ia[0] == GOLD_EARN, earned, jnp.where(ia[0] == GOLD_SPEND, spent, earned - spent))
    return _f(value) / _f(ia[1])


def hoard_gold(
    gs: GameView, subject: jax.Array, ia: jax.Array, fa: jax.Array, target: jax.Array
) -> jax.Array:
    """HoardGold, ``ia = [amount]``: alive members' gold ``/ amount``."""
    held = jnp.where(_members(gs, subject), gs.state.ent_gold[: gs.num_agents], 0).sum()
    return _f(held) / _f(ia[0])


def inventory_space_ge(
    gs: GameView, subject: jax.Array, ia: jax.Array, fa: jax.Array, target: jax.Array
) -> jax.Array:
    """InventorySpaceGE, ``ia = [space]``: 1 if every alive member has at least ``space``
    free slots (1 when no member is alive: Neural MMO's ``all`` over no observation)."""
    ok = (K.INVENTORY_CAPACITY - gs.ctx.inv_count >= ia[0]) | ~_members(gs, subject)
    return _f(ok.all())


def own_item(gs: GameView, subject: jax.Array, ia: jax.Array, fa: jax.Array, target: jax.Array) -> jax.Array:
    """OwnItem, ``ia = [item_type, level, quantity]``: summed quantity of the item at level
    ``>= level`` in alive members' inventories ``/ quantity``."""
    s = gs.state
    rows = _members(gs, subject)[:, None] & (s.inv_type == ia[0]) & (s.inv_level >= ia[1])
    return _f(jnp.where(rows, s.inv_quantity, 0).sum()) / _f(ia[2])


def equip_item(
    gs: GameView, subject: jax.Array, ia: jax.Array, fa: jax.Array, target: jax.Array
) -> jax.Array:
    """EquipItem, ``ia = [item_type, level, num_agent]``: equipped matching items of alive
    members ``/ num_agent`` (1 if ``num_agent <= 0``)."""
    s = gs.state
    rows = _members(gs, subject)[:, None] & (s.inv_type == ia[0]) & (s.inv_level >= ia[1]) & s.inv_equipped
    return jnp.where(ia[2] > 0, _f(rows.sum()) / _f(jnp.maximum(ia[2], 1)), 1.0)


def fully_armed(
    gs: GameView, subject: jax.Array, ia: jax.Array, fa: jax.Array, target: jax.Array
) -> jax.Array:
    """FullyArmed, ``ia = [style, level, num_agent]``: alive members with hat, top,
    bottom, the style's weapon and ammunition all equipped at level ``>= level``,
    ``/ num_agent`` (1 if ``num_agent <= 0``)."""
    s = gs.state
    t = s.inv_type
    kit = (t == K.HAT) | (t == K.TOP) | (t == K.BOTTOM) | (t == K.SPEAR + ia[0]) | (t == K.WHETSTONE + ia[0])
    rows = _members(gs, subject)[:, None] & kit & s.inv_equipped & (s.inv_level >= ia[1])
    armed = (rows.sum(axis=1) >= 5).sum()
    return jnp.where(ia[2] > 0, _f(armed) / _f(jnp.maximum(ia[2], 1)), 1.0)


def progress_toward_center(
    gs: GameView, subject: jax.Array, ia: jax.Array, fa: jax.Array, target: jax.Array
) -> jax.Array:
    """ProgressTowardCenter: ``1 - d / (center - border)``, ``d`` the smallest L-inf
    distance of an alive member to the centre tile ``map_size // 2``; 0 if none alive."""
    cfg = gs.config
    center = cfg.map_size // 2
    members = _members(gs, subject)
    d = _min_linf(gs, members, jnp.int32(center), jnp.int32(center))
    return jnp.where(members.any(), 1.0 - _f(d) / (center - cfg.border), 0.0)


def all_members_within_range(
    gs: GameView, subject: jax.Array, ia: jax.Array, fa: jax.Array, target: jax.Array
) -> jax.Array:
    """AllMembersWithinRange, ``ia = [dist]``: 1 if the alive members' L-inf spread is
    ``<= dist``; else the mean of ``(map_center - spread) / (map_center - dist)`` and, per
    axis, ``dist / max(3 std, dist)`` (population std; taken as 1 where ``3 std <= dist``,
    which differs from Neural MMO only for its ``0 / 0 = nan`` at ``dist = std = 0``);
    0 if ``dist < 0`` or nobody is alive."""
    members = _members(gs, subject)
    dist = ia[0]
    pos = gs.ctx.pos
    n = _f(jnp.maximum(members.sum(), 1))

    def spread_std(x: jax.Array) -> tuple[jax.Array, jax.Array]:
        spread = jnp.where(members, x, -_BIG).max() - jnp.where(members, x, _BIG).min()
        mean = jnp.where(members, x, 0).sum() / n
        var = jnp.where(members, (_f(x) - mean) ** 2, 0.0).sum() / n
        return spread, jnp.sqrt(var)

    r_spread, r_std = spread_std(pos[:, 0])
    c_spread, c_std = spread_std(pos[:, 1])
    spread = jnp.maximum(r_spread, c_spread)
    max_dist = gs.config.map_center
    dist_f = _f(dist)

    def sd_score(std: jax.Array) -> jax.Array:
        return jnp.where(3.0 * std <= dist_f, 1.0, dist_f / jnp.maximum(3.0 * std, 1e-30))

    max_dist_score = _f(max_dist - spread) / _f(jnp.where(max_dist == dist, 1, max_dist - dist))
    bonus = (max_dist_score + sd_score(r_std) + sd_score(c_std)) / 3.0
    value = jnp.where(spread <= dist, 1.0, bonus)
    return jnp.where((dist >= 0) & members.any(), value, 0.0)


def seize_tile(
    gs: GameView, subject: jax.Array, ia: jax.Array, fa: jax.Array, target: jax.Array
) -> jax.Array:
    """SeizeTile, SeizeCenter, SeizeQuadCenter, ``ia = [row, col, num_ticks, k]`` (``k``
    indexes ``Config.seize_targets``), ``fa = [progress_bonus, seize_bonus]``.

    0 if no alive member has ``health > 0``. If the tile's holder is a member (dead or
    alive): ``progress_bonus + seize_bonus + (1 - both) * (tick - seize_tick) / num_ticks``.
    Otherwise ``progress_bonus * (1 - d / (map_center // 2))``, ``d`` the smallest L-inf
    distance of an alive member to the tile.
    """
    s = gs.state
    row, col, num_ticks, k = ia[0], ia[1], ia[2], ia[3]
    progress_bonus, seize_bonus = fa[0], fa[1]
    owner = s.seize_owner[k]
    held = (owner >= 0) & subject[jnp.maximum(owner, 0)]
    duration = _f(gs.tick - s.seize_tick[k])
    hold_bonus = (1.0 - progress_bonus - seize_bonus) * duration / _f(num_ticks)
    seized = progress_bonus + seize_bonus + hold_bonus
    d = _min_linf(gs, _members(gs, subject), row, col)
    approach = progress_bonus * (1.0 - _f(d) / (gs.config.map_center // 2))
    return jnp.where(_healthy(gs, subject).any(), jnp.where(held, seized, approach), 0.0)


def protect_leader(
    gs: GameView, subject: jax.Array, ia: jax.Array, fa: jax.Array, target: jax.Array
) -> jax.Array:
    """ProtectLeader (target = ``target_protect``): ``tick / horizon`` while the target
    is alive, else 0."""
    return jnp.where((target & gs.alive).any(), _f(gs.tick) / gs.config.horizon, 0.0)
