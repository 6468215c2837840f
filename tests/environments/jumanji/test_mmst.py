"""Rule tests of MMST on a hand-drawn graph (moves, closed utility nodes, tie-breaks,
revisits, Jumanji's quirks, finishing, masks, rewards, episode ends, observations), the
generator's invariants over thousands of instances, bad configurations, a user generator,
the conformance kit, and rendering.

The hand-drawn graph (8 nodes; agent 0 owns 0 and 3, agent 1 owns 4 and 7; 1, 2, 5, 6
are utility nodes)::

    0 - 1 - 2 - 3
        |   |
    4 - 5 - 6 - 7
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from fast_compile import COMPILER_OPTIONS

from jaxmarl.environments.jumanji.mmst import MMST, DenseRewardFn, SplitRandomGenerator, State, initial_state
from jaxmarl.environments.jumanji.mmst import constants as C
from jaxmarl.environments.jumanji.mmst.generator import draw_distinct
from jaxmarl.environments.jumanji.mmst.viewer import spring_layout
from jaxmarl.testing import check_env

EDGES = [(0, 1), (1, 2), (2, 3), (1, 5), (2, 6), (4, 5), (5, 6), (6, 7)]
N, A, K, T = 8, 2, 2, 6
ADJ = np.zeros((N, N), bool)
for a, b in EDGES:
    ADJ[a, b] = ADJ[b, a] = True
NODES = np.array([[0, 3], [4, 7]], np.int32)
KEY = jax.random.PRNGKey(0)


class FixedGenerator:
    """A user generator (no base class): always the hand-drawn graph."""

    num_agents, num_nodes, num_nodes_per_agent = A, N, K

    def __init__(self, max_step: int = T) -> None:
        self.max_step = max_step

    def __call__(self, key: jax.Array) -> State:
        return initial_state(jnp.asarray(ADJ), jnp.asarray(NODES), self.max_step, key)


ENV = MMST(generator=FixedGenerator(), time_limit=10)
STEP = jax.jit(ENV.step_env, compiler_options=COMPILER_OPTIONS)
MASKS = jax.jit(ENV.get_avail_actions, compiler_options=COMPILER_OPTIONS)
OBS = jax.jit(ENV.get_obs, compiler_options=COMPILER_OPTIONS)


def world(paths: list[list[int]], key: jax.Array = KEY, max_step: int = T, **changes) -> State:
    """The hand-drawn graph with each agent having walked ``paths[i]`` (from its start)."""
    state = FixedGenerator(max_step)(key)
    path = np.full((A, max_step), -1, np.int32)
    visited = np.zeros((A, N), bool)
    for i, p in enumerate(paths):
        path[i, : min(len(p), max_step)] = p[:max_step]
        visited[i, p] = True
    state = state.replace(
        path=jnp.asarray(path),
        path_index=jnp.asarray([len(p) - 1 for p in paths], jnp.int32),
        visited=jnp.asarray(visited),
        positions=jnp.asarray([p[-1] for p in paths], jnp.int32),
    )
    return state.replace(**changes)


def step(state: State, a0: int, a1: int):
    obs, new, rew, term, info = STEP(KEY, state, {"agent_0": jnp.int32(a0), "agent_1": jnp.int32(a1)})
    shares = [float(info["agent_reward"][a]) for a in ENV.agents]
    return new, float(rew["agent_0"]), shares, bool(term["__all__"]), info


def tie_winner(state: State) -> int:
    """The agent first in the step's random order."""
    _, order_key = jax.random.split(state.key)
    return int(jax.random.permutation(order_key, A)[0])


# ------------------------------------------------------------------------ moves
def test_moves_along_edges_and_rewards() -> None:
    state = world([[0], [4]])
    new, team, shares, done, _ = step(state, 1, 5)
    assert new.positions.tolist() == [1, 5]
    assert new.path[:, :2].tolist() == [[0, 1], [4, 5]]
    assert new.path_index.tolist() == [1, 1]
    assert bool(new.visited[0, 1]) and bool(new.visited[1, 5])
    assert shares == [-1.0, -1.0] and team == -2.0  # a utility node: a plain step
    assert int(new.step) == 1 and not done
    # Reaching an own node for the first time: +10.
    new, team, shares, _, _ = step(world([[0, 1, 2], [4]]), 3, 5)
    assert shares == [10.0, -1.0] and team == 9.0
    assert bool(new.finished[0]) and not bool(new.finished[1])


