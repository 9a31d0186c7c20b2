"""Model comparison against definitions and independent implementations.

Oracles: DeLong's variance from the O(n²) Mann–Whitney kernel, written here
independently of the O(n log n) placements (DeLong, DeLong & Clarke-Pearson 1988), its p-value
Student's t on the Welch–Satterthwaite degrees of freedom of the two class terms (round 23);
``dcurves`` (Sjoberg's Python port of Vickers' decision curve analysis) for net benefit;
``vc.corp`` / ``vc.brier`` / ``vc.nll`` / ``vc.ece(estimator="debiased")`` for the per-model
numbers; per-row definitions for the Murphy diagram, the net-benefit intervals and the cost.
"""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import veracity as vc
from veracity.comparison._paired import paired_mean


def _two(seed, n, ties=False, weights=False):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=n)
    y = (rng.random(n) < 1 / (1 + np.exp(-z))).astype(float)
    a = 1 / (1 + np.exp(-(0.7 * z + rng.normal(size=n))))
    b = 1 / (1 + np.exp(-(1.2 * z + 0.6 * rng.normal(size=n))))
    if ties:
        a, b = np.round(a, 1), np.round(b, 2)
    w = rng.integers(1, 4, n).astype(float) if weights else None
    return a, b, y, w


# -- DeLong ------------------------------------------------------------------------------------
def _kernel_delong(a, b, y, w=None):
    """DeLong's paired variance of AUC_b - AUC_a from the full n1 x n0 kernel (independent reference)."""
    pos, neg = y == 1, y == 0
    w = np.ones(y.size) if w is None else w
    wp, wn = w[pos], w[neg]
    out = {}
    for name, s in (("a", a), ("b", b)):
        psi = (s[pos][:, None] > s[neg][None, :]) + 0.5 * (s[pos][:, None] == s[neg][None, :])
        v10 = psi @ wn / wn.sum()
        v01 = wp @ psi / wp.sum()
        out[name] = (float(np.dot(wp, v10) / wp.sum()), v10, v01)

    def cov(x, u, weights):
        # kappa, the paired mean's unbiasing factor, from its definition (n/(n - 1) for equal weights)
        h = weights / weights.sum()
        kappa = np.sum(h**2) / np.sum(h**2 * (1 - 2 * h + np.sum(h**2)))
        mx, mu = np.dot(weights, x) / weights.sum(), np.dot(weights, u) / weights.sum()
        return np.sum(weights**2 * (x - mx) * (u - mu)) / weights.sum() ** 2 * kappa

    terms, nus = [], []
    for k, weights in ((1, wp), (2, wn)):
        xa, xb = out["a"][k], out["b"][k]
        terms.append(cov(xa, xa, weights) + cov(xb, xb, weights) - 2 * cov(xa, xb, weights))
        nus.append(weights.sum() ** 2 / np.sum(weights**2) - 1)  # Kish's effective size less one
    var = sum(terms)
    df = var**2 / sum(t**2 / nu for t, nu in zip(terms, nus))  # Welch–Satterthwaite
    diff = out["b"][0] - out["a"][0]
    p = 2 * stats.t.sf(abs(diff) / np.sqrt(var), df)
    return out["a"][0], out["b"][0], var, p


def _kernel_delong_unweighted_textbook(a, b, y):
    """The textbook form: S10, S01 as np.cov of the placements (ddof=1), var = .../n1 + .../n0."""
    pos, neg = y == 1, y == 0
    v10, v01 = [], []
    for s in (a, b):
        psi = (s[pos][:, None] > s[neg][None, :]) + 0.5 * (s[pos][:, None] == s[neg][None, :])
        v10.append(psi.mean(axis=1))
        v01.append(psi.mean(axis=0))
    s10, s01 = np.cov(np.vstack(v10)), np.cov(np.vstack(v01))
    c = np.array([-1.0, 1.0])
    n1, n0 = pos.sum(), neg.sum()
    v1, v0 = c @ s10 @ c / n1, c @ s01 @ c / n0
    var = v1 + v0
    df = var**2 / (v1**2 / (n1 - 1) + v0**2 / (n0 - 1))  # Welch–Satterthwaite
    diff = v10[1].mean() - v10[0].mean()
    return var, 2 * stats.t.sf(abs(diff) / np.sqrt(var), df)


