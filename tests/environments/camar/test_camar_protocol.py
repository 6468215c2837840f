"""CAMAR's Easy / Medium / Hard protocol: the benchmark tasks, fixed evaluation keys,
trained runs and planners played on other tasks, and the report's statistics."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
from fast_compile import fast_compilation

import jaxmarl
from baselines import common, ppo
from jaxmarl.environments.camar import protocol
from jaxmarl.environments.camar.planning import RRT_STAR
from jaxmarl.evaluation import statistics

# Small open maps where agents are strong enough to reach their goals in a short episode
# (as in the learning test): the planner must then beat random actions.
SMALL = {
    "num_rows": 6,
    "num_cols": 6,
    "obstacle_density": 0.0,
    "max_steps": 100,
    "goal_rad_range": (0.1, 0.1),
    "dynamic_kwargs": {"accel": 20.0},
}
TASKS = {
    "small_2a": protocol.Task("small_2a", "camar_random_grid_v0", {**SMALL, "num_agents": 2}),
    "small_4a": protocol.Task("small_4a", "camar_random_grid_v0", {**SMALL, "num_agents": 4}),
}


@pytest.fixture(autouse=True, scope="module")
def _fast_compilation():
    with fast_compilation():
        yield


def test_the_twelve_benchmark_tasks():
    tasks = protocol.benchmark_tasks()
    assert len(tasks) == 12
    counts = sorted((t.env_name, t.env_kwargs["num_agents"]) for t in tasks.values())
    assert counts == sorted([("camar_labmaze_grid_v0", n) for n in (8, 32)] * 3) + sorted(
        [("camar_random_grid_v0", n) for n in (8, 32)] * 3
    )
    densities = {t.env_kwargs.get("obstacle_density") for t in tasks.values() if "random" in t.name}
    assert densities == {0.0, 0.05, 0.15}
    probs = {t.env_kwargs.get("extra_connection_probability") for t in tasks.values() if "labmaze" in t.name}
    assert probs == {0.4, 0.65, 1.0}
    assert all(t.env_kwargs["max_steps"] == protocol.MAX_STEPS == 160 for t in tasks.values())
    env = tasks["labmaze_grid_32a_p0.4"].make()
    assert env.num_agents == 32 and env.max_steps == 160


def test_train_commands_compose_to_the_task():
    task = protocol.benchmark_tasks()["random_grid_32a_d0.05"]
    words = task.train_command().split()
    assert words[:3] == ["python", "baselines/ppo.py", "env=camar_random_grid"]
    overrides = [w.strip("'") for w in words[2:] if "=" in w and not w.startswith("TOTAL")]
    config = common.compose_config("ppo", overrides)
    assert config["ENV_NAME"] == task.env_name
    assert config["ENV_KWARGS"] == dict(task.env_kwargs)


def test_movingai_tasks_need_maps_and_cover_every_agent_count():
    from jaxmarl.environments.camar.grid_maps import SHIPPED_MAPS

    tasks = protocol.movingai_tasks(SHIPPED_MAPS, agent_counts=(4, 8))
    assert sorted(tasks) == sorted(
        f"movingai_{name}_{n}a" for name in ("blocks_48", "staggered_48") for n in (4, 8)
    )
    assert tasks["movingai_blocks_48_8a"].make().num_agents == 8
    with pytest.raises(ValueError, match="at least one"):
        protocol.movingai_tasks([])


def test_evaluation_keys_are_fixed_and_shared():
    keys = protocol.eval_keys(5)
    np.testing.assert_array_equal(keys, protocol.eval_keys(5))
    assert keys.shape[0] == 5
    assert not np.array_equal(keys, protocol.eval_keys(5, seed=6))


def test_planner_beats_random_on_the_same_episodes():
    planner = dataclasses.replace(RRT_STAR, num_iters=100)
    ours = protocol.evaluate_planner(planner, {"small_2a": TASKS["small_2a"]}, episodes=6, seeds=2)
    rand = protocol.evaluate_random({"small_2a": TASKS["small_2a"]}, episodes=6)
    assert ours["small_2a"]["success_rate"].shape == (2, 6)
    assert rand["small_2a"]["success_rate"].shape == (1, 6)
    assert ours["small_2a"]["success_rate"].mean() >= 0.5
    assert rand["small_2a"]["success_rate"].mean() <= 0.2
    assert ours["small_2a"]["return"].mean() > rand["small_2a"]["return"].mean()
    # makespan and flowtime count steps, at most max_steps per agent
    assert np.all(ours["small_2a"]["makespan"] <= 100) and np.all(ours["small_2a"]["flowtime"] <= 200)


def test_report_statistics_on_known_outcomes():
    rng = np.random.default_rng(0)

    def outcomes(level: float, runs: int) -> protocol.Outcomes:
        return {
            t: {m: level + i + rng.normal(0, 0.01, (runs, 6)) for m in (*protocol.METRICS, "return")}
            for i, t in enumerate(("a", "b", "c"))
        }

    results = {"good": outcomes(1.0, 3), "bad": outcomes(0.0, 3)}
    rand = {t: {"return": np.full((1, 6), -1.0 + i)} for i, t in enumerate(("a", "b", "c"))}
    rep = protocol.report(results, rand, reps=500)
    good = protocol.score_matrices(results, "success_rate")["good"]
    assert good.shape == (3, 3)
    assert rep["metrics"]["success_rate"]["good"]["value"] == pytest.approx(statistics.iqm(good))
    e = rep["metrics"]["success_rate"]["good"]
    assert e["low"] <= e["value"] <= e["high"]
    # 'good' is the reference (1) and random is 0 on every task: 'bad' sits half-way
    agg = rep["normalised_return"]["aggregates"]
    assert agg["iqm"]["good"]["value"] == pytest.approx(1.0, abs=0.02)
    assert agg["iqm"]["bad"]["value"] == pytest.approx(0.5, abs=0.02)
    assert rep["probability_of_improvement"]["good,bad"]["value"] == 1.0
    assert rep["probability_of_improvement"]["bad,good"]["value"] == 0.0
    with pytest.raises(ValueError, match="played"):
        protocol.report({"good": results["good"], "other": {"a": results["bad"]["a"]}})


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    """A finished two-seed IPPO run on the 2-agent task."""
    run_dir = tmp_path_factory.mktemp("run")
    overrides = {
        "NUM_ENVS": 2,
        "NUM_STEPS": 8,
        "TOTAL_TIMESTEPS": 32,
        "UPDATE_EPOCHS": 1,
        "NUM_MINIBATCHES": 2,
    }
    config = common.compose_config(
        "ppo",
        ["env=camar_random_grid", "alg=ippo_ff", "NUM_SEEDS=2", "ENV_KWARGS={}"]
        + [f"{k}={v}" for k, v in overrides.items()],
    )
    config["ENV_KWARGS"] = dict(TASKS["small_2a"].env_kwargs)
    with fast_compilation():  # a tiny run: compiling is the cost
        ppo.run(config, run_dir)
    return run_dir


def test_a_run_plays_other_tasks_and_the_cli_writes_the_report(tiny_run, tmp_path, capsys):
    # Medium-style: the 2-agent policy plays 4 agents (CAMAR's observation does not depend on N)
    out = protocol.evaluate_run(tiny_run, {"small_4a": TASKS["small_4a"]}, episodes=3)
    assert out["small_4a"]["success_rate"].shape == (2, 3)
    assert out["small_4a"]["return"].shape == (2, 3)
    assert np.all((out["small_4a"]["coordination"] >= 0) & (out["small_4a"]["coordination"] <= 1))
    assert np.all(np.isin(out["small_4a"]["success_rate"], [0.0, 0.25, 0.5, 0.75, 1.0]))
    # a policy cannot play an environment whose observations have another size
    with pytest.raises(ValueError, match="observation"):
        protocol.evaluate_run(tiny_run, {"x": protocol.Task("x", "camar_random_grid_v0", {"max_obs": 5})}, 2)

    # Easy tier from the command line: the run plays its own task
    assert (
        protocol.main(
            ["easy", "--run", f"mine={tiny_run}", "--episodes", "3", "--reps", "200", "--out", str(tmp_path)]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert "mine" in printed and "success_rate" in printed
    rep = json.loads((tmp_path / "report.json").read_text())
    assert rep["tier"] == "easy" and rep["eval_seed"] == 5
    # the run played its own task, on the protocol's keys
    own = protocol.evaluate_run(tiny_run, None, episodes=3)
    assert list(own) == [next(iter(rep["per_task"]["return"]["mine"]))]
    assert set(rep["metrics"]) == {*protocol.METRICS, "return"}
    assert list(rep["metrics"]["success_rate"]) == ["mine"]
    rows = (tmp_path / "report.csv").read_text().splitlines()
    assert rows[0] == "algorithm,metric,iqm,ci_low,ci_high" and len(rows) == 1 + 5


def test_cli_errors_are_clear(capsys):
    with pytest.raises(SystemExit):
        protocol.main(["hard", "--run", "x"])
    assert "--movingai-dir" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        protocol.main(["medium"])
    assert "--run or --planner" in capsys.readouterr().err
    assert protocol.main(["tasks"]) == 0
    assert capsys.readouterr().out.count("baselines/ppo.py") == 12
    assert jaxmarl.registered_envs  # the ids the tasks name are registered
    assert all(t.env_name in jaxmarl.registered_envs for t in protocol.benchmark_tasks().values())
