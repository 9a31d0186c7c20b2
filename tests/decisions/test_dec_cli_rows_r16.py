"""`veracity threshold` and `veracity conformal` name the first offending row of FILE when a check of the
labels, weights, test weights or multiclass probability rows fails (before: "1 of 598 are not" and
nothing more, or a multiclass row named by its 0-based position among one role's rows, "row 6"), and
count every used row (fit and measured roles) at once.

Data rows are counted from 1, the header not counted, as every message of the source layer counts them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest


def _frame(n: int = 600, seed: int = 5) -> pd.DataFrame:
    """Roles train/calib/test interleaved: a used row's number in FILE is never its position among the
    used rows, nor among its role's rows."""
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.02, 0.98, n)
    return pd.DataFrame({"role": np.asarray(["train", "calib", "test"])[rng.integers(0, 3, n)], "p": p,
                         "y": (rng.random(n) < p).astype(float), "w": rng.uniform(0.5, 2.0, n)})


def _row_of(frame: pd.DataFrame, role: str, k: int) -> int:
    """The k-th row (0-based) of ``role``: its position in the frame."""
    return int(np.flatnonzero(frame.role.to_numpy() == role)[k])


def _used(frame: pd.DataFrame) -> int:
    return int(frame.role.isin(["calib", "test"]).sum())


@pytest.mark.parametrize("command", [["threshold", "--target-recall", "0.8"], ["conformal"]])
@pytest.mark.parametrize("role", ["calib", "test"])
@pytest.mark.parametrize("column,value,words", [
    ("y", 2.0, "labels must be binary 0/1"),
    ("y", 0.5, "labels must be binary 0/1"),
    ("w", -1.0, "--sample-weight must be non-negative"),
])
def test_a_bad_label_or_weight_names_its_row_in_file(cli, tmp_path, command, role, column, value, words):
    frame = _frame()
    pos = _row_of(frame, role, 7)
    frame.loc[pos, column] = value
    path = tmp_path / "d.csv"
    frame.to_csv(path, index=False)
    r = cli([command[0], str(path), "--score", "p", "--label", "y", "--sample-weight", "w", *command[1:]])
    assert r.code == 2, r.err
    assert words in r.err and f"1 of {_used(frame)} are" in r.err, r.err  # every used row counted
    assert f"first at data row {pos + 1}" in r.err, r.err  # the row in FILE (header not counted)
    assert len(r.err.strip().splitlines()) == 1 and "Traceback" not in r.err


def test_a_bad_label_without_a_role_column_names_its_row(cli, tmp_path):
    frame = _frame().drop(columns="role")
    frame.loc[41, "y"] = 3.0
    path = tmp_path / "d.csv"
    frame.to_csv(path, index=False)
    r = cli(["threshold", str(path), "--score", "p", "--label", "y", "--cost-fn", "4"])
    assert r.code == 2, r.err
    assert "1 of 600 are not (values such as 3), first at data row 42." in r.err, r.err


def test_a_negative_test_weight_names_its_row(cli, tmp_path):
    frame = _frame()
    frame["t"] = frame["w"]
    pos = _row_of(frame, "test", 11)
    frame.loc[pos, "t"] = -0.5
    path = tmp_path / "d.csv"
    frame.to_csv(path, index=False)
    r = cli(["conformal", str(path), "--score", "p", "--label", "y", "--sample-weight", "w", "--test-weight", "t"])
    assert r.code == 2, r.err
    assert "--test-weight must be non-negative; 1 of" in r.err and f"first at data row {pos + 1}" in r.err, r.err


def _multiclass(n: int = 300, seed: int = 2) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    P = rng.dirichlet([1.0, 1.0, 1.0], n)
    role = np.asarray(["train", "calib", "test"])[np.arange(n) % 3]
    return pd.DataFrame({"role": role, "p0": P[:, 0], "p1": P[:, 1], "p2": P[:, 2], "y": rng.integers(0, 3, n)})


def test_a_multiclass_row_not_summing_to_1_is_named_by_its_row_in_file(cli, tmp_path):
    """Before: "(row 6 sums to 1.1)", the 0-based position among the test rows, for data row 21."""
    frame = _multiclass()
    frame.loc[20, "p0"] += 0.1  # a test row (20 % 3 == 2)
    path = tmp_path / "d.csv"
    frame.to_csv(path, index=False)
    r = cli(["conformal", str(path), "--score", "p0,p1,p2", "--label", "y"])
    assert r.code == 2, r.err
    assert "1 of 200 do not (data row 21 sums to 1.1)" in r.err, r.err


@pytest.mark.parametrize("value,words", [(3, "must lie in 0..2"), (1.5, "found 1.5, first at data row 23.")])
def test_a_multiclass_label_out_of_range_names_its_row(cli, tmp_path, value, words):
    frame = _multiclass()
    frame["y"] = frame["y"].astype(float)
    frame.loc[22, "y"] = value  # a calib row (22 % 3 == 1)
    path = tmp_path / "d.csv"
    frame.to_csv(path, index=False)
    r = cli(["conformal", str(path), "--score", "p0,p1,p2", "--label", "y"])
    assert r.code == 2, r.err
    assert words in r.err and "first at data row 23" in r.err, r.err


