"""IQL / VDN / QMIX: configs load, the hidden state resets where episodes start, replay
sampling, double-Q targets through truncations, QMIX monotonicity, teams learn apart,
every MPE env trains, each method learns, and runs save, load and evaluate."""

from __future__ import annotations

import functools
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from fast_compile import COMPILER_OPTIONS, fast_compilation, long_run_jit, run_script
from fast_compile import jit as fast_jit

import jaxmarl
from baselines import common, evaluate, runs
from baselines import qlearning as ql

REPO = Path(__file__).resolve().parents[2]
QL_CONFIG_DIR = REPO / "baselines" / "config" / "qlearning"
ALGS = sorted(p.stem for p in (QL_CONFIG_DIR / "alg").glob("*.yaml"))
ENVS = sorted(p.stem for p in (QL_CONFIG_DIR / "env").glob("*.yaml"))
MPE_IDS = sorted(e for e in jaxmarl.registered_envs if e.startswith("MPE_"))


def load_config(alg: str = "vdn", env: str = "mpe_simple_spread", **overrides) -> dict:
    return common.compose_config(
        "qlearning", [f"alg={alg}", f"env={env}"] + [f"{k}={v}" for k, v in overrides.items()]
    )


def tiny(**overrides) -> dict:
    """Three rollouts of 2 envs x 8 steps; gradient steps from the second rollout on."""
    return {
        "NUM_ENVS": 2,
        "NUM_STEPS": 8,
        "TOTAL_TIMESTEPS": 48,
        "BUFFER_SIZE": 8,
        "BUFFER_BATCH_SIZE": 2,
        "LEARNING_STARTS": 32,
        "TARGET_UPDATE_INTERVAL": 2,
        "EPS_DECAY": 0.5,
    } | overrides


def init_params(s, key, *more_keys):
    """``ql.init_params`` for ``key`` (a list of results if ``more_keys``: one compile)."""
    init = fast_jit(functools.partial(ql.init_params, s))
    return init(key) if not more_keys else [init(k) for k in (key, *more_keys)]


def fresh_actors(s, key):
    return fast_jit(functools.partial(ql.fresh_actors, s))(key)


# ------------------------------------------------------------------ configs


@pytest.mark.parametrize("alg", ALGS)
@pytest.mark.parametrize("env", ENVS)
def test_every_shipped_config_composes(alg, env):
    config = load_config(alg, env)
    assert config["ALG_NAME"] == alg and config["ALG_FAMILY"] == "qlearning"
    assert config["ENV_NAME"] in jaxmarl.registered_envs
    s = ql.setup(config)  # builds the env, the rollout manager (teams) and the networks
    assert s.manager.batcher.discrete and s.mixer_kind == {"iql": "none"}.get(alg, alg)
    assert sorted(i for team in s.manager.teams for i in team.agents) == list(range(s.manager.num_agents))


def test_every_mpe_env_has_a_config():
    assert sorted(load_config(env=e)["ENV_NAME"] for e in ENVS if e.startswith("mpe_")) == MPE_IDS


def test_mpe_defaults_are_the_papers_table_8():
    config = load_config("qmix")
    expected = {
        "TOTAL_TIMESTEPS": 2e6,
        "NUM_ENVS": 8,
        "NUM_STEPS": 26,
        "LR": 1e-3,
        "ANNEAL_LR": True,
        "BUFFER_SIZE": 5000,
        "BUFFER_BATCH_SIZE": 32,
        "EPS_START": 1.0,
        "EPS_FINISH": 0.05,
        "EPS_DECAY": 0.1,
        "HIDDEN_SIZE": 64,
        "MAX_GRAD_NORM": 25,
        "TAU": 1.0,
        "NUM_EPOCHS": 1,
        "LEARNING_STARTS": 1e4,
        "GAMMA": 0.9,
        "MIXER_EMBEDDING_DIM": 32,
        "MIXER_HYPERNET_DIM": 128,
        "MIXER_INIT_SCALE": 1e-3,
    }
    assert {k: config[k] for k in expected} == expected


def test_competitive_envs_have_teams():
    teams = {e: [t.name for t in ql.setup(load_config("iql", e)).manager.teams] for e in ENVS}
    assert teams["mpe_simple_tag"] == ["adversaries", "agents"]
    assert teams["mpe_simple_world_comm"] == ["adversaries", "agents"]
    assert teams["mpe_simple_crypto"] == ["eavesdropper", "speakers"]
    assert teams["mpe_simple_spread"] == teams["mpe_simple_speaker_listener"] == ["team"]


