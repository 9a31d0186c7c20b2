"""Session 28: vc.ppi_audit with uneven weights, and what the few-effective-labels note says.

(a) Commit dc557fe widened vc.ppi_mean's interval for uneven weights (_ppi_sums.weighted_rate_interval), but
vc.ppi_audit kept the normal intervals for its rate and its shares TP ... TN and cost. Measured before
(seeded, log-normal weights of sigma 1.5, both sides weighted, Kish size 300, rate 0.05, threshold 0.3,
1,000 windows): the rate covered 0.915, FN 0.931, TN 0.900 at a nominal 0.95 — and the audit's rate
printed a narrower interval than vc.ppi_mean's for the same window. Its calibration verdict also skipped the
exact rare-class judgement that vc.ppi_mean gives weighted labels (2 positives of 20 labels scored 0.001,
weights 1-1.5: "not calibrated" from vc.ppi_mean, "calibrated" from vc.ppi_audit), and it never gave the
note on few effective labels of the rarer class.
(b) The note on few effective labels said the normal interval covered "about half" of true rates at an
effective size of about 4; since dc557fe the rate's interval covers them (1.00), and it is the interval of
rate - score, never widened, that covers about half (0.48). Since then rate - score is widened too
(_ppi_sums.weighted_gap_interval, tests/delayed/test_ppi_gap_weighted_r28.py) and covers 0.98.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import expit, logit, ndtr

import veracity as vc

from .conftest import risk_weighted_rows

T = 0.3  # the audit's threshold
NOISE = 0.7  # the scores' noise on the logit scale


_rows = risk_weighted_rows  # the design: tests/delayed/conftest.py


def _truth(rate: float, sigma: float, corr: float) -> dict[str, float]:
    """The weighted population's rate and shares at threshold T (both sides weighted: E[w t] / E[w] is
    E[t] under z ~ N(sigma corr, 1)), by Gauss-Hermite quadrature: P(f >= T | z) = Phi((logit q - logit T) /
    NOISE)."""
    x, h = np.polynomial.hermite_e.hermegauss(160)
    h = h / h.sum()
    q = expit(logit(rate) + x + sigma * corr)
    a = ndtr((logit(q) - logit(T)) / NOISE)
    tp, fp, fn, tn = (float(h @ v) for v in (q * a, (1 - q) * a, q * (1 - a), (1 - q) * (1 - a)))
    return {"rate": float(h @ q), "tp": tp, "fp": fp, "fn": fn, "tn": tn, "cost": fp + fn}


def test_uneven_weights_cover_the_rate_and_the_shares_at_the_level():
    """Before: rate 0.91, FN 0.93, TN 0.90 over 1,000 windows (0.91, 0.92, 0.89 over these 250); now 0.98-1.00
    over these (vc.ppi_mean's hull with the design-effect Wilson interval, on each quantity's range), median
    widths 1-27 % more (the most for the rate and FN, the quantities of the rare positives)."""
    rate, sigma, corr, kish = 0.05, 1.5, 0.0, 300
    truth = _truth(rate, sigma, corr)
    n = int(round(kish * np.exp(sigma ** 2)))  # Kish size of log-normal weights: n / exp(sigma^2)
    rng = np.random.default_rng(2028)
    hits: dict[str, list[bool]] = {k: [] for k in truth}
    for _ in range(250):
        y, f, w = _rows(rng, n, rate, sigma, corr)
        _, g, u = _rows(rng, 2000, rate, sigma, corr)
        a = vc.ppi_audit(y, f, g, sample_weight=w, sample_weight_unlabelled=u, threshold=T, bins=2,
                         sample_check="off")
        for k in truth:
            r = a.row(k)
            hits[k].append(r["ci_low"] <= truth[k] <= r["ci_high"])
    cov = {k: float(np.mean(v)) for k, v in hits.items()}
    assert min(cov.values()) >= 0.94, cov


@pytest.mark.parametrize(("seed", "rate", "sigma", "corr", "both"), [
    (1, 0.05, 1.5, 0.0, True), (2, 0.15, 1.0, 0.5, True), (3, 0.3, 1.5, 0.5, False),
    (4, 0.02, 1.0, 0.0, True)])
def test_the_audits_rate_is_ppi_means_rate(seed, rate, sigma, corr, both):
    rng = np.random.default_rng(seed)
    y, f, w = _rows(rng, 800, rate, sigma, corr)
    _, g, u = _rows(rng, 3000, rate, sigma, corr)
    kw = {"sample_weight": w, "sample_weight_unlabelled": u if both else None, "sample_check": "off"}
    r = vc.ppi_mean(y, f, g, **kw)
    a = vc.ppi_audit(y, f, g, threshold=T, **kw)
    row = a.row("rate")
    assert (row["estimate"], row["ci_low"], row["ci_high"]) == pytest.approx(
        (r.estimate, r.ci_low, r.ci_high), rel=1e-12, abs=1e-15)
    assert a.calibrated == r.calibrated


def test_the_audit_notes_few_effective_labels_of_the_rarer_class_as_ppi_mean_does():
    rng = np.random.default_rng(5)
    y, f, w = _rows(rng, 600, 0.05, 1.5, 0.0)  # Kish size about 60, about 5 effective positives
    _, g, u = _rows(rng, 3000, 0.05, 1.5, 0.0)
    r = vc.ppi_mean(y, f, g, sample_weight=w, sample_weight_unlabelled=u, sample_check="off")
    a = vc.ppi_audit(y, f, g, sample_weight=w, sample_weight_unlabelled=u, threshold=T, sample_check="off")
    said = [t for t in r.notes if t.startswith("uneven weights (design effect")]
    assert len(said) == 1 and said[0] in a.note and a.to_dict()["note"] == a.note
    plain = vc.ppi_audit(y, f, g, threshold=T, sample_check="off")
    assert "uneven weights" not in (plain.note or "")


def test_uneven_weights_take_the_exact_rare_class_judgement_in_the_audit_too(rare_window):
    y, f, g = rare_window  # 2 positives of 20 labels where 0.02 were expected
    w = np.linspace(1.0, 1.5, y.size)
    assert vc.ppi_mean(y, f, g, sample_weight=w, sample_check="off").calibrated is False
    assert vc.ppi_audit(y, f, g, sample_weight=w, sample_check="off").calibrated is False
    assert vc.ppi_audit(y, f, g, sample_check="off").calibrated is False


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 60), positives=st.integers(0, 60), seed=st.integers(0, 2 ** 16),
       weight=st.sampled_from([1.0, 2.0, 0.1, 3.7, 1e-3]), both=st.booleans(),
       mean=st.sampled_from([0.001, 0.02, 0.2, 0.5, 0.9]), cost_fn=st.sampled_from([1.0, 5.0]))
def test_equal_weights_give_the_unweighted_audit(n, positives, seed, weight, both, mean, cost_fn):
    rng = np.random.default_rng(seed)
    y = (np.arange(n) < min(positives, n)).astype(float)
    f = np.clip(rng.normal(mean, 0.1, n), 0, 1)
    g = np.clip(rng.normal(mean, 0.1, 80), 0, 1)
    kw = {"threshold": T, "cost_fn": cost_fn, "bins": 3, "sample_check": "off"}
    plain = vc.ppi_audit(y, f, g, **kw)
    a = vc.ppi_audit(y, f, g, sample_weight=np.full(n, weight),
                     sample_weight_unlabelled=np.full(g.size, weight) if both else None, **kw)
    assert str(a) == str(plain)
    for ra, rp in zip(a.rows, plain.rows):
        assert ra.keys() == rp.keys()
        for k in ra:
            assert ra[k] == rp[k] or (ra[k] != ra[k] and rp[k] != rp[k]), (ra["quantity"], k)


# -- (b) the few-effective-labels note: the intervals of the rate and of rate - score are wide ---------------
def _few_effective_windows(windows: int = 200):
    """tests/delayed/test_ppi_weights_scale.py's design: 100 random labels of 20,000 rows, 1 % of rows
    standing for 100 cases (Kish size about 4 when a heavy row is drawn). Yields (labels' rows, the other
    rows, weights, population truths)."""
    rng = np.random.default_rng(0)
    N = 20000
    for _ in range(windows):
        f = rng.beta(1, 5, N)
        y = (rng.random(N) < np.clip(f * 1.5, 0, 1)).astype(float)
        w = np.where(rng.random(N) < 0.01, 100.0, 1.0)
        a = f >= T
        W = w.sum()
        truth = {"rate": w @ y / W, "rate - score": w @ (y - f) / W, "tp": w @ (y * a) / W,
                 "fp": w @ ((1 - y) * a) / W, "fn": w @ (y * ~a) / W, "tn": w @ ((1 - y) * ~a) / W}
        truth["cost"] = truth["fp"] + truth["fn"]
        low = f < 0.1
        truth["rate in [0, 0.1)"] = (w * low) @ y / (w @ low)
        truth["rate in [0.1, 1]"] = (w * ~low) @ y / (w @ ~low)
        lab = rng.choice(N, 100, replace=False)
        rest = np.ones(N, dtype=bool)
        rest[lab] = False
        yield y[lab], f[lab], f[rest], w[lab], w[rest], truth


def test_few_effective_labels_note_says_the_rate_and_rate_minus_score_are_wide():
    rate, gap = [], []
    for y, f, g, w, u, truth in _few_effective_windows():
        r = vc.ppi_mean(y, f, g, sample_weight=w, sample_weight_unlabelled=u, sample_check="off")
        if not any("effective labels (Kish size" in t for t in r.notes):
            continue
        (note,) = [t for t in r.notes if "effective labels (Kish size" in t]
        assert "the intervals of the rate and of rate - score, widened for uneven weights, are wide" in note
        assert "covered nearly all true rates and gaps rate - score" in note
        rate.append(r.ci_low <= truth["rate"] <= r.ci_high)
        gap.append(r.rectifier_low <= truth["rate - score"] <= r.rectifier_high)
    assert len(rate) > 100
    assert np.mean(rate) >= 0.97  # "nearly all true rates" (simulated: 1.00)
    assert np.mean(gap) >= 0.95  # "nearly all true gaps" (simulated: 0.98; 0.48 with the normal interval)


def test_few_effective_labels_note_of_the_audit_names_its_intervals():
    hits: dict[str, list[bool]] = {}
    for y, f, g, w, u, truth in _few_effective_windows():
        a = vc.ppi_audit(y, f, g, sample_weight=w, sample_weight_unlabelled=u, threshold=T, bins=[0, 0.1, 1],
                         sample_check="off")
        if "effective labels (Kish size" not in (a.note or ""):
            continue
        said = "the intervals of the rate, rate - score, the shares, the cost and the bins' rates are wide"
        assert said in a.note
        for r in a.rows:
            if r.get("sufficient") is not False:
                hits.setdefault(r["quantity"], []).append(r["ci_low"] <= truth[r["quantity"]] <= r["ci_high"])
    cov = {k: float(np.mean(v)) for k, v in hits.items()}
    assert len(hits["rate"]) > 100 and len(cov) == 9, cov
    assert min(cov.values()) > 0.90, cov  # "more than 90 % of true rates, gaps rate - score, shares and bins'
    # rates" (rate - score simulated: 0.48 with the normal interval)
