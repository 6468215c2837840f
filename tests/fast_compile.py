"""Fast compilation for tests: tiny workloads run in microseconds, so compiling is what
costs. Skipping LLVM's backend optimisations makes it several times faster (IEEE
semantics are unchanged)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jax

COMPILER_OPTIONS = {"xla_backend_optimization_level": 0}
# For the few long runs (training to a learning threshold, thousands of battles): LLVM's
# level 1 runs them as fast as XLA's default (level 3) and compiles about 30% faster.
LONG_RUN_OPTIONS = {"xla_backend_optimization_level": 1}
# For subprocesses: the XLA flags this process was started with (conftest.py's among them)
# and no backend optimisations.
_INHERITED_FLAGS = os.environ.get("XLA_FLAGS", "")
FAST_ENV = {**os.environ, "XLA_FLAGS": f"{_INHERITED_FLAGS} --xla_backend_optimization_level=0".strip()}
REPO = Path(__file__).resolve().parents[1]


def jit(fn: Any, **kwargs: Any) -> Any:
    return jax.jit(fn, compiler_options=COMPILER_OPTIONS, **kwargs)


def long_run_jit(fn: Any, **kwargs: Any) -> Any:
    """``jax.jit`` for a long run (see ``LONG_RUN_OPTIONS``)."""
    return jax.jit(fn, compiler_options=LONG_RUN_OPTIONS, **kwargs)


@contextlib.contextmanager
def fast_compilation() -> Iterator[None]:
    """Within ``with``: everything JAX compiles skips the backend optimisations, whoever
    calls ``jax.jit`` (code under test that takes no compiler options, eager operations).
    Uses the ``jax_disable_most_optimizations`` flag, restored on exit."""
    previous = jax.config.read("jax_disable_most_optimizations")
    jax.config.update("jax_disable_most_optimizations", True)
    try:
        yield
    finally:
        jax.config.update("jax_disable_most_optimizations", previous)


def run_script(*args: str) -> subprocess.CompletedProcess:
    """``python <args>`` from the repository root with fast compilation; raises on failure."""
    return subprocess.run(
        [sys.executable, *args], cwd=REPO, capture_output=True, text=True, check=True, env=FAST_ENV
    )
