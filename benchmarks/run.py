"""Run the benchmark suite against the peers and write the results table and plots.

    python -m benchmarks.run                      # quick mode: a few minutes on a laptop
    python -m benchmarks.run --mode full          # every env, N up to 10^4, 64 seeds: a GPU box
    python -m benchmarks.run --suite env --envs coin_game storm_2p --peers jaxmarl020

Suites: ``env`` (environment throughput, ours and every peer that has the env,
interleaved round by round, one ratio per round), ``train`` (timesteps/s of each
baseline's default config, compile included and excluded), ``seeds`` (the PPO default
config trained for 1, 4, 16 (, 64) seeds in one call). Peers are installed on demand in
their own virtual environments (``benchmarks/peers``).

Writes ``--out`` (default ``benchmarks/RESULTS.md``), the raw results next to it
(``results.json``), the plots into ``--plot-dir`` (default ``docs/img/benchmarks``), and
the same tables into the results section of ``docs/benchmarks.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks import report
from benchmarks.harness import interleave, our_python, run_worker, timed_out
from benchmarks.peers import PEERS, Peer, ensure_venv, list_envs, peer_envs

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"
DOCS_PAGE = ROOT / "docs" / "benchmarks.md"
DOCS_START, DOCS_END = "<!-- results:start -->", "<!-- results:end -->"

MODES: dict[str, dict[str, Any]] = {
    "quick": {
        "envs": ["MPE_simple_spread_v3", "switch_riddle", "coin_game", "storm_2p"],
        "num_envs": [1, 100, 1000],
        "num_steps": 1000,
        "rounds": 2,
        "repeats": 3,
        "train_overrides": ["TOTAL_TIMESTEPS=2e5"],
        "seeds": [1, 4, 16],
        "seed_overrides": ["TOTAL_TIMESTEPS=5e4"],
        "worker_timeout": 300,
    },
    "full": {
        "envs": None,  # every registered env
        "num_envs": [1, 10, 100, 1000, 10000],
        "num_steps": 1000,
        "rounds": 3,
        "repeats": 5,
        "train_overrides": [],
        "seeds": [1, 4, 16, 64],
        "seed_overrides": [],
        "worker_timeout": 3600,
    },
}

# Baseline scripts with a training-throughput entry: family -> extra overrides.
TRAIN_FAMILIES = ["ppo", "a2c", "qlearning"]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--mode", choices=sorted(MODES), default="quick", help="settings preset")
    parser.add_argument(
        "--suite", nargs="+", choices=["env", "train", "seeds"], default=["env", "train", "seeds"]
    )
    parser.add_argument("--envs", nargs="+", help="env ids (default: the mode's; 'all' for every one)")
    parser.add_argument(
        "--peers", nargs="*", default=["jaxmarl020", "mpe2"], help="environment peers (benchmarks/peers)"
    )
    parser.add_argument("--num-envs", type=int, nargs="+", help="values of N")
    parser.add_argument("--num-steps", type=int, help="steps per scan")
    parser.add_argument("--rounds", type=int, help="interleaved rounds (one ratio each)")
    parser.add_argument("--repeats", type=int, help="timed runs per worker (median kept)")
    parser.add_argument("--seeds", type=int, nargs="+", help="seed counts for the seed-scaling suite")
    parser.add_argument(
        "--worker-timeout",
        type=float,
        help="seconds one env-throughput worker may run (compile, warm-up and timed runs of "
        "its N values) before it is stopped and its unfinished N values reported as timed out",
    )
    parser.add_argument(
        "--train-override", action="append", default=None, help="hydra override for train/seeds"
    )
    parser.add_argument("--out", type=Path, default=BENCHMARKS / "RESULTS.md")
    parser.add_argument("--plot-dir", type=Path, default=ROOT / "docs" / "img" / "benchmarks")
    parser.add_argument("--no-docs", action="store_true", help="leave docs/benchmarks.md alone")
    parser.add_argument(
        "--merge",
        action="store_true",
        help="keep the suites and envs of the last results.json that this run skips",
    )
    args = parser.parse_args(argv)
    env_peers = sorted(name for name, peer in PEERS.items() if peer.suite == "env")
    unknown = [p for p in args.peers if p not in env_peers]
    if unknown:
        parser.error(f"unknown peer(s) {unknown}; choose from {env_peers}")
    settings = dict(MODES[args.mode])
    for key in ("num_envs", "num_steps", "rounds", "repeats", "seeds", "worker_timeout"):
        if getattr(args, key) is not None:
            settings[key] = getattr(args, key)
    if args.train_override is not None:
        settings["train_overrides"] = settings["seed_overrides"] = args.train_override
    if args.envs is not None:
        settings["envs"] = None if args.envs == ["all"] else args.envs
    args.settings = settings
    return args


def env_suite(
    settings: dict[str, Any],
    peers: list[Peer],
    checkpoint: Callable[[dict[str, dict[str, list]]], None] | None = None,
) -> dict[str, dict[str, list]]:
    """Ours and every peer that has the env, interleaved, for each env; ``checkpoint``
    gets the results so far after each env (a long run stopped early keeps them)."""
    ours = our_python()
    candidates = settings["envs"] or all_bench_ids()
    missing = set(candidates) - set(list_envs(ours, BENCHMARKS / "env_throughput.py", candidates))
    if missing:
        raise SystemExit(
            "not in jaxmarl (an id, or ID@MAP with a known SMAX map, then optionally "
            f":KEY=VALUE,... that make accepts): {sorted(missing)}"
        )
    pythons = {peer.name: ensure_venv(peer) for peer in peers}
    has = {peer.name: set(peer_envs(peer, pythons[peer.name], candidates)) for peer in peers}
    common_args = ["--num-steps", str(settings["num_steps"]), "--repeats", str(settings["repeats"]), "--json"]
    results: dict[str, dict[str, list]] = {}
    timeout = settings.get("worker_timeout", 1800)
    for env_id in candidates:
        env_args = ["--env", env_id, *common_args]
        runners: dict[str, Callable[[], list[dict]]] = {
            "ours": env_runner(
                ours, BENCHMARKS / "env_throughput.py", env_args, settings["num_envs"], timeout
            )
        }
        for peer in peers:
            if env_id in has[peer.name]:
                n_peer = settings["num_envs"] if peer.vectorised else [1]
                runners[peer.name] = env_runner(pythons[peer.name], peer.worker, env_args, n_peer, timeout)
        print(f"{env_id}: {' vs '.join(runners)}", flush=True)
        results[env_id] = interleave(runners, settings["rounds"], log=lambda line: print(line, flush=True))
        if checkpoint is not None:
            checkpoint(results)
    return results


def env_runner(
    python: str | Path, worker: Path, env_args: list[str], num_envs: list[int], timeout: float
) -> Callable[[], list[dict]]:
    """One library's measurement of one env, called once per round. An ``N`` that timed
    out (and every larger one, measured after it) is not tried again in later rounds:
    it is reported as timed out with the same limit."""
    stopped: dict[int, float] = {}

    def call() -> list[dict]:
        todo = [n for n in num_envs if n not in stopped]
        records = []
        if todo:
            args = [*env_args, "--num-envs", *map(str, todo)]
            records = run_worker(python, worker, args, timeout=timeout, num_envs=todo)
        stopped.update((int(r["num_envs"]), float(r["limit_s"])) for r in records if r.get("timed_out"))
        done = {int(r["num_envs"]) for r in records}
        records += [timed_out(n, stopped[n]) for n in num_envs if n in stopped and n not in done]
        return sorted(records, key=lambda r: int(r["num_envs"]))

    return call


# Maps measured besides each registered id's default (SMAX's cost grows with the units).
EXTRA_BENCH_IDS = ["HeuristicEnemySMAX@2s3z", "HeuristicEnemySMAX@27m_vs_30m"]


def all_bench_ids() -> list[str]:
    """Every registered id, then the extra SMAX maps."""
    import jaxmarl

    return [*jaxmarl.registered_envs, *EXTRA_BENCH_IDS]


def train_suite(overrides: list[str]) -> list[dict]:
    """Each baseline family's default config, one seed."""
    records = []
    for family in TRAIN_FAMILIES:
        if not (ROOT / "baselines" / f"{family}.py").exists():
            continue
        print(f"training throughput: {family} {' '.join(overrides)}", flush=True)
        records += run_worker(
            our_python(), BENCHMARKS / "train_throughput.py", [*overrides, "--family", family]
        )
        print(
            f"  {records[-1]['steps_per_s']:.3g} steps/s ({records[-1]['compile_s']:.1f} s compile)",
            flush=True,
        )
    return records


