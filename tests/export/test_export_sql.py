"""Every calibrator's SQL, run on real engines, equals ``transform()`` to 1e-12 (issue 27).

One query per engine computes every calibrator's output over the same 10^5 hostile rows
(ties, every knot and its neighbouring doubles, 0 and 1, subnormals, logits to +-1e4,
one-hot multiclass rows); each block of columns is compared with the calibrator's own
``transform`` (then ``vc.adjust_prior`` where a prior shift is exported). BigQuery,
Snowflake and Trino have no engine here: their text is parsed back with sqlglot.
"""

from __future__ import annotations

import sqlite3
from typing import Any

import numpy as np
import pytest

import veracity as vc
from veracity.export import DIALECTS, to_sql

from .conftest import columns, expected_once, frame, zoo_text

TOL = 1e-12


def _text(calibrators: dict, name: str, dialect: str, alias: str = "probability") -> str:
    """``to_sql(cal, columns(col), dialect=dialect, prior_shift=prior, alias=alias)`` of the zoo's ``name``
    (``cal.to_sql`` is that same call), written once per (calibrator, dialect, alias) for every test of the
    worker (:func:`.conftest.zoo_text`: the engine, parse-back and shape tests all read them)."""
    return zoo_text(calibrators, name, dialect, alias)


def _items(calibrators: dict, dialect: str) -> tuple[list[str], list[tuple[str, int]]]:
    """Select items (one per output column, named o<i>_<k>) and (name, width) per calibrator."""
    items, blocks = [], []
    for i, (name, (cal, col, prior)) in enumerate(calibrators.items()):
        text = _text(calibrators, name, dialect, alias=f"o{i}")
        width = 1 if col in ("p", "s") else len(columns(col))
        items.append(text if width > 1 else f'{text} AS "o{i}"' if dialect != "spark" else f"{text} AS `o{i}`")
        blocks.append((name, width))
    return items, blocks


def _check(got: np.ndarray, calibrators: dict, blocks: list[tuple[str, int]], data: dict, engine: str) -> None:
    at = 0
    worst = {}
    for (name, width), (cal, col, prior) in zip(blocks, calibrators.values()):
        want = expected_once(cal, col, prior, data)  # computed once for the engines and ONNX
        part = got[:, at:at + width]
        at += width
        assert part.shape == want.shape, (name, part.shape, want.shape)
        err = np.abs(part - want)
        worst[name] = float(np.nanmax(err))
        bad = np.flatnonzero((err > TOL).any(axis=1) | np.isnan(part).any(axis=1))
        assert bad.size == 0, (
            f"{engine}: {name} differs from transform() on {bad.size} rows; first row {bad[0]}: "
            f"input {data[col][bad[0]]!r}, sql {part[bad[0]]!r}, transform {want[bad[0]]!r}")
    assert at == got.shape[1]


def _query(items: list[str], quote: str = '"') -> str:
    return "SELECT " + ",\n".join(items) + f" FROM t ORDER BY {quote}id{quote}"


def test_duckdb(calibrators, eval_data):
    duckdb = pytest.importorskip("duckdb")
    items, blocks = _items(calibrators, "duckdb")
    con = duckdb.connect()
    con.register("t_frame", frame(eval_data))
    con.execute("CREATE TABLE t AS SELECT * FROM t_frame")
    got = con.execute(_query(items)).df().to_numpy(dtype=np.float64)
    _check(got, calibrators, blocks, eval_data, "duckdb")


