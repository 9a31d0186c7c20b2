"""``veracity compare FILE --score A --against B --label y [--by] [--json]`` beside the calibrator ledger."""

import json

import numpy as np
import pandas as pd
import pytest

import veracity as vc


@pytest.fixture
def two_models(tmp_path):
    rng = np.random.default_rng(0)
    n = 600
    z = rng.normal(size=n)
    y = (rng.random(n) < 1 / (1 + np.exp(-z))).astype(int)
    frame = pd.DataFrame({
        "p_old": 1 / (1 + np.exp(-(0.7 * z + rng.normal(size=n)))),
        "p_new": 1 / (1 + np.exp(-(1.2 * z + 0.5 * rng.normal(size=n)))),
        "y": y,
        "outcome": np.where(y == 1, "churn", "stay"),
        "segment": np.where(np.arange(n) % 2 == 0, "a", "b"),
        "w": rng.random(n) + 0.5,
        "text": ["x"] * n,
    })
    path = tmp_path / "scores.csv"
    frame.to_csv(path, index=False)
    return path, frame


def test_json_rows_mirror_the_python_result(cli, two_models):
    path, frame = two_models
    r = cli(["compare", path, "--score", "p_old", "--against", "p_new", "--label", "y", "--json", "--resamples",
             "40", "--seed", "4"])
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    ref = vc.compare_models({"p_old": frame.p_old.to_numpy(), "p_new": frame.p_new.to_numpy()}, frame.y.to_numpy(),
                            n_resamples=40, random_state=4)
    assert [{k: v for k, v in row.items() if k not in ("segment", "metric_label")} for row in doc["comparison"]] == \
        json.loads(json.dumps(ref.to_dict()["comparison"]))
    assert {row["metric"] for row in doc["comparison"]} == {"brier", "log_loss", "ece", "auc"}
    # the label the table prints: compare_models' "ece" is the debiased ECE, not audit's plug-in "ECE"
    assert [row["metric_label"] for row in doc["comparison"]] == ["brier", "log_loss", "ece_debiased", "auc"]
    assert all(row["segment"] is None for row in doc["comparison"])
    assert doc["verdicts"] == list(ref.verdicts) and doc["n"] == 600


def test_text_weights_pos_label_and_slices(cli, two_models):
    path, frame = two_models
    r = cli(["compare", path, "--score", "p_old", "--against", "p_new", "--label", "outcome", "--pos-label",
             "churn", "--weight", "w", "--by", "segment", "--resamples", "0", "--json"])
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert {row["segment"] for row in doc["comparison"]} == {None, "a", "b"} and doc["by"] == "segment"
    ref = vc.compare_models({"p_old": frame.p_old.to_numpy(), "p_new": frame.p_new.to_numpy()},
                            frame.outcome.to_numpy(), pos_label="churn", sample_weight=frame.w.to_numpy(),
                            n_resamples=0)
    whole = [row for row in doc["comparison"] if row["segment"] is None]
    assert whole[0]["diff"] == pytest.approx(ref.rows[0].diff, abs=1e-15)
    text = cli(["compare", path, "--score", "p_old", "--against", "p_new", "--label", "y", "--resamples", "0"])
    assert text.code == 0 and "Verdict" in text.out and "p_new - p_old" in text.out


@pytest.mark.parametrize("argv, match", [
    (["--score", "p_old", "--against", "nope", "--label", "y"], "column 'nope' not found"),
    (["--score", "p_old", "--against", "p_old", "--label", "y"], "same column twice"),
    (["--score", "p_old", "--against", "text", "--label", "y"], "must be numeric"),
    (["--score", "p_old", "--against", "p_new", "--label", "y", "--calibrator", "cal.json"], "not both"),
    (["--score", "p_old", "--against", "p_new", "--label", "y", "--level", "2"], "level"),
    (["--score", "p_old"], "--calibrator CAL.json, or --score A --against B"),
])
def test_bad_command_lines_exit_2_with_one_line(cli, refused, two_models, argv, match):
    path, _ = two_models
    refused(cli(["compare", path, *argv]), match)


def test_the_calibrator_ledger_still_works(cli, tmp_path):
    cal = tmp_path / "cal.json"
    fit = cli(["fit", "--method", "temperature", "--role-col", "role", "--fit-role", "calib", "--out", cal])
    assert fit.code == 0, fit.err
    r = cli(["compare", "--calibrator", cal, "--role-col", "role", "--eval-role", "test", "--json"])
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert "comparison" not in doc and doc["calibrator"] == "TemperatureScaling" and "regressions" in doc
