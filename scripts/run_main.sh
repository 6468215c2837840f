#!/usr/bin/env bash
# The main job: set up .venv, train IPPO on MPE_simple_spread_v3 with the JaxMARL
# paper's hyperparameters (a few minutes on a 2-core CPU), then evaluate the trained
# policy against a random one and render it. The run folder (config, metrics.csv,
# learning_curve.png, params, eval/) is printed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup_venv.sh baselines
run_dir="outputs/main/$(date +%Y-%m-%d_%H-%M-%S)_ippo_ff_MPE_simple_spread_v3"
.venv/bin/python baselines/ppo.py "hydra.run.dir=$run_dir"
.venv/bin/python baselines/evaluate.py "run=$run_dir"
echo "learning curve: $run_dir/learning_curve.png"
