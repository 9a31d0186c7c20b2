"""Round 23, decisions: extreme alphas and targets, Mondrian APS warnings, redraw texts."""

import math
import warnings

import numpy as np
import pytest

import veracity as vc
from veracity.decisions import (conformal_coverage_law, conformal_quantile, min_calibration_size,
                                min_positives)
from veracity.decisions import _thresholds


def _enough(n: int, target: float) -> bool:
    """The check recall_threshold and conformal_quantile apply: k = ceil((n+1)·target) <= n (with the
    library's 1e-9 slack for products that are integers up to rounding)."""
    return math.ceil((n + 1) * target - 1e-9) <= n


def test_min_positives_is_the_least_n_passing_the_check():
    for target in np.round(np.linspace(0.01, 0.999, 300), 3).tolist() + [0.95, 0.9, 0.99, 0.9999]:
        n = min_positives(target)
        assert _enough(n, target) and (n == 1 or not _enough(n - 1, target)), target


def test_min_calibration_size_of_a_tiny_alpha_is_found_without_stepping_one_by_one(monkeypatch):
    # stepping by one from the estimate (1 - alpha) / alpha, off by its rounding, took 90 s for alpha = 1e-12
    # (50 million steps) and longer for smaller ones; the errors of fit, conformal_quantile and
    # simulate_redraws all call it
    real = _thresholds.ceil_rank
    calls = {"n": 0}

    def counted(x: float) -> int:
        calls["n"] += 1
        if calls["n"] > 10_000:
            raise AssertionError("min_positives stepped through more than 10,000 candidate sizes")
        return real(x)

    monkeypatch.setattr(_thresholds, "ceil_rank", counted)
    for alpha in (1e-12, 1e-13, 1e-15):
        calls["n"] = 0
        n = min_calibration_size(alpha)
        assert _enough(n, 1.0 - alpha) and not _enough(n - 1, 1.0 - alpha)


def test_an_alpha_whose_complement_rounds_to_one_is_refused_in_its_own_name(error_line):
    p, y = np.linspace(0.01, 0.99, 50), np.arange(50) % 2
    text = error_line(lambda: vc.ConformalClassifier(alpha=1e-17).fit(p, y))
    assert "alpha" in text and "too small" in text and "target" not in text, text
    text = error_line(lambda: min_calibration_size(1e-17))
    assert "alpha" in text and "target" not in text, text


def test_alpha_near_one_takes_the_smallest_score_never_the_largest():
    # k = ceil((n+1)(1 - alpha)) is 1 whenever (n+1)(1 - alpha) > 0; the tolerance of the ceiling made it 0,
    # and index k - 1 = -1 took the largest score: q̂ = 99 of 0..99, nearly every class in every set
    s = np.arange(100.0)
    alpha = 1.0 - 1e-12
    assert conformal_quantile(s, alpha) == np.min(s)
    law = conformal_coverage_law(100, alpha)
    assert (law.a, law.b) == (1.0, 100.0)      # Beta(k, n + 1 - k) with k = 1
    P = np.column_stack([1 - np.linspace(0.05, 0.95, 40), np.linspace(0.05, 0.95, 40)])
    y = np.arange(40) % 2
    cp = vc.ConformalClassifier(alpha=alpha).fit(P, y)
    smallest = np.min(1.0 - P[np.arange(40), y])   # the least LAC score: the only one at or below q̂
    assert cp.qhat_ == smallest
    np.testing.assert_array_equal(cp.predict_sets(P), 1.0 - P <= smallest)


def _mondrian_aps_case():
    rng = np.random.default_rng(4)
    n, k = 600, 3
    z = rng.normal(size=(n, k)) * 3.0
    P = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    y = np.minimum((rng.uniform(size=(n, 1)) > P.cumsum(axis=1)).sum(axis=1), k - 1)
    return P, y


