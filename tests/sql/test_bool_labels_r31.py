"""A BOOLEAN label column reads alike on every engine with ``pos_label=`` (round 31).

SQLite stores a column declared BOOLEAN as the integers 0 and 1, where DuckDB and PostgreSQL hand back
False / True. Before, ``vc.audit_sql(sqlite, ..., pos_label="true")`` (``--pos-label true`` on the command
line) on such a column was refused, "pos_label='true' is not among the values of column 'y' (labels)
(0, 1)", while DuckDB, PostgreSQL and a frame of booleans audited it. Now the declared type
(``pragma_table_info``) makes the stored 0/1 read as False/True for naming the positive class, with the
same numbers as DuckDB and the in-memory audit; an INTEGER column of 0/1 keeps refusing "true" on every
engine, in the same words.
"""

from __future__ import annotations

import math
import sqlite3

import numpy as np
import pandas as pd
import pytest

import veracity as vc

duckdb = pytest.importorskip("duckdb")

RNG = np.random.default_rng(31)
N = 300
P = RNG.uniform(0.01, 0.99, N)
Y = RNG.uniform(size=N) < P
BINS = 10


def _sqlite(kind: str = "BOOLEAN", labels: list | None = None,
            scores: list | None = None) -> sqlite3.Connection:
    con = sqlite3.connect(":memory:")
    con.execute(f"CREATE TABLE t (p DOUBLE, y {kind})")
    labels = [int(v) for v in Y] if labels is None else labels
    scores = P.tolist() if scores is None else scores
    con.executemany("INSERT INTO t VALUES (?, ?)", list(zip(scores, labels)))
    return con


def _duckdb(kind: str = "BOOLEAN", labels: list | None = None, scores: list | None = None):
    con = duckdb.connect()
    con.execute(f"CREATE TABLE t (p DOUBLE, y {kind})")
    labels = [bool(v) if kind == "BOOLEAN" else int(v) for v in Y] if labels is None else labels
    scores = P.tolist() if scores is None else scores
    con.executemany("INSERT INTO t VALUES (?, ?)", list(zip(scores, labels)))
    return con


