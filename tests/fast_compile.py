"""Fast compilation for tests: tiny workloads run in microseconds, so compiling is what
costs. Skipping LLVM's backend optimisations makes it several times faster (IEEE
semantics are unchanged)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import jax

COMPILER_OPTIONS = {"xla_backend_optimization_level": 0}
FAST_ENV = {**os.environ, "XLA_FLAGS": "--xla_backend_optimization_level=0"}
REPO = Path(__file__).resolve().parents[1]


def jit(fn: Any, **kwargs: Any) -> Any:
    return jax.jit(fn, compiler_options=COMPILER_OPTIONS, **kwargs)


def run_script(*args: str) -> subprocess.CompletedProcess:
    """``python <args>`` from the repository root with fast compilation; raises on failure."""
    return subprocess.run(
        [sys.executable, *args], cwd=REPO, capture_output=True, text=True, check=True, env=FAST_ENV
    )