def test_bad_config_values_are_clear_errors():
    with pytest.raises(ValueError, match="MIXER"):
        ql.make_train(load_config(MIXER="sum", **tiny()))
    with pytest.raises(ValueError, match="discrete actions"):
        ql.make_train(load_config(env="mpe_simple_facmac", **{"ENV_KWARGS.action_type": "Continuous"}))
    with pytest.raises(ValueError, match="BUFFER_BATCH_SIZE"):
        ql.make_train(load_config(**tiny(BUFFER_BATCH_SIZE=9)))
    with pytest.raises(ValueError, match="TOTAL_TIMESTEPS"):
        ql.make_train(load_config(**tiny(TOTAL_TIMESTEPS=8)))
    with pytest.raises(ValueError, match="'agent_0' is in no team"):
        ql.make_train(load_config(env="mpe_simple_tag", **tiny()) | {"TEAMS": {"bad": ["adversary"]}})


# ------------------------------------------------ hidden state and rollout


def test_gru_state_is_zeroed_exactly_where_an_episode_starts():
    net = ql.QNetwork(width=8, action_dim=3)
    key_obs, key_h, key_init = jax.random.split(jax.random.PRNGKey(0), 3)
    obs = jax.random.normal(key_obs, (6, 2, 4))
    hidden = jax.random.normal(key_h, (2, 8))
    resets = jnp.array([[0, 0], [0, 0], [0, 1], [0, 0], [1, 0], [0, 0]], bool)
    params = fast_jit(net.init)(key_init, hidden, obs, resets)
    apply = fast_jit(net.apply)
    _, q = apply(params, hidden, obs, resets)
    for t, b in [(2, 1), (4, 0)]:  # from a reset on, the past (and the given hidden state) is gone
        _, fresh = apply(params, hidden[b : b + 1] * 0 + 123.0, obs[t:, b : b + 1], resets[t:, b : b + 1])
        np.testing.assert_allclose(q[t:, b], fresh[:, 0], atol=1e-6)
        _, carried = apply(params, hidden[b : b + 1], obs[:, b : b + 1], jnp.zeros((6, 1), bool))
        assert not np.allclose(q[t:, b], carried[t:, 0], atol=1e-3)  # without the reset it differs


def test_training_unroll_resets_where_acting_did():
    """Replaying stored rollouts (from their initial hidden state, with the stored reset
    flags) gives exactly the Q-values the agents acted on. Episodes last 4 steps and
    rollouts 10, so boundaries fall inside rollouts and rollouts start mid-episode.
    Resetting with the done flag of the step itself (the off-by-one JaxMARL's Q-learning
    scripts shipped) does not reproduce them."""
    config = load_config(
        "vdn", NUM_ENVS=2, NUM_STEPS=10, RESET_EACH_ROLLOUT=False, **{"+ENV_KWARGS.max_steps": 4}
    )
    s = ql.setup(config)
    params = init_params(s, jax.random.PRNGKey(0))["agent"]
    actors = fresh_actors(s, jax.random.PRNGKey(1))
    roll = fast_jit(lambda p, a, k: ql.rollout(s, p, jnp.float32(0.3), a, k))
    unroll = fast_jit(lambda p, h, o, r: ql.agent_q(s, p, h, o, r)[1])
    expected_starts = [[0, 4, 8], [2, 6]]  # steps 0..9, then 10..19 (episodes start at 0, 4, 8, 12, 16)
    for r, key in enumerate(jax.random.split(jax.random.PRNGKey(2), 2)):
        hidden0 = actors.hidden
        actors, (steps, episodes, q_acted) = roll(params, actors, key)
        ended = episodes.returned[..., 0]  # (time, envs): an episode ended with this step
        starts = np.flatnonzero(steps.resets[:, 0])
        np.testing.assert_array_equal(starts, expected_starts[r])
        np.testing.assert_array_equal(steps.resets[1:], ended[:-1])  # reset flag = previous step's done
        assert (r == 0) == bool(np.all(hidden0 == 0))  # the second rollout starts from a memory
        np.testing.assert_allclose(unroll(params, hidden0, steps.obs, steps.resets), q_acted, atol=1e-5)
        wrong = unroll(params, hidden0, steps.obs, ended)
        assert not np.allclose(wrong, q_acted, atol=1e-3)


# ------------------------------------------------------------------ replay


