"""Training throughput side by side with the original JaxMARL baseline scripts.

    python -m benchmarks.train_vs_jaxmarl --checkout ~/JaxMARL --seeds 1 4 --rounds 2
    python -m benchmarks.train_vs_jaxmarl --checkout ~/JaxMARL --rows ippo_ff_mpe --seeds 16 \
        --timesteps 2.5e5 --rounds 1 --merge

The originals are the scripts of a clone of https://github.com/FLAIROx/JaxMARL (the
checkout is the user's: ``git clone https://github.com/FLAIROx/JaxMARL && git -C JaxMARL
checkout c793d09``, the commit whose ``jaxmarl`` package is the 0.2.0 release), run with
``jaxmarl[algs]==0.2.0`` and this process's JAX in their own virtual environment
(``benchmarks/peers``). Nothing of them is copied here.

Each row trains one of our baselines with the original's hyperparameters (the
``ours`` overrides below restate the original's YAML where our defaults differ) and the
original script with its own config, for the same number of timesteps per seed, seeds
vmapped in one ``jit`` on both sides. Every measurement is a fresh process; rounds are
interleaved (ours, original, original, ours, ...). Compilation and the run are timed
separately (``benchmarks/train_throughput.py`` and ``benchmarks/peers/jaxmarl_train.py``
measure the same way). The ratio is the original's run time over ours for the same
work, one per round.

Differences kept on purpose, each noted in the table's notes: the Q-learning originals
run with ``TEST_DURING_TRAINING=False`` (ours does not evaluate inside the training
loop; evaluation is ``baselines/evaluate.py``) and ``WANDB_MODE=offline``, the only way
their returns leave the compiled loop (a host callback per update; the value they log is
not an episode return, so the table gives none); the PPO originals keep their per-update
host callback, as their ``main`` trains. The originals' MPE returns are logged by
``MPELogWrapper``, which multiplies every reward by the number of agents; they are divided
back (``return_scale``) to compare with ours.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any, cast

import numpy as np

from benchmarks import report
from benchmarks.harness import Spread, our_python, run_worker
from benchmarks.peers import PEERS, ensure_venv

BENCHMARKS = Path(__file__).resolve().parent
RESULTS = BENCHMARKS / "train_peer_results.json"

# The original ippo_ff_mpe.yaml, rnn ... YAMLs restated as overrides of ours.
PPO_MPE = ["UPDATE_EPOCHS=4", "NUM_MINIBATCHES=4", "GAE_LAMBDA=0.95", "CLIP_EPS=0.2", "VF_COEF=0.5"]


def _qlearning_mpe_row(alg: str, label: str, script: str) -> dict[str, Any]:
    """A Q-learning row on simple_spread: the original's ql_rnn_mpe.yaml (valid for
    IQL, VDN and QMIX) differs from our defaults only in its learning rate."""
    return {
        "label": f"{label}, MPE simple_spread",
        "family": "qlearning",
        "ours": [f"alg={alg}", "env=mpe_simple_spread", "LR=0.005"],
        "script": script,
        "config": "config",
        "original": ["+alg=ql_rnn_mpe", "alg.TEST_DURING_TRAINING=False", "WANDB_MODE=offline"],
        "timesteps": 1e6,
        "return_scale": 1 / 3,  # MPELogWrapper logs num_agents x the reward
    }


ROWS: dict[str, dict[str, Any]] = {
    "ippo_ff_mpe": {
        "label": "IPPO-FF, MPE simple_spread",
        "family": "ppo",
        "ours": ["alg=ippo_ff", "env=mpe_simple_spread", "LR=2.5e-4", *PPO_MPE],
        "script": "IPPO/ippo_ff_mpe.py",
        "config": "ippo_ff_mpe",
        "original": [],
        "timesteps": 1e6,
        "return_scale": 1 / 3,  # MPELogWrapper logs num_agents x the reward
    },
    "mappo_rnn_mpe": {
        "label": "MAPPO-RNN, MPE simple_spread",
        "family": "ppo",
        "ours": ["alg=mappo_rnn", "env=mpe_simple_spread", "LR=2e-3", "RNN_WIDTH=128", *PPO_MPE],
        "script": "MAPPO/mappo_rnn_mpe.py",
        "config": "mappo_homogenous_rnn_mpe",
        "original": [],
        "timesteps": 1e6,
        "return_scale": 1 / 3,
    },
    "vdn_rnn_mpe": _qlearning_mpe_row("vdn", "VDN-RNN", "QLearning/vdn_rnn.py"),
    "qmix_rnn_mpe": _qlearning_mpe_row("qmix", "QMIX-RNN", "QLearning/qmix_rnn.py"),
    "ippo_rnn_smax": {
        "label": "IPPO-RNN, SMAX 2s3z",
        "family": "ppo",
        "ours": [
            "alg=ippo_rnn",
            "env=smax_2s3z",
            "SHARED_TORSO=true",  # the script's ActorCriticRNN: one embedding and GRU, two branches
            "NUM_ENVS=128",
            "UPDATE_EPOCHS=4",
            "NUM_MINIBATCHES=4",
            "CLIP_EPS=0.05",
            "ENT_COEF=0.01",
            "MAX_GRAD_NORM=0.25",
        ],
        "script": "IPPO/ippo_rnn_smax.py",
        "config": "ippo_rnn_smax",
        "original": [],
        "timesteps": 1e6,
        "return_scale": 1.0,
    },
}


def timed(measure: Any, *args: Any, timeout: float) -> dict:
    """``measure(*args, timeout)``, or a record saying it ran past ``timeout`` seconds."""
    try:
        return cast(dict, measure(*args, timeout))
    except subprocess.TimeoutExpired:
        return {"timed_out": True, "limit_s": timeout}


def measure_ours(
    row: dict, num_seeds: int, timesteps: float, timeout: float, compile_only: bool = False
) -> dict:
    args = [
        *row["ours"],
        f"TOTAL_TIMESTEPS={timesteps:g}",
        "--family",
        row["family"],
        "--num-seeds",
        str(num_seeds),
        *(["--compile-only"] if compile_only else []),
    ]
    return run_worker(our_python(), BENCHMARKS / "train_throughput.py", args, timeout)[-1]


def measure_original(
    python: Path,
    checkout: Path,
    row: dict,
    num_seeds: int,
    timesteps: float,
    timeout: float,
    compile_only: bool = False,
) -> dict:
    total = (
        f"alg.TOTAL_TIMESTEPS={timesteps:g}"
        if row["family"] == "qlearning"
        else f"TOTAL_TIMESTEPS={timesteps:g}"
    )
    args = [
        "--checkout",
        str(checkout),
        "--script",
        row["script"],
        "--config",
        row["config"],
        "--num-seeds",
        str(num_seeds),
        *(["--compile-only"] if compile_only else []),
        *row["original"],
        total,
    ]
    record = run_worker(python, PEERS["jaxmarl_scripts"].worker, args, timeout)[-1]
    if compile_only:
        return record
    record["final_return"] *= row["return_scale"]
    if row["family"] == "qlearning":
        # Their logged return is the step average of the wrapper's last finished episode's
        # return over a rollout that starts from a reset: not an episode return.
        record["final_return"] = float("nan")
    return record


def _key(record: dict) -> tuple[str, int, float]:
    return record["row"], record["num_seeds"], record["timesteps"]


def ratio_rows(records: list[dict]) -> list[list[str]]:
    """One table row per (row, seeds): both sides' median run and compile seconds, the
    run-time ratio per round, and both final returns (mean over rounds)."""
    out = []
    keys = sorted({_key(r) for r in records}, key=lambda k: (list(ROWS).index(k[0]), k[1], k[2]))
    for name, seeds, steps in keys:
        mine = [r for r in records if _key(r) == (name, seeds, steps)]
        timeouts = [r for r in mine if r["ours"].get("timed_out") or r["original"].get("timed_out")]
        mine = [r for r in mine if r not in timeouts]
        if not mine:  # every pair had a side past its time limit: what finished, and the limit
            first = timeouts[0]

            def cell(key: str, first: dict = first) -> str:
                return " / ".join(
                    report.fmt_timed_out(first[side]["limit_s"])
                    if first[side].get("timed_out")
                    else f"{first[side][key]:.1f}"
                    for side in ("ours", "original")
                )

            rate = "n/a" if first["ours"].get("timed_out") else report.fmt(first["ours"]["steps_per_s"])
            row_cells = [cell("compile_s"), cell("run_s"), rate, "n/a", cell("final_return")]
            out.append([ROWS[name]["label"], str(seeds), report.fmt(steps), *row_cells])
            continue
        ours = [r["ours"] for r in mine]
        orig = [r["original"] for r in mine]
        ratios = [o["run_s"] / u["run_s"] for u, o in zip(ours, orig, strict=True)]

        def both(key: str, stat: Any = np.median, ours: list = ours, orig: list = orig) -> str:
            a, b = (float(stat([o[key] for o in side])) for side in (ours, orig))
            return " / ".join("n/a" if x != x else f"{x:.1f}" for x in (a, b))

        out.append(
            [
                ROWS[name]["label"],
                str(seeds),
                report.fmt(steps),
                both("compile_s"),
                both("run_s"),
                report.fmt(float(np.median([o["steps_per_s"] for o in ours]))),
                report.fmt_ratio(Spread.of(ratios)),
                both("final_return", np.mean),
            ]
        )
    return out


def section(results: dict) -> str:
    header = [
        "baseline",
        "seeds",
        "timesteps / seed",
        "compile s (ours / original)",
        "run s (ours / original)",
        "ours steps/s",
        "speed-up (run)",
        "final return (ours / original)",
    ]
    return (
        "### Training throughput against the original JaxMARL scripts\n\n"
        f"Command: `{results['command']}` ({results['machine_line']}). "
        "Ours and the original script (FLAIROx/JaxMARL at c793d09, `jaxmarl[algs]==0.2.0`, same JAX) "
        "at the original's hyperparameters, seeds vmapped in one `jit`, each measurement a fresh "
        "process, rounds interleaved; speed-up is the original's run time over ours (median, "
        "range over rounds). Final return: the mean episode return per agent in the last update.\n\n"
        + report.markdown_table(header, ratio_rows(results["records"]))
        + "\n\nNotes: "
        + " ".join(results.get("notes", []))
        + "\n"
    )


def write_results(results: dict) -> None:
    """Put :func:`section` into ``benchmarks/RESULTS.md`` and ``docs/benchmarks.md``."""
    write_section(section(results))


def write_section(text: str) -> None:
    """Put a markdown section (``### heading`` first) into ``benchmarks/results.json``'s
    kept sections (in its earlier version's place, else last) and rewrite
    ``benchmarks/RESULTS.md`` and ``docs/benchmarks.md``."""
    import os

    from benchmarks import run

    path = BENCHMARKS / "results.json"
    suite = json.loads(path.read_text())
    heading = text.split("\n", 1)[0]
    sections = suite.get("sections", [])
    place = next((i for i, s in enumerate(sections) if s.startswith(heading)), len(sections))
    sections = [s for s in sections if not s.startswith(heading)]
    sections.insert(place, text)
    suite["sections"] = sections
    path.write_text(json.dumps(suite, indent=1) + "\n")
    plots = run.ROOT / "docs" / "img" / "benchmarks"
    out = BENCHMARKS / "RESULTS.md"
    out.write_text(
        "# Benchmark results\n\n" + report.results_markdown(suite, os.path.relpath(plots, BENCHMARKS))
    )
    run.update_docs_page(report.results_markdown(suite, os.path.relpath(plots, run.DOCS_PAGE.parent)))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--checkout", type=Path, required=True, help="a clone of FLAIROx/JaxMARL")
    parser.add_argument("--rows", nargs="+", choices=list(ROWS), default=list(ROWS))
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 4])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--timesteps", type=float, help="timesteps per seed (default: each row's)")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument(
        "--merge", action="store_true", help="keep the records of --out this run does not remeasure"
    )
    parser.add_argument("--worker-timeout", type=float, default=1200, help="seconds one measurement may run")
    parser.add_argument("--note", action="append", default=[], help="a note printed under the table")
    parser.add_argument(
        "--write-results",
        action="store_true",
        help="only rewrite the section in benchmarks/RESULTS.md and docs/benchmarks.md from --out",
    )
    args = parser.parse_args(argv)
    if args.write_results:
        write_results(json.loads(args.out.read_text()))
        return

    python = ensure_venv(PEERS["jaxmarl_scripts"])
    machine = report.machine_info()
    old = json.loads(args.out.read_text()) if args.merge and args.out.exists() else {}
    planned = {
        (name, seeds, args.timesteps or ROWS[name]["timesteps"]) for name in args.rows for seeds in args.seeds
    }
    kept = [r for r in old.get("records", []) if _key(r) not in planned]
    results = {
        "command": "python -m benchmarks.train_vs_jaxmarl "
        + " ".join(sys.argv[1:] if argv is None else argv),
        "date": machine["date"],
        "machine_line": report.machine_line(machine),
        "records": kept,
        "notes": args.note or old.get("notes", []),
    }
    if old.get("command"):  # the runs merged into this one, in order
        results["command"] = f"{old['command']}`, then `{results['command']}"
    records: list[dict[str, Any]] = []
    for r in range(args.rounds):
        for name in args.rows:
            row = ROWS[name]
            steps = args.timesteps or row["timesteps"]
            for seeds in args.seeds:
                rec: dict[str, Any] = {"row": name, "num_seeds": seeds, "timesteps": steps, "round": r}
                sides = ["ours", "original"]
                for side in sides if (r + len(records)) % 2 == 0 else sides[::-1]:
                    if side == "ours":
                        rec[side] = timed(measure_ours, row, seeds, steps, timeout=args.worker_timeout)
                    else:
                        rec[side] = timed(
                            measure_original,
                            python,
                            args.checkout,
                            row,
                            seeds,
                            steps,
                            timeout=args.worker_timeout,
                        )
                records.append(rec)
                results["records"] = kept + records
                args.out.write_text(json.dumps(results, indent=1) + "\n")  # after every pair
                mine, theirs = (rec[side].get("run_s", float("nan")) for side in ("ours", "original"))
                print(
                    f"round {r + 1} {name} seeds={seeds}: ours {mine:.1f} s, original {theirs:.1f} s", end=""
                )
                print(
                    f" ({theirs / mine:.2f}x)" if mine == mine and theirs == theirs else " (timed out)",
                    flush=True,
                )
    print(section(results))


if __name__ == "__main__":
    main()
