"""A PostgreSQL REAL label column with ``pos_label=`` (session 38).

psycopg hands a float4 back by its shortest text: 0.1f comes back as the double 0.1. So
``pos_label=0.1`` passed the "is it among the labels" check, while the SQL compared the column (read as
the double 0.10000000149011612) with 0.1 and matched no row: the audit ran with base rate 0, every row
a negative, silently; and ``pos_label=np.float32(0.1)`` (what the array form takes) was refused. The label
values are now read as the doubles they are, as DuckDB hands them and a float32 array holds them, so every
route accepts and refuses the same ``pos_label`` and gives the same audit."""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc

duckdb = pytest.importorskip("duckdb")
pd = pytest.importorskip("pandas")


@pytest.fixture(scope="module")
def rows():
    rng = np.random.default_rng(38)
    p = rng.random(120)
    labels = np.where(rng.random(120) < p, np.float32(0.1), np.float32(0.2)).astype(np.float32)
    return p, labels


@pytest.fixture(scope="module")
def pg_real(pg_conn, rows):
    p, labels = rows
    pg_conn.execute("DROP TABLE IF EXISTS t_real_r38")
    pg_conn.execute("CREATE TABLE t_real_r38 (p DOUBLE PRECISION, y REAL)")
    with pg_conn.cursor() as cur:
        cur.executemany("INSERT INTO t_real_r38 VALUES (%s, %s)", list(zip(p.tolist(), labels.tolist())))
    return pg_conn


def _outcome(call):
    try:
        return call()
    except vc.VeracityError as exc:
        return str(exc)


def _same(got, want) -> None:
    """One refusal in the same words, or audits with the same numbers (to 1e-12) and the same printout."""
    if isinstance(want, str):
        assert got == want
        return
    assert not isinstance(got, str), got
    assert str(got) == str(want)
    for name in ("base_rate", "ece", "brier", "nll", "auc"):
        assert getattr(got, name) == pytest.approx(getattr(want, name), abs=1e-12), name


@pytest.mark.parametrize("pos_label", [0.1, "0.1", 0.2, np.float32(0.1), float(np.float32(0.1)),
                                       np.float32(0.2)])
def test_postgres_real_labels_read_as_every_route_reads_them(pg_real, rows, pos_label):
    p, labels = rows
    frame = pd.DataFrame({"p": p, "y": labels})
    want = _outcome(lambda: vc.audit(frame, score="p", label="y", pos_label=pos_label))
    duck = duckdb.connect()
    duck.execute("CREATE TABLE t AS SELECT p, CAST(y AS FLOAT) AS y FROM frame")
    assert duck.execute("SELECT typeof(y) FROM t LIMIT 1").fetchone()[0] == "FLOAT"
    _same(_outcome(lambda: vc.audit(duck, table="t", score="p", label="y", pos_label=pos_label)), want)
    got = _outcome(lambda: vc.audit(pg_real, table="t_real_r38", score="p", label="y", pos_label=pos_label))
    _same(got, want)
    if not isinstance(want, str):  # the positives are counted: the base rate is the share of 0.1f (or 0.2f)
        share = float(np.mean(labels == np.float32(pos_label)))
        assert 0.2 < share < 0.8 and got.base_rate == pytest.approx(share, abs=1e-12)
    else:
        assert "is not among the values of column 'y' (labels) (0.10000000149011612" in got
