"""Neural MMO 2.1.1 (``nmmo`` from PyPI), the original implementation, as an oracle in its
own virtual environment.

nmmo 2.1.1 pins ``numpy==1.23.3`` (and old scipy, pettingzoo, gymnasium), so it can never
share a Python environment with this library (JAX wants numpy 2). ``oracle_python()``
returns the interpreter of a virtual environment that holds it, creating that
environment the first time (about a minute, once per machine; pytest-xdist workers wait
for each other on a file lock). Tests and benchmarks run their nmmo side in a subprocess
of that interpreter (``run_oracle``): ``nmmo_oracle_worker.py`` beside this file for
statistics, ``benchmarks/peers/nmmo_throughput.py`` for speed.

A plain ``pip install nmmo==2.1.1`` fails: its dependency ``vec-noise==1.1.4`` is an
sdist whose ``setup.py`` does ``__builtins__.__NUMPY_SETUP__ = False``, which raises
``AttributeError`` wherever ``__builtins__`` is a dict (every modern pip build). So the
environment is built in steps: the build prerequisites (``BUILD_PINS``); then pip is
asked for vec-noise with ``--no-clean`` so that the unpacked sdist stays behind after the
expected failure; its ``setup.py`` is patched (``PATCH``) and installed without build
isolation; then nmmo itself, without build isolation (its own sdist needs Cython).

The environment lives in ``$JAXMARL_ORACLE_VENVS/nmmo211`` (default
``~/.cache/jaxmarl/oracle-venvs``) and is rebuilt when the recipe below changes.
"""

from __future__ import annotations

import fcntl
import glob
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from functools import cache
from pathlib import Path

NAME = "nmmo211"
BUILD_PINS = ("numpy==1.23.3", "cython==3.0.12", "setuptools==75.8.0", "wheel==0.45.1")
VEC_NOISE = "vec-noise==1.1.4"
NMMO = "nmmo==2.1.1"
PATCH = ("__builtins__.__NUMPY_SETUP__ = False", "import builtins; builtins.__NUMPY_SETUP__ = False")
WORKER = Path(__file__).with_name("nmmo_oracle_worker.py")


def venv_folder() -> Path:
    root = Path(os.environ.get("JAXMARL_ORACLE_VENVS", Path.home() / ".cache" / "jaxmarl" / "oracle-venvs"))
    return root / NAME


def recipe_digest() -> str:
    """What the environment is built from; a change rebuilds it."""
    recipe = {"build": BUILD_PINS, "vec_noise": VEC_NOISE, "patch": PATCH, "nmmo": NMMO}
    return hashlib.sha256(json.dumps(recipe, sort_keys=True).encode()).hexdigest()


def _pip(python: Path, *args: str, env: dict[str, str] | None = None, check: bool = True) -> bool:
    """``pip install ARGS`` in the environment; whether it succeeded (``check``: or raise)."""
    cmd = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if check and proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}")
    return proc.returncode == 0


def _install_vec_noise(python: Path) -> None:
    """vec-noise 1.1.4 from its sdist, with ``setup.py`` patched (see the module doc)."""
    with tempfile.TemporaryDirectory(prefix="vec-noise-") as tmp:
        # Unless pip has a wheel of it cached, this attempt fails while pip prepares the
        # package's metadata; --no-clean keeps the unpacked sdist under
        # $TMPDIR/pip-install-*/vec-noise_*/.
        env = {**os.environ, "TMPDIR": tmp}
        if _pip(python, "--no-clean", "--no-build-isolation", "--no-deps", VEC_NOISE, env=env, check=False):
            return  # pip had a wheel of it in its cache
        found = glob.glob(os.path.join(tmp, "pip-install-*", "vec-noise_*", "setup.py"))
        if len(found) != 1:
            raise RuntimeError(f"no vec-noise sdist unpacked under {tmp}: {found}")
        setup = Path(found[0])
        text = setup.read_text()
        if PATCH[0] in text:
            setup.write_text(text.replace(PATCH[0], PATCH[1]))
        _pip(python, "--no-build-isolation", "--no-deps", str(setup.parent))


def build(folder: Path) -> None:
    """Create the virtual environment in ``folder`` (replacing whatever is there)."""
    python = folder / "bin" / "python"
    subprocess.run(["rm", "-rf", str(folder)], check=True)
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
    _pip(python, *BUILD_PINS)
    _install_vec_noise(python)
    _pip(python, "--no-build-isolation", NMMO, *BUILD_PINS)  # BUILD_PINS: keep them as pinned


@cache
def oracle_python() -> Path:
    """The Python interpreter of the nmmo 2.1.1 virtual environment, created if missing or
    built from another recipe."""
    folder = venv_folder()
    python = folder / "bin" / "python"
    marker = folder / "recipe.sha256"
    digest = recipe_digest()
    folder.parent.mkdir(parents=True, exist_ok=True)
    with open(folder.parent / f"{NAME}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if python.exists() and marker.exists() and marker.read_text() == digest:
            return python
        build(folder)
        marker.write_text(digest)
    return python


def run_oracle(
    script: Path | str, *args: object, timeout: float = 1800, cwd: Path | str | None = None
) -> str:
    """Run ``script`` with the oracle's interpreter and return its stdout; a failure
    raises with the script's stderr. Nothing of this repository is importable there."""
    env = {**os.environ, "PYTHONPATH": "", "PYTHONHASHSEED": "0"}
    proc = subprocess.run(
        [str(oracle_python()), str(script), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        cwd=cwd if cwd is not None else tempfile.gettempdir(),
    )
    if proc.returncode != 0:
        raise RuntimeError(f"nmmo 2.1.1 oracle {Path(script).name} failed:\n{proc.stderr[-4000:]}")
    return proc.stdout


def run_worker(*args: object, timeout: float = 1800) -> dict:
    """Run ``nmmo_oracle_worker.py`` with these command-line arguments and return the JSON
    object it printed (``--episodes 8 --seed 0`` ...; see that file for the fields)."""
    return json.loads(run_oracle(WORKER, *args, timeout=timeout).strip().splitlines()[-1])


if __name__ == "__main__":  # build the environment ahead of the tests
    print(f"nmmo 2.1.1 oracle: {oracle_python()}")