@pytest.mark.parametrize("seed,n,ties", [(0, 60, False), (1, 300, True), (2, 1000, False), (3, 25, True)])
def test_delong_variance_and_p_value_equal_the_kernel_form(seed, n, ties):
    a, b, y, _ = _two(seed, n, ties=ties)
    r = vc.compare_models({"a": a, "b": b}, y, n_resamples=0).row("auc")
    auc_a, auc_b, var, p = _kernel_delong(a, b, y)
    var2, p2 = _kernel_delong_unweighted_textbook(a, b, y)
    assert r.value_a == pytest.approx(auc_a, abs=1e-12) and r.value_a == pytest.approx(vc.auc(a, y), abs=1e-12)
    assert r.value_b == pytest.approx(auc_b, abs=1e-12)
    assert abs(r.se**2 - var) <= 1e-10 * var and abs(var - var2) <= 1e-10 * var
    assert abs(r.p_value - p) <= 1e-10 and abs(p - p2) <= 1e-10


def test_weighted_delong_equals_the_weighted_kernel_form():
    a, b, y, w = _two(4, 400, ties=True, weights=True)
    r = vc.compare_models({"a": a, "b": b}, y, sample_weight=w, n_resamples=0).row("auc")
    auc_a, auc_b, var, p = _kernel_delong(a, b, y, w)
    assert r.value_a == pytest.approx(vc.auc(a, y, sample_weight=w), abs=1e-12)
    assert r.diff == pytest.approx(auc_b - auc_a, abs=1e-12)
    assert abs(r.se**2 - var) <= 1e-10 * var and abs(r.p_value - p) <= 1e-10


def test_delong_on_logits_ranks_the_logits():
    rng = np.random.default_rng(5)
    la, lb = rng.normal(0, 40, 300), rng.normal(0, 40, 300)  # saturated sigmoids would tie
    y = (rng.random(300) < 0.5).astype(float)
    r = vc.compare_models({"a": la, "b": lb}, y, score_type="logit", n_resamples=0).row("auc")
    _, _, var, p = _kernel_delong(la, lb, y)
    assert r.value_a == pytest.approx(vc.auc(la, y, score_type="logit"), abs=1e-12)
    assert abs(r.se**2 - var) <= 1e-10 * var and abs(r.p_value - p) <= 1e-10


# -- per-model numbers and CORP -------------------------------------------------------------------
@pytest.mark.parametrize("weights", [False, True])
def test_per_model_values_are_the_library_metrics(weights):
    a, b, y, w = _two(6, 700, ties=True, weights=weights)
    r = vc.compare_models({"a": a, "b": b}, y, sample_weight=w, n_resamples=0, bins=10)
    for name, s in (("a", a), ("b", b)):
        side = "value_a" if name == "a" else "value_b"
        assert getattr(r.row("brier"), side) == pytest.approx(vc.brier(s, y, sample_weight=w), abs=1e-14)
        assert getattr(r.row("log_loss"), side) == pytest.approx(vc.nll(s, y, sample_weight=w), abs=1e-13)
        assert getattr(r.row("ece"), side) == pytest.approx(
            vc.ece(s, y, sample_weight=w, estimator="debiased", bins=10), abs=1e-12)
        ref = vc.corp(s, y, sample_weight=w)
        got = r.corp[name]
        np.testing.assert_allclose(got.x, ref.x, rtol=0, atol=0)
        np.testing.assert_allclose(got.y, ref.y, atol=1e-12)
        np.testing.assert_allclose(got.weight, ref.weight, rtol=1e-12)
        for part in ("brier", "log_loss"):
            for k in ("score", "mcb", "dsc", "unc"):
                assert getattr(getattr(got, part), k) == pytest.approx(getattr(getattr(ref, part), k), abs=1e-12)


