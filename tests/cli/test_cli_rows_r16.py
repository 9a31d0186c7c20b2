"""Every command's input errors about the rows name the first offending row of FILE, on every engine.

`veracity threshold` and `veracity conformal` named it (8b9a280); `veracity fit`, `report` and `audit` said
only "1 of 300 are not" (and a multiclass row not summing to 1 "1 of 300 rows of 'p0', 'p1', 'p2' do not"),
on DuckDB as in memory. Data rows are counted from 1, the header not counted, as every message of the
source layer counts them. Also: a row whose role is missing is refused by every command and engine (DuckDB's
`veracity fit` dropped it and fit on the other rows); a file with a header and no rows is not "nothing to
audit" for fit, threshold or conformal; labels that look like scores get advice in the command line's words.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

N = 300


def _frame(seed: int = 5, roles: bool = True) -> pd.DataFrame:
    """Roles train/calib/test interleaved: a used row's number in FILE is never its position among the
    used rows, nor among its role's rows."""
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.02, 0.98, N)
    frame = pd.DataFrame({"role": np.asarray(["train", "calib", "test"])[rng.integers(0, 3, N)], "p": p,
                          "y": (rng.random(N) < p).astype(int), "w": rng.uniform(0.5, 2.0, N)})
    return frame if roles else frame.drop(columns="role")


def _row_of(frame: pd.DataFrame, role: str, k: int) -> int:
    """The k-th row (0-based) of ``role``: its data row in FILE (counted from 1)."""
    return int(np.flatnonzero(frame.role.to_numpy() == role)[k]) + 1


def _write(frame: pd.DataFrame, path, kind: str = "csv") -> str:
    if kind == "parquet":
        frame.to_parquet(path.with_suffix(".parquet"), index=False)
        return str(path.with_suffix(".parquet"))
    frame.to_csv(path, index=False)
    return str(path)


ENGINES = ["memory", "duckdb"]


@pytest.mark.parametrize("kind", ["csv", "parquet"])
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("column,value,words", [
    pytest.param("w", -1.0, r"must be non-negative; 1 of \d+ are negative \(min=-1\), first at data row {row}",
                 id="weight"),
    pytest.param("y", 2, r"must be binary 0/1 \(or bool\); 1 of \d+ are not \(min=2, max=2\), first at data row "
                         r"{row};", id="label"),
])
def test_fit_names_the_row_of_a_bad_weight_or_label(cli, refused, tmp_path, engine, kind, column, value, words):
    frame = _frame()
    row = _row_of(frame, "test", 7)
    frame.loc[row - 1, column] = value
    path = _write(frame, tmp_path / "d.csv", kind)
    r = cli(["fit", path, "--score", "p", "--label", "y", "--sample-weight", "w", "--method", "platt",
             "--fit-role", "test", "--allow-role", "test", "--engine", engine, "--out", tmp_path / "c.json"])
    refused(r, words.format(row=row))


@pytest.mark.parametrize("engine", ENGINES)
def test_fit_without_roles_names_the_row(cli, refused, tmp_path, engine):
    frame = _frame(roles=False)
    frame.loc[40, "y"] = 3
    path = _write(frame, tmp_path / "d.csv")
    r = cli(["fit", path, "--score", "p", "--label", "y", "--method", "isotonic", "--engine", engine,
             "--out", tmp_path / "c.json"])
    refused(r, r"1 of 300 are not \(min=3, max=3\), first at data row 41;")


@pytest.mark.parametrize("role", ["calib", "test"])
@pytest.mark.parametrize("column,value,words", [
    pytest.param("y", 2, r"labels must be binary 0/1 \(or bool\); 1 of \d+ are not \(values such as 2\), first at "
                         r"data row {row} \(checked the \d+ rows with role = calib or test, of the 300 rows in",
                 id="label"),
    pytest.param("w", -1.0, r"--sample-weight must be non-negative; 1 of \d+ are negative \(min=-1\), first at data "
                            r"row {row} ", id="weight"),
])
def test_report_names_the_row_of_a_bad_label_or_weight(cli, refused, tmp_path, role, column, value, words):
    frame = _frame()
    row = _row_of(frame, role, 5)
    frame.loc[row - 1, column] = value
    path = _write(frame, tmp_path / "d.csv")
    r = cli(["report", path, "--score", "p", "--label", "y", "--sample-weight", "w", "--no-bootstrap",
             "--out", tmp_path / "r.html"])
    refused(r, words.format(row=row))


def test_report_without_roles_names_the_row(cli, refused, tmp_path):
    frame = _frame(roles=False)
    frame.loc[40, "y"] = 2
    path = _write(frame, tmp_path / "d.csv")
    r = cli(["report", path, "--score", "p", "--label", "y", "--no-bootstrap", "--out", tmp_path / "r.html"])
    refused(r, r"1 of 300 are not \(values such as 2\), first at data row 41")