def test_unusable_choice_stays_with_penalty() -> None:
    state = world([[0], [4]])
    new, _, shares, _, _ = step(state, 2, 6)  # no edges 0-2 and 4-6
    assert new.positions.tolist() == [0, 4]
    assert new.path_index.tolist() == [0, 0]
    assert shares == [-2.0, -2.0]


def test_other_agents_own_nodes_stay_open() -> None:
    state = world([[0, 1, 5], [4]])  # agent 0 next to agent 1's node 4
    assert bool(MASKS(state)["agent_0"][4])
    new, _, shares, _, _ = step(state, 4, 5)  # 5 is closed to agent 1 (agent 0 stood on it)
    assert new.positions.tolist() == [4, 4]
    assert shares == [-1.0, -2.0]


def test_utility_node_is_closed_to_others_after_use() -> None:
    state = world([[0, 1, 5], [4]])  # agent 0 stood on 1 and stands on 5
    mask = MASKS(state)["agent_1"]
    assert not bool(mask[5]) and int(mask.sum()) == 1  # 5 closed: only its own node allowed
    assert bool(mask[4])  # the "stay" fallback of a boxed-in agent
    new, _, shares, _, _ = step(state, 6, 5)  # agent 1 tries 5
    assert int(new.positions[1]) == 4 and shares[1] == -2.0
    # Closed for good: agent 0 moving on does not reopen 5.
    state = world([[0, 1, 5, 6], [4]])
    assert not bool(MASKS(state)["agent_1"][5])


def test_tie_break_first_in_random_order_takes_the_node() -> None:
    adj = jnp.asarray(ADJ).at[1, 6].set(True).at[6, 1].set(True)  # 6 next to both agents
    seen = set()
    for seed in range(12):
        state = world([[0, 1], [4, 5]], key=jax.random.PRNGKey(seed)).replace(adj_matrix=adj)
        winner = tie_winner(state)
        seen.add(winner)
        new, _, shares, _, _ = step(state, 6, 6)
        loser = 1 - winner
        assert int(new.positions[winner]) == 6 and int(new.positions[loser]) == [1, 5][loser]
        assert shares[winner] == -1.0 and shares[loser] == 0.0  # a lost tie-break costs nothing
        assert bool(new.visited[winner, 6]) and not bool(new.visited[loser, 6])
    assert seen == {0, 1}


def test_revisit_moves_back_with_plain_cost() -> None:
    state = world([[0, 1, 2], [4]])
    new, _, shares, _, _ = step(state, 1, 4)  # agent 0 back to 1; agent 1 picks its own node
    assert int(new.positions[0]) == 1 and new.path[0, :4].tolist() == [0, 1, 2, 1]
    assert shares[0] == -1.0
    assert int(new.positions[1]) == 4 and shares[1] == -2.0  # own position: no self-loop


def test_quirk_unusable_choice_with_last_node_on_path_costs_less() -> None:
    # Jumanji looks an unusable choice up as node N - 1 = 7: agent 1 has 7 on its path.
    state = world([[0], [4, 5, 6, 7]])
    new, _, shares, _, _ = step(state, 2, 0)  # both unusable
    assert new.positions.tolist() == [0, 7]
    assert shares == [-2.0, -1.0]


def test_quirk_tie_break_loser_moves_onto_its_own_path() -> None:
    adj = jnp.asarray(ADJ).at[5, 7].set(True).at[7, 5].set(True)
    for seed in range(40):
        state = world([[0, 1, 2, 6, 7, 6], [4, 5]], key=jax.random.PRNGKey(seed)).replace(adj_matrix=adj)
        if tie_winner(state) == 1:
            break
    # Both choose 7 (agent 1's node, on agent 0's path); agent 1 wins and connects it;
    # agent 0 loses, but 7 is on its path, so it moves there anyway at the plain cost.
    assert tie_winner(state) == 1
    new, _, shares, _, _ = step(state, 7, 7)
    assert new.positions.tolist() == [7, 7]
    assert shares == [-1.0, 10.0]


# ---------------------------------------------------------------- finishing
def test_finishing_masks_close_one_step_late_and_termination() -> None:
    state = world([[0, 1, 2], [4, 5, 6]])
    new, team, shares, done, info = step(state, 3, 7)
    assert shares == [10.0, 10.0] and team == 20.0
    assert new.finished.tolist() == [True, True] and done
    assert bool(info["finished"]["agent_0"])
    assert info["metrics"]["num_connections"] == 2.0 and info["metrics"]["ratio_connections"] == 1.0
    # The mask still uses the flags from before this step.
    assert new.mask_finished.tolist() == [False, False]
    assert int(MASKS(new)["agent_0"].sum()) == 1 and bool(MASKS(new)["agent_0"][2])
    assert ENV.action_mask(new)[0].tolist() == ADJ[3].tolist()


