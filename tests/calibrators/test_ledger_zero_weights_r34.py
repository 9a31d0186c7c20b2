"""The ledger drops rows of weight 0, as every metric and ``vc.compare_models`` do (session 34).

A row of weight 0 is a dropped row everywhere (issue 10). ``compare`` kept them: they counted in the
rows the ledger names ("on 300 evaluation rows" for 207 weighted ones), in the certificates' tie counts
(88 ties created where the weighted rows hold 80) and in the ECE change's paired bootstrap, which
resampled them, so its interval moved ([-0.1542, +0.1213] against [-0.1596, +0.1284]).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.special import softmax

import veracity as vc


def _rows(n: int = 300):
    rng = np.random.default_rng(4)
    p = np.round(rng.random(n), 2)
    y = (rng.random(n) < p).astype(int)
    w = rng.integers(0, 4, n).astype(float)
    return p, y, w


@pytest.mark.parametrize("make", [vc.IsotonicCalibration, vc.PlattScaling])
def test_rows_of_weight_zero_change_nothing(make):
    p, y, w = _rows()
    keep = w > 0
    assert not keep.all()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cal = make().fit(p[:150], y[:150])
    full = vc.compare(p, y, cal, sample_weight=w)
    kept = vc.compare(p[keep], y[keep], cal, sample_weight=w[keep])
    assert full.to_dict() == kept.to_dict()
    assert str(full) == str(kept)
    assert f"on {int(keep.sum())} evaluation rows" in str(full)


def test_isotonic_ties_count_the_weighted_rows_only():
    p, y, w = _rows()
    keep = w > 0
    cal = vc.IsotonicCalibration().fit(p[:150], y[:150])
    cert = vc.compare(p, y, cal, sample_weight=w).certificates
    assert cert["ties_created"] >= 1
    assert cert["ties_created"] == vc.compare(p[keep], y[keep], cal, sample_weight=w[keep]).certificates[
        "ties_created"]


def test_multiclass_rows_of_weight_zero_change_nothing():
    rng = np.random.default_rng(5)
    n, k = 300, 3
    z = rng.normal(0, 2, (n, k))
    P = softmax(z, axis=1)
    y = (softmax(z / 2, axis=1).cumsum(axis=1) < rng.random(n)[:, None]).sum(axis=1)
    w = rng.integers(0, 4, n).astype(float)
    keep = w > 0
    cal = vc.TemperatureScaling().fit(P[:150], y[:150])
    full = vc.compare(P, y, cal, sample_weight=w)
    kept = vc.compare(P[keep], y[keep], cal, sample_weight=w[keep])
    assert str(full) == str(kept)