@pytest.mark.parametrize("seed,weights", [(7, False), (8, True)])
def test_corp_of_the_difference_is_the_difference_of_the_corps(seed, weights):
    a, b, y, w = _two(seed, 500, ties=seed == 8, weights=weights)
    r = vc.compare_models({"a": a, "b": b}, y, sample_weight=w, n_resamples=0)
    d = r.corp_differences[0]
    ca, cb = vc.corp(a, y, sample_weight=w).brier, vc.corp(b, y, sample_weight=w).brier
    assert d.mcb == pytest.approx(cb.mcb - ca.mcb, abs=1e-12)
    assert d.dsc == pytest.approx(cb.dsc - ca.dsc, abs=1e-12)
    assert d.unc == pytest.approx(0.0, abs=1e-12)
    assert d.score == pytest.approx(cb.score - ca.score, abs=1e-12)
    assert d.score == pytest.approx(r.row("brier").diff, abs=1e-12)


@pytest.mark.parametrize("seed,n", [(9, 250), (12, 6), (13, 3)])
def test_paired_brier_and_log_loss_intervals_are_the_paired_t_intervals(seed, n):
    """Unweighted: exactly the paired t-test (scipy.stats.ttest_rel) on the per-row loss differences,
    Student's t on n - 1 degrees of freedom for the interval and the p-value."""
    a, b, y, _ = _two(seed, n)
    r = vc.compare_models({"a": a, "b": b}, y, n_resamples=0)
    for metric, la, lb in (("brier", (a - y) ** 2, (b - y) ** 2),
                           ("log_loss", -(y * np.log(a) + (1 - y) * np.log(1 - a)),
                            -(y * np.log(b) + (1 - y) * np.log(1 - b)))):
        d = lb - la
        row = r.row(metric)
        se = d.std(ddof=1) / np.sqrt(d.size)
        assert row.diff == pytest.approx(d.mean(), abs=1e-12)
        assert row.se == pytest.approx(se, rel=1e-10)
        test = stats.ttest_rel(lb, la)
        assert row.p_value == pytest.approx(test.pvalue, rel=1e-9, abs=1e-15)
        ci = test.confidence_interval(0.95)
        assert row.ci_low == pytest.approx(ci.low, abs=1e-12)
        assert row.ci_high == pytest.approx(ci.high, abs=1e-12)
        assert row.method == "paired t"


def test_weighted_paired_differences_use_t_on_kish_effective_size_less_one():
    a, b, y, w = _two(14, 12, weights=True)
    r = vc.compare_models({"a": a, "b": b}, y, sample_weight=w, n_resamples=0, level=0.9)
    d = (b - y) ** 2 - (a - y) ** 2
    mean = np.dot(w, d) / w.sum()
    h = w / w.sum()  # κ: the variance unbiased for rows of one variance (n/(n-1) unweighted)
    kappa = np.sum(h**2) / np.sum(h**2 * (1 - 2 * h + np.sum(h**2)))
    se = np.sqrt(np.sum(w**2 * (d - mean) ** 2) / w.sum() ** 2 * kappa)
    df = w.sum() ** 2 / np.sum(w**2) - 1
    row = r.row("brier")
    assert row.diff == pytest.approx(mean, abs=1e-14) and row.se == pytest.approx(se, rel=1e-10)
    assert row.ci_high == pytest.approx(mean + stats.t.ppf(0.95, df) * se, abs=1e-12)
    assert row.p_value == pytest.approx(2 * stats.t.sf(abs(mean) / se, df), rel=1e-9)
    # equal weights: the unweighted test (n - 1 degrees of freedom)
    even = vc.compare_models({"a": a, "b": b}, y, sample_weight=np.full(12, 3.0), n_resamples=0).row("brier")
    plain = vc.compare_models({"a": a, "b": b}, y, n_resamples=0).row("brier")
    assert even.p_value == pytest.approx(plain.p_value, rel=1e-9)