def test_sqlite(calibrators, eval_data):
    items, blocks = _items(calibrators, "sqlite")
    df = frame(eval_data)
    con = sqlite3.connect(":memory:")
    if con.execute("SELECT sqlite_version()").fetchone()[0] < "3.35":
        pytest.skip("SQLite < 3.35 has no math functions (exp, ln)")
    cols = ", ".join(f'"{c}" {"INTEGER" if c == "id" else "REAL"}' for c in df.columns)
    con.execute(f"CREATE TABLE t ({cols})")
    # the columns as Python ints and floats, a row a tuple (``df.astype(object).itertuples()`` took as long as
    # the insert)
    con.executemany(f"INSERT INTO t VALUES ({', '.join('?' * df.shape[1])})",
                    zip(*(df[c].to_numpy().tolist() for c in df.columns)))
    got = np.array(con.execute(_query(items)).fetchall(), dtype=np.float64)
    _check(got, calibrators, blocks, eval_data, "sqlite")


def test_postgres(calibrators, eval_data, postgres):
    import psycopg

    items, blocks = _items(calibrators, "postgres")
    df = frame(eval_data)
    with psycopg.connect(postgres.get_uri(), autocommit=True) as con:
        con.execute("DROP TABLE IF EXISTS t")
        cols = ", ".join(f'"{c}" {"bigint" if c == "id" else "double precision"}' for c in df.columns)
        con.execute(f"CREATE TABLE t ({cols})")
        with con.cursor().copy("COPY t FROM STDIN (FORMAT BINARY)") as copy:
            copy.write(_copy_binary(df))
        # the whole result travels in COPY's binary format: each float8 its 8 bytes, read by numpy (as text,
        # 6.5 million Python floats were a third of the test's time)
        with con.cursor().copy(f"COPY ({_query(items)}) TO STDOUT (FORMAT BINARY)") as copy:
            got = _read_copy_binary(b"".join(bytes(block) for block in copy))
    _check(got, calibrators, blocks, eval_data, "postgres")


#: PostgreSQL's binary COPY: the signature, the flags and the header extension's length (both 0)
_PGCOPY = b"PGCOPY\n\xff\r\n\x00" + bytes(8)


def _copy_binary(df: Any) -> bytes:
    """``df`` (an int64 ``id``, float64 columns) as COPY's binary format: per row the field count, then
    each field's length (8) and its 8 bytes in network order; the trailer -1."""
    fields = [(f"v{j}", ">i8" if str(df[c].dtype) == "int64" else ">f8") for j, c in enumerate(df.columns)]
    layout = [("n", ">i2")] + [x for j, f in enumerate(fields) for x in ((f"l{j}", ">i4"), f)]
    rows = np.empty(len(df), dtype=layout)
    rows["n"] = df.shape[1]
    for j, c in enumerate(df.columns):
        rows[f"l{j}"] = 8
        rows[f"v{j}"] = df[c].to_numpy()
    return _PGCOPY + rows.tobytes() + b"\xff\xff"


def _read_copy_binary(raw: bytes) -> np.ndarray:
    """The float8 columns of a binary COPY output as an (N, K) array; a NULL (length -1) is NaN, which
    :func:`_check` reports with its row."""
    assert raw[:len(_PGCOPY)] == _PGCOPY and raw[-2:] == b"\xff\xff", raw[:32]
    body = raw[len(_PGCOPY):-2]
    k = int(np.frombuffer(body[:2], ">i2")[0])
    row = np.dtype([("n", ">i2")] + [x for j in range(k) for x in ((f"l{j}", ">i4"), (f"v{j}", ">f8"))])
    if len(body) % row.itemsize == 0:
        rows = np.frombuffer(body, row)
        if (rows["n"] == k).all() and all((rows[f"l{j}"] == 8).all() for j in range(k)):
            return np.column_stack([rows[f"v{j}"].astype(np.float64) for j in range(k)])
    out, at = [], 0  # rows with NULLs (shorter fields): one by one
    while at < len(body):
        n = int.from_bytes(body[at:at + 2], "big", signed=True)
        at += 2
        values = []
        for _ in range(n):
            size = int.from_bytes(body[at:at + 4], "big", signed=True)
            at += 4
            values.append(np.nan if size < 0 else float(np.frombuffer(body[at:at + 8], ">f8")[0]))
            at += max(size, 0)
        out.append(values)
    return np.array(out, dtype=np.float64)


