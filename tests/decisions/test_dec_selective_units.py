"""Weighted selective prediction reports its weight sums in the caller's units (session 11).

``selective_threshold`` printed "(1837869.3 of 3000)" — a weight sum over a row count — and with
extreme weights (times 2**-600, rescaled inside by check_weights by a power of two) its
``accepted``/``errors`` were in those internal units (897.4, where the caller's weights sum to
about 1e-178). ``risk_coverage`` printed a total weight as "rows".
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc


def _data():
    rng = np.random.default_rng(0)
    p = rng.random(3000)
    y = (rng.random(p.size) < p).astype(int)
    w = rng.uniform(0.5, 1.5, p.size) * 1000
    return p, y, w


@pytest.mark.parametrize("scale", [1.0, 2.0**-600, 2.0**600])
def test_accepted_and_errors_are_weight_sums_in_the_callers_units(scale):
    p, y, w = _data()
    ww = w * scale
    r = vc.selective_threshold(p, y, target_risk=0.2, sample_weight=ww)
    answered = (np.maximum(p, 1 - p) >= r.threshold)
    wrong = (p >= 0.5).astype(int) != y
    assert r.accepted == pytest.approx(ww[answered].sum(), rel=1e-12)
    assert r.errors == pytest.approx(ww[answered & wrong].sum(), rel=1e-12)
    assert r.weight == pytest.approx(ww.sum(), rel=1e-12)
    assert r.coverage == pytest.approx(ww[answered].sum() / ww.sum(), rel=1e-12)
    assert f"of {r.n}" not in str(r) and "weight" in str(r)


def test_unweighted_and_equal_weights_print_rows():
    p, y, _ = _data()
    r = vc.selective_threshold(p, y, target_risk=0.2)
    assert r.weight is None and f"({r.accepted:.0f} of {p.size})" in str(r)
    same = vc.selective_threshold(p, y, target_risk=0.2, sample_weight=np.full(p.size, 4.0))
    assert str(same) == str(r)


def test_risk_coverage_says_weight_not_rows_when_weighted():
    p, y, w = _data()
    rc = vc.risk_coverage(p, y, sample_weight=w)
    assert rc.n == pytest.approx(w.sum(), rel=1e-12)
    assert f"{w.sum():.1f} weight" in str(rc) and "rows" not in str(rc).splitlines()[-1]
    assert "rows" in str(vc.risk_coverage(p, y)).splitlines()[-1]
