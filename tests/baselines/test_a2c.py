"""A2C (IA2C / MAA2C): configs compose, the update is one gradient step of Jumanji's A2C
loss, it trains on every environment family (discrete, masked, continuous, recurrent,
world-state critic), it learns on MPE, on masked SMAX and on a masked grid
(LevelBasedForaging) beyond a random policy, and its runs save, load and evaluate from
the command line."""

from __future__ import annotations

from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest
import yaml
from fast_compile import COMPILER_OPTIONS, fast_compilation, long_run_jit, run_script
from fast_compile import jit as fast_jit

import jaxmarl
from baselines import a2c, actor_critic, common, evaluate, runs

REPO = Path(__file__).resolve().parents[2]
CONFIG_DIR = REPO / "baselines" / "config"
ALGS = sorted(p.stem for p in (CONFIG_DIR / "a2c" / "alg").glob("*.yaml"))
ENVS = sorted(p.stem for p in (CONFIG_DIR / "actor_critic" / "env").glob("*.yaml"))


def load_config(alg: str = "ia2c_ff", env: str = "mpe_simple_spread", **overrides) -> dict:
    return common.compose_config(
        "a2c", [f"alg={alg}", f"env={env}"] + [f"{k}={v}" for k, v in overrides.items()]
    )


def tiny(**overrides) -> dict:
    """Two updates of 2 envs x 8 steps."""
    return {"NUM_ENVS": 2, "NUM_STEPS": 8, "TOTAL_TIMESTEPS": 32} | overrides


# ------------------------------------------------------------------ configs


@pytest.mark.parametrize("env", ENVS)
def test_every_env_config_composes_with_a2c_hyperparameters(env):
    config = load_config("ia2c_ff", env)
    assert config["ALG_FAMILY"] == "a2c" and config["ENV_NAME"] in jaxmarl.registered_envs
    for key in ["NUM_STEPS", "GAE_LAMBDA", "PG_COEF", "VF_COEF", "ENT_COEF", "NORMALIZE_ADVANTAGE"]:
        assert key in config, key
    for ppo_only in ["UPDATE_EPOCHS", "NUM_MINIBATCHES", "CLIP_EPS"]:
        assert ppo_only not in config, ppo_only


def test_algs_switch_critic_and_network_and_reject_ppo_names():
    for alg in ALGS:
        config = load_config(alg)
        assert config["ALG_NAME"] == alg
        assert config["CRITIC"] == ("world" if alg.startswith("maa2c") else "local")
        assert config["NETWORK"] == alg.rsplit("_", 1)[1]
    with pytest.raises(runs.RunError, match=r"unknown alg 'ippo_ff'.*ia2c_ff"):
        runs.check_overrides("a2c", ["alg=ippo_ff"])


def test_defaults_follow_jumanjis_a2c():
    config = load_config()
    jumanji = {"GAMMA": 0.99, "GAE_LAMBDA": 0.95, "PG_COEF": 1.0, "VF_COEF": 1.0, "ENT_COEF": 0.01}
    assert {k: config[k] for k in jumanji} == jumanji
    assert config["NORMALIZE_ADVANTAGE"] is False


def test_bad_config_values_are_clear_errors():
    with pytest.raises(ValueError, match="NETWORK"):
        a2c.make_train(load_config(NETWORK="transformer", **tiny()))
    with pytest.raises(ValueError, match="CRITIC"):
        a2c.make_train(load_config(CRITIC="central", **tiny()))
    with pytest.raises(ValueError, match="TOTAL_TIMESTEPS"):
        a2c.make_train(load_config(**tiny(TOTAL_TIMESTEPS=8)))


# ------------------------------------------------------------------- update


