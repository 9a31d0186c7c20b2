"""fit, threshold, conformal and report read and check only the rows of the roles they use (H86).

With a ``role`` column fit uses the ``--fit-role`` rows (default: calib); threshold, conformal and report
the ``--fit-role`` and ``--eval-role`` rows (calib and test). Rows of any other role (train) are not read,
so their empty scores or labels are no error, and the result is the one of the file without them. Fit's
memory engine agrees with DuckDB (which filters the rows where they live). A missing value in a used row is
still refused, naming that row's number in FILE (data rows counted from 1, the header not counted), never
its position among the used rows. A score column of text is refused whatever rows are used.
"""

import json

import numpy as np
import pandas as pd
import pytest

import veracity as vc


def _frame(n: int = 900, seed: int = 3) -> pd.DataFrame:
    """Roles train/calib/test interleaved (a used row's number in FILE is never its position among the
    used rows); the train rows' scores, labels and weights are empty."""
    rng = np.random.default_rng(seed)
    z = rng.normal(size=n)
    y = (rng.random(n) < 1 / (1 + np.exp(-z))).astype(float)
    role = np.asarray(["train", "calib", "test"])[rng.integers(0, 3, size=n)]
    p = 1 / (1 + np.exp(-1.7 * z))
    train = role == "train"
    return pd.DataFrame({"role": role, "p": np.where(train, np.nan, p), "y": np.where(train, np.nan, y),
                         "w": np.where(train, np.nan, rng.uniform(0.5, 2.0, size=n))})


def _files(tmp_path, frame: pd.DataFrame | None = None) -> tuple[str, str]:
    """(the file with its train rows, the same file with them deleted)."""
    frame = _frame() if frame is None else frame
    full, kept = tmp_path / "full.csv", tmp_path / "kept.csv"
    frame.to_csv(full, index=False)  # NaN written as an empty cell
    frame[frame.role != "train"].to_csv(kept, index=False)
    return str(full), str(kept)


def _drop(doc: dict, *keys: str) -> dict:
    return {k: v for k, v in doc.items() if k not in keys}


def _fit(cli, path, out, *extra):
    r = cli(["fit", path, "--score", "p", "--label", "y", "--method", "platt", "--out", str(out), *extra])
    assert r.code == 0, r.err
    return vc.load(str(out))


@pytest.mark.parametrize("weighted", [False, True])
def test_fit_ignores_empty_train_rows_and_engines_agree(cli, tmp_path, weighted):
    full, kept = _files(tmp_path)
    extra = ["--sample-weight", "w"] if weighted else []
    grid = np.linspace(0.01, 0.99, 41)
    mem = _fit(cli, full, tmp_path / "mem.json", "--engine", "memory", *extra)
    duck = _fit(cli, full, tmp_path / "duck.json", "--engine", "duckdb", *extra)
    ref = _fit(cli, kept, tmp_path / "ref.json", "--engine", "memory", *extra)
    n_calib = int((_frame().role == "calib").sum())
    assert mem.metadata["n_rows"] == ref.metadata["n_rows"] == n_calib
    assert mem.metadata["data_hash"] == ref.metadata["data_hash"]
    np.testing.assert_allclose(mem.transform(grid), ref.transform(grid), rtol=0, atol=1e-12)
    np.testing.assert_allclose(mem.transform(grid), duck.transform(grid), rtol=0, atol=1e-6)


@pytest.mark.parametrize("command", [
    ["threshold", "--target-recall", "0.8"],
    ["threshold", "--cost-fp", "1", "--cost-fn", "3"],
    ["conformal", "--alpha", "0.2"],
])
@pytest.mark.parametrize("weighted", [False, True])
def test_threshold_conformal_ignore_empty_train_rows(cli, tmp_path, command, weighted):
    full, kept = _files(tmp_path)
    extra = ["--sample-weight", "w"] if weighted else []
    docs = []
    for path in (full, kept):
        r = cli([command[0], path, "--score", "p", "--label", "y", *command[1:], *extra, "--json"])
        assert r.code == 0, r.err
        docs.append(_drop(json.loads(r.out), "file"))
    assert docs[0] == docs[1]
    assert set(docs[0]["roles"]) == {"calib", "test"}


