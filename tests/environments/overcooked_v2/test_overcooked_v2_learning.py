"""IPPO (``baselines/ppo.py``) learns to serve soup in Overcooked V2's cramped_room.

A uniformly random policy delivers a soup in 5.1% of 400-step episodes: a mean return of
1.02 over 4096 episodes (measured with this env, ``layout="cramped_room"``). With the
Overcooked hyperparameters of ``env=overcooked_v2`` (the JaxMARL paper's Table 6 and the
annealed shaped reward), 3.2e5 steps (19 updates of 64 envs x 256 steps) of IPPO make the
cooks return more than 10 per episode in the last updates (measured: about 31), ten
times the random policy.
"""

from __future__ import annotations

import numpy as np
from fast_compile import long_run_jit

from baselines import common, ppo


def test_ippo_serves_soup_in_cramped_room():
    config = common.compose_config("ppo", ["alg=ippo_ff", "env=overcooked_v2", "TOTAL_TIMESTEPS=3.2e5"])
    out = long_run_jit(ppo.make_train(config))(common.seed_keys(config)[0])
    returns = np.asarray(out["metrics"]["return_mean"])
    # Episodes (400 steps) end every other update of 256 steps: the last four updates
    # hold the last two episodes of every env.
    assert np.nanmean(returns[-4:]) > 10.0, returns.round(2).tolist()
    assert np.nanmean(np.asarray(out["metrics"]["deliveries"])[-4:]) > 0.5
