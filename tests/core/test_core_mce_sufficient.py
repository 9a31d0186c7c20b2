"""MCE and every "max over bins" read sufficient bins only (issue 22; DESIGN min_count = 20).

The issue's case: an MCE of 0.3306 came from a 2-row bin that the same output marked
"do not act on", and flowed into the metrics, the comparison table and the bootstrap line.
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc


def _thin_bin_data():
    """2,000 well-calibrated rows plus a 2-row bin far off the diagonal."""
    rng = np.random.default_rng(3)
    p = rng.uniform(0.0, 0.6, 2000)
    y = (rng.uniform(size=p.size) < p).astype(int)
    p = np.r_[p, 0.97, 0.98]  # the last bin holds two rows, both wrong: gap ≈ −0.975
    y = np.r_[y, 0, 0]
    return p, y


def _by_hand(p, y, bins=15, min_count=20):
    idx = np.minimum((p * bins).astype(int), bins - 1)
    gaps, thin = [], []
    for b in range(bins):  # the definition, a loop over bins
        m = idx == b
        if m.any():
            (gaps if m.sum() >= min_count else thin).append(abs(y[m].mean() - p[m].mean()))
    return max(gaps) if gaps else float("nan"), (max(thin) if thin else None)


def test_mce_ignores_an_insufficient_bin():
    p, y = _thin_bin_data()
    want, thin = _by_hand(p, y)
    assert thin == pytest.approx(0.975)
    assert want < 0.1
    assert vc.mce(p, y) == pytest.approx(want, abs=1e-13)
    assert vc.mce(p, y, min_count=0) == pytest.approx(thin, abs=1e-13)  # every non-empty bin
    table = vc.reliability(p, y)
    assert table.mce == pytest.approx(want, abs=1e-13)
    assert table.mce_insufficient == pytest.approx(thin, abs=1e-13)
    assert table.to_dict()["mce_insufficient"] == table.mce_insufficient
    text = str(table)
    assert f"MCE {want:.4f} (largest gap among the insufficient bins {thin:.4f}, not acted on)" in text


def test_audit_metrics_and_slices_use_sufficient_bins():
    p, y = _thin_bin_data()
    want, _ = _by_hand(p, y)
    a = vc.audit(p, y, by=np.where(np.arange(p.size) % 2 == 0, "even", "odd"))
    assert a.mce == pytest.approx(want, abs=1e-13)
    assert a.metrics["mce"] == pytest.approx(want, abs=1e-13)
    for g, sub in a.groups.items():
        mask = (np.arange(p.size) % 2 == 0) == (g == "even")
        assert sub.mce == pytest.approx(_by_hand(p[mask], y[mask])[0], abs=1e-13)


def test_bootstrap_line_uses_sufficient_bins():
    p, y = _thin_bin_data()
    want, _ = _by_hand(p, y)
    boot = vc.bootstrap_intervals(p, y, metrics=["mce"], n_resamples=200, random_state=0,
                                  method="percentile")
    row = boot["mce"]
    assert row.estimate == pytest.approx(want, abs=1e-13)
    assert row.high < 0.2  # the 2-row bin (gap 0.975) never enters a resample's maximum
    a = vc.audit(p, y, bootstrap="percentile", n_resamples=100, random_state=0)
    assert a.extras["intervals"]["mce"].estimate == pytest.approx(want, abs=1e-13)
    est = vc.ece_estimates(p, y)
    assert est.plugin_max == pytest.approx(want, abs=1e-13)


def test_no_sufficient_bin_gives_nan_and_says_so():
    p = np.array([0.1, 0.2, 0.7, 0.9])
    y = np.array([0, 1, 1, 1])
    assert np.isnan(vc.mce(p, y))
    t = vc.reliability(p, y)
    assert np.isnan(t.mce)
    assert "MCE n/a (no bin has >= 20 rows; largest gap among the insufficient bins" in str(t)
    assert vc.mce(p, y, min_count=1) == pytest.approx(_by_hand(p, y, min_count=1)[0])


def test_weighted_sufficiency_is_the_effective_size():
    # 30 rows in one bin, but one row carries almost all the weight: Kish size < 20
    p = np.r_[np.full(30, 0.55), np.linspace(0.05, 0.3, 400)]
    y = np.r_[np.r_[1, np.zeros(29)], (np.linspace(0.05, 0.3, 400) > 0.2).astype(float)]
    w = np.r_[100.0, np.ones(29), np.ones(400)]
    t = vc.reliability(p, y, sample_weight=w)
    row = next(r for r in t.rows if r.lo <= 0.55 < r.hi)
    assert not row.sufficient
    assert t.mce == pytest.approx(max(abs(r.gap) for r in t.rows if r.sufficient), abs=1e-15)
    assert t.mce_insufficient == pytest.approx(max(abs(r.gap) for r in t.rows if not r.sufficient), abs=1e-15)
    assert vc.mce(p, y, sample_weight=w) == pytest.approx(t.mce)


def test_min_count_is_checked():
    with pytest.raises(vc.VeracityError, match="min_count"):
        vc.mce([0.1, 0.9], [0, 1], min_count=-1)
