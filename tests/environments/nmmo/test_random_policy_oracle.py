"""Our world against Neural MMO 2.1.1 under the same random policy, statistically.

Neural MMO has no API to set its state, so the comparison is statistical: both play the
Small preset (64 agents, 32 NPC slots, map 64 with a 32-tile centre, 128 ticks) with the
policy of ``tests/oracles/nmmo_oracle_worker.py`` (every action head uniform among the
entries its mask allows), Neural MMO for 8 episodes in its own virtual environment, ours
for 16 vmapped episodes. Maps differ (each library's own noise and resource scatter), so
the statistics are compared as estimates from independent samples: for each quantity the
difference of the two means must lie within four standard errors of that difference,
the standard errors coming from the spread across episodes on each side (a 4-sigma test
fails by chance about once in 16 000 checks). Events Neural MMO records fewer than 40
times in its sample are too rare for a per-episode spread and are left out; the test
names the ones it compares and requires the common ones among them.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from nmmo_random_stats import EVENTS, run
from oracles.nmmo_oracle import run_worker

pytestmark = [pytest.mark.oracle, pytest.mark.xdist_group("nmmo_random_policy_oracle")]
NMMO_EPISODES, OUR_EPISODES = 8, 16
SIGMAS = 4.0
TICKS = (24, 26, 32, 48, 64, 96, 128)
MIN_EVENTS = 40
COMMON = {"EAT_FOOD", "DRINK_WATER", "GO_FARTHEST", "SCORE_HIT", "PLAYER_KILL", "LOOT_ITEM", "AGENT_CULLED"}


@pytest.fixture(scope="module")
def samples() -> tuple[dict, dict]:
    """Ours and Neural MMO's, the oracle's episodes playing while ours compile and run."""
    with ThreadPoolExecutor(1) as pool:
        theirs = pool.submit(run_worker, "--episodes", str(NMMO_EPISODES), "--seed", "0")
        return run(OUR_EPISODES, seed=0), theirs.result()


@pytest.fixture(scope="module")
def ours(samples) -> dict:
    return samples[0]


@pytest.fixture(scope="module")
def theirs(samples) -> dict:
    return samples[1]


def agree(a: list[float], b: list[float]) -> tuple[bool, str]:
    """Whether two samples' means differ by at most SIGMAS standard errors."""
    a_, b_ = np.asarray(a, float), np.asarray(b, float)
    ma, mb = a_.mean(), b_.mean()
    sa, sb = a_.std(ddof=1) / np.sqrt(len(a_)), b_.std(ddof=1) / np.sqrt(len(b_))
    bound = SIGMAS * np.hypot(sa, sb)
    return abs(ma - mb) <= bound, f"ours {ma:.4g} +- {sa:.2g}, nmmo {mb:.4g} +- {sb:.2g} (bound {bound:.2g})"


def test_survival_curves_agree(ours, theirs):
    bad = []
    for t in TICKS:
        ok, text = agree(
            [ep["survival"][t] for ep in ours["per_episode"]],
            [ep["survival"][t] for ep in theirs["per_episode"]],
        )
        if not ok:
            bad.append(f"tick {t}: {text}")
    assert not bad, bad


def test_events_per_agent_step_agree(ours, theirs):
    compared, bad = [], []
    for event in EVENTS:
        if sum(ep["events"][event] for ep in theirs["per_episode"]) < MIN_EVENTS:
            continue
        compared.append(event)
        ok, text = agree(
            [ep["events"][event] / ep["alive_agent_steps"] for ep in ours["per_episode"]],
            [ep["events"][event] / ep["alive_agent_steps"] for ep in theirs["per_episode"]],
        )
        if not ok:
            bad.append(f"{event}: {text}")
    assert set(compared) >= COMMON, compared
    assert not bad, bad


def test_predicate_progress_agrees(ours, theirs):
    """Mean progress at the end of an episode of the worker's six predicates (each agent
    its own subject). A sample's standard error is at least one agent's share of it
    (``1 / (64 * episodes)``), the resolution of a mean over agents and episodes."""
    bad = []
    for name in theirs["progress"]:
        a = np.asarray([ep["progress_mean"][name] for ep in ours["per_episode"]])
        b = np.asarray([ep["progress_mean"][name] for ep in theirs["per_episode"]])
        sa = max(a.std(ddof=1) / np.sqrt(len(a)), 1 / (64 * len(a)))
        sb = max(b.std(ddof=1) / np.sqrt(len(b)), 1 / (64 * len(b)))
        if abs(a.mean() - b.mean()) > SIGMAS * np.hypot(sa, sb):
            bad.append(f"{name}: ours {a.mean():.4g} +- {sa:.2g}, nmmo {b.mean():.4g} +- {sb:.2g}")
    assert not bad, bad
