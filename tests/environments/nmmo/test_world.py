"""Rules of the Neural-MMO-style world on tiny hand-built states (4 players, 2 NPC slots,
an 8 x 8 playable grass field inside a void border): each test sets a situation, plays
one step and checks exact numbers against Neural MMO 2.1.1's formulas."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from fast_compile import jit as fast_jit

import jaxmarl
from jaxmarl.environments.nmmo import NeuralMMO
from jaxmarl.environments.nmmo import constants as C
from jaxmarl.environments.nmmo.tasks.testing import make_state

SETTINGS = dict(
    num_agents=4, num_npcs=2, map_size=24, map_center=8, horizon=50, spawn_clusters=1, spawn_uniforms=2
)
P, E = 4, 6
MID = 12  # the map centre row; the field spans rows and cols 8..16
A0 = (MID, 10)  # agent 0; agent i stands at (MID, 10 + 2 * i)


@pytest.fixture(scope="module")
def env():
    return NeuralMMO(**SETTINGS)


@pytest.fixture(scope="module")
def step(env):
    return fast_jit(env.step_env)


def noop():
    return np.tile(np.asarray(C.NOOP_ACTION, np.int32), (P, 1))


def play(env, step, state, actions=None, seed=0):
    actions = noop() if actions is None else actions
    acts = {a: jnp.asarray(actions[i]) for i, a in enumerate(env.agents)}
    return step(jax.random.PRNGKey(seed), state, acts)


def world(env, **fields):
    """A state with agent i at (MID, 10 + 2 i), grown up (past spawn immunity)."""
    pos = np.array([[MID, 10 + 2 * i] for i in range(P)] + [[9, 9], [9, 9]], np.int32)
    fields.setdefault("ent_pos", pos)
    fields.setdefault("ent_time_alive", np.full(E, 30, np.int32))
    fields.setdefault("task_index", np.zeros((P, 1), np.int32))
    return make_state(env.config, **fields)


def items(*entries: tuple) -> dict[str, np.ndarray]:
    """Inventory fields holding ``(agent, slot, type, level, quantity, uid[, equipped[, price]])``
    entries (every other slot empty), for ``world``."""
    fields = {
        name: np.zeros((P, 12), np.int32) for name in ("inv_type", "inv_level", "inv_quantity", "inv_uid")
    }
    fields |= {"inv_equipped": np.zeros((P, 12), bool), "inv_price": np.zeros((P, 12), np.int32)}
    for agent, slot, type_, level, quantity, uid, *rest in entries:
        fields["inv_type"][agent, slot], fields["inv_level"][agent, slot] = type_, level
        fields["inv_quantity"][agent, slot], fields["inv_uid"][agent, slot] = quantity, uid
        if rest:
            fields["inv_equipped"][agent, slot] = rest[0]
        if len(rest) > 1:
            fields["inv_price"][agent, slot] = rest[1]
    return fields


def set_tiles(env, changes):
    tile = np.array(make_state(env.config).tile)
    for (r, c), m in changes.items():
        tile[r, c] = m
    return {"tile": tile, "tile_base": tile.copy()}


def test_eating_refills_food_depletes_the_foliage_and_the_lowest_id_wins(env, step):
    pos = np.array([A0, A0, [MID, 13], [MID, 14], [9, 9], [9, 9]], np.int32)
    food = np.array([50, 50, 50, 0, 0, 0], np.int32)
    state = world(env, ent_pos=pos, ent_food=food, **set_tiles(env, {A0: C.FOLIAGE}))
    _, new, *_ = play(env, step, state)
    # Agent 0 eats (50 - 5, then refilled to 100); agent 1 on the same tile finds scrub.
    assert np.asarray(new.ent_food[:P]).tolist() == [100, 45, 45, 0]
    assert int(new.tile[A0]) in (C.SCRUB, C.FOLIAGE)  # respawns with p = 0.025
    assert np.asarray(new.event_counts[:, C.EAT_FOOD]).tolist() == [1, 0, 0, 0]


def test_drinking_next_to_water_and_starvation_damage(env, step):
    water = np.array([40, 0, 60, 100, 0, 0], np.int32)
    food = np.array([100, 0, 60, 30, 0, 0], np.int32)
    health = np.array([100, 50, 50, 50, 0, 0], np.int32)
    state = world(
        env, ent_water=water, ent_food=food, ent_health=health, **set_tiles(env, {(MID - 1, 10): C.WATER})
    )
    _, new, *_ = play(env, step, state)
    # Agent 0 drinks (water back to 100). Agent 1 starves: -10 for food, -10 for water.
    # Agent 2 (food and water above half) regenerates 10. Agent 3 (food 30) neither.
    assert np.asarray(new.ent_water[:P]).tolist() == [100, 0, 55, 95]
    assert np.asarray(new.ent_health[:P]).tolist() == [100, 30, 60, 50]
    assert np.asarray(new.event_counts[:, C.DRINK_WATER]).tolist() == [1, 0, 0, 0]


def test_fishing_harvests_every_adjacent_fish_for_one_leveled_ration(env, step):
    tiles = set_tiles(env, {(MID - 1, 10): C.FISH, (MID + 1, 10): C.FISH})
    state = world(
        env,
        **items((0, 0, C.ROD, 3, 1, 1, True)),
        next_item_uid=np.array(2, np.int32),
        **tiles,
    )
    _, new, *_ = play(env, step, state)
    # Both fish tiles turn into ocean (barring a 2% respawn); one ration, level 1 + rod level.
    assert int(new.inv_type[0, 1]) == C.RATION and int(new.inv_level[0, 1]) == 4
    assert int(new.ent_exp[0, C.FISHING]) == C.CONSUMABLE_XP
    assert int(new.item_events[0, C.ITEM_EVENTS.index(C.HARVEST_ITEM), C.RATION, 4]) == 1
    assert {int(new.tile[MID - 1, 10]), int(new.tile[MID + 1, 10])} <= {C.OCEAN, C.FISH}


def test_a_contested_resource_goes_to_the_lowest_id(env, step):
    # Agents 0 and 1 both stand next to the fish at (MID, 11); agents 2 and 3 share an
    # ore tile. Neural MMO's players update in id order, so the first in each pair takes it.
    pos = np.array([A0, [MID, 12], [MID, 14], [MID, 14], [9, 9], [9, 9]], np.int32)
    tiles = set_tiles(env, {(MID, 11): C.FISH, (MID, 14): C.ORE})
    state = world(env, ent_pos=pos, next_item_uid=np.array(1, np.int32), **tiles)
    _, new, *_ = play(env, step, state)
    harvests = np.asarray(new.event_counts[:, C.HARVEST_ITEM]).tolist()
    assert harvests == [1, 0, 1, 0]
    assert int(new.inv_type[0, 0]) == C.RATION and int(new.inv_type[2, 0]) == C.WHETSTONE
    assert np.asarray(new.ent_exp[:P, C.FISHING]).tolist() == [C.CONSUMABLE_XP, 0, 0, 0]
    assert int(new.tile[MID, 11]) in (C.OCEAN, C.FISH) and int(new.tile[MID, 14]) in (C.SLAG, C.ORE)
    # Only the taken tiles change.
    changed = np.argwhere(np.asarray(new.tile) != np.asarray(state.tile)).tolist()
    assert changed in ([[MID, 11], [MID, 14]], [[MID, 11]], [[MID, 14]], [])


def _attack(target_row: int, style: int) -> np.ndarray:
    actions = noop()
    actions[0, C.H_ATTACK_STYLE] = style
    actions[0, C.H_ATTACK_TARGET] = target_row
    return actions


def test_damage_follows_neural_mmos_formula_with_weakness_and_equipment(env, step):
    # A level-2 spear adds 5 + 5 * 2 melee attack; a level-2 hat 3 * 2 defense.
    gear = items((0, 0, C.SPEAR, 2, 1, 1, True), (1, 0, C.HAT, 2, 1, 2, True))
    level = np.ones((E, 8), np.int32)
    level[0, C.MELEE] = 3
    level[1, C.ALCHEMY] = 4  # defense counts the highest skill
    exp = np.zeros((E, 8), np.int32)
    exp[1, C.RANGE] = 50  # main style range: melee beats it (x1.5)
    state = world(
        env,
        **gear,
        ent_level=level,
        ent_exp=exp,
    )
    # Agent 1 is agent 0's second Entity row (rows: itself, then agent 1).
    _, new, *_ = play(env, step, state, _attack(1, C.MELEE))
    offense = 10 + 5 * 3 + (5 + 5 * 2)  # 40
    defense = 5 * 4 + 3 * 2  # 26
    damage = int(max(1.5 * offense - defense, 0.25 * offense))  # 34
    # Agent 1 also regenerates 10 health before the attack lands (capped at 100).
    assert int(new.ent_health[1]) == 100 - damage
    assert int(new.ent_exp[0, C.MELEE]) == C.COMBAT_XP
    assert int(new.hits[0, C.MELEE]) == 1
    rows = np.asarray(new.event_log)[: int(new.event_log_count)]
    hit = rows[rows[:, 2] == C.SCORE_HIT]
    assert hit.tolist() == [[1, 1, C.SCORE_HIT, 1, 0, damage, 0, 2]]


def test_spawn_immunity_protects_young_players_from_players(env, step):
    state = world(env, ent_time_alive=np.array([30, 5, 30, 30, 30, 30], np.int32))
    _, new, *_ = play(env, step, state, _attack(1, C.RANGE))
    # time_alive counts this tick too: 6 < 20, so the attack is void.
    assert int(new.ent_health[1]) == 100 and int(new.hits.sum()) == 0


def test_actions_name_the_entity_rows_the_agents_were_shown(env, step):
    """An attack target is a row of the ``Entity`` table the agent was shown
    (``state.obs_entities``), not of one listed again from the state at the step."""
    state = world(env)
    shown = np.array(state.obs_entities)
    assert shown[0, :4].tolist() == [0, 1, 2, 3]  # itself, then agents 1, 2, 3 by id
    # Shown in another order: row 2 was agent 1 (2 tiles away), row 1 agent 2 (4 away,
    # beyond melee reach). Attacking row 2 hits agent 1.
    shown[0, 1:3] = [2, 1]
    state = state.replace(obs_entities=jnp.asarray(shown))
    _, new, *_ = play(env, step, state, _attack(2, C.MELEE))
    assert int(new.hits[0, C.MELEE]) == 1 and int(new.ent_health[1]) < 100
    assert int(new.ent_health[2]) == 100


def test_the_shown_rows_are_the_observation_of_every_state(env, step):
    """After ``reset``, ``make_state`` and every step, ``obs_entities``/``obs_market``
    list the visible entities and the market as computed from the state, and the
    observation's ``Entity`` and ``Market`` tables hold exactly those rows."""
    from jaxmarl.environments.nmmo.observation import entity_table, market_rows, visible_entities

    _, reset = env.reset(jax.random.PRNGKey(3))
    np.testing.assert_array_equal(np.asarray(reset.obs_entities), visible_entities(env.config, reset))
    state = world(env, **items((0, 0, C.RATION, 1, 1, 1), (2, 0, C.POTION, 1, 1, 2)))
    sells = noop()
    sells[:, C.H_SELL_ITEM], sells[:, C.H_SELL_PRICE] = 0, 4
    for t in range(3):  # a built state, then after steps 1 and 2
        seen = np.asarray(visible_entities(env.config, state))
        np.testing.assert_array_equal(np.asarray(state.obs_entities), seen, err_msg=f"tick {t}")
        market = np.asarray(market_rows(env.config, state))
        np.testing.assert_array_equal(np.asarray(state.obs_market), market, err_msg=f"tick {t}")
        tables = env.unflatten_obs(jnp.stack(list(env.get_obs(state).values())))
        rows = np.asarray(entity_table(state))
        expect = np.where((seen >= 0)[..., None], rows[np.maximum(seen, 0)], 0)
        alive = np.asarray(state.ent_alive[:P])[:, None, None]
        entity = np.asarray(tables["Entity"])
        np.testing.assert_array_equal(entity, np.where(alive, expect, 0), err_msg=f"tick {t}")
        uids = np.asarray(state.inv_uid).reshape(-1)  # Market column 0 is the item's id
        listed = np.where(market >= 0, uids[np.maximum(market, 0)], 0)
        shown_uids = np.asarray(tables["Market"])[..., 0]
        np.testing.assert_array_equal(shown_uids, np.where(alive[..., 0], listed, 0), err_msg=f"tick {t}")
        _, state, *_ = play(env, step, state, sells, seed=t)
    assert int((np.asarray(state.obs_market) >= 0).sum()) > 0  # the sells were listed and shown


