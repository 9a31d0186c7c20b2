"""CSV headers read as written (issue 23; found by tests/fuzz/test_fuzz_frames.py).

Before: a glob of CSV files with different headers was read by position (a file whose
header is ``y,p`` gave its labels as scores), exit 0; DuckDB trimmed the spaces around
header names (``"p "`` became ``p`` and the real ``p`` became ``p_1``: ``score="p"``
read the other column); a header of numbers (``0,1``) was sniffed as a data row.
"""

import json

import numpy as np
import pytest

import veracity as vc

pytest.importorskip("duckdb")

RNG = np.random.default_rng(11)
N = 60
P = np.round(RNG.random(N), 4)
Y = (RNG.random(N) < P).astype(int)
NOISE = np.round(RNG.random(N), 4)


def _write(path, header, *columns):
    lines = [",".join(header)] + [",".join(str(v) for v in row) for row in zip(*columns)]
    path.write_text("\n".join(lines) + "\n")


@pytest.fixture
def glob_dir(tmp_path):
    _write(tmp_path / "a.csv", ["p", "y"], P[:30], Y[:30])
    _write(tmp_path / "b.csv", ["y", "p"], Y[30:], P[30:])  # the same names, another order
    return tmp_path


def test_csv_glob_with_different_headers_is_refused(glob_dir):
    with pytest.raises(vc.VeracityError) as info:
        vc.audit(str(glob_dir / "*.csv"), score="p", label="y")
    message = str(info.value)
    assert "\n" not in message
    assert "a.csv" in message and "b.csv" in message and "p, y" in message and "y, p" in message


@pytest.mark.parametrize("engine", ["duckdb", "memory"])
def test_csv_glob_with_different_headers_exits_2(glob_dir, cli, refused, engine):
    refused(cli(["audit", str(glob_dir / "*.csv"), "--score", "p", "--label", "y", "--engine", engine]),
            r"a\.csv.*b\.csv.*different headers")


def test_csv_glob_with_the_same_headers_is_read(tmp_path, cli):
    _write(tmp_path / "a.csv", ["p", "y"], P[:30], Y[:30])
    _write(tmp_path / "b.csv", ["p", "y"], P[30:], Y[30:])
    assert vc.ece(str(tmp_path / "*.csv"), score="p", label="y") == pytest.approx(vc.ece(P, Y), rel=1e-9)
    result = cli(["audit", str(tmp_path / "*.csv"), "--score", "p", "--label", "y", "--json", "-"])
    assert result.code == 0 and json.loads(result.out)["n"] == N


@pytest.mark.parametrize("header", [["p ", "p", "y"], [" p", "p", "y"], ["p", "p ", "y"]])
def test_spaces_around_header_names_are_kept(tmp_path, cli, header):
    columns = {"p": P, "y": Y}
    _write(tmp_path / "s.csv", header, *(columns.get(h, NOISE) for h in header))
    want = vc.ece(P, Y)
    assert vc.ece(str(tmp_path / "s.csv"), score="p", label="y") == pytest.approx(want, rel=1e-9)
    for engine in ("duckdb", "memory"):
        result = cli(["audit", str(tmp_path / "s.csv"), "--score", "p", "--label", "y", "--engine", engine,
                      "--json", "-"])
        assert result.code == 0, result.err
        assert json.loads(result.out)["metrics"]["ece"] == pytest.approx(want, rel=1e-9), engine


def test_a_header_of_numbers_is_the_header(tmp_path):
    _write(tmp_path / "n.csv", ["0", "1"], P, Y)
    result = vc.audit(str(tmp_path / "n.csv"), score="0", label="1")
    assert result.n == N and result.ece == pytest.approx(vc.ece(P, Y), rel=1e-9)


@pytest.mark.parametrize("header, score", [(["p", "P", "y"], "p"), (["P", "p", "y"], "p"), (["p", "P", "y"], "P")])
def test_names_that_differ_only_in_case_never_read_the_other_column(tmp_path, header, score):
    columns = {score: P, "y": Y}
    _write(tmp_path / "c.csv", header, *(columns.get(h, NOISE) for h in header))
    try:
        got = vc.ece(str(tmp_path / "c.csv"), score=score, label="y")
    except vc.VeracityError as exc:
        assert "\n" not in str(exc) and "not found" in str(exc)
    else:
        assert got == pytest.approx(vc.ece(P, Y), rel=1e-9)


