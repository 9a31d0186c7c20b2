"""Hostile inputs to the SQL audit (round 14).

* A PostgreSQL NUMERIC label of 1e400 printed its 401 digits in the ``pos_label`` messages ("the labels
  take 3 values (..., Decimal('1000…0'))"; "pos_label=5 is not among ..."); text labels of thousands
  of characters were printed whole. Values are now shown briefly (``Decimal('1E+400')``).
* ``pos_label='1'`` (and the CLI's ``--pos-label 1``, which is text) did not name the 1 of a
  NUMERIC/DECIMAL label column: "'1' is not among the values ... (Decimal('0'), Decimal('1'))".
* A capped ``by=`` of a BLOB/BYTEA or INTERVAL column failed: "a value of type bytes cannot be
  written into the query" (uncapped, the same column audited); one of a float column holding ±inf:
  "cannot write the number -inf into SQL"; one of a PostgreSQL NUMERIC column holding NaN raised a raw
  ``decimal.InvalidOperation`` (capped or not), and a NUMERIC NaN label was counted as a third label value;
  a kept key of DuckDB/SQLite text holding NUL: "contains a NUL character; no database accepts it".
* Missing-column messages printed every long column name whole (15,000 characters for 25 names).
* SQLite given a three-part table name said 'near ".": syntax error'; a table function passed as
  table= got the hint for a dotted schema name.
* ``to_sql(dialect="postgres")`` on a NUMERIC score column compared the score with the step table's
  knots in decimal: 0.1, 0.2, 0.4, 0.8 fell in the wrong step (0.0 for 0.0237); on a REAL column a
  score of 1.0 failed the query ("cannot take logarithm of zero").
"""

from __future__ import annotations

import datetime
import decimal
import sqlite3

import numpy as np
import pytest

import veracity as vc

from ..sql.conftest import engine, insert_rows, load, pg_conn  # noqa: F401 - the live engines' fixtures

duckdb = pytest.importorskip("duckdb")



# -- long values in the label messages ---------------------------------------------------------------
def _numeric_labels(pg_conn, labels):
    pg_conn.execute("DROP TABLE IF EXISTS r14_numeric")
    pg_conn.execute("CREATE TABLE r14_numeric (p DOUBLE PRECISION, y NUMERIC)")
    with pg_conn.cursor() as cur:
        cur.executemany("INSERT INTO r14_numeric VALUES (%s, %s::numeric)",
                        [(0.1 + 0.2 * i, text) for i, text in enumerate(labels)])


@pytest.mark.parametrize("labels, pos_label, match", [
    (["0", "1", "1e400"], 1, r"take 3 values \(Decimal\('0'\), Decimal\('1'\), Decimal\('1E\+400'\)\)"),
    (["1", "1e400"], 5, r"pos_label=5 is not among the values of column 'y' \(labels\) \(Decimal\('1'\), "
                        r"Decimal\('1E\+400'\)\)"),
    (["1", "1." + "0" * 60 + "1"], 5, r"\(Decimal\('1'\), Decimal\('1\.000000000000000\.\.\.e\+0'\)\)"),
])
def test_a_numeric_label_of_many_digits_is_shown_briefly(pg_conn, labels, pos_label, match):
    _numeric_labels(pg_conn, labels)
    with pytest.raises(vc.VeracityError, match=match) as info:
        vc.audit(pg_conn, table="r14_numeric", score="p", label="y", pos_label=pos_label)
    assert len(str(info.value)) < 200 and "0" * 30 not in str(info.value)


@pytest.mark.parametrize("pos_label", [None, "zz"])
def test_text_labels_of_thousands_of_characters_are_shown_briefly(pos_label):
    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE t (p REAL, y TEXT)")
    con.executemany("INSERT INTO t VALUES (?, ?)", [(0.2, "a" * 5000), (0.7, "b" * 5000), (0.8, "c" * 5000)])
    with pytest.raises(vc.VeracityError, match=r"'aaaa+\.\.\. \(5002 characters\)") as info:
        vc.audit(con, table="t", score="p", label="y", pos_label=pos_label)
    assert len(str(info.value)) < 400