def test_replay_samples_whole_stored_sequences_uniformly_first_in_first_out():
    config = load_config("vdn", **tiny(BUFFER_SIZE=6, BUFFER_BATCH_SIZE=4, NUM_STEPS=3))
    s = ql.setup(config)
    item = ql.empty_item(s)
    time = item.steps.obs.shape[0]

    def items(ids):  # obs[t] = 10 * id + t, hidden0 = id: tells sequences and steps apart
        ids = jnp.asarray(ids, jnp.float32)
        obs = 10 * ids[:, None] + jnp.arange(time)[None, :]
        steps = jax.tree.map(lambda x: jnp.zeros((len(ids), *x.shape), x.dtype), item.steps)
        steps = steps._replace(obs=jnp.broadcast_to(obs[:, :, None, None], steps.obs.shape))
        return ql.Sequence(steps, jnp.broadcast_to(ids[:, None, None], (len(ids), *item.hidden0.shape)))

    add = fast_jit(s.buffer.add)
    state = add(s.buffer.init(item), items([0, 1]))
    assert not s.buffer.can_sample(state)  # fewer items than a batch
    state = add(state, items([2, 3]))
    assert s.buffer.can_sample(state)
    sample = fast_jit(lambda st, k: ql.sample_batch(s, st, k))

    def sampled_ids(state, n=200):
        seen = []
        for key in jax.random.split(jax.random.PRNGKey(0), n):
            steps, hidden0 = sample(state, key)
            assert steps.obs.shape == (time, 4, *item.steps.obs.shape[1:])  # time-major
            ids = np.asarray(hidden0[:, 0, 0])
            np.testing.assert_array_equal(steps.obs[:, :, 0, 0].T, 10 * ids[:, None] + np.arange(time))
            seen += ids.tolist()
        return np.array(seen)

    np.testing.assert_array_equal(np.unique(sampled_ids(state)), [0, 1, 2, 3])
    state = add(state, items([4, 5, 6, 7]))  # capacity 6: the two oldest are gone
    seen = sampled_ids(state)
    np.testing.assert_array_equal(np.unique(seen), [2, 3, 4, 5, 6, 7])
    counts = np.bincount(seen.astype(int))[2:]
    assert counts.min() > 0.7 * len(seen) / 6  # roughly uniform (800 draws over 6 items)


# ----------------------------------------------------------------- targets


def test_double_q_takes_the_online_argmax_among_legal_actions_and_the_target_value():
    online = jnp.array([[1.0, 5.0, 3.0], [0.0, -1.0, -2.0]])
    target = jnp.array([[10.0, 20.0, 30.0], [7.0, 8.0, 9.0]])
    every = jnp.ones((2, 3), bool)
    np.testing.assert_array_equal(ql.double_q(online, target, every), [20.0, 7.0])
    legal = jnp.array([[1, 0, 1], [0, 1, 1]], bool)  # the online favourites are illegal
    np.testing.assert_array_equal(ql.double_q(online, target, legal), [30.0, 8.0])
    # r + gamma * (1 - terminated) * next: a truncated step (discount 1) bootstraps
    reward, discount = jnp.array([1.0, 1.0]), jnp.array([1.0, 0.0])
    next_value = ql.double_q(online, target, legal)
    np.testing.assert_allclose(ql.td_targets(reward, discount, next_value, 0.9), [28.0, 1.0])


def reference_td_errors(s, params, target_params, steps, hidden0, gamma):
    """TD errors the slow, obvious way: one network step from every step's hidden state
    on the observation that step led to."""
    hiddens, q = ql.agent_q(s, params["agent"], hidden0, steps.obs, steps.resets)
    target_hiddens, _ = ql.agent_q(s, target_params["agent"], hidden0, steps.obs, steps.resets)
    batch = steps.obs.shape[1]

    def one_step(p, h, next_obs):  # (batch, ...) at one time step
        return ql.agent_q(s, p, h, next_obs[None], jnp.zeros((1, batch), bool))[1][0]

    next_q = [
        jax.vmap(one_step, in_axes=(None, 0, 0))(p, h, steps.next_obs)
        for p, h in [(params["agent"], hiddens), (target_params["agent"], target_hiddens)]
    ]
    best = jnp.argmax(jnp.where(steps.next_avail, next_q[0], -jnp.inf), axis=-1)
    next_values = jnp.take_along_axis(next_q[1], best[..., None], -1)[..., 0]
    taken = jnp.take_along_axis(q, steps.action[..., None], -1)[..., 0]
    reward, discount = steps.reward, 1.0 - steps.terminated.astype(jnp.float32)
    if s.mixer_kind == "none":
        q_units, next_units = taken, next_values
    else:
        team = lambda x: jnp.stack([x[..., list(t.agents)].sum(-1) for t in s.manager.teams], -1)  # noqa: E731
        reward, discount = team(reward), (team(discount) > 0).astype(jnp.float32)
        mixed = [
            (
                s.mixer.apply(params["mixer"][t.name], taken[..., list(t.agents)], steps.state),
                s.mixer.apply(
                    target_params["mixer"][t.name], next_values[..., list(t.agents)], steps.next_state
                ),
            )
            for t in s.manager.teams
        ]
        q_units, next_units = (jnp.stack(x, -1) for x in zip(*mixed, strict=True))
    return q_units - (reward + gamma * discount * next_units)