def test_renamed_header_keeps_the_sniffed_types(tmp_path):
    """Passing the literal names to DuckDB's read_csv(names=) re-typed a True/False column as DOUBLE
    ("could not read ... Conversion error") when a name had a trailing space (fuzz)."""
    times = [f"2026-0{1 + i % 5}-28 21:59:00-03:30" for i in range(N)]
    _write(tmp_path / "t.csv", ["p", "y", "t "], P, np.where(Y == 1, "True", "False"), times)
    assert vc.ece(str(tmp_path / "t.csv"), score="p", label="y") == pytest.approx(vc.ece(P, Y), rel=1e-9)
    got = vc.monitor(str(tmp_path / "t.csv"), score="p", label="y", periods="t ", freq="M")
    assert sum(r.n for r in got.rows) == N


@pytest.mark.parametrize("spelling", [("True", "False"), ("true", "false")])
def test_a_boolean_label_column_in_a_csv(tmp_path, spelling):
    """DuckDB 2.0's type_pushdown pushed CAST(y AS DOUBLE) into the CSV scan of a BOOLEAN column,
    which then parsed "False" as a number: vc.threshold_table (and monitor) of such a file was
    "could not read ... Conversion error" (fuzz)."""
    _write(tmp_path / "b.csv", ["p", "y"], P, np.where(Y == 1, *spelling))
    path = str(tmp_path / "b.csv")
    got = vc.threshold_table(path, thresholds=[0.3, 0.5], score="p", label="y").to_dict()["table"]
    want = vc.threshold_table(P, Y, [0.3, 0.5]).to_dict()["table"]
    assert [pytest.approx(row) for row in want] == got
    assert vc.audit(path, score="p", label="y").to_dict()["metrics"] == pytest.approx(
        vc.audit(P, Y).to_dict()["metrics"], rel=1e-9, nan_ok=True)  # mce: NaN (no sufficient bin)


@pytest.mark.parametrize("name", [" p", "p ", "a,b"])
def test_cli_score_names_are_matched_as_written_first(tmp_path, cli, name):
    """--score ' p' was stripped to 'p' on the memory engine and read the other column (fuzz);
    a column literally named 'a,b' was split into two names."""
    import pandas as pd

    pd.DataFrame({"p": NOISE, name: P, "y": Y}).to_csv(tmp_path / "n.csv", index=False)
    result = cli(["audit", str(tmp_path / "n.csv"), f"--score={name}", "--label=y", "--engine=memory",
                  "--json", "-"])
    assert result.code == 0, result.err
    assert json.loads(result.out)["metrics"]["ece"] == pytest.approx(vc.ece(P, Y), rel=1e-9)


def test_cli_multiclass_score_list_still_splits(tmp_path, cli):
    rng = np.random.default_rng(2)
    probs = rng.dirichlet([1, 1, 1], N)
    lines = ["p0,p1,p2,y"] + [f"{a},{b},{c},{k}" for (a, b, c), k in zip(probs, rng.integers(0, 3, N))]
    (tmp_path / "m.csv").write_text("\n".join(lines) + "\n")
    result = cli(["audit", str(tmp_path / "m.csv"), "--score", "p0, p1, p2", "--label", "y", "--json", "-"])
    assert result.code == 0, result.err
    assert json.loads(result.out)["n_classes"] == 3


def test_a_true_false_label_on_a_users_duckdb_relation_over_csv(tmp_path):
    """DuckDB 2.0 pushes CAST(y AS DOUBLE) into a CSV scan, which then fails on the text 'False':
    a relation the user opened (not veracity's own connection) must still read True/False as 1/0."""
    import duckdb
    import numpy as np

    import veracity as vc

    rng = np.random.default_rng(3)
    p = rng.uniform(0.01, 0.99, 400)
    y = rng.random(400) < p
    f = tmp_path / "bool.csv"
    f.write_text("p,y\n" + "".join(f"{a:.17g},{'True' if b else 'False'}\n" for a, b in zip(p, y)))
    rel = duckdb.connect().read_csv(str(f))
    got = vc.threshold_table(rel, [0.3, 0.5], score="p", label="y")
    want = vc.threshold_table(p, y.astype(int), [0.3, 0.5])
    assert [r.tp for r in got.rows] == [r.tp for r in want.rows]
    assert vc.audit(rel, score="p", label="y").ece == pytest.approx(vc.audit(p, y.astype(int)).ece, abs=1e-12)