@pytest.mark.parametrize(
    ("alg", "normalize", "shared"),
    [("ia2c_ff", False, False), ("maa2c_rnn", True, False), ("ia2c_rnn", False, True)],
)
def test_an_update_is_one_adam_step_on_the_a2c_loss(alg, normalize, shared):
    """The first update equals one step of Adam (after clipping) on the loss written out
    here from the rollout it collected: -mean(A log pi) + mean((G - V)^2) - 0.01 mean(H),
    with A and G the lambda-advantages and returns of that rollout; also with the actor and
    the critic on one torso (``SHARED_TORSO``), where both terms move the torso."""
    env = "mpe_simple_tag" if alg.startswith("maa2c") else "mpe_simple_spread"
    settings = tiny(NORMALIZE_ADVANTAGE=normalize, ANNEAL_LR=False, MAX_GRAD_NORM=1e9, SHARED_TORSO=shared)
    config = load_config(alg, env, **settings)
    learner = a2c.make_learner(config)
    s = actor_critic.setup(config)
    collect = actor_critic.make_rollout(config, s).collect

    def expected_and_actual(key):
        runner = learner.init(key)
        after, _ = learner.update(runner, jnp.int32(0))
        _, traj, _, last_value = collect(runner)
        adv, targets = actor_critic.gae(traj.reward, traj.value, traj.done, last_value, 0.99, 0.95)
        critic_in = traj.critic_in if config["CRITIC"] == "world" else traj.obs

        def loss(params):
            *_, pi, value = actor_critic.run_networks(
                s,
                params,
                runner.actor_hidden,
                runner.critic_hidden,
                traj.obs,
                critic_in,
                traj.resets,
                traj.avail,
            )
            a = (adv - adv.mean()) / (adv.std() + 1e-8) if normalize else adv
            policy = -jnp.mean(a * pi.log_prob(traj.action))
            return policy + jnp.mean((targets - value) ** 2) - 0.01 * jnp.mean(pi.entropy())

        params = runner.train_state.params
        grads = jax.grad(loss)(params)
        adam = optax.adam(config["LR"], eps=1e-5)
        step, _ = adam.update(grads, adam.init(params), params)
        return optax.apply_updates(params, step), after.train_state.params, params

    expected, actual, before = fast_jit(expected_and_actual)(jax.random.PRNGKey(3))
    for e, a, b in zip(
        jax.tree.leaves(expected), jax.tree.leaves(actual), jax.tree.leaves(before), strict=True
    ):
        np.testing.assert_allclose(a, e, rtol=1e-5, atol=1e-6)
        assert not np.array_equal(a, b)  # every parameter moved


# ----------------------------------------------------------- every family

# Between them: every alg, discrete, masked and continuous actions. The environment side
# (shared with PPO, baselines/actor_critic.py) is run on every family by PPO's tests.
FAMILIES = [
    ("ia2c_ff", "mpe_simple_world_comm", {}),  # heterogeneous agents, padded and masked
    ("maa2c_ff", "mpe_simple_speaker_listener", {"ENV_KWARGS.action_type": "Continuous"}),
    ("ia2c_rnn", "switch_riddle", {}),  # masked: only the prisoner in the room acts
    ("maa2c_rnn", "smax_2s3z", {"ENV_KWARGS.scenario": "3m"}),  # masked moves and attacks
    ("ia2c_ff", "camar_random_grid", {"ENV_KWARGS.num_agents": 2}),  # continuous, 2-d forces
]


@pytest.mark.parametrize(("alg", "env", "kwargs"), FAMILIES, ids=[f"{a}-{e}" for a, e, _ in FAMILIES])
def test_trains_with_every_kind_of_agents_and_actions(alg, env, kwargs):
    config = load_config(alg, env, **tiny(**kwargs))
    out = fast_jit(a2c.make_train(config))(jax.random.PRNGKey(0))
    metrics = out["metrics"]
    np.testing.assert_array_equal(metrics["timestep"], [16, 32])
    for name in ["loss_total", "loss_actor", "loss_value", "entropy", "grad_norm"]:
        assert np.all(np.isfinite(metrics[name])), name
    assert np.all(np.asarray(metrics["grad_norm"]) > 0)
    assert all(np.all(np.isfinite(x)) for x in jax.tree.leaves(out["params"]))


def _one_id_per_class() -> dict[str, str]:
    """Registered id -> the env config that trains it: one id per environment class of the
    registry (its first; MABrax's cheapest robot), with the config naming that id, else a
    config of the same family retargeted by ``ENV_NAME`` (plain SMAX, SMAX against a
    learned policy)."""
    configs = {}
    for path in sorted((CONFIG_DIR / "actor_critic" / "env").glob("*.yaml")):
        configs.setdefault(yaml.safe_load(path.read_text())["ENV_NAME"], path.stem)
    chosen, classes = {}, set()
    first = ["hopper_3x1"]  # MABrax robots differ only in the Brax system; the hopper is the smallest
    for env_id in first + [e for e in jaxmarl.registered_envs if e not in first]:
        entry = str(jaxmarl.registration.spec(env_id).entry_point)
        if entry in classes:
            continue
        classes.add(entry)
        if env_id in configs:
            chosen[env_id] = configs[env_id]
            continue
        module = entry.split(":")[0]
        siblings = [
            c
            for i, c in configs.items()
            if str(jaxmarl.registration.spec(i).entry_point).startswith(module + ":")
        ]
        assert siblings, f"no env config trains {env_id} or its family"
        chosen[env_id] = siblings[0]
    return chosen


