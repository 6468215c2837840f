"""JaxMARL 0.2.0, the original implementation, as an oracle in its own virtual environment.

JaxMARL 0.2.0 has our import name (``jaxmarl``), so it can never share a Python
environment with this library. ``oracle_python()`` returns the interpreter of a virtual
environment that holds it, at the versions pinned in ``jaxmarl020-requirements.txt``,
creating that environment the first time (about a minute, once per machine; pytest-xdist
workers wait for each other on a file lock). Tests run their oracle side in a subprocess
of that interpreter (``run_oracle``), passing arrays through ``.npz`` files.

The environment lives in ``$JAXMARL_ORACLE_VENVS/jaxmarl020`` (default
``~/.cache/jaxmarl/oracle-venvs``) and is rebuilt when the requirements file changes.
``oracle_package_dir()`` is the installed ``jaxmarl`` package folder of the oracle
(its shipped tutorials are read from there at test time).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import subprocess
import sys
import threading
import time
from functools import cache
from pathlib import Path

REQUIREMENTS = Path(__file__).with_name("jaxmarl020-requirements.txt")


def venv_folder() -> Path:
    root = Path(os.environ.get("JAXMARL_ORACLE_VENVS", Path.home() / ".cache" / "jaxmarl" / "oracle-venvs"))
    return root / "jaxmarl020"


@cache
def oracle_python() -> Path:
    """The Python interpreter of the JaxMARL 0.2.0 virtual environment, created if missing
    or built from other requirements."""
    folder = venv_folder()
    python = folder / "bin" / "python"
    marker = folder / "requirements.sha256"
    digest = hashlib.sha256(REQUIREMENTS.read_bytes()).hexdigest()
    folder.parent.mkdir(parents=True, exist_ok=True)
    with open(folder.parent / "jaxmarl020.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if python.exists() and marker.exists() and marker.read_text() == digest:
            return python
        subprocess.run(["rm", "-rf", str(folder)], check=True)
        subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
        pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
        subprocess.run([*pip, "-r", str(REQUIREMENTS)], check=True, capture_output=True, text=True)
        marker.write_text(digest)
    return python


@cache
def oracle_package_dir() -> Path:
    """The folder of the oracle's installed ``jaxmarl`` package."""
    out = subprocess.run(
        [
            str(oracle_python()),
            "-I",
            "-c",
            "import importlib.util as u; print(u.find_spec('jaxmarl').origin)",
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    return Path(out.stdout.strip().splitlines()[-1]).parent


def run_oracle(script: Path | str, *args: str, timeout: float = 600, cwd: Path | str | None = None) -> str:
    """Run ``script`` with the oracle's interpreter (on the CPU, quietly) and return its
    stdout; a failure raises with the script's stderr."""
    env = {**os.environ, "JAX_PLATFORMS": "cpu", "PYTHONPATH": ""}
    proc = subprocess.run(
        [str(oracle_python()), str(script), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        cwd=cwd,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"JaxMARL 0.2.0 oracle {Path(script).name} failed:\n{proc.stderr[-4000:]}")
    return proc.stdout


class Recorder:
    """One oracle worker process recording several cases in turn (``script in1 out1 in2
    out2 ...``, each output written whole when its case is done), started at construction
    in a background thread, so that a test can compile its own side meanwhile and then
    :meth:`wait` for its case only."""

    def __init__(self, script: Path | str, paths: list[Path], cwd: Path, timeout: float = 1200) -> None:
        self.errors: list[BaseException] = []
        self.thread = threading.Thread(target=self._work, args=(script, paths, cwd, timeout))
        self.thread.start()

    def _work(self, script: Path | str, paths: list[Path], cwd: Path, timeout: float) -> None:
        try:
            run_oracle(script, *map(str, paths), cwd=cwd, timeout=timeout)
        except BaseException as err:  # raised by wait()
            self.errors.append(err)

    def wait(self, output: Path) -> None:
        """Block until the worker has written ``output``; raise if it stopped without."""
        while not output.exists() and self.thread.is_alive():
            time.sleep(0.1)
        if not output.exists():
            raise self.errors[0] if self.errors else RuntimeError(f"the oracle worker wrote no {output.name}")

    def close(self) -> None:
        self.thread.join()


if __name__ == "__main__":  # scripts/run_tests.sh builds the environment before the tests
    print(f"JaxMARL 0.2.0 oracle: {oracle_python()}")
