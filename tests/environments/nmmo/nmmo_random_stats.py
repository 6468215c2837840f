"""Random-policy statistics of our Neural-MMO-style world, in the form the nmmo 2.1.1
oracle worker (``tests/oracles/nmmo_oracle_worker.py``) reports them, so the two compare
directly: survival curve, events per alive agent-step, hits by style, harvests by item,
kills by victim kind, and predicate progress at the end of each episode.

The policy is the worker's: every alive agent picks each action head uniformly among the
entries its mask allows. Episodes run ``horizon`` steps without automatic reset, vmapped.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.nmmo import NeuralMMO, tasks
from jaxmarl.environments.nmmo import constants as C
from jaxmarl.environments.nmmo import observation as obs_ops

EVENTS = [
    "EAT_FOOD",
    "DRINK_WATER",
    "GO_FARTHEST",
    "SCORE_HIT",
    "PLAYER_KILL",
    "FIRE_AMMO",
    "CONSUME_ITEM",
    "GIVE_ITEM",
    "DESTROY_ITEM",
    "HARVEST_ITEM",
    "EQUIP_ITEM",
    "LOOT_ITEM",
    "GIVE_GOLD",
    "LIST_ITEM",
    "EARN_GOLD",
    "BUY_ITEM",
    "LOOT_GOLD",
    "LEVEL_UP",
    "AGENT_CULLED",
]


def predicates(horizon: int) -> dict[str, tasks.Expr]:
    """The worker's predicates, by its names."""
    return {
        "CountEvent_EAT_FOOD_5": tasks.CountEvent("EAT_FOOD", 5),
        "CountEvent_DRINK_WATER_5": tasks.CountEvent("DRINK_WATER", 5),
        "AttainSkill_Fishing_2": tasks.AttainSkill("fishing", 2, 1),
        "HarvestItem_Whetstone_1_1": tasks.HarvestItem("Whetstone", 1, 1),
        "TickGE_half_horizon": tasks.TickGE(horizon // 2),
        "StayAlive": tasks.StayAlive(),
    }


def random_actions(env: NeuralMMO, key: jax.Array, state) -> jax.Array:
    """``(P, heads)`` actions: each head uniform over the entries its mask allows."""
    masks = obs_ops.action_masks(env.config, state)
    score = jnp.where(masks, jax.random.gumbel(key, masks.shape), -jnp.inf)
    bounds = np.concatenate([[0], np.cumsum(C.ACTION_NVEC)])
    return jnp.stack(
        [jnp.argmax(score[:, bounds[h] : bounds[h + 1]], -1) for h in range(len(C.ACTION_NVEC))], -1
    ).astype(jnp.int32)


def run(episodes: int, seed: int = 0, **settings) -> dict:
    """Play ``episodes`` random episodes of ``NeuralMMO(preset="small", **settings)``."""
    specs = predicates(settings.get("horizon", 128))
    env = NeuralMMO(preset="small", task_sampler=list(specs.values()), **settings)
    cfg = env.config
    P, H = cfg.num_agents, cfg.horizon

    def episode(key: jax.Array) -> dict:
        k_reset, k_play = jax.random.split(key)
        _, state = env.reset_env(k_reset)

        def tick(state, key):
            k_act, k_step = jax.random.split(key)
            acting = jnp.sum(state.ent_alive[:P])
            a = random_actions(env, k_act, state)
            _, state, *_ = env.step_env(k_step, state, {ag: a[i] for i, ag in enumerate(env.agents)})
            return state, (acting, jnp.sum(state.ent_alive[:P]))

        state, (acting, alive) = jax.lax.scan(tick, state, jax.random.split(k_play, H))
        ctx = tasks.task_context(state, cfg)
        agents = jnp.repeat(jnp.arange(P), len(specs))
        spec = jnp.tile(jnp.arange(len(specs)), P)
        progress = tasks.progress_of(env.task_table, state, cfg, ctx, agents, spec).reshape(P, len(specs))
        harvest = state.item_events[:, C.ITEM_EVENTS.index(C.HARVEST_ITEM)].sum((0, 2))
        return {
            "alive_agent_steps": jnp.sum(acting),
            "survival": jnp.concatenate([jnp.array([P]), alive]) / P,
            "events": state.event_counts.sum(0),
            "hits": state.hits.sum(0),
            "harvest": harvest,
            "kills": state.kills.sum((0, 2)),
            "progress": progress,
        }

    out = jax.jit(jax.vmap(episode))(jax.random.split(jax.random.PRNGKey(seed), episodes))
    out = jax.tree.map(np.asarray, out)
    names = list(specs)
    per_episode = []
    for e in range(episodes):
        steps = int(out["alive_agent_steps"][e])
        per_episode.append(
            {
                "alive_agent_steps": steps,
                "survival": out["survival"][e].tolist(),
                "events": {n: int(out["events"][e][C.EVENT_CODES[n]]) for n in EVENTS},
                "events_by_type": {
                    "SCORE_HIT": {str(s + 1): int(out["hits"][e][s]) for s in range(3)},
                    "HARVEST_ITEM": {str(t): int(out["harvest"][e][t]) for t in range(C.NUM_ITEM_TYPES)},
                    "PLAYER_KILL": {"npc": int(out["kills"][e][0]), "player": int(out["kills"][e][1])},
                },
                "progress_mean": {n: float(out["progress"][e][:, i].mean()) for i, n in enumerate(names)},
            }
        )
    steps = sum(ep["alive_agent_steps"] for ep in per_episode)
    return {
        "survival": out["survival"].mean(0).tolist(),
        "alive_agent_steps": steps,
        "events_per_agent_step": {n: sum(ep["events"][n] for ep in per_episode) / steps for n in EVENTS},
        "per_episode": per_episode,
        "progress": {n: {"mean": float(out["progress"][:, :, i].mean())} for i, n in enumerate(names)},
    }