def test_good_files_still_run(cli, tmp_path):
    """The checks refuse nothing the commands took: a clean file gives the same numbers as before."""
    frame = _frame()
    path = tmp_path / "d.csv"
    frame.to_csv(path, index=False)
    for argv in (["threshold", "--target-recall", "0.8"], ["conformal", "--test-weight", "w"],
                 ["conformal"]):
        r = cli([argv[0], str(path), "--score", "p", "--label", "y", "--sample-weight", "w", *argv[1:]])
        assert r.code == 0, r.err


@pytest.mark.parametrize("argv,words", [
    (["threshold", "--target-recall", "0.9"], "needs positive rows (label 1); the labels have none"),
    (["threshold", "--target-precision", "0.9"], "needs positive rows (label 1); the labels have none"),
    (["conformal", "--mondrian"], "class 1 has 0 calib rows, each class needs at least 9"),
])
def test_a_fit_error_says_it_is_about_the_fit_rows(cli, tmp_path, argv, words):
    """The calib rows have no positive, the file has many: "the labels have none" read as if about FILE."""
    frame = _frame()
    frame.loc[frame.role == "calib", "y"] = 0.0
    assert frame.y.sum() > 50
    path = tmp_path / "d.csv"
    frame.to_csv(path, index=False)
    r = cli([argv[0], str(path), "--score", "p", "--label", "y", *argv[1:]])
    assert r.code == 2, r.err
    n = int((frame.role == "calib").sum())
    assert f"{words} (fit on the {n} rows with role == 'calib')" in r.err, r.err


@pytest.mark.parametrize("command", [["threshold", "--budget", "5%"], ["conformal"], ["conformal", "--test-weight", "w"]])
def test_zero_weights_on_the_fit_rows_say_so(cli, tmp_path, command):
    frame = _frame()
    frame.loc[frame.role == "calib", "w"] = 0.0
    path = tmp_path / "d.csv"
    frame.to_csv(path, index=False)
    r = cli([command[0], str(path), "--score", "p", "--label", "y", "--sample-weight", "w", *command[1:]])
    assert r.code == 2, r.err
    n = int((frame.role == "calib").sum())
    assert f"--sample-weight sums to 0; at least one row needs a positive weight (fit on the {n} rows with " \
           "role == 'calib')" in r.err, r.err


@pytest.mark.parametrize("argv,ending", [
    (["threshold", "--budget", "0.5"], "write it with %, e.g. --budget 50%"),
    (["threshold", "--budget", "-5"], "a positive number of rows, such as 200 (or a share such as 5%); got '-5'"),
    (["threshold", "--budget", "inf"], "a positive number of rows, such as 200 (or a share such as 5%); got 'inf'"),
    (["conformal", "--alpha", "1.5"], "got 1.5"),
    (["conformal", "--method", "raps", "--lam", "-1"], "--lam must be a number >= 0, got -1.0"),
])
def test_a_flag_error_is_not_said_to_be_about_the_fit_rows(cli, tmp_path, argv, ending):
    frame = _frame()
    path = tmp_path / "d.csv"
    frame.to_csv(path, index=False)
    r = cli([argv[0], str(path), "--score", "p", "--label", "y", *argv[1:]])
    assert r.code == 2, r.err
    assert r.err.rstrip().endswith(ending), r.err


@pytest.mark.parametrize("command", [["threshold", "--cost-fn", "3"], ["conformal"]])
@pytest.mark.parametrize("written,meant", [("Calib", "calib"), (" calib", "calib")])
def test_a_role_written_with_another_case_or_spaces_is_named(cli, tmp_path, command, written, meant):
    """The file holds 'Calib' (or ' calib') where the default --fit-role is 'calib'."""
    frame = _frame()
    frame["role"] = frame["role"].replace({meant: written})
    path = tmp_path / "d.csv"
    frame.to_csv(path, index=False)
    r = cli([command[0], str(path), "--score", "p", "--label", "y", *command[1:]])
    assert r.code == 2, r.err
    assert f"did you mean {written!r}? roles are matched exactly as text" in r.err, r.err
    r = cli([command[0], str(path), "--score", "p", "--label", "y", "--fit-role", written, *command[1:]])
    assert r.code == 0, r.err


def test_a_role_number_written_otherwise_is_named(cli, tmp_path):
    """Folds 0/1/2 written as 0.0/1.0/2.0 (a column of numbers as pandas writes it beside a missing value)."""
    frame = _frame()
    frame["fold"] = frame["role"].map({"train": 0.0, "calib": 1.0, "test": 2.0})
    path = tmp_path / "d.csv"
    frame.to_csv(path, index=False)
    r = cli(["threshold", str(path), "--score", "p", "--label", "y", "--role-col", "fold", "--fit-role", "1",
             "--eval-role", "2"])
    assert r.code == 2, r.err
    assert "(values: '0.0', '1.0', '2.0'); did you mean '1.0'?" in r.err, r.err
    r = cli(["threshold", str(path), "--score", "p", "--label", "y", "--role-col", "fold", "--fit-role", "1.0",
             "--eval-role", "2.0"])
    assert r.code == 0, r.err
