"""IPPO (``baselines/ppo.py``) learns to serve soup in cramped_room.

A uniformly random policy delivers a soup in about 5% of 400-step episodes (a mean
sparse return of 1.0 over 4096 episodes). With the paper's hyperparameters and the
annealed shaped reward, 3.2e5 steps (19 updates of 64 envs x 256 steps) of IPPO make the
cooks deliver more than 10 points per episode on average in the last updates, ten times
the random policy. The paper's full run (5e6 steps, ``python baselines/ppo.py
alg=ippo_ff env=overcooked``) is documented in ``docs/environments/overcooked.md``.
"""

from __future__ import annotations

import numpy as np
from fast_compile import long_run_jit

from baselines import common, ppo


def test_ippo_delivers_soups_in_cramped_room():
    config = common.compose_config("ppo", ["alg=ippo_ff", "env=overcooked", "TOTAL_TIMESTEPS=3.2e5"])
    # A long run: compiled with LLVM's level 1, it takes about 22 s of CPU time, against
    # 40 s without backend optimisations (fast_compile.jit) and 24 s with the default.
    out = long_run_jit(ppo.make_train(config))(common.seed_keys(config)[0])
    metrics = out["metrics"]
    returns = np.asarray(metrics["return_mean"])[-3:]
    assert np.nanmean(returns) > 10.0, np.asarray(metrics["return_mean"]).round(2).tolist()
