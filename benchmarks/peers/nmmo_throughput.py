"""Worker: the original Neural MMO (``nmmo`` 2.1.1) stepped one environment at a time on
one CPU core, the speed measurement of the Neural MMO 2 paper.

``nmmo.config.Default`` (the Medium world: map 160 with a 128-tile centre, 128 NPCs,
every game system on) with ``IMMORTAL = True``, so that no player dies and every step
moves all ``--num-agents`` players; each player takes a random ``Move`` and ``Attack``
(``Direction``, ``Style`` and ``Target`` each uniform over the entries of its
``ActionTargets`` mask that are 1; the other actions are not sent). After
``--warmup-steps`` steps, ``--num-steps`` steps are timed (the action draws included),
``--repeats`` times, each after a reset with its own seed. Players spawn on the edge of
the centre, ``4 * 128 = 512`` tiles, so at most 512 players fit the Medium map.

The process pins itself to one core (``--core``, default the lowest it may use), so the
rates are per core. With several ``--num-agents`` each is measured in a fresh process of
the same interpreter, so that ``peak_rss_bytes`` (``getrusage``'s ``ru_maxrss``) is the
peak of a process that ran that ``N`` only. One JSON line per ``N``, in the harness's
record format (``num_envs`` is 1: one environment, a Python loop; ``steps_per_s`` is env
steps per second) with ``num_agents``, ``env_steps_per_s`` and ``agent_steps_per_s``.

Runs in the nmmo 2.1.1 virtual environment (``tests/oracles/nmmo_oracle.py``):

    python benchmarks/peers/nmmo_throughput.py --num-agents 32 128 512 --num-steps 50
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy: one core, one thread
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

ENV_ID = "NeuralMMO"
ONE_RUN_ARGS = ("env", "num_steps", "warmup_steps", "repeats", "seed", "map_size", "map_center")


def has_env(bench_id: str) -> bool:
    """Ids naming Neural MMO: ``NeuralMMO``, ``NMMO``, any case, ``-``/``_`` and a ``-vN``
    suffix ignored."""
    name = bench_id.partition(":")[0].partition("@")[0].lower().replace("_", "").replace("-", "")
    return name.rstrip("0123456789").removesuffix("v") in ("neuralmmo", "nmmo")


def make_env(num_agents: int, map_size: int, map_center: int, maps_dir: str, seed: int) -> Any:
    import nmmo

    values = {
        "PATH_MAPS": maps_dir,
        "MAP_N": 1,
        "MAP_FORCE_GENERATION": True,
        "MAP_SIZE": map_size,
        "MAP_CENTER": map_center,
        "PLAYER_N": num_agents,
        "IMMORTAL": True,
    }
    return nmmo.Env(type("ThroughputConfig", (nmmo.config.Default,), values)(), seed=seed)


def random_move_attack(obs: dict, agents: list[int], rng: Any) -> dict:
    import numpy as np

    actions = {}
    for agent in agents:
        targets = obs[agent]["ActionTargets"]
        act: dict = {"Move": {}, "Attack": {}}
        for action, arg in (("Move", "Direction"), ("Attack", "Style"), ("Attack", "Target")):
            legal = np.flatnonzero(targets[action][arg])
            act[action][arg] = int(legal[rng.integers(legal.size)])
        actions[agent] = act
    return actions


def timed_run(env: Any, num_steps: int, warmup_steps: int, seed: int) -> tuple[float, float, int]:
    """Seconds for ``num_steps`` steps (actions included), seconds inside ``env.step``, and
    the actions taken by alive players."""
    import numpy as np

    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    for _ in range(warmup_steps):
        obs, *_ = env.step(random_move_attack(obs, list(env.agents), rng))
    agent_steps, step_s = 0, 0.0
    t0 = time.perf_counter()
    for _ in range(num_steps):
        if not env.agents:  # the horizon (1024) passed: a new episode, as a training loop does
            obs, _ = env.reset()
        agents = list(env.agents)
        actions = random_move_attack(obs, agents, rng)
        t1 = time.perf_counter()
        obs, *_ = env.step(actions)
        step_s += time.perf_counter() - t1
        agent_steps += len(agents)
    return time.perf_counter() - t0, step_s, agent_steps


def measure(args: argparse.Namespace, num_agents: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="nmmo-maps-") as maps_dir:
        t0 = time.perf_counter()
        env = make_env(num_agents, args.map_size, args.map_center, maps_dir, args.seed)
        setup_s = time.perf_counter() - t0
        runs = [timed_run(env, args.num_steps, args.warmup_steps, args.seed + i) for i in range(args.repeats)]
        players_at_end = len(env.realm.players)  # IMMORTAL: all of them
    run_s = [r[0] for r in runs]
    agent_rates = [r[2] / r[0] for r in runs]
    return {
        "env": args.env,
        "num_envs": 1,
        "num_agents": num_agents,
        "players_at_end": players_at_end,
        "num_steps": args.num_steps,
        "warmup_steps": args.warmup_steps,
        "map_size": args.map_size,
        "map_center": args.map_center,
        "immortal": True,
        "compile_s": 0.0,
        "setup_s": setup_s,
        "run_s": run_s,
        "env_step_only_s": [r[1] for r in runs],
        "steps_per_s": args.num_steps / statistics.median(run_s),
        "env_steps_per_s": args.num_steps / statistics.median(run_s),
        "agent_steps_per_s": statistics.median(agent_rates),
        "cores": sorted(os.sched_getaffinity(0)),
        "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--env", default=ENV_ID)
    parser.add_argument("--num-agents", type=int, nargs="+", default=[128])
    parser.add_argument("--num-steps", type=int, default=1000)
    parser.add_argument("--warmup-steps", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--map-size", type=int, default=160)
    parser.add_argument("--map-center", type=int, default=128)
    parser.add_argument("--core", type=int, help="CPU core to run on (default: the lowest allowed)")
    parser.add_argument("--num-envs", type=int, nargs="*", help="ignored: one environment, stepped in a loop")
    parser.add_argument("--json", action="store_true", help="ignored: the output is always JSON")
    parser.add_argument(
        "--list", nargs="*", metavar="ENV", help="print (JSON) which of these nmmo has, and exit"
    )
    args = parser.parse_args()
    if args.list is not None:
        print(json.dumps([bench_id for bench_id in args.list if has_env(bench_id)]))
        return
    if not has_env(args.env):
        parser.error(f"nmmo has no environment {args.env!r}")
    core = args.core if args.core is not None else min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {core})
    if len(args.num_agents) > 1:  # one fresh process per N: its own peak memory
        for n in args.num_agents:
            argv = [f"--{k.replace('_', '-')}={v}" for k, v in vars(args).items() if k in ONE_RUN_ARGS]
            argv += [f"--num-agents={n}", f"--core={core}"]
            proc = subprocess.run([sys.executable, __file__, *argv], capture_output=True, text=True)
            if proc.returncode:
                sys.exit(f"N={n} failed:\n{proc.stderr[-3000:]}")
            print(proc.stdout.strip().splitlines()[-1], flush=True)
        return
    print(json.dumps(measure(args, args.num_agents[0])), flush=True)


if __name__ == "__main__":
    main()
