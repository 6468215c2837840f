"""Runs users can trust: a training run killed part-way resumes to the same parameters;
checkpoints are never half-written; parameters are saved before anything optional; the
metrics file and wandb are written while training runs; failed commands leave no folder
and say what is wrong in one line; trained runs load as policies from anywhere."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
import types
from pathlib import Path

import jax
import numpy as np
import pytest
from fast_compile import FAST_ENV, REPO, fast_compilation, run_script

import jaxmarl
from baselines import common, ppo, qlearning, runs

# Ten updates of 2 envs x 8 steps on the smallest MPE scenario; compiling is the cost.
TINY = [
    "alg=ippo_ff",
    "env=mpe_simple",
    "NUM_ENVS=2",
    "NUM_STEPS=8",
    "TOTAL_TIMESTEPS=160",
    "UPDATE_EPOCHS=1",
    "NUM_MINIBATCHES=1",
    "NUM_SEEDS=2",
    "LOG_INTERVAL=1",
    "CHECKPOINT_INTERVAL_S=0",
    "PROGRESS_INTERVAL_S=0",
]


def cli(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess:
    """``python <args>`` with fast compilation, not raising on failure."""
    return subprocess.run([sys.executable, *args], cwd=cwd, env=FAST_ENV, capture_output=True, text=True)


def params_of(run_dir: Path) -> list[np.ndarray]:
    return [np.asarray(x) for x in jax.tree.leaves(runs.load_run(run_dir)[1])]


def complete_checkpoints(run_dir: Path) -> list[int]:
    folder = run_dir / runs.CHECKPOINTS
    return sorted(int(p.name) for p in folder.iterdir() if p.name.isdigit()) if folder.is_dir() else []


@pytest.fixture(autouse=True)
def _fast_compilation():
    """The runs trained in this process compile without backend optimisations, as the
    command-line ones do (FAST_ENV): tiny runs, where compiling is the cost."""
    with fast_compilation():
        yield


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory) -> Path:
    run_dir = tmp_path_factory.mktemp("runs") / "whole"
    run_script("baselines/ppo.py", *TINY, f"hydra.run.dir={run_dir}")
    return run_dir


def test_a_run_killed_part_way_resumes_to_the_same_parameters(uninterrupted, tmp_path):
    run_dir = tmp_path / "killed"
    slow = "PROGRESS_INTERVAL_S=0"  # the progress callback per update keeps slices apart in time
    proc = subprocess.Popen(
        [sys.executable, "baselines/ppo.py", *TINY, slow, f"hydra.run.dir={run_dir}"],
        cwd=REPO,
        env=FAST_ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 80
    while not complete_checkpoints(run_dir) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    if proc.returncode == 0:  # it finished before the signal arrived: nothing was tested
        pytest.fail(f"the run ended before SIGTERM; make it longer\n{out}")
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert f"continue with resume={run_dir}" in err
    stopped_at = max(complete_checkpoints(run_dir))
    assert 0 < stopped_at < 10 and not (run_dir / runs.PARAMS).exists()
    rows = (run_dir / "metrics.csv").read_text().splitlines()
    assert len(rows) == 1 + 2 * stopped_at  # written live, slice by slice

    resumed = run_script("baselines/ppo.py", f"resume={run_dir}")
    assert f"resuming {run_dir} at update {stopped_at}/10" in resumed.stdout
    for a, b in zip(params_of(run_dir), params_of(uninterrupted), strict=True):
        np.testing.assert_array_equal(a, b)
    assert (run_dir / "metrics.csv").read_text() == (uninterrupted / "metrics.csv").read_text()
    assert not (run_dir / runs.CHECKPOINTS).exists()  # removed once the run finished


def test_resume_refuses_other_overrides_and_finished_runs(uninterrupted):
    for args, message in [
        (
            [f"resume={uninterrupted}", "NUM_SEEDS=4"],
            "resume continues a run with its saved config.yaml; drop the other overrides ['NUM_SEEDS=4']",
        ),
        (
            [f"resume={uninterrupted}"],
            f"resume={uninterrupted}: this run has finished (params.msgpack is there)",
        ),
        (["resume=/nonexistent/run"], "resume=/nonexistent/run: not a run folder (no config.yaml)"),
    ]:
        result = subprocess.run(
            [sys.executable, "baselines/ppo.py", *args],
            cwd=REPO,
            env=FAST_ENV,
            capture_output=True,
            text=True,
        )
        assert result.returncode == 2, result.stderr
        assert result.stderr.strip() == f"error: {message}"


def test_a_half_written_checkpoint_is_never_restored(tmp_path):
    """Orbax writes into a temporary folder and renames it when complete; a crash mid-save
    leaves such a folder, which resuming ignores in favour of the last complete one."""
    config = common.compose_config("qlearning", ["alg=vdn", "env=mpe_simple_spread", *QL_TINY])
    whole = tmp_path / "whole"
    out = qlearning.run(config | {"KEEP_CHECKPOINTS": True}, whole)
    assert complete_checkpoints(whole) == [3, 4]
    partial = tmp_path / "partial"
    shutil.copytree(whole, partial)
    shutil.rmtree(partial / runs.CHECKPOINTS / "4")
    (partial / runs.PARAMS).unlink()
    crashed = partial / runs.CHECKPOINTS / "4.orbax-checkpoint-tmp-1234"
    (crashed / "state").mkdir(parents=True)
    (crashed / "state" / "garbage").write_bytes(b"\0" * 10)
    again = qlearning.run(config, partial, resume=True)  # replay buffer, target network, eps ...
    for a, b in zip(jax.tree.leaves(again["params"]), jax.tree.leaves(out["params"]), strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(again["metrics"]["loss"], out["metrics"]["loss"])


QL_TINY = [
    "NUM_ENVS=2",
    "NUM_STEPS=8",
    "TOTAL_TIMESTEPS=64",
    "BUFFER_SIZE=8",
    "BUFFER_BATCH_SIZE=2",
    "LEARNING_STARTS=0",
    "NUM_EPOCHS=1",
    "LOG_INTERVAL=1",
    "CHECKPOINT_INTERVAL_S=0",
    "PROGRESS_INTERVAL_S=100",
]


def test_parameters_are_saved_before_anything_optional(tmp_path, monkeypatch, capsys):
    """Without matplotlib the finished run is kept (only the plot is missing), and the
    parameters are on disk before wandb is told the run finished."""

    def no_matplotlib(*args, **kwargs):
        raise ImportError('plotting learning curves needs matplotlib: pip install -e ".[baselines]"')

    events = []

    class FakeRun:
        def log(self, entry, step):
            lines = (tmp_path / "metrics.csv").read_text().count("\n")
            events.append(("log", step, lines))

        def finish(self):
            events.append(("finish", (tmp_path / runs.PARAMS).exists()))

    fake_wandb = types.SimpleNamespace(init=lambda **kwargs: FakeRun())
    monkeypatch.setitem(sys.modules, "wandb", fake_wandb)
    monkeypatch.setattr(runs, "plot_learning_curve", no_matplotlib)
    config = common.compose_config("ppo", [*TINY, "wandb.mode=offline", "NUM_SEEDS=1"])
    ppo.run(config, tmp_path)
    assert (tmp_path / runs.PARAMS).exists() and not (tmp_path / "learning_curve.png").exists()
    assert (
        "warning: no learning_curve.png (plotting learning curves needs matplotlib" in capsys.readouterr().err
    )
    logs = [e for e in events if e[0] == "log"]
    assert [e[1] for e in logs] == [16 * (u + 1) for u in range(10)]
    # Logged live: update u was sent to wandb when the CSV held u rows, not all ten.
    assert [e[2] for e in logs] == [1 + u for u in range(1, 11)]
    assert events[-1] == ("finish", True)


@pytest.mark.parametrize(
    ("override", "message"),
    [
        (
            "NUM_MINIBATCHES=7",
            "error: NUM_MINIBATCHES=7 must divide NUM_STEPS * NUM_ENVS * num_agents = 6144",
        ),
        (
            "ENV_NAME=smax",
            "error: Unknown environment 'smax'. Did you mean 'SMAX'? "
            f"See jaxmarl.registered_envs for all {len(jaxmarl.registered_envs)} registered ids.",
        ),
    ],
)
def test_a_failed_command_leaves_no_folder_and_says_why_in_one_line(tmp_path, override, message):
    run_dir = tmp_path / "never"
    result = cli("baselines/ppo.py", override, f"hydra.run.dir={run_dir}")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [message]
    assert not run_dir.exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "error: say which run to evaluate: python baselines/evaluate.py run=<run folder>"),
        (["run=outputs/nope"], "error: outputs/nope is not a run folder (it has no config.yaml)"),
    ],
)
def test_evaluate_errors_are_one_line_and_create_nothing(tmp_path, args, message):
    result = cli(str(REPO / "baselines" / "evaluate.py"), *args, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [message]
    assert list(tmp_path.iterdir()) == []


def test_a_finished_run_loads_as_a_policy_from_anywhere(uninterrupted, tmp_path):
    """No sys.path edits: `jaxmarl.load_policy` imports the installed baselines package."""
    code = f"""
