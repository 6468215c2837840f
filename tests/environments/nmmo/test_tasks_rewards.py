"""Task reward rules (Neural MMO 2.1.1 ``nmmo/task/task_api.py``) and the engine-facing
functions: ``update`` on hand-written progress sequences, ``evaluate`` + ``update`` for
team tasks, slots, dead agents, the default task and the embedding."""

from __future__ import annotations

import dataclasses

import jax.numpy as jnp
import numpy as np
from fast_compile import jit as fast_jit
from nmmo_task_helpers import CFG, Scenario, close, to_state

import jaxmarl.environments.nmmo.tasks as tasks
from jaxmarl.environments.nmmo.config import Config

SPECS = [
    tasks.TaskSpec(tasks.Success()),  # 0 Task
    tasks.TaskSpec(tasks.Success(), kind="ongoing"),  # 1 OngoingTask
    tasks.TaskSpec(tasks.Success(), kind="hold", hold_duration=3),  # 2 HoldDurationTask
    tasks.TaskSpec(tasks.CountEvent("EAT_FOOD", 4), reward_to="team", reward_multiplier=2.0),  # 3
    tasks.TaskSpec(tasks.CountEvent("EAT_FOOD", 4)),  # 4 the same, per agent
    tasks.TaskSpec(tasks.TickGE()),  # 5 Neural MMO's default task
]
CFG2 = dataclasses.replace(CFG, tasks_per_agent=2)
TABLE = tasks.compile_tasks(SPECS, CFG2)
UPDATE = fast_jit(lambda state, progress: tasks.update(TABLE, state, progress))


@fast_jit
def step(state):
    progress = tasks.evaluate(TABLE, state, CFG2, tasks.task_context(state, CFG2))
    return progress, *tasks.update(TABLE, state, progress)


def run_sequence(spec: int, progresses: list[float]) -> list[tuple[float, float, int, int]]:
    """Feed one agent's slot (agent 0) a sequence of predicate values at ticks 1, 2, ..."""
    index = np.full((4, 2), -1, np.int32)
    index[0, 0] = spec
    state = to_state(Scenario(), CFG2, task_index=index)
    out = []
    for tick, p in enumerate(progresses, start=1):
        state = state.replace(step=jnp.int32(tick))
        reward, prog, done, timer = UPDATE(state, jnp.zeros((4, 2)).at[0, 0].set(p))
        state = state.replace(task_progress=prog, task_completed_tick=done, task_timer=timer)
        out.append((float(reward[0]), float(prog[0, 0]), int(done[0, 0]), int(timer[0, 0])))
        assert np.all(np.asarray(reward[1:]) == 0)  # empty slots
    return out


def test_task_rewards_progress_increase_until_complete():
    out = run_sequence(0, [0.2, 0.5, 0.4, 1.0, 0.3])
    close([r for r, *_ in out], [0.2, 0.3, -0.1, 0.6, 0.0])  # diff; nothing once complete
    close([p for _, p, *_ in out], [0.2, 0.5, 0.4, 1.0, 1.0])
    assert [d for *_, d, _ in out] == [-1, -1, -1, 4, 4]


def test_ongoing_task_rewards_progress_every_tick():
    out = run_sequence(1, [0.2, 1.0, 0.5])
    close([r for r, *_ in out], [0.2, 1.0, 0.5])
    close([p for _, p, *_ in out], [0.2, 1.0, 0.5])
    assert [d for *_, d, _ in out] == [-1, 2, 2]


def test_hold_duration_task():
    # timer counts consecutive ticks at 1; progress = timer / 3; reward = its increase,
    # 1.0 on the completing tick, 0 afterwards
    out = run_sequence(2, [1, 1, 0.5, 1, 1, 1, 1])
    assert [t for *_, t in out] == [1, 2, 0, 1, 2, 3, 3]
    close([p for _, p, *_ in out], [1 / 3, 2 / 3, 0, 1 / 3, 2 / 3, 1, 1])
    close([r for r, *_ in out], [1 / 3, 1 / 3, -2 / 3, 1 / 3, 1 / 3, 1.0, 0.0])
    assert [d for *_, d, _ in out] == [-1] * 5 + [6, 6]


def _eat(counts: list[int]) -> np.ndarray:
    events = np.zeros((4, 92), np.int32)
    events[:, 1] = counts
    return events


