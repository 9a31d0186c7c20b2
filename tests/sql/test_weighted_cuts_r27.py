"""Weighted equal-mass edges in the database follow the array form's rule, slack included (session 27).

The array form (``quantile_picks``) compares cumulative weights with j·W/M up to the running sum's
own rounding, so constant weights cut where no weights cut. ``audit_sql`` compared them exactly:
with every weight 0.1 its cuts moved by a row, so its bins, ECE and table differed from
``vc.audit`` on the same rows (and from the unweighted audit, which constant weights must equal).
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc

from .conftest import load


def _data(n: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    p = rng.uniform(size=n)
    y = (rng.uniform(size=n) < p).astype(np.int64)
    return {"p": p, "y": y, "w": np.full(n, 0.1)}


@pytest.mark.parametrize("n", [1000, 3000])
def test_constant_weights_cut_where_no_weights_cut(engine, n):
    name, con = engine
    cols = _data(n, seed=n)
    load(name, con, "wc27", cols)
    bins = 10
    # the unweighted rule by its definition: the sorted score at row floor(j·N/M); constant weights must agree
    ps = np.sort(cols["p"])
    expected = [0.0, *ps[(np.arange(1, bins) * n) // bins]]
    got = vc.audit_sql(con, table="wc27", score="p", label="y", sample_weight="w", strategy="quantile",
                       bins=bins)
    assert [r.lo for r in got.table.rows] == expected
    mem = vc.audit(cols["p"], cols["y"], sample_weight=cols["w"], strategy="quantile", bins=bins)
    assert got.ece == pytest.approx(mem.ece, abs=1e-12)
    assert [r.count for r in got.table.rows] == [r.count for r in mem.table.rows] == [n // bins] * bins
    assert got.mce == pytest.approx(mem.mce, abs=1e-12)
