"""IPPO (baselines/ppo.py) learns on SMAX 2s3z against the heuristic, beyond a random
policy's return, in a CI-sized budget (1e5 steps)."""

import jax
import numpy as np
from fast_compile import jit, long_run_jit

from baselines import common, evaluate, ppo
from jaxmarl.environments.multi_agent_env import random_actions


def test_ippo_beats_a_random_policy_on_2s3z():
    config = common.compose_config(
        "ppo",
        ["alg=ippo_ff", "env=smax_2s3z", "TOTAL_TIMESTEPS=1e5", "NUM_ENVS=16", "NUM_STEPS=64", "LR=1e-3"],
    )
    # common.train_seeds, compiled for a long run (fast_compile.LONG_RUN_OPTIONS).
    keys = common.shard_over_devices(common.seed_keys(config), config)
    out = long_run_jit(jax.vmap(ppo.make_train(config)))(keys)
    env, init_hidden, act = ppo.make_policy(config)
    params = jax.tree.map(lambda x: x[0], out["params"])
    keys = jax.random.split(jax.random.PRNGKey(7), 64)

    def play(key):
        policy = lambda h, o, s, r, k: act(params, h, o, s, r, k, False)  # noqa: E731
        return evaluate.episode_returns(env, policy, init_hidden(), key, env.max_steps)

    def play_random(key):
        policy = lambda h, o, s, r, k: (h, random_actions(env, k, s))  # noqa: E731
        return evaluate.episode_returns(env, policy, init_hidden(), key, env.max_steps)

    # The evaluations are short: compiled without backend optimisations.
    trained = float(np.asarray(jit(jax.vmap(play))(keys)).mean())
    rand = float(np.asarray(jit(jax.vmap(play_random))(keys)).mean())
    # A random policy scores about 0.2 of the best 2; trained, about 0.4 (standard error ~0.02).
    assert trained > rand + 0.1, (trained, rand)
