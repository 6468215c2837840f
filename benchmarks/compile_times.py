"""Compile seconds of the baselines: every algorithm family on every environment family,
and, where JaxMARL has a baseline script for the pair, side by side with it.

    python -m benchmarks.compile_times --checkout ~/JaxMARL
    python -m benchmarks.compile_times --checkout ~/JaxMARL --pairs ippo_ff_mpe --grid none --merge

What is timed is what a training run compiles before its first step:
``jax.jit(jax.vmap(make_train(config))).lower(keys).compile()`` for one seed, in a fresh
process (``benchmarks/train_throughput.py --compile-only`` for ours,
``benchmarks/peers/jaxmarl_train.py --compile-only`` for the originals, which run in
their own virtual environment from the user's checkout, as in
``benchmarks/train_vs_jaxmarl.py``). Tracing and lowering are included, imports and
config composition are not.

- **Pairs**: our baseline on the original's environment and task, with the original's
  rollout shape (``NUM_ENVS``, ``NUM_STEPS``) and network widths where our configs name
  them, against the original script with its own YAML. Compile time follows the
  program's structure (environment, networks, loss), hardly its sizes or scan lengths.
- **Grid**: ours only, one algorithm per network kind (IPPO-FF, MAPPO-RNN, IA2C-FF,
  VDN) on one shipped config of every environment family, at the config's defaults.
  Q-learning runs only where it ships configs (MPE, SMAX, Overcooked, Jumanji).

Rounds interleave ours and the original; the table gives the median per side.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import report
from benchmarks.peers import PEERS, ensure_venv
from benchmarks.train_vs_jaxmarl import ROWS, measure_original, measure_ours, timed, write_section

BENCHMARKS = Path(__file__).resolve().parent
RESULTS = BENCHMARKS / "compile_results.json"
CONFIGS = BENCHMARKS.parent / "baselines" / "config"

# The original's YAML restated where its structure differs from our defaults: widths of
# the recurrent networks (FC_DIM_SIZE, GRU_HIDDEN_DIM = 128) and the rollout shape.
RNN_128 = ["RNN_WIDTH=128"]
# Timesteps per seed: the number of updates is a scan length, which compilation ignores.
TIMESTEPS = 1e7


def _pair(label: str, family: str, ours: list[str], script: str, config: str, original: list[str]) -> dict:
    return {
        "label": label,
        "family": family,
        "ours": ours,
        "script": script,
        "config": config,
        "original": original,
        "timesteps": 1e6,
        "return_scale": 1.0,
    }


QL_OFF = ["alg.TEST_DURING_TRAINING=False", "WANDB_MODE=offline"]
PAIRS: dict[str, dict[str, Any]] = {
    **{n: ROWS[n] for n in ("ippo_ff_mpe", "mappo_rnn_mpe", "vdn_rnn_mpe", "qmix_rnn_mpe", "ippo_rnn_smax")},
    "ippo_rnn_mpe": _pair(
        "IPPO-RNN, MPE simple_spread",
        "ppo",
        # The script's ActorCriticRNN: one embedding and GRU for the actor and critic branches.
        [
            "alg=ippo_rnn",
            "env=mpe_simple_spread",
            "NUM_ENVS=16",
            "NUM_STEPS=128",
            "SHARED_TORSO=true",
            *RNN_128,
        ],
        "IPPO/ippo_rnn_mpe.py",
        "ippo_rnn_mpe",
        [],
    ),
    "iql_rnn_mpe": _pair(
        "IQL-RNN, MPE simple_spread",
        "qlearning",
        ["alg=iql", "env=mpe_simple_spread"],
        "QLearning/iql_rnn.py",
        "config",
        ["+alg=ql_rnn_mpe", *QL_OFF],
    ),
    "mappo_rnn_smax": _pair(
        "MAPPO-RNN, SMAX 2s3z",
        "ppo",
        ["alg=mappo_rnn", "env=smax_2s3z", "NUM_ENVS=128", "NUM_STEPS=128", *RNN_128],
        "MAPPO/mappo_rnn_smax.py",
        "mappo_homogenous_rnn_smax",
        [],
    ),
    "qmix_rnn_smax": _pair(
        "QMIX-RNN, SMAX 3s_vs_5z",
        "qlearning",
        ["alg=qmix", "env=smax_3s_vs_5z", "NUM_ENVS=16", "NUM_STEPS=128"],
        "QLearning/qmix_rnn.py",
        "config",
        ["+alg=ql_rnn_smax", *QL_OFF],
    ),
    "ippo_ff_overcooked": _pair(
        "IPPO-FF, Overcooked coordination_ring",
        "ppo",
        ["alg=ippo_ff", "env=overcooked_coordination_ring", "NUM_ENVS=16", "NUM_STEPS=128"],
        "IPPO/ippo_ff_overcooked.py",
        "ippo_ff_overcooked",
        [],
    ),
    "ippo_rnn_overcooked_v2": _pair(
        "IPPO-RNN, Overcooked V2 grounded_coord_simple",
        "ppo",
        [
            "alg=ippo_rnn",
            "env=overcooked_v2",
            "ENV_KWARGS.layout=grounded_coord_simple",
            "NUM_ENVS=256",
            "NUM_STEPS=256",
            *RNN_128,
        ],
        "IPPO/ippo_rnn_overcooked_v2.py",
        "ippo_rnn_overcooked_v2",
        [],
    ),
    "ippo_ff_hanabi": _pair(
        "IPPO-FF, Hanabi",
        "ppo",
        ["alg=ippo_ff", "env=hanabi", "NUM_ENVS=1024", "NUM_STEPS=128"],
        "IPPO/ippo_ff_hanabi.py",
        "ippo_ff_hanabi",
        [],
    ),
    "mappo_ff_hanabi": _pair(
        "MAPPO-FF, Hanabi",
        "ppo",
        ["alg=mappo_ff", "env=hanabi", "NUM_ENVS=1024", "NUM_STEPS=128"],
        "MAPPO/mappo_ff_hanabi.py",
        "mappo_homogenous_ff_hanabi",
        [],
    ),
    "ippo_ff_switch_riddle": _pair(
        "IPPO-FF, Switch Riddle",
        "ppo",
        ["alg=ippo_ff", "env=switch_riddle", "NUM_ENVS=64", "NUM_STEPS=128"],
        "IPPO/ippo_ff_switch_riddle.py",
        "ippo_ff_switch_riddle",
        [],
    ),
    "ippo_ff_mabrax": _pair(
        "IPPO-FF, MABrax ant_4x2",
        "ppo",
        ["alg=ippo_ff", "env=mabrax_ant_4x2", "NUM_ENVS=64", "NUM_STEPS=300"],
        "IPPO/ippo_ff_mabrax.py",
        "ippo_ff_mabrax",
        [],
    ),
}

GRID_ALGS = [("ppo", "ippo_ff"), ("ppo", "mappo_rnn"), ("a2c", "ia2c_ff"), ("qlearning", "vdn")]
GRID_ENVS = [
    "mpe_simple_spread",
    "smax_2s3z",
    "switch_riddle",
    "coin_game",
    "storm",
    "hanabi",
    "overcooked",
    "overcooked_v2",
    "mabrax_hopper_3x1",
    "jaxnav",
    "camar_random_grid",
    "jumanji_robot_warehouse",
    "nmmo",
]


def grid_cells() -> list[tuple[str, str, str]]:
    """``(family, alg, env)`` for every grid cell with a config (Q-learning has its own)."""
    cells = []
    for family, alg in GRID_ALGS:
        env_dir = CONFIGS / ("qlearning" if family == "qlearning" else "actor_critic") / "env"
        cells += [(family, alg, env) for env in GRID_ENVS if (env_dir / f"{env}.yaml").exists()]
    return cells


def pair_rows(records: list[dict]) -> list[list[str]]:
    out = []
    for name, row in PAIRS.items():
        mine = [r for r in records if r["kind"] == "pair" and r["name"] == name]
        if not mine:
            continue
        cells = []
        for side in ("ours", "original"):
            done = [r[side]["compile_s"] for r in mine if "compile_s" in r[side]]
            cells.append(f"{np.median(done):.1f}" if done else _failure(mine[0][side]))
        ratios = [
            r["original"]["compile_s"] / r["ours"]["compile_s"]
            for r in mine
            if "compile_s" in r["ours"] and "compile_s" in r["original"]
        ]
        ratio = f"**{np.median(ratios):.2f}x**" if ratios else "n/a"
        out.append([row["label"], *cells, ratio])
    return out


def _failure(record: dict) -> str:
    if record.get("timed_out"):
        return report.fmt_timed_out(record["limit_s"])
    return "failed"


def _cell(record: dict) -> str:
    return f"{record['compile_s']:.1f} s" if "compile_s" in record else _failure(record)


def grid_table(records: list[dict]) -> str:
    by_cell: dict[tuple[str, str], list[float]] = {}
    for r in records:
        if r["kind"] == "grid" and "compile_s" in r["ours"]:
            by_cell.setdefault((r["alg"], r["env"]), []).append(r["ours"]["compile_s"])
    header = ["env config", *[alg for _, alg in GRID_ALGS]]
    rows = []
    for env in GRID_ENVS:
        cells = []
        for _, alg in GRID_ALGS:
            done = by_cell.get((alg, env))
            failed = any(r["kind"] == "grid" and (r["alg"], r["env"]) == (alg, env) for r in records)
            cells.append(f"{np.median(done):.1f}" if done else ("failed" if failed else "n/a"))
        rows.append([f"`{env}`", *cells])
    return report.markdown_table(header, rows)


def section(results: dict) -> str:
    records = results["records"]
    text = (
        "### Compile time of the baselines\n\n"
        f"Command: `{results['command']}` ({results['machine_line']}). Seconds to trace, lower and "
        "compile one seed's training program (`jax.jit(jax.vmap(make_train(config)))`), each in a "
        "fresh process; median over rounds (`benchmarks/compile_times.py`).\n\n"
        "Against the original JaxMARL scripts (FLAIROx/JaxMARL at c793d09, `jaxmarl[algs]==0.2.0`, "
        "same JAX), ours on the original's task with its rollout shape and network widths; ratio: "
        "the original's seconds over ours.\n\n"
        + report.markdown_table(
            ["baseline", "ours compile s", "original compile s", "ratio"], pair_rows(records)
        )
        + "\n\nOurs on every environment family (one shipped config each, at its defaults; n/a: "
        "Q-learning ships configs for MPE, SMAX, Overcooked and Jumanji only):\n\n" + grid_table(records)
    )
    notes = results.get("notes", [])
    return text + ("\n\nNotes: " + " ".join(notes) if notes else "") + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--checkout", type=Path, help="a clone of FLAIROx/JaxMARL (needed for --pairs)")
    parser.add_argument("--pairs", nargs="+", default=list(PAIRS), help="pair names, or none")
    parser.add_argument("--grid", nargs="+", default=["all"], help="all, none, or env configs of the grid")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--merge", action="store_true", help="keep the records of --out not remeasured")
    parser.add_argument("--worker-timeout", type=float, default=600)
    parser.add_argument("--note", action="append", default=[], help="a note printed under the tables")
    parser.add_argument("--write-results", action="store_true", help="only rewrite RESULTS.md from --out")
    args = parser.parse_args(argv)
    if args.write_results:
        write_section(section(json.loads(args.out.read_text())))
        return
    pairs = [] if args.pairs == ["none"] else args.pairs
    unknown = sorted(set(pairs) - set(PAIRS))
    if unknown:
        parser.error(f"unknown pairs {unknown}; choose from {list(PAIRS)}")
    wanted = [] if args.grid == ["none"] else grid_cells()
    cells = [c for c in wanted if args.grid == ["all"] or c[2] in args.grid]
    if pairs and args.checkout is None:
        parser.error("--checkout is needed to compile the original scripts (or pass --pairs none)")
    python = ensure_venv(PEERS["jaxmarl_scripts"]) if pairs else None
    machine = report.machine_info()
    old = json.loads(args.out.read_text()) if args.merge and args.out.exists() else {}
    planned = {("pair", p) for p in pairs} | {("grid", f"{alg}:{env}") for _, alg, env in cells}

    def key(r: dict) -> tuple[str, str]:
        return (r["kind"], r["name"])

    kept = [r for r in old.get("records", []) if key(r) not in planned]
    command = "python -m benchmarks.compile_times " + " ".join(sys.argv[1:] if argv is None else argv)
    results: dict[str, Any] = {
        "command": f"{old['command']}`, then `{command}" if old.get("command") else command,
        "date": machine["date"],
        "machine_line": report.machine_line(machine),
        "records": kept,
        "notes": args.note or old.get("notes", []),
    }
    records: list[dict] = []

    def save(rec: dict) -> None:
        records.append(rec)
        results["records"] = kept + records
        args.out.write_text(json.dumps(results, indent=1) + "\n")

    ours = functools.partial(measure_ours, compile_only=True)
    original = functools.partial(measure_original, compile_only=True)

    def attempt(measure: Any, *measure_args: Any) -> dict:
        """The worker's record; a failure (an original that cannot build its program, say)
        is recorded with its message's last line rather than ending the benchmark."""
        try:
            return timed(measure, *measure_args, timeout=args.worker_timeout)
        except RuntimeError as err:
            return {"error": str(err).strip().splitlines()[-1]}

    for r in range(args.rounds):
        for name in pairs:
            row = PAIRS[name]
            rec: dict[str, Any] = {"kind": "pair", "name": name, "round": r}
            sides = ["ours", "original"] if (r + len(records)) % 2 == 0 else ["original", "ours"]
            for side in sides:
                if side == "ours":
                    rec[side] = attempt(ours, row, 1, TIMESTEPS)
                else:
                    rec[side] = attempt(original, python, args.checkout, row, 1, TIMESTEPS)
            save(rec)
            print(f"round {r + 1} {name}: " + ", ".join(f"{s} {_cell(rec[s])}" for s in sides), flush=True)
        for family, alg, env in cells:
            row = {"ours": [f"alg={alg}", f"env={env}"], "family": family}
            rec = {"kind": "grid", "name": f"{alg}:{env}", "alg": alg, "env": env, "round": r}
            rec["ours"] = attempt(ours, row, 1, TIMESTEPS)
            save(rec)
            print(f"round {r + 1} {alg} {env}: {_cell(rec['ours'])}", flush=True)
    print(section(results))
    if args.out.resolve() == RESULTS.resolve():  # a scratch --out leaves the results pages alone
        write_section(section(results))


if __name__ == "__main__":
    main()
