"""Run measurements in worker processes, interleaved, and turn them into ratios.

Each measurement runs in a fresh worker process (``python <worker> ... --json``), in the
virtual environment of the library it measures. The libraries take turns, round after
round (ours, peer, ours, peer ...), and every round gives one ratio ``ours / peer``, so
a machine that drifts during the run (another job, thermal throttling) moves both
sides of a ratio together instead of biasing it. Reported: the median ratio and the
lowest and highest ones.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Spread:
    """Median, lowest and highest of a list of measurements."""

    median: float
    low: float
    high: float
    count: int

    @classmethod
    def of(cls, values: Sequence[float]) -> Spread:
        if not values:
            raise ValueError("no measurements to summarise")
        return cls(statistics.median(values), min(values), max(values), len(values))


def pair_ratios(ours: Sequence[float], peer: Sequence[float]) -> list[float]:
    """``ours[i] / peer[i]`` for each round ``i``: one ratio per interleaved pair."""
    if len(ours) != len(peer):
        raise ValueError(f"unpaired rounds: {len(ours)} of ours, {len(peer)} of the peer")
    if any(p <= 0 for p in peer):
        raise ValueError("a peer measurement is not positive; cannot take a ratio")
    return [o / p for o, p in zip(ours, peer, strict=True)]


def run_worker(
    python: str | Path,
    script: Path,
    args: Sequence[str],
    timeout: float = 1800,
    num_envs: Sequence[int] | None = None,
) -> list[dict]:
    """Run ``python script args`` and return the JSON objects it printed, one per line.

    A worker still running after ``timeout`` seconds is stopped. With ``num_envs`` (the
    values of ``N`` it was asked for, measured in that order), the records it printed
    before that are kept and every missing ``N`` gets ``{"num_envs": N, "timed_out":
    True, "limit_s": timeout}``; without it, the timeout is an error."""
    cmd = [str(python), str(script), *args]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("PYTHONPATH", None)  # never let our package leak into a peer's environment
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired as err:
        if num_envs is None:
            raise
        out = err.stdout or b""
        records = parse_records(out.decode() if isinstance(out, bytes) else out)
        done = {int(rec["num_envs"]) for rec in records}
        return records + [timed_out(n, timeout) for n in num_envs if n not in done]
    if proc.returncode:
        raise RuntimeError(f"worker failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr[-3000:]}")
    records = parse_records(proc.stdout)
    if not records:
        raise RuntimeError(f"worker printed no result: {' '.join(cmd)}\n{proc.stdout[-2000:]}")
    return records


def parse_records(stdout: str) -> list[dict]:
    """The JSON objects a worker printed, one per line (other lines are ignored)."""
    return [json.loads(line) for line in map(str.strip, stdout.splitlines()) if line.startswith("{")]


def timed_out(num_envs: int, limit_s: float) -> dict:
    """The record of a measurement stopped after ``limit_s`` seconds."""
    return {"num_envs": num_envs, "timed_out": True, "limit_s": limit_s}


def interleave(
    runners: dict[str, Callable[[], list[dict]]], rounds: int, log: Callable[[str], Any] = print
) -> dict[str, list[list[dict]]]:
    """Call each runner once per round, in the given order (A B A B ...).

    Returns, per runner, one list of records per round."""
    results: dict[str, list[list[dict]]] = {name: [] for name in runners}
    for r in range(rounds):
        for name, runner in runners.items():
            records = runner()
            results[name].append(records)
            rates = ", ".join(
                f"N={rec['num_envs']}: "
                + (
                    f"timed out ({rec['limit_s']:.0f} s)"
                    if rec.get("timed_out")
                    else f"{rec['steps_per_s']:.3g}"
                )
                for rec in records
            )
            log(f"  round {r + 1}/{rounds} {name:>12}: {rates} steps/s")
    return results


def by_num_envs(rounds: list[list[dict]], key: str = "steps_per_s") -> dict[int, list[float]]:
    """``{N: [value of round 0, value of round 1, ...]}`` from a runner's records; an
    ``N`` that timed out in any round is left out (see ``timed_out_ns``)."""
    stopped = timed_out_ns(rounds)
    out: dict[int, list[float]] = {}
    for records in rounds:
        for rec in records:
            if int(rec["num_envs"]) not in stopped:
                out.setdefault(int(rec["num_envs"]), []).append(float(rec[key]))
    return out


def timed_out_ns(rounds: list[list[dict]]) -> dict[int, float]:
    """``{N: time limit in seconds}`` for every ``N`` stopped in some round."""
    return {
        int(rec["num_envs"]): float(rec["limit_s"])
        for records in rounds
        for rec in records
        if rec.get("timed_out")
    }


def our_python() -> str:
    return sys.executable