@pytest.mark.parametrize(("alg", "env"), [("iql", "mpe_simple_spread"), ("qmix", "mpe_simple_tag")])
def test_td_errors_match_bootstrapping_every_step_from_where_it_led(alg, env):
    """Episodes of 3 steps in sequences of 8 that start mid-episode: truncations inside
    the sequence bootstrap from info["final_obs"], not from the next episode's start.
    On simple_tag, QMIX's two teams learn apart."""
    config = load_config(alg, env, NUM_ENVS=3, NUM_STEPS=8, RESET_EACH_ROLLOUT=False, MIXER_INIT_SCALE=1.0)
    config["ENV_KWARGS"]["max_steps"] = 3
    s = ql.setup(config)
    params, target_params = init_params(s, jax.random.PRNGKey(0), jax.random.PRNGKey(1))
    roll = fast_jit(lambda p, a, k: ql.rollout(s, p, jnp.float32(0.5), a, k))
    actors = fresh_actors(s, jax.random.PRNGKey(2))
    actors, _ = roll(params["agent"], actors, jax.random.PRNGKey(3))  # start mid-episode
    h0 = actors.hidden
    _, (steps, _, _) = roll(params["agent"], actors, jax.random.PRNGKey(4))
    assert np.any(steps.resets[1:]) and not np.any(steps.terminated)  # MPE: truncations only
    errors = fast_jit(lambda p, tp: ql.td_errors(s, p, tp, steps, h0)[0])(params, target_params)
    reference = functools.partial(reference_td_errors, s, gamma=config["GAMMA"])
    expected = fast_jit(reference)(params, target_params, steps, h0)
    np.testing.assert_allclose(errors, expected, rtol=1e-4, atol=1e-4)
    # Where an episode was cut, the observation it ended on is not the next stored one.
    cut = np.asarray(steps.resets[1:])
    assert not np.allclose(np.asarray(steps.next_obs[:-1])[cut], np.asarray(steps.obs[1:])[cut])
    if alg == "qmix":  # simple_tag: predators and prey learn apart
        check_teams_learn_apart(s, params, target_params, steps, h0)


def check_teams_learn_apart(s, params, target_params, steps, h0):
    """Predators and prey have their own networks, mixers and rewards: one team's TD
    loss has no gradient on the other team's parameters."""
    assert set(params["agent"]) == set(params["mixer"]) == {"adversaries", "agents"}
    reward, _ = ql.unit_rewards_discounts(s, steps.reward, steps.terminated.astype(jnp.float32))
    np.testing.assert_allclose(reward, np.stack([steps.reward[..., :3].sum(-1), steps.reward[..., 3]], -1))

    def team_loss(p, weights):  # weights (num_teams,) pick one team's TD loss
        return jnp.mean(ql.td_errors(s, p, target_params, steps, h0)[0] ** 2 * weights)

    team_grad = fast_jit(jax.grad(team_loss))
    for team, name, other in [(0, "adversaries", "agents"), (1, "agents", "adversaries")]:
        grads = jax.device_get(team_grad(params, jnp.eye(2)[team]))  # NumPy: no eager ops below
        for part in ("agent", "mixer"):
            assert all(np.all(g == 0) for g in jax.tree.leaves(grads[part][other])), (team, part)
            assert any(np.any(g != 0) for g in jax.tree.leaves(grads[part][name])), (team, part)