@pytest.mark.parametrize("kind", ["csv", "parquet"])
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("column,value,words", [
    pytest.param("w", -1.0, r"must be non-negative; 1 of 300 are negative \(min=-1\), first at data row 58$",
                 id="weight"),
    pytest.param("y", 2, r"must be binary 0/1 \(or bool\); 1 of 300 are not \(min=2, max=2\), first at data row 58;",
                 id="label"),
])
def test_audit_names_the_row_of_a_bad_weight_or_label(cli, refused, tmp_path, engine, kind, column, value, words):
    frame = _frame(roles=False)
    frame.loc[57, column] = value
    path = _write(frame, tmp_path / "d.csv", kind)
    r = cli(["audit", path, "--score", "p", "--label", "y", "--sample-weight", "w", "--engine", engine])
    refused(r, words)


def _multiclass(tmp_path, bad_row: int) -> str:
    rng = np.random.default_rng(1)
    P = rng.dirichlet([1.0, 1.0, 1.0], N)
    P[bad_row - 1] = [0.5, 0.4, 0.2]  # sums to 1.1
    path = tmp_path / "m.csv"
    pd.DataFrame({"p0": P[:, 0], "p1": P[:, 1], "p2": P[:, 2], "y": rng.integers(0, 3, N)}).to_csv(path, index=False)
    return str(path)


@pytest.mark.parametrize("extra", [[], ["--multiclass", "classwise"]])
def test_audit_names_the_multiclass_row_not_summing_to_one(cli, refused, tmp_path, extra):
    path = _multiclass(tmp_path, 41)
    r = cli(["audit", path, "--score", "p0,p1,p2", "--label", "y", *extra])
    refused(r, r"must sum to 1; 1 of 300 rows of 'p0', 'p1', 'p2' do not, first at data row 41\. Normalise")


@pytest.mark.parametrize("engine", ENGINES)
def test_fit_names_the_multiclass_row_not_summing_to_one(cli, refused, tmp_path, engine):
    path = _multiclass(tmp_path, 77)
    r = cli(["fit", path, "--score", "p0,p1,p2", "--label", "y", "--method", "temperature", "--engine", engine,
             "--out", tmp_path / "c.json"])
    refused(r, r"must sum to 1; 1 of 300 rows of 'p0', 'p1', 'p2' do not, first at data row 77\.")


def test_report_names_the_multiclass_row_not_summing_to_one(cli, refused, tmp_path):
    path = _multiclass(tmp_path, 41)
    r = cli(["report", path, "--score", "p0,p1,p2", "--label", "y", "--no-bootstrap", "--out", tmp_path / "r.html"])
    refused(r, r"must sum to 1; 1 of 300 do not \(data row 41 sums to 1\.1\)")


@pytest.mark.parametrize("command", [["threshold", "--cost-fn", "4"], ["conformal"]])
def test_threshold_and_conformal_name_the_row_of_a_score_outside_0_1(cli, refused, tmp_path, command):
    """Whole-number scores (a 2 among 0/1 scores) passed the command's own range check (floats only) and
    the library's error named no row."""
    frame = _frame(roles=False)
    frame["s"] = frame.y.astype(int)
    frame.loc[40, "s"] = 2
    path = _write(frame, tmp_path / "d.csv")
    r = cli([command[0], path, "--score", "s", "--label", "y", *command[1:]])
    refused(r, r"probabilities in \[0, 1\](; 1 of 300 are not)? \(min=0, max=2\), first at data row 41[;.]")


# -- a missing role: one rule for every command and engine ---------------------------------------------


def _missing_role(tmp_path, role: str) -> tuple[str, int]:
    frame = _frame()
    row = _row_of(frame, role, 3)
    frame = frame.astype({"role": object})
    frame.loc[row - 1, "role"] = None  # an empty cell in the file
    return _write(frame, tmp_path / "d.csv"), row


ROLE_COMMANDS = {
    "fit memory": ["fit", "--method", "platt", "--engine", "memory", "--out", "{out}"],
    "fit duckdb": ["fit", "--method", "platt", "--engine", "duckdb", "--out", "{out}"],
    "fit auto": ["fit", "--method", "platt", "--out", "{out}"],
    "threshold": ["threshold", "--cost-fn", "4"],
    "conformal": ["conformal"],
    "report": ["report", "--no-bootstrap", "--out", "{out}"],
}