#: calibrators that get a Spark query of their own (each is slow for Spark to plan, or a multiclass head
#: whose generated code is large); the other single-score maps share one query
_SPARK_ALONE = ("isotonic-linear", "isotonic-1000-linear", "matrix-P", "matrix-Z", "ovr-platt-P",
                "ovr-isotonic-P", "ovr-beta-P", "temperature-P", "ovr-platt-Z")


def _spark_queries(calibrators: dict) -> list[list[int]]:
    """Indices of the calibrators (in zoo order) evaluated together: one query for every single-score
    map but the slow ones, one for the small multiclass heads, one for each of the rest. Every
    calibrator is in exactly one query."""
    names = list(calibrators)
    shared = [i for i, n in enumerate(names) if n not in _SPARK_ALONE and calibrators[n][1] in ("p", "s")]
    small = [i for i, n in enumerate(names) if n not in _SPARK_ALONE and calibrators[n][1] not in ("p", "s")]
    alone = [[i] for i, n in enumerate(names) if n in _SPARK_ALONE]
    queries = [q for q in (shared, small) if q] + alone
    assert sorted(i for q in queries for i in q) == list(range(len(names)))
    return queries


def test_spark(calibrators, eval_data, spark):
    """A few queries, not one (Spark's optimizer slows down sharply on one tree holding every
    calibrator, and one query's generated code for several multiclass heads outgrows the JVM's
    64 KB method limit): the single-score maps share one query, the small multiclass heads
    another, the slow ones (:data:`_SPARK_ALONE`) one each -- each Spark job costs its own
    planning and scan, so fewer queries cost less (measured: 30 s of CPU, JVM included, for
    one query per calibrator, 24 s grouped). With Spark's expression code generation (the
    session fixture turns it off for the many small queries of other tests; here the
    multiclass outputs, interpreted, cost twice as long on 10^5 rows) but not whole-stage code
    generation: the same generated Java for every expression, without fusing the scan and the
    projection into one method, which on these long projections runs slower (measured on this
    zoo in a fresh JVM: 33 s of the JVM's CPU whole-stage vs 26 s). Rows are put back in order
    here rather than by a distributed sort."""
    items, blocks = _items(calibrators, "spark")
    conf = {"spark.sql.execution.arrow.pyspark.enabled": "true", "spark.sql.codegen.wholeStage": "false",
            "spark.sql.codegen.factoryMode": "FALLBACK"}
    before = {k: spark.conf.get(k, None) for k in conf}
    for k, v in conf.items():
        spark.conf.set(k, v)
    parts: dict[int, np.ndarray] = {}
    try:
        spark.createDataFrame(frame(eval_data)).cache().createOrReplaceTempView("t")
        for query in _spark_queries(calibrators):
            got = spark.sql(f"SELECT `id`, {', '.join(items[i] for i in query)} FROM t").toPandas()
            got = got.to_numpy(dtype=np.float64)
            got = got[np.argsort(got[:, 0], kind="stable"), 1:]
            at = 0
            for i in query:
                width = blocks[i][1]
                parts[i] = got[:, at:at + width]
                at += width
            assert at == got.shape[1]
    finally:
        for k, v in before.items():
            spark.conf.unset(k) if v is None else spark.conf.set(k, v)
    _check(np.hstack([parts[i] for i in range(len(items))]), calibrators, blocks, eval_data, "spark")


