"""Slices of an Arrow interval column named as the DuckDB route names them (round 38).

A DuckDB INTERVAL column read into Arrow (``rel.arrow()``: ``month_day_nano_interval``) reached the slices as
pandas ``DateOffset`` objects (pyarrow's ``to_numpy``), so ``vc.audit(table, by="g")`` named its slices
``<DateOffset: days=1, months=0, nanoseconds=0>`` where ``vc.audit(rel, by="g")`` on the same rows names them
``1 days 00:00:00`` (and a month ``1 months 0 days 00:00:00``).
"""

from __future__ import annotations

import duckdb

import veracity as vc


def test_arrow_intervals_named_as_duckdb_names_them():
    rel = duckdb.sql("SELECT (i % 5) / 5 + 0.1 AS p, (i % 3 = 0)::INT AS y, CASE i % 4 "
                     "WHEN 0 THEN INTERVAL 1 DAY WHEN 1 THEN INTERVAL 1 MONTH WHEN 2 THEN INTERVAL 90 MINUTE "
                     "END AS g FROM range(80) t(i)")
    table = rel.arrow()
    table = table.read_all() if hasattr(table, "read_all") else table
    want = {k: g.n for k, g in vc.audit(rel, score="p", label="y", by="g").groups.items()}
    got = {k: g.n for k, g in vc.audit(table, score="p", label="y", by="g").groups.items()}
    assert got == want == {"1 days 00:00:00": 20, "1 months 0 days 00:00:00": 20, "0 days 01:30:00": 20,
                           "(missing)": 20}