@pytest.mark.parametrize("role", ["train", "calib"])
@pytest.mark.parametrize("name", sorted(ROLE_COMMANDS))
def test_a_missing_role_is_refused_naming_its_row(cli, refused, tmp_path, name, role):
    """A train row (used by no command) or a calib row whose role cell is empty: DuckDB's fit dropped
    it and fit on the other rows; memory, threshold, conformal and report refused it."""
    path, row = _missing_role(tmp_path, role)
    command = [a.replace("{out}", str(tmp_path / "out.x")) for a in ROLE_COMMANDS[name]]
    r = cli([command[0], path, "--score", "p", "--label", "y", *command[1:]])
    refused(r, rf"column 'role' has 1 missing/NaN and 0 infinite values of 300 rows, first at data row {row}; "
               "drop or fill those rows first")
    assert not (tmp_path / "out.x").exists()


# -- a file with a header and no rows -----------------------------------------------------------------


@pytest.mark.parametrize("command", [
    ["fit", "--method", "platt", "--engine", "memory"], ["fit", "--method", "platt", "--engine", "duckdb"],
    ["threshold"], ["conformal"], ["audit"], ["audit", "--engine", "duckdb"],
])
def test_an_empty_file_is_not_nothing_to_audit(cli, refused, tmp_path, command):
    path = _write(_frame().iloc[:0], tmp_path / "e.csv")
    r = cli([command[0], path, "--score", "p", "--label", "y", *command[1:], *(
        ["--out", tmp_path / "c.json"] if command[0] == "fit" else [])])
    refused(r, r"e\.csv has (a header but )?no rows; pass a file with at least one data row$")
    assert "audit" not in r.err.split("input error")[1]


# -- labels that look like scores -------------------------------------------------------------------


@pytest.mark.parametrize("command", [["threshold", "--cost-fn", "4"], ["conformal"], ["report", "--no-bootstrap"]])
def test_labels_that_look_like_scores_get_advice_in_the_command_lines_words(cli, refused, tmp_path, command):
    frame = _frame(roles=False)
    frame["q"] = frame.p  # the scores again, named as the label
    path = _write(frame, tmp_path / "d.csv")
    extra = ["--out", tmp_path / "r.html"] if command[0] == "report" else []
    r = cli([command[0], path, "--score", "p", "--label", "q", *command[1:], *extra])
    refused(r, r"labels must be binary 0/1 .*These look like scores: is --label q the 0/1 outcome column\?")
    assert "vc.ece" not in r.err


@pytest.mark.parametrize("engine", ["dask", "spark"])
def test_fit_on_the_other_engines_names_the_row_and_refuses_a_missing_role(cli, refused, tmp_path, engine):
    """Dask and Spark read the rows where they live, as DuckDB does: the same row named, the same refusal."""
    frame = _frame()
    row = _row_of(frame, "calib", 4)
    frame.loc[row - 1, "y"] = 2
    path = _write(frame, tmp_path / "d.csv")
    r = cli(["fit", path, "--score", "p", "--label", "y", "--method", "platt", "--engine", engine,
             "--out", tmp_path / "c.json"])
    refused(r, rf"1 of \d+ are not \(min=2, max=2\), first at data row {row};")
    path, row = _missing_role(tmp_path, "test")
    r = cli(["fit", path, "--score", "p", "--label", "y", "--method", "platt", "--engine", engine,
             "--out", tmp_path / "c.json"])
    refused(r, rf"column 'role' has 1 missing/NaN and 0 infinite values of 300 rows, first at data row {row};")
    assert not (tmp_path / "c.json").exists()


@pytest.mark.parametrize("engine", ENGINES)
def test_fit_on_the_test_role_is_refused_before_its_rows_are_read(cli, refused, tmp_path, engine):
    """``--fit-role test`` without ``--allow-role``: DuckDB refused the role, memory read the rows first and
    refused a negative weight among them instead (fix that, and the role is still refused)."""
    frame = _frame()
    frame.loc[_row_of(frame, "test", 2) - 1, "w"] = -1.0
    path = _write(frame, tmp_path / "d.csv")
    r = cli(["fit", path, "--score", "p", "--label", "y", "--sample-weight", "w", "--method", "platt",
             "--fit-role", "test", "--engine", engine, "--out", tmp_path / "c.json"])
    refused(r, r"refusing to fit PlattScaling on rows whose role is 'test'.*pass --allow-role test to override")


def test_compare_asks_about_label_in_command_line_words(tmp_path, cli, refused) -> None:
    """The advice written for Python callers ("vc.ece(scores, labels)") is rewritten once, in main(),
    for every command (compare printed the Python call order)."""
    path = tmp_path / "swap.csv"
    path.write_text("p,q,y\n" + "".join(f"{0.1 + 0.8 * (i % 5) / 4},{0.05 + 0.9 * (i % 7) / 6},{i % 2}\n"
                                        for i in range(60)))
    res = cli(["compare", path, "--score", "p", "--label", "q", "--against", "y"])
    refused(res, r"is --label q the 0/1 outcome column\?")
    assert "vc.ece" not in res.err