EVERY_CLASS = _one_id_per_class()
# Classes whose env configs PPO already trains (A2C and PPO share the rollout, batching and
# networks of baselines/actor_critic.py; only the loss differs, and A2C's is checked on
# every kind of agents and actions above): every MPE config and the grid games
# (tests/baselines/test_ppo.py), and MABrax (tests/environments/mabrax/test_mabrax_ppo.py).
TRAINED_BY_PPO = {e for e in EVERY_CLASS if e.startswith("MPE_")} | {
    "switch_riddle",
    "coin_game",
    "hopper_3x1",
}


def test_ppo_trains_the_classes_left_out():
    """``TRAINED_BY_PPO`` stays true: PPO's tests train each of those classes' configs."""
    import test_ppo

    trained = {env for _, env in test_ppo.MPE_ALGS} | set(
        test_ppo.test_trains_on_the_grid_games.pytestmark[0].args[1]
    )
    mabrax = (REPO / "tests" / "environments" / "mabrax" / "test_mabrax_ppo.py").read_text()
    for env_id in TRAINED_BY_PPO:
        config = EVERY_CLASS[env_id]
        assert config in trained or f'"env={config}"' in mabrax, (env_id, config)


@pytest.mark.parametrize("env_id", [e for e in EVERY_CLASS if e not in TRAINED_BY_PPO])
def test_one_update_on_every_registered_environment_class(env_id):
    """Smoke: one update (2 envs x 4 steps) of IA2C on one registered id of every
    environment class that PPO's tests do not train (``TRAINED_BY_PPO``), with its
    config's networks and keywords: the losses and the new parameters are finite and the
    gradient is not zero."""
    config = load_config(env=EVERY_CLASS[env_id], ENV_NAME=env_id, NUM_ENVS=2, NUM_STEPS=4, TOTAL_TIMESTEPS=8)
    out = fast_jit(a2c.make_train(config))(jax.random.PRNGKey(0))
    metrics = out["metrics"]
    np.testing.assert_array_equal(metrics["timestep"], [8])
    for name in ["loss_total", "loss_actor", "loss_value", "entropy", "grad_norm"]:
        assert np.all(np.isfinite(metrics[name])), name
    assert np.all(np.asarray(metrics["grad_norm"]) > 0)
    assert all(np.all(np.isfinite(x)) for x in jax.tree.leaves(out["params"]))


# ------------------------------------------------------------------ learning


def test_learns_simple_spread_beyond_a_random_policy():
    """2e5 steps (about 30 s): both seeds beat a random policy on the same 128 episodes by
    more than 3 per agent (measured: -20.8 and -20.6 against -27.6; the standard error of
    the random policy's mean is about 0.3)."""
    config = load_config(TOTAL_TIMESTEPS=2e5, NUM_SEEDS=2)
    out = long_run_jit(jax.vmap(a2c.make_train(config)))(common.seed_keys(config))
    env, init_hidden, act = a2c.make_policy(config)
    keys = jax.random.split(jax.random.PRNGKey(7), 128)
    ours, rand = evaluate.returns_on_keys(
        env, init_hidden, act, out["params"], keys, False, env.max_steps, compiler_options=COMPILER_OPTIONS
    )
    trained, random_return = ours.mean(axis=(1, 2)), float(rand.mean())
    assert np.all(trained > random_return + 3.0), (trained, random_return)


