"""``vc.audit(connection, table=..., dialect=...)``: the database form takes ``audit_sql``'s
``dialect=`` too (it was a TypeError), and arrays or frames refuse it in one line."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

import veracity as vc


def _table() -> tuple[sqlite3.Connection, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    p = rng.uniform(size=300)
    y = (rng.uniform(size=300) < p).astype(int)
    con = sqlite3.connect(":memory:")
    con.execute('create table t (p real, y integer)')
    con.executemany("insert into t values (?, ?)", list(zip(p.tolist(), y.tolist())))
    return con, p, y


def test_audit_database_form_takes_dialect() -> None:
    con, p, y = _table()
    direct = vc.audit_sql(con, table="t", score="p", label="y", dialect="sqlite")
    routed = vc.audit(con, table="t", score="p", label="y", dialect="sqlite")
    assert routed.ece == direct.ece
    assert routed.ece == pytest.approx(vc.audit(p, y).ece, abs=1e-12)


def test_dialect_without_a_table_is_refused() -> None:
    _, p, y = _table()
    with pytest.raises(vc.VeracityError, match="database form only") as err:
        vc.audit(p, y, dialect="sqlite")
    assert err.value.param == "dialect"
