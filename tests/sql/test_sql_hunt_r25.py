"""Round 25's hunt for silent wrong answers in the SQL audit: the same table, the same numbers on every route.

ADBC's PostgreSQL driver hands a NUMERIC value back as text (``'0.8050'``, ``'nan'``) where psycopg hands a
``Decimal``: the audit read such a column as text, so a NUMERIC score, weight or label column was refused
through ADBC though psycopg audits it, and a NUMERIC ``by=`` came back as slices of text (sorted as text,
its NaN a slice of its own rather than the missing key). The oracle is the in-memory audit of the same
values (``vc.audit`` of arrays).
"""

from __future__ import annotations

import decimal

import numpy as np
import pytest

import veracity as vc

from .conftest import load

N = 120


def _data() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(25)
    p = np.round(rng.uniform(size=N), 4)  # exact in NUMERIC(10, 4)
    y = (rng.uniform(size=N) < p).astype(np.int64)
    w = np.round(rng.uniform(0, 3, size=N), 3)
    w[:4] = 0.0
    return {"p": p, "y": y, "w": w}


def _adbc(pg_uri: str):
    dbapi = pytest.importorskip("adbc_driver_postgresql.dbapi",
                                reason="ADBC is optional (pip install adbc-driver-postgresql)")
    return dbapi.connect(pg_uri)


def _numbers(result: vc.AuditResult) -> list[float]:
    s = result.table.stats
    return [result.n, result.total_weight, result.brier, result.ece, result.mce, result.nll,
            result.accuracy, result.auc, *np.asarray(s.count, dtype=float), *np.asarray(s.sum_p, dtype=float)]


def _same(got: vc.AuditResult, want: vc.AuditResult) -> None:
    np.testing.assert_allclose(_numbers(got), _numbers(want), rtol=1e-12, atol=1e-12)


@pytest.fixture(scope="module")
def numeric_table(pg_conn) -> dict[str, np.ndarray]:
    d = _data()
    pg_conn.execute('DROP TABLE IF EXISTS "hunt_numeric"')
    pg_conn.execute('CREATE TABLE "hunt_numeric" (p NUMERIC(10, 4), y NUMERIC, w NUMERIC(8, 3), yn NUMERIC(3, 1))')
    with pg_conn.cursor() as cur:
        cur.executemany('INSERT INTO "hunt_numeric" VALUES (%s, %s, %s, %s)',
                        [(decimal.Decimal(f"{p:.4f}"), int(y), decimal.Decimal(f"{w:.3f}"), decimal.Decimal(f"{y}.0"))
                         for p, y, w in zip(d["p"], d["y"], d["w"])])
    return d


def test_adbc_postgres_reads_numeric_scores_weights_and_labels_as_numbers(pg_uri, pg_conn, numeric_table):
    d = numeric_table
    want = vc.audit(d["p"], d["y"], sample_weight=d["w"], min_count=1)
    with _adbc(pg_uri) as conn:
        _same(vc.audit(conn, table="hunt_numeric", score="p", label="y", sample_weight="w", min_count=1), want)
        _same(vc.audit(conn, table="hunt_numeric", score="p", label="yn", sample_weight="w", min_count=1), want)
    # psycopg, the same table: the route ADBC now agrees with
    _same(vc.audit(pg_conn, table="hunt_numeric", score="p", label="y", sample_weight="w", min_count=1), want)


def test_adbc_postgres_pos_label_names_a_numeric_label(pg_uri, numeric_table):
    d = numeric_table
    want = vc.audit(d["p"], 1 - d["y"], min_count=1)
    with _adbc(pg_uri) as conn:
        _same(vc.audit(conn, table="hunt_numeric", score="p", label="y", pos_label=0, min_count=1), want)
        _same(vc.audit(conn, table="hunt_numeric", score="p", label="yn", pos_label=0, min_count=1), want)


def test_adbc_postgres_numeric_slices_are_numbers_with_nan_missing(pg_uri, pg_conn):
    """A NUMERIC ``by=`` through ADBC: the slices of psycopg and of the arrays (numeric order, 10.5 after
    9; NaN and NULL the one missing slice), not text keys ('10.5' before '9', a slice named 'nan')."""
    rng = np.random.default_rng(7)
    d = _data()
    codes = rng.integers(0, 5, size=N)
    spelt = np.array(["9", "10.5", "NaN", None, "2"], dtype=object)[codes]
    pg_conn.execute('DROP TABLE IF EXISTS "hunt_numeric_by"')
    pg_conn.execute('CREATE TABLE "hunt_numeric_by" (p DOUBLE PRECISION, y INTEGER, g NUMERIC)')
    with pg_conn.cursor() as cur:
        cur.executemany('INSERT INTO "hunt_numeric_by" VALUES (%s, %s, %s)',
                        [(float(p), int(y), None if g is None else decimal.Decimal(g))
                         for p, y, g in zip(d["p"], d["y"], spelt)])
    keys = np.array([np.nan if g in (None, "NaN") else decimal.Decimal(g) for g in spelt], dtype=object)
    want = vc.audit(d["p"], d["y"], by={"g": keys}, min_count=1)
    with _adbc(pg_uri) as conn:
        got = vc.audit(conn, table="hunt_numeric_by", score="p", label="y", by="g", min_count=1)
        capped = vc.audit(conn, table="hunt_numeric_by", score="p", label="y", by="g", min_count=1, max_groups=3)
    assert list(got.groups) == list(want.groups) == ["2", "9", "10.5", "(missing)"]
    for name in want.groups:
        _same(got.groups[name], want.groups[name])
    _same(got, want)
    psycopg_capped = vc.audit(pg_conn, table="hunt_numeric_by", score="p", label="y", by="g", min_count=1,
                              max_groups=3)
    assert list(capped.groups) == list(psycopg_capped.groups)
    for name in capped.groups:
        _same(capped.groups[name], psycopg_capped.groups[name])


