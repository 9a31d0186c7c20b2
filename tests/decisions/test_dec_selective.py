"""Selective prediction: risk–coverage, AURC, and the Clopper–Pearson abstention guarantee."""

import json
import warnings

import numpy as np
import pytest
from scipy import stats

import veracity as vc
from veracity import VeracityError
from veracity.decisions import DEFAULT_CANDIDATES


def _confident(rng, n):
    """Confidence c ~ U(0.5, 1), correct ~ Bernoulli(c): true selective risk R(t) = (1 - t)/2."""
    c = rng.uniform(0.5, 1.0, n)
    return c, (rng.random(n) < c).astype(int)


def test_risk_coverage_definition_without_ties():
    rng = np.random.default_rng(0)
    c, ok = _confident(rng, 500)
    rc = vc.risk_coverage(c, ok, reading="confidence")
    order = np.argsort(-c)
    err = 1 - ok[order]
    i = np.arange(1, 501)
    np.testing.assert_allclose(rc.coverage, i / 500)
    np.testing.assert_allclose(rc.risk, np.cumsum(err) / i)
    # AURC (Geifman et al. 2019) = mean over i of risk at coverage i/N when there are no ties
    assert rc.aurc == pytest.approx(np.mean(np.cumsum(err) / i))
    assert rc.risk[-1] == pytest.approx(1 - ok.mean())


def test_risk_coverage_groups_ties_and_weights_equal_repetition():
    c = np.array([0.9, 0.9, 0.8, 0.8, 0.8, 0.6])
    ok = np.array([1, 0, 1, 1, 1, 0])
    w = np.array([1, 2, 1, 3, 1, 2])
    a = vc.risk_coverage(c, ok, reading="confidence", sample_weight=w)
    b = vc.risk_coverage(np.repeat(c, w), np.repeat(ok, w), reading="confidence")
    np.testing.assert_allclose(a.thresholds, [0.9, 0.8, 0.6])
    for col in ("coverage", "risk", "accepted", "errors"):
        np.testing.assert_allclose(getattr(a, col), getattr(b, col))
    assert a.aurc == pytest.approx(b.aurc)


def test_top_label_readings():
    # binary probabilities: predict p >= 0.5, confidence max(p, 1 - p)
    p = np.array([0.95, 0.1, 0.6, 0.45, 0.3])
    y = np.array([1, 0, 0, 1, 0])
    rc = vc.risk_coverage(p, y)
    np.testing.assert_allclose(rc.thresholds, [0.95, 0.9, 0.7, 0.6, 0.55])
    np.testing.assert_allclose(rc.errors, [0, 0, 0, 1, 2])
    # multiclass: max probability and argmax correctness
    P = np.array([[0.7, 0.2, 0.1], [0.2, 0.5, 0.3], [0.4, 0.35, 0.25]])
    rc = vc.risk_coverage(P, [0, 2, 0])
    np.testing.assert_allclose(rc.thresholds, [0.7, 0.5, 0.4])
    np.testing.assert_allclose(rc.errors, [0, 1, 1])
    assert rc.risk_at(1.0) == pytest.approx(1 / 3)
    doc = json.loads(json.dumps(rc.to_dict()))
    assert doc["points"] == 3 and "AURC" in str(rc)


def test_selective_threshold_definition():
    rng = np.random.default_rng(1)
    c, ok = _confident(rng, 3000)
    res = vc.selective_threshold(c, ok, target_risk=0.1, delta=0.1, reading="confidence")
    assert res.feasible and res.method == "bonferroni" and res.candidates == len(DEFAULT_CANDIDATES)
    acc = c >= res.threshold
    assert res.accepted == acc.sum() and res.errors == (1 - ok[acc]).sum()
    # the Clopper–Pearson upper bound at level 1 - delta/J, recomputed from scipy's beta quantile
    J = len(DEFAULT_CANDIDATES)
    e, n = res.errors, res.accepted
    assert res.risk_upper_bound == pytest.approx(stats.beta.ppf(1 - 0.1 / J, e + 1, n - e))
    assert res.risk_upper_bound <= 0.1
    # the next lower candidate is not certified (or the chosen one is the lowest)
    lower = DEFAULT_CANDIDATES[DEFAULT_CANDIDATES < res.threshold]
    if lower.size:
        a2 = c >= lower[-1]
        e2, n2 = (1 - ok[a2]).sum(), a2.sum()
        assert stats.beta.ppf(1 - 0.1 / J, e2 + 1, n2 - e2) > 0.1
    assert float(res) == res.threshold
    assert "coverage" in str(res) and json.dumps(res.to_dict())


