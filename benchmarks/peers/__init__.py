"""Peers the harness measures against, each in its own virtual environment.

A peer is a library a user would otherwise reach for. Each gets a virtual environment
created on demand (``ensure_venv``), because the reference JaxMARL has the same import
name as ours and can never share one with it. JAX-based peers get the very JAX and
jaxlib versions this process runs, so a ratio compares libraries, not JAX releases.

Virtual environments live in ``$JAXMARL_BENCH_VENVS`` (default
``~/.cache/jaxmarl/bench-venvs``), one folder per peer, reused while the requirements
they were built from stay the same.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Peer:
    """How to install a peer and which worker script measures it.

    ``vectorised``: whether its throughput is measured at each ``N`` (a JAX library) or
    once for one environment stepped in a Python loop (``N`` does not apply).
    ``suite``: ``env`` (environment throughput, ``benchmarks.run``) or ``train``
    (training throughput, ``benchmarks.train_vs_jaxmarl``).
    """

    name: str
    label: str
    requirements: tuple[str, ...]
    worker: Path
    same_jax: bool
    vectorised: bool
    local: bool = False  # runs in this process's environment (the dry-run peer)
    suite: str = "env"


PEERS: dict[str, Peer] = {
    "jaxmarl020": Peer(
        name="jaxmarl020",
        label="JaxMARL 0.2.0",
        requirements=("jaxmarl==0.2.0", "brax==0.14.2"),  # brax for its MABrax envs
        worker=BENCHMARKS / "env_throughput.py",
        same_jax=True,
        vectorised=True,
    ),
    # The original JaxMARL baseline scripts: the package and its algorithms' dependencies;
    # the scripts come from the user's clone (benchmarks/train_vs_jaxmarl.py --checkout).
    "jaxmarl_scripts": Peer(
        name="jaxmarl_scripts",
        label="JaxMARL 0.2.0 baseline scripts",
        requirements=("jaxmarl[algs]==0.2.0",),
        worker=BENCHMARKS / "peers" / "jaxmarl_train.py",
        same_jax=True,
        vectorised=False,
        suite="train",
    ),
    "mpe2": Peer(
        name="mpe2",
        label="PettingZoo MPE (mpe2 1.1, 1 env, Python loop)",
        requirements=("mpe2==1.1.*",),
        worker=BENCHMARKS / "peers" / "mpe2_throughput.py",
        same_jax=False,
        vectorised=False,
    ),
    "camar": Peer(
        name="camar",
        label="CAMAR 0.4.0",
        requirements=("camar==0.4.0",),
        worker=BENCHMARKS / "peers" / "camar_throughput.py",
        same_jax=True,
        vectorised=True,
    ),
    "jumanji": Peer(
        name="jumanji",
        label="Jumanji 1.1.2",
        requirements=("jumanji==1.1.2",),
        worker=BENCHMARKS / "peers" / "jumanji_throughput.py",
        same_jax=True,
        vectorised=True,
    ),
    # Ours again, run as if it were a peer: exercises the whole harness without
    # installing anything (tests, dry runs). Its ratios only show the noise floor.
    "self": Peer(
        name="self",
        label="jaxmarl (ours, as its own peer)",
        requirements=(),
        worker=BENCHMARKS / "env_throughput.py",
        same_jax=True,
        vectorised=True,
        local=True,
    ),
}


def venv_root() -> Path:
    return Path(os.environ.get("JAXMARL_BENCH_VENVS", Path.home() / ".cache" / "jaxmarl" / "bench-venvs"))


def requirements(peer: Peer) -> list[str]:
    """The peer's pip requirements, plus this process's JAX versions for JAX peers."""
    reqs = list(peer.requirements)
    if peer.same_jax:
        reqs += [f"jax=={metadata.version('jax')}", f"jaxlib=={metadata.version('jaxlib')}"]
    return reqs


def ensure_venv(peer: Peer, log: bool = True) -> Path:
    """The Python interpreter of the peer's virtual environment, created if missing or
    built from other requirements."""
    if peer.local:
        return Path(sys.executable)
    folder = venv_root() / peer.name
    python = folder / "bin" / "python"
    marker = folder / "requirements.json"
    reqs = requirements(peer)
    if python.exists() and marker.exists() and json.loads(marker.read_text()) == reqs:
        return python
    if log:
        print(f"creating the {peer.label} virtual environment in {folder}: pip install {' '.join(reqs)}")
    shutil.rmtree(folder, ignore_errors=True)
    folder.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--upgrade", "pip"], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "-q", *reqs], check=True)
    marker.write_text(json.dumps(reqs))
    return python


def list_envs(python: Path | str, worker: Path, candidates: list[str]) -> list[str]:
    """Which of ``candidates`` the library under ``python`` has, asked of ``worker``."""
    out = subprocess.run(
        [str(python), str(worker), "--list", *candidates], check=True, capture_output=True, text=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def peer_envs(peer: Peer, python: Path | str, candidates: list[str]) -> list[str]:
    """Which of ``candidates`` the peer has, asked of its own worker."""
    return list_envs(python, peer.worker, candidates)
