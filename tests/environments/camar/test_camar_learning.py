"""IPPO (``baselines/ppo.py``) learns to bring CAMAR agents to their goals on random_grid.

The paper's map (20x20 cells of 0.4, 100-step episodes) is out of reach with camar
0.4.0's default dynamics: an agent's top speed is 0.2 map units per unit time, 0.6 units
per episode (docs/environments/camar.md, Training). The test scales the task to a CI
budget without changing its rules: 8 agents on random 8x8 grids (obstacle density 0.2),
agents four times as strong (``accel=20``, top speed 0.8) and goals of radius 0.1 instead
of 0.02. Success is counted at an episode's last step, so agents must learn to stop on
their goals.

A policy that samples actions uniformly from [-1, 1]^2 ends 0.04% of agent-episodes on
the goal (16,000 agent-episodes, ``PRNGKey(0)``), one that samples them as PPO's initial
policy does (a unit Gaussian, clipped) 0.13%, both with a return around -13 to -16 per
agent (collisions cost 1 per step). After 1e5 steps of IPPO-FF (48 updates of 32 envs x
64 steps) 16%, 18% and 16% (seeds 0, 1, 2) of agents end on their goal with a return near 3;
after 3e5 steps, 22-24%. The test asks for a success rate of 0.08, sixty times the random
policies', and a positive return.
"""

from __future__ import annotations

import numpy as np
from fast_compile import long_run_jit

from baselines import common, ppo

RANDOM_SUCCESS_RATE = 0.0013
RANDOM_RETURN = -13.1


def test_ippo_brings_agents_to_their_goals_far_more_often_than_a_random_policy():
    config = common.compose_config(
        "ppo",
        [
            "alg=ippo_ff",
            "env=camar_random_grid",
            "TOTAL_TIMESTEPS=1e5",
            "NUM_ENVS=32",
            "NUM_STEPS=64",
            "+ENV_KWARGS={num_rows:8,num_cols:8,obstacle_density:0.2,goal_rad_range:[0.1,0.1],"
            "dynamic_kwargs:{accel:20.0}}",
        ],
    )
    assert config["ENV_KWARGS"]["num_agents"] == 8
    out = long_run_jit(ppo.make_train(config))(common.seed_keys(config)[0])
    metrics = {k: np.asarray(v) for k, v in out["metrics"].items()}
    success = np.nanmean(metrics["success_rate"][-5:])
    returns = np.nanmean(metrics["return_mean"][-5:])
    summary = (
        f"success rate {success:.3f}, return {returns:.2f} (random: {RANDOM_SUCCESS_RATE}, {RANDOM_RETURN})"
    )
    assert success > 0.08, summary
    assert returns > 0.0, summary