def test_qmix_is_monotonic_in_every_agent_q():
    """dQ_tot/dQ_i >= 0 for random states, Q-values and mixer parameters of either sign."""
    mixer = ql.QMixer(embedding=8, hypernet_width=16, init_scale=1.0)
    n, state_dim = 4, 6
    grad = fast_jit(jax.vmap(jax.grad(mixer.apply, argnums=1), in_axes=(None, 0, 0)))
    init = fast_jit(mixer.init)
    for seed in range(5):
        key_p, key_q, key_s = jax.random.split(jax.random.PRNGKey(seed), 3)
        params = init(key_p, jnp.zeros(n), jnp.zeros(state_dim))
        q = 10 * jax.random.normal(key_q, (256, n))
        states = 3 * jax.random.normal(key_s, (256, state_dim))
        g = np.asarray(grad(params, q, states))
        assert np.all(g >= 0) and np.mean(g > 0) > 0.5
    q_tot = fast_jit(mixer.apply)(params, q, states)
    assert q_tot.shape == (256,) and np.std(q_tot) > 0  # it does depend on its inputs


# ------------------------------------------------------ every MPE env trains


def check_tiny_run(config, out):
    metrics = out["metrics"]
    np.testing.assert_array_equal(metrics["timestep"], [16, 32, 48])
    # epsilon decays linearly over the first EPS_DECAY * TOTAL_TIMESTEPS = 24 steps
    np.testing.assert_allclose(metrics["epsilon"], [1.0, 1.0 - 0.95 * 16 / 24, 0.05], atol=1e-6)
    assert np.isnan(metrics["loss"][0]) and np.all(np.isfinite(metrics["loss"][1:]))  # learns from 32 steps
    assert all(np.all(np.isfinite(x)) for x in jax.tree.leaves(out["params"]))


# The MPE scenarios share one implementation, PPO trains on every one of them
# (test_ppo.py) and A2C on every environment class: VDN trains on the four that differ in
# what its agent batching meets: a single agent, heterogeneous observation and action
# sizes (speaker and listener), three competing roles, and the most agents (six
# collectors and two deposits). QMIX's heterogeneous teams are the next test.
VDN_MPE_IDS = [
    "MPE_simple_v3",
    "MPE_simple_speaker_listener_v4",
    "MPE_simple_crypto_v3",
    "MPE_collect_treasure_v1",
]


@pytest.mark.parametrize("env_id", VDN_MPE_IDS)
def test_vdn_trains_on_mpe_envs_of_every_shape(env_id):
    env = next(e for e in ENVS if load_config(env=e)["ENV_NAME"] == env_id)
    config = load_config("vdn", env, **tiny())
    out = fast_jit(ql.make_train(config))(jax.random.PRNGKey(0))
    check_tiny_run(config, out)


def test_qmix_trains_heterogeneous_teams():
    """The leader (20 actions) joins the adversaries (5 actions) against the good agents;
    envs carry on across rollouts (items are sequences, not episodes)."""
    config = load_config("qmix", "mpe_simple_world_comm", **tiny(RESET_EACH_ROLLOUT=False))
    out = fast_jit(ql.make_train(config))(jax.random.PRNGKey(0))
    check_tiny_run(config, out)
    assert set(out["params"]["agent"]) == {"adversaries", "agents"}


# ------------------------------------------------------------------ learning


def evaluation_returns(config: dict, params, num_episodes: int = 128):
    """Mean per-agent return of each seed's greedy policy and of a random policy, same keys."""
    env, init_hidden, act = ql.make_policy(config)
    keys = jax.random.split(jax.random.PRNGKey(7), num_episodes)
    ours, rand = evaluate.returns_on_keys(
        env, init_hidden, act, params, keys, True, env.max_steps, compiler_options=COMPILER_OPTIONS
    )
    return ours.mean(axis=(1, 2)), float(rand.mean())


# A CI-sized budget: 1e5 steps, learning from 5e3, a larger learning rate and a target
# network refreshed every 10 rollouts. QMIX starts from a mixer initialised at scale 1: at
# the paper's 1e-3 its agents get almost no gradient for the first ~5e4 steps, and it
# needs about twice this budget (docs/algorithms/qlearning.md).
LEARNING_BUDGET = {"TOTAL_TIMESTEPS": 1e5, "LEARNING_STARTS": 5e3, "LR": 5e-3, "TARGET_UPDATE_INTERVAL": 10}


@pytest.mark.parametrize("alg", ["iql", "vdn", "qmix"])
def test_learns_simple_spread_beyond_a_random_policy(alg):
    """Trained for 1e5 steps, the greedy policy beats a random one on the same 128
    episodes by more than 2 per agent (a random policy scores about -27.6; the standard
    error of that mean is about 0.3)."""
    config = load_config(alg, "mpe_simple_spread", **LEARNING_BUDGET, MIXER_INIT_SCALE=1.0)
    # common.train_seeds, compiled for a long run (fast_compile.LONG_RUN_OPTIONS).
    keys = common.shard_over_devices(common.seed_keys(config), config)
    out = long_run_jit(jax.vmap(ql.make_train(config)))(keys)
    trained, random_return = evaluation_returns(config, out["params"])
    assert np.all(trained > random_return + 2.0), (trained, random_return)


