"""Amazon Redshift rounds every double it sends to 15 + ``extra_float_digits`` significant digits, default 0
(at most 2): its audit read rounded per-bin sums, equal-mass edges off the scores they are, exactly as
PostgreSQL's before session 41 raised the setting there (round 42). Now, on a ``dialect="redshift"``
connection, the audit raises a setting below 2 to 2 (17 digits: exact) and sets it back.

No Redshift here: a PostgreSQL server speaks the same protocol and setting (on PostgreSQL 12+, any value of 1
or more sends exact text, so 2 is exact there too), and the audit is told the connection is Redshift's."""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc

from .conftest import load


def _columns(n: int = 400, seed: int = 42) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    return {"p": p, "y": (rng.random(n) < p).astype(np.int64), "w": rng.random(n)}


@pytest.mark.parametrize("digits", ["0", "1"])
def test_a_redshift_session_reads_exact_doubles(pg_conn, digits):
    cols = _columns()
    load("postgres", pg_conn, "efd_rs", cols)
    pd = pytest.importorskip("pandas")
    expected = vc.audit(pd.DataFrame(cols), score="p", label="y", sample_weight="w", strategy="quantile")
    seen = []

    class Cursor:  # the driver's cursor, recording the settings the audit sets
        def __init__(self, cur):
            self._cur = cur

        def execute(self, sql, *args):
            if "set_config" in sql:
                seen.append(sql)
            return self._cur.execute(sql, *args)

        def __getattr__(self, name):
            return getattr(self._cur, name)

    class Spy:  # the connection as the audit sees it
        def __init__(self, conn):
            self._conn = conn

        def cursor(self):
            return Cursor(self._conn.cursor())

    pg_conn.execute(f"SET extra_float_digits = {digits}")
    try:
        got = vc.audit_sql(Spy(pg_conn), table="efd_rs", score="p", label="y", sample_weight="w",
                           strategy="quantile", dialect="redshift")
        after = pg_conn.execute("SHOW extra_float_digits").fetchone()[0]
    finally:
        pg_conn.execute("RESET extra_float_digits")
    assert after == digits  # set back
    assert any("'extra_float_digits', '2'" in s for s in seen), seen  # Redshift's largest value, not 3
    assert abs(got.ece - expected.ece) < 1e-12 and abs(got.brier - expected.brier) < 1e-12
    assert abs(got.auc - expected.auc) < 1e-12
    assert str(got) == str(expected)