def test_communication_lists_the_living_team_mates_in_id_order():
    """``Communication`` rows: ``(id, row, col, message)`` of the observer's living team
    mates (itself included) in id order, zero rows after; nobody from another team."""
    teams = NeuralMMO(**SETTINGS, teams=((0, 2, 3), (1,)))
    messages = np.array([5, 6, 7, 8, 0, 0], np.int32)
    alive = np.array([True, True, False, True, False, False])
    state = world(teams, ent_message=messages, ent_alive=alive)
    comm = np.asarray(teams.unflatten_obs(jnp.stack(list(teams.get_obs(state).values())))["Communication"])
    assert comm.shape == (P, 32, 4)
    col = 10 + 2 * np.arange(P)
    for observer, mates in {0: [0, 3], 1: [1], 3: [0, 3]}.items():
        expect = [[m + 1, MID, col[m], messages[m]] for m in mates]
        assert comm[observer, : len(mates)].tolist() == expect, observer
        assert not comm[observer, len(mates) :].any(), observer
    assert not comm[2].any()  # dead: zeros


def test_the_tables_format_holds_the_flat_observation_as_neural_mmos_tables(env):
    """``obs_format="tables"``: each agent observes a dict of Neural MMO's tables (int16;
    ``Task`` float32; the scalars int32) in a ``Dict`` space, with exactly the numbers of
    the flat observation, at reset, after a step with items listed, and after the step
    that ends the episode (through the automatic reset)."""
    tables = NeuralMMO(**SETTINGS, obs_format="tables")
    space = tables.observation_space("agent_0")
    dtypes = {name: sub.dtype for name, sub in space.spaces.items()}
    assert dtypes == {name: np.dtype(np.int16) for name in ("Tile", "Entity", "Inventory", "Market")} | {
        "Communication": np.dtype(np.int16),
        "Task": np.dtype(np.float32),
        "CurrentTick": np.dtype(np.int32),
        "AgentId": np.dtype(np.int32),
    }

    flat_obs = fast_jit(env.get_obs)

    def check(obs, state, when):
        flat = env.unflatten_obs(jnp.stack([flat_obs(state)[a] for a in env.agents]))
        for i, agent in enumerate(tables.agents):
            assert set(obs[agent]) == set(dtypes), when
            assert bool(space.contains(obs[agent])), when
            for name, table in obs[agent].items():
                assert table.dtype == dtypes[name], (when, name)
                np.testing.assert_array_equal(table, flat[name][i], err_msg=f"{when} {agent} {name}")

    obs, state = fast_jit(tables.reset)(jax.random.PRNGKey(4))
    check(obs, state, "reset")
    step = fast_jit(tables.step)
    state = world(env, **items((0, 0, C.RATION, 1, 1, 1), (2, 0, C.POTION, 2, 1, 2)))
    sells = noop()
    sells[:, C.H_SELL_ITEM], sells[:, C.H_SELL_PRICE] = 0, 4
    for t, at in enumerate([0, tables.max_steps - 1]):  # a step, then the episode's last
        acts = {a: jnp.asarray(sells[i]) for i, a in enumerate(tables.agents)}
        obs, new, _, done, info = step(jax.random.PRNGKey(t), state.replace(step=jnp.int32(at)), acts)
        assert bool(done["__all__"]) == (t == 1)
        check(obs, new, f"step {t}")
        check(info["final_obs"], info["final_state"], f"final obs {t}")
        if t == 0:
            assert np.asarray(obs["agent_0"]["Market"]).any()  # the sells are shown
        state = new
    with pytest.raises(ValueError, match="tables already"):
        tables.unflatten_obs(obs["agent_0"])


