"""scikit-learn as an oracle for the quantities it computes too."""

import numpy as np
import pytest
from sklearn.calibration import calibration_curve
from sklearn.metrics import brier_score_loss, log_loss, roc_auc_score

import veracity as vc


def _data(seed, n=2000, ties=True):
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    if ties:  # heavy ties and boundary values
        p[: n // 4] = np.round(p[: n // 4], 1)
        p[n // 4 : n // 4 + 30] = rng.choice([0.3, 0.7, 1.0, 0.0], size=30)
    y = (rng.random(n) < p).astype(int)
    w = rng.uniform(0.1, 3.0, n)
    return p, y, w


@pytest.mark.parametrize("seed", range(5))
def test_auc_matches_roc_auc_score(seed):
    p, y, w = _data(seed)
    assert vc.auc(p, y) == pytest.approx(roc_auc_score(y, p), abs=1e-12)
    assert vc.auc(p, y, sample_weight=w) == pytest.approx(roc_auc_score(y, p, sample_weight=w), abs=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_brier_and_nll_match_sklearn(seed):
    p, y, w = _data(seed)
    assert vc.brier(p, y) == pytest.approx(brier_score_loss(y, p), abs=1e-14)
    assert vc.brier(p, y, sample_weight=w) == pytest.approx(brier_score_loss(y, p, sample_weight=w), abs=1e-14)
    assert vc.nll(p, y) == pytest.approx(log_loss(y, p), rel=1e-12)
    assert vc.nll(p, y, sample_weight=w) == pytest.approx(log_loss(y, p, sample_weight=w), rel=1e-12)


def test_nll_from_logits_matches_log_loss():
    rng = np.random.default_rng(7)
    s = rng.normal(0, 3, 5000)
    y = (rng.random(5000) < 1 / (1 + np.exp(-s))).astype(int)
    assert vc.nll(s, y, score_type="logit") == pytest.approx(log_loss(y, 1 / (1 + np.exp(-s))), rel=1e-10)


def test_multiclass_nll_matches_log_loss():
    rng = np.random.default_rng(3)
    z = rng.normal(size=(1000, 4))
    P = np.exp(z) / np.exp(z).sum(1, keepdims=True)
    y = rng.integers(0, 4, 1000)
    assert vc.nll(P, y) == pytest.approx(log_loss(y, P), rel=1e-12)
    assert vc.nll(z, y, score_type="logit") == pytest.approx(log_loss(y, P), rel=1e-10)


@pytest.mark.parametrize("bins", [5, 10, 15])
def test_uniform_table_matches_calibration_curve(bins):
    rng = np.random.default_rng(bins)
    # keep scores away from bin edges so both binning rules agree
    centre = rng.integers(0, bins, 4000)
    p = (centre + rng.uniform(0.05, 0.95, 4000)) / bins
    y = (rng.random(4000) < p ** 1.5).astype(int)
    prob_true, prob_pred = calibration_curve(y, p, n_bins=bins, strategy="uniform")
    table = vc.reliability(p, y, bins=bins)
    np.testing.assert_allclose([r.acc for r in table.rows], prob_true, atol=1e-12)
    np.testing.assert_allclose([r.conf for r in table.rows], prob_pred, atol=1e-12)


def test_quantile_table_has_equal_mass():
    rng = np.random.default_rng(1)
    p = rng.random(10_000)
    table = vc.reliability(p, (rng.random(10_000) < p).astype(int), bins=10, strategy="quantile")
    assert [r.count for r in table.rows] == [1000] * 10


def test_accuracy_matches_definition():
    p, y, w = _data(11)
    assert vc.accuracy(p, y) == pytest.approx(np.mean((p >= 0.5) == y), abs=0)
    assert vc.accuracy(p, y, threshold=0.3, sample_weight=w) == pytest.approx(
        np.average((p >= 0.3) == y, weights=w), abs=1e-15
    )


def test_ece_definition_by_hand():
    p, y, _ = _data(5, ties=False)
    idx = np.minimum((p * 15).astype(int), 14)
    total = 0.0
    for b in range(15):  # the definition, a loop over bins
        m = idx == b
        if m.any():
            total += m.mean() * abs(y[m].mean() - p[m].mean())
    assert vc.ece(p, y) == pytest.approx(total, abs=1e-13)
    assert vc.ece(p, y, norm="max") == pytest.approx(vc.mce(p, y, min_count=0), abs=0)  # every non-empty bin