def test_finished_agent_does_nothing_but_still_claims_nodes() -> None:
    adj = jnp.asarray(ADJ).at[3, 6].set(True).at[6, 3].set(True)
    for seed in range(40):
        state = world([[0, 1, 2, 3], [4, 5]], key=jax.random.PRNGKey(seed)).replace(
            adj_matrix=adj, finished=jnp.array([True, False]), mask_finished=jnp.array([True, False])
        )
        if tie_winner(state) == 0:
            break
    assert tie_winner(state) == 0
    assert ENV.action_mask(state)[0].sum() == 0
    assert MASKS(state)["agent_0"].tolist() == [i == 3 for i in range(N)]  # its own node
    # Agent 0 (finished, first in the order) picks 6 too: agent 1 loses the tie-break.
    new, team, shares, done, _ = step(state, 6, 6)
    assert new.positions.tolist() == [3, 5] and shares == [0.0, 0.0] and not done
    # Picking its own node (the mask's choice) leaves agent 1 alone.
    new, team, shares, _, _ = step(state, 3, 6)
    assert new.positions.tolist() == [3, 6] and shares == [0.0, -1.0]


def test_path_buffer_overflow_does_not_count() -> None:
    # A buffer of 3 slots: the 4th node an agent reaches is not recorded.
    state = world([[0, 1, 2], [4]], max_step=3)
    step3 = jax.jit(ENV.step_env, compiler_options=COMPILER_OPTIONS)
    _, new, rew, term, info = step3(KEY, state, {"agent_0": jnp.int32(3), "agent_1": jnp.int32(5)})
    assert int(new.positions[0]) == 3 and int(new.path_index[0]) == 3 and bool(new.visited[0, 3])
    assert new.path[0].tolist() == [0, 1, 2]
    assert float(info["agent_reward"]["agent_0"]) == 10.0  # the reward looks at the position
    assert not bool(new.finished[0])  # but finishing looks at the buffer


def test_episode_end_through_step() -> None:
    env_step = jax.jit(ENV.step, compiler_options=COMPILER_OPTIONS)
    acts = {"agent_0": jnp.int32(3), "agent_1": jnp.int32(7)}
    # Everyone finishes: termination, even on the time limit's step.
    for step_count in (0, 9):
        state = world([[0, 1, 2], [4, 5, 6]], step=jnp.int32(step_count))
        _, after, _, done, info = env_step(KEY, state, acts)
        assert bool(done["__all__"]) and not bool(info["truncated"]["agent_0"])
        assert int(after.step) == 0  # reset
    # The time limit alone: truncation.
    state = world([[0], [4]], step=jnp.int32(9))
    _, _, _, done, info = env_step(KEY, state, {"agent_0": jnp.int32(1), "agent_1": jnp.int32(5)})
    assert bool(done["__all__"]) and bool(info["truncated"]["agent_1"])
    state = world([[0], [4]], step=jnp.int32(8))
    _, _, _, done, _ = env_step(KEY, state, {"agent_0": jnp.int32(1), "agent_1": jnp.int32(5)})
    assert not bool(done["__all__"])


# ------------------------------------------------------------- observations
def test_observation_layout() -> None:
    state = world([[0, 1, 2], [4, 5]], step=jnp.int32(4))
    obs = OBS(state)
    assert ENV.obs_size == 2 + A + N + N * N
    # Agent 0: own connected 0, unconnected own 1, agent 1's (next) connected 2, unconnected 3.
    expected0 = [0, 0, 0, 1, 2, 2, -1, 3]
    expected1 = [2, 2, 2, 3, 0, 0, -1, 1]
    for agent, expected, pos in (("agent_0", expected0, 2), ("agent_1", expected1, 5)):
        o = np.asarray(obs[agent])
        assert o.dtype == np.float32 and o.shape == (ENV.obs_size,)
        assert o[:N].tolist() == expected
        assert o[N] == pos
        assert o[N + 1 : N + 1 + A].tolist() == [2, 5]
        assert o[N + 1 + A : N + 1 + A + N * N].tolist() == ADJ.reshape(-1).astype(float).tolist()
        assert o[-1] == np.float32(4) * np.float32(1 / 10)  # step / time_limit
        assert bool(ENV.observation_space(agent).contains(obs[agent]))
    # A node both stood on shows the highest agent.
    state = world([[0, 1, 5, 4], [4]])
    assert np.asarray(OBS(state)["agent_0"])[4] == 2
    gs = ENV.get_global_state(state)
    assert gs.shape == (N + A * N + 2 * A + N * N + 1,) and gs.dtype == jnp.float32
    assert gs[:N].tolist() == [0, -1, -1, 0, 1, -1, -1, 1]
    assert gs[-1] == np.float32(state.step) * np.float32(1 / 10)


