"""Agent steps per second per CPU core: our Neural-MMO-style world against Neural MMO 2.1.1.

The Neural MMO 2 paper's method (section 5): random actions, every agent immortal so that
nobody dies and every step moves all agents, agent steps per second on one CPU core. Both
run Neural MMO's Medium world (map 160 with a 128-tile centre, 128 NPCs, every system on)
with each agent's ``Move`` and ``Attack`` (direction, style, target) uniform over the
entries its action mask allows and no other action (our other heads take their no-op).

- Ours: ``num_worlds`` worlds ``vmap``-ed in one jitted ``lax.scan`` of ``--num-steps``
  steps that computes every head's action mask and stacks every agent's observation at
  every step (both through ``lax.optimization_barrier``, so XLA can neither leave them
  out nor split their use into per-agent pieces; Neural MMO builds its observations and
  all its action targets at every step too), on one core (the process pins itself and
  XLA runs single-threaded), for each agent count and world count; also each world's
  state size and XLA's scratch memory for the rollout per world.
- Neural MMO: ``benchmarks/peers/nmmo_throughput.py`` in its own virtual environment
  (``tests/oracles/nmmo_oracle.py``), one world stepped in Python, pinned to the same core.

Ours runs in both observation formats (``--obs-formats``, ``NeuralMMO(obs_format=...)``):
``tables``, Neural MMO's int16 tables per agent, what nmmo builds at every step (the
like-for-like comparison), and ``flat``, the float32 row per agent the baselines train on.

Run ``python -m benchmarks.nmmo_throughput`` (about 13 minutes on an idle machine); it
prints a markdown table and writes ``benchmarks/nmmo_results.json``. ``--obs-tables``
measures ours with other observation tables (``NeuralMMO(obs_tables=...)``, e.g. without
``Market``, 6,144 of each agent's 10,318 numbers), ``--no-peer`` leaves nmmo out.
"""

from __future__ import annotations

import os
import sys

if __name__ == "__main__" or os.environ.get("JAXMARL_NMMO_BENCH_CHILD"):
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    os.environ["XLA_FLAGS"] = (
        os.environ.get("XLA_FLAGS", "") + " --xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
    )

import argparse
import json
import subprocess
import time
from pathlib import Path
from typing import Any

BENCHMARKS = Path(__file__).resolve().parent
ROOT = BENCHMARKS.parent