@pytest.mark.parametrize("dialect", ["bigquery", "snowflake", "trino"])
def test_text_parses_back(calibrators, dialect):
    """No engine here: sqlglot reads each text back as one expression over the named columns."""
    import sqlglot
    from sqlglot import exp

    for name, (cal, col, prior) in calibrators.items():
        text = _text(calibrators, name, dialect)
        assert text.startswith("/* veracity "), name
        if len(text) > 60_000:  # the long step tables (sqlglot's Python tokenizer reads ~1 MB/s)
            continue
        tree = sqlglot.parse_one(f"SELECT {text} FROM t", read=dialect)
        assert isinstance(tree, exp.Select)
        want = {col} if col in ("p", "s") else set(columns(col))
        assert {c.name for c in tree.find_all(exp.Column)} == want, name
        assert len(tree.expressions) == len(want)
        if col in ("p", "s"):  # written again, it reads the same: the text is what sqlglot writes
            assert sqlglot.parse_one(tree.sql(dialect=dialect), read=dialect) == tree, name


def test_every_dialect_quotes_and_comments(calibrators):
    cal = calibrators["platt-p"][0]
    for dialect in DIALECTS:
        text = cal.to_sql("p", dialect=dialect)
        first, _, body = text.partition("\n")
        assert first.startswith("/* veracity platt calibrator; fit rows: 3000; score type: probability")
        assert "fit window: 2026-01..2026-03" in first and first.endswith("*/")
        assert ("`p`" if dialect in ("spark", "bigquery") else '"p"') in body
        assert "--" not in body


def test_multiclass_shape(calibrators):
    cal = calibrators["matrix-P"][0]
    text = cal.to_sql("P", dialect="duckdb")  # a prefix: P_0 .. P_3
    import sqlglot

    tree = sqlglot.parse_one("SELECT " + text, read="duckdb")
    assert [e.alias for e in tree.expressions] == [f"probability_{k}" for k in range(4)]
    assert {c.name for c in tree.find_all(sqlglot.exp.Column)} == {f"P_{k}" for k in range(4)}


def test_output_is_null_for_null_scores(calibrators):
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    for name in ("platt-p", "isotonic-1000-step", "histogram-p"):
        sql = calibrators[name][0].to_sql("p")
        assert con.execute(f"SELECT {sql} FROM (VALUES (NULL::DOUBLE)) v(p)").fetchone() == (None,), name
    sql = calibrators["matrix-P"][0].to_sql(["a", "b", "c", "d"])
    row = con.execute(f"SELECT {sql} FROM (VALUES (0.5, NULL::DOUBLE, 0.25, 0.25)) v(a, b, c, d)").fetchone()
    assert row == (None, None, None, None)


def test_prior_shift_folds_into_the_multiclass_head():
    """A prior shift on softmax or one-vs-rest outputs is written into their head (each class's
    map K times per row, not K^2), and a row whose one-vs-rest maps are all 0 (uniform before
    the shift) gets adjust_prior's (1/K)·r / Σ (1/K)·r, in SQL and in ONNX."""
    rng = np.random.default_rng(0)
    k, n = 4, 400
    y = rng.integers(0, k, n)
    P = np.full((n, k), 0.1)
    P[np.arange(n), y] = 0.7
    prior = ([0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1])
    X = np.vstack([np.full((2, k), 0.25), P[:50], rng.dirichlet(np.ones(k), 50)])
    names = ["a", "b", "c", "d"]
    con = sqlite3.connect(":memory:")
    if con.execute("SELECT sqlite_version()").fetchone()[0] < "3.35":
        pytest.skip("SQLite < 3.35 has no math functions (exp, ln)")
    con.execute("CREATE TABLE t (a REAL, b REAL, c REAL, d REAL)")
    con.executemany("INSERT INTO t VALUES (?, ?, ?, ?)", X.tolist())
    D = rng.dirichlet(np.ones(k), n)
    yd = np.array([rng.choice(k, p=row) for row in D])
    cals = {"histogram (maps all 0 on a flat row)": vc.HistogramBinning(bins=2).fit(P, y),
            "temperature": vc.TemperatureScaling().fit(D, yd)}
    for name, cal in cals.items():
        want = vc.adjust_prior(cal.transform(X), *prior)
        shifted = to_sql(cal, names, dialect="sqlite", prior_shift=prior)
        plain = to_sql(cal, names, dialect="sqlite")
        assert len(shifted) < 1.5 * len(plain), name  # before: K times the unshifted text
        got = np.array(con.execute(f"SELECT {shifted} FROM t").fetchall(), dtype=np.float64)
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12, err_msg=name)
        try:
            import onnxruntime as ort
        except ImportError:
            continue
        sess = ort.InferenceSession(cal.to_onnx(prior_shift=prior), providers=["CPUExecutionProvider"])
        np.testing.assert_allclose(sess.run(["probability"], {"score": X})[0], want, rtol=0, atol=1e-12,
                                   err_msg=name)
    histogram = cals["histogram (maps all 0 on a flat row)"]
    assert histogram.transform(X[:1]).tolist() == [[0.25] * k]  # the flat row is the fallback's
    sql = to_sql(histogram, names, dialect="sqlite", prior_shift=prior)
    got = con.execute(f"SELECT {sql} FROM t LIMIT 1").fetchone()
    np.testing.assert_allclose(got, vc.adjust_prior(np.full((1, k), 0.25), *prior)[0], rtol=0, atol=1e-15)


