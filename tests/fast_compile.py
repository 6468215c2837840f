"""Fast compilation for tests: tiny workloads run in microseconds, so compiling is what
costs. Skipping LLVM's backend optimisations makes it several times faster (IEEE
semantics are unchanged).

The options here also select XLA's older CPU fusion emitters
(``xla_cpu_use_fusion_emitters: False``). At the low optimisation levels below they
compile about twice as fast as the default MLIR emitters (measured on 2 cores:
``tests/baselines/test_a2c.py`` and ``tests/environments/test_conformance.py``, 154
tests, 485 s instead of 828 s; the A2C learning test on SMAX 36 s instead of 55 s). They
are not set process-wide: at XLA's default level they compile slower (IPPO on MPE: 22 s
against 16 s), and CAMAR's path planners run pathologically slowly with them (in an
earlier run with them and level 0 process-wide, the RRT* test took 755 s instead of 14 s
and the CAMAR docs example 389 s instead of 42 s). The rounding of a float expression
can depend on how the older emitters fuse it, so comparisons that expect bit-for-bit the
floats of another implementation's program (``tests/oracles``, ``tests/compat``) use
``PARITY_OPTIONS`` / ``parity_jit``: the default emitters, as users' programs and the
oracles' own compile."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jax

LEGACY_EMITTERS = {"xla_cpu_use_fusion_emitters": False}
COMPILER_OPTIONS = {"xla_backend_optimization_level": 0, **LEGACY_EMITTERS}
# For the few long runs (training to a learning threshold, thousands of battles): LLVM's
# level 1 runs them as fast as XLA's default (level 3) and compiles about 30% faster.
LONG_RUN_OPTIONS = {"xla_backend_optimization_level": 1, **LEGACY_EMITTERS}
# Bit-for-bit comparisons with another implementation's program: the default emitters.
PARITY_OPTIONS = {"xla_backend_optimization_level": 0}
# For subprocesses: the XLA flags this process was started with, no backend
# optimisations and the older emitters (everything they compile is a test workload).
_FAST_FLAGS = "--xla_backend_optimization_level=0 --xla_cpu_use_fusion_emitters=false"
FAST_ENV = {**os.environ, "XLA_FLAGS": f"{os.environ.get('XLA_FLAGS', '')} {_FAST_FLAGS}".strip()}
REPO = Path(__file__).resolve().parents[1]


def jit(fn: Any, **kwargs: Any) -> Any:
    return jax.jit(fn, compiler_options=COMPILER_OPTIONS, **kwargs)


def parity_jit(fn: Any, **kwargs: Any) -> Any:
    """``jax.jit`` for a bit-for-bit comparison with another implementation's program."""
    return jax.jit(fn, compiler_options=PARITY_OPTIONS, **kwargs)


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