def test_brief_keeps_short_values_and_every_distinct_long_number_distinct():
    from veracity.sql._labels import brief

    D = decimal.Decimal
    assert [brief(v) for v in (D("0"), D("1.0"), D("120"), 7, True, "yes", 0.1)] == [
        "Decimal('0')", "Decimal('1.0')", "Decimal('120')", "7", "True", "'yes'", "0.1"]
    assert brief(D(10) ** 400) == "Decimal('1E+400')" and brief(D("-1e-400")) == "Decimal('-1E-400')"
    assert brief(10 ** 50) == "1E+50"
    # 61 digits after the point: not the 28-digit context's Decimal('1'), which would read as the label 1
    assert brief(D("1." + "0" * 60 + "1")) == "Decimal('1.000000000000000...e+0')"
    assert brief(-D("12345678901234567890123456789012345678901234567890")) == "Decimal('-1.234567890123456...e+49')"


# -- a text pos_label naming a NUMERIC label ------------------------------------------------------------
def test_a_text_pos_label_names_the_one_of_a_numeric_label(pg_conn):
    _numeric_labels(pg_conn, ["0", "1", "1", "0"])
    p, y = np.array([0.1, 0.3, 0.5, 0.7]), np.array([0, 1, 1, 0])
    want = vc.audit(p, y, min_count=1)
    for pos_label in ("1", " 1.0 ", 1):
        got = vc.audit(pg_conn, table="r14_numeric", score="p", label="y", pos_label=pos_label, min_count=1)
        assert got.brier == pytest.approx(want.brier, abs=1e-15) and got.auc == want.auc == 0.5
    got = vc.audit(pg_conn, table="r14_numeric", score="p", label="y", pos_label="0", min_count=1)
    assert got.brier == pytest.approx(np.mean((p - (1 - y)) ** 2), abs=1e-15)
    with pytest.raises(vc.VeracityError, match=r"pos_label='2' is not among"):
        vc.audit(pg_conn, table="r14_numeric", score="p", label="y", pos_label="2")


def test_cli_pos_label_names_a_decimal_label(cli, tmp_path):
    path = tmp_path / "dec.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE t (p DOUBLE, y DECIMAL(3, 1))")
    con.execute("INSERT INTO t VALUES (0.1, 0), (0.3, 1), (0.5, 1), (0.7, 0), (0.9, 1)")
    con.close()
    res = cli(["audit", "--sql-url", f"duckdb:///{path}", "--table", "t", "--score", "p", "--label", "y",
               "--pos-label", "1", "--min-count", "1", "--json"])
    assert res.code == 0, res.err
    import json

    p, y = np.array([0.1, 0.3, 0.5, 0.7, 0.9]), np.array([0, 1, 1, 0, 1])
    assert json.loads(res.out)["metrics"]["brier"] == pytest.approx(np.mean((p - y) ** 2), abs=1e-15)


# -- a capped by= of bytes or intervals ----------------------------------------------------------------
def _sliced_rows(n=240, keys=12, seed=4):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.01, 0.99, n)
    y = (rng.uniform(size=n) < p).astype(int)
    k = rng.integers(0, keys, n)
    return p, y, k