def test_learns_masked_smax_beyond_a_random_policy():
    """SMAX 2s3z against the heuristic enemy, whose action masks rule out moves off the map
    and attacks on units out of range or dead: 1e5 steps take the return from a random
    policy's 0.21 (of the best 2) to 0.33 (seed 0; standard error about 0.02)."""
    config = load_config(
        env="smax_2s3z", TOTAL_TIMESTEPS=1e5, NUM_ENVS=16, NUM_STEPS=10, LR=3e-3, NUM_SEEDS=1
    )
    out = long_run_jit(jax.vmap(a2c.make_train(config)))(common.seed_keys(config))
    env, init_hidden, act = a2c.make_policy(config)
    keys = jax.random.split(jax.random.PRNGKey(7), 64)
    ours, rand = evaluate.returns_on_keys(
        env, init_hidden, act, out["params"], keys, False, env.max_steps, compiler_options=COMPILER_OPTIONS
    )
    trained, random_return = float(ours.mean()), float(rand.mean())
    assert trained > random_return + 0.08, (trained, random_return)


def test_learns_masked_grid_foraging_beyond_a_random_policy():
    """LevelBasedForaging (Jumanji's, 2 foragers and 2 items on 8 x 8, 100 steps), a grid
    env whose masks rule out moves onto food, other foragers and off the grid, with
    ``force_coop=False`` (an item is often light enough for one forager): 2e5 steps of
    Jumanji's A2C settings (LR 1e-3) take the return per agent from a masked random
    policy's 0.16 (standard error 0.014 over these 128 episodes) to 0.35 and 0.40 (seeds
    0 and 1; eating everything pays 0.5)."""
    config = load_config(
        env="jumanji_lbf",
        TOTAL_TIMESTEPS=2e5,
        NUM_ENVS=32,
        NUM_SEEDS=1,
        **{"+ENV_KWARGS": "{grid_size:8,num_agents:2,num_food:2,force_coop:false}"},
    )
    out = long_run_jit(jax.vmap(a2c.make_train(config)))(common.seed_keys(config))
    env, init_hidden, act = a2c.make_policy(config)
    keys = jax.random.split(jax.random.PRNGKey(7), 128)
    ours, rand = evaluate.returns_on_keys(
        env, init_hidden, act, out["params"], keys, False, env.max_steps, compiler_options=COMPILER_OPTIONS
    )
    trained, random_return = float(ours.mean()), float(rand.mean())
    assert random_return < 0.2 and trained > random_return + 0.1, (trained, random_return)


# ------------------------------------------------------- run folder, CLI


def test_command_line_trains_saves_and_evaluates(tmp_path):
    """`python baselines/a2c.py ...` trains with progress and writes the run folder;
    the evaluation and `jaxmarl.load_policy` find A2C's policy
    through the run's ALG_FAMILY."""
    run_dir = tmp_path / "run"
    overrides = [f"{k}={v}" for k, v in tiny(TOTAL_TIMESTEPS=48).items()]
    train = run_script(
        "baselines/a2c.py",
        "alg=ia2c_ff",
        "env=mpe_simple_reference",
        *overrides,
        "NUM_SEEDS=2",
        "PROGRESS_INTERVAL_S=0",
        f"hydra.run.dir={run_dir}",
    )
    assert "ia2c_ff on MPE_simple_reference_v3, 2 seed(s)" in train.stdout, train.stdout
    assert "update     3/3 | timesteps         48/48 (100%)" in train.stdout, train.stdout
    config, params = runs.load_run(run_dir)
    assert config["ALG_FAMILY"] == "a2c" and config["NUM_SEEDS"] == 2
    rows = (run_dir / "metrics.csv").read_text().splitlines()
    assert len(rows) == 1 + 2 * 3 and "grad_norm" in rows[0].split(",")
    assert (run_dir / "learning_curve.png").read_bytes()[:4] == b"\x89PNG"

    cfg = {"EVAL_EPISODES": 3, "EVAL_SEED": 1, "GREEDY": False, "MAX_STEPS": 50, "GIF_STEPS": 0}
    with fast_compilation():  # tiny episodes: compiling is the cost
        result = evaluate.evaluate(run_dir, cfg)
    assert result["alg"] == "ia2c_ff" and len(result["return_mean_per_seed"]) == 2

    policy = jaxmarl.load_policy(run_dir, seed=1)
    obs, state = policy.env.reset(jax.random.PRNGKey(0))
    actions, _ = policy.act(jax.random.PRNGKey(1), obs, state)
    assert set(actions) == set(policy.env.agents)
    assert all(0 <= int(actions[a]) < policy.env.action_space(a).n for a in policy.env.agents)
