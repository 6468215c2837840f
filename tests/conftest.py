"""Test-process settings: XLA's CPU code generator, and a limit on memory mappings.

**Code generator.** XLA's CPU backend emits fused loops with its newer MLIR fusion
emitters by default. For what tests compile (without backend optimisations, see
``fast_compile.py``, or at LLVM level 1 for the learning runs), the older emitters
(``--xla_cpu_use_fusion_emitters=false``) compile about twice as fast and run as fast
or faster: measured on 2 cores, ``tests/baselines/test_a2c.py`` and
``tests/environments/test_conformance.py`` (154 tests) took 530 s instead of 828 s, the
A2C learning test on SMAX 32 s instead of 55 s. The flag goes into ``XLA_FLAGS`` before
JAX starts its backend, so subprocesses the tests start (oracle workers, training
scripts) inherit it; it changes how XLA emits the code, not the program. Users get
XLA's default: at its full optimisation the new emitters are the faster (IPPO on MPE
compiled in 16 s instead of 22 s and ran 10% faster), which ``benchmarks/`` measures.
``JAXMARL_TEST_XLA_DEFAULTS=1`` runs the suite with XLA's defaults instead.

**Memory mappings.** Every program XLA compiles for the CPU maps its code into the
process, and JAX keeps compiled programs in its caches for the life of the process. A
pytest-xdist worker runs about 1,500 tests and compiles thousands of programs: measured, 11,000 mappings after
400 MPE tests. At ``vm.max_map_count`` (65,530 by default) the next compilation's
``mmap`` fails and XLA segfaults in the compilation (reproduced with the limit lowered
to 6,000): the segfaults late in full runs (84% and 97% through), in whichever test
compiled then. After any test that leaves more than ``MAX_MAPPINGS`` mappings, the
caches are cleared (later tests recompile what they need)."""

from __future__ import annotations

import gc
import os
from pathlib import Path

LEGACY_EMITTERS = "--xla_cpu_use_fusion_emitters=false"
if os.environ.get("JAXMARL_TEST_XLA_DEFAULTS", "").strip() in ("", "0"):
    os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {LEGACY_EMITTERS}".strip()

import jax  # noqa: E402  (after XLA_FLAGS, which JAX reads when it starts its backend)

MAX_MAPPINGS = 25_000
_MAPS = Path("/proc/self/maps")


def _mappings() -> int:
    try:
        with _MAPS.open("rb") as f:
            return sum(1 for _ in f)
    except OSError:  # not Linux: no such limit to keep under
        return 0


def pytest_runtest_teardown(item, nextitem) -> None:
    if _mappings() > MAX_MAPPINGS:
        jax.clear_caches()
        gc.collect()
