"""Multi-host training: two local processes joined by ``jax.distributed`` (CPU backend,
gloo collectives) train PPO from the command line with the seeds sharded across them,
and the run folder process 0 writes equals a single-process run of the same command."""

import os
import socket
import subprocess
import sys
from pathlib import Path

import jax
import numpy as np
import pytest
from fast_compile import FAST_ENV

from baselines import runs

REPO = Path(__file__).resolve().parents[2]
TINY = [
    "env=mpe_simple_spread",
    "NUM_SEEDS=2",
    "NUM_ENVS=2",
    "NUM_STEPS=8",
    "TOTAL_TIMESTEPS=64",
    "UPDATE_EPOCHS=1",
    "NUM_MINIBATCHES=2",
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("localhost", 0))
        return sock.getsockname()[1]


def launch(run_dir: Path, *overrides: str) -> subprocess.Popen:
    env = {
        **os.environ,
        "JAX_PLATFORMS": "cpu",
        "JAX_CPU_COLLECTIVES_IMPLEMENTATION": "gloo",
        "XLA_FLAGS": FAST_ENV["XLA_FLAGS"],
    }
    return subprocess.Popen(
        [sys.executable, "baselines/ppo.py", *TINY, f"hydra.run.dir={run_dir}", *overrides],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def finish(process: subprocess.Popen) -> str:
    try:
        out, _ = process.communicate(timeout=300)
    except subprocess.TimeoutExpired:
        process.kill()
        out, _ = process.communicate()
        pytest.fail(f"a training process hung:\n{out}")
    assert process.returncode == 0, out
    return out


def test_two_processes_train_the_seeds_of_one_run_as_a_single_process_does(tmp_path):
    port = free_port()
    distributed = [
        "distributed.enabled=true",
        f"distributed.coordinator_address=localhost:{port}",
        "distributed.num_processes=2",
    ]
    multi = [launch(tmp_path / "multi", *distributed, f"distributed.process_id={i}") for i in (0, 1)]
    single = launch(tmp_path / "single")
    logs = [finish(p) for p in multi]
    finish(single)

    for i, log in enumerate(logs):
        assert f"(process {i} of 2, 2 devices)" in log, log
    assert "saved config.yaml" in logs[0] and "saved config.yaml" not in logs[1]

    config_m, params_m = runs.load_run(tmp_path / "multi")
    config_s, params_s = runs.load_run(tmp_path / "single")
    assert config_m["NUM_SEEDS"] == config_s["NUM_SEEDS"] == 2
    leaves_m, leaves_s = jax.tree.leaves(params_m), jax.tree.leaves(params_s)
    assert len(leaves_m) == len(leaves_s) > 0
    for a, b in zip(leaves_m, leaves_s, strict=True):
        assert a.shape == b.shape and a.shape[0] == 2
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-5)
    # The two seeds trained differently (each process really ran its own seed).
    assert not np.allclose(leaves_m[0][0], leaves_m[0][1])
    metrics_m = np.genfromtxt(tmp_path / "multi" / "metrics.csv", delimiter=",", names=True)
    metrics_s = np.genfromtxt(tmp_path / "single" / "metrics.csv", delimiter=",", names=True)
    assert metrics_m.dtype.names == metrics_s.dtype.names and len(metrics_m) == len(metrics_s) == 8
    for name in metrics_m.dtype.names:
        np.testing.assert_allclose(metrics_m[name], metrics_s[name], rtol=0, atol=1e-4, err_msg=name)