def seed_suite(seeds: list[int], overrides: list[str]) -> list[dict]:
    """PPO's default config for each seed count, each in its own worker process."""
    records = []
    for n in seeds:
        print(f"seed scaling: {n} seed(s) {' '.join(overrides)}", flush=True)
        records += run_worker(
            our_python(), BENCHMARKS / "train_throughput.py", [*overrides, "--num-seeds", str(n)]
        )
        print(f"  {records[-1]['steps_per_s']:.3g} steps/s in {records[-1]['run_s']:.1f} s", flush=True)
    return records


def merge(old: dict[str, Any], new: dict[str, Any], suites: list[str]) -> dict[str, Any]:
    """``new``, plus what ``old`` measured that ``new`` did not: other envs, other values
    of N, other peers, skipped suites. The env table's settings are the new run's if it
    measured envs."""
    merged = dict(new)
    for part in (old, new):  # each record keeps the scan length it was measured with
        stamp_scan_length(part.get("env", {}), part.get("settings", {}).get("num_steps"))
    merged["env"] = {**old.get("env", {})}
    for env_id, libs in new["env"].items():
        # The libraries the new run measured (a peer it skipped goes: its rounds would not
        # pair with ours), each keeping its earlier records of the other values of N.
        earlier = old.get("env", {}).get(env_id, {})
        merged["env"][env_id] = {
            lib: merge_rounds(earlier.get(lib, []), rounds) for lib, rounds in libs.items()
        }
    merged["peers"] = {**old.get("peers", {}), **new["peers"]}
    merged["notes"] = old.get("notes", []) + new.get("notes", [])
    merged["sections"] = old.get("sections", []) + new.get("sections", [])
    if "env" not in suites:
        merged["settings"] = old.get("settings", new["settings"])
    lengths = Counter(
        r["num_steps"]
        for libs in merged["env"].values()
        for rounds in libs.values()
        for rnd in rounds
        for r in rnd
    )
    if lengths:  # the table's stated scan length: the commonest; other rows are marked
        merged["settings"] = {**merged["settings"], "num_steps": lengths.most_common(1)[0][0]}
    for suite in ("train", "seeds"):
        if suite not in suites:
            merged[suite] = old.get(suite, [])
    if old.get("command"):
        merged["command"] = f"{old['command']}`, then `{new['command']}"
    return merged


