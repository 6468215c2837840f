"""The tutorials JaxMARL 0.2.0 ships in its package run unchanged against this library.

Each tutorial is read from the JaxMARL 0.2.0 oracle's installed files at test time
(``jaxmarl/tutorials/`` in its virtual environment, ``tests/oracles/jaxmarl020.py``;
never copied here) and run as a script with this library's interpreter, headless
(matplotlib's Agg backend), in a temporary folder: it must exit cleanly and write what it
writes (the SMAX tutorial saves ``output.gif``).

JaxMARL 0.2.0's three STORM tutorials fail under JaxMARL 0.2.0 itself; rather than being
skipped, their test runs each under JaxMARL 0.2.0 and asserts that it fails there with
the error below, so the list stays true.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from fast_compile import FAST_ENV

from tests.oracles.jaxmarl020 import oracle_package_dir, oracle_python

pytestmark = pytest.mark.oracle

# tutorial -> files it must leave in its working folder
RUN_HERE = {
    "mpe_introduction.py": (),
    "overcooked_introduction.py": (),
    "smax_introduction.py": ("output.gif",),
}
# tutorial -> the error it stops with under JaxMARL 0.2.0 itself
BROKEN_IN_JAXMARL = {
    # its renderer writes 255 into an int8 image (storm_env.py, render_time)
    "storm_introduction.py": "OverflowError: Python integer 255 out of bounds for int8",
    # calls env.action_space() without the agent argument
    "storm_2p_introduction.py": "TypeError: InTheGrid_2p.action_space() missing 1 required positional",
    # the same int8 renderer (storm.py)
    "storm_np_introduction.py": "OverflowError: Python integer 255 out of bounds for int8",
}


def tutorial(name: str) -> Path:
    return oracle_package_dir() / "tutorials" / name


def headless_env() -> dict[str, str]:
    return {**FAST_ENV, "MPLBACKEND": "Agg", "JAX_PLATFORMS": "cpu", "PYTHONPATH": ""}


def test_every_shipped_tutorial_is_accounted_for():
    shipped = sorted(
        p.name for p in (oracle_package_dir() / "tutorials").glob("*.py") if p.name != "__init__.py"
    )
    assert shipped == sorted([*RUN_HERE, *BROKEN_IN_JAXMARL])


@pytest.mark.parametrize("name", sorted(RUN_HERE))
def test_tutorial_runs_unchanged_against_this_library(name, tmp_path):
    proc = subprocess.run(
        [sys.executable, str(tutorial(name))],
        cwd=tmp_path,
        env=headless_env(),
        capture_output=True,
        text=True,
        timeout=85,
    )
    assert proc.returncode == 0, f"{name} failed against this library:\n{proc.stderr[-3000:]}"
    for produced in RUN_HERE[name]:
        assert (tmp_path / produced).stat().st_size > 0, f"{name} did not write {produced}"


@pytest.mark.parametrize("name", sorted(BROKEN_IN_JAXMARL))
def test_tutorial_fails_under_jaxmarl_itself(name, tmp_path):
    proc = subprocess.run(
        [str(oracle_python()), str(tutorial(name))],
        cwd=tmp_path,
        env={**os.environ, **headless_env()},
        capture_output=True,
        text=True,
        timeout=85,
    )
    assert proc.returncode != 0 and BROKEN_IN_JAXMARL[name] in proc.stderr, proc.stderr[-3000:]
