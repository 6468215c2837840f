"""LevelBasedForaging against jumanji 1.1.2 (the original): the same generator key gives
the same instance, and the same joint actions give, at every step of whole episodes, the
same per-agent observations (our flat vector against Jumanji's ``agents_view`` row and
``step_count / time_limit``), action masks, rewards (1e-6), episode ends (terminated / truncated),
``percent_eaten`` and states.

Actions are random: half the steps uniformly among each agent's legal actions (``load``
favoured, so food gets eaten and episodes terminate), half uniformly among all six, so
blocked moves and collisions are exercised too (Jumanji accepts any action). Both envs run
in one ``jit(vmap(scan))`` per configuration; steps after an episode's end are not
compared (ours resets automatically, Jumanji's does not).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from fast_compile import parity_jit as fast_jit

from jaxmarl.environments.jumanji.lbf import LevelBasedForaging, RandomGenerator

jumanji = pytest.importorskip("jumanji", reason="the jumanji 1.1.2 oracle is in the test extra")
from jumanji.environments.routing.lbf.env import LevelBasedForaging as TheirLBF  # noqa: E402
from jumanji.environments.routing.lbf.generator import RandomGenerator as TheirGenerator  # noqa: E402

pytestmark = [pytest.mark.oracle, pytest.mark.xdist_group("jumanji_lbf_oracle")]

TOL = 1e-6
NUM_SEEDS = 128


def pair(generator: dict | None = None, **env_kwargs):
    """Our env and Jumanji's with the same generator configuration and options."""
    if generator is None:
        return LevelBasedForaging(**env_kwargs), TheirLBF(**env_kwargs)
    return (
        LevelBasedForaging(generator=RandomGenerator(**generator), **env_kwargs),
        TheirLBF(generator=TheirGenerator(**generator), **env_kwargs),
    )


def joint_action(key, mask):
    """Random actions (N,): legal ones with ``load`` favoured, or any of the six."""
    k_any, k_legal, k_kind = jax.random.split(key, 3)
    logits = jnp.where(mask, 0.0, -jnp.inf).at[:, 5].add(1.5)
    legal = jax.random.categorical(k_legal, logits, axis=-1)
    anything = jax.random.randint(k_any, mask.shape[:1], 0, 6)
    return jnp.where(jax.random.bernoulli(k_kind), legal, anything).astype(jnp.int32)


def episodes(ours, theirs, steps, seed):
    """Both envs on NUM_SEEDS keys for ``steps`` steps (a traceable function of nothing):
    ours through the public ``step`` (automatic reset, time limit)."""
    agents = ours.agents

    def episode(key):
        k_reset, k_steps = jax.random.split(key)
        obs, state = ours.reset(k_reset)
        j_state, j_ts = theirs.reset(k_reset)
        first = {
            "obs": jnp.stack([obs[a] for a in agents]),
            "mask": jnp.stack([ours.get_avail_actions(state)[a] for a in agents]),
            "state": state,
        }
        j_first = {"obs": j_ts.observation, "state": j_state}

        def body(carry, key):
            state, j_state, j_ts = carry
            act = joint_action(key, j_ts.observation.action_mask)
            # reset_state: after an episode's end nothing is compared, so ours restarts from
            # its first state rather than compiling a second generator into the loop.
            _, new_state, reward, done, info = ours.step(
                key, state, {a: act[i] for i, a in enumerate(agents)}, reset_state=first["state"]
            )
            j_state, j_ts = theirs.step(j_state, act)
            step_state = info["final_state"]
            out = {
                "obs": jnp.stack([info["final_obs"][a] for a in agents]),
                "mask": jnp.stack([ours.get_avail_actions(step_state)[a] for a in agents]),
                "reward": jnp.stack([reward[a] for a in agents]),
                "done": done["__all__"],
                "truncated": jnp.stack([info["truncated"][a] for a in agents]),
                "percent_eaten": info["metrics"]["percent_eaten"],
                "state": step_state,
            }
            j_out = {
                "obs": j_ts.observation,
                "reward": j_ts.reward,
                "last": j_ts.last(),
                "discount": j_ts.discount,
                "percent_eaten": j_ts.extras["percent_eaten"],
                "state": j_state,
            }
            return (new_state, j_state, j_ts), (out, j_out)

        _, (outs, j_outs) = jax.lax.scan(body, (state, j_state, j_ts), jax.random.split(k_steps, steps))
        return first, j_first, outs, j_outs

    return lambda: jax.vmap(episode)(jax.random.split(jax.random.PRNGKey(seed), NUM_SEEDS))


# Each configuration: (generator keywords or None for the default, env keywords, steps).
CONFIGS = {
    # Jumanji's LevelBasedForaging-v0, whole 100-step episodes.
    "default": (None, {}, 100),
    # Grid observer with a small view (cells off the grid), free food levels, a penalty.
    "grid_fov2_penalty": (
        {"grid_size": 10, "num_agents": 4, "num_food": 3, "fov": 2, "max_agent_level": 3},
        {"grid_observation": True, "penalty": 0.1, "time_limit": 60},
        60,
    ),
    # Vector observer with a 1-cell view, raw rewards and a penalty on a 5x5 grid, where
    # random play eats everything (terminations) or runs out of time.
    "small_raw_penalty": (
        {"grid_size": 5, "num_agents": 3, "num_food": 1, "fov": 1},
        {"normalize_reward": False, "penalty": 0.25, "time_limit": 40},
        40,
    ),
}
# Generators alone: a crowded instance (40 food items, 30 agents: the agents' cells come
# from lax.top_k there, from repeated argmax up to 8 agents as in CONFIGS).
GENERATOR_CONFIGS = [
    {"grid_size": 20, "num_agents": 30, "num_food": 40, "fov": 4, "max_agent_level": 3},
]


