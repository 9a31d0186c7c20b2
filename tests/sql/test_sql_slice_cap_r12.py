"""A ``by=`` of many values is capped inside the database, on SQLite, DuckDB and PostgreSQL (round 12).

Before, the per-(slice, bin) sums of every value came back (a user id: one row of sums per row of the
table, 300,000 ids took 37 s and 1.3 GB) and were pooled to ``max_groups`` in Python. Now the
statistics ask for at most 4 × cap × bins rows; beyond, one count per value picks the kept values
(the array form's rule) and the other values' rows are summed as one slice in the database.
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc
from veracity.sql import audit_sql

from .conftest import CountingConnection, load


@pytest.mark.parametrize("weighted, options", [
    (False, dict(bins=10, max_groups=6)),
    (True, dict(bins=10, max_groups=6)),
    (False, dict(bins=4, strategy="quantile", max_groups=3)),
])
def test_a_by_of_many_values_is_pooled_in_the_database_like_the_array_form(engine, weighted, options):
    name, conn = engine
    rng = np.random.default_rng(21)
    n, keys = 2400, 400
    g = rng.integers(1000, 1000 + keys, n)  # ~6 rows each
    # the kept keys by size, the missing one (-1) among them: sizes apart, so no tie decides what is kept
    # (the array form breaks ties among numbers and None by their text, this form by value)
    at = 0
    for key, size in ((13, 90), (-1, 70), (7, 60), (250, 50), (3, 40), (99, 30)):
        g[at:at + size] = key
        at += size
    p = np.round(rng.random(n), 2)
    y = (rng.random(n) < p).astype(np.int64)
    w = rng.uniform(0.2, 3.0, n)
    cols = {"p": p, "y": y, "w": w, "g": g.astype(np.float64)}
    load(name, conn, "many_keys", cols)
    conn.execute('UPDATE many_keys SET "g" = NULL WHERE "g" = -1')
    counting = CountingConnection(conn)
    weight = {"sample_weight": "w"} if weighted else {}
    got = audit_sql(counting, table="many_keys", score="p", label="y", by="g", dialect=name, **weight, **options)
    keyed = np.where(g == -1, None, g.astype(np.float64)).astype(object)
    want = vc.audit(p, y, by={"g": keyed}, sample_weight=w if weighted else None, **options)
    # the same slices (the array form lists numbers held with None in an object array by their text:
    # "13.0" before "3.0"; this form by value, as the array form lists a float array)
    assert sorted(got.groups) == sorted(want.groups) and len(got.groups) == options["max_groups"]
    for key, part in want.groups.items():
        for metric, value in part.metrics.items():
            assert getattr(got.groups[key], metric) == pytest.approx(value, rel=1e-12, abs=1e-12, nan_ok=True), \
                (key, metric)
    assert got.brier == pytest.approx(want.brier, rel=1e-12) and got.auc == pytest.approx(want.auc, rel=1e-12)
    # the sums: at most 4 x cap x bins rows a statement (before: one statement of ~400 x bins rows), plus one
    # count per value
    m, cap = got.table.bins, options["max_groups"]
    assert counting.largest <= max(4 * cap * m + 1, keys + 1), counting.largest
    assert counting.rows <= 2 * (4 * cap * m + 1) + keys + 1 + 40, counting.rows
