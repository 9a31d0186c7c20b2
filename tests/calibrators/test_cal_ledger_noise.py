"""Ledger verdicts that know their noise (issue 22).

"accuracy@0.5 −0.0001 REGRESSION" for 36 of 20,000 flipped decisions must read as within
noise; "+0.0336 better" when no calibrated score reaches 0.5 must say that no score
crosses 0.5; every change carries its paired interval.
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc
from veracity.calibrators._noise import (
    delong_difference_interval,
    ece_difference_interval,
    paired_mean_interval,
)


def _platt(a: float, b: float) -> vc.PlattScaling:
    """A Platt map σ(a·s + b) on logits with the given coefficients (fit on two points, then set)."""
    c = vc.PlattScaling(score_type="logit").fit(np.array([-1.0, -0.5, 0.5, 1.0]), np.array([0, 1, 0, 1]))
    setattr(c, "a_", a)
    setattr(c, "b_", b)
    return c


def test_few_flipped_decisions_are_within_noise():
    rng = np.random.default_rng(0)
    n = 20_000
    s = rng.normal(0.0, 2.0, n)
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-s))).astype(int)
    cal = _platt(1.0, 0.004)  # moves the 0.5 cut a hair: a few dozen decisions flip
    led = vc.compare(s, y, cal)
    flips = int(((s >= 0) != (s * 1.0 + 0.004 >= 0)).sum())
    assert 10 <= flips <= 100
    row = led.row("accuracy@0.5")
    assert row.change != 0 and abs(row.change) <= flips / n
    assert row.verdict == "within noise" and not row.regression
    assert row.ci_low < 0 < row.ci_high
    # the paired interval by hand (since session 44; the Student-t interval of d in {-1, 0, 1} called a
    # few flips the same way a change): the hull of Newcombe's hybrid score interval (MOVER of the margins'
    # Wilson intervals, continuity-corrected phi) and the exact conditional one (Clopper-Pearson of the
    # gains among the flips, scaled by flips / n)
    from scipy.stats import binomtest
    from statsmodels.stats.proportion import proportion_confint

    after = (s * 1.0 + 0.004 >= 0) == (y == 1)
    before = (s >= 0) == (y == 1)
    a, b, c = int((after & before).sum()), int((after & ~before).sum()), int((~after & before).sum())
    d = n - a - b - c
    l1, u1 = proportion_confint(a + b, n, 0.05, method="wilson")
    l2, u2 = proportion_confint(a + c, n, 0.05, method="wilson")
    p1, p2 = (a + b) / n, (a + c) / n
    cross = a * d - b * c
    kept = cross - n / 2 if cross > n / 2 else (0.0 if cross >= 0 else cross)
    phi = kept / np.sqrt((a + b) * (c + d) * (a + c) * (b + d))
    est = (b - c) / n
    low = est - np.sqrt((p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2)
    high = est + np.sqrt((p2 - l2) ** 2 - 2 * phi * (p2 - l2) * (u1 - p1) + (u1 - p1) ** 2)
    exact = binomtest(b, b + c).proportion_ci(0.95, method="exact")
    low = min(low, (b + c) / n * (2 * exact.low - 1))
    high = max(high, (b + c) / n * (2 * exact.high - 1))
    assert row.ci_low == pytest.approx(low, abs=1e-12)
    assert row.ci_high == pytest.approx(high, abs=1e-12)
    text = str(led)
    assert "within noise" in text and "REGRESSION" not in text.split("certificates")[0].split("accuracy@0.5")[1]
    assert f"[{row.ci_low:+.4f}, {row.ci_high:+.4f}]" in text


def test_a_real_regression_is_still_called_one():
    rng = np.random.default_rng(1)
    n = 5000
    s = rng.normal(0.0, 2.0, n)
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-s))).astype(int)
    led = vc.compare(s, y, _platt(1.0, 1.5))  # shifts the cut by 1.5 logits: many wrong flips
    row = led.row("accuracy@0.5")
    assert row.verdict == "REGRESSION" and row.regression and row.ci_high < 0
    assert led.regressions and "regressions (reported, not hidden)" in str(led)
    ece = led.row("ECE")
    assert ece.verdict == "REGRESSION" and ece.ci_low > 0


def test_no_score_crossing_half_is_said():
    rng = np.random.default_rng(2)
    n = 4000
    s = rng.normal(-2.0, 1.2, n)  # overconfident raw logits of a rare outcome
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-(0.5 * s - 1.5)))).astype(int)
    cal = _platt(0.5, -1.5)  # the true map: no calibrated score reaches 0.5
    p_after = 1 / (1 + np.exp(-(0.5 * s - 1.5)))
    assert p_after.max() < 0.5 and (s >= 0).sum() > 0
    led = vc.compare(s, y, cal)
    row = led.row("accuracy@0.5")
    assert row.change > 0  # the number alone would read "better"
    assert row.verdict == "no score >= 0.5 after" and not row.regression
    assert "share of negatives" in row.note
    assert "better" not in str(led).split("accuracy@0.5")[1].splitlines()[0]


def test_every_change_has_its_interval_and_json_keys():
    rng = np.random.default_rng(3)
    n = 3000
    s = rng.normal(0.0, 3.0, n)
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-s / 2))).astype(int)
    cal = vc.TemperatureScaling(score_type="logit").fit(s[:1000], y[:1000])
    led = vc.compare(s[1000:], y[1000:], cal)
    doc = led.to_dict()
    for r in doc["rows"]:
        assert {"ci_low", "ci_high", "verdict", "worse", "regression"} <= set(r)
    assert doc["level"] == 0.95 and doc["n_resamples"] == 200
    for r in led.rows:
        if r.metric != "AUC" and r.metric != "accuracy@0.5":
            assert r.ci_low <= r.ci_high
    assert led.row("AUC").verdict == "same" and led.row("accuracy@0.5").verdict == "same"
    assert led.row("ECE").verdict == "better" and led.row("ECE").ci_high < 0
    # reproducible: the ECE bootstrap is seeded
    again = vc.compare(s[1000:], y[1000:], cal)
    assert again.row("ECE").ci_low == led.row("ECE").ci_low


def test_paired_mean_interval_is_the_per_row_difference_interval():
    rng = np.random.default_rng(4)
    d = rng.normal(0.1, 1.0, 500)
    lo, hi = paired_mean_interval(d, None, 0.95)
    from scipy import stats

    ref = stats.t.interval(0.95, d.size - 1, loc=d.mean(), scale=stats.sem(d))  # the paired t interval
    assert (lo, hi) == pytest.approx(ref, abs=1e-12)
    # weighted: the one rule vc.compare_models uses (Kish size - 1 degrees of freedom)
    from veracity.comparison._paired import paired_mean

    w = rng.random(d.size) + 0.5
    e = paired_mean(d, w, 0.95)
    assert paired_mean_interval(d, w, 0.95) == (e.low, e.high)
    # integer weights = repeated rows (the Kish size equals the row count here only unweighted;
    # with equal weights every number is the same as unweighted)
    lo_w, hi_w = paired_mean_interval(d, np.full(d.size, 3.0), 0.95)
    assert (lo_w, hi_w) == pytest.approx((lo, hi), abs=1e-12)


def _delong_by_definition(s0, s1, y, level):
    """DeLong, DeLong & Clarke-Pearson (1988) written out with the O(n1·n0) kernel
    psi(x, z) = [x > z] + 1/2 [x = z]: placements V10 (positives) and V01 (negatives) per model,
    S10 and S01 their sample covariance matrices, Var(A1 - A0) = c' (S10/n1 + S01/n0) c, c = (-1, 1);
    Student's t on the Welch–Satterthwaite degrees of freedom of the two terms (round 23)."""
    from scipy.stats import t

    pos, neg = y == 1, y == 0
    v10, v01, aucs = [], [], []
    for s in (s0, s1):
        psi = (s[pos][:, None] > s[neg][None, :]) + 0.5 * (s[pos][:, None] == s[neg][None, :])
        v10.append(psi.mean(axis=1))
        v01.append(psi.mean(axis=0))
        aucs.append(psi.mean())
    s10, s01 = np.cov(np.vstack(v10)), np.cov(np.vstack(v01))
    c = np.array([-1.0, 1.0])
    n1, n0 = pos.sum(), neg.sum()
    v1, v0 = c @ s10 @ c / n1, c @ s01 @ c / n0
    var = v1 + v0
    df = var**2 / (v1**2 / (n1 - 1) + v0**2 / (n0 - 1))
    diff = aucs[1] - aucs[0]
    half = t.ppf(0.5 + level / 2, df) * np.sqrt(var)
    return diff, diff - half, diff + half


