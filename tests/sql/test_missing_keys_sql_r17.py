"""PostgreSQL: a NaN slice key (DOUBLE PRECISION or NUMERIC) and a NULL one are one slice, ``(missing)``,
as on every other route (tests/sources/test_missing_keys_r17.py covers DuckDB and SQLite).

Before (HEAD 5886e42): ``{'1.0': 92, 'nan': 115, 'None': 93}`` for both column types, and under
``max_groups=2`` the NaN key (115 rows) was kept as the largest where the missing key has 208.
"""

from __future__ import annotations

import decimal

import numpy as np
import pytest

import veracity as vc

N = 300
RNG = np.random.default_rng(1718)
P = RNG.random(N)
Y = (RNG.random(N) < P).astype(np.int64)
K = RNG.integers(0, 3, N)  # 0: a value; 1: NULL; 2: NaN


@pytest.fixture(scope="module")
def table(pg_conn):
    pg_conn.execute("DROP TABLE IF EXISTS missing_keys_r17")
    pg_conn.execute("CREATE TABLE missing_keys_r17 (p DOUBLE PRECISION, y BIGINT, h DOUBLE PRECISION, "
                    "d NUMERIC)")
    numeric = [decimal.Decimal("1.5"), None, decimal.Decimal("NaN")]
    double = [1.0, None, float("nan")]
    rows = [(float(P[i]), int(Y[i]), double[k], numeric[k]) for i, k in enumerate(K.tolist())]
    with pg_conn.cursor() as cur:
        cur.executemany("INSERT INTO missing_keys_r17 VALUES (%s, %s, %s, %s)", rows)
    return "missing_keys_r17"


@pytest.mark.parametrize(("by", "value"), [("h", "1.0"), ("d", "1.5")])
@pytest.mark.parametrize("max_groups", [None, 2])
def test_postgres_nan_and_null_keys_are_one_missing_slice(pg_conn, table, by, value, max_groups):
    got = vc.audit(pg_conn, table=table, score="p", label="y", by=by, max_groups=max_groups, min_count=1)
    missing = K != 0
    assert {name: g.n for name, g in got.groups.items()} == {value: int((~missing).sum()),
                                                               "(missing)": int(missing.sum())}
    assert list(got.groups)[-1] == "(missing)"
    assert got.groups["(missing)"].ece == pytest.approx(vc.audit(P[missing], Y[missing]).ece, rel=1e-9)
