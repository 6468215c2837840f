#!/usr/bin/env bash
# The test command: set up .venv with the dev extras, then lint, type-check, run the
# test suite (on 2 workers, each oracle module on one of them) and build the docs strictly.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup_venv.sh dev
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
# The JaxMARL 0.2.0 oracle's own virtual environment (created once per machine, ~1 min).
.venv/bin/python tests/oracles/jaxmarl020.py
# Neural MMO 2.1.1's (numpy 1.23 and a patched vec-noise build; ~1 min once per machine).
.venv/bin/python tests/oracles/nmmo_oracle.py
# --max-worker-restart=0: with --dist loadgroup, a worker that crashes (a segfault) is
# replaced and the run then waits forever; this way it ends, naming the crashed test.
.venv/bin/pytest -n "${PYTEST_WORKERS:-2}" --dist loadgroup --max-worker-restart=0 --durations=15 "$@"
.venv/bin/mkdocs build --strict --site-dir "$(mktemp -d)"