def test_prior_shift_alone_is_the_seed_004_example():
    # seed 004: p = 0.8, pi_old = 0.01, pi_new = 0.10 -> LR 396, odds 44, p_new = 44/45
    con = sqlite3.connect(":memory:")
    sql = to_sql(None, "p", dialect="sqlite", prior_shift=(0.01, 0.10))
    (got,) = con.execute(f"SELECT {sql} FROM (SELECT 0.8 AS p)").fetchone()
    assert abs(got - 44 / 45) < 1e-15
    assert got == vc.adjust_prior(0.8, 0.01, 0.10)


def test_large_step_table_uses_cells_and_several_comparisons(calibrators):
    """The 1,000-knot isotonic with knots a few ulps apart: several knots share a cell."""
    text = _text(calibrators, "isotonic-1000-step", "duckdb")  # its to_sql("p", dialect="duckdb")
    assert text.count("CASE WHEN") < 10      # an array lookup, not a 1,000-branch tree
    # DuckDB: one CASE chain over per-cell arrays, a comparison for each knot a cell may hold
    # (knots 2e-16 apart share a cell: 6 here) and the piece after it; never a nested tree;
    # a score outside the cells (or NaN) takes the COALESCE's end pieces
    assert text.count("CASE WHEN") == 3 and text.count(" WHEN ") == 2 + 6
    assert text.count("TRY_CAST(") == 6 + 7 and "GREATEST" not in text  # the cell: one rounding cast
    assert text.count("(SELECT CAST('[") == 6 + 7  # each array one string the engine casts
    postgres_text = _text(calibrators, "isotonic-1000-step", "postgres")
    assert postgres_text.count("CASE WHEN") < 20  # the other array dialects: the cell index
    sqlite_text = _text(calibrators, "isotonic-1000-step", "sqlite")
    assert sqlite_text.count("CASE WHEN") > 900  # SQLite has no arrays: a balanced tree


def test_fraction_pieces_keep_the_array_lookup(calibrators):
    """The linear 1,000-knot isotonic has three subnormal gaps (no finite slope: fraction pieces).
    They are answered by their own interval test before the lookup; the rest stays a lookup,
    not a 1,000-leaf tree (which Spark's optimizer took ~20 s to plan); the numbers are checked
    on every engine by the conformance tests above."""
    for dialect in ("duckdb", "postgres", "spark", "trino"):
        text = _text(calibrators, "isotonic-1000-linear", dialect)  # its to_sql("p", dialect=dialect)
        assert text.count("CASE WHEN") < 30, dialect
        assert text.count(" / ") >= 3, dialect  # the fraction pieces, (a - x0) / (x1 - x0)
    sqlite_text = _text(calibrators, "isotonic-1000-linear", "sqlite")
    assert sqlite_text.count("CASE WHEN") > 900  # no arrays: the tree
