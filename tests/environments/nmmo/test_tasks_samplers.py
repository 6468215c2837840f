"""Task samplers: uniform sampling frequencies, one draw per team handed to every member,
several slots per agent, and the learning-progress curriculum."""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from fast_compile import jit as fast_jit
from nmmo_task_helpers import CFG, close

import jaxmarl.environments.nmmo.tasks as tasks
from jaxmarl.environments.nmmo.config import Config

SOLO = Config(num_agents=4, num_npcs=2, map_size=24, map_center=8)
SPECS = [tasks.Success(), tasks.TickGE(10), tasks.TaskSpec(tasks.StayAlive(), reward_to="team")]


def draws(sampler, config: Config, n: int, sample=None) -> np.ndarray:
    """``n`` samples (``sample(key, config)``, default ``sampler.sample``), jitted."""
    sample = sample or sampler.sample
    keys = jax.random.split(jax.random.PRNGKey(0), n)
    return np.asarray(fast_jit(jax.vmap(lambda k: sample(k, config)))(keys))


def test_uniform_frequencies():
    sampler = tasks.uniform(SPECS, weights=[1, 2, 1])
    out = draws(sampler, SOLO, 2000)  # (2000, 4, 1): 8000 independent draws
    freq = np.bincount(out.ravel(), minlength=3) / out.size
    np.testing.assert_allclose(freq, [0.25, 0.5, 0.25], atol=0.02)  # binomial sd ~0.005
    assert sampler.specs[0].name == "Task_Success()_reward_to:agent"  # wrapped
    close(sampler.probs, [0.25, 0.5, 0.25])


def test_sampling_weight_is_the_default_weight():
    specs = [tasks.TaskSpec(tasks.Success(), sampling_weight=3.0), tasks.TaskSpec(tasks.TickGE(5))]
    close(tasks.uniform(specs).probs, [0.75, 0.25])
    with pytest.raises(ValueError, match="expected 2 values"):
        tasks.uniform(specs, weights=[1, 2, 3])
    with pytest.raises(ValueError, match="not all zero"):
        tasks.uniform(specs, weights=[0, 0])
    with pytest.raises(ValueError, match="at least one spec"):
        tasks.uniform([])


def test_one_draw_per_team():
    out = draws(tasks.uniform(SPECS), CFG, 300)[..., 0]  # teams (0, 1), (2, 3)
    assert np.all(out[:, 0] == out[:, 1]) and np.all(out[:, 2] == out[:, 3])
    assert np.mean(out[:, 0] != out[:, 2]) > 0.5  # teams draw independently (2/3 expected)
    solo = draws(tasks.uniform(SPECS), SOLO, 300)[..., 0]
    assert np.mean(solo[:, 0] != solo[:, 1]) > 0.5  # singleton teams without Config.teams


def test_several_slots_per_agent():
    cfg = dataclasses.replace(CFG, tasks_per_agent=2)
    out = draws(tasks.uniform(SPECS), cfg, 200)
    assert out.shape == (200, 4, 2)
    assert np.all(out[:, :, 0] != out[:, :, 1])  # distinct specs while T <= NS
    assert np.all(out[:, 0] == out[:, 1])
    single = draws(tasks.uniform(tasks.Success()), dataclasses.replace(CFG, tasks_per_agent=3), 4)
    assert np.all(single == 0)  # one spec, three slots: drawn with replacement


def test_default_sampler():
    sampler = tasks.default_sampler()
    assert len(sampler.specs) == 1 and sampler.specs[0].predicate == tasks.TickGE()
    assert np.all(np.asarray(sampler.sample(jax.random.PRNGKey(1), CFG)) == 0)


def test_curriculum_statistics():
    cur = tasks.learning_progress(SPECS, fast_rate=0.1, slow_rate=0.02, uniform_mix=0.2)
    c = cur.init()
    close(cur.probabilities(c), [1 / 3] * 3)  # nothing seen: the base weights
    update = fast_jit(cur.update)
    # spec 0: 2 of 4 slots completed; spec 1: 0 of 2; spec 2 unseen; -1 ignored
    index = jnp.array([[0, 0], [0, 0], [1, 1], [-1, -1]])
    done = jnp.array([[True, True], [False, False], [False, False], [True, True]])
    c = update(c, index, done)
    close(c.fast, [0.5, 0, 0])  # a spec's first rate sets both averages
    close(c.slow, [0.5, 0, 0])
    assert c.seen.tolist() == [True, True, False]
    close(cur.probabilities(c), [1 / 3] * 3)  # no learning progress yet
    # spec 1 now completes every time: fast 0 + 0.1 * 1, slow 0 + 0.02 * 1
    c = update(c, jnp.array([[1, 1]]), jnp.array([[True, True]]))
    close(c.fast, [0.5, 0.1, 0])
    close(c.slow, [0.5, 0.02, 0])
    # lp = (0, 0.08, 0): 0.8 * lp / sum(lp) + 0.2 / 3
    close(cur.probabilities(c), [0.2 / 3, 0.8 + 0.2 / 3, 0.2 / 3])
    with pytest.raises(ValueError, match="slow_rate < fast_rate"):
        tasks.learning_progress(SPECS, fast_rate=0.01, slow_rate=0.1)


def test_curriculum_moves_toward_changing_tasks():
    cur = tasks.learning_progress(SPECS)
    c = cur.init()
    update = fast_jit(cur.update)
    rng = np.random.default_rng(0)
    for episode in range(40):
        # spec 0 steady at 50%, spec 1 learnt (0% -> 100% over the episodes), spec 2 never
        rate = np.array([0.5, min(episode / 30, 1.0), 0.0])
        index = np.repeat(np.arange(3), 64)
        done = rng.random(index.size) < rate[index]
        c = update(c, jnp.asarray(index), jnp.asarray(done))
    p = np.asarray(cur.probabilities(c))
    assert p[1] > 0.6 and p[1] > 4 * p[0] and p[1] > 4 * p[2]
    out = np.asarray(fast_jit(lambda k: cur.sample(c, k, SOLO))(jax.random.PRNGKey(3)))
    assert out.shape == (4, 1)
    many = np.asarray(
        jax.vmap(lambda k: cur.sample(c, k, SOLO))(jax.random.split(jax.random.PRNGKey(4), 500))
    )
    np.testing.assert_allclose(np.bincount(many.ravel(), minlength=3) / many.size, p, atol=0.03)
