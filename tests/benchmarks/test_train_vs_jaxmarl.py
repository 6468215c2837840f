"""The training benchmark against the original JaxMARL scripts: its table and its rows.

The originals never run here (they need a clone of FLAIROx/JaxMARL and their own virtual
environment); these tests check the arithmetic, the table, and that every row names
configs our baselines compose."""

from __future__ import annotations

import pytest

from baselines import common
from benchmarks import run, train_vs_jaxmarl
from benchmarks.train_vs_jaxmarl import ROWS, ratio_rows, section


def record(row: str, seeds: int, ours_s: float, orig_s: float, r: int = 0) -> dict:
    side = {"compile_s": 10.0, "steps_per_s": 1e6 / ours_s, "final_return": -20.0}
    return {
        "row": row,
        "num_seeds": seeds,
        "timesteps": 1e6,
        "round": r,
        "ours": {**side, "run_s": ours_s},
        "original": {**side, "run_s": orig_s, "final_return": -25.0},
    }


def test_speed_up_is_the_originals_run_time_over_ours_per_round():
    rows = ratio_rows(
        [
            record("ippo_ff_mpe", 1, 20.0, 40.0, 0),
            record("ippo_ff_mpe", 1, 25.0, 25.0, 1),
            record("vdn_rnn_mpe", 4, 10, 15),
        ]
    )
    assert [r[:2] for r in rows] == [["IPPO-FF, MPE simple_spread", "1"], ["VDN-RNN, MPE simple_spread", "4"]]
    assert rows[0][4] == "22.5 / 32.5"  # median run seconds, ours / original
    assert rows[0][6] == "**1.50×** (1.00–2.00)"  # median of the per-round ratios 2.0 and 1.0
    assert rows[0][7] == "-20.0 / -25.0"
    assert rows[1][6] == "**1.50×**"


def test_a_pair_past_its_time_limit_shows_what_finished_and_no_ratio():
    rec = record("ippo_ff_mpe", 16, 40.0, 1.0)
    rec["original"] = {"timed_out": True, "limit_s": 400.0}
    (row,) = ratio_rows([rec])
    assert row[4] == "40.0 / timed out (400 s)" and row[6] == "n/a" and row[5] == "2.50e4"


def test_section_has_the_table_and_the_notes():
    results = {
        "command": "python -m benchmarks.train_vs_jaxmarl --checkout x",
        "date": "2026-11-27",
        "machine_line": "a machine",
        "records": [record("ippo_ff_mpe", 1, 20.0, 30.0)],
        "notes": ["A note."],
    }
    text = section(results)
    assert text.startswith("### Training throughput against the original JaxMARL scripts")
    assert "| IPPO-FF, MPE simple_spread | 1 |" in text and text.rstrip().endswith("A note.")


@pytest.mark.parametrize("name", list(ROWS))
def test_every_row_composes_our_config_with_the_originals_hyperparameters(name):
    row = ROWS[name]
    config = common.compose_config(row["family"], [*row["ours"], "TOTAL_TIMESTEPS=1e6"])
    if name == "ippo_ff_mpe":  # the original ippo_ff_mpe.yaml
        expected = {"LR": 2.5e-4, "NUM_ENVS": 16, "NUM_STEPS": 128, "UPDATE_EPOCHS": 4, "NUM_MINIBATCHES": 4}
        expected |= {"GAE_LAMBDA": 0.95, "CLIP_EPS": 0.2, "VF_COEF": 0.5, "ENT_COEF": 0.01, "FF_WIDTH": 64}
        assert {k: config[k] for k in expected} == expected
    if name == "ippo_rnn_smax":  # the original ippo_rnn_smax.yaml
        expected = {"LR": 4e-3, "NUM_ENVS": 128, "CLIP_EPS": 0.05, "ENT_COEF": 0.01, "MAX_GRAD_NORM": 0.25}
        expected |= {"SHARED_TORSO": True, "RNN_WIDTH": 128, "ACTIVATION": "relu"}  # its ActorCriticRNN
        assert {k: config[k] for k in expected} == expected
    assert config["ENV_NAME"] in ("MPE_simple_spread_v3", "HeuristicEnemySMAX")


def test_the_training_peer_is_not_an_environment_peer(capsys):
    with pytest.raises(SystemExit):
        run.parse_args(["--peers", "jaxmarl_scripts"])
    assert "unknown peer" in capsys.readouterr().err
    assert train_vs_jaxmarl.PEERS["jaxmarl_scripts"].suite == "train"
