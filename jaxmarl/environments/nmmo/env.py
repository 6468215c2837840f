"""A Neural-MMO-style world with its task system (Neural MMO 2.0, Suarez et al. 2023;
rules of ``nmmo`` 2.1.1).

Up to hundreds of agents forage, fight, gather, craft-free equip, trade and pursue tasks
on a generated map with scripted NPCs; each system is its own module:

- ``terrain``: the map (simplex-noise fractal, resources), drawn per episode from
  ``num_maps`` maps generated at construction;
- ``survival``: food, water, health and gathering at the start of each tick;
- ``npc``: NPC spawning, levels and behaviour;
- ``actions``: Use, Buy, Give, GiveGold, Destroy, Move, Sell, Comm; ``combat``: Attack;
- ``events``: the event log and the episode totals; ``tasks``: predicates, tasks,
  rewards and samplers;
- ``observation``: Neural MMO's observation tables and action masks.

**Agents** ``agent_0 ..`` (Neural MMO's ids ``1 ..``) spawn on the map edge with 100
health, food and water, 1 gold, level 1 in every skill. **Actions** are one
``MultiDiscrete`` vector per agent, one entry per Neural MMO action argument
(``constants.ACTION_HEADS``: Move.Direction, Attack.Style, Attack.Target, Use,
Give.InventoryItem, Give.Target, Destroy, Sell.InventoryItem, Sell.Price, Buy, GiveGold.Price,
GiveGold.Target, Comm.Token); the last index of a target/item head is its no-op. Masks:
``get_avail_actions``. **Rewards** are the task rewards (by default Neural MMO's
``TickGE`` per agent: ``1 / horizon`` per tick alive), ``-1`` on the tick an agent dies,
0 while frozen. An agent is **done** when it dies; the episode ends when every agent is
dead (termination) or at ``horizon`` ticks (truncation).

One tick runs in Neural MMO's order: NPCs decide; every entity updates (health,
gathering, food and water); actions by priority (Use, Buy, Give/GiveGold, Destroy,
Attack, Move, Sell, Comm); the dead are removed; depleted tiles respawn, listings
expire, seize targets update, NPCs respawn; then observations and task rewards.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.multi_agent_env import MultiAgentEnv
from jaxmarl.environments.nmmo import actions as act
from jaxmarl.environments.nmmo import combat, npc, rng, survival, terrain
from jaxmarl.environments.nmmo import constants as C
from jaxmarl.environments.nmmo import events as ev
from jaxmarl.environments.nmmo import observation as obs_ops
from jaxmarl.environments.nmmo import tasks as task_api
from jaxmarl.environments.nmmo.config import Config
from jaxmarl.environments.nmmo.types import State
from jaxmarl.environments.spaces import Box, Dict, MultiDiscrete, Space

OBS_TABLES = ("Tile", "Entity", "Inventory", "Market", "Communication", "Task", "CurrentTick", "AgentId")
OBS_FORMATS = ("flat", "tables")


class NeuralMMO(MultiAgentEnv):
    """Neural MMO 2.1.1's world and task system on fixed-shape arrays.

    Args:
        num_agents, map_size, map_center, num_npcs, horizon, npc_level_max,
        spawn_clusters, spawn_uniforms, terrain_log_interpolate_min, num_maps, map_seed,
        teams, immortal, seize_targets, tasks_per_agent, event_log_capacity: the world
            settings (``Config``; defaults: Neural MMO's ``config.Default``).
        preset: ``"medium"`` (Neural MMO's Default/Medium, the default) or ``"small"``
            (its Small preset); explicit keywords override the preset.
        obs_tables: the observation tables each agent observes, in order (default: all of
            ``OBS_TABLES``). Leaving out the ``Market`` (384 x 16) saves most of the
            observation's size.
        obs_format: ``"flat"`` (the default): each agent's observation is one float32
            vector concatenating its tables (``obs_layout`` gives each table's offset and
            shape, ``unflatten_obs`` splits an observation back), what the baselines'
            networks take. ``"tables"``: each agent's observation is a dict of the tables
            as Neural MMO returns them (int16 tables, float32 ``Task``, int32
            ``CurrentTick`` and ``AgentId``; a ``Dict`` observation space), half the bytes
            and no concatenation, for networks that encode each table on its own.
        task_sampler: where each episode's tasks come from: a sampler
            (``tasks.uniform([...])``, ``tasks.learning_progress([...])``), a list of
            task specs or predicates (sampled uniformly), their data form for YAML
            configs (``tasks.sampler_from_data``: ``[{CountEvent: {event: EAT_FOOD,
            n: 2}}, ...]``), or ``None`` for Neural MMO's default ``TickGE`` task.

    Raises:
        ValueError: invalid world settings or task specifications (see ``Config``).
    """

    obs_from_state: ClassVar[bool] = True
    episode_metrics: ClassVar[dict[str, str]] = {
        "tasks_completed": "sum",
        "survivors": "last",
        "task_progress": "last",
    }

    def __init__(
        self,
        preset: str = "medium",
        task_sampler: Any = None,
        obs_tables: tuple[str, ...] = OBS_TABLES,
        obs_format: str = "flat",
        **settings: Any,
    ) -> None:
        if obs_format not in OBS_FORMATS:
            raise ValueError(f"NeuralMMO: obs_format must be one of {list(OBS_FORMATS)}, got {obs_format!r}")
        presets: dict[str, Callable[..., Config]] = {"medium": Config, "small": Config.small}
        if preset not in presets:
            raise ValueError(f"NeuralMMO: preset must be one of {sorted(presets)}, got {preset!r}")
        fields = set(Config.__dataclass_fields__)
        unknown = sorted(set(settings) - fields)
        if unknown:
            raise TypeError(
                f"NeuralMMO got unexpected keyword(s) {unknown}; accepted: preset, task_sampler, obs_tables, "
                "obs_format, "
                f"{sorted(fields)}"
            )
        if "teams" in settings and settings["teams"] is not None:
            settings["teams"] = tuple(tuple(int(a) for a in team) for team in settings["teams"])
        if "seize_targets" in settings:
            settings["seize_targets"] = tuple((int(r), int(c)) for r, c in settings["seize_targets"])
        config = presets[preset](**settings) if preset == "small" else Config(**settings)
        super().__init__(num_agents=config.num_agents)
        self.config = config
        self.agents = [f"agent_{i}" for i in range(config.num_agents)]
        self.max_steps = config.horizon
        self.sampler = _as_sampler(task_sampler)
        self.task_table = task_api.compile_tasks(self.sampler.specs, config)

        embed = config.tasks_per_agent * self.task_table.embedding.shape[-1]
        shapes = {
            "Tile": (obs_ops.WINDOW**2, 3),
            "Entity": (C.PLAYER_N_OBS, len(C.ENTITY_COLUMNS)),
            "Inventory": (C.INVENTORY_CAPACITY, len(C.ITEM_COLUMNS)),
            "Market": (C.MARKET_N_OBS, len(C.ITEM_COLUMNS)),
            "Communication": (C.COMMUNICATION_N_OBS, 4),
            "Task": (embed,),
            "CurrentTick": (),
            "AgentId": (),
        }
        tables = tuple(obs_tables)
        bad = [t for t in tables if t not in shapes]
        if bad or not tables or len(set(tables)) != len(tables):
            raise ValueError(
                f"NeuralMMO: obs_tables must be distinct names from {list(shapes)}, got {list(tables)}"
            )
        self.obs_layout: dict[str, tuple[int, tuple[int, ...]]] = {}
        offset = 0
        for name in tables:
            self.obs_layout[name] = (offset, shapes[name])
            offset += int(np.prod(shapes[name], dtype=np.int64))
        self.obs_format = obs_format
        space: Space = Box(-np.inf, np.inf, (offset,), jnp.float32)
        if obs_format == "tables":
            space = Dict({name: _table_space(name, shapes[name]) for name in tables})
        self.observation_spaces = {a: space for a in self.agents}
        self.action_spaces = {a: MultiDiscrete(C.ACTION_NVEC) for a in self.agents}
        self.maps = terrain.generate_maps(config)
        centre = config.map_size // 2
        self._centre = (centre, centre, config.map_center // 2)
        edge = _edge_tiles(config)
        self._edge = jnp.asarray(edge)

    # ------------------------------------------------------------------ API
    def noop_action(self, agent: str) -> jax.Array:
        return jnp.asarray(C.NOOP_ACTION, jnp.int32)

    def reset_env(self, key: jax.Array) -> tuple[dict[str, jax.Array], State]:
        cfg = self.config
        P, _N, E = cfg.num_agents, cfg.num_npcs, cfg.num_entities
        k_map, k_spawn, k_npc, k_task = jax.random.split(key, 4)
        maps = jnp.asarray(self.maps)
        tile = maps[jax.random.randint(k_map, (), 0, cfg.num_maps)].astype(jnp.int32)
        spawn = self._edge[jax.random.permutation(k_spawn, self._edge.shape[0])[:P]]
        pos = jnp.zeros((E, 2), jnp.int32).at[:P].set(spawn)
        is_player = jnp.arange(E) < P
        zeros = jnp.zeros(E, jnp.int32)
        inv = jnp.zeros((P, C.INVENTORY_CAPACITY), jnp.int32)
        T = cfg.tasks_per_agent
        state = State(
            tile=tile,
            tile_base=tile,
            ent_id=jnp.where(is_player, jnp.arange(1, E + 1), 0).astype(jnp.int32),
            ent_alive=is_player,
            ent_pos=pos,
            ent_spawn_pos=pos,
            ent_health=jnp.where(is_player, C.BASE_HEALTH, 0).astype(jnp.int32),
            ent_food=jnp.where(is_player, C.RESOURCE_BASE, 0).astype(jnp.int32),
            ent_water=jnp.where(is_player, C.RESOURCE_BASE, 0).astype(jnp.int32),
            ent_gold=jnp.where(is_player, C.EXCHANGE_BASE_GOLD, 0).astype(jnp.int32),
            ent_time_alive=zeros,
            ent_freeze=zeros,
            ent_damage=zeros,
            ent_attacker=jnp.full(E, -1, jnp.int32),
            ent_latest_combat_tick=zeros,
            ent_message=zeros,
            ent_level=jnp.where(is_player[:, None], C.BASE_LEVEL, 0) * jnp.ones((E, C.NUM_SKILLS), jnp.int32),
            ent_exp=jnp.zeros((E, C.NUM_SKILLS), jnp.int32),
            ent_item_level=zeros,
            ent_exploration=zeros,
            ent_immortal=is_player & cfg.immortal,
            npc_type=zeros,
            npc_style=zeros,
            npc_offense=zeros,
            npc_defense=zeros,
            npc_drops=jnp.zeros((E, 2), jnp.int32),
            npc_target=jnp.full(E, -1, jnp.int32),
            npc_danger=jnp.full(E, -1.0, jnp.float32),
            next_npc_id=jnp.array(-1, jnp.int32),
            inv_type=inv,
            inv_level=inv,
            inv_quantity=inv,
            inv_equipped=jnp.zeros((P, C.INVENTORY_CAPACITY), bool),
            inv_price=inv,
            inv_listed_tick=inv,
            inv_uid=inv,
            next_item_uid=jnp.array(1, jnp.int32),
            task_index=jnp.zeros((P, T), jnp.int32),
            task_progress=jnp.zeros((P, T), jnp.float32),
            task_completed_tick=jnp.full((P, T), -1, jnp.int32),
            task_timer=jnp.zeros((P, T), jnp.int32),
            event_counts=jnp.zeros((P, C.NUM_EVENT_CODES), jnp.int32),
            item_events=jnp.zeros((P, len(C.ITEM_EVENTS), C.NUM_ITEM_TYPES, C.LEVEL_MAX + 1), jnp.int32),
            hits=jnp.zeros((P, 3), jnp.int32),
            kills=jnp.zeros((P, 2, C.LEVEL_MAX + 1), jnp.int32),
            gold_events=jnp.zeros((P, 3), jnp.int32),
            event_log=jnp.zeros((cfg.log_capacity, 8), jnp.int32),
            event_log_count=jnp.array(0, jnp.int32),
            seize_owner=jnp.full(len(cfg.seize_targets), -1, jnp.int32),
            seize_tick=jnp.zeros(len(cfg.seize_targets), jnp.int32),
            died_this_tick=jnp.zeros(P, bool),
            step=jnp.array(0, jnp.int32),
            **obs_ops.unobserved_rows(cfg),  # set below
        )
        state = npc.spawn(k_npc, cfg, state)
        state = self.assign_tasks(state, self._sample_tasks(k_task))
        state = obs_ops.with_observed_rows(cfg, state)
        return self.get_obs(state), state

    def _sample_tasks(self, key: jax.Array) -> jax.Array:
        if isinstance(self.sampler, task_api.LearningProgressCurriculum):
            return self.sampler.sample(self.sampler.init(), key, self.config)
        return self.sampler.sample(key, self.config)

    def assign_tasks(self, state: State, task_index: jax.Array) -> State:
        """``state`` holding the tasks ``task_index`` (``(P, T)`` rows of the env's task
        table, e.g. drawn by a curriculum's ``sample``) with fresh progress. Use it on a
        reset state: ``env.step(key, state, actions, reset_state=env.assign_tasks(s, idx))``
        makes the next episode pursue them."""
        task_index = jnp.asarray(task_index, jnp.int32)
        progress, completed_tick, timer = task_api.reset_slots(task_index)
        return state.replace(
            task_index=task_index,
            task_progress=progress,
            task_completed_tick=completed_tick,
            task_timer=timer,
        )

    def step_env(
        self, key: jax.Array, state: State, actions: dict[str, jax.Array]
    ) -> tuple[dict[str, jax.Array], State, dict[str, jax.Array], dict[str, jax.Array], dict[str, Any]]:
        cfg = self.config
        P = cfg.num_agents
        a = jnp.stack([jnp.asarray(actions[agent], jnp.int32) for agent in self.agents])
        k_npc, k_update, k_buy, k_combat, k_tiles, k_spawn = jax.random.split(key, 6)

        # What the agents saw: their action arguments index these rows.
        seen, market = state.obs_entities, state.obs_market
        start_uid = state.inv_uid

        def entity_arg(head: int) -> jax.Array:
            idx = a[:, head]
            picked = jnp.take_along_axis(seen, jnp.minimum(idx, C.PLAYER_N_OBS - 1)[:, None], -1)[:, 0]
            return jnp.where(idx < C.PLAYER_N_OBS, picked, -1)

        npc_move, npc_attack, npc_target = npc.decide(k_npc, cfg, state)
        state = state.replace(npc_target=state.npc_target.at[P:].set(npc_target))
        state, batches = survival.update_entities(k_update, cfg, state)
        state, used = act.use(state, P, a[:, C.H_USE])
        state, bought = act.buy(k_buy, state, P, market, start_uid, a[:, C.H_BUY])
        state, given = act.give(
            state,
            P,
            start_uid,
            a[:, C.H_GIVE_ITEM],
            entity_arg(C.H_GIVE_TARGET),
            a[:, C.H_GOLD_PRICE] + 1,
            entity_arg(C.H_GOLD_TARGET),
        )
        state, destroyed = act.destroy(state, P, start_uid, a[:, C.H_DESTROY])
        target = jnp.concatenate([entity_arg(C.H_ATTACK_TARGET), npc_attack])
        style = jnp.concatenate([jnp.clip(a[:, C.H_ATTACK_STYLE], 0, 2), state.npc_style[P:]])
        state, fought = combat.resolve(k_combat, P, state, target, style)
        state, moved = act.move(state, self._centre, P, jnp.concatenate([a[:, C.H_MOVE], npc_move]))
        state, listed = act.sell(state, P, start_uid, a[:, C.H_SELL_ITEM], a[:, C.H_SELL_PRICE] + 1)
        state = act.comm(state, P, a[:, C.H_COMM])
        state, culled = self._cull(state)
        state = self._end_of_tick(k_tiles, state)
        state, seized = self._seize(state)
        state = npc.spawn(k_spawn, cfg, state)
        state = ev.record(
            state, [*batches, *used, bought, given, destroyed, fought, moved, listed, culled, seized], P
        )

        context = task_api.task_context(state, cfg)
        progress = task_api.evaluate(self.task_table, state, cfg, context)
        task_reward, task_progress, completed_tick, timer = task_api.update(self.task_table, state, progress)
        newly_done = (completed_tick >= 0) & (state.task_completed_tick < 0)
        alive = state.ent_alive[:P]
        frozen = state.ent_freeze[:P] > 0
        reward = jnp.where(alive & ~frozen, task_reward, 0.0)
        reward = jnp.where(state.died_this_tick, -1.0, reward)
        state = state.replace(
            task_progress=task_progress, task_completed_tick=completed_tick, task_timer=timer
        )

        state = obs_ops.with_observed_rows(cfg, state)
        obs = self.get_obs(state)
        rewards = {agent: reward[i] for i, agent in enumerate(self.agents)}
        dones = {agent: ~alive[i] for i, agent in enumerate(self.agents)}
        dones["__all__"] = ~jnp.any(alive)
        slots = P * cfg.tasks_per_agent
        info = {
            "metrics": {
                "tasks_completed": jnp.sum(newly_done).astype(jnp.float32) / slots,
                "survivors": jnp.mean(alive.astype(jnp.float32)),
                "task_progress": jnp.mean(task_progress),
            }
        }
        return obs, state, rewards, dones, info

    def get_obs(self, state: State) -> dict[str, Any]:
        P = self.config.num_agents
        rows = task_api.embed(self.task_table, state.task_index)
        flat_format = self.obs_format == "flat"
        # The flat format gathers the Entity rows as float32, the dtype it concatenates in.
        entity_dtype = jnp.float32 if flat_format else jnp.int16
        batched = obs_ops.observe(
            self.config, state, rows.reshape(P, -1), tuple(self.obs_layout), entity_dtype
        )
        if not flat_format:
            return {agent: {name: x[i] for name, x in batched.items()} for i, agent in enumerate(self.agents)}
        flat = jnp.concatenate(
            [batched[name].reshape(P, -1).astype(jnp.float32) for name in self.obs_layout], -1
        )
        return {agent: flat[i] for i, agent in enumerate(self.agents)}

    def unflatten_obs(self, obs: jax.Array) -> dict[str, jax.Array]:
        """Split flat observations ``(..., obs_dim)`` into Neural MMO's tables
        (``obs_layout``): ``Task`` stays float32, the rest become int32."""
        if self.obs_format != "flat":
            raise ValueError(
                "NeuralMMO.unflatten_obs splits flat observations; this env has "
                f"obs_format={self.obs_format!r}, whose observations are the tables already"
            )
        out = {}
        for name, (start, shape) in self.obs_layout.items():
            size = int(np.prod(shape, dtype=np.int64))
            part = obs[..., start : start + size].reshape(obs.shape[:-1] + shape)
            out[name] = part if name == "Task" else part.astype(jnp.int32)
        return out

    def get_avail_actions(self, state: State) -> dict[str, jax.Array]:
        masks = obs_ops.action_masks(self.config, state)
        return {agent: masks[i] for i, agent in enumerate(self.agents)}

    def get_global_state(self, state: State) -> jax.Array:
        """The entity table (every player's and NPC's Neural MMO row, ``(E * 31,)``) and
        the tick, as float32."""
        table = obs_ops.entity_table(state).astype(jnp.float32).reshape(-1)
        return jnp.concatenate([table, state.step[None].astype(jnp.float32)])

    def render(self, state: State, size: int = 640) -> jax.Array:
        """The map and its entities as an RGB ``uint8`` image whose side is ``size // map_size``
        pixels per tile (``viewer.render``); pure JAX, so it vmaps over states."""
        from jaxmarl.environments.nmmo.viewer import render

        return render(self.config, state, size)

    # ------------------------------------------------------------------ helpers
    def _cull(self, state: State) -> tuple[State, ev.Events]:
        """Remove the dead: players' items are destroyed (unless looted) and their
        ``AGENT_CULLED`` event recorded; NPC slots free up for respawning."""
        P = self.config.num_agents
        dead = state.ent_alive & (state.ent_health <= 0)
        player_dead = dead[:P]
        wipe = player_dead[:, None]
        state = state.replace(
            ent_alive=state.ent_alive & ~dead,
            npc_target=jnp.where(dead, -1, state.npc_target),
            died_this_tick=player_dead,
            inv_type=jnp.where(wipe, 0, state.inv_type),
            inv_level=jnp.where(wipe, 0, state.inv_level),
            inv_quantity=jnp.where(wipe, 0, state.inv_quantity),
            inv_equipped=jnp.where(wipe, False, state.inv_equipped),
            inv_price=jnp.where(wipe, 0, state.inv_price),
            inv_listed_tick=jnp.where(wipe, 0, state.inv_listed_tick),
            inv_uid=jnp.where(wipe, 0, state.inv_uid),
        )
        return state, ev.events(player_dead, state.ent_id[:P], state.step + 1, C.AGENT_CULLED)

    def _end_of_tick(self, key: jax.Array, state: State) -> State:
        """The tick advances; depleted tiles respawn; listings older than 3 ticks expire."""
        step = state.step + 1
        depleted = state.tile != state.tile_base
        grows = rng.uniform(rng.hashed_bits(key, state.tile.shape)) < jnp.asarray(C.RESPAWN_PROB)[state.tile]
        tile = jnp.where(depleted & grows, state.tile_base, state.tile)
        expired = (state.inv_price > 0) & (step - state.inv_listed_tick > C.LISTING_DURATION)
        return state.replace(step=step, tile=tile, inv_price=jnp.where(expired, 0, state.inv_price))

    def _seize(self, state: State) -> tuple[State, ev.Events]:
        """Seize targets (Neural MMO's ``Tile.update_seize``): a lone player on the tile
        seizes it unless its team already holds it."""
        cfg = self.config
        P = cfg.num_agents
        if not cfg.seize_targets:
            return state, ev.events(jnp.zeros(0, bool), 0, 0, C.SEIZE_TILE)
        targets = jnp.asarray(cfg.seize_targets, jnp.int32)
        alive = state.ent_alive
        on = alive[None, :] & jnp.all(state.ent_pos[None, :, :] == targets[:, None, :], -1)
        lone = jnp.sum(on, -1) == 1
        who = jnp.argmax(on, -1)
        team = jnp.asarray(cfg.team_of)
        holder = state.seize_owner
        same_team = (holder >= 0) & (team[jnp.clip(who, 0, P - 1)] == team[jnp.maximum(holder, 0)])
        seizes = lone & (who < P) & ~same_team
        owner = jnp.where(seizes, who, holder)
        tick = jnp.where(seizes, state.step, state.seize_tick)
        batch = ev.events(
            seizes,
            state.ent_id[jnp.clip(who, 0, P - 1)],
            state.step + 1,
            C.SEIZE_TILE,
            0,
            0,
            targets[:, 0],
            targets[:, 1],
        )
        return state.replace(seize_owner=owner, seize_tick=tick), batch


def _table_space(name: str, shape: tuple[int, ...]) -> Box:
    """The space of one table in the ``"tables"`` observation format."""
    if name == "Task":
        return Box(-np.inf, np.inf, shape, jnp.float32)
    if name in ("CurrentTick", "AgentId"):
        return Box(0, np.iinfo(np.int32).max, shape, jnp.int32)
    info = np.iinfo(np.int16)
    return Box(info.min, info.max, shape, jnp.int16)


def _as_sampler(task_sampler: Any) -> Any:
    """The env's sampler: Neural MMO's default task, a list of specs drawn uniformly, or
    a sampler or curriculum as given."""
    if task_sampler is None:
        return task_api.default_sampler()
    if isinstance(task_sampler, (task_api.UniformSampler, task_api.LearningProgressCurriculum)):
        return task_sampler
    if isinstance(task_sampler, (task_api.TaskSpec, task_api.Expr)):
        return task_api.uniform(task_sampler)
    if isinstance(task_sampler, (list, tuple, Mapping)):  # specs, or their data form (YAML)
        return task_api.sampler_from_data(task_sampler)
    raise TypeError(
        "NeuralMMO: task_sampler must be None, a list of TaskSpecs or predicates, tasks.uniform(...), "
        "tasks.learning_progress(...) or their data form (jaxmarl.environments.nmmo.tasks.data), got "
        f"{type(task_sampler).__name__}"
    )


def _edge_tiles(config: Config) -> np.ndarray:
    """Neural MMO's ``get_edge_tiles``: the spawn ring, side by side (corners twice)."""
    left, right = config.border, config.map_center + config.border
    inc = list(range(config.border, config.map_center + config.border))
    sides = (
        [(left, i) for i in inc]
        + [(i, right) for i in inc]
        + [(right, i) for i in inc[::-1]]
        + [(i, left) for i in inc[::-1]]
    )
    return np.array(sides, np.int32)