def test_a_kill_loots_gold_and_items_and_ends_the_victims_episode(env, step):
    loot = items((1, 0, C.RATION, 2, 1, 1), (1, 1, C.ARROW, 1, 5, 2))
    gold = np.array([1, 7, 1, 1, 0, 0], np.int32)
    health = np.array([100, 5, 100, 100, 0, 0], np.int32)
    state = world(
        env,
        **loot,
        ent_gold=gold,
        ent_health=health,
        ent_food=np.full(E, 10, np.int32),
        next_item_uid=np.array(3, np.int32),
    )
    _, new, reward, done, _ = play(env, step, state, _attack(1, C.MAGE))
    assert not bool(new.ent_alive[1]) and bool(done["agent_1"]) and float(reward["agent_1"]) == -1.0
    assert int(new.ent_gold[0]) == 8
    got = sorted(
        zip(np.asarray(new.inv_type[0]).tolist(), np.asarray(new.inv_quantity[0]).tolist(), strict=True)
    )
    assert [g for g in got if g[0]] == [(C.ARROW, 5), (C.RATION, 1)]
    assert int(new.inv_type[1].sum()) == 0
    assert int(new.kills[0, 1, 1]) == 1  # a player of attack level 1
    assert int(new.event_counts[0, C.LOOT_ITEM]) == 2 and int(new.gold_events[0, 1]) == 7
    assert int(new.event_counts[1, C.AGENT_CULLED]) == 1


