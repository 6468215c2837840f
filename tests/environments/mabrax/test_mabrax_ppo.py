"""IPPO runs on MABrax (continuous actions, shared reward, truncation at the time limit)
with the shipped configs. Learning itself takes longer than CI affords on a CPU; the
documented run is in docs/environments/mabrax.md."""

from __future__ import annotations

import jax
import numpy as np
from fast_compile import jit

from baselines import common, ppo


def test_ippo_smoke_on_hopper():
    # Brax's spring pipeline: the physics is beside the point here (IPPO's Gaussian policy
    # on MABrax's spaces), and it compiles in half the time of the default MJX.
    config = common.compose_config(
        "ppo",
        [
            "alg=ippo_ff",
            "env=mabrax_hopper_3x1",
            "+ENV_KWARGS.backend=spring",
            "NUM_ENVS=2",
            "NUM_STEPS=8",
            "TOTAL_TIMESTEPS=32",
            "UPDATE_EPOCHS=1",
            "NUM_MINIBATCHES=2",
        ],
    )
    setup = ppo.setup(config)
    assert not setup.batcher.discrete and setup.batcher.action_dim == 1
    assert setup.batcher.obs_dim == 9 + 3  # the widest local observation and a one-hot id
    out = jit(ppo.make_train(config))(jax.random.PRNGKey(0))
    metrics = out["metrics"]
    np.testing.assert_array_equal(metrics["timestep"], [16, 32])
    for name in ["loss_total", "loss_actor", "loss_value", "entropy"]:
        assert np.all(np.isfinite(metrics[name])), name
    assert all(np.all(np.isfinite(x)) for x in jax.tree.leaves(out["params"]))
    # The Gaussian policy's log-std moved away from its initial 0.
    assert np.any(np.asarray(out["params"]["actor"]["params"]["log_std"]) != 0)


def test_shipped_mabrax_configs_are_table_7():
    expected = {  # Ant, HalfCheetah and Walker columns of the JaxMARL paper's Table 7
        "mabrax_ant_4x2": (1e-3, 2e-6, 4.5),
        "mabrax_halfcheetah_6x1": (6e-4, 4.5e-3, 0.14),
        "mabrax_walker2d_2x3": (7e-3, 1e-3, 1.9),
    }
    for env, (lr, ent, vf) in expected.items():
        config = common.compose_config("ppo", ["alg=ippo_ff", f"env={env}"])
        assert (config["LR"], config["ENT_COEF"], config["VF_COEF"]) == (lr, ent, vf)
        shared = {
            "TOTAL_TIMESTEPS": 1e8,
            "NUM_ENVS": 64,
            "NUM_STEPS": 300,
            "ANNEAL_LR": True,
            "UPDATE_EPOCHS": 4,
            "NUM_MINIBATCHES": 4,
            "GAMMA": 0.99,
            "GAE_LAMBDA": 1.0,
            "CLIP_EPS": 0.2,
            "MAX_GRAD_NORM": 0.5,
            "ACTIVATION": "tanh",
            "FF_LAYERS": 2,
            "FF_WIDTH": 64,
        }
        assert {k: config[k] for k in shared} == shared