def test_selective_guarantee_by_simulation():
    # true risk R(t) = (1 - t)/2 for the generator above; over many calib draws the chosen
    # threshold's true risk may exceed the target in at most about delta of them.
    rng = np.random.default_rng(2)
    target, delta, R, n = 0.15, 0.2, 300, 2000
    true_risk = np.empty(R)
    naive_risk = np.empty(R)
    single = np.empty(R, dtype=bool)
    t_single = 0.69  # R(0.69) = 0.155 > target: certifying it is a false claim
    for r in range(R):
        c, ok = _confident(rng, n)
        res = vc.selective_threshold(c, ok, target_risk=target, delta=delta, reading="confidence")
        true_risk[r] = (1 - res.threshold) / 2
        # naive: lowest candidate whose *empirical* risk is <= target (no bound)
        emp = np.array([1 - ok[c >= t].mean() if (c >= t).any() else 1.0 for t in DEFAULT_CANDIDATES])
        naive_risk[r] = (1 - DEFAULT_CANDIDATES[np.flatnonzero(emp <= target)[0]]) / 2
        with warnings.catch_warnings():  # not certified (the usual outcome) warns
            warnings.simplefilter("ignore", UserWarning)
            one = vc.selective_threshold(c, ok, target_risk=target, delta=delta, candidates=[t_single],
                                         reading="confidence")
        single[r] = one.feasible
    se = np.sqrt(delta * (1 - delta) / R)
    assert np.mean(true_risk > target) <= delta + 3 * se
    assert np.mean(single) <= delta + 3 * se  # one candidate: the plain Clopper–Pearson guarantee
    assert np.mean(naive_risk > target) > delta + 3 * se  # without the bound the claim fails often
    assert np.all(true_risk <= target + 0.03)  # and the guarantee is not bought by answering nothing


def test_selective_infeasible_warns_and_abstains():
    rng = np.random.default_rng(3)
    c, ok = _confident(rng, 40)
    with pytest.warns(UserWarning, match="abstaining on everything"):
        res = vc.selective_threshold(c, ok, target_risk=0.01, delta=0.05, reading="confidence")
    assert not res.feasible and res.threshold == float("inf") and res.coverage == 0.0
    assert "abstain" in str(res)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(target_risk=0.0), r"target_risk must be in \(0, 1\), e\.g\. 0\.05;"),  # a risk, not 0.95
        (dict(target_risk=1.5), r"target_risk must be in \(0, 1\)"),
        (dict(target_risk=0.1, delta=0.0), r"delta must be in \(0, 1\)"),
        (dict(target_risk=0.1, reading="nope"), "reading must be"),
        (dict(target_risk=0.1, reading="confidence", score_type="logit"), "explicit candidates"),
    ],
)
def test_selective_bad_input(kwargs, message):
    with pytest.raises(VeracityError, match=message):
        vc.selective_threshold([0.6, 0.7, 0.9], [1, 0, 1], **kwargs)


def test_risk_coverage_bad_input():
    with pytest.raises(VeracityError, match="1-D confidences"):
        vc.risk_coverage([[0.6, 0.4]], [1], reading="confidence")
    with pytest.raises(VeracityError, match="labels must be binary"):
        vc.risk_coverage([0.6, 0.7], [1, 3])


# -- sample_weight (issue 21) ---------------------------------------------------------------
def test_selective_threshold_equal_weights_change_nothing_and_zero_weights_drop_rows():
    rng = np.random.default_rng(31)
    conf, correct = _confident(rng, 3000)
    y = correct.astype(int)
    plain = vc.selective_threshold(conf, y, target_risk=0.1, reading="confidence")
    equal = vc.selective_threshold(conf, y, target_risk=0.1, reading="confidence", sample_weight=np.full(3000, 7.0))
    assert plain.to_dict() == equal.to_dict()
    w = rng.uniform(0.5, 2.0, 3000)
    w[::4] = 0.0
    keep = w > 0
    a = vc.selective_threshold(conf, y, target_risk=0.1, reading="confidence", sample_weight=w)
    b = vc.selective_threshold(conf[keep], y[keep], target_risk=0.1, reading="confidence", sample_weight=w[keep])
    assert a.to_dict() == b.to_dict()


def test_weighted_selective_threshold_by_definition():
    """Weighted coverage and risk of the chosen threshold; the bound is Clopper-Pearson at Kish's
    effective size, or the sandwich's where smaller (reference computed here with scipy's beta quantile)."""
    rng = np.random.default_rng(32)
    conf, correct = _confident(rng, 2000)
    w = rng.uniform(0.2, 3.0, 2000)
    r = vc.selective_threshold(conf, correct.astype(int), target_risk=0.15, reading="confidence", sample_weight=w)
    assert r.feasible
    t = r.threshold
    ans = conf >= t
    assert r.coverage == pytest.approx(w[ans].sum() / w.sum(), rel=1e-12)
    assert r.risk == pytest.approx((w * (1 - correct))[ans].sum() / w[ans].sum(), rel=1e-12)
    wa, ea = w[ans], 1.0 - correct[ans]
    spread = (wa * wa * (ea - r.risk) ** 2).sum()  # the sandwich's size, where below Kish's (round 35)
    n_eff = min(wa.sum() ** 2 / (wa ** 2).sum(), r.risk * (1 - r.risk) * wa.sum() ** 2 / spread)
    e_eff = r.risk * n_eff
    J = DEFAULT_CANDIDATES.size
    assert r.risk_upper_bound == pytest.approx(stats.beta.ppf(1 - 0.1 / J, e_eff + 1, n_eff - e_eff), rel=1e-9)
    assert r.risk_upper_bound <= 0.15