def test_weighted_paired_mean_is_the_ratio_estimators_linearised_variance():
    rng = np.random.default_rng(10)
    d, w = rng.normal(0.1, 1, 300), rng.random(300) + 0.5
    e = paired_mean(d, w, 0.9)
    mean = np.dot(w, d) / w.sum()
    h = w / w.sum()  # n/(n-1) for equal weights (tests/comparison/test_paired_t_df_r21.py)
    kappa = np.sum(h**2) / np.sum(h**2 * (1 - 2 * h + np.sum(h**2)))
    var = np.sum(w**2 * (d - mean) ** 2) / w.sum() ** 2 * kappa
    assert e.value == pytest.approx(mean, abs=1e-14) and e.se == pytest.approx(np.sqrt(var), rel=1e-12)
    df = w.sum() ** 2 / np.sum(w**2) - 1  # Student's t on Kish's effective size less one, as for Brier
    assert e.high - e.low == pytest.approx(2 * stats.t.ppf(0.95, df) * np.sqrt(var), rel=1e-12)
    assert e.p_value == pytest.approx(2 * stats.t.sf(abs(mean) / np.sqrt(var), df), rel=1e-9)
    plain = paired_mean(d, None, 0.9)  # unweighted: scipy's one-sample t-test of the per-row values
    oracle = stats.ttest_1samp(d, 0.0)
    assert plain.p_value == pytest.approx(oracle.pvalue, rel=1e-9)
    low, high = oracle.confidence_interval(0.9)
    assert (plain.low, plain.high) == pytest.approx((low, high), rel=1e-12)


# -- decision curves: dcurves as the oracle ----------------------------------------------------------
@pytest.mark.parametrize("seed", [0, 1])
def test_net_benefit_equals_dcurves(seed):
    import dcurves  # imports lifelines and statsmodels: a few seconds, once

    a, b, y, _ = _two(seed, 600, ties=seed == 1)
    thresholds = [i / 50 for i in range(1, 50)]
    ours = vc.decision_curve({"a": a, "b": b}, y, thresholds=thresholds)
    df = pd.DataFrame({"a": a, "b": b, "y": y.astype(int)})
    ref = dcurves.dca(data=df, outcome="y", modelnames=["a", "b"], thresholds=thresholds)
    for model in ("a", "b", "all", "none"):
        want = ref[ref.model == model].sort_values("threshold").net_benefit.to_numpy()
        np.testing.assert_allclose(ours.net_benefit[model], want, rtol=0, atol=1e-12)
    assert {r.model for r in ours.rows} == {"a", "b", "all", "none"}


def test_net_benefit_is_the_weighted_mean_of_the_per_row_values():
    # the interval is the MOVER of two Wilson intervals: tests/comparison/test_claims_r31.py
    a, _, y, w = _two(11, 400, weights=True)
    t = np.array([0.2, 0.5])
    dc = vc.decision_curve(a, y, thresholds=t, sample_weight=w, level=0.9)
    for k, tk in enumerate(t):
        f = a >= tk
        per_row = f * (y - (1 - y) * tk / (1 - tk))
        assert dc.net_benefit["model"][k] == pytest.approx(paired_mean(per_row, w, 0.9).value, abs=1e-14)
        assert dc.ci_low["model"][k] <= dc.net_benefit["model"][k] <= dc.ci_high["model"][k]


# -- Murphy diagram -----------------------------------------------------------------------------------
def _elementary(p, y, theta):
    """Ehm et al. (2016): S_theta(p, y) = |1{y < theta} - 1{p < theta}| |y - theta|, per row and theta."""
    return np.abs((y[:, None] < theta[None, :]).astype(float) - (p[:, None] < theta[None, :])) * np.abs(
        y[:, None] - theta[None, :])


def test_murphy_diagram_is_the_mean_elementary_score_and_its_band_the_paired_interval():
    a, b, y, w = _two(12, 300, ties=True, weights=True)
    theta = np.array([0.05, 0.2, 0.5, 0.7, 0.95])
    m = vc.murphy_diagram({"a": a, "b": b}, y, theta=theta, sample_weight=w)
    sa, sb = _elementary(a, y, theta), _elementary(b, y, theta)
    np.testing.assert_allclose(m.elementary["a"], w @ sa / w.sum(), atol=1e-14)
    np.testing.assert_allclose(m.elementary["b"], w @ sb / w.sum(), atol=1e-14)
    # the band: MOVER of the four discordant cells' Wilson intervals (session 32), from the rows
    from .test_murphy_band_r31 import _mover_band

    low, high = _mover_band(a, b, y, w, theta, 0.95)
    for k, t in enumerate(theta):
        e = paired_mean(sb[:, k] - sa[:, k], w, 0.95)
        assert m.difference.diff[k] == pytest.approx(e.value, abs=1e-14)
        assert m.difference.ci_low[k] == pytest.approx(low[k], abs=1e-12)
        assert m.difference.ci_high[k] == pytest.approx(high[k], abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1), st.booleans()), min_size=2, max_size=40),
       st.integers(1, 4))