def test_selling_then_buying_moves_the_item_and_the_gold(env, step):
    state = world(
        env,
        **items((0, 3, C.POTION, 1, 1, 9)),
        ent_gold=np.array([1, 10, 1, 1, 0, 0], np.int32),
        next_item_uid=np.array(10, np.int32),
    )
    sell = noop()
    sell[0, C.H_SELL_ITEM], sell[0, C.H_SELL_PRICE] = 3, 4  # price 5
    _, listed, *_ = play(env, step, state, sell)
    assert int(listed.inv_price[0, 3]) == 5
    assert int(listed.item_events[0, C.ITEM_EVENTS.index(C.LIST_ITEM), C.POTION, 1]) == 1
    buy = noop()
    buy[1, C.H_BUY] = 0  # the first market row
    _, bought, *_ = play(env, step, listed, buy, seed=1)
    assert int(bought.inv_type[0, 3]) == 0 and int(bought.inv_type[1, 0]) == C.POTION
    assert np.asarray(bought.ent_gold[:2]).tolist() == [6, 5]
    assert np.asarray(bought.gold_events[:2]).tolist() == [[5, 0, 0], [0, 0, 5]]
    assert int(bought.event_counts[1, C.BUY_ITEM]) == 1 and int(bought.event_counts[0, C.EARN_GOLD]) == 1