def test_mondrian_aps_empty_set_warning_names_the_class_thresholds_not_the_marginal_one():
    P, y = _mondrian_aps_case()
    cp = vc.ConformalClassifier(alpha=0.1, score="aps", mondrian=True).fit(P[:300], y[:300])
    assert len(set(cp.class_qhat_.tolist())) > 1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sets = cp.predict_sets(P[300:])
    said = [str(c.message) for c in caught if "empty prediction sets" in str(c.message)]
    assert said, "the case must leave confident rows with empty sets"
    # independently: the empty rows whose top class's probability (its APS score) passes that class's q̂
    Pt = P[300:]
    top, arg = Pt.max(axis=1), Pt.argmax(axis=1)
    confident = ~sets.any(axis=1) & (top > cp.class_qhat_[arg])
    assert f"{int(confident.sum())} of them for confident rows" in said[0]
    assert f"top probability {top[confident].min():.6g} or more" in said[0], said[0]
    assert f"q̂ = {cp.qhat_:.6g}" not in said[0], said[0]   # the marginal q̂ is used by no Mondrian set


def _weighted_pool():
    rng = np.random.default_rng(0)
    s = rng.random(4000)
    y = (rng.random(4000) < s).astype(int)
    w = np.where(y == 1, rng.random(4000) + 0.5, 1.0)
    return s, y, w


def test_weighted_redraws_do_not_describe_the_unweighted_rank():
    s, y, w = _weighted_pool()
    r = vc.simulate_redraws(s, y, n_calib=200, n_resamples=50, random_state=1, sample_weight=w)
    assert r.weighted
    text = str(r)
    assert "k = ceil((n+1)·target)" not in text and "cumulative weight" in text, text
    plain = str(vc.simulate_redraws(s, y, n_calib=200, n_resamples=50, random_state=1))
    assert "k = ceil((n+1)·target)" in plain


@pytest.mark.parametrize("correction", [True, False])
def test_min_positives_agrees_with_recall_threshold(correction, error_line):
    # the minimum a too-few-positives error names is enough, and one fewer is not
    for target in (0.8, 0.9, 0.95, 0.975):
        need = min_positives(target, correction)
        ones = np.ones(need)
        vc.recall_threshold(np.linspace(0.1, 0.9, need), ones, target=target, correction=correction)
        if need > 1:
            error_line(lambda: vc.recall_threshold(np.linspace(0.1, 0.9, need - 1), ones[1:], target=target,
                                                   correction=correction))


def test_redraws_take_a_ranking_score_as_recall_threshold_does():
    # the threshold is the k-th highest calib positive: an order statistic. recall_threshold takes
    # score_type="score"; simulate_redraws refused it, saying it "reads the scores as probabilities"
    rng = np.random.default_rng(0)
    s = rng.normal(size=3000) * 5
    y = (rng.random(3000) < 1 / (1 + np.exp(-s))).astype(int)
    ranked = vc.simulate_redraws(s, y, n_calib=400, n_resamples=60, random_state=0, score_type="score")
    logits = vc.simulate_redraws(s, y, n_calib=400, n_resamples=60, random_state=0, score_type="logit")
    np.testing.assert_array_equal(ranked.thresholds, logits.thresholds)
    np.testing.assert_array_equal(ranked.deployed_recall, logits.deployed_recall)
    # the thresholds are those recall_threshold fits on the same draws' positives: the k-th highest
    k = np.ceil((ranked.calib_positives + 1) * 0.95 - 1e-9).astype(int)
    assert np.all(ranked.calib_recall >= k / ranked.calib_positives)


def test_predict_sets_refuses_binary_probabilities_declared_logits_as_multiclass_ones_are(error_line):
    rng = np.random.default_rng(0)
    z = rng.normal(size=200) * 3
    y = (rng.random(200) < 1 / (1 + np.exp(-z))).astype(int)
    p = 1 / (1 + np.exp(-z))
    cp = vc.ConformalClassifier(score_type="logit").fit(z, y)
    # read as logits, these probabilities went through the sigmoid again (every p in [0.5, 0.73]): sets of
    # another size than the same rows' logits give, silently
    text = error_line(lambda: cp.predict_sets(p))
    assert "logit" in text and "[0, 1]" in text, text
    Z = np.column_stack([np.zeros(200), z])   # the (N, K) form of the same model was refused already
    multi = vc.ConformalClassifier(score_type="logit").fit(Z, y)
    error_line(lambda: multi.predict_sets(np.exp(Z) / np.exp(Z).sum(axis=1, keepdims=True)))
    # logits are read as before, and a few logits inside [0, 1] are plausible: not refused
    sets = cp.predict_sets(z)
    np.testing.assert_array_equal(sets, vc.ConformalClassifier().fit(p, y).predict_sets(p))
    assert cp.predict_sets([0.3]).shape == (1, 2)