def _spy_on_the_cap(monkeypatch):
    """A list that grows each time the slice cap is applied in the database (the count per key)."""
    from veracity.sql import _query

    calls = []
    real = _query.slice_counts_sql

    def spy(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(_query, "slice_counts_sql", spy)
    return calls


def _engine(name, pg_conn):
    if name == "postgres":
        return pg_conn
    return sqlite3.connect(":memory:") if name == "sqlite" else duckdb.connect()


@pytest.mark.parametrize("name, kind", [("sqlite", "bytes"), ("duckdb", "bytes"), ("duckdb", "interval"),
                                        ("postgres", "bytes"), ("postgres", "interval")])
@pytest.mark.parametrize("keys", [4, 20])  # 4: pooled in Python; 20: more than the cap's rows, pooled in the database
def test_a_capped_by_of_bytes_or_intervals_is_the_array_forms_slices(request, monkeypatch, name, kind, keys):
    pg_conn = request.getfixturevalue("pg_conn") if name == "postgres" else None
    counted = _spy_on_the_cap(monkeypatch)
    con = _engine(name, pg_conn)
    p, y, k = _sliced_rows(keys=keys)
    column = {"sqlite": "BLOB", "duckdb": "BLOB", "postgres": "BYTEA"}[name] if kind == "bytes" else "INTERVAL"
    values = ([bytes([0, int(i)]) for i in k] if kind == "bytes"
              else [datetime.timedelta(days=int(i), microseconds=7) for i in k])
    con.execute("DROP TABLE IF EXISTS r14_keys")
    con.execute(f"CREATE TABLE r14_keys (p DOUBLE PRECISION, y INTEGER, g {column})")
    rows = [(float(a), int(b), v) for a, b, v in zip(p, y, values)]
    if name == "postgres":
        with con.cursor() as cur:
            cur.executemany("INSERT INTO r14_keys VALUES (%s, %s, %s)", rows)
    else:
        insert_rows(con, "INSERT INTO r14_keys VALUES", "(?, ?, ?)", rows)
    got = vc.audit(con, table="r14_keys", score="p", label="y", by="g", bins=1, max_groups=3, min_count=1)
    assert bool(counted) == (keys > 4)
    # the keys sort as the integers they were made from: the array form sliced by those integers
    want = vc.audit(p, y, by=k, bins=1, max_groups=3, min_count=1)
    assert len(got.groups) == len(want.groups) == 3
    assert list(got.groups)[-1] == list(want.groups)[-1]
    assert list(got.groups)[-1].startswith("(other ")
    for a, b in zip(got.groups.values(), want.groups.values()):
        assert a.n == b.n
        assert a.auc == pytest.approx(b.auc, abs=1e-12) and a.brier == pytest.approx(b.brier, abs=1e-12)


def test_a_blob_label_takes_a_bytes_pos_label():
    con = duckdb.connect()
    con.execute("CREATE TABLE t (p DOUBLE, y BLOB)")
    con.execute("INSERT INTO t VALUES (0.2, '\\x00'::BLOB), (0.7, '\\xFF'::BLOB), (0.9, '\\xFF'::BLOB)")
    got = vc.audit(con, table="t", score="p", label="y", pos_label=b"\xff", min_count=1)
    assert got.brier == pytest.approx((0.2 ** 2 + 0.3 ** 2 + 0.1 ** 2) / 3, abs=1e-15)


@pytest.mark.parametrize("keys", [4, 20])  # 4: pooled in Python; 20: more than the cap's rows, pooled in the database
def test_a_capped_by_with_infinite_keys_is_the_array_forms_slices(engine, monkeypatch, keys):
    name, con = engine
    counted = _spy_on_the_cap(monkeypatch)
    p, y, k = _sliced_rows(keys=keys, seed=5)
    k = np.where(np.arange(k.size) % 3 == 0, 0, k)  # the largest slices: the infinite keys (kept)
    k = np.where(np.arange(k.size) % 3 == 1, 1, k)
    g = np.where(k == 0, -np.inf, np.where(k == 1, np.inf, k.astype(float)))
    load(name, con, "r14_inf", {"p": p, "y": y, "g": g})
    got = vc.audit(con, table="r14_inf", score="p", label="y", by="g", bins=1, max_groups=3, min_count=1)
    assert bool(counted) == (keys > 4)
    want = vc.audit(p, y, by=g, bins=1, max_groups=3, min_count=1)
    assert list(got.groups) == list(want.groups)
    assert list(got.groups)[:2] == ["-inf", "inf"] and list(got.groups)[2].startswith("(other ")
    for a, b in zip(got.groups.values(), want.groups.values()):
        assert a.n == b.n
        assert a.auc == pytest.approx(b.auc, abs=1e-12) and a.brier == pytest.approx(b.brier, abs=1e-12)


def test_a_missing_column_among_long_names_is_one_short_line():
    con = duckdb.connect()
    con.execute("CREATE TABLE t (" + ", ".join(f'"{chr(97 + i) * 400}" DOUBLE' for i in range(25)) + ")")
    with pytest.raises(vc.VeracityError, match=r"label='qqqqq+\.\.\. \(5002 characters\): the table has no such "
                                               r"column \(columns: 'aaaa+\.\.\. \(402 characters\), ") as info:
        vc.audit(con, table="t", score="a" * 400, label="q" * 5000)
    assert len(str(info.value)) < 1500  # 25 names of 400 characters and one of 5,000: 15,000 before


# -- naming the table ----------------------------------------------------------------------------------
def test_sqlite_refuses_a_three_part_table_name_in_words():
    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE t (p REAL, y INTEGER)")
    with pytest.raises(vc.VeracityError, match=r"SQLite names a table by two parts, \(database, table\)"):
        vc.audit(con, table=("db", "main", "t"), score="p", label="y")  # was 'near ".": syntax error'
    con.execute("INSERT INTO t VALUES (0.2, 0), (0.7, 1)")
    assert vc.audit(con, table=("main", "t"), score="p", label="y", min_count=1).n == 2


@pytest.mark.parametrize("table, hint", [
    ("read_parquet('scores.parquet')", r"table= names a table or view of the database, not a query or a table "
                                       r"function"),
    ("cat.s.t", r"for table 't' in schema 's' in catalog 'cat' pass table=\('cat', 's', 't'\)"),
    ("s.t", r"for table 't' in schema 's' pass table=\('s', 't'\)"),
])
def test_a_table_that_is_not_found_gets_the_hint_for_its_form(table, hint):
    con = duckdb.connect()
    with pytest.raises(vc.VeracityError, match=hint) as info:
        vc.audit(con, table=table, score="p", label="y")
    assert "in schema \"read_parquet('scores\"" not in str(info.value)


# -- NUMERIC NaN and Infinity (PostgreSQL) ----------------------------------------------------------------
@pytest.mark.parametrize("cap", [None, 3, 2])  # 2: more slices than the cap's rows, pooled in the database
def test_a_numeric_by_with_nan_and_infinities_is_the_double_columns_slices(pg_conn, monkeypatch, cap):
    rng = np.random.default_rng(6)
    keys = ["NaN", "Infinity", "-Infinity", "1.5", "2", "2.25", "3", "4", "5", "6"]
    rows = [(float(rng.uniform()), int(rng.uniform() < 0.5), keys[i % len(keys)]) for i in range(200)]
    pg_conn.execute("DROP TABLE IF EXISTS r14_nan_keys")
    pg_conn.execute("CREATE TABLE r14_nan_keys (p DOUBLE PRECISION, y INTEGER, gn NUMERIC, gf DOUBLE PRECISION)")
    with pg_conn.cursor() as cur:
        cur.executemany("INSERT INTO r14_nan_keys VALUES (%s, %s, %s::numeric, %s::double precision)",
                        [(p, y, k, k) for p, y, k in rows])
    options = dict(table="r14_nan_keys", score="p", label="y", bins=1 if cap == 2 else 15, max_groups=cap,
                   min_count=1)
    counted = _spy_on_the_cap(monkeypatch)
    got = vc.audit(pg_conn, by="gn", **options)  # was decimal.InvalidOperation: a Decimal NaN refuses "<"
    assert bool(counted) == (cap == 2)
    want = vc.audit(pg_conn, by="gf", **options)
    p, y = np.array([r[0] for r in rows]), np.array([r[1] for r in rows])
    g = np.array([float(r[2]) for r in rows])
    assert got.auc == pytest.approx(vc.audit(p, y, min_count=1).auc, abs=1e-12)
    in_memory = vc.audit(p, y, by=g, bins=options["bins"], max_groups=cap, min_count=1)
    assert len(got.groups) == len(want.groups) == len(in_memory.groups) == (len(keys) if cap is None else cap)
    for a, b, c in zip(got.groups.values(), want.groups.values(), in_memory.groups.values()):
        assert a.n == b.n == c.n and a.auc == pytest.approx(c.auc, abs=1e-12) == b.auc


def test_a_numeric_nan_label_is_missing_with_pos_label(pg_conn):
    _numeric_labels(pg_conn, ["0", "1", "NaN", "1"])
    with pytest.raises(vc.VeracityError, match=r"column 'y' \(labels\) has 1 missing value \(None/NaN\)"):
        vc.audit(pg_conn, table="r14_numeric", score="p", label="y", pos_label=1)  # was "take 3 values (..., NaN)"


# -- exported maps on PostgreSQL NUMERIC / REAL / INTEGER columns ------------------------------------------
def _fit(kind):
    rng = np.random.default_rng(3)
    p = rng.uniform(0, 1, 2000)
    y = (rng.uniform(size=p.size) < p ** 2).astype(int)
    cal = {"histogram": vc.HistogramBinning(), "isotonic": vc.IsotonicCalibration(),
           "temperature": vc.TemperatureScaling(), "platt": vc.PlattScaling()}[kind]
    return cal.fit(np.round(p, 1) if kind == "isotonic" else p, y)  # isotonic: knots at 0.1, 0.2 ...


@pytest.mark.parametrize("kind", ["histogram", "isotonic", "temperature", "platt"])
@pytest.mark.parametrize("column", ["NUMERIC", "REAL", "INTEGER"])
def test_postgres_exports_compute_numeric_real_and_integer_scores_as_doubles(pg_conn, kind, column):
    """NUMERIC 0.1, 0.2, 0.4, 0.8 fell in the step after the knot (compared in decimal with the knot's
    17 digits, above the double knot transform() finds them equal to): 0.0 for 0.0237; REAL 1.0 failed
    the whole query, "cannot take logarithm of zero" (the clamp 1 - 2**-53 rounded to 1 in single
    precision)."""
    import veracity.export as vx

    cal = _fit(kind)
    texts = ["0.1", "0.2", "0.3", "0.4", "0.8", "0.9", "0.35", "0", "1"] if column != "INTEGER" else ["0", "1"]
    pg_conn.execute("DROP TABLE IF EXISTS r14_export")
    pg_conn.execute(f"CREATE TABLE r14_export (i INTEGER, x {column})")
    with pg_conn.cursor() as cur:
        cur.executemany(f"INSERT INTO r14_export VALUES (%s, %s::{column})", list(enumerate(texts)))
    sql = vx.to_sql(cal, "x", dialect="postgres")
    got = np.array([r[0] for r in pg_conn.execute(f"SELECT {sql} FROM r14_export ORDER BY i").fetchall()], float)
    scores = np.array([float(t) for t in texts])  # transform() reads every column as float64 (REAL: its float32)
    want = np.asarray(cal.transform(scores.astype(np.float32) if column == "REAL" else scores), float)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


@pytest.mark.parametrize("name", ["duckdb", "sqlite"])
@pytest.mark.parametrize("keys", [4, 20])
def test_a_capped_by_of_text_holding_nul_is_sliced_as_without_it(monkeypatch, name, keys):
    """DuckDB and SQLite text may hold NUL: a kept key 'a\\x00b' was "contains a NUL character; no
    database accepts it". The oracle: the same keys with NUL written as \\x01 (which sorts alike)."""
    con = _engine(name, None)
    rng = np.random.default_rng(7)
    k = rng.integers(0, keys, 300)
    k = np.where(np.arange(k.size) % 3 == 0, 0, k)  # the kept keys: 0 and 1, which hold NUL
    k = np.where(np.arange(k.size) % 3 == 1, 1, k)
    text = {0: "\x00", 1: "a\x00b"}
    rows = [(float(rng.uniform()), int(rng.uniform() < 0.5), text.get(int(i), f"k{int(i):02d}")) for i in k]
    con.execute("CREATE TABLE t (p DOUBLE, y INTEGER, g VARCHAR, g1 VARCHAR)")
    insert_rows(con, "INSERT INTO t VALUES", "(?, ?, ?, ?)", [(p, y, g, g.replace("\x00", "\x01")) for p, y, g in rows])
    counted = _spy_on_the_cap(monkeypatch)
    got = vc.audit(con, table="t", score="p", label="y", by="g", bins=1, max_groups=3, min_count=1)
    assert bool(counted) == (keys > 4)
    want = vc.audit(con, table="t", score="p", label="y", by="g1", bins=1, max_groups=3, min_count=1)
    assert list(got.groups)[:2] == ["\x00", "a\x00b"] and list(want.groups)[:2] == ["\x01", "a\x01b"]
    for a, b in zip(got.groups.values(), want.groups.values()):
        assert a.n == b.n and a.auc == b.auc and a.brier == b.brier


def test_postgres_refuses_a_nul_in_a_value_naming_the_database():
    from veracity.sql._query import literal

    with pytest.raises(vc.VeracityError, match=r"contains a NUL character; postgres database cannot take it"):
        literal("a\x00b", "postgres")


# -- keys Python cannot tell apart ---------------------------------------------------------------------
@pytest.mark.parametrize("column, text", [("TIMESTAMP_NS", "2024-01-01 10:00:00.000456{:03d}"),
                                          ("TIME_NS", "10:00:00.000456{:03d}")])
@pytest.mark.parametrize("cap", [None, 2])
def test_a_duckdb_by_of_nanoseconds_keeps_every_key(column, text, cap):
    """Python's datetime holds microseconds: keys 10:00:00.000456001 … 004 came back as one key, whose
    bins overwrote each other (n = 20 of 100 rows, capped: the pooled slice's AUC counted the kept key's
    rows). The oracle: the same slices keyed by integers."""
    rng = np.random.default_rng(0)
    rows = [(float(rng.uniform()), int(rng.uniform() < 0.5), text.format(i % 5), i % 5) for i in range(100)]
    con = duckdb.connect()
    con.execute(f"CREATE TABLE t (p DOUBLE, y INTEGER, g {column}, k INTEGER)")
    insert_rows(con, "INSERT INTO t VALUES", f"(?, ?, CAST(? AS {column}), ?)", rows)
    got = vc.audit(con, table="t", score="p", label="y", by="g", max_groups=cap, min_count=1)
    want = vc.audit(con, table="t", score="p", label="y", by="k", max_groups=cap, min_count=1)
    assert len(got.groups) == len(want.groups) == (5 if cap is None else 2)
    assert [a.n for a in got.groups.values()] == [b.n for b in want.groups.values()]
    for a, b in zip(got.groups.values(), want.groups.values()):
        assert a.auc == pytest.approx(b.auc, abs=1e-12) and a.ece == pytest.approx(b.ece, abs=1e-12)


def test_two_database_keys_that_are_one_python_key_are_refused_not_overwritten():
    """A DuckDB UNION(INTEGER, DOUBLE) holds 1 and 1.0 apart; Python's 1 == 1.0 made them one slice whose
    shared bin kept the sums of one of them: n = 3 of 5 rows, silently."""
    con = duckdb.connect()
    con.execute("CREATE TABLE t (p DOUBLE, y INTEGER, g UNION(i INTEGER, d DOUBLE))")
    con.execute("INSERT INTO t VALUES (0.2, 0, 1::INTEGER), (0.21, 1, 1.0::DOUBLE), (0.22, 1, 1::INTEGER), "
                "(0.23, 0, 1.0::DOUBLE), (0.9, 1, 2::INTEGER)")
    with pytest.raises(vc.VeracityError, match=r"by='g': two values of the column come back as one Python value "
                                               r"\(1 and 1\.0\), so their slices cannot be told apart"):
        vc.audit(con, table="t", score="p", label="y", by="g", min_count=1)