def test_listings_expire_after_three_ticks(env, step):
    state = world(
        env,
        **items((0, 0, C.RATION, 1, 1, 1, False, 3)),
        inv_listed_tick=np.zeros((P, 12), np.int32),
        step=np.array(2, np.int32),
    )
    _, later, *_ = play(env, step, state)  # tick 3: 3 - 0 is not > 3
    assert int(later.inv_price[0, 0]) == 3
    _, later, *_ = play(env, step, later)  # tick 4: expired
    assert int(later.inv_price[0, 0]) == 0


def test_giving_an_item_and_gold_to_a_nearby_player(env, step):
    state = world(
        env,
        **items((0, 0, C.WHETSTONE, 1, 4, 1)),
        ent_gold=np.array([10, 0, 0, 0, 0, 0], np.int32),
    )
    give = noop()
    give[0, C.H_GIVE_ITEM], give[0, C.H_GIVE_TARGET] = 0, 1  # to agent 1 (entity row 1)
    give[0, C.H_GOLD_PRICE], give[0, C.H_GOLD_TARGET] = 2, 2  # 3 gold to agent 2
    _, new, *_ = play(env, step, state, give)
    assert int(new.inv_type[1, 0]) == C.WHETSTONE and int(new.inv_quantity[1, 0]) == 4
    assert int(new.inv_type[0, 0]) == 0
    assert np.asarray(new.ent_gold[:3]).tolist() == [7, 0, 3]
    assert int(new.event_counts[0, C.GIVE_ITEM]) == 1 and int(new.event_counts[0, C.GIVE_GOLD]) == 1


