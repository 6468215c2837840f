"""IPPO learns 2-player Hanabi beyond a random policy within a CI-sized budget.

A uniformly random legal policy scores 0 in practice (it loses its three lives long
before the deck runs out, and HLE's score is 0 then). IPPO (feed-forward, the shipped
``env=hanabi`` config with a CPU-sized budget: 2e5 steps of 32 environments, a 64-wide
network, a higher learning rate) learns to play cards without losing every life: with
seeds 0, 1 and 2 its stochastic policy scored 0.79, 0.64 and 3.1 on average over the
same 256 games where the random policy scored 0.0.
"""

from __future__ import annotations

import jax
from fast_compile import COMPILER_OPTIONS, long_run_jit

from baselines import common, evaluate, ppo

BUDGET = {
    "TOTAL_TIMESTEPS": 2e5,
    "NUM_ENVS": 32,
    "NUM_STEPS": 32,
    "FF_WIDTH": 64,
    "UPDATE_EPOCHS": 2,
    "NUM_MINIBATCHES": 2,
    "LR": 3e-3,
    "SEED": 0,
}


def test_ippo_scores_above_a_random_policy():
    config = common.compose_config(
        "ppo", ["alg=ippo_ff", "env=hanabi"] + [f"{k}={v}" for k, v in BUDGET.items()]
    )
    # common.train_seeds, compiled for a long run (fast_compile.LONG_RUN_OPTIONS).
    keys = common.shard_over_devices(common.seed_keys(config), config)
    out = long_run_jit(jax.vmap(ppo.make_train(config)))(keys)
    env, init_hidden, act = ppo.make_policy(config)
    keys = jax.random.split(jax.random.PRNGKey(7), 256)
    ours, rand = evaluate.returns_on_keys(
        env, init_hidden, act, out["params"], keys, False, 150, compiler_options=COMPILER_OPTIONS
    )
    # Every agent's return is the team's score; 256 games give a standard error near 0.07.
    trained, random_score = float(ours.mean()), float(rand.mean())
    assert random_score < 0.1, random_score
    assert trained > 0.4, (trained, random_score)


def test_hparams_are_the_papers_table_6():
    config = common.compose_config("ppo", ["alg=ippo_ff", "env=hanabi"])
    table_6 = {
        "NUM_ENVS": 1024,
        "NUM_STEPS": 128,
        "LR": 5e-4,
        "ANNEAL_LR": True,
        "UPDATE_EPOCHS": 4,
        "NUM_MINIBATCHES": 4,
        "GAMMA": 0.99,
        "GAE_LAMBDA": 0.95,
        "CLIP_EPS": 0.2,
        "ENT_COEF": 0.01,
        "VF_COEF": 0.5,
        "MAX_GRAD_NORM": 0.5,
        "ACTIVATION": "relu",
        "FF_WIDTH": 512,
        "FF_LAYERS": 2,
        "RNN_WIDTH": 128,
        "RNN_LAYERS": 2,
    }
    assert {k: config[k] for k in table_6} == table_6
    assert config["ENV_NAME"] == "hanabi" and config["TOTAL_TIMESTEPS"] == 1e7
    paper = common.compose_config("ppo", ["alg=ippo_ff", "env=hanabi", "TOTAL_TIMESTEPS=1e10"])
    assert paper["TOTAL_TIMESTEPS"] == 1e10
