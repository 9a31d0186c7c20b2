"""A conformal coverage report says when coverage is below 1 - alpha by more than sampling noise.

Before: ``cp.coverage(P, y)`` printed ``marginal coverage 0.6440 (target >= 0.9, 1000 rows)`` and
nothing else — a shortfall far beyond noise (test rows not exchangeable with the calib rows) read
like any other number. Now the printout and the notebook add one line, ``coverage 0.6440 is below
the 0.9 target beyond sampling noise (binomial 95% interval [...]; ...)``, when the 95% Wilson
interval of the coverage lies wholly below the least coverage the calib set's own sampling noise
explains (the 0.025 quantile of the calib set's coverage law, Beta(k, n + 1 - k)), and says nothing
otherwise.

The simulation: exchangeable calib and test rows (a calibrated model's labels, fresh calib set every
replicate, test set 4x the calib set, where the test rows' binomial interval alone would flag about
one replicate in five) flag at most 5% of 200 replicates (plus Monte Carlo error); test rows whose
labels are noisier than the model says flag in every replicate.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import veracity as vc

Z = 1.959963984540054  # the standard normal's 0.975 quantile


def _softmax(z):
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _draw(rng, n, k=4, temper=1.0):
    """Rows of a calibrated k-class model; ``temper`` < 1 draws the labels from flatter
    probabilities than the model states (a shifted test set)."""
    logits = rng.normal(size=(n, k)) * 2.0
    P = _softmax(logits)
    Q = _softmax(logits * temper)
    y = (Q.cumsum(axis=1) > rng.uniform(size=(n, 1))).argmax(axis=1)
    return P, y


def _wilson(k, n, z=Z):
    centre = (k + z * z / 2) / (n + z * z)
    half = z / (n + z * z) * math.sqrt(k * (n - k) / n + z * z / 4)
    return centre - half, centre + half


def test_false_alarms_under_exchangeable_rows_are_rare():
    rng = np.random.default_rng(20261205)
    alpha, n_cal, n_test, reps = 0.1, 500, 2000, 200
    flagged = naive = 0
    for _ in range(reps):  # a loop over replicates, each one vectorised
        cp = vc.ConformalClassifier(alpha=alpha).fit(*_draw(rng, n_cal))
        report = cp.coverage(*_draw(rng, n_test))
        flagged += report.below_target
        naive += _wilson(report.marginal * n_test, n_test)[1] < 1 - alpha
    rate = flagged / reps
    mc = math.sqrt(0.05 * 0.95 / reps)
    assert rate <= 0.05 + 2 * mc, rate
    # the test rows' interval alone (the calib set's own noise left out) would flag far more often
    assert naive / reps > 0.10, naive / reps


def test_a_shifted_test_set_is_flagged():
    rng = np.random.default_rng(7)
    hits = 0
    for _ in range(20):
        cp = vc.ConformalClassifier(alpha=0.1).fit(*_draw(rng, 500))
        report = cp.coverage(*_draw(rng, 1000, temper=0.5))
        hits += report.below_target
    assert hits == 20


def test_the_flag_line_and_its_numbers():
    rng = np.random.default_rng(11)
    cp = vc.ConformalClassifier(alpha=0.1).fit(*_draw(rng, 800))
    report = cp.coverage(*_draw(rng, 1000, temper=0.4))
    low, high = _wilson(report.marginal * 1000, 1000)
    k = math.ceil(801 * 0.9 - 1e-9)  # the coverage law Beta(k, n + 1 - k); the floor its 0.025 quantile
    floor = stats.beta.ppf(0.025, k, 801 - k)
    assert report.interval == pytest.approx((low, high), abs=1e-12)
    assert report.calib_floor == pytest.approx(floor, abs=1e-12)
    assert high < floor and report.below_target
    line = (f"coverage {report.marginal:.4f} is below the 0.9 target beyond sampling noise "
            f"(binomial 95% interval [{low:.4f}, {high:.4f}]")
    text = str(report)
    assert text.splitlines()[-1].startswith(line)
    assert line in report._repr_html_()
    assert report.to_dict()["below_target"] is True


def test_nothing_is_said_within_noise():
    rng = np.random.default_rng(12)
    cp = vc.ConformalClassifier(alpha=0.1).fit(*_draw(rng, 800))
    report = cp.coverage(*_draw(rng, 1000))
    low, high = _wilson(report.marginal * 1000, 1000)
    assert high >= report.calib_floor and not report.below_target
    assert "beyond sampling noise" not in str(report)
    assert "beyond sampling noise" not in report._repr_html_()
    assert report.to_dict()["below_target"] is False


def test_mondrian_and_weighted_floors():
    rng = np.random.default_rng(13)
    P, y = _draw(rng, 2000)
    Pt, yt = _draw(rng, 1000)
    cp = vc.ConformalClassifier(alpha=0.1, mondrian=True).fit(P, y)
    report = cp.coverage(Pt, yt)
    share = np.bincount(yt, minlength=4) / yt.size
    n_c = np.bincount(y, minlength=4)
    k_c = np.ceil((n_c + 1) * 0.9 - 1e-9)
    laws = [stats.beta(k, n + 1 - k) for k, n in zip(k_c, n_c)]
    # the marginal coverage sum_c share_c C_c, matched by the Beta law of its mean and variance
    mean = sum(p * law.mean() for p, law in zip(share, laws))
    var = sum(p * p * law.var() for p, law in zip(share, laws))
    t = mean * (1 - mean) / var - 1
    assert report.calib_floor == pytest.approx(stats.beta.ppf(0.025, mean * t, (1 - mean) * t), abs=1e-12)
    # weighted calib rows: Kish's effective size (sum w)^2 / sum w^2 for the floor
    w = rng.uniform(0.2, 3.0, 2000)
    t = rng.uniform(0.2, 3.0, 1000)
    cw = vc.ConformalClassifier(alpha=0.1).fit(P, y, sample_weight=w)
    rw = cw.coverage(Pt, yt, sample_weight=t)
    n_w = w.sum() ** 2 / (w ** 2).sum()
    n_t = t.sum() ** 2 / (t ** 2).sum()
    # the measured rows' interval: the smaller of Kish's size and the sandwich size of the covered share,
    # F(1-F) W^2 / sum t^2 (h - F)^2 (session 38: Kish's alone was too narrow where uncovered rows weigh more)
    hit = cw.predict_sets(Pt)[np.arange(1000), yt]
    f = (t * hit).sum() / t.sum()
    n_t = min(n_t, f * (1 - f) * t.sum() ** 2 / (t * t * (hit - f) ** 2).sum())
    k_w = math.ceil((n_w + 1) * 0.9 - 1e-9)  # the unweighted law on the effective size
    assert rw.calib_floor == pytest.approx(stats.beta.ppf(0.025, k_w, n_w + 1 - k_w), abs=1e-12)
    assert rw.interval == pytest.approx(_wilson(rw.marginal * n_t, n_t), abs=1e-12)