def test_use_equips_swaps_and_consumes(env, step):
    # The pickaxe is held; the axe would take its slot; the potion (level 2) is too high.
    state = world(
        env,
        **items((0, 0, C.PICKAXE, 1, 1, 1, True), (0, 1, C.AXE, 1, 1, 2), (1, 0, C.POTION, 2, 1, 3)),
        ent_health=np.array([100, 40, 100, 100, 0, 0], np.int32),
        ent_food=np.full(E, 40, np.int32),
    )
    use = noop()
    use[0, C.H_USE] = 1  # the axe takes the held slot from the pickaxe
    use[1, C.H_USE] = 0  # a level-2 potion: +60 health ... but level 2 > agent level 1: refused
    _, new, *_ = play(env, step, state, use)
    assert np.asarray(new.inv_equipped[0, :2]).tolist() == [False, True]
    assert int(new.event_counts[0, C.EQUIP_ITEM]) == 1
    assert int(new.inv_type[1, 0]) == C.POTION and int(new.ent_health[1]) == 40
    level = np.ones((E, 8), np.int32)
    level[1, C.FISHING] = 2
    state = state.replace(ent_level=jnp.asarray(level))
    _, new, *_ = play(env, step, state, use)
    assert int(new.inv_type[1, 0]) == 0 and int(new.ent_health[1]) == 40 + 50 + 5 * 2


def test_a_hostile_npc_attacks_a_player_in_reach(env, step):
    pos = np.array([A0, [9, 16], [16, 9], [16, 16], [MID, 12], [9, 9]], np.int32)
    alive = np.array([True, True, True, True, True, False])
    npc_type = np.array([0, 0, 0, 0, C.HOSTILE, 0], np.int32)
    offense = np.array([0, 0, 0, 0, 30, 0], np.int32)
    health = np.array([100, 100, 100, 100, 100, 0], np.int32)
    state = world(
        env,
        ent_pos=pos,
        ent_alive=alive,
        npc_type=npc_type,
        npc_offense=offense,
        ent_health=health,
        ent_id=np.array([1, 2, 3, 4, -1, 0], np.int32),
    )
    _, new, *_ = play(env, step, state)
    # Offense 30 against defense 5 * level 1: 25 damage; the NPC then steps toward it.
    assert int(new.ent_health[0]) == 75
    assert int(new.npc_target[4]) == 0
    assert np.abs(np.asarray(new.ent_pos[4]) - np.asarray(new.ent_pos[0])).max() == 1


def test_the_event_log_keeps_the_first_rows_and_counts_every_event():
    env = NeuralMMO(**SETTINGS, event_log_capacity=2)
    step = fast_jit(env.step_env)
    water = {(MID - 1, 10 + 2 * i): C.WATER for i in range(P)}
    state = world(env, ent_water=np.full(E, 50, np.int32), **set_tiles(env, water))
    _, new, *_ = play(env, step, state)
    assert int(new.event_log_count) == P  # four DRINK_WATER rows recorded ...
    assert np.asarray(new.event_log)[:, 2].tolist() == [C.DRINK_WATER] * 2  # ... two kept
    assert np.asarray(new.event_counts[:, C.DRINK_WATER]).tolist() == [1] * P


