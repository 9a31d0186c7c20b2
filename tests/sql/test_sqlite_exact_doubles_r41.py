"""SQLite reads some decimal texts one ulp off the nearest double (session 41).

SQLite 3.40 reads ``0.635907638553665`` (the shortest text of that double) as ``0.6359076385536651``,
about one text in 10⁵ of random doubles. The audit wrote every double constant as such a text: an
equal-mass edge, which is one of the scores, then lay one ulp above the rows holding it, and they were
counted in the bin below (a 2,500-bin weighted audit printed a bin weighing 4.4 where the rows give 3.7).
On SQLite a double constant is now written exactly, an integer over a power of two.
"""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

import veracity as vc

#: a double whose shortest text SQLite 3.40 (and others) reads one ulp off
_MISREAD = 0.635907638553665


def test_every_double_constant_reads_back_exactly():
    from veracity.sql._query import sqlite_exact_doubles

    con = sqlite3.connect(":memory:")
    edges = [_MISREAD, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, -0.3, 1e-200, 3.0]
    values = np.concatenate([np.random.default_rng(41).random(5000), edges])
    for chunk in np.array_split(values, 10):
        sql = "SELECT " + ", ".join(f"CAST('{float(v)!r}' AS REAL)" for v in chunk)
        assert list(con.execute(sqlite_exact_doubles(sql)).fetchone()) == chunk.tolist()
    # names and strings as they are
    kept = """SELECT "CAST('0.5' AS REAL)", 'it''s CAST(''0.5'' AS REAL)' FROM t"""
    assert sqlite_exact_doubles(kept) == kept


@pytest.mark.parametrize("weighted", [False, True])
def test_a_score_on_an_equal_mass_edge_stays_in_its_bin(weighted):
    p = np.array([0.1, 0.2, 0.3, 0.4, 0.5, _MISREAD, 0.7, 0.8, 0.9, 0.95])
    y = np.array([0, 0, 1, 0, 1, 1, 0, 1, 1, 1])
    w = np.ones(p.size)
    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE t (p REAL, y INTEGER, w REAL)")
    con.executemany("INSERT INTO t VALUES (?, ?, ?)", zip(p.tolist(), y.tolist(), w.tolist()))
    got = vc.audit_sql(con, table="t", score="p", label="y", sample_weight="w" if weighted else None, bins=2,
                       strategy="quantile", min_count=1)
    want = vc.audit(p, y, sample_weight=w if weighted else None, bins=2, strategy="quantile", min_count=1)
    assert want.table.stats.edges[1] == _MISREAD and got.table.stats.edges[1] == _MISREAD
    assert got.table.stats.count.tolist() == want.table.stats.count.tolist() == [5, 5]
    assert got.ece == pytest.approx(want.ece, abs=1e-12) and str(got) == str(want)


def test_a_kept_slice_keyed_by_such_a_double_keeps_its_rows_past_the_slice_cap():
    # more slices than the cap: the kept keys are written into the SQL; the largest slice's key was read one
    # ulp off, matched no row, and its 1,500 rows were pooled into "(other ...)" (3,999 rows), the slice gone
    rng = np.random.default_rng(41)
    n = 4000
    p = rng.random(n)
    y = (rng.random(n) < p).astype(np.int64)
    g = np.concatenate([np.full(1500, _MISREAD), rng.random(n - 1500)])
    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE t (p REAL, y INTEGER, g REAL)")
    con.executemany("INSERT INTO t VALUES (?, ?, ?)", zip(p.tolist(), y.tolist(), g.tolist()))
    got = vc.audit_sql(con, table="t", score="p", label="y", by="g", max_groups=3, min_count=1)
    want = vc.audit(p, y, by=g, max_groups=3, min_count=1)
    assert {k: s.n for k, s in got.groups.items()} == {k: s.n for k, s in want.groups.items()}
    assert got.groups[str(_MISREAD)].n == 1500