def test_delong_interval_equals_the_definition():
    """The ledger's AUC-change interval against DeLong's formula computed here from the pairwise
    kernel (ties scored 1/2), not from veracity's one-sort placements."""
    rng = np.random.default_rng(5)
    n = 900
    y = (rng.uniform(size=n) < 0.3).astype(float)
    s0 = y + rng.normal(0, 1.2, n)
    s1 = np.round(y * 0.9 + rng.normal(0, 1.0, n), 1)  # ties
    diff, lo, hi = delong_difference_interval(s0, s1, y, None, 0.9)
    want = _delong_by_definition(s0, s1, y, 0.9)
    assert diff == pytest.approx(want[0], abs=1e-12)
    assert (lo, hi) == pytest.approx(want[1:], abs=1e-10)
    from sklearn.metrics import roc_auc_score

    assert diff == pytest.approx(roc_auc_score(y, s1) - roc_auc_score(y, s0), abs=1e-12)


def test_intervals_cover_under_the_null():
    """Seeded simulation: when the calibrator changes nothing on average, a change is called
    beyond noise in about 5 % of evaluation sets (accuracy, Brier, AUC)."""
    rng = np.random.default_rng(6)
    calls = {"acc": 0, "brier": 0, "auc": 0}
    sims = 400
    for _ in range(sims):
        n = 600
        y = (rng.uniform(size=n) < 0.4).astype(float)
        # two exchangeable forecasts of the same rows: the difference has mean 0
        z = y + rng.normal(0, 1, n)
        a = z + rng.normal(0, 0.5, n)
        b = z + rng.normal(0, 0.5, n)
        pa, pb = 1 / (1 + np.exp(-(a - 0.4))), 1 / (1 + np.exp(-(b - 0.4)))
        lo, hi = paired_mean_interval(((pb >= .5) == (y == 1)).astype(float) - ((pa >= .5) == (y == 1)), None, 0.95)
        calls["acc"] += not (lo <= 0 <= hi)
        lo, hi = paired_mean_interval((pb - y) ** 2 - (pa - y) ** 2, None, 0.95)
        calls["brier"] += not (lo <= 0 <= hi)
        _, lo, hi = delong_difference_interval(a, b, y, None, 0.95)
        calls["auc"] += not (lo <= 0 <= hi)
    for k, v in calls.items():
        assert v / sims == pytest.approx(0.05, abs=0.035), k