def test_report_ignores_empty_train_rows(cli, tmp_path):
    full, kept = _files(tmp_path)
    docs = []
    for path, out in ((full, tmp_path / "a.html"), (kept, tmp_path / "b.html")):
        r = cli(["report", path, "--score", "p", "--label", "y", "--no-bootstrap", "--out", str(out),
                 "--json"])
        assert r.code == 0, r.err
        docs.append(_drop(json.loads(r.out), "file", "out", "bytes"))
    assert docs[0] == docs[1]


def _nan_in_used_row(frame: pd.DataFrame, column: str, role: str, k: int = 5) -> tuple[pd.DataFrame, int]:
    """``frame`` with ``column`` empty on its k-th ``role`` row, and that row's data row number in FILE."""
    frame = frame.copy()
    pos = int(np.flatnonzero(frame.role.to_numpy() == role)[k])
    frame.loc[pos, column] = np.nan
    return frame, pos + 1


@pytest.mark.parametrize("column", ["p", "y"])
@pytest.mark.parametrize("command,role", [
    (["fit", "--method", "platt", "--engine", "memory"], "calib"),
    (["threshold", "--target-recall", "0.8"], "test"),
    (["conformal"], "calib"),
    (["report", "--no-bootstrap"], "test"),
])
def test_nan_in_used_row_names_its_row_in_file(cli, tmp_path, column, command, role):
    frame, row = _nan_in_used_row(_frame(), column, role)
    full, _ = _files(tmp_path, frame)
    out = ["--out", str(tmp_path / ("cal.json" if command[0] == "fit" else "r.html"))] \
        if command[0] in ("fit", "report") else []
    r = cli([command[0], full, "--score", "p", "--label", "y", *command[1:], *out])
    assert r.code == 2, r.err
    assert f"data row {row}" in r.err, r.err
    assert "Traceback" not in r.err


@pytest.mark.parametrize("command", [["fit", "--method", "platt", "--engine", "memory"], ["threshold"],
                                     ["conformal"], ["report", "--no-bootstrap"]])
def test_text_in_an_unused_row_of_the_score_is_refused(cli, tmp_path, command):
    frame = _frame()
    frame["p"] = frame.p.astype(object)
    pos = int(np.flatnonzero(frame.role.to_numpy() == "train")[0])
    frame.loc[pos, "p"] = "high"
    full, _ = _files(tmp_path, frame)
    out = ["--out", str(tmp_path / ("cal.json" if command[0] == "fit" else "r.html"))] \
        if command[0] in ("fit", "report") else []
    r = cli([command[0], full, "--score", "p", "--label", "y", *command[1:], *out])
    assert r.code == 2, r.err
    assert "high" in r.err, r.err


def test_role_col_empty_still_reads_every_row(cli, tmp_path):
    """fit --role-col '' fits on every row, the empty train rows among them: refused, as before."""
    full, _ = _files(tmp_path)
    r = cli(["fit", full, "--score", "p", "--label", "y", "--role-col", "", "--method", "platt", "--engine",
             "memory", "--out", str(tmp_path / "cal.json")])
    assert r.code == 2, r.err
    assert "data row" in r.err, r.err


@pytest.mark.parametrize("command,role", [
    (["fit", "--method", "platt", "--engine", "memory"], "calib"),
    (["threshold", "--target-recall", "0.8"], "test"),
    (["conformal"], "calib"),
    (["report", "--no-bootstrap"], "test"),
    (["audit"], None),
])
def test_a_score_outside_0_1_names_its_row_in_file(cli, tmp_path, command, role):
    """One probability of 1.5 among hundreds: the error says where it is (before: only "1 of 598 are not")."""
    frame = _frame()
    if role is None:  # audit reads every row: give the train rows scores and labels
        frame = frame.fillna({"p": 0.5, "y": 0.0, "w": 1.0})
        pos = 7
    else:
        pos = int(np.flatnonzero(frame.role.to_numpy() == role)[5])
    frame.loc[pos, "p"] = 1.5
    full, _ = _files(tmp_path, frame)
    out = ["--out", str(tmp_path / ("cal.json" if command[0] == "fit" else "r.html"))] \
        if command[0] in ("fit", "report") else []
    r = cli([command[0], full, "--score", "p", "--label", "y", *command[1:], *out])
    assert r.code == 2, r.err
    assert "must be probabilities in [0, 1]" in r.err and f"data row {pos + 1}" in r.err, r.err
    assert "--score-type logit" in r.err and "Traceback" not in r.err
