"""IPPO (``baselines/ppo.py``) learns to drive JaxNav robots to their goals.

The task is scaled to a CI budget: two robots on random 7x7 maps (fill 0.2), 16 lidar
beams, 100-step episodes, continuous actions. A uniformly random policy reaches its goal
in 5.8% of robot-episodes, with a mean return of -5.28 per robot (4267 episodes, 256
envs x 800 steps, ``PRNGKey(0)``): it mostly drives into walls. After 3e5 steps of
IPPO-FF (146 updates of 32 envs x 64 steps, about 15 s of training on a 2-core CPU)
robots reach their goals in 67% of the last five updates' episodes with a mean return
of 1.06 (seeds 1 and 2: 51% and 74%); the test asks for a goal rate of 0.3 (five times
the random policy's) and a return above -2.
"""

from __future__ import annotations

import numpy as np
from fast_compile import long_run_jit

from baselines import common, ppo

RANDOM_GOAL_RATE = 0.058
RANDOM_RETURN = -5.28


def test_ippo_reaches_goals_far_more_often_than_a_random_policy():
    config = common.compose_config(
        "ppo",
        [
            "alg=ippo_ff",
            "env=jaxnav",
            "TOTAL_TIMESTEPS=3e5",
            "NUM_ENVS=32",
            "NUM_STEPS=64",
            "+ENV_KWARGS={num_agents:2,lidar_num_beams:16,max_steps:100,map_params:{map_size:[7,7],fill:0.2}}",
        ],
    )
    out = long_run_jit(ppo.make_train(config))(common.seed_keys(config)[0])
    metrics = {k: np.asarray(v) for k, v in out["metrics"].items()}
    goal_rate = np.nanmean(metrics["goal_rate"][-5:])
    returns = np.nanmean(metrics["return_mean"][-5:])
    summary = f"goal rate {goal_rate:.3f}, return {returns:.2f} (random: {RANDOM_GOAL_RATE}, {RANDOM_RETURN})"
    assert goal_rate > 5 * RANDOM_GOAL_RATE, summary
    assert returns > -2.0, summary
