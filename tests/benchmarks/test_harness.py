"""The benchmark harness: ratio arithmetic, the table writer, and a dry run.

The measurements themselves never run here; the dry run uses tiny settings and our own
library as its own peer, so it installs nothing."""

from __future__ import annotations

import json
import shlex
import sys

import pytest
from fast_compile import FAST_ENV, fast_compilation

from benchmarks import report, run
from benchmarks.harness import Spread, by_num_envs, interleave, pair_ratios


def test_pair_ratios_are_taken_round_by_round():
    assert pair_ratios([10.0, 30.0], [5.0, 10.0]) == [2.0, 3.0]
    with pytest.raises(ValueError, match="unpaired"):
        pair_ratios([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="not positive"):
        pair_ratios([1.0], [0.0])


def test_spread_is_median_and_extremes():
    assert Spread.of([3.0, 1.0, 2.0, 10.0]) == Spread(2.5, 1.0, 10.0, 4)
    with pytest.raises(ValueError):
        Spread.of([])


def test_interleave_alternates_libraries_round_by_round():
    calls = []

    def runner(name):
        def call():
            calls.append(name)
            return [{"num_envs": 1, "steps_per_s": float(len(calls))}]

        return call

    out = interleave({"ours": runner("ours"), "peer": runner("peer")}, rounds=3, log=lambda _: None)
    assert calls == ["ours", "peer"] * 3
    assert by_num_envs(out["ours"]) == {1: [1.0, 3.0, 5.0]}
    assert by_num_envs(out["peer"]) == {1: [2.0, 4.0, 6.0]}


def results_fixture() -> dict:
    def rounds(rates_per_round, compile_s=1.0):
        return [
            [{"num_envs": n, "steps_per_s": r, "compile_s": compile_s} for n, r in rates.items()]
            for rates in rates_per_round
        ]

    return {
        "machine": {
            "cpu": "Test CPU",
            "cores": 2,
            "device": "cpu",
            "jax": "0.0",
            "python": "3.11",
            "date": "2026-01-01",
        },
        "command": "python -m benchmarks.run --test",
        "settings": {"num_steps": 1000, "rounds": 2, "repeats": 3},
        "peers": {"jm": {"label": "JM", "vectorised": True}, "loop": {"label": "Loop", "vectorised": False}},
        "env": {
            "E": {
                "ours": rounds([{1: 100.0, 1000: 8e5}, {1: 300.0, 1000: 9e5}]),
                "jm": rounds([{1: 50.0, 1000: 2e5}, {1: 100.0, 1000: 4.5e5}], compile_s=2.0),
                "loop": rounds([{1: 10.0}, {1: 20.0}]),
            },
            "F": {"ours": rounds([{1: 1.0, 1000: 2.0}, {1: 1.0, 1000: 2.0}])},
        },
        "train": [],
        "seeds": [],
    }


def test_env_rows_report_the_median_of_paired_ratios_not_a_ratio_of_medians():
    rows = report.env_rows(results_fixture(), "jm")
    # N=1: ratios 100/50=2 and 300/100=3 -> median 2.5; N=1000: 4 and 2 -> median 3.
    assert rows == [
        ["`E`", "1", "200", "75", "**2.50×** (2.00–3.00)", "1.0", "2.0"],
        ["`E`", "1000", "8.50e5", "3.25e5", "**3.00×** (2.00–4.00)", "1.0", "2.0"],
    ]


def test_rows_measured_with_another_scan_length_say_so():
    results = results_fixture()
    for rnd in results["env"]["E"]["ours"]:
        for record in rnd:
            record["num_steps"] = 200 if record["num_envs"] == 1 else 1000
    assert [row[0] for row in report.env_rows(results, "jm")] == ["`E` (T=200)", "`E`"]


def test_an_env_name_with_a_pipe_stays_in_its_table_cell():
    results = results_fixture()
    results["env"]["humanoid_9|8"] = results["env"].pop("E")
    rows = report.env_rows(results, "jm")
    assert rows[0][0] == "<code>humanoid_9&#124;8</code>"
    table = report.markdown_table(["env", "N", "ours", "peer", "ratio", "c", "c"], rows)
    assert all(line.count("|") == 8 for line in table.splitlines())


def test_a_loop_peer_is_compared_with_ours_at_every_n():
    rows = report.env_rows(results_fixture(), "loop")
    # N=1000: 8e5/10 = 8e4 and 9e5/20 = 4.5e4 -> median 6.25e4.
    assert rows[1] == ["`E`", "1000", "8.50e5", "15", "**62500×** (45000–80000)"]


def test_memory_rows_report_kib_per_env_where_both_libraries_recorded_them():
    results = results_fixture()
    for lib, state, temp in (("ours", 2048, 1024.0), ("jm", 4096, 10240.0)):
        for rnd in results["env"]["E"][lib]:
            for record in rnd:
                record.update(state_bytes=state, temp_bytes_per_env=temp)
    assert report.memory_rows(results, "jm") == [
        ["`E`", "1", "2", "4", "1", "10"],
        ["`E`", "1000", "2", "4", "1", "10"],
    ]
    for rnd in results["env"]["E"]["jm"]:
        for record in rnd:
            del record["state_bytes"]
    assert report.memory_rows(results, "jm")[0] == ["`E`", "1", "2", "n/a", "1", "n/a"]
    assert "Memory per environment against JM" in report.results_markdown(results, "img")
    assert report.memory_rows(results_fixture(), "jm") == []  # records without figures


def test_markdown_table_and_number_format():
    table = report.markdown_table(["env", "N"], [["a", "1"], ["b", "10"]])
    assert table == "| env | N |\n| --- | ---: |\n| a | 1 |\n| b | 10 |"
    with pytest.raises(ValueError):
        report.markdown_table(["env", "N"], [["a"]])
    assert [report.fmt(x) for x in (731_234.0, 1274.4, 2.454, float("nan"))] == [
        "7.31e5",
        "1274",
        "2.45",
        "n/a",
    ]


def test_results_markdown_has_a_table_per_peer_and_the_machine_line():
    text = report.results_markdown(results_fixture(), "img")
    assert "Machine: Test CPU, 2 cores; JAX 0.0 on cpu" in text
    assert "### Environment throughput against JM" in text
    assert "### Against Loop" in text
    assert "![Environment throughput](img/env_throughput.png)" in text
    assert "`F`" not in text  # no peer has F: no ratio row


def test_seed_rows_speed_up_is_relative_to_the_fewest_seeds():
    records = [
        {"num_seeds": n, "timesteps": 1000 * n, "compile_s": 1.0, "run_s": 1.0, "steps_per_s": rate}
        for n, rate in ((1, 100.0), (4, 300.0))
    ]
    rows = report.seed_rows(records)
    assert [row[-1] for row in rows] == ["1.00×", "3.00×"]
    assert rows[1][5] == "75"  # per-seed steps/s


def test_docs_page_section_is_replaced_between_markers(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(f"# Title\n\nbefore\n{run.DOCS_START}\nold\n{run.DOCS_END}\nafter\n")
    run.update_docs_page("new table\n", page)
    assert page.read_text() == f"# Title\n\nbefore\n{run.DOCS_START}\nnew table\n{run.DOCS_END}\nafter\n"
    page.write_text("no markers")
    with pytest.raises(ValueError, match="results:start"):
        run.update_docs_page("x", page)


def test_bad_arguments_are_refused(capsys):
    with pytest.raises(SystemExit):
        run.parse_args(["--peers", "nope"])
    assert "unknown peer" in capsys.readouterr().err
    with pytest.raises(SystemExit, match="not in jaxmarl"):
        run.env_suite({**run.MODES["quick"], "envs": ["MPE_simple_sprad_v3"]}, [])


def test_merged_rows_keep_their_scan_length_and_the_commonest_is_the_default():
    old = results_fixture()  # E and F measured with 1000-step scans (no per-record length)
    new = results_fixture() | {"env": {"G": {"ours": [[{"num_envs": 1, "steps_per_s": 5.0}]]}}}
    new["settings"] = {**new["settings"], "num_steps": 200}
    merged = run.merge(old, new, ["env"])
    assert merged["settings"]["num_steps"] == 1000
    assert merged["env"]["G"]["ours"][0][0]["num_steps"] == 200
    assert merged["env"]["E"]["ours"][0][0]["num_steps"] == 1000


def test_bench_ids_name_registered_envs_and_smax_maps():
    import jaxmarl
    from benchmarks import env_throughput

    asked = ["MPE_simple_v3", "nope", "HeuristicEnemySMAX@27m_vs_30m", "HeuristicEnemySMAX@28m", "SMAX"]
    assert env_throughput.available(jaxmarl, asked) == [
        "MPE_simple_v3",
        "HeuristicEnemySMAX@27m_vs_30m",
        "SMAX",
    ]
    assert env_throughput.make_env(jaxmarl, "HeuristicEnemySMAX@27m_vs_30m").num_agents == 27
    assert run.all_bench_ids()[: len(jaxmarl.registered_envs)] == list(jaxmarl.registered_envs)


def test_the_mpe2_peer_has_the_twelve_mpe2_scenarios():
    """Its worker maps our ids to mpe2's modules (mpe2 is installed with the test extras)."""
    import jaxmarl
    from benchmarks.peers import mpe2_throughput

    mpe_ids = [e for e in jaxmarl.registered_envs if e.startswith("MPE_")]
    has = [e for e in mpe_ids if mpe2_throughput.has_env(e)]
    assert len(has) == 12 and "MPE_collect_treasure_v1" in has and "MPE_simple_line_v1" in has
    assert not any("facmac" in e for e in has)
    assert not mpe2_throughput.has_env("coin_game") and not mpe2_throughput.has_env(
        "MPE_simple_v3:max_steps=5"
    )


def test_bench_ids_may_pass_keyword_arguments_to_make():
    import jaxmarl
    from benchmarks import env_throughput

    assert env_throughput.parse_bench_id("HeuristicEnemySMAX@3m:see_enemy_actions=false,x=1.5,y=a") == (
        "HeuristicEnemySMAX",
        "3m",
        {"see_enemy_actions": False, "x": 1.5, "y": "a"},
    )
    assert env_throughput.make_env(jaxmarl, "MPE_simple_v3:max_steps=10").max_steps == 10
    asked = ["MPE_simple_v3:max_steps=10", "MPE_simple_v3:no_such_keyword=1"]
    assert env_throughput.available(jaxmarl, asked) == ["MPE_simple_v3:max_steps=10"]
    with pytest.raises(ValueError, match="KEY=VALUE"):
        env_throughput.parse_bench_id("MPE_simple_v3:max_steps")


def test_dry_run_writes_results_table_and_plot(tmp_path, monkeypatch):
    # The workers (subprocesses) compile without backend optimisations: no speed is checked.
    monkeypatch.setenv("XLA_FLAGS", FAST_ENV["XLA_FLAGS"])
    out = tmp_path / "RESULTS.md"
    argv = ["--suite", "env", "--envs", "coin_game", "--peers", "self", "--num-envs", "1", "3"]
    argv += ["--num-steps", "4", "--rounds", "2", "--repeats", "1"]
    argv += ["--out", str(out), "--plot-dir", str(tmp_path / "img"), "--no-docs"]
    run.main(argv)
    results = json.loads((tmp_path / "results.json").read_text())
    rounds = results["env"]["coin_game"]
    assert [len(rounds["ours"]), len(rounds["self"])] == [2, 2]
    assert sorted(by_num_envs(rounds["ours"])) == [1, 3]
    text = out.read_text()
    assert "| `coin_game` | 3 |" in text
    assert "4-step `lax.scan`" in text
    assert (tmp_path / "img" / "env_throughput.png").stat().st_size > 10_000
    assert results["machine"]["python"] == ".".join(map(str, sys.version_info[:3]))
    assert shlex.split(results["command"])[3:] == argv  # pasteable back into a shell


def test_train_throughput_counts_every_seed_and_separates_compilation():
    from benchmarks import train_throughput

    overrides = [
        "TOTAL_TIMESTEPS=2048",
        "NUM_ENVS=4",
        "NUM_STEPS=128",
        "NUM_MINIBATCHES=2",
        "UPDATE_EPOCHS=1",
    ]
    with fast_compilation():  # what is checked holds whatever the compiler does
        record = train_throughput.measure("ppo", overrides, num_seeds=2)
    assert record["timesteps"] == 2 * 4 * 128 * 4  # seeds x envs x steps x updates
    assert record["steps_per_s"] > record["steps_per_s_incl"] > 0


def test_merge_keeps_what_the_new_run_skipped():
    old = results_fixture() | {"train": [{"family": "ppo"}], "seeds": [{"num_seeds": 1}]}
    new = results_fixture() | {"env": {"G": {"ours": []}}, "train": [{"family": "qlearning"}], "seeds": []}
    new["command"] = "python -m benchmarks.run --suite train --merge"
    merged = run.merge(old, new, ["train"])
    assert list(merged["env"]) == ["E", "F", "G"]
    assert merged["train"] == [{"family": "qlearning"}]
    assert merged["seeds"] == [{"num_seeds": 1}]
    assert merged["settings"]["num_steps"] == 1000
    assert (
        merged["command"]
        == "python -m benchmarks.run --test`, then `python -m benchmarks.run --suite train --merge"
    )


def test_a_worker_past_its_time_limit_keeps_what_it_measured(tmp_path):
    from benchmarks.harness import run_worker

    worker = tmp_path / "slow_worker.py"
    worker.write_text(
        "import json, time\n"
        "print(json.dumps({'num_envs': 1, 'steps_per_s': 5.0, 'compile_s': 0.1}), flush=True)\n"
        "time.sleep(60)\n"
    )
    records = run_worker(sys.executable, worker, [], timeout=3, num_envs=[1, 100, 1000])
    assert records == [
        {"num_envs": 1, "steps_per_s": 5.0, "compile_s": 0.1},
        {"num_envs": 100, "timed_out": True, "limit_s": 3},
        {"num_envs": 1000, "timed_out": True, "limit_s": 3},
    ]


def test_a_timed_out_n_is_not_tried_again_and_has_no_ratio(monkeypatch):
    calls = []

    def fake_worker(python, worker, args, timeout, num_envs):
        calls.append(list(num_envs))
        if python == "ours":
            return [{"num_envs": n, "steps_per_s": 10.0 * n, "compile_s": 1.0} for n in num_envs]
        return [{"num_envs": 1, "steps_per_s": 2.0, "compile_s": 3.0}] + [
            {"num_envs": n, "timed_out": True, "limit_s": timeout} for n in num_envs if n > 1
        ]

    monkeypatch.setattr(run, "run_worker", fake_worker)
    runners = {
        "ours": run.env_runner("ours", None, [], [1, 100], timeout=60),
        "jm": run.env_runner("peer", None, [], [1, 100], timeout=60),
    }
    out = interleave(runners, rounds=2, log=lambda _: None)
    assert calls == [[1, 100], [1, 100], [1, 100], [1]]  # the peer's N=100 is not retried
    assert out["jm"][1][1] == {"num_envs": 100, "timed_out": True, "limit_s": 60.0}
    results = results_fixture()
    results["env"] = {"E": out}
    assert report.env_rows(results, "jm") == [
        ["`E`", "1", "10", "2", "**5.00×** (5.00–5.00)", "1.0", "3.0"],
        ["`E`", "100", "1000", "timed out (60 s)", "n/a", "1.0", "n/a"],
    ]


def test_a_merged_run_of_some_n_keeps_the_others_and_rows_say_their_rounds():
    old = results_fixture()
    for libs in old["env"].values():
        for rounds in libs.values():
            for rnd in rounds:
                for record in rnd:
                    record["run_s"] = [0.1] * 3
    new = results_fixture()

    def rounds(rate, compile_s):
        return [[{"num_envs": 1, "steps_per_s": rate, "compile_s": compile_s, "run_s": [0.1] * 5}]] * 3

    new["env"] = {"E": {"ours": rounds(400.0, 1.0), "jm": rounds(100.0, 2.0)}}
    merged = run.merge(old, new, ["env"])
    rows = report.env_rows(merged, "jm")
    assert [row[:2] for row in rows] == [["`E` (3 rounds of 5 runs)", "1"], ["`E`", "1000"]]
    assert rows[0][4].startswith("**4.00×**")
    assert rows[1][4] == "**3.00×** (2.00–4.00)"  # the earlier N=1000 rounds, still paired
    assert "loop" not in merged["env"]["E"]  # not measured again: its rounds would not pair
    assert "median over 2 interleaved rounds (each the median of 3 timed runs" in report.results_markdown(
        merged, "img"
    )
