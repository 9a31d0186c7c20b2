"""Session 37: a quantile audit's bin index inside the database is a binary search over the edges.

Before, the bin index was the sum of a test per inner edge, ``CASE WHEN p >= edge THEN 1 ELSE 0 END``,
evaluated in full for every row: one comparison per edge per row (999 for 1,000 bins). Now it is a
nested ``CASE WHEN p >= edge_mid THEN <upper half> ELSE <lower half> END``: log2(edges) comparisons a
row. Every row lands in the same bin, so the audit's sums are the same numbers bit for bit.
"""

from __future__ import annotations

import math
import sqlite3

import numpy as np
import pytest

import veracity as vc
from veracity.sql import _query


def _con(p: np.ndarray, y: np.ndarray, w: np.ndarray) -> sqlite3.Connection:
    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE t (p REAL, y INTEGER, w REAL)")
    con.executemany("INSERT INTO t VALUES (?, ?, ?)", zip(p.tolist(), y.tolist(), w.tolist()))
    return con


def _depth(sql: str) -> int:
    """The deepest nesting of CASE ... END in ``sql``."""
    depth = top = 0
    for word in sql.replace("(", " ").replace(")", " ").split():
        if word == "CASE":
            depth += 1
            top = max(top, depth)
        elif word == "END":
            depth -= 1
    return top


@pytest.mark.parametrize("bins, op", [(1000, ">="), (40, ">="), (9, ">")])
def test_the_bin_index_is_a_search_of_log2_edges_comparisons(bins, op):
    cuts = np.sort(np.random.default_rng(bins).random(bins - 1)).tolist()
    sql = _query._cuts_passed(lambda c: f"_p {op} {c!r}", cuts)
    assert "END + CASE" not in sql and sql.count(f"_p {op} ") == len(cuts)  # no sum of tests
    assert _depth(sql) == math.ceil(math.log2(bins))  # the comparisons a row makes
    # the search's count is searchsorted's, on the cuts, between them and outside
    probe = np.concatenate([cuts, np.nextafter(cuts, 0.0), np.nextafter(cuts, 1.0), [-1.0, 0.5, 2.0]])
    con = sqlite3.connect(":memory:")
    got = [con.execute(f"SELECT {sql} FROM (SELECT ? AS _p)", (float(v),)).fetchone()[0] for v in probe]
    side = "right" if op == ">=" else "left"
    assert got == np.searchsorted(cuts, probe, side=side).tolist()
    assert con.execute(f"SELECT {sql} FROM (SELECT NULL AS _p)").fetchone()[0] == 0  # as the sum: bin 0


def test_a_thousand_bin_quantile_audit_searches_and_sums_the_same_numbers():
    rng = np.random.default_rng(37)
    n = 6000
    p = rng.random(n)
    p[:500] = np.round(p[:500], 2)  # ties on the edges
    y = (rng.random(n) < p).astype(np.int64)
    w = rng.random(n) + 0.1
    con = _con(p, y, w)
    seen: list[str] = []
    con.set_trace_callback(seen.append)
    got = vc.audit_sql(con, table="t", score="p", label="y", bins=1000, strategy="quantile", min_count=1)
    con.set_trace_callback(None)
    binned = [s for s in seen if s.count(">= CAST(") > 900]  # the statement holding the bin index
    assert binned and all("END + CASE" not in s and 10 <= _depth(s) <= 16 for s in binned)  # the sum: 1 deep
    want = vc.audit(p, y, bins=1000, strategy="quantile", min_count=1)
    assert np.array_equal(got.table.stats.edges, want.table.stats.edges)
    assert np.array_equal(got.table.stats.count, want.table.stats.count)
    assert np.array_equal(got.table.stats.sum_y, want.table.stats.sum_y)
    assert got.ece == pytest.approx(want.ece, abs=1e-12)
