"""Keeps each test process under Linux's limit on memory mappings.

Every program XLA compiles for the CPU maps its code into the process, and JAX keeps
compiled programs in its caches for the life of the process. A pytest-xdist worker runs
about 1,500 tests and compiles thousands of programs: measured, 11,000 mappings after
400 MPE tests. At ``vm.max_map_count`` (65,530 by default) the next compilation's
``mmap`` fails and XLA segfaults in the compilation (reproduced with the limit lowered
to 6,000): the segfaults late in full runs (84% and 97% through), in whichever test
compiled then. After any test that leaves more than ``MAX_MAPPINGS`` mappings, the
caches are cleared (later tests recompile what they need)."""

from __future__ import annotations

import gc
from pathlib import Path

import jax

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