# -------------------------------------------------------------- generator
def test_draw_distinct_is_jax_choice() -> None:
    ns = (2, 7, 13, 36)

    def both(key):
        ours = [draw_distinct(key, jnp.int32(n), 40, 2) for n in ns]
        theirs = [jax.random.choice(key, jnp.arange(n), (2,), replace=False) for n in ns]
        four = [draw_distinct(key, jnp.int32(n), 40, 4) for n in ns[1:3]]
        theirs4 = [jax.random.choice(key, jnp.arange(n), (4,), replace=False) for n in ns[1:3]]
        return jnp.stack(ours), jnp.stack(theirs), jnp.stack(four), jnp.stack(theirs4)

    keys = jax.random.split(KEY, 500)
    o2, t2, o4, t4 = jax.jit(jax.vmap(both), compiler_options=COMPILER_OPTIONS)(keys)
    np.testing.assert_array_equal(o2, t2)
    np.testing.assert_array_equal(o4, t4)


def test_generator_invariants_on_many_instances() -> None:
    gen = SplitRandomGenerator()
    block = np.repeat(np.arange(3), gen.block_sizes)  # node -> block

    def check(key):
        s = gen(key)
        adj = s.adj_matrix
        reach = adj | jnp.eye(36, dtype=bool)
        same_block = jnp.asarray(block)[:, None] == jnp.asarray(block)[None, :]
        inner = reach & same_block
        for _ in range(6):  # paths up to 64 edges
            reach = (reach.astype(jnp.int32) @ reach.astype(jnp.int32)) > 0
            inner = (inner.astype(jnp.int32) @ inner.astype(jnp.int32)) > 0
        nodes = s.nodes_to_connect
        starts_inner = inner[nodes[:, 0][:, None], nodes]  # each agent's nodes joined within its block
        return dict(
            symmetric=jnp.all(adj == adj.T),
            no_loops=~jnp.any(jnp.diagonal(adj)),
            connected=jnp.all(reach),
            degree=jnp.max(jnp.sum(adj, axis=1)),
            edges=jnp.sum(adj) // 2,
            solvable=jnp.all(starts_inner),
            own_block=jnp.all(jnp.asarray(block)[nodes] == jnp.arange(3)[:, None]),
            distinct=jnp.all(jnp.sort(nodes.reshape(-1))[1:] != jnp.sort(nodes.reshape(-1))[:-1]),
            types=jnp.all(s.node_types[nodes] == jnp.arange(3)[:, None]) & (jnp.sum(s.node_types >= 0) == 12),
            start=jnp.all(s.positions == nodes[:, 0]) & jnp.all(s.path[:, 0] == nodes[:, 0]),
            fresh=(s.step == 0) & ~jnp.any(s.finished) & (jnp.sum(s.visited) == 3),
        )

    out = jax.device_get(
        jax.jit(jax.vmap(check), compiler_options=COMPILER_OPTIONS)(jax.random.split(KEY, 2000))
    )
    for name in (
        "symmetric",
        "no_loops",
        "connected",
        "solvable",
        "own_block",
        "distinct",
        "types",
        "start",
        "fresh",
    ):
        assert out[name].all(), name
    assert out["degree"].max() <= gen.max_degree + 1
    assert (out["edges"] <= 72).all() and (out["edges"] >= 35).all()
    # An edge drawn again in reverse order counts twice: many graphs have fewer than 72.
    assert (out["edges"] == 72).any() and (out["edges"] < 72).any()


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(num_agents=5, num_nodes_per_agent=6), "80%"),
        (dict(num_edges=30), "between"),
        (dict(num_nodes=10, num_edges=50, num_agents=2, num_nodes_per_agent=2), "between"),
        (dict(num_edges=35), "too few"),
        (dict(num_edges=105), "too many"),
        (dict(num_edges=40, max_degree=1), "too many"),
        (dict(num_nodes_per_agent=1), "num_nodes_per_agent"),
        (dict(max_degree=0), "max_degree"),
        (dict(num_agents=True), "num_agents"),
        (dict(num_nodes=36.0), "num_nodes"),
        (dict(max_step=0), "max_step"),
    ],
)
def test_bad_generator_configurations(kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        SplitRandomGenerator(**kwargs)
    with pytest.raises(ValueError, match=match):
        MMST(**kwargs)


def test_bad_env_arguments() -> None:
    with pytest.raises(ValueError, match="time_limit"):
        MMST(time_limit=0)
    with pytest.raises(TypeError, match="generator keywords"):
        MMST(generator=FixedGenerator(), num_nodes=10)
    with pytest.raises(TypeError, match="num_nodes_per_agent"):
        MMST(generator=type("G", (), {"num_agents": 2, "num_nodes": 8, "__call__": lambda self, k: None})())
    with pytest.raises(ValueError, match="reward_values"):
        DenseRewardFn((1.0, 2.0))
    with pytest.raises(TypeError, match="reward_fn"):
        MMST(reward_fn=3)
    env = MMST(num_nodes=20, num_edges=30, num_agents=2, time_limit=15)
    assert env.generator.max_step == 15 and env.num_agents == 2 and env.action_space("agent_1").n == 20
    assert MMST(time_limit=15, max_step=5).generator.max_step == 5


def test_user_generator_and_reward_values() -> None:
    env = MMST(generator=FixedGenerator(), reward_fn=DenseRewardFn((5.0, -0.5, -2.0)), time_limit=10)
    obs, state = env.reset(KEY)
    assert state.positions.tolist() == [0, 4] and obs["agent_0"].shape == (env.obs_size,)
    _, _, rew, _, info = env.step(KEY, state, {"agent_0": jnp.int32(2), "agent_1": jnp.int32(5)})
    assert [float(info["agent_reward"][a]) for a in env.agents] == [-2.5, -0.5]
    assert float(rew["agent_0"]) == float(rew["agent_1"]) == -3.0


def test_check_env() -> None:
    check_env(MMST(time_limit=20), num_envs=8, compiler_options=COMPILER_OPTIONS)


# -------------------------------------------------------------- rendering
def test_render() -> None:
    state = world([[0, 1, 2], [4, 5]])
    size = 400
    render = jax.jit(ENV.render, static_argnums=1, compiler_options=COMPILER_OPTIONS)
    img = np.asarray(render(state, size))
    assert img.shape == (size, size, 3) and img.dtype == np.uint8
    assert jax.eval_shape(lambda s: ENV.render(s, 64), state).shape == (64, 64, 3)
    layout = np.asarray(spring_layout(jnp.asarray(ADJ), jnp.asarray(ENV.layout_start)))
    centres = np.stack([layout[:, 0] * size, (1 - layout[:, 1]) * size], axis=-1)
    radius = 0.05 * 5 / (5 + int(np.sqrt(N))) * size

    def pixel(xy):
        return img[int(xy[1]), int(xy[0])].astype(int)

    palette = np.round(ENV.palette * 255).astype(int)
    assert np.abs(pixel(centres[3]) - palette[0]).max() <= 1  # agent 0's node
    assert np.abs(pixel(centres[7]) - palette[1]).max() <= 1  # agent 1's node
    assert pixel(centres[6]).max() == 0  # utility: black
    yellow = np.round(np.array(C.RING_YELLOW) * 255)
    blue = np.round(np.array(C.RING_BLUE) * 255)
    ring = np.array([0.9 * radius, 0])
    assert np.abs(pixel(centres[2] + ring) - yellow).max() <= 1  # agent 0 stands on 2
    assert np.abs(pixel(centres[6] + ring) - blue).max() <= 1
    # Edges: 1-2 on agent 0's path in its colour, 6-7 unused in grey.
    assert np.abs(pixel((centres[1] + centres[2]) / 2) - palette[0]).max() <= 1
    grey = np.round(np.array(C.EDGE_GREY) * 255)
    assert np.abs(pixel((centres[6] + centres[7]) / 2) - grey).max() <= 1
    states = jax.tree.map(lambda *x: jnp.stack(x), state, world([[0], [4]]))
    assert jax.eval_shape(jax.vmap(lambda s: ENV.render(s, 32)), states).shape == (2, 32, 32, 3)
    with pytest.raises(ValueError):
        ENV.render(state, 8)