def test_a_decimal_nan_slice_key_is_the_missing_key_in_memory():
    """``pd.read_sql`` of a PostgreSQL NUMERIC ``by=`` column holds ``Decimal('NaN')``: the frame form reads
    it as missing, the SQL form too; the array form refuses it ("two slice keys, Decimal('NaN') and
    Decimal('NaN'), are both named 'NaN'") because a Decimal NaN is not equal to itself."""
    d = _data()
    keys = np.array([decimal.Decimal("NaN") if i % 3 == 0 else decimal.Decimal(i % 2) for i in range(N)], dtype=object)
    floats = np.array([np.nan if i % 3 == 0 else float(i % 2) for i in range(N)], dtype=object)
    got = vc.audit(d["p"], d["y"], by={"g": keys}, min_count=1)
    want = vc.audit(d["p"], d["y"], by={"g": floats}, min_count=1)
    assert "(missing)" in got.groups
    _same(got.groups["(missing)"], want.groups["(missing)"])


# -- single-precision slice keys: named as the float32 they are, and found again by the database's cap -------
def _float32_data() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(18)
    n = 400
    p = rng.uniform(size=n)
    y = (rng.uniform(size=n) < p).astype(np.int64)
    values = np.round(np.arange(1, 21) * 0.1, 1)  # 20 keys: over the cap's 4 × cap × bins, pooled in the database
    g = rng.choice(values, p=np.r_[0.3, 0.2, np.full(18, 0.5 / 18)], size=n).astype(np.float32)
    return p, y, g


def _real_table(engine: str, conn) -> None:
    p, y, g = _float32_data()
    load(engine, conn, "hunt_real_by", {"p": p, "y": y, "g": g.astype(np.float64)})
    conn.execute('DROP TABLE IF EXISTS "hunt_real"')
    conn.execute('CREATE TABLE "hunt_real" AS SELECT p, y, CAST(g AS REAL) AS g FROM "hunt_real_by"')


def _check_float32_slices(conn) -> None:
    """The slices of a REAL ``by=`` are the array form's of the float32 keys: named ``0.1`` (not
    ``0.10000000149011612``), and with the cap applied in the database each kept key's rows are its own
    (a key written as the double 0.1 matched no REAL row: every row went to the pooled slice)."""
    p, y, g = _float32_data()
    for cap in (None, 3, 2):
        want = vc.audit(p, y, by={"g": g}, bins=1, min_count=1, max_groups=cap)
        got = vc.audit(conn, table="hunt_real", score="p", label="y", by="g", bins=1, min_count=1, max_groups=cap)
        assert list(got.groups) == list(want.groups)
        for name in want.groups:
            _same(got.groups[name], want.groups[name])


def test_duckdb_real_slices_are_named_and_capped_as_float32():
    duckdb = pytest.importorskip("duckdb")
    conn = duckdb.connect()
    _real_table("duckdb", conn)
    _check_float32_slices(conn)


def test_postgres_real_slices_are_named_and_capped_as_float32(pg_uri, pg_conn):
    _real_table("postgres", pg_conn)
    _check_float32_slices(pg_conn)
    with _adbc(pg_uri) as conn:
        _check_float32_slices(conn)


def test_adbc_interval_slices_capped_in_the_database(pg_uri, pg_conn):
    """ADBC hands an INTERVAL back as Arrow's MonthDayNano, a duration key (``numpy.timedelta64``, a numpy
    integer): a kept key was written into the cap's query as an integer ("operator does not exist: interval
    = integer"). Its rows are now found again: the capped slices hold the uncapped slices' rows."""
    rng = np.random.default_rng(3)
    d = _data()
    days = np.minimum(rng.geometric(0.3, size=N), 12)
    pg_conn.execute('DROP TABLE IF EXISTS "hunt_interval"')
    pg_conn.execute('CREATE TABLE "hunt_interval" (p DOUBLE PRECISION, y INTEGER, g INTERVAL)')
    with pg_conn.cursor() as cur:
        cur.executemany('INSERT INTO "hunt_interval" VALUES (%s, %s, make_interval(days => %s))',
                        [(float(p), int(y), int(k)) for p, y, k in zip(d["p"], d["y"], days)])
    with _adbc(pg_uri) as conn:
        whole = vc.audit(conn, table="hunt_interval", score="p", label="y", by="g", bins=1, min_count=1)
        capped = vc.audit(conn, table="hunt_interval", score="p", label="y", by="g", bins=1, min_count=1,
                          max_groups=2)
    assert len(whole.groups) > 8  # more than 4 × cap × bins: the cap is applied in the database
    biggest = max(whole.groups, key=lambda k: whole.groups[k].n)
    assert list(capped.groups)[0] == biggest
    _same(capped.groups[biggest], whole.groups[biggest])
    other = list(capped.groups)[1]
    assert capped.groups[other].n == N - whole.groups[biggest].n