def test_murphy_mean_over_uniform_theta_is_half_the_brier_score(rows, digits):
    # The mean elementary score is linear in theta between the distinct scores, so its exact
    # integral over theta ~ U(0, 1) is the sum of segment lengths times the value at the midpoints.
    p = np.round(np.array([r[0] for r in rows]), digits)
    y = np.array([float(r[1]) for r in rows])
    cuts = np.unique(np.r_[0.0, p, 1.0])
    mids = (cuts[1:] + cuts[:-1]) / 2
    m = vc.murphy_diagram(p, y, theta=mids)
    integral = float(np.dot(np.diff(cuts), m.elementary["model"]))
    assert integral == pytest.approx(vc.brier(p, y) / 2, abs=1e-12)


# -- expected vs realised cost ------------------------------------------------------------------------
def test_realised_cost_against_its_definition():
    a, b, y, w = _two(13, 500, weights=True)
    r = vc.realised_cost({"a": a, "b": b}, y, threshold=0.3, cost_fp=1, cost_fn=4, sample_weight=w)
    for row, p in zip(r.rows, (a, b)):
        f = p >= 0.3
        expected = np.where(f, 1 - p, 4 * p)
        realised = np.where(f, 1 - y, 4 * y)
        assert row.expected == pytest.approx(np.dot(w, expected) / w.sum(), abs=1e-14)
        assert row.realised == pytest.approx(np.dot(w, realised) / w.sum(), abs=1e-14)
        table = vc.threshold_table(p, y, [0.3], cost_fp=1, cost_fn=4, sample_weight=w)
        assert row.realised == pytest.approx(table.cost[0] / table.n, abs=1e-12)
        assert row.gap == pytest.approx(np.dot(w, realised - expected) / w.sum(), abs=1e-14)
        # the interval (round 21): MOVER of the Wilson intervals of the weighted share of negatives among
        # the flagged and of positives among the unflagged (Zou & Donner 2008), each at its own effective size
        # (round 32): W / ((1 - q) rho_D + q rho_R), rho_D = max(S_D/W_D, S_c/W_c, S/W), rho_R = max(S_R/W_R, S/W)
        # read about the centre th = C/c (the side's term of C's linearisation): W^2 q (1 - q) over
        # (1 - th)^2 rho_D W_D + th^2 rho_R W_R - (W_D - th W)^2 / n
        z = stats.norm.ppf(0.975)
        lo2 = hi2 = 0.0
        for side, cost, miss in ((f, 1.0, 1 - y), (~f, 4.0, y)):
            ws = w[side]
            d, cls = miss[side] == 1, miss == 1
            q = np.dot(ws, miss[side]) / ws.sum()
            floor = np.dot(ws, ws) / ws.sum()
            rho_d = max(floor, np.dot(w[cls], w[cls]) / w[cls].sum(),
                        np.dot(ws[d], ws[d]) / ws[d].sum() if d.any() else 0.0)
            rho_r = max(floor, np.dot(ws[~d], ws[~d]) / ws[~d].sum() if (~d).any() else 0.0)
            th, wd = row.realised / cost, ws[d].sum()
            var = ((1 - th) ** 2 * rho_d * wd + th ** 2 * rho_r * (ws.sum() - wd)
                   - (wd - th * ws.sum()) ** 2 / side.sum())
            m = ws.sum() ** 2 * q * (1 - q) / var
            assert m > 0
            centre = (q + z * z / (2 * m)) / (1 + z * z / m)
            half = z / (1 + z * z / m) * np.sqrt(q * (1 - q) / m + z * z / (4 * m * m))
            a_ = cost * ws.sum() / w.sum()
            lo2, hi2 = lo2 + (a_ * (q - centre + half)) ** 2, hi2 + (a_ * (centre + half - q)) ** 2
        want = (row.realised - np.sqrt(lo2), row.realised + np.sqrt(hi2))
        assert (row.realised_low, row.realised_high) == pytest.approx(want, abs=1e-12)
        assert (row.ci_low, row.ci_high) == pytest.approx((want[0] - row.expected, want[1] - row.expected),
                                                          abs=1e-12)