def test_default_task_rewards_one_over_horizon_per_tick(env, step):
    state = world(env, step=np.array(9, np.int32), task_progress=np.full((P, 1), 9 / 50, np.float32))
    _, new, reward, *_ = play(env, step, state)
    assert np.allclose([float(reward[a]) for a in env.agents], 1 / 50)
    assert np.allclose(np.asarray(new.task_progress[:, 0]), 10 / 50)


def test_reset_spawns_players_on_the_edge_and_npcs_by_danger():
    env = jaxmarl.make("nmmo_v0", preset="small")
    cfg = env.config
    _, state = env.reset(jax.random.PRNGKey(3))
    pos = np.asarray(state.ent_pos[: cfg.num_agents])
    lo, hi = cfg.border, cfg.border + cfg.map_center
    assert np.all((pos[:, 0] == lo) | (pos[:, 0] == hi) | (pos[:, 1] == lo) | (pos[:, 1] == hi))
    npc_alive = np.asarray(state.ent_alive[cfg.num_agents :])
    assert 0 < npc_alive.sum() <= 25
    npc_pos = np.asarray(state.ent_pos[cfg.num_agents :])[npc_alive]
    dist = np.minimum(
        np.minimum(npc_pos[:, 0] - lo, hi - 1 - npc_pos[:, 0]),
        np.minimum(npc_pos[:, 1] - lo, hi - 1 - npc_pos[:, 1]),
    )
    danger = 2 * dist / cfg.map_center
    kind = np.asarray(state.npc_type[cfg.num_agents :])[npc_alive]
    assert np.array_equal(
        kind, np.where(danger >= 0.8, C.HOSTILE, np.where(danger >= 0.5, C.NEUTRAL, C.PASSIVE))
    )
    level = np.asarray(state.ent_level[cfg.num_agents :]).max(-1)[npc_alive]
    assert np.array_equal(level, (danger * (cfg.npc_level_max - 1) + 1).astype(int))


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        (dict(num_agents=600), ValueError, "spawn tiles"),
        (dict(map_center=129), ValueError, "even"),
        (dict(map_size=140, map_center=128), ValueError, "vision radius"),
        (dict(npc_level_max=11), ValueError, "npc_level_max"),
        (dict(teams=[[0, 1], [1]]), ValueError, "partition"),
        (dict(seize_targets=[(0, 0)]), ValueError, "seize target"),
        (dict(preset="huge"), ValueError, "preset"),
        (dict(obs_tables=("Tile", "Map")), ValueError, "obs_tables"),
        (dict(obs_format="dict"), ValueError, "obs_format"),
        (dict(task_sampler=42), TypeError, "task_sampler"),
        (dict(num_agent=3), TypeError, "unexpected keyword"),
    ],
)
def test_bad_settings_raise_at_construction(kwargs, error, match):
    with pytest.raises(error, match=match):
        jaxmarl.make("nmmo_v0", **kwargs)


@pytest.mark.parametrize("shape, n", [((6, 9), 4), ((6, 9), 12), ((40,), 7), ((5, 3), 3)])
def test_first_true_lists_the_first_true_positions_in_order(shape, n):
    from jaxmarl.environments.nmmo.observation import first_true

    mask = np.random.default_rng(sum(shape) + n).random(shape) < 0.5
    rows = mask.reshape(-1, shape[-1])
    want = np.full((rows.shape[0], n), -1)
    for r, row in enumerate(rows):
        hits = np.flatnonzero(row)[:n]
        want[r, : len(hits)] = hits
    np.testing.assert_array_equal(first_true(jnp.asarray(mask), n), want.reshape(*shape[:-1], n))
