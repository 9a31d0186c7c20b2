"""``veracity compare --against`` measures the rows ``--calibrator`` measures (H73).

A file with a ``role`` column (as the demo data and the ``veracity fit`` workflow write it) is measured on
its ``--eval-role`` rows (default: test) in both modes, never on the calib rows a calibrator was fit on;
``--role-col ''`` measures every row. The JSON says which rows (``role_col``, ``eval_role``, ``eval_rows``).
"""

import json

import numpy as np
import pandas as pd
import pytest

import veracity as vc


def _frame(n: int = 600, roles=("calib", "test"), seed: int = 0) -> pd.DataFrame:
    """Model B memorises the calib rows (0.97 / 0.03 on their labels) and is model A elsewhere: measured on
    every row it looks far better than A; on the test rows the two are identical."""
    rng = np.random.default_rng(seed)
    z = rng.normal(size=n)
    y = (rng.random(n) < 1 / (1 + np.exp(-z))).astype(int)
    role = np.asarray(roles)[np.arange(n) % len(roles)]
    pa = 1 / (1 + np.exp(-(z + 0.8 * rng.normal(size=n))))
    pb = np.where(role == roles[0], np.where(y == 1, 0.97, 0.03), 1 / (1 + np.exp(-(1.3 * z))))
    return pd.DataFrame({"pa": pa, "pb": pb, "y": y, "role": role,
                         "seg": np.where(rng.random(n) < 0.5, "a", "b")})


@pytest.fixture
def scores(tmp_path):
    frame = _frame()
    path = tmp_path / "scores.csv"
    frame.to_csv(path, index=False)
    return path, frame


def _run(cli, path, *extra):
    r = cli(["compare", path, "--score", "pa", "--against", "pb", "--label", "y", "--n-resamples", "0",
             "--json", *extra])
    assert r.code == 0, r.err
    return json.loads(r.out)


def _brier_diff(frame: pd.DataFrame) -> float:
    ref = vc.compare_models({"pa": frame.pa.to_numpy(), "pb": frame.pb.to_numpy()}, frame.y.to_numpy(),
                            n_resamples=0)
    return ref.row("brier").diff


def test_against_measures_the_test_rows_of_a_role_column(cli, scores):
    path, frame = scores
    test = frame[frame.role == "test"]
    doc = _run(cli, path)
    measured = (doc["role_col"], doc["eval_role"], doc["eval_rows"], doc["n"])
    assert measured == ("role", "test", len(test), len(test))
    brier = next(r for r in doc["comparison"] if r["metric"] == "brier")
    assert brier["diff"] == pytest.approx(_brier_diff(test), abs=1e-12)
    # the calib rows B memorised would have flattered it: on every row B wins by far
    assert _brier_diff(frame) < brier["diff"] - 0.05
    text = cli(["compare", path, "--score", "pa", "--against", "pb", "--label", "y", "--n-resamples", "0"])
    assert text.code == 0 and "(role 'test')" in text.err and f"on {len(test):,} rows" in text.out


def test_role_col_empty_measures_every_row(cli, scores):
    path, frame = scores
    doc = _run(cli, path, "--role-col", "")
    measured = (doc["role_col"], doc["eval_role"], doc["eval_rows"], doc["n"])
    assert measured == (None, "all", len(frame), len(frame))
    brier = next(r for r in doc["comparison"] if r["metric"] == "brier")
    assert brier["diff"] == pytest.approx(_brier_diff(frame), abs=1e-12)


def test_eval_role_without_role_col_reads_the_role_column(cli, scores):
    path, frame = scores
    calib = frame[frame.role == "calib"]
    doc = _run(cli, path, "--eval-role", "calib")
    assert (doc["role_col"], doc["eval_role"], doc["n"]) == ("role", "calib", len(calib))
    brier = next(r for r in doc["comparison"] if r["metric"] == "brier")
    assert brier["diff"] == pytest.approx(_brier_diff(calib), abs=1e-12)


def test_by_slices_the_measured_rows_only(cli, scores):
    path, frame = scores
    test = frame[frame.role == "test"]
    doc = _run(cli, path, "--by", "seg")
    ref = vc.compare_models(test, scores=["pa", "pb"], label="y", by="seg", n_resamples=0)
    assert {k: g["n"] for k, g in doc["groups"].items()} == {k: g.n for k, g in ref.groups.items()}
    assert sum(g["n"] for g in doc["groups"].values()) == len(test) == doc["eval_rows"]
    for key, group in doc["groups"].items():
        brier = next(r for r in group["comparison"] if r["metric"] == "brier")
        assert brier["diff"] == pytest.approx(ref.groups[key].row("brier").diff, abs=1e-12)


def test_calibrator_mode_records_the_rows_measured(cli, tmp_path):
    frame = _frame(800, roles=("calib", "test"), seed=3)
    path = tmp_path / "scores.csv"
    frame.to_csv(path, index=False)
    cal = tmp_path / "cal.json"
    fit = cli(["fit", path, "--method", "platt", "--score", "pa", "--label", "y", "--out", cal])
    assert fit.code == 0, fit.err
    base = ["compare", "--calibrator", cal, path, "--score", "pa", "--label", "y", "--n-resamples", "0",
            "--json"]
    r = cli(base)
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert (doc["role_col"], doc["eval_role"], doc["eval_rows"], doc["n"]) == ("role", "test", 400, 400)
    r = cli([*base, "--role-col", ""])
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert (doc["role_col"], doc["eval_role"], doc["eval_rows"], doc["n"]) == (None, "all", 800, 800)


@pytest.mark.parametrize("mode", ["against", "calibrator"])
def test_no_test_rows_is_one_line_naming_the_roles(cli, refused, tmp_path, mode):
    frame = _frame(300, roles=("calib", "train"))
    path = tmp_path / "scores.csv"
    frame.to_csv(path, index=False)
    if mode == "against":
        argv = ["--score", "pa", "--against", "pb", "--label", "y"]
    else:
        cal = tmp_path / "cal.json"
        fit = cli(["fit", path, "--method", "platt", "--score", "pa", "--label", "y", "--out", cal])
        assert fit.code == 0, fit.err
        argv = ["--calibrator", cal, "--score", "pa", "--label", "y"]
    refused(cli(["compare", path, *argv]), r"no rows with role == 'test'.*roles present: 'calib', 'train'.*"
                                           r"--eval-role.*--role-col ''")


@pytest.mark.parametrize("extra, match", [
    (["--role-col", "", "--eval-role", "test"], r"--eval-role .*--role-col '' measures every row"),
    (["--label", "role"], r"--label names the role column 'role'"),
    (["--bins", "10001"], r"--bins must be at most 10,000, got 10,001.*fewer bins \(default: 15\)$"),
])
def test_refused_in_the_command_line_words(cli, refused, scores, extra, match):
    path, _ = scores
    r = cli(["compare", path, "--score", "pa", "--against", "pb", "--label", "y", *extra])
    refused(r, match)
    assert "auto" not in r.err  # compare's --bins takes no 'auto'


def test_eval_role_without_any_role_column_is_refused(cli, refused, scores, tmp_path):
    _, frame = scores
    path = tmp_path / "plain.csv"
    frame.drop(columns="role").to_csv(path, index=False)
    r = cli(["compare", path, "--score", "pa", "--against", "pb", "--label", "y", "--eval-role", "test"])
    refused(r, r"--eval-role needs --role-col .*has no 'role' column")
    doc = _run(cli, path)  # no role column: every row, and the JSON says so
    assert (doc["role_col"], doc["eval_role"], doc["eval_rows"]) == (None, "all", len(frame))
