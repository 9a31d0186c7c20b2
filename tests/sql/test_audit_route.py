"""vc.audit(connection_or_url, table="t", score=, label=) is the database form of the audit (DESIGN §3)."""

import sqlite3

import numpy as np
import pytest

import veracity as vc


def _db(n=3000):
    rng = np.random.default_rng(4)
    p, seg = rng.random(n), rng.choice(["a", "b", "c"], n)
    y = (rng.random(n) < p).astype(int)
    con = sqlite3.connect(":memory:")
    con.execute('CREATE TABLE "scored rows" (p REAL, y INTEGER, seg TEXT)')
    con.executemany('INSERT INTO "scored rows" VALUES (?, ?, ?)',
                    [(float(a), int(b), str(c)) for a, b, c in zip(p, y, seg)])
    return con, p, y, seg


def test_audit_with_table_equals_audit_sql_and_the_array_audit():
    con, p, y, seg = _db()
    got = vc.audit(con, table="scored rows", score="p", label="y", by="seg", bins=10)
    assert got.to_dict() == vc.audit_sql(con, table="scored rows", score="p", label="y", by="seg", bins=10).to_dict()
    want = vc.audit(p, y, by=seg, bins=10)
    assert got.ece == pytest.approx(want.ece, abs=1e-12) and got.auc == pytest.approx(want.auc, abs=1e-12)
    assert set(got.groups) == set(want.groups)


def test_audit_with_table_refuses_what_a_database_does_not_compute():
    con, *_ = _db(200)
    with pytest.raises(vc.VeracityError, match="noise_floor= is not computed inside a database"):
        vc.audit(con, table="scored rows", score="p", label="y", noise_floor=True)
    with pytest.raises(vc.VeracityError, match="needs the score and label column names"):
        vc.audit(con, table="scored rows")
