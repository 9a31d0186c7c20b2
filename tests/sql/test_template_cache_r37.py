"""Speed-only guard (session 37): the audit's statement templates are parsed once a process
(``_query._parsed_template``) and each render edits a copy; the statements are the ones a fresh parse
writes, and a render never leaks its names or table into the next.

(Over tests/sql: 1,331 renders of 251 distinct templates, each written alike by both paths.)
"""

from __future__ import annotations

import sqlite3
from typing import Any

import numpy as np

import veracity as vc
from veracity.sql import _query


def _table(con: sqlite3.Connection, name: str, score: str, label: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    p = rng.random(300)
    y = (rng.random(300) < p).astype(int)
    con.execute(f'CREATE TABLE "{name}" ("{score}" REAL, "{label}" INTEGER)')
    con.executemany(f'INSERT INTO "{name}" VALUES (?, ?)', zip(p.tolist(), y.tolist()))


def _statements(con: sqlite3.Connection, **kw: Any) -> tuple[list[str], Any]:
    seen: list[str] = []
    con.set_trace_callback(seen.append)
    try:
        result = vc.audit_sql(con, **kw)
    finally:
        con.set_trace_callback(None)
    return seen, result


def test_a_cached_template_writes_the_statements_a_fresh_parse_writes():
    con = sqlite3.connect(":memory:")
    _table(con, "t_one", "p", "y", 1)
    _table(con, "t_two", "score b", "label b", 2)
    same: dict[str, Any] = dict(bins=7, strategy="quantile", min_count=1)
    one: dict[str, Any] = dict(table="t_one", score="p", label="y", **same)
    two: dict[str, Any] = dict(table="t_two", score="score b", label="label b", **same)
    _query._parsed_template.cache_clear()
    cold, first = _statements(con, **one)
    hits = _query._parsed_template.cache_info().hits
    other, _ = _statements(con, **two)                    # the same templates, other names and table
    warm, again = _statements(con, **one)
    assert _query._parsed_template.cache_info().hits > hits  # the second and third audits read the cache
    assert warm == cold and len(cold) >= 2
    assert first.ece == again.ece and first.brier == again.brier
    assert not any("t_one" in s for s in other) and any('"score b"' in s for s in other)
    assert not any("score b" in s or "t_two" in s for s in warm)