def merge_rounds(old: list[list[dict]], new: list[list[dict]]) -> list[list[dict]]:
    """One library's rounds for one env: the new run's records, and the old ones for the
    values of N the new run did not measure (round ``i`` joins round ``i``)."""
    measured = {int(r["num_envs"]) for rnd in new for r in rnd}
    kept = [[r for r in rnd if int(r["num_envs"]) not in measured] for rnd in old]
    rounds = [
        (kept[i] if i < len(kept) else []) + (new[i] if i < len(new) else [])
        for i in range(max(len(kept), len(new)))
    ]
    return [rnd for rnd in rounds if rnd]


def stamp_scan_length(env_results: dict[str, dict[str, list]], num_steps: int | None) -> None:
    """Give every env record without one the scan length of the run that measured it."""
    for libs in env_results.values():
        for rounds in libs.values():
            for rnd in rounds:
                for record in rnd:
                    record.setdefault("num_steps", num_steps)


def update_docs_page(section: str, page: Path = DOCS_PAGE) -> None:
    """Replace the text between the results markers of the docs page."""
    text = page.read_text()
    if DOCS_START not in text or DOCS_END not in text:
        raise ValueError(f"{page} has no {DOCS_START} ... {DOCS_END} section")
    head, rest = text.split(DOCS_START, 1)
    _, tail = rest.split(DOCS_END, 1)
    page.write_text(f"{head}{DOCS_START}\n{section}{DOCS_END}{tail}")


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    settings = args.settings
    started = time.perf_counter()
    results: dict[str, Any] = {
        "machine": report.machine_info(),
        "command": "python -m benchmarks.run " + shlex.join(sys.argv[1:] if argv is None else argv),
        "settings": settings,
        "peers": {
            name: {"label": PEERS[name].label, "vectorised": PEERS[name].vectorised} for name in args.peers
        },
        "env": {},
        "train": [],
        "seeds": [],
    }
    print(report.machine_line(results["machine"]), flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    partial = args.out.parent / "results.partial.json"

    def checkpoint(envs: dict[str, dict[str, list]]) -> None:
        partial.write_text(json.dumps({**results, "env": envs}, indent=1) + "\n")

    if "env" in args.suite:
        results["env"] = env_suite(settings, [PEERS[name] for name in args.peers], checkpoint)
    if "train" in args.suite:
        results["train"] = train_suite(settings["train_overrides"])
    if "seeds" in args.suite:
        results["seeds"] = seed_suite(settings["seeds"], settings["seed_overrides"])
    previous = args.out.parent / "results.json"
    if args.merge and previous.exists():
        results = merge(json.loads(previous.read_text()), results, args.suite)

    args.plot_dir.mkdir(parents=True, exist_ok=True)
    (args.out.parent / "results.json").write_text(json.dumps(results, indent=1) + "\n")
    partial.unlink(missing_ok=True)
    if results["env"]:
        report.plot_env_throughput(results, args.plot_dir / "env_throughput.png")
    if results["seeds"]:
        report.plot_seed_scaling(results["seeds"], args.plot_dir / "seed_scaling.png")
    rel = os.path.relpath(args.plot_dir, args.out.parent)
    args.out.write_text("# Benchmark results\n\n" + report.results_markdown(results, rel))
    if not args.no_docs:
        update_docs_page(report.results_markdown(results, os.path.relpath(args.plot_dir, DOCS_PAGE.parent)))
    print(f"wrote {args.out} and plots in {args.plot_dir} ({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
