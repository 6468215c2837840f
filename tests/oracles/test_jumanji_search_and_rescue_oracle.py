"""SearchAndRescue against jumanji 1.1.2 (the original, whose neighbour searches run on
esquilax; ours are plain all-pairs JAX): the same generator key gives the same instance,
and the same joint actions give, at every step of whole episodes, the same per-agent
observations (our flat vector against Jumanji's ``searcher_views`` row,
``targets_remaining``, ``step`` and ``positions``), rewards, episode ends and states.

Episodes run free (no state copied from Jumanji into ours): every float computation is
Jumanji's term for term and per entity (the neighbour reductions are min / or, exact in
any order), so positions, headings, speeds and views stay bit-identical over whole
episodes; the test asserts exact equality for states and observations and 1e-6 for
rewards (a sum over targets). Actions are uniform in ``[-1.2, 1.2]``, so clipping is
exercised. Both envs run in one ``jit(vmap(scan))`` per configuration; steps after an
episode's end are not compared. 16 seeds per configuration: Jumanji's own esquilax
views dominate the cost of these tests.

Everything is compiled with LLVM's optimisation level 0 (``fast_compile``), which keeps
IEEE float32 arithmetic op for op. At higher levels XLA may evaluate a division or square
root slightly differently in different fusions (seen: a view distance 1 ulp apart between
the two libraries, and between either and level 0), so bit-equality is then a matter of
how each graph happens to be fused, not of the rules.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from fast_compile import parity_jit as fast_jit

from jaxmarl.environments.jumanji.search_and_rescue import (
    AgentAndTargetObservationFn,
    IndividualRewardFn,
    RandomGenerator,
    RandomWalk,
    SearchAndRescue,
    SearcherState,
    State,
    TargetState,
)
from jaxmarl.environments.jumanji.search_and_rescue.env import newly_found

jumanji = pytest.importorskip("jumanji", reason="the jumanji 1.1.2 oracle is in the test extra")
import esquilax  # noqa: E402  (Jumanji's dependency)
from jumanji.environments.swarms.common.types import AgentState as TheirAgentState  # noqa: E402
from jumanji.environments.swarms.search_and_rescue import dynamics as their_dynamics  # noqa: E402
from jumanji.environments.swarms.search_and_rescue import generator as their_generator  # noqa: E402
from jumanji.environments.swarms.search_and_rescue import observations as their_observations  # noqa: E402
from jumanji.environments.swarms.search_and_rescue import reward as their_reward  # noqa: E402
from jumanji.environments.swarms.search_and_rescue import types as their_types  # noqa: E402
from jumanji.environments.swarms.search_and_rescue import utils as their_utils  # noqa: E402
from jumanji.environments.swarms.search_and_rescue.env import SearchAndRescue as TheirSAR  # noqa: E402

pytestmark = [pytest.mark.oracle, pytest.mark.xdist_group("jumanji_search_and_rescue_oracle")]

TOL = 1e-6


def pair(
    num_searchers=2,
    num_targets=40,
    env_size=1.0,
    observation=None,
    reward=None,
    walk=None,
    **env_kwargs,
):
    """Our env and Jumanji's with the same configuration. ``observation``, ``reward`` and
    ``walk`` are keyword dicts of the observation function, reward function and random
    walk (``None``: the env's defaults)."""
    speeds = {
        "searcher_min_speed": env_kwargs.get("searcher_min_speed", 0.005),
        "searcher_max_speed": env_kwargs.get("searcher_max_speed", 0.02),
    }
    ours_kw, theirs_kw = dict(env_kwargs), dict(env_kwargs)
    ours_kw["generator"] = RandomGenerator(num_searchers, num_targets, env_size, **speeds)
    theirs_kw["generator"] = their_generator.RandomGenerator(num_searchers, num_targets, env_size)
    if observation is not None:
        ours_kw["observation"] = AgentAndTargetObservationFn(**observation, env_size=env_size)
        theirs_kw["observation"] = their_observations.AgentAndTargetObservationFn(
            **observation, env_size=env_size
        )
    if reward is not None:
        ours_kw["reward_fn"] = IndividualRewardFn(**reward)
        theirs_kw["reward_fn"] = their_reward.IndividualRewardFn(**reward)
    if walk is not None:
        ours_kw["target_dynamics"] = RandomWalk(**walk)
        theirs_kw["target_dynamics"] = their_dynamics.RandomWalk(**walk)
    return SearchAndRescue(**ours_kw), TheirSAR(**theirs_kw)


def their_obs(j_obs):
    """Jumanji's observation as our flat per-agent vectors (..., S, 3 V + 2 + 2 S)."""
    views = np.asarray(j_obs.searcher_views)
    lead = views.shape[:-2]  # (..., S)
    shared = np.concatenate(
        [
            np.asarray(j_obs.targets_remaining, np.float32)[..., None],
            np.asarray(j_obs.step, np.float32)[..., None],
            np.asarray(j_obs.positions).reshape((*lead[:-1], -1)),
        ],
        axis=-1,
    )
    shared = np.broadcast_to(shared[..., None, :], (*lead, shared.shape[-1]))
    return np.concatenate([views.reshape((*lead, -1)), shared], axis=-1)


def assert_same_state(state, j_state, where=...):
    """Our state equals Jumanji's, bit for bit (at ``where``)."""
    pairs = {
        "pos": (state.searchers.pos, j_state.searchers.pos),
        "heading": (state.searchers.heading, j_state.searchers.heading),
        "speed": (state.searchers.speed, j_state.searchers.speed),
        "target pos": (state.targets.pos, j_state.targets.pos),
        "target vel": (state.targets.vel, j_state.targets.vel),
        "found": (state.targets.found, j_state.targets.found),
        "key": (state.key, j_state.key),
        "step": (state.step, j_state.step),
    }
    for name, (ours, theirs) in pairs.items():
        np.testing.assert_array_equal(np.asarray(ours)[where], np.asarray(theirs)[where], err_msg=name)


def replay(ours, theirs, steps, num_seeds, seed=0, action_scale=1.2):
    """Run both envs on ``num_seeds`` keys for ``steps`` steps (numpy results, leading
    axes seed and step) and say which steps belong to the first episode.

    Ours runs ``step_env`` (no automatic reset: the base class's end-of-episode rules are
    covered by ``check_env``); its episode ends where ``terminated`` is true or ``step``
    reaches ``max_steps``. The actions are drawn before the scan, so that both envs get
    the very same floats (XLA may otherwise recompute them in each consumer's fusion)."""
    agents = ours.agents

    def episode(key):
        k_reset, k_act = jax.random.split(key)
        obs, state = ours.reset_env(k_reset)
        j_state, j_ts = theirs.reset(k_reset)
        first = {"obs": jnp.stack([obs[a] for a in agents]), "state": state}
        j_first = {"obs": j_ts.observation, "state": j_state}
        acts = jax.random.uniform(k_act, (steps, len(agents), 2), minval=-action_scale, maxval=action_scale)

        def body(carry, act):
            state, j_state = carry
            obs, state, reward, terminated, info = ours.step_env(
                key, state, {a: act[i] for i, a in enumerate(agents)}
            )
            j_state, j_ts = theirs.step(j_state, act)
            out = {
                "obs": jnp.stack([obs[a] for a in agents]),
                "reward": jnp.stack([reward[a] for a in agents]),
                "terminated": jnp.stack([terminated[a] for a in [*agents, "__all__"]]),
                "percent_found": info["metrics"]["percent_found"],
                "state": state,
            }
            j_out = {
                "obs": j_ts.observation,
                "reward": j_ts.reward,
                "last": j_ts.last(),
                "discount": j_ts.discount,
                "state": j_state,
            }
            return (state, j_state), (out, j_out)

        _, (outs, j_outs) = jax.lax.scan(body, (state, j_state), acts)
        return first, j_first, outs, j_outs

    keys = jax.random.split(jax.random.PRNGKey(seed), num_seeds)
    first, j_first, outs, j_outs = jax.tree.map(np.asarray, fast_jit(jax.vmap(episode))(keys))
    done = outs["terminated"][..., -1] | (outs["state"].step >= ours.max_steps)
    alive = ~(np.cumsum(done, axis=1) - done > 0)
    return first, j_first, outs, j_outs, alive


def check(ours, theirs, steps, num_seeds, seed=0, expect_terminations=False, expect_truncations=True):
    first, j_first, outs, j_outs, alive = replay(ours, theirs, steps, num_seeds, seed)
    # Reset: the same instance and observations.
    assert_same_state(first["state"], j_first["state"])
    np.testing.assert_array_equal(first["obs"], their_obs(j_first["obs"]))
    # Every step of the first episode: states and observations bit for bit.
    assert_same_state(outs["state"], j_outs["state"], alive)
    np.testing.assert_array_equal(outs["obs"][alive], their_obs(j_outs["obs"])[alive])
    reward, j_reward = outs["reward"][alive], j_outs["reward"][alive]
    np.testing.assert_allclose(reward, j_reward, rtol=0, atol=TOL)
    j_found = j_outs["state"].targets.found[alive]
    np.testing.assert_allclose(outs["percent_found"][alive], 100 * j_found.mean(-1), rtol=0, atol=1e-4)
    # Episode ends: every agent terminates when all targets are found; Jumanji's LAST
    # (discount 0 either way) is that or the time limit (our truncation).
    j_all_found, j_last = j_found.all(-1), j_outs["last"][alive]
    time_up = outs["state"].step[alive] >= ours.max_steps
    terminated = outs["terminated"][alive]
    np.testing.assert_array_equal(terminated, np.repeat(j_all_found[:, None], terminated.shape[1], axis=1))
    np.testing.assert_array_equal(j_all_found | time_up, j_last)
    j_discount = j_outs["discount"][alive]
    np.testing.assert_array_equal(
        j_discount, np.broadcast_to(np.where(j_last, 0.0, 1.0)[:, None], j_discount.shape)
    )
    terminations, truncations = int(np.sum(j_all_found)), int(np.sum(time_up & ~j_all_found))
    assert np.sum(reward > 0) > 0, "no reward was paid: the test exercises too little"
    assert np.sum(outs["obs"][alive][..., : ours.view_size] >= 0) > 0, "no view saw anything"
    if expect_terminations:
        assert terminations > 0, "no episode found every target: the test exercises too little"
    if expect_truncations:
        assert truncations > 0, "no episode reached the time limit: the test exercises too little"
    return reward, alive


def test_default_instance_whole_episodes():
    ours, theirs = pair()
    assert ours.time_limit == theirs.time_limit == 400
    assert ours.num_agents == theirs.num_agents == 2 and ours.num_targets == 40
    check(ours, theirs, steps=400, num_seeds=16)


def test_other_options_crowded_world_terminates_with_shared_finds():
    # Every option away from its default: a larger world, more searchers than targets, a
    # wide contact range, other motion limits, views and target walk, split but unscaled
    # rewards. Episodes end with every target found, and searchers often find a target
    # together (a shared find pays a fraction).
    ours, theirs = pair(
        num_searchers=8,
        num_targets=6,
        env_size=2.0,
        target_contact_range=0.15,
        searcher_max_rotate=0.5,
        searcher_max_accelerate=0.01,
        searcher_min_speed=0.01,
        searcher_max_speed=0.06,
        time_limit=150,
        observation={
            "num_vision": 24,
            "searcher_vision_range": 0.9,
            "target_vision_range": 0.3,
            "view_angle": 0.7,
            "agent_radius": 0.08,
        },
        walk={"acc_std": 0.002, "vel_max": 0.01},
        reward={"split_rewards": True, "scale_rewards": False},
    )
    reward, _ = check(ours, theirs, steps=150, num_seeds=16, seed=1, expect_terminations=True)
    assert np.any(reward != np.round(reward)), "no target was found by several searchers at once"


def test_reward_functions():
    # Jumanji's reward function, every flag combination, on random finds (many targets
    # found by several searchers at once).
    keys = jax.random.split(jax.random.PRNGKey(3), 256)
    flags = [(True, True), (True, False), (False, True), (False, False)]

    def both(key):
        k_found, k_step = jax.random.split(key)
        found = jax.random.bernoulli(k_found, 0.3, (5, 12))
        step = jax.random.randint(k_step, (), 0, 200)
        return [
            (IndividualRewardFn(*f)(found, step, 200), their_reward.IndividualRewardFn(*f)(found, step, 200))
            for f in flags
        ]

    for (split, scale), (reward, j_reward) in zip(
        flags, jax.tree.map(np.asarray, fast_jit(jax.vmap(both))(keys)), strict=True
    ):
        np.testing.assert_allclose(reward, j_reward, rtol=0, atol=TOL)
        assert reward.dtype == np.float32 and np.any(reward > 0)
        assert np.any(reward != np.round(reward)) == (split or scale)


def to_theirs(state: State):
    """Our state as Jumanji's."""
    return their_types.State(
        searchers=TheirAgentState(
            pos=state.searchers.pos, heading=state.searchers.heading, speed=state.searchers.speed
        ),
        targets=their_types.TargetState(
            pos=state.targets.pos, vel=state.targets.vel, found=state.targets.found
        ),
        key=state.key,
        step=state.step,
    )


def test_entities_on_the_far_edge_follow_esquilaxs_cells():
    # A coordinate of exactly env_size (what `pos % L` gives for a tiny negative value)
    # puts the viewed entity in esquilax's cell n, filed under the next row or past the
    # grid: some searchers within range do not see it. Ours reproduces that rule; the
    # states below put searchers and targets on and near the far edges.
    one = np.float32(1.0)
    tiny = np.float32(0.01)
    searcher_pos = np.array(
        [
            [0.5, one],
            [0.5, 0.02],
            [one, 0.3],
            [0.03, 0.3],
            [0.98, 0.98],
            [one, one],
            [0.3, 0.05],
            [0.3, 0.95],
        ],
        np.float32,
    )
    target_pos = np.array(
        [[0.5, one], [one, 0.3], [one, one], [0.3, 0.0], [tiny, 0.5], [0.5, 0.97], [0.99, 0.3], [0.02, 0.99]],
        np.float32,
    )
    num_s, num_t = len(searcher_pos), len(target_pos)
    rng = np.random.default_rng(0)
    states = []
    for _ in range(64):  # headings and found flags at random
        states.append(
            State(
                searchers=SearcherState(
                    pos=jnp.asarray(searcher_pos),
                    heading=jnp.asarray(rng.uniform(0, 2 * np.pi, num_s), jnp.float32),
                    speed=jnp.full((num_s,), 0.01, jnp.float32),
                ),
                targets=TargetState(
                    pos=jnp.asarray(target_pos),
                    vel=jnp.zeros((num_t, 2), jnp.float32),
                    found=jnp.asarray(rng.uniform(size=num_t) < 0.3),
                ),
                key=jax.random.PRNGKey(0),
                step=jnp.zeros((), jnp.int32),
            )
        )
    batch = jax.tree.map(lambda *x: jnp.stack(x), *states)
    view_configs = [(0.4, 0.1)]  # (searcher, target) vision ranges: 2 and 10 cells
    contact_ranges = [0.04]  # 25 cells

    def views(state, searcher_range, target_range, theirs):
        kind = their_observations if theirs else None
        config = {
            "num_vision": 64,
            "searcher_vision_range": searcher_range,
            "target_vision_range": target_range,
            "view_angle": 0.9,
            "agent_radius": 0.02,
            "env_size": 1.0,
        }
        if kind is None:
            return AgentAndTargetObservationFn(**config)(state)
        return kind.AgentAndTargetObservationFn(**config)(to_theirs(state))

    def their_detection(state, contact_range):
        s, t = state.searchers, state.targets
        return esquilax.transforms.spatial(
            their_utils.searcher_detect_targets,
            reduction=esquilax.reductions.logical_or((num_t,)),
            i_range=contact_range,
            dims=1.0,
        )(
            0.9,
            TheirAgentState(pos=s.pos, heading=s.heading, speed=s.speed),
            (jnp.arange(num_t), their_types.TargetState(pos=t.pos, vel=t.vel, found=t.found)),
            pos=s.pos,
            pos_b=t.pos,
            env_size=1.0,
            n_targets=num_t,
        )

    def everything(state):
        out = {}
        for ranges in view_configs:
            out[f"views {ranges}"] = (views(state, *ranges, theirs=False), views(state, *ranges, theirs=True))
        for r in contact_ranges:
            out[f"found {r}"] = (
                newly_found(state.searchers, state.targets, r, 0.9, 1.0),
                their_detection(state, r),
            )
        return out

    results = jax.tree.map(np.asarray, fast_jit(jax.vmap(everything))(batch))
    for name, (ours, theirs) in results.items():
        np.testing.assert_array_equal(ours, theirs, err_msg=name)
        assert np.any(ours > 0), f"{name}: nothing seen or found, the test exercises too little"


def test_generator_draws_jumanjis_instances():
    keys = jax.random.split(jax.random.PRNGKey(7), 512)
    configs = [(2, 40, 1.0, 0.005, 0.02), (13, 3, 2.5, 0.0, 0.1), (1, 1, 0.5, 0.01, 0.01)]

    def draw(key):
        out = []
        for num_s, num_t, size, lo, hi in configs:
            ours = RandomGenerator(num_s, num_t, size, searcher_min_speed=lo, searcher_max_speed=hi)
            theirs = their_generator.RandomGenerator(num_s, num_t, size)
            params = their_generator.AgentParams(
                max_rotate=0.25, max_accelerate=0.005, min_speed=lo, max_speed=hi
            )
            out.append((ours(key), theirs(key, params)))
        return out

    for state, j_state in jax.tree.map(np.asarray, fast_jit(jax.vmap(draw))(keys)):
        assert_same_state(state, j_state)
        assert np.unique(state.searchers.pos[:, 0, 0]).size == len(keys)  # the key matters
