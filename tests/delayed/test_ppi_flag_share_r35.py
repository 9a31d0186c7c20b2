"""Session 35: vc.ppi_audit's confusion intervals respect the bounds the flagged share sets without labels.

The flag a = [score >= threshold] needs no label, so TP + FP is the flagged share and FN + TN its complement:
TP, FP <= P(flag), FN, TN <= 1 - P(flag). Before session 35 the intervals ignored this: 30 labels of 2,000
Beta(2, 3) scores read TP 0.0311 in [0.0000, 0.6294] and FP up to 0.4202 with 0.3085 of the rows flagged.
The bound is the exact one-sided end of the window's flagged share at 0.02 (1 - level), not the share itself:
the share's truth is its expectation (the designs of test_ppi_confusion_coverage_r23.py), and the window's
share cut TP's coverage there from 0.988 to 0.404 with about 4.5 flagged rows in 1,500.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import beta

import veracity as vc

sys.path.insert(0, str(Path(__file__).parent))
import test_ppi_confusion_coverage_r23 as r23  # noqa: E402


def _repro():
    rng = np.random.default_rng(32)
    s = rng.beta(2, 3, 2000)
    y = (rng.random(2000) < s).astype(int)
    mask = np.zeros(2000, bool)
    mask[rng.choice(2000, 30, replace=False)] = True
    return y, s, mask


def _bounds(flagged, rows, level=0.95):
    """The exact one-sided ends (Clopper-Pearson) of the flagged share at 0.02 (1 - level), by scipy."""
    tail = 0.02 * (1 - level)
    return beta.ppf(1 - tail, flagged + 1, rows - flagged), beta.ppf(tail, flagged, rows - flagged + 1)


def test_tp_and_fp_end_below_the_flagged_share_bound():
    y, s, mask = _repro()
    flagged = int((s >= 0.5).sum())
    assert flagged == 617  # 0.3085 of the rows
    upper, lower = _bounds(flagged, 2000)
    assert 0.3085 < upper < 0.35 and 0.27 < lower < 0.3085
    a = vc.ppi_audit(y[mask], s[mask], s[~mask])
    for q in ("tp", "fp"):  # were [0.0000, 0.6294] and [0.1649, 0.4202]
        assert a.row(q)["ci_high"] == pytest.approx(upper, rel=1e-9), q
    for q in ("fn", "tn"):
        assert a.row(q)["ci_high"] <= 1 - lower + 1e-12, q
    assert a.row("cost")["ci_high"] <= upper + (1 - lower) + 1e-12
    # the estimates are unchanged and inside their intervals
    assert a.row("tp")["estimate"] == pytest.approx(0.0311, abs=5e-5)
    for q in ("tp", "fp", "fn", "tn", "cost"):
        r = a.row(q)
        assert r["ci_low"] <= r["estimate"] <= r["ci_high"], q


def test_weighted_rows_use_the_kish_size_and_equal_weights_change_nothing():
    y, s, mask = _repro()
    plain = vc.ppi_audit(y[mask], s[mask], s[~mask])
    same = vc.ppi_audit(y[mask], s[mask], s[~mask], sample_weight=np.full(30, 3.0),
                        sample_weight_unlabelled=np.full(1970, 3.0))
    for q in ("tp", "fp", "fn", "tn", "cost"):
        assert same.row(q)["ci_high"] == pytest.approx(plain.row(q)["ci_high"], rel=1e-9), q
    # uneven weights on the unlabelled rows: the weighted share and the pooled Kish size set the bound
    u = np.where(np.arange(1970) % 2 == 0, 1.0, 3.0)
    a = vc.ppi_audit(y[mask], s[mask], s[~mask], sample_weight_unlabelled=u)
    wl, wu = np.ones(30), u / u.mean()  # each side's weights scaled to mean 1, as ppi_audit does
    tot = wl.sum() + wu.sum()
    share = (wl @ (s[mask] >= 0.5) + wu @ (s[~mask] >= 0.5)) / tot
    kish = tot * tot / (wl @ wl + wu @ wu)
    upper, _ = _bounds(share * kish, kish)
    assert a.row("tp")["ci_high"] <= upper + 1e-9
    assert a.row("fp")["ci_high"] <= max(upper, a.row("fp")["estimate"]) + 1e-9


@pytest.mark.parametrize("design", [r23.RARE[2], ("tp", 2.0, 3.0, 1, 30, None, 11, r23.NAMES)])
def test_the_cut_loses_no_coverage_and_narrows(design):
    """Coverage of the expected shares (r23's truth) and of the window's own realised shares, with and without
    the cut, on designs where TP and FP are cut in nearly every window (seeded: the same coverage to 0.001,
    FP's median width 0.10 -> 0.05 and 0.14 -> 0.07)."""
    import veracity.delayed._audit as audit

    which, a, b, events, n, mis, seed, _ = design
    rng = np.random.default_rng(seed)
    qt = r23._threshold(which, a, b, events / n)
    q = rng.beta(a, b, (1000, n + r23.M))
    y = (rng.random(q.shape) < q).astype(float)
    f = r23._score(q, mis)
    t = float(r23._score(np.array(qt), mis))
    sums, kk = r23._sums(y[:, :n], f[:, :n], f[:, n:], t)
    flag = f >= t
    window = np.array([(y * flag).mean(1), ((1 - y) * flag).mean(1), (y * ~flag).mean(1),
                       ((1 - y) * ~flag).mean(1)])
    window = np.vstack([window, window[1] + r23.COST_FN * window[2]])
    truths = (r23._truth(a, b, qt)[:, None], window)
    _, lo, hi, _ = r23._audit_intervals(sums, kk)
    saved = audit.flag_share_cut
    audit.flag_share_cut = lambda *args, **kwargs: None
    try:
        _, lo0, hi0, _ = r23._audit_intervals(sums, kk)
    finally:
        audit.flag_share_cut = saved
    for truth in truths:
        new = ((lo <= truth + 1e-12) & (truth <= hi + 1e-12)).sum(1)
        old = ((lo0 <= truth + 1e-12) & (truth <= hi0 + 1e-12)).sum(1)
        assert (new >= old - 2).all(), (new, old)  # at most 0.001 of 1,000 windows each (and seeded: none)
    assert (hi <= hi0).all() and (lo == lo0).all()
    assert np.median(hi[1] - lo[1]) < 0.7 * np.median(hi0[1] - lo0[1])  # FP
