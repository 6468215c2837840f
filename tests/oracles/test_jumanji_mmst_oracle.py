"""MMST against Jumanji 1.1.2's ``MMST``: for many keys, the same instance from the same
reset key, then the same joint actions for a whole episode (``time_limit`` steps), every
step: per-agent observations, action masks, rewards, terminations, extras, and the state
(positions, paths, visited nodes, finished flags, step count, key), exactly.

Actions are random legal ones (Jumanji's mask) mixed with uniformly random nodes, so
invalid choices, tie-breaks, revisits and finished agents' choices are all exercised.
Each configuration runs both environments in one ``jit(vmap(scan))``."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxmarl.environments.jumanji.mmst import MMST, DenseRewardFn, SplitRandomGenerator

pytest.importorskip("jumanji", reason="the jumanji 1.1.2 oracle is in the test extra")
from fast_compile import parity_jit
from jumanji.environments.routing.mmst.env import MMST as TheirMMST
from jumanji.environments.routing.mmst.generator import SplitRandomGenerator as TheirGenerator
from jumanji.environments.routing.mmst.reward import DenseRewardFn as TheirReward

pytestmark = [pytest.mark.oracle, pytest.mark.xdist_group("jumanji_mmst_oracle")]

CONFIGS = {
    # Jumanji's MMST-v0.
    "default": dict(generator={}, reward=(10.0, -1.0, -1.0), time_limit=70, seeds=48),
    # Two agents on a small graph with blocks of unequal sizes (7 and 6 nodes; contested
    # nodes are frequent), other rewards, and a path buffer shorter than the episode
    # (moves past it are not recorded).
    "small_short_buffer": dict(
        generator=dict(
            num_nodes=13, num_edges=20, max_degree=3, num_agents=2, num_nodes_per_agent=3, max_step=6
        ),
        reward=(5.0, -0.5, -2.0),
        time_limit=30,
        seeds=64,
    ),
}
DEFAULT_GENERATOR = dict(num_nodes=36, num_edges=72, max_degree=5, num_agents=3, num_nodes_per_agent=4)


def pair(generator: dict, reward: tuple, time_limit: int) -> tuple[TheirMMST, MMST]:
    kwargs = {**DEFAULT_GENERATOR, "max_step": time_limit, **generator}
    theirs = TheirMMST(TheirGenerator(**kwargs), TheirReward(reward), time_limit=time_limit)
    ours = MMST(SplitRandomGenerator(**kwargs), DenseRewardFn(reward), time_limit=time_limit)
    return theirs, ours


def their_views(node_types: np.ndarray, connected_index: np.ndarray, num_agents: int) -> np.ndarray:
    """Jumanji's ``_state_to_observation`` node types, written out for every ``agent_id``
    (Jumanji only returns agent 0's). ``(..., N)``, ``(..., A, N)`` -> ``(..., A, N)``."""
    views = []
    for agent_id in range(num_agents):
        view = (node_types - agent_id) % num_agents * 2 + 1
        view = view * (node_types != -1) - (node_types == -1)
        for agent in range(num_agents):
            connected = connected_index[..., agent, :] != -1
            view = view * ~connected + 2 * ((agent - agent_id) % num_agents) * connected
        views.append(view)
    return np.stack(views, axis=-2)


def rollout(theirs: TheirMMST, ours: MMST, seeds: int, steps: int):
    A, N = ours.num_agents, ours.num_nodes

    def episode(key: jax.Array):
        reset_key, action_key = jax.random.split(key)
        t_state, t_step = theirs.reset(reset_key)
        o_obs, o_state = ours.reset_env(reset_key)

        def one(carry, key):
            t_state, t_step, o_state = carry
            legal_key, any_key, mix_key = jax.random.split(key, 3)
            mask = t_step.observation.action_mask
            logits = jnp.where(mask | ~jnp.any(mask, axis=1, keepdims=True), 0.0, -jnp.inf)
            legal = jax.random.categorical(legal_key, logits)
            anything = jax.random.randint(any_key, (A,), 0, N)
            action = jnp.where(jax.random.uniform(mix_key, (A,)) < 0.25, anything, legal).astype(jnp.int32)
            o_masks = ours.get_avail_actions(o_state)
            t_state, t_step = theirs.step(t_state, action)
            o_obs, o_state, o_rew, o_term, o_info = ours.step_env(
                key, o_state, {a: action[i] for i, a in enumerate(ours.agents)}
            )
            record = dict(
                their_mask=mask,
                our_mask=jnp.stack([o_masks[a] for a in ours.agents]),
                their_obs=t_step.observation,
                their_reward=t_step.reward,
                their_discount=t_step.discount,
                their_extras=t_step.extras,
                their_state=t_state,
                our_obs=jnp.stack([o_obs[a] for a in ours.agents]),
                our_reward=jnp.stack([o_rew[a] for a in ours.agents]),
                our_terminated=jnp.stack([o_term[a] for a in [*ours.agents, "__all__"]]),
                our_metrics=o_info["metrics"],
                our_shares=jnp.stack([o_info["agent_reward"][a] for a in ours.agents]),
                finished_before=o_state.mask_finished,
                our_state=o_state,
            )
            return (t_state, t_step, o_state), record

        first = dict(
            their_node_types=t_step.observation.node_types,
            our_obs=jnp.stack([o_obs[a] for a in ours.agents]),
            their_state=t_state,
            our_state=o_state,
        )
        _, records = jax.lax.scan(one, (t_state, t_step, o_state), jax.random.split(action_key, steps))
        return first, records

    keys = jax.random.split(jax.random.PRNGKey(7), seeds)
    run = parity_jit(jax.vmap(episode))
    return jax.device_get(run(keys))


def split_obs(obs: np.ndarray, A: int, N: int) -> dict[str, np.ndarray]:
    """Our observation vectors ``(..., A, obs_size)`` cut into the documented fields."""
    return dict(
        node_types=obs[..., :N],
        position=obs[..., N],
        positions=obs[..., N + 1 : N + 1 + A],
        adj_matrix=obs[..., N + 1 + A : N + 1 + A + N * N],
        time=obs[..., -1],
    )


@pytest.mark.parametrize("name", list(CONFIGS))
def test_episodes_match_jumanji(name: str) -> None:
    cfg = CONFIGS[name]
    theirs, ours = pair(cfg["generator"], cfg["reward"], cfg["time_limit"])
    A, N, T = ours.num_agents, ours.num_nodes, cfg["time_limit"]
    first, rec = rollout(theirs, ours, cfg["seeds"], T)
    assert ours.obs_size == 2 + A + N + N * N

    # ---- reset: the same instance
    ts, os_ = first["their_state"], first["our_state"]
    np.testing.assert_array_equal(os_.node_types, ts.node_types)
    np.testing.assert_array_equal(os_.adj_matrix, ts.adj_matrix.astype(bool))
    np.testing.assert_array_equal(os_.nodes_to_connect, ts.nodes_to_connect)
    np.testing.assert_array_equal(os_.path, ts.connected_nodes)
    np.testing.assert_array_equal(os_.positions, ts.positions)
    np.testing.assert_array_equal(os_.key, ts.key)
    obs0 = split_obs(first["our_obs"], A, N)
    np.testing.assert_array_equal(obs0["node_types"][:, 0], first["their_node_types"])
    np.testing.assert_array_equal(obs0["node_types"], their_views(ts.node_types, ts.connected_nodes_index, A))

    # ---- every step
    ts, os_ = rec["their_state"], rec["our_state"]
    np.testing.assert_array_equal(os_.positions, ts.positions)
    np.testing.assert_array_equal(os_.path, ts.connected_nodes)
    np.testing.assert_array_equal(os_.path_index, ts.position_index)
    np.testing.assert_array_equal(os_.visited, ts.connected_nodes_index != -1)
    np.testing.assert_array_equal(os_.finished, ts.finished_agents)
    np.testing.assert_array_equal(os_.step, ts.step_count)
    np.testing.assert_array_equal(os_.key, ts.key)

    # Observations: our agent i's vector against Jumanji's fields, node types seen by i.
    obs, t_obs = split_obs(rec["our_obs"], A, N), rec["their_obs"]
    np.testing.assert_array_equal(obs["node_types"][:, :, 0], t_obs.node_types)
    np.testing.assert_array_equal(obs["node_types"], their_views(ts.node_types, ts.connected_nodes_index, A))
    np.testing.assert_array_equal(obs["position"], t_obs.positions)
    np.testing.assert_array_equal(
        obs["positions"], np.broadcast_to(t_obs.positions[:, :, None, :], obs["positions"].shape)
    )
    adj = t_obs.adj_matrix.reshape(*t_obs.adj_matrix.shape[:2], 1, N * N)
    np.testing.assert_array_equal(obs["adj_matrix"], np.broadcast_to(adj, obs["adj_matrix"].shape))
    time = np.asarray(t_obs.step_count, np.float32) * np.float32(1 / T)  # step_count / time_limit
    np.testing.assert_array_equal(obs["time"], np.broadcast_to(time[..., None], (*t_obs.step_count.shape, A)))

    # Masks: Jumanji's rows; an empty row becomes the agent's own node.
    their_mask, our_mask = rec["their_mask"], rec["our_mask"]
    empty = ~their_mask.any(-1)
    np.testing.assert_array_equal(our_mask[~empty], their_mask[~empty])
    positions_before = np.concatenate([first["our_state"].positions[:, None], os_.positions[:, :-1]], axis=1)
    stay = np.eye(N, dtype=bool)[positions_before]
    np.testing.assert_array_equal(our_mask[empty], stay[empty])

    # Rewards: Jumanji's scalar to every agent.
    np.testing.assert_allclose(
        rec["our_reward"],
        np.broadcast_to(rec["their_reward"][..., None], rec["our_reward"].shape),
        atol=1e-6,
        rtol=0,
    )

    # Ends: terminated = all finished; Jumanji's discount 0 = that or the time limit.
    all_finished = ts.finished_agents.all(-1)
    np.testing.assert_array_equal(
        rec["our_terminated"], np.broadcast_to(all_finished[..., None], rec["our_terminated"].shape)
    )
    time_up = ts.step_count >= T
    np.testing.assert_array_equal(rec["their_discount"] == 0, all_finished | time_up)

    # Extras.
    for k in ("num_connections", "ratio_connections"):
        np.testing.assert_allclose(rec["our_metrics"][k], rec["their_extras"][k], atol=1e-6, rtol=0)

    # The quirks the mixed actions must have reached, so the test covers them.
    assert empty.any(), "no empty mask row"
    assert all_finished.any(), "no episode where every agent finished"
    assert ((rec["our_shares"] == 0) & ~rec["finished_before"]).any(), "no tie-break"
    np.testing.assert_allclose(rec["our_shares"].sum(-1), rec["their_reward"], atol=1e-5, rtol=0)
