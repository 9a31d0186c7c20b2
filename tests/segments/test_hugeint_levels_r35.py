"""A DuckDB ``HUGEINT`` / ``UHUGEINT`` feature (a CSV's integers beyond int64 are read as HUGEINT) came back
from DuckDB as ``Decimal`` values, read as float64: ids 2**53 and 2**53 + 1 were one segment of both
ids' rows, named by one of them (r35). Now kept exact as int64 levels, the segments of the same ids as an
int64 column's, and integers beyond int64 are refused in one line (as arrays refuse them), in SQL words."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import veracity as vc

duckdb = pytest.importorskip("duckdb")

BIG = 2**53


def _frame(n: int = 600, seed: int = 35):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.1, 0.9, n)
    k = np.arange(n) % 3
    y = (rng.uniform(size=n) < np.clip(p + np.where(k == 1, 0.15, 0.0), 0, 1)).astype(int)
    return pd.DataFrame({"p": p, "y": y, "k": k})


def _rows(res):
    return sorted((r.segment, r.n, r.p_value) for r in res.rows)


@pytest.mark.parametrize("sql_type", ["HUGEINT", "UHUGEINT"])
@pytest.mark.parametrize("base", [BIG, BIG + 1, 2**62])
def test_wide_integer_ids_stay_apart(sql_type, base):
    df = _frame()
    con = duckdb.connect()
    con.register("df", df)
    rel = con.sql(f"SELECT p, y, (k + {base})::{sql_type} AS id FROM df")
    got = vc.segments(rel, score="p", label="y", features=["id"], min_count=10)
    # the arrays' answer on the same ids as int64
    want = vc.segments(df["p"].to_numpy(), df["y"].to_numpy(),
                       features={"id": df["k"].to_numpy().astype(np.int64) + base}, min_count=10)
    assert [r.n for r in got.rows] and sorted(r.n for r in got.rows) == [200, 200, 200]
    assert sorted(got.levels["id"]) == sorted(str(base + i) for i in range(3))
    assert [(s, n) for s, n, _ in _rows(got)] == [(s, n) for s, n, _ in _rows(want)]
    np.testing.assert_allclose([q for *_, q in _rows(got)], [q for *_, q in _rows(want)], rtol=1e-9)


def test_negative_hugeint_ids_named_by_their_own_value():
    df = _frame()
    con = duckdb.connect()
    con.register("df", df)
    rel = con.sql(f"SELECT p, y, (-{BIG} - 1 - k)::HUGEINT AS id FROM df")
    got = vc.segments(rel, score="p", label="y", features=["id"], min_count=10)
    assert sorted(got.levels["id"]) == sorted(str(-BIG - 1 - i) for i in range(3))
    assert sorted(r.n for r in got.rows) == [200, 200, 200]


def test_csv_ids_beyond_int64_are_refused_not_merged(tmp_path, error_line):
    df = _frame()
    path = tmp_path / "ids.csv"
    pd.DataFrame({"p": df["p"], "y": df["y"], "id": [str(2**64 - 3 + int(k)) for k in df["k"]]}).to_csv(
        path, index=False)
    message = error_line(lambda: vc.segments(str(path), score="p", label="y", features=["id"], min_count=10))
    assert "beyond 2**63 - 1" in message and 'CAST("id" AS VARCHAR)' in message


def test_cli_csv_ids_beyond_int64_refused(tmp_path, cli, refused):
    df = _frame()
    path = tmp_path / "ids.csv"
    pd.DataFrame({"p": df["p"], "y": df["y"], "id": [str(2**64 - 3 + int(k)) for k in df["k"]]}).to_csv(
        path, index=False)
    refused(cli(["segments", path, "--score", "p", "--label", "y", "--features", "id", "--min-count", "10"]),
            r"feature 'id' holds integers beyond 2\*\*63 - 1")


def test_wide_integer_feature_binned_as_the_int64_column():
    rng = np.random.default_rng(35)
    n = 2000
    p = rng.uniform(0.1, 0.9, n)
    y = (rng.uniform(size=n) < p).astype(int)
    k = rng.integers(0, 37, n)
    con = duckdb.connect()
    con.register("df", pd.DataFrame({"p": p, "y": y, "k": k}))
    base = 2**60 + 1
    rel = con.sql(f"SELECT p, y, (k * 3 + {base})::HUGEINT AS id FROM df")
    got = vc.segments(rel, score="p", label="y", features=["id"], min_count=10)
    want = vc.segments(p, y, features={"id": k.astype(np.int64) * 3 + base}, min_count=10)
    assert got.levels == want.levels and len(got.levels["id"]) == 5
    assert [(r.segment, r.n) for r in got.rows] == [(r.segment, r.n) for r in want.rows]
