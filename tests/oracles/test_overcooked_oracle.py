"""Our Overcooked against overcooked-ai 1.1.0: same states, same actions, same everything.

For every classic layout, random joint-action trajectories of a full horizon (400
steps) are played from overcooked-ai's standard start state and from random reachable
states (our ``random_reset`` generator), half with uniformly random actions and half
with interact-heavy random actions (so that soups get made, served and delivered). At
every step the cooks' positions, facings and held objects, every pot's onions and
cooking tick, every counter's item, the sparse and shaped rewards of each cook and both
cooks' lossless encodings must be identical. overcooked-ai runs in subprocesses (see
``overcooked_oracle.py``) while our side replays all trajectories of a layout in one
vmapped ``lax.scan``.

- Interact-to-cook rule (overcooked-ai's own): every layout.
- Automatic rule: overcooked-ai with cooking started when the third onion goes in and
  no empty-handed start; the two rules differ only in when cooking starts.

CI plays 4 trajectories per layout and per kind of start (8 x 400 steps per layout).
The acceptance run (``JAXMARL_FULL_ORACLES=1``, see ``tests/settings.py``) uses 100 of
each kind, 200 trajectories per layout (80,000 transitions per layout, 400,000 for the
interact rule and 160,000 more for the automatic rule); ``OVERCOOKED_ORACLE_TRAJECTORIES``
sets another number::

    JAXMARL_FULL_ORACLES=1 pytest tests/oracles/test_overcooked_oracle.py -n 0 -s
"""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from fast_compile import parity_jit as jit
from settings import oracle_count

from jaxmarl.environments.overcooked import CLASSIC_LAYOUTS, Overcooked
from jaxmarl.environments.overcooked.generator import standard_start

# One worker plays the whole module, so its recording (the module fixture) runs once.
pytestmark = [pytest.mark.oracle, pytest.mark.xdist_group("overcooked_oracle")]

ORACLE = Path(__file__).with_name("overcooked_oracle.py")
TRAJECTORIES = oracle_count(reduced=4, full=100, variable="OVERCOOKED_ORACLE_TRAJECTORIES")
STEPS = 400
CHUNK = 50  # trajectories per oracle process
FIELDS = ("pos", "dir", "held", "held_onions", "items", "onions", "cook_tick", "step")
UNIFORM = np.full(6, 1 / 6)
INTERACT_HEAVY = np.array([0.12, 0.12, 0.12, 0.12, 0.12, 0.40])
AUTO_LAYOUTS = ("cramped_room", "forced_coordination")


def make_jobs(layout: str, rule: str, count: int, seed: int) -> tuple[Overcooked, dict, np.ndarray]:
    """``count`` standard starts and ``count`` random states, with random actions."""
    env = Overcooked(layout=layout, cooking=rule, random_reset=True, max_steps=STEPS)
    keys = jax.random.split(jax.random.PRNGKey(seed), count)
    _, randoms = jit(jax.vmap(env.reset_env))(keys)
    standard = standard_start(env.layout, keys[0], random_orientation=False)
    starts = jax.tree.map(
        lambda s, r: np.concatenate([np.broadcast_to(np.asarray(s), (count, *s.shape)), np.asarray(r)]),
        standard,
        randoms,
    )
    rng = np.random.default_rng(seed)
    probs = [UNIFORM, INTERACT_HEAVY] * count
    actions = np.stack([rng.choice(6, size=(STEPS, 2), p=p) for p in probs]).astype(np.int32)
    return env, starts, actions


def run_oracle(
    layout: str, rule: str, starts: dict, actions: np.ndarray, lo: int, hi: int, tmp: Path
) -> dict:
    src, dst = tmp / f"{layout}_{rule}_{lo}_in.npz", tmp / f"{layout}_{rule}_{lo}_out.npz"
    fields = {k: getattr(starts, k)[lo:hi] for k in FIELDS}
    np.savez(src, layout=layout, rule=rule, horizon=STEPS, actions=actions[lo:hi], **fields)
    subprocess.run([sys.executable, str(ORACLE), str(src), str(dst)], check=True, capture_output=True)
    with np.load(dst) as data:
        return {k: data[k] for k in data.files}


def replay(env: Overcooked, starts, actions: np.ndarray) -> tuple[dict, np.ndarray]:
    """Our trajectories from ``starts`` under ``actions``, every step recorded, and the
    encodings of the start states (one compiled call)."""

    def one(state, acts):
        def body(s, a):
            obs, s, reward, _, info = env.step_env(
                jax.random.PRNGKey(0), s, {"agent_0": a[0], "agent_1": a[1]}
            )
            out = {k: getattr(s, k) for k in FIELDS}
            out["obs"] = jnp.stack([obs["agent_0"], obs["agent_1"]])
            out["sparse"] = jnp.stack([info["sparse_reward"][a] for a in env.agents])
            out["shaped"] = jnp.stack([info["shaped_reward"][a] for a in env.agents])
            out["team"] = reward["agent_0"]
            return s, out

        _, out = jax.lax.scan(body, state, acts)
        return out

    run = jit(lambda starts, actions: (jax.vmap(one)(starts, actions), jax.vmap(env.encode)(starts)))
    return jax.device_get(run(starts, jnp.asarray(actions)))