def _same(a, b, where: str = "") -> None:
    """Equal leaves, numbers to 1e-12."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), where
        for key in a:
            _same(a[key], b[key], f"{where}.{key}")
    elif isinstance(a, (list, tuple)):
        assert isinstance(b, (list, tuple)) and len(a) == len(b), where
        for i, (x, z) in enumerate(zip(a, b)):
            _same(x, z, f"{where}[{i}]")
    elif isinstance(a, float) and not isinstance(a, bool):
        assert isinstance(b, (int, float)), where
        assert (math.isnan(a) and math.isnan(b)) or abs(a - b) <= 1e-12, (where, a, b)
    else:
        assert a == b, (where, a, b)


def _audit(con, pos_label):
    return vc.audit_sql(con, table="t", score="p", label="y", pos_label=pos_label, bins=BINS).to_dict()


@pytest.mark.parametrize("pos_label", ["true", "TRUE", " True ", "false", "False", "1", "0",
                                       True, False, 1, None], ids=repr)
def test_a_sqlite_boolean_column_reads_as_duckdb_and_the_frame_read_it(pos_label):
    lite = _audit(_sqlite(), pos_label)
    duck = _audit(_duckdb(), pos_label)
    frame = vc.audit(pd.DataFrame({"p": P, "y": Y}), score="p", label="y", pos_label=pos_label,
                     bins=BINS).to_dict()
    _same(lite, duck)
    _same(lite, frame)
    positive = pos_label is None or str(pos_label).strip().lower() in ("true", "1")
    # the numbers are the audit of the right class, not only alike across routes
    assert lite["base_rate"] == pytest.approx(float(np.mean(Y if positive else ~Y)), abs=1e-12)
    brier = float(np.mean((P - (Y if positive else ~Y)) ** 2))
    assert lite["metrics"]["brier"] == pytest.approx(brier, abs=1e-12)


@pytest.mark.parametrize("kind", ["boolean", "BOOL"])
def test_the_declared_type_is_read_in_any_case(kind):
    lite = _audit(_sqlite(kind), "true")
    _same(lite, _audit(_duckdb(), "true"))


def test_a_view_a_named_database_and_a_temp_table_that_hides_the_main_one():
    con = _sqlite()
    con.execute("CREATE VIEW v AS SELECT p, y FROM t")
    want = _audit(_duckdb(), "true")
    _same(vc.audit_sql(con, table="v", score="p", label="y", pos_label="true", bins=BINS).to_dict(), want)
    _same(vc.audit_sql(con, table=("main", "t"), score="p", label="y", pos_label="true", bins=BINS).to_dict(),
          want)
    # a temp table named t, of INTEGER labels, is the table "t" names: its type decides, not main.t's
    con.execute("CREATE TEMP TABLE t (p DOUBLE, y INTEGER)")
    con.executemany("INSERT INTO temp.t VALUES (?, ?)", list(zip(P.tolist(), [int(v) for v in Y])))
    with pytest.raises(vc.VeracityError, match=r"\(0, 1\)"):
        vc.audit_sql(con, table="t", score="p", label="y", pos_label="true")
    _same(vc.audit_sql(con, table=("main", "t"), score="p", label="y", pos_label="true", bins=BINS).to_dict(),
          want)


@pytest.mark.parametrize("pos_label", ["true", "false", "TRUE"])
def test_an_integer_column_of_0_and_1_refuses_true_alike_on_every_engine(pos_label, error_line):
    lines = {error_line(lambda make=make: _audit(make("INTEGER"), pos_label)) for make in (_sqlite, _duckdb)}
    lines.add(error_line(lambda: vc.audit(pd.DataFrame({"p": P, "y": Y.astype(int)}), score="p", label="y",
                                          pos_label=pos_label)))
    assert lines == {f"pos_label={pos_label!r} is not among the values of column 'y' (labels) (0, 1); "
                     "pass one of them"}


def test_a_boolean_column_shows_its_values_as_booleans_on_every_engine(error_line):
    lines = {error_line(lambda make=make: _audit(make(), "yes")) for make in (_sqlite, _duckdb)}
    frame = pd.DataFrame({"p": P, "y": Y})
    lines.add(error_line(lambda: vc.audit(frame, score="p", label="y", pos_label="yes")))
    assert lines == {"pos_label='yes' is not among the values of column 'y' (labels) (False, True); "
                     "pass 'true' or 'false' (any case), or 1 or 0"}
    # one class only: "false" names no row on either engine
    ones = [0.2, 0.7, 0.4]
    lines = {error_line(lambda: _audit(_sqlite(labels=[1, 1, 1], scores=ones), "false")),
             error_line(lambda: _audit(_duckdb(labels=[True, True, True], scores=ones), "false"))}
    assert lines == {"pos_label='false' is not among the values of column 'y' (labels) (True); "
                     "pass 'true' (any case) or 1"}


def test_a_boolean_column_holding_other_numbers_is_not_read_as_booleans(error_line):
    # SQLite keeps any value in a BOOLEAN column: 0 and 2 are not False and True
    line = error_line(lambda: _audit(_sqlite(labels=[0, 2, 2], scores=[0.2, 0.7, 0.4]), "true"))
    assert line == "pos_label='true' is not among the values of column 'y' (labels) (0, 2); pass one of them"


@pytest.mark.parametrize("pos_label", ["true", None])
def test_missing_boolean_labels_are_refused_alike(pos_label):
    labels = [int(v) for v in Y]
    labels[5] = None
    lines = set()
    for con in (_sqlite(labels=labels), _duckdb(labels=[None if v is None else bool(v) for v in labels])):
        with pytest.raises(vc.VeracityError) as info:
            _audit(con, pos_label)
        lines.add((type(info.value).__name__, str(info.value)))
    assert lines == {("MissingLabels",
                      "column 'y' (labels) has 1 missing value (None/NaN) of 300 rows; "
                      "drop or fill that row first")}


def test_the_command_line_reads_pos_label_true_on_a_sqlite_boolean_column(cli, refused, tmp_path):
    path = tmp_path / "bool.db"
    con = _sqlite()
    con.execute("ATTACH DATABASE ? AS out", (str(path),))
    con.execute("CREATE TABLE out.t (p DOUBLE, y BOOLEAN)")
    con.execute("INSERT INTO out.t SELECT p, y FROM main.t")
    con.commit()
    con.close()
    csv = tmp_path / "bool.csv"
    pd.DataFrame({"p": P, "y": Y}).to_csv(csv, index=False)
    options = ["--score", "p", "--label", "y", "--pos-label", "true", "--bins", str(BINS)]
    from_db = cli(["audit", "--sql-url", f"sqlite:///{path}", "--table", "t", *options])
    from_file = cli(["audit", str(csv), *options])
    assert from_db.code == 0 and from_file.code == 0, from_db.err
    assert from_db.out == from_file.out
    no = cli(["audit", "--sql-url", f"sqlite:///{path}", "--table", "t", "--score", "p", "--label", "y",
              "--pos-label", "yes"])
    refused(no, r"is not among the values of column 'y' \(labels\) \(False, True\)")


def test_postgresql_reads_the_same_words_and_numbers(pg_conn, error_line):
    rows = list(zip(P.tolist(), [bool(v) for v in Y], [int(v) for v in Y]))
    pg_conn.execute("DROP TABLE IF EXISTS bool_labels_r31")
    pg_conn.execute("CREATE TABLE bool_labels_r31 (p DOUBLE PRECISION, y BOOLEAN, yi INTEGER)")
    with pg_conn.cursor() as cur:
        cur.executemany("INSERT INTO bool_labels_r31 VALUES (%s, %s, %s)", rows)
    try:
        got = vc.audit_sql(pg_conn, table="bool_labels_r31", score="p", label="y", pos_label="true",
                           bins=BINS).to_dict()
        _same(got, _audit(_sqlite(), "true"))
        line = error_line(lambda: vc.audit_sql(pg_conn, table="bool_labels_r31", score="p", label="yi",
                                               pos_label="true"))
        assert line == ("pos_label='true' is not among the values of column 'yi' (labels) (0, 1); "
                        "pass one of them")
    finally:
        pg_conn.execute("DROP TABLE bool_labels_r31")
