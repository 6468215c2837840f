"""IPPO (``baselines/ppo.py``) learns to deliver shelves in a small RobotWarehouse.

RobotWarehouse-v0 (4 robots, 20 x 10 floor, 500 steps) is out of reach of a CI budget:
its only reward is a delivery, which random play almost never makes. The test keeps
the rules and scales the instance through the generator's keywords: 2 robots on a 4 x 10
floor with one band of shelf clusters (``shelf_rows=1, shelf_columns=3,
column_height=1``: 4 shelves, 3 of them requested) and 50-step episodes.

A masked uniformly random policy delivers 0.010 shelves per episode there (23,232
episodes, 512 environments x 2000 steps from ``PRNGKey(0)``). IPPO-FF with ``LR=1e-3``
(64 envs x 64 steps per update) passes 0.1 after about 1.2e5 steps and delivers 2.7
shelves per episode over the last five updates of 4e5 steps (seed 0); the test asks for
0.25, twenty-five times the random policy, which random play cannot average over the
hundreds of episodes of five updates. About 50 s of CPU time, compilation included.
"""

from __future__ import annotations

import numpy as np
from fast_compile import long_run_jit

from baselines import common, ppo

RANDOM_DELIVERIES = 0.010  # per episode, masked uniformly random policy (see the docstring)


def test_ippo_delivers_shelves_far_more_often_than_a_random_policy():
    config = common.compose_config(
        "ppo",
        [
            "alg=ippo_ff",
            "env=jumanji_robot_warehouse",
            "TOTAL_TIMESTEPS=4e5",
            "NUM_ENVS=64",
            "NUM_STEPS=64",
            "LR=1e-3",
            "++ENV_KWARGS={shelf_rows:1,shelf_columns:3,column_height:1,num_agents:2,"
            "request_queue_size:3,time_limit:50}",
        ],
    )
    out = long_run_jit(ppo.make_train(config))(common.seed_keys(config)[0])
    metrics = {k: np.asarray(v) for k, v in out["metrics"].items()}
    deliveries = np.nanmean(metrics["deliveries"][-5:])
    returns = np.nanmean(metrics["return_mean"][-5:])
    summary = f"deliveries per episode {deliveries:.3f}, return {returns:.3f} (random: {RANDOM_DELIVERIES})"
    assert deliveries > 0.25, summary
    assert returns > 0.25, summary  # the shared reward is the delivery count
