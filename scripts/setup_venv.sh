#!/usr/bin/env bash
# Create (or reuse) .venv and install jaxmarl with the given extras, at the versions
# pinned in constraints.txt. Usage: scripts/setup_venv.sh [extras], e.g. "dev".
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
spec="."
if [ -n "${1:-}" ]; then
  spec=".[$1]"
fi
# hanabi-learning-environment builds with CMake; CMake 4 needs this to accept its old
# cmake_minimum_required.
export CMAKE_POLICY_VERSION_MINIMUM=3.5 CMAKE_BUILD_PARALLEL_LEVEL=2
.venv/bin/python -m pip install --quiet -c constraints.txt -e "$spec"