import jax, json, jaxmarl
policy = jaxmarl.load_policy({str(uninterrupted)!r}, seed=1)
obs, state = policy.env.reset(jax.random.PRNGKey(0))
actions, hidden = policy.act(jax.random.PRNGKey(1), obs, state)
states = policy.rollout(jax.random.PRNGKey(2), num_steps=6)
print(json.dumps({{"actions": sorted(actions), "steps": states.step.tolist(), "repr": repr(policy)}}))
"""
    result = cli("-c", code, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["actions"] == ["agent_0"] and report["steps"] == [0, 1, 2, 3, 4, 5]
    assert report["repr"] == "TrainedPolicy(ippo_ff on MPE_simple_v3, seed 1, greedy=True)"


def test_policy_acts_greedily_like_the_training_network(uninterrupted):
    policy = jaxmarl.load_policy(uninterrupted, seed=0)
    config, params = runs.load_run(uninterrupted)
    env, init_hidden, act = ppo.make_policy(config)
    obs, state = env.reset(jax.random.PRNGKey(3))
    mine, _ = policy.act(jax.random.PRNGKey(4), obs, state)
    seed0 = jax.tree.map(lambda x: x[0], params)
    _, theirs = act(seed0, init_hidden(), obs, state, True, jax.random.PRNGKey(4), True)
    assert {a: int(v) for a, v in mine.items()} == {a: int(v) for a, v in theirs.items()}
    with pytest.raises(ValueError, match=r"seed must be in \[0, 2\)"):
        jaxmarl.load_policy(uninterrupted, seed=2)


def test_run_names_and_titles_carry_the_scenario_or_layout():
    from hydra import compose, initialize_config_dir

    common.register_resolvers()
    with initialize_config_dir(config_dir=str(common.CONFIG_DIR / "ppo"), version_base=None):
        overrides = [*common.searchpath_overrides("ppo"), "env=smax_3s5z", "alg=mappo_rnn"]
        cfg = compose("config", overrides=overrides, return_hydra_config=True)
        run_dir = str(cfg.hydra.run.dir)
    assert run_dir.endswith("_mappo_rnn_HeuristicEnemySMAX-3s5z"), run_dir
    config = common.compose_config("ppo", ["env=overcooked_counter_circuit"])
    assert runs.run_title(config) == "ippo_ff on overcooked-counter_circuit"
    assert common.env_label("MPE_simple_spread_v3", {"action_type": "Discrete"}) == "MPE_simple_spread_v3"


def test_progress_prints_each_update_once_with_every_seed(capsys):
    progress = runs.Progress(3, 10, num_seeds=2, interval=0.0, metric_names=("win_rate",))
    progress(0, 1.0, 0.5)
    assert capsys.readouterr().out == ""  # seed 1 has not reported update 0 yet
    progress(0, 3.0, 1.0)
    progress(1, 5.0, 0.0)
    progress(2, 2.0, 1.0)
    progress(1, 7.0, 0.0)  # update 1 completes after update 2 started: printed late, once
    progress(2, 4.0, 1.0)
    lines = capsys.readouterr().out.splitlines()
    assert [line.split("|")[0].strip() for line in lines] == [
        "update     1/3",
        "update     2/3",
        "update     3/3",
    ]
    assert "return     2.000 | win_rate 0.750" in lines[0]
    assert "return     3.000 | win_rate 1.000" in lines[2]


def test_progress_shows_the_latest_return_while_no_episode_ends(capsys):
    """Rollouts shorter than an episode (A2C) leave most updates without a return."""
    progress = runs.Progress(4, 10, num_seeds=1, interval=0.0)
    progress(0, float("nan"))
    progress(1, 2.5)
    progress(2, float("nan"))
    progress(3, -1.0)
    lines = capsys.readouterr().out.splitlines()
    assert [line.split("|")[2].strip() for line in lines] == [
        "return       n/a",
        "return     2.500",
        "return     2.500",
        "return    -1.000",
    ]


def test_smax_win_rate_reaches_the_metrics_file_and_the_evaluation(tmp_path):
    config = common.compose_config(
        "ppo",
        [
            "env=smax_2s3z",
            "NUM_ENVS=4",
            "NUM_STEPS=32",
            "TOTAL_TIMESTEPS=256",
            "UPDATE_EPOCHS=1",
            "NUM_MINIBATCHES=1",
            "PROGRESS_INTERVAL_S=100",
            "+ENV_KWARGS.max_steps=8",
        ],
    )
    out = ppo.run(config, tmp_path)
    header = (tmp_path / "metrics.csv").read_text().splitlines()[0].split(",")
    assert header[header.index("episodes") + 1] == "win_rate"  # next to the returns
    finished = out["metrics"]["episodes"] > 0
    rates = out["metrics"]["win_rate"][finished]
    assert finished.any() and np.all((rates >= 0) & (rates <= 1))
    from baselines import evaluate

    cfg = {"EVAL_EPISODES": 4, "EVAL_SEED": 1, "GREEDY": True, "MAX_STEPS": 50, "GIF_STEPS": 0}
    result = evaluate.evaluate(tmp_path, cfg)
    win = result["metrics"]["win_rate"]
    assert len(win["episodes"]) == 1 and len(win["episodes"][0]) == 4
    assert set(np.unique(win["episodes"])) <= {0.0, 1.0}
    assert win["mean"] == pytest.approx(np.mean(win["episodes"]))
    assert result["env_kwargs"] == {"scenario": "2s3z", "max_steps": 8}


@pytest.mark.parametrize(
    ("family", "overrides", "message"),
    [
        ("ppo", ["alg=foo"], "unknown alg 'foo'; the choices are ippo_ff, ippo_rnn, mappo_ff, mappo_rnn"),
        ("qlearning", ["env=smax_2s3"], "unknown env 'smax_2s3' (did you mean 'smax_2s3z'"),
        (
            "ppo",
            ["NUM_SEED=3"],
            "unknown config key 'NUM_SEED' (did you mean 'NUM_SEEDS'?); to add a new key",
        ),
        ("ppo", ["env=smax_2s3z", "ENV_KWARGS.scenari=3m"], "unknown config key 'ENV_KWARGS.scenari' (did"),
        ("qlearning", ["wandb.mod=x"], "unknown config key 'wandb.mod' (did you mean 'wandb.mode'?)"),
    ],
)
def test_command_line_typos_are_caught_before_hydra_composes(family, overrides, message):
    with pytest.raises(runs.RunError) as err:
        runs.check_overrides(family, overrides)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_good_overrides_and_sweeps_pass_the_check():
    runs.check_overrides("ppo", ["alg=mappo_rnn", "env=smax_2s3z", "ENV_KWARGS.scenario=3m", "LR=1e-3"])
    runs.check_overrides("ppo", ["env=mpe_simple,mpe_simple_tag", "+NEW_KEY=1", "hydra.run.dir=x"])