# ------------------------------------------------------- run folder, CLI


def test_command_line_run_folder_and_evaluation(tmp_path):
    """`python baselines/qlearning.py ...` trains, reports progress and saves the run;
    evaluate.py loads it and plays the greedy Q-policy."""
    run_dir = tmp_path / "run"
    overrides = [f"{k}={v}" for k, v in tiny().items()]
    train = run_script(
        "baselines/qlearning.py",
        "alg=iql",
        "env=mpe_simple_tag",
        *overrides,
        "NUM_SEEDS=2",
        "PROGRESS_INTERVAL_S=0",
        f"hydra.run.dir={run_dir}",
    )
    assert "update     3/3 | timesteps         48/48 (100%)" in train.stdout, train.stdout
    rows = (run_dir / "metrics.csv").read_text().splitlines()
    header = rows[0].split(",")
    assert header[:4] == ["update", "seed", "timestep", "return_mean"]
    assert {"return_adversary_0", "return_agent_0", "loss", "epsilon", "q_taken"} <= set(header)
    assert len(rows) == 1 + 2 * 3  # seeds x updates
    assert (run_dir / "learning_curve.png").read_bytes()[:4] == b"\x89PNG"
    config, params = runs.load_run(run_dir)
    assert config["ALG_FAMILY"] == "qlearning" and params["agent"]["agents"]["params"]
    cfg = {"EVAL_EPISODES": 4, "EVAL_SEED": 1, "GREEDY": True, "MAX_STEPS": 50, "GIF_STEPS": 5}
    with fast_compilation():  # tiny episodes: compiling is the cost
        result = evaluate.evaluate(run_dir, cfg)
    assert len(result["return_mean_per_seed"]) == 2
    assert set(result["return_per_agent"]) == {"adversary_0", "adversary_1", "adversary_2", "agent_0"}
    assert Path(result["gif"]).exists()


def test_epsilon_greedy_explores_uniformly_over_legal_actions_at_rate_epsilon():
    """The pre-drawn noise (Gumbel-max over the legal actions, one uniform number per
    agent-step) acts as epsilon-greedy: a random action with probability epsilon, uniform
    over the legal ones (chi-square, p > 0.001), never an illegal one; else the greedy one."""
    from scipy import stats

    n = 30_000
    q = jnp.broadcast_to(jnp.array([0.0, 9.0, 1.0, 0.5, 0.2]), (n, 5))  # greedy: action 2 (1 is illegal)
    avail = jnp.broadcast_to(jnp.array([True, False, True, True, False]), (n, 5))
    noise = ql.draw_exploration(jax.random.PRNGKey(0), (n,), 5)
    explore = np.asarray(ql.epsilon_greedy(noise, q, avail, 1.0))
    counts = np.bincount(explore, minlength=5)
    assert counts[1] == counts[4] == 0
    assert stats.chisquare(counts[[0, 2, 3]]).pvalue > 1e-3
    acted = np.asarray(ql.epsilon_greedy(noise, q, avail, 0.25))
    random_share = np.mean(acted != 2) * 3 / 2  # a random legal action is the greedy one 1/3 of the time
    assert abs(random_share - 0.25) < 4 * np.sqrt(0.25 * 0.75 / n) * 1.5
    np.testing.assert_array_equal(ql.epsilon_greedy(noise, q, avail, 0.0), 2)


def test_greedy_and_exploring_policies_differ_only_by_epsilon():
    config = load_config("vdn", EPS_FINISH=1.0)
    env, init_hidden, act = ql.make_policy(config)
    params = init_params(ql.setup(config), jax.random.PRNGKey(0))
    obs, state = env.reset(jax.random.PRNGKey(1))
    run = fast_jit(functools.partial(act, params), static_argnums=(5,))

    def first_actions(greedy: bool) -> set[int]:
        keys = [jax.random.PRNGKey(k) for k in range(20)]
        return {int(run(init_hidden(), obs, state, True, k, greedy)[1]["agent_0"]) for k in keys}

    greedy, explore = first_actions(True), first_actions(False)
    assert len(greedy) == 1 and len(explore) > 2
