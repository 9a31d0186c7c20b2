"""``veracity compare`` reads and checks only the rows it measures (H85).

With a ``role`` column both modes measure the ``--eval-role`` rows (default: test). A realistic file has
the new model B scored on the test rows only (empty on the calib and train rows), or labels still missing
on rows nobody measures: those rows are not read, so their empty cells are no error. A missing value in a
measured row is still refused, naming that row's number in FILE (data rows counted from 1, the header not
counted), never its position among the measured rows. A score column of text is refused whatever rows
are measured: it is not a score column.
"""

import json

import numpy as np
import pandas as pd
import pytest

import veracity as vc


def _frame(n: int = 600, seed: int = 0) -> pd.DataFrame:
    """Roles train/calib/test interleaved (so a test row's number in FILE is never its position among
    the test rows); model B is scored on the test rows only, and the train rows' labels are missing."""
    rng = np.random.default_rng(seed)
    z = rng.normal(size=n)
    y = (rng.random(n) < 1 / (1 + np.exp(-z))).astype(float)
    role = np.asarray(["train", "calib", "test"])[rng.integers(0, 3, size=n)]
    pa = 1 / (1 + np.exp(-(z + 0.8 * rng.normal(size=n))))
    pb = np.where(role == "test", 1 / (1 + np.exp(-1.3 * z)), np.nan)
    w = np.where(role == "train", np.nan, rng.uniform(0.5, 2.0, size=n))
    y = np.where(role == "train", np.nan, y)
    return pd.DataFrame({"role": role, "pa": pa, "pb": pb, "y": y, "w": w})


def _write(frame: pd.DataFrame, path) -> None:
    if str(path).endswith(".parquet"):
        frame.to_parquet(path, index=False)
    else:
        frame.to_csv(path, index=False)  # NaN written as an empty cell


def _models(cli, path, *extra):
    return cli(["compare", path, "--score", "pa", "--against", "pb", "--label", "y", "--n-resamples", "0",
                "--json", *extra])


