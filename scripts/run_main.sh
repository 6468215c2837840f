#!/usr/bin/env bash
# The main job: set up .venv, then measure MPE_simple_spread_v3's throughput with a
# random policy and render a rollout to outputs/MPE_simple_spread_v3.gif.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup_venv.sh
.venv/bin/python benchmarks/env_throughput.py --env MPE_simple_spread_v3 --num-envs 1 100 1000
.venv/bin/python -m jaxmarl.viz MPE_simple_spread_v3 --steps 75 --out outputs/MPE_simple_spread_v3.gif