def measure_ours(
    num_agents: int,
    num_worlds: int,
    num_steps: int,
    repeats: int,
    obs_tables: list[str] | None = None,
    obs_format: str = "flat",
) -> dict[str, Any]:
    import jax
    import jax.numpy as jnp
    import numpy as np

    from jaxmarl.environments.nmmo import NeuralMMO
    from jaxmarl.environments.nmmo import constants as C
    from jaxmarl.environments.nmmo import observation as obs_ops
    from jaxmarl.environments.nmmo.env import OBS_TABLES

    tables = tuple(obs_tables) if obs_tables else OBS_TABLES
    env = NeuralMMO(num_agents=num_agents, immortal=True, obs_tables=tables, obs_format=obs_format)
    bounds = np.concatenate([[0], np.cumsum(C.ACTION_NVEC)])
    noop = jnp.asarray(C.NOOP_ACTION, jnp.int32)

    used = bounds[3]  # Move, Attack.Style and Attack.Target are the first three heads

    def actions(key: jax.Array, state: Any) -> dict[str, jax.Array]:
        # Every head's mask is computed (Neural MMO's observation carries all its action
        # targets; the barrier keeps XLA from dropping the heads not drawn). Each drawn
        # head takes the k-th allowed entry for one uniform k, as the peer does
        # (``legal[rng.integers(legal.size)]``); the other heads keep their no-op.
        masks = jax.lax.optimization_barrier(obs_ops.action_masks(env.config, state))[:, :used]
        u = jax.random.uniform(key, (num_agents, 3))
        a = jnp.tile(noop, (num_agents, 1))
        for h in (0, 1, 2):
            head = masks[:, bounds[h] : bounds[h + 1]]
            rank = jnp.cumsum(head, -1, dtype=jnp.int32)
            k = jnp.floor(u[:, h] * rank[:, -1]).astype(jnp.int32)
            a = a.at[:, h].set(jnp.argmax(head & (rank > k[:, None]), -1).astype(jnp.int32))
        return {agent: a[i] for i, agent in enumerate(env.agents)}

    def stack(obs: dict[str, Any]) -> Any:
        # (worlds, agents, ...) per table, or of the flat rows.
        return jax.tree.map(lambda *xs: jnp.stack(xs, 1), *[obs[a] for a in env.agents])

    def rollout(key: jax.Array) -> tuple[jax.Array, Any]:
        keys = jax.random.split(key, num_worlds)
        obs, states = jax.vmap(env.reset)(keys)

        def body(carry: tuple[Any, Any], key: jax.Array) -> tuple[tuple[Any, Any], None]:
            states, _ = carry
            k_act, k_step = jax.random.split(key)
            acts = jax.vmap(actions)(jax.random.split(k_act, num_worlds), states)
            obs, states, *_ = jax.vmap(env.step)(jax.random.split(k_step, num_worlds), states, acts)
            # The observations are stacked as a learner would and carried to the next step
            # (where a learner's policy reads them) and out of the rollout, so XLA must
            # build every one of them in full at every step (Neural MMO computes its
            # observations at every step too), and the harness adds no pass over them.
            return (states, stack(obs)), None

        (states, last_obs), _ = jax.lax.scan(body, (states, stack(obs)), jax.random.split(key, num_steps))
        return states.step.sum(), last_obs

    run = jax.jit(rollout)
    t0 = time.perf_counter()
    compiled = run.lower(jax.random.PRNGKey(0)).compile()
    compile_s = time.perf_counter() - t0
    analysis = compiled.memory_analysis()
    scratch = analysis.temp_size_in_bytes if analysis is not None else 0
    jax.block_until_ready(compiled(jax.random.PRNGKey(0)))
    times = []
    for r in range(repeats):
        t0 = time.perf_counter()
        jax.block_until_ready(compiled(jax.random.PRNGKey(r + 1)))
        times.append(time.perf_counter() - t0)
    best = sorted(times)[len(times) // 2]
    obs_shape, state = jax.eval_shape(env.reset, jax.random.PRNGKey(0))
    obs_shape = obs_shape[env.agents[0]]
    state_bytes = sum(x.size * x.dtype.itemsize for x in jax.tree.leaves(state))
    return {
        "lib": "ours",
        "obs_tables": list(env.obs_layout),
        "obs_format": obs_format,
        "obs_bytes_per_agent": sum(x.size * x.dtype.itemsize for x in jax.tree.leaves(obs_shape)),
        "num_agents": num_agents,
        "num_worlds": num_worlds,
        "compile_s": compile_s,
        "run_s": best,
        "env_steps_per_s": num_worlds * num_steps / best,
        "agent_steps_per_s": num_worlds * num_steps * num_agents / best,
        "state_bytes_per_world": state_bytes,
        "scratch_bytes_per_world": scratch / num_worlds,
    }


def measure_peer(num_agents: list[int], num_steps: int, repeats: int) -> list[dict[str, Any]]:
    sys.path.insert(0, str(ROOT / "tests"))
    from oracles.nmmo_oracle import oracle_python

    proc = subprocess.run(
        [
            str(oracle_python()),
            str(BENCHMARKS / "peers" / "nmmo_throughput.py"),
            "--num-agents",
            *map(str, num_agents),
            "--num-steps",
            str(num_steps),
            "--repeats",
            str(repeats),
            "--core",
            str(min(os.sched_getaffinity(0))),
        ],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": ""},
    )
    return [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]


def child(args: argparse.Namespace) -> None:
    record = measure_ours(
        args.one[0], args.one[1], args.num_steps, args.repeats, args.obs_tables, args.one_format
    )
    print(json.dumps(record))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--agents", type=int, nargs="+", default=[32, 128, 512])
    parser.add_argument("--worlds", type=int, nargs="+", default=[1, 16, 64])
    parser.add_argument("--num-steps", type=int, default=50)
    parser.add_argument("--peer-steps", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--obs-tables",
        nargs="+",
        help="our observation's tables (NeuralMMO's obs_tables; default: all, as Neural MMO's)",
    )
    parser.add_argument(
        "--obs-formats",
        nargs="+",
        default=["tables", "flat"],
        choices=["tables", "flat"],
        help="our observation formats (NeuralMMO's obs_format): Neural MMO's int16 tables per agent, "
        "as nmmo returns them, and the flat float32 row the baselines train on",
    )
    parser.add_argument(
        "--no-peer", action="store_true", help="measure ours only (writes no results file unless --out)"
    )
    parser.add_argument("--one", type=int, nargs=2, help=argparse.SUPPRESS)  # child: (agents, worlds)
    parser.add_argument("--one-format", default="flat", help=argparse.SUPPRESS)
    parser.add_argument("--out", help="results file (default: benchmarks/nmmo_results.json)")
    args = parser.parse_args()
    if args.one:
        child(args)
        return
    records = []
    for fmt, n, w in [(f, n, w) for f in args.obs_formats for n in args.agents for w in args.worlds]:
        if n * w > 128 * 64:  # memory: at most 8192 agents per rollout on this machine
            continue
        cmd = [
            sys.executable,
            "-m",
            "benchmarks.nmmo_throughput",
            "--one",
            str(n),
            str(w),
            "--one-format",
            fmt,
        ]
        cmd += ["--num-steps", str(args.num_steps), "--repeats", str(args.repeats)]
        cmd += ["--obs-tables", *args.obs_tables] if args.obs_tables else []
        out = subprocess.run(
            cmd,
            capture_output=True,
            text=True,
            check=True,
            cwd=ROOT,
            env={**os.environ, "JAXMARL_NMMO_BENCH_CHILD": "1"},
        )
        records.append(json.loads(out.stdout.strip().splitlines()[-1]))
        print(json.dumps(records[-1]), flush=True)
    for rec in [] if args.no_peer else measure_peer(args.agents, args.peer_steps, args.repeats):
        rec["lib"] = "nmmo 2.1.1"
        records.append(rec)
        print(json.dumps(rec), flush=True)
    results_path = args.out or (None if args.no_peer else BENCHMARKS / "nmmo_results.json")
    if results_path is not None:
        Path(results_path).write_text(json.dumps(records, indent=1) + "\n")
    peer = {r["num_agents"]: r["agent_steps_per_s"] for r in records if r["lib"] != "ours"}
    header = (
        "observation",
        "agents",
        "worlds",
        "ours agent steps/s",
        "nmmo agent steps/s",
        "ratio",
        "state KiB/world",
        "scratch KiB/world",
    )
    print("\n| " + " | ".join(header) + " |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in records:
        if r["lib"] != "ours":
            continue
        p = peer.get(r["num_agents"])
        ratio = f"**{r['agent_steps_per_s'] / p:.1f}x**" if p else "n/a"
        cell = f"{p:.3g}" if p else "n/a"
        print(
            f"| {r['obs_format']} | {r['num_agents']} | {r['num_worlds']} | "
            f"{r['agent_steps_per_s']:.3g} | {cell} | {ratio} | "
            f"{r['state_bytes_per_world'] / 1024:.0f} | {r['scratch_bytes_per_world'] / 1024:.0f} |"
        )


if __name__ == "__main__":
    main()