def first_mismatch(label: str, ours: dict, theirs: dict, starts_obs: np.ndarray) -> str | None:
    checks = [(k, ours[k], theirs[k][:, 1:]) for k in (*FIELDS, "obs")]
    checks += [(k, ours[k], theirs[k]) for k in ("sparse", "shaped")]
    checks.append(("team reward", ours["team"], theirs["sparse"].sum(-1)))
    checks.append(("start obs", starts_obs[:, None], theirs["obs"][:, :1]))
    found = []
    for what, a, b in checks:
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape:
            return f"{label}: {what} has shape {a.shape}, overcooked-ai's {b.shape}"
        bad = (a != b).reshape(a.shape[0], a.shape[1], -1).any(-1)
        if bad.any():
            t = int(np.flatnonzero(bad.any(0))[0])
            traj = int(np.flatnonzero(bad[:, t])[0])
            found.append((t, f"{label}: {what} differs first at step {t + 1} of trajectory {traj}"))
    return min(found)[1] if found else None


def events(theirs: dict) -> dict[str, int]:
    ticks = theirs["cook_tick"]
    return {
        "deliveries": int((theirs["sparse"] > 0).sum()),
        "soup pickups": int((theirs["shaped"] == 5).sum()),
        "cooking starts": int(((ticks[:, 1:] == 1) & (ticks[:, :-1] == -1)).sum()),
        "counter pickups and drops": int(
            (theirs["items"][:, 1:] != theirs["items"][:, :-1]).any((-1, -2)).sum()
        ),
    }


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("overcooked_oracle")
    jobs = [(layout, "interact") for layout in CLASSIC_LAYOUTS] + [
        (layout, "auto") for layout in AUTO_LAYOUTS
    ]
    prepared = {job: make_jobs(*job, TRAJECTORIES, seed=i) for i, job in enumerate(jobs)}
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = {}
        for job, (_, starts, actions) in prepared.items():
            total = len(actions)
            for lo in range(0, total, CHUNK):
                futures[(job, lo)] = pool.submit(
                    run_oracle, *job, starts, actions, lo, min(lo + CHUNK, total), tmp
                )
        out = {}
        for job, (env, starts, actions) in prepared.items():
            ours, starts_obs = replay(env, starts, actions)
            problems, counts = [], {}
            for lo in range(0, len(actions), CHUNK):
                theirs = futures[(job, lo)].result()
                part = {k: v[lo : lo + CHUNK] for k, v in ours.items()}
                problem = first_mismatch(f"{job[0]} ({job[1]})", part, theirs, starts_obs[lo : lo + CHUNK])
                if problem:
                    problems.append(problem)
                for k, v in events(theirs).items():
                    counts[k] = counts.get(k, 0) + v
            out[job] = (problems, counts, len(actions))
    return out


@pytest.mark.parametrize("layout", list(CLASSIC_LAYOUTS))
def test_interact_rule_matches_overcooked_ai(results, layout):
    problems, counts, n = results[(layout, "interact")]
    assert not problems, problems[0]
    assert n == 2 * TRAJECTORIES
    print(f"{layout}: {n} trajectories x {STEPS} steps identical; events {counts}")


def test_trajectories_exercise_the_rules(results):
    """The comparison is not vacuous: across the layouts soups were cooked, taken out of
    pots and delivered, and items moved on and off counters."""
    totals: dict[str, int] = {}
    for (_, rule), (_, counts, _) in results.items():
        if rule == "interact":
            for k, v in counts.items():
                totals[k] = totals.get(k, 0) + v
    assert all(v > 0 for v in totals.values()), totals


@pytest.mark.parametrize("layout", AUTO_LAYOUTS)
def test_auto_rule_differs_only_in_when_cooking_starts(results, layout):
    problems, counts, _ = results[(layout, "auto")]
    assert not problems, problems[0]
    assert counts["cooking starts"] > 0


def test_standard_start_matches_overcooked_ai():
    code = (
        "import numpy as np, json; np.Inf = np.inf\n"
        "from overcooked_oracle import make_mdp, record\n"
        f"out = {{}}\nfor name in {list(CLASSIC_LAYOUTS)!r}:\n"
        "    mdp = make_mdp(name); r = record(mdp, mdp.get_standard_start_state())\n"
        "    out[name] = {k: np.asarray(v).tolist() for k, v in r.items()}\n"
        "print(json.dumps(out))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ORACLE.parent, capture_output=True, text=True, check=True
    )
    theirs = json.loads(done.stdout.strip().splitlines()[-1])
    for name, fields in theirs.items():
        env = Overcooked(layout=name, random_orientation=False)
        _, ours = env.reset(jax.random.PRNGKey(0))
        for k, v in fields.items():
            np.testing.assert_array_equal(np.asarray(getattr(ours, k)), np.asarray(v), err_msg=f"{name}: {k}")
