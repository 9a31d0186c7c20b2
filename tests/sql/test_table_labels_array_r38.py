"""vc.audit(connection, labels, table=...) read the table's label= column and silently ignored the labels
array given beside it (the frame forms refuse one); now refused in one line (session 38)."""

import sqlite3

import numpy as np
import pytest

import veracity as vc


def _connection() -> sqlite3.Connection:
    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE t (p REAL, y INTEGER)")
    rng = np.random.default_rng(0)
    p = rng.uniform(0.05, 0.95, 200)
    y = (rng.uniform(size=200) < p).astype(int)
    con.executemany("INSERT INTO t VALUES (?, ?)", zip(p.tolist(), y.tolist()))
    return con


def test_a_labels_array_beside_a_table_is_refused():
    con = _connection()
    with pytest.raises(vc.VeracityError, match="takes no labels array") as info:
        vc.audit(con, np.zeros(200), table="t", score="p", label="y")
    assert "\n" not in str(info.value) and isinstance(info.value, ValueError)


def test_the_table_form_without_labels_still_audits():
    result = vc.audit(_connection(), table="t", score="p", label="y", bins=5)
    assert result.n == 200