def _test_rows(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[frame.role == "test"]


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
@pytest.mark.parametrize("weighted", [False, True])
def test_b_scored_on_the_test_rows_only_is_compared_there(cli, tmp_path, suffix, weighted):
    frame = _frame()
    path = tmp_path / f"scores.{suffix}"
    _write(frame, path)
    extra = ["--sample-weight", "w"] if weighted else []
    r = _models(cli, path, *extra)
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    test = _test_rows(frame)
    assert (doc["role_col"], doc["eval_role"], doc["eval_rows"], doc["n"]) == ("role", "test", len(test), len(test))
    ref = vc.compare_models({"pa": test.pa.to_numpy(), "pb": test.pb.to_numpy()}, test.y.to_numpy().astype(int),
                            sample_weight=test.w.to_numpy() if weighted else None, n_resamples=0)
    for metric in ("brier", "log_loss", "auc"):
        row = next(x for x in doc["comparison"] if x["metric"] == metric)
        assert (row["value_a"], row["value_b"], row["diff"]) == pytest.approx(
            (ref.row(metric).value_a, ref.row(metric).value_b, ref.row(metric).diff), abs=1e-12)


def _nan_in_test_row(frame: pd.DataFrame, column: str, k: int = 7) -> tuple[pd.DataFrame, int]:
    """``frame`` with ``column`` empty on its k-th test row (k >= 1 test rows come before it), and that
    row's data row number in FILE (1-based, header not counted)."""
    frame = frame.copy()
    pos = int(np.flatnonzero(frame.role.to_numpy() == "test")[k])
    frame.loc[pos, column] = np.nan
    assert pos + 1 != k + 1  # the file's number is not the position among the test rows
    return frame, pos + 1


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
@pytest.mark.parametrize("column, named", [("pb", r"column 'pb' \(scores\) has 1 missing/NaN"),
                                           ("pa", r"column 'pa' \(scores\) has 1 missing/NaN"),
                                           ("y", None)])
def test_a_missing_value_in_a_measured_row_names_its_row_in_file(cli, refused, tmp_path, suffix, column, named):
    frame, row = _nan_in_test_row(_frame(), column)
    path = tmp_path / f"scores.{suffix}"
    _write(frame, path)
    n_test = int((frame.role == "test").sum())
    if named is None:  # the labels' own line (round 27), of the rows measured (round 28)
        refused(_models(cli, path), rf"column 'y' \(labels\) has 1 missing value \(None/NaN\) of the "
                                    rf"{n_test} measured rows \(role == 'test'\), first at data row {row};")
        return
    refused(_models(cli, path), rf"{named} .*of the {n_test} measured rows \(role == 'test'\), "
                                rf"first at data row {row};")


def _calibrator(cli, tmp_path, frame: pd.DataFrame):
    """A Platt calibrator fit on the calib rows of ``frame``'s model A (its own file, every cell filled)."""
    fit_path = tmp_path / "fit.csv"
    frame[frame.role == "calib"][["role", "pa", "y"]].to_csv(fit_path, index=False)
    cal = tmp_path / "cal.json"
    r = cli(["fit", fit_path, "--method", "platt", "--score", "pa", "--label", "y", "--out", cal])
    assert r.code == 0, r.err
    return cal


def test_calibrator_mode_reads_the_test_rows_only(cli, tmp_path):
    frame = _frame(seed=1)
    cal = _calibrator(cli, tmp_path, frame)
    path = tmp_path / "scores.csv"
    _write(frame, path)
    r = cli(["compare", "--calibrator", cal, path, "--score", "pb", "--label", "y", "--n-resamples", "0",
             "--json"])
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    test = _test_rows(frame)
    assert (doc["role_col"], doc["eval_role"], doc["eval_rows"], doc["n"]) == ("role", "test", len(test), len(test))
    ref = vc.compare(test.pb.to_numpy(), test.y.to_numpy().astype(int), vc.load(cal), n_resamples=0)
    assert doc["before"] == pytest.approx(ref.to_dict()["before"], abs=1e-12)
    assert doc["after"] == pytest.approx(ref.to_dict()["after"], abs=1e-12)


@pytest.mark.parametrize("column, named", [
    ("pb", r"column 'pb' \(scores\) has 1 missing/NaN .*measured rows \(role == 'test'\)"),
    # the labels' own line (round 27), of the rows measured (round 28)
    ("y", r"column 'y' \(labels\) has 1 missing value \(None/NaN\) of the \d+ measured rows "
          r"\(role == 'test'\)"),
])
def test_calibrator_mode_names_the_measured_row_in_file(cli, refused, tmp_path, column, named):
    frame = _frame(seed=2)
    cal = _calibrator(cli, tmp_path, frame)
    frame, row = _nan_in_test_row(frame, column, k=11)
    path = tmp_path / "scores.csv"
    _write(frame, path)
    r = cli(["compare", "--calibrator", cal, path, "--score", "pb", "--label", "y"])
    refused(r, rf"{named}, first at data row {row};")


@pytest.mark.parametrize("mode", ["against", "calibrator"])
def test_every_row_measured_names_the_first_missing_row(cli, refused, tmp_path, mode):
    """--role-col '' measures every row: B's empty calib and train rows are then measured, and refused."""
    frame = _frame(seed=3)
    cal = _calibrator(cli, tmp_path, frame)
    path = tmp_path / "scores.csv"
    _write(frame, path)
    first = int(np.flatnonzero(frame.pb.isna().to_numpy())[0]) + 1
    argv = (["--score", "pa", "--against", "pb"] if mode == "against" else ["--calibrator", cal, "--score", "pb"])
    r = cli(["compare", path, *argv, "--label", "y", "--role-col", ""])
    refused(r, rf"column 'pb' \(scores\) has {int(frame.pb.isna().sum())} missing/NaN.* of {len(frame)} rows, "
               rf"first at data row {first};")


@pytest.mark.parametrize("mode", ["against", "calibrator"])
def test_text_in_an_unmeasured_row_still_refuses_the_score_column(cli, refused, tmp_path, mode):
    frame = _frame(seed=4)
    cal = _calibrator(cli, tmp_path, frame)
    frame["pb"] = frame.pb.astype(object)
    calib = int(np.flatnonzero(frame.role.to_numpy() == "calib")[3])
    frame.loc[calib, "pb"] = "pending"
    path = tmp_path / "scores.csv"
    _write(frame, path)
    argv = (["--score", "pa", "--against", "pb"] if mode == "against" else ["--calibrator", cal, "--score", "pb"])
    refused(cli(["compare", path, *argv, "--label", "y"]), r"column 'pb'.* must be numeric.*'pending'")