def test_ece_bootstrap_interval_normal_and_exact_agree():
    import veracity.calibrators._noise as noise

    rng = np.random.default_rng(7)
    n = 8000
    p0 = rng.uniform(size=n)
    y = (rng.uniform(size=n) < p0 ** 1.5).astype(float)
    p1 = p0 ** 1.5
    edges = (np.linspace(0, 1, 16), np.linspace(0, 1, 16))
    exact = ece_difference_interval(p0, y, p1, y, None, edges, "uniform", n_resamples=400, random_state=0,
                                    level=0.95)
    old = noise._EXACT
    try:
        noise._EXACT = 0
        approx = ece_difference_interval(p0, y, p1, y, None, edges, "uniform", n_resamples=4000,
                                         random_state=0, level=0.95)
    finally:
        noise._EXACT = old
    assert approx == pytest.approx(exact, abs=0.004)
    assert exact[1] < 0  # the repair is beyond noise


def test_platt_and_beta_print_one_sign():
    c = _platt(1.0322, -0.05)
    assert str(c) == "Platt scaling: p = sigmoid(1.0322 * x - 0.0500)"
    c = _platt(1.0322, 0.05)
    assert str(c) == "Platt scaling: p = sigmoid(1.0322 * x + 0.0500)"
    assert "+ +" not in str(c) and "+ -" not in str(c)
    rng = np.random.default_rng(0)
    p = rng.uniform(0.01, 0.99, 500)
    b = vc.BetaCalibration().fit(p, (rng.uniform(size=500) < p).astype(int))
    assert "+ +" not in str(b) and "+ -" not in str(b) and ") +" not in str(b).replace("ln(1-p) +", "")


def test_multiclass_ledger_says_what_each_number_reads():
    rng = np.random.default_rng(9)
    z = rng.normal(size=(3000, 4)) * 2
    y = z.argmax(1)
    flip = rng.uniform(size=3000) < 0.3
    y[flip] = rng.integers(0, 4, flip.sum())
    t = vc.TemperatureScaling(score_type="logit").fit(z[:1000], y[:1000])
    led = vc.compare(z[1000:], y[1000:], t)
    text = str(led)
    assert "NLL is the full multiclass log-loss" in text and "top-label confidence" in text
    # NLL: the categorical log-loss; Brier: (top-label confidence − correct)²
    zz = z[1000:]
    logp = zz - np.log(np.exp(zz).sum(1, keepdims=True))
    assert led.row("NLL").before == pytest.approx(-logp[np.arange(2000), y[1000:]].mean(), rel=1e-12)
    p = np.exp(logp)
    conf, correct = p.max(1), (p.argmax(1) == y[1000:]).astype(float)
    assert led.row("Brier").before == pytest.approx(((conf - correct) ** 2).mean(), rel=1e-12)
    assert "full multiclass" in led.row("NLL").what and "top-label" in led.row("Brier").what
