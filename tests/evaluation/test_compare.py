"""``python -m jaxmarl.evaluation.compare``: exact numbers on run folders written here
(eval.json and metrics.csv as the training and evaluation scripts write them), the
marl-eval JSON layout, the CSV and figures, the protocol's refusals, and one end-to-end
run: two algorithms trained on two MPE tasks, evaluated, then compared from the command
line."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml
from fast_compile import FAST_ENV, REPO, fast_compilation, run_script

from baselines import evaluate, runs
from jaxmarl.evaluation import compare, statistics

EPISODES = 4
SPREAD, SIMPLE = "MPE_simple_spread_v3", "MPE_simple_v3"
KWARGS = {"action_type": "Discrete"}


def write_run(
    folder: Path,
    alg: str,
    env: str,
    returns: np.ndarray,
    random: np.ndarray,
    *,
    seed: int = 0,
    steps: tuple[int, ...] = (100, 200, 300),
    curves: np.ndarray | None = None,
    metrics: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] | None = None,
    eval_seed: int = 1,
    reference: float | None = None,
    env_kwargs: dict | None = None,
) -> Path:
    """A run folder as ``ppo.run`` and ``evaluate.py`` leave it: ``config.yaml``,
    ``metrics.csv`` (``curves``: ``(seeds, updates)`` training returns) and
    ``eval/eval.json`` (``returns``: ``(seeds, episodes)`` team returns; ``random``:
    ``(episodes,)``; ``metrics``: name -> (per seed-episode, random, curves))."""
    returns, random = np.asarray(returns, np.float64), np.asarray(random, np.float64)
    num_seeds, episodes = returns.shape
    metrics = metrics or {}
    config = {"ALG_NAME": alg, "ENV_NAME": env, "ENV_KWARGS": env_kwargs or KWARGS, "SEED": seed}
    config |= {"NUM_SEEDS": num_seeds} | ({"REFERENCE_RETURN": reference} if reference is not None else {})
    folder.mkdir(parents=True)
    (folder / "config.yaml").write_text(yaml.safe_dump(config))
    curves = np.zeros((num_seeds, len(steps))) if curves is None else np.asarray(curves, np.float64)
    arrays = {"timestep": np.tile(np.asarray(steps), (num_seeds, 1)), "return_mean": curves}
    arrays |= {n: c for n, (_, _, c) in metrics.items()}
    rows = runs.metrics_rows(arrays, ["agent_0"], metric_names=tuple(metrics))
    runs.write_csv(folder / "metrics.csv", rows)
    result = {
        "env": env,
        "env_kwargs": config["ENV_KWARGS"],
        "alg": alg,
        "episodes": episodes,
        "eval_seed": eval_seed,
        "greedy": False,
        "return_mean_per_seed": returns.mean(axis=1).tolist(),
        "return": evaluate.summary(returns),
        "metrics": {n: evaluate.summary(v) for n, (v, _, _) in metrics.items()},
        "random_return_mean": float(random.mean()),
        "random_return": evaluate.summary(random[None]),
        "random_metrics": {n: evaluate.summary(np.asarray(r)[None]) for n, (_, r, _) in metrics.items()},
    }
    (folder / "eval").mkdir()
    (folder / "eval" / "eval.json").write_text(json.dumps(result))
    return folder


def episodes(means, spread: float = 1.0) -> np.ndarray:
    """``(seeds, EPISODES)`` values whose per-seed means are ``means``."""
    offsets = spread * (np.arange(EPISODES) - (EPISODES - 1) / 2)
    return np.asarray(means, np.float64)[:, None] + offsets


RANDOM = {SPREAD: episodes([-60.0])[0], SIMPLE: episodes([-30.0])[0]}
# per-seed means: "good" beats "bad" on every seed of every task
MEANS = {
    ("good", SPREAD): [-20.0, -25.0, -22.0],
    ("good", SIMPLE): [-10.0, -12.0, -8.0],
    ("bad", SPREAD): [-50.0, -55.0, -40.0],
    ("bad", SIMPLE): [-28.0, -26.0, -29.0],
}


@pytest.fixture
def folders(tmp_path) -> list[Path]:
    out = []
    for (alg, env), means in MEANS.items():
        curves = np.linspace(-70.0, means[0], 3)[None].repeat(3, axis=0) + np.arange(3)[:, None]
        reference = -5.0 if env == SIMPLE else None  # the other task's is the best algorithm's
        out.append(
            write_run(
                tmp_path / f"{alg}_{env}",
                alg,
                env,
                episodes(means),
                RANDOM[env],
                curves=curves,
                reference=reference,
            )
        )
    return out


def summarise(folders, **kwargs):
    metric = kwargs.pop("metric", "return")
    loaded = [compare.load_run(f, metric) for f in folders]
    return loaded, compare.compare(loaded, metric, reps=kwargs.pop("reps", 500), **kwargs)


# ------------------------------------------------------------------ exact numbers


def test_scores_normalisation_and_aggregates(folders):
    _, summary = summarise(folders)
    assert summary["algorithms"] == ["bad", "good"] and summary["tasks"] == [SPREAD, SIMPLE]
    tasks = summary["protocol"]["tasks"]
    assert tasks[SPREAD]["random"] == pytest.approx(-60.0) and tasks[SIMPLE]["random"] == pytest.approx(-30.0)
    best = np.mean(MEANS["good", SPREAD])
    assert tasks[SPREAD]["reference"] == pytest.approx(best)
    assert tasks[SPREAD]["reference_source"] == "best algorithm's mean (good)"
    assert tasks[SIMPLE]["reference"] == -5.0 and "REFERENCE_RETURN" in tasks[SIMPLE]["reference_source"]
    assert tasks[SIMPLE]["environment"] == "mpe" and tasks[SIMPLE]["episodes"] == EPISODES
    norm = {}
    for alg in ("bad", "good"):
        raw = summary["scores"][alg]
        np.testing.assert_allclose(raw[SPREAD]["raw"], MEANS[alg, SPREAD])
        np.testing.assert_allclose(raw[SIMPLE]["raw"], MEANS[alg, SIMPLE])
        expected = np.stack(
            [
                (np.array(MEANS[alg, SPREAD]) + 60.0) / (best + 60.0),
                (np.array(MEANS[alg, SIMPLE]) + 30.0) / (-5.0 + 30.0),
            ],
            axis=1,
        )
        np.testing.assert_allclose(np.stack([raw[t]["normalised"] for t in (SPREAD, SIMPLE)], 1), expected)
        norm[alg] = expected
    stats = summary["aggregate"]["statistics"]
    for name in compare.STATISTICS:
        expected = statistics.interval_estimates(norm, statistics.AGGREGATES[name], reps=500, seed=0)
        for alg in norm:
            iv = stats[alg][name]
            assert iv["point"] == pytest.approx(statistics.AGGREGATES[name](norm[alg]))
            assert (iv["lower"], iv["upper"]) == pytest.approx((expected[alg].low, expected[alg].high))
            assert iv["lower"] <= iv["point"] <= iv["upper"]
    assert stats["good"]["iqm"]["point"] == pytest.approx(statistics.iqm(norm["good"]))
    poi = summary["aggregate"]["probability_of_improvement"]
    assert poi["good"]["bad"] == {"point": 1.0, "lower": 1.0, "upper": 1.0}
    assert poi["bad"]["good"] == {"point": 0.0, "lower": 0.0, "upper": 0.0}
    per_task = summary["per_task"][SPREAD]["statistics"]["good"]
    assert per_task["score"]["point"] == pytest.approx(best)
    assert per_task["iqm"]["point"] == pytest.approx(statistics.iqm(norm["good"][:, :1]))
    assert summary["per_task"][SIMPLE]["probability_of_improvement"]["good"]["bad"]["point"] == 1.0
    assert summary["protocol"]["seeds"] == {"bad": 3, "good": 3}
    assert summary["protocol"]["bootstrap_reps"] == 500 and summary["protocol"]["confidence"] == 0.95


def test_deterministic_for_a_seed_and_independent_of_run_order(folders):
    _, first = summarise(folders, seed=3)
    _, again = summarise(folders[::-1], seed=3)
    _, other = summarise(folders, seed=4)
    assert json.dumps(first) != json.dumps(other)
    assert json.dumps(first) == json.dumps(again)


def test_environment_metric_and_pooled_runs(tmp_path):
    """--metric win_rate scores the metric; two runs of one (algorithm, task) pool their seeds."""
    folders = []
    for alg, wins in (("a", [[1, 1, 0, 1], [1, 1, 1, 1]]), ("b", [[0, 0, 0, 1], [0, 1, 0, 0]])):
        for part in range(2):  # two runs of two seeds each (SEED 0 and 1)
            w = np.asarray(wins, np.float64)[::-1] if part else np.asarray(wins, np.float64)
            metric = (w, np.zeros(EPISODES), np.full((2, 3), 0.5))
            folders.append(
                write_run(
                    tmp_path / f"{alg}{part}", alg, SIMPLE, episodes([-9.0, -8.0]), RANDOM[SIMPLE],
                    seed=part, metrics={"win_rate": metric},
                )
            )  # fmt: skip
    _, summary = summarise(folders, metric="win_rate")
    assert summary["protocol"]["seeds"] == {"a": 4, "b": 4}
    np.testing.assert_allclose(summary["scores"]["a"][SIMPLE]["raw"], [0.75, 1.0, 1.0, 0.75])
    np.testing.assert_allclose(
        summary["scores"]["b"][SIMPLE]["normalised"], np.array([0.25, 0.25, 0.25, 0.25]) / 0.875
    )
    assert summary["protocol"]["tasks"][SIMPLE]["reference"] == pytest.approx(0.875)
    assert [r["SEED"] for r in summary["protocol"]["runs"]["a"][SIMPLE]] == [0, 1]
    np.testing.assert_allclose(summary["sample_efficiency"]["curves"]["a"]["point"], [0.5 / 0.875] * 3)


def test_no_algorithm_beats_random(tmp_path, capsys):
    """Without a reference and with every algorithm below random, the normalised score is
    score - random, said in the summary and on stderr."""
    folders = [
        write_run(tmp_path / a, a, SIMPLE, episodes(means), RANDOM[SIMPLE])
        for a, means in (("a", [-40.0, -35.0]), ("b", [-31.0, -33.0]))
    ]
    _, summary = summarise(folders)
    info = summary["protocol"]["tasks"][SIMPLE]
    assert info["reference"] == -29.0 and info["reference_source"].startswith("none: no algorithm beat")
    np.testing.assert_allclose(summary["scores"]["b"][SIMPLE]["normalised"], [-1.0, -3.0])
    assert "no algorithm beat the random policy on MPE_simple_v3" in capsys.readouterr().err


def test_learning_curves_on_a_shared_grid(tmp_path):
    """Same logged steps: the logged values (NaN updates bridged); different steps: evenly
    spaced steps over the common range, each curve interpolated."""
    nan = np.nan
    a = write_run(
        tmp_path / "a", "a", SIMPLE, episodes([-10, -11]), RANDOM[SIMPLE],
        steps=(100, 200, 300, 400), curves=[[nan, -30, nan, -20], [nan, -25, -22, -18]],
    )  # fmt: skip
    b = write_run(
        tmp_path / "b", "b", SIMPLE, episodes([-20, -21]), RANDOM[SIMPLE],
        steps=(100, 200, 300, 400), curves=[[-40, -35, -30, -25], [-40, -30, -20, -15]],
    )  # fmt: skip
    _, summary = summarise([a, b])
    eff, info = summary["sample_efficiency"], summary["protocol"]["learning_curves"]
    assert eff["steps"] == [200, 300, 400] and info["grid"].startswith("the logged steps")
    assert info["interpolated_values"] == 1  # seed 0 of a at step 300
    low, high = -30.0, -10.5  # random, best algorithm (a: seeds -10 and -11)
    curves_a = (np.array([[-30, -25, -20], [-25, -22, -18]]) - low) / (high - low)
    curves_b = (np.array([[-35, -30, -25], [-30, -20, -15]]) - low) / (high - low)
    for alg, c in (("a", curves_a), ("b", curves_b)):
        expected = [statistics.iqm(c[:, [k]]) for k in range(3)]
        np.testing.assert_allclose(eff["curves"][alg]["point"], expected)
    results = json.loads(json.dumps(compare.marl_eval_results(summarise([a, b])[0])))
    seed0 = results["mpe"][SIMPLE]["a"]["seed_0"]
    assert [seed0[f"step_{k}"]["return"] for k in range(3)] == [[-30.0], [-25.0], [-20.0]]
    assert seed0["step_3"]["step_count"] == 400

    c = write_run(
        tmp_path / "c", "b", SPREAD, episodes([-20, -21]), RANDOM[SPREAD],
        steps=(150, 350, 550), curves=[[-40, -30, -20], [-40, -30, -20]],
    )  # fmt: skip
    d = write_run(
        tmp_path / "d", "a", SPREAD, episodes([-20, -21]), RANDOM[SPREAD],
        steps=(100, 200, 300, 400, 500), curves=[[-50, -40, -30, -20, -10]] * 2,
    )  # fmt: skip
    loaded, summary = summarise([a, b, c, d])
    info = summary["protocol"]["learning_curves"]
    assert info["grid"].startswith("evenly spaced")
    # the range every curve covers is [200, 400]; c logged one step in it (350), a's seed 0
    # two: two steps, each curve interpolated there
    assert summary["sample_efficiency"]["steps"] == [200, 400] and info["checkpoints"] == 2
    results = compare.marl_eval_results(loaded)
    on_grid = {
        (alg, task): [results["mpe"][task][alg]["seed_0"][f"step_{k}"]["return"][0] for k in range(2)]
        for alg, task in (("a", SIMPLE), ("b", SPREAD), ("a", SPREAD))
    }
    assert on_grid == {
        ("a", SIMPLE): [-30.0, -20.0],
        ("b", SPREAD): [-37.5, -27.5],
        ("a", SPREAD): [-40.0, -20.0],
    }
    assert results["mpe"][SPREAD]["b"]["seed_0"]["step_2"]["step_count"] == 550


def test_results_json_is_marl_eval_raw_data(folders):
    """InstaDeep marl-eval's layout: {environment: {task: {algorithm: {run: {"step_<k>":
    {"step_count", metric lists}, "absolute_metrics": {metric lists}}}}}}, with what its
    loader (data_process_pipeline) and DiagnoseData.check_data need: the same run ids,
    steps and metrics (step_count aside) everywhere within an environment."""
    loaded, _ = summarise(folders)
    results = json.loads(json.dumps(compare.marl_eval_results(loaded), allow_nan=False))
    assert list(results) == ["mpe"]
    assert sorted(results["mpe"]) == [SPREAD, SIMPLE]
    for task, algs in results["mpe"].items():
        assert sorted(algs) == ["bad", "good"]
        for alg, seeds in algs.items():
            assert list(seeds) == ["seed_0", "seed_1", "seed_2"]
            for i, run in enumerate(seeds.values()):
                assert list(run) == ["step_0", "step_1", "step_2", "step_3", "absolute_metrics"]
                for k in range(3):
                    assert run[f"step_{k}"]["step_count"] == 100 * (k + 1)
                    assert set(run[f"step_{k}"]) == {"step_count", "return"}
                    assert len(run[f"step_{k}"]["return"]) == 1
                expected = episodes(MEANS[alg, task])[i].tolist()
                assert run["step_3"] == {"step_count": 300, "return": expected}
                assert run["absolute_metrics"] == {"return": expected}
    curve = results["mpe"][SPREAD]["good"]["seed_1"]
    assert [curve[f"step_{k}"]["return"][0] for k in range(3)] == pytest.approx(np.linspace(-70, -20, 3) + 1)


# ------------------------------------------------------------------ files and CLI


def test_command_line_writes_every_output(folders, tmp_path, capsys):
    out = tmp_path / "report"
    assert compare.main([*map(str, folders), "--out", str(out), "--reps", "200", "--seed", "1"]) == 0
    printed = capsys.readouterr().out
    assert "IQM" in printed and "P(good > bad) = 1.000 [1.000, 1.000]" in printed
    summary = json.loads((out / "summary.json").read_text())
    assert summary["protocol"]["bootstrap_seed"] == 1 and summary["protocol"]["bootstrap_reps"] == 200
    assert json.loads((out / "results.json").read_text()) == compare.marl_eval_results(
        [compare.load_run(f) for f in folders]
    )
    with (out / "summary.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == ["task", "algorithm", "statistic", "versus", "point", "lower", "upper"]
    # per task: score + 4 statistics + 1 PoI per algorithm; aggregate: 4 + 1
    assert len(rows) == 2 * 2 * 6 + 2 * 5
    row = next(r for r in rows if (r["task"], r["algorithm"], r["statistic"]) == ("aggregate", "good", "iqm"))
    iv = summary["aggregate"]["statistics"]["good"]["iqm"]
    assert [float(row[k]) for k in ("point", "lower", "upper")] == [iv["point"], iv["lower"], iv["upper"]]
    row = next(r for r in rows if r["statistic"] == "probability_of_improvement" and r["task"] == SIMPLE)
    assert (row["algorithm"], row["versus"], float(row["point"])) == ("bad", "good", 0.0)
    for name in compare.FIGURES:
        data = (out / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000, name


def one_error(capsys, *argv: str) -> str:
    assert compare.main(list(argv)) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.strip().splitlines()) == 1, captured.err
    assert "Traceback" not in captured.err
    return captured.err


def test_missing_evaluation_and_bad_paths_are_one_line_errors(folders, tmp_path, capsys):
    (folders[0] / "eval" / "eval.json").unlink()
    err = one_error(capsys, *map(str, folders), "--out", str(tmp_path / "o"))
    assert f"run python baselines/evaluate.py run={folders[0]}" in err
    err = one_error(capsys, str(tmp_path / "nowhere"), "--out", str(tmp_path / "o"))
    assert "nowhere is not a run folder" in err
    (tmp_path / "empty").mkdir()
    assert "no config.yaml" in one_error(capsys, str(tmp_path / "empty"), "--out", str(tmp_path / "o"))
    assert "no metric 'win_rate'" in one_error(
        capsys, *map(str, folders[1:]), "--out", "o", "--metric", "win_rate"
    )
    assert not (tmp_path / "o").exists()


def test_the_protocol_is_enforced(folders, tmp_path):
    loaded = [compare.load_run(f) for f in folders]
    other = write_run(
        tmp_path / "keys", "good", SIMPLE, episodes([0, 1]), RANDOM[SIMPLE], seed=1, eval_seed=2
    )
    with pytest.raises(
        compare.CompareError, match=r"evaluated on different episodes.*EVAL_SEED=1.*EVAL_SEED=2"
    ):
        compare.compare([*loaded, compare.load_run(other)])
    with pytest.raises(compare.CompareError, match="the same seeds twice"):
        compare.compare([*loaded, compare.load_run(folders[0])])
    with pytest.raises(compare.CompareError, match="bad has no runs on MPE_simple_v3"):
        compare.compare([r for r in loaded if not (r.alg == "bad" and r.task == SIMPLE)])
    more = write_run(tmp_path / "more", "good", SIMPLE, episodes([0, 1]), RANDOM[SIMPLE], seed=7)
    with pytest.raises(compare.CompareError, match="different numbers of seeds per task"):
        compare.compare([*loaded, compare.load_run(more)])
    one = [
        write_run(tmp_path / f"one{i}", a, SIMPLE, episodes([0]), RANDOM[SIMPLE]) for i, a in enumerate("xy")
    ]
    with pytest.raises(compare.CompareError, match="at least 2"):
        compare.compare([compare.load_run(f) for f in one])
    kw = write_run(
        tmp_path / "kw",
        "good",
        SIMPLE,
        episodes([0, 1, 2]),
        RANDOM[SIMPLE],
        seed=5,
        env_kwargs={"action_type": "x"},
    )
    with pytest.raises(compare.CompareError, match="different tasks"):
        compare.compare([*loaded, compare.load_run(kw)])


# ------------------------------------------------------------------ end to end


PPO = {"NUM_ENVS": 2, "NUM_STEPS": 25, "TOTAL_TIMESTEPS": 100, "UPDATE_EPOCHS": 1, "NUM_MINIBATCHES": 2}
A2C = {"NUM_ENVS": 2, "NUM_STEPS": 25, "TOTAL_TIMESTEPS": 100}


def test_train_evaluate_and_compare_two_algorithms_on_two_tasks(tmp_path):
    """ippo_ff (PPO) and ia2c_ff (A2C), 2 seeds each, on two MPE tasks with tiny
    budgets (two updates of 2 envs x 25 steps: one MPE episode each), evaluated on the
    same 3 episodes by one `baselines/evaluate.py run=A run=B ...` command, then compared
    from the command line."""
    from baselines import a2c, common, ppo

    folders = []
    algorithms = (("ppo", ppo, "ippo_ff", PPO), ("a2c", a2c, "ia2c_ff", A2C))
    with fast_compilation():
        for family, module, alg, budget in algorithms:
            for env in ("mpe_simple", "mpe_simple_spread"):
                overrides = [f"alg={alg}", f"env={env}", "NUM_SEEDS=2", "PROGRESS_INTERVAL_S=1000"]
                config = common.compose_config(family, overrides + [f"{k}={v}" for k, v in budget.items()])
                folder = tmp_path / f"{alg}-{env}"
                module.run(config, folder)
                folders.append(folder)
    # One command evaluates every run on the same episodes.
    evaluation = [f"run={folder}" for folder in folders] + ["EVAL_EPISODES=3", "EVAL_SEED=7", "GIF_STEPS=0"]
    done = run_script("baselines/evaluate.py", *evaluation)
    assert done.stdout.count("random policy: return") == 4, done.stdout
    evaluations = {}
    for folder in folders:
        result = json.loads((folder / "eval" / "eval.json").read_text())
        evaluations[result["alg"], result["env"]] = result
    out = tmp_path / "comparison"
    command = ["-m", "jaxmarl.evaluation.compare", *map(str, folders), "--out", str(out), "--reps", "300"]
    done = subprocess.run([sys.executable, *command], cwd=REPO, capture_output=True, text=True, env=FAST_ENV)
    assert done.returncode == 0, done.stderr
    assert "P(ia2c_ff > ippo_ff)" in done.stdout and "MPE_simple_spread_v3" in done.stdout
    summary = json.loads((out / "summary.json").read_text())
    assert summary["algorithms"] == ["ia2c_ff", "ippo_ff"] and summary["tasks"] == [SPREAD, SIMPLE]
    assert summary["protocol"]["seeds"] == {"ia2c_ff": 2, "ippo_ff": 2}
    for (alg, task), ev in evaluations.items():
        info = summary["protocol"]["tasks"][task]
        assert (info["eval_seed"], info["episodes"]) == (7, 3)
        assert info["random"] == pytest.approx(np.mean(ev["random_return"]["episodes"]))
        raw = np.mean(ev["return"]["episodes"], axis=1)
        np.testing.assert_allclose(summary["scores"][alg][task]["raw"], raw)
        normalised = (raw - info["random"]) / (info["reference"] - info["random"])
        np.testing.assert_allclose(summary["scores"][alg][task]["normalised"], normalised)
    assert summary["sample_efficiency"]["steps"] == [50, 100]  # every update ended one episode per env
    results = json.loads((out / "results.json").read_text())
    run = results["mpe"][SIMPLE]["ia2c_ff"]["seed_1"]
    assert list(run) == ["step_0", "step_1", "step_2", "absolute_metrics"]
    assert run["step_2"] == {
        "step_count": 100,
        "return": evaluations["ia2c_ff", SIMPLE]["return"]["episodes"][1],
    }
    assert (out / "summary.csv").read_text().startswith("task,algorithm,statistic,versus,point,lower,upper")
    for name in compare.FIGURES:
        assert (out / name).read_bytes()[:4] == b"\x89PNG"