def run(name):
    """The configuration's episodes, and our env's observation bounds."""
    gen, kw, steps = CONFIGS[name]
    ours, theirs = pair(gen, **kw)
    result = fast_jit(episodes(ours, theirs, steps, seed=list(CONFIGS).index(name)))()
    space = ours.observation_space("agent_0")
    return jax.tree.map(np.asarray, result), (space.low, space.high, ours.time_limit)


def assert_same_obs(obs, j_obs, time_limit, where=...):
    """Our flat per-agent vectors (..., N, D + 1) against Jumanji's ``agents_view`` rows
    (exact) and ``step_count / time_limit`` (1e-6)."""
    lead = j_obs.action_mask.shape[:-1]  # (..., N)
    view = j_obs.agents_view.reshape((*lead, -1)).astype(np.float32)
    np.testing.assert_array_equal(obs[..., :-1][where], view[where])
    time = np.broadcast_to(np.asarray(j_obs.step_count, np.float32)[..., None] / time_limit, lead)
    np.testing.assert_allclose(obs[..., -1][where], time[where], rtol=0, atol=TOL)


def assert_same_state(state, j_state, where=...):
    np.testing.assert_array_equal(state.agent_pos[where], j_state.agents.position[where])
    np.testing.assert_array_equal(state.agent_level[where], j_state.agents.level[where])
    np.testing.assert_array_equal(state.food_pos[where], j_state.food_items.position[where])
    np.testing.assert_array_equal(state.food_level[where], j_state.food_items.level[where])
    np.testing.assert_array_equal(state.food_eaten[where], j_state.food_items.eaten[where])
    np.testing.assert_array_equal(state.step[where], j_state.step_count[where])


def check(run_result, expect_terminations=False, expect_truncations=False):
    (first, j_first, outs, j_outs), (low, high, time_limit) = run_result
    alive = ~(np.cumsum(outs["done"], axis=1) - outs["done"] > 0)  # steps of the first episode
    # Reset: the same instance, observations and masks.
    assert_same_state(first["state"], j_first["state"])
    assert_same_obs(first["obs"], j_first["obs"], time_limit)
    np.testing.assert_array_equal(first["mask"], j_first["obs"].action_mask)
    # Every step of the first episode.
    assert_same_obs(outs["obs"], j_outs["obs"], time_limit, alive)
    np.testing.assert_array_equal(outs["mask"][alive], j_outs["obs"].action_mask[alive])
    np.testing.assert_allclose(outs["reward"][alive], j_outs["reward"][alive], rtol=0, atol=TOL)
    np.testing.assert_allclose(outs["percent_eaten"][alive], j_outs["percent_eaten"][alive], rtol=0, atol=TOL)
    assert_same_state(outs["state"], j_outs["state"], alive)
    # Every observation lies in our observation space (what check_env checks, here on
    # every configuration).
    assert (outs["obs"] >= low).all() and (outs["obs"] <= high).all()
    assert (first["obs"] >= low).all() and (first["obs"] <= high).all()
    # Episode ends: Jumanji's LAST with discount 0 is a termination, with discount 1 a truncation.
    j_last = j_outs["last"][alive]
    j_truncated = j_last[:, None] & (j_outs["discount"][alive] == 1.0)  # (steps, N)
    np.testing.assert_array_equal(outs["done"][alive], j_last)
    np.testing.assert_array_equal(outs["truncated"][alive], j_truncated)
    truncations = int(np.sum(j_truncated[:, 0]))
    terminations = int(np.sum(j_last)) - truncations
    rewarded = int(np.sum(outs["reward"][alive] != 0))
    if expect_terminations:
        assert terminations > 0, "no episode terminated: the test exercises too little"
    if expect_truncations:
        assert truncations > 0, "no episode was truncated: the test exercises too little"
    assert rewarded > 0, "no reward was paid: the test exercises too little"
    return terminations, truncations


def test_default_instance_whole_episodes():
    ours, theirs = pair()
    assert ours.time_limit == theirs.time_limit == 100
    check(run("default"), expect_truncations=True)


def test_grid_observer_small_fov_penalty_and_free_food_levels():
    check(run("grid_fov2_penalty"), expect_truncations=True)


def test_small_grid_raw_rewards_terminations_and_truncations():
    check(run("small_raw_penalty"), expect_terminations=True, expect_truncations=True)


def test_generators_draw_jumanjis_instances():
    """Many keys on a crowded configuration, in one compiled call."""
    gens = [(RandomGenerator(**c), TheirGenerator(**c)) for c in GENERATOR_CONFIGS]
    keys = jax.random.split(jax.random.PRNGKey(7), 128)
    drawn = fast_jit(lambda: [jax.vmap(lambda k, o=o, t=t: (o(k), t(k)))(keys) for o, t in gens])()
    for state, j_state in jax.tree.map(np.asarray, drawn):
        assert_same_state(state, j_state)