def test_team_task_rewards_every_member_identically():
    # slots: (team task x2 multiplier, per-agent task)
    index = np.array([[3, 4], [3, 4], [3, 4], [3, 4]], np.int32)
    state = to_state(Scenario(step=1), CFG2, task_index=index, event_counts=_eat([1, 0, 0, 2]))
    progress, reward, prog, done, timer = step(state)
    # team 0 ate 1 of 4, team 1 2 of 4; agents 1, 0, 0, 2 of 4
    close(progress, [[0.25, 0.25], [0.25, 0], [0.5, 0], [0.5, 0.5]])
    close(reward, [2 * 0.25 + 0.25, 2 * 0.25, 2 * 0.5, 2 * 0.5 + 0.5])
    state = state.replace(
        step=jnp.int32(2),
        task_progress=prog,
        task_completed_tick=done,
        task_timer=timer,
        event_counts=_eat([1, 3, 0, 2]),
    )
    progress, reward, prog, done, timer = step(state)
    close(progress[:, 0], [1, 1, 0.5, 0.5])  # team 0 now 4 of 4
    close(reward, [2 * 0.75, 2 * 0.75 + 0.75, 0, 0])
    assert np.asarray(done).tolist() == [[2, -1], [2, -1], [-1, -1], [-1, -1]]


def test_dead_agents():
    index = np.array([[3, 4], [3, 4], [3, 4], [3, 4]], np.int32)
    alive = (True, False, False, False)
    died = np.array([False, True, False, False])  # agent 1 died this tick, 2 and 3 earlier
    state = to_state(Scenario(step=5, alive=alive), CFG2, task_index=index, died_this_tick=died)
    state = state.replace(event_counts=jnp.asarray(_eat([1, 1, 4, 4])))
    progress, reward, prog, done, timer = step(state)
    # team 0 is current (0 alive, 1 died now): evaluated and rewarded; agent 1's own task too.
    # Team 1 and agents 2, 3 are not current: state kept, no reward.
    close(reward, [2 * 0.5 + 0.25, 2 * 0.5 + 0.25, 0, 0])
    close(prog, [[0.5, 0.25], [0.5, 0.25], [0, 0], [0, 0]])
    # agent 1 dead before this tick while agent 0 lives: the team task advances, no reward
    state = state.replace(
        step=jnp.int32(6),
        task_progress=prog,
        task_completed_tick=done,
        task_timer=timer,
        died_this_tick=jnp.zeros(4, bool),
        event_counts=jnp.asarray(_eat([2, 2, 4, 4])),
    )
    progress, reward, prog, done, timer = step(state)
    close(prog, [[1, 0.5], [1, 0.25], [0, 0], [0, 0]])
    close(reward, [2 * 0.5 + 0.25, 0, 0, 0])


def test_default_task_is_tick_over_horizon():
    assert [s.name for s in tasks.default_specs()] == ["Task_TickGE(None)_reward_to:agent"]
    index = np.array([[5, -1]] * 4, np.int32)
    state = to_state(Scenario(step=10), CFG2, task_index=index)
    progress, reward, *_ = step(state)
    close(progress, [[0.1, 0]] * 4)  # 10 / horizon 100
    close(reward, [0.1] * 4)


def test_reset_slots_and_embedding():
    index = jnp.array([[0, -1], [3, 5], [-1, -1], [2, 2]], jnp.int32)
    p, done, timer = tasks.reset_slots(index)
    assert p.dtype == jnp.float32 and np.all(np.asarray(p) == 0)
    assert np.all(np.asarray(done) == -1) and np.all(np.asarray(timer) == 0)
    emb = np.asarray(tasks.embed(TABLE, index))
    assert emb.shape == (4, 2, TABLE.embedding.shape[1])
    np.testing.assert_array_equal(emb[1, 0], TABLE.embedding[3])
    np.testing.assert_array_equal(emb[3, 1], TABLE.embedding[2])
    assert np.all(emb[0, 1] == 0) and np.all(emb[2] == 0)
    # every spec has its own embedding
    assert len({tuple(row) for row in TABLE.embedding}) == len(SPECS)


def test_tasks_per_agent_and_singleton_teams():
    cfg = Config(num_agents=4, num_npcs=2, map_size=24, map_center=8, horizon=100, tasks_per_agent=3)
    table = tasks.compile_tasks([tasks.TaskSpec(tasks.TickGE(10), reward_to="team"), tasks.Success()], cfg)
    state = tasks.make_state(cfg, step=np.int32(4), task_index=np.array([[0, 1, -1]] * 4, np.int32))

    @fast_jit
    def run(state):
        progress = tasks.evaluate(table, state, cfg, tasks.task_context(state, cfg))
        return progress, tasks.update(table, state, progress)[0]

    progress, reward = run(state)
    close(progress, [[0.4, 1, 0]] * 4)
    close(reward, [1.4] * 4)
