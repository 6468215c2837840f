#!/usr/bin/env bash
# The test command: set up .venv with the dev extras, then lint, type-check, run the
# test suite (on 2 workers) and build the docs strictly.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup_venv.sh dev
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
.venv/bin/pytest -n "${PYTEST_WORKERS:-2}" --durations=15 "$@"
.venv/bin/mkdocs build --strict --site-dir "$(mktemp -d)"
