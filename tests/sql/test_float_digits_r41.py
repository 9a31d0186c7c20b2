"""PostgreSQL's ``extra_float_digits`` below 1 (session 41).

psycopg reads a double as the text PostgreSQL sends, whose digits ``extra_float_digits`` decides: the default
1 sends the shortest exact text, 0 fifteen significant digits, -15 one. Every double the audit fetched (the
per-bin sums, the weighted AUC's parts, the AUC's numerator) was rounded so: at -15 the ECE was 0.006 off and
the AUC 0.05 off, silently (at -5, 3e-12 and 4e-11 off the in-memory audit, past the promised 1e-12). The
audit now raises the session's setting to 3 while it runs and sets it back.
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc

from .conftest import load


def _columns(n: int = 400, seed: int = 41) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    return {"p": p, "y": (rng.random(n) < p).astype(np.int64), "w": rng.random(n),
            "g": rng.choice(np.array(["a", "b"]), n)}


@pytest.mark.parametrize("digits", ["-15", "-5", "0"])
@pytest.mark.parametrize("weighted", [False, True])
def test_the_audit_reads_exact_doubles_whatever_extra_float_digits_says(pg_conn, digits, weighted):
    cols = _columns()
    load("postgres", pg_conn, "efd", cols)
    weight = "w" if weighted else None
    pd = pytest.importorskip("pandas")
    expected = vc.audit(pd.DataFrame(cols), score="p", label="y", sample_weight=weight, by="g",
                        strategy="quantile")
    pg_conn.execute(f"SET extra_float_digits = {digits}")
    try:
        got = vc.audit_sql(pg_conn, table="efd", score="p", label="y", sample_weight=weight, by="g",
                           strategy="quantile")
        after = pg_conn.execute("SHOW extra_float_digits").fetchone()[0]
    finally:
        pg_conn.execute("RESET extra_float_digits")
    assert after == digits  # the session's setting set back
    assert abs(got.ece - expected.ece) < 1e-12 and abs(got.brier - expected.brier) < 1e-12
    assert abs(got.auc - expected.auc) < 1e-12 and abs(got.nll - expected.nll) < 1e-12
    for key, part in expected.groups.items():
        assert abs(got.groups[key].ece - part.ece) < 1e-12 and abs(got.groups[key].auc - part.auc) < 1e-12
    assert str(got) == str(expected)


def test_inside_the_caller_s_transaction_the_setting_and_the_work_are_kept(pg_uri):
    import psycopg

    cols = _columns(200)
    with psycopg.connect(pg_uri, autocommit=True) as setup:
        load("postgres", setup, "efd_tx", cols)
    conn = psycopg.connect(pg_uri)  # not autocommit: the caller's transaction
    try:
        conn.execute("SET extra_float_digits = -10")
        conn.execute("CREATE TEMP TABLE mine (x int)")
        conn.execute("INSERT INTO mine VALUES (7)")  # uncommitted work
        with pytest.raises(vc.VeracityError, match="sample_weight"):  # a failing audit sets it back too
            vc.audit_sql(conn, table="efd_tx", score="p", label="y", sample_weight="g")
        got = vc.audit_sql(conn, table="efd_tx", score="p", label="y")
        assert conn.execute("SHOW extra_float_digits").fetchone()[0] == "-10"
        assert conn.execute("SELECT x FROM mine").fetchone()[0] == 7
        conn.rollback()
    finally:
        conn.close()
    assert abs(got.ece - vc.audit(cols["p"], cols["y"]).ece) < 1e-12
