"""Numerical robustness of the core metrics and the honest estimators (session 14, helper r14).

Weights whose ratios span many decades, rates that round to exactly 0 or 1, and the contract
that only the weights' ratios matter: checked against definitions written out here."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import veracity as vc


def _hl_by_hand(p: np.ndarray, y: np.ndarray, groups: int = 10) -> float:
    """Hosmer–Lemeshow C-hat of distinct sorted scores in equal-count groups (unit weights):
    Σ_g (O_g − E_g)² / (E_g (1 − E_g / n_g))."""
    stat = 0.0
    for ps, ys in zip(np.array_split(p, groups), np.array_split(y, groups)):
        o, e, n = ys.sum(), ps.sum(), ps.size
        stat += (o - e) ** 2 / (e * (1.0 - e / n))
    return stat


@pytest.mark.parametrize("c", [1.0, 1e-100, 1e-160, 1e-170, 1e-300])
def test_hosmer_lemeshow_group_of_tiny_weights_keeps_its_term(c):
    """Each group's term counts in its own effective rows, so equal weights c on every row change
    nothing. Before: below c ≈ 1e-155 a group's w² underflowed and its (large) term was dropped
    silently: C-hat 8.14 (p = 0.62) became 4.00 (p = 0.95). Since session 24 weighted groups hold equal
    weight, so 100 rows of weight c ≪ 1 beside 900 of weight 1 hold no weight of their own: the
    statistic is the other 900 rows' (their group's term is not dropped by underflow either)."""
    rng = np.random.default_rng(1)
    n = 1000
    p = np.sort(rng.uniform(0.02, 0.98, size=n))
    y = (rng.uniform(size=n) < p).astype(int)
    y[:100] = (rng.uniform(size=100) < 0.3 * p[:100]).astype(int)  # the lowest group over-predicted
    every = vc.hosmer_lemeshow(p, y, sample_weight=np.full(n, c))
    assert every.statistic == pytest.approx(_hl_by_hand(p, y), rel=1e-9)
    assert every.statistic > 8.0
    w = np.ones(n)
    w[:100] = c
    got = vc.hosmer_lemeshow(p, y, sample_weight=w)
    want = _hl_by_hand(p, y) if c == 1.0 else _hl_by_hand(p[100:], y[100:])
    assert got.statistic == pytest.approx(want, rel=1e-9)


def _log_loss_decomposition_by_hand(p: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """(MCB, UNC) of the log loss from scikit-learn's isotonic fit (unit weights), 0 log 0 = 0."""
    from sklearn.isotonic import IsotonicRegression

    fit = IsotonicRegression(y_min=0.0, y_max=1.0).fit(p, y).predict(p)

    def ll(q: np.ndarray) -> float:
        with np.errstate(divide="ignore"):
            t = np.where(y == 1, np.log(np.where(q > 0, q, 1.0)), np.log(np.where(q < 1, 1.0 - q, 1.0)))
        return float(-t.mean())

    score = float(-np.mean(np.log(np.clip(np.where(y == 1, p, 1.0 - p), np.finfo(float).eps, 1.0))))
    base = y.mean()
    return score - ll(fit), float(-(base * math.log(base) + (1 - base) * math.log(1 - base)))


@pytest.mark.parametrize("tiny", [1e-20, 1e-160, 1e-300])
def test_corp_log_loss_is_finite_with_weights_spread_over_many_decades(tiny):
    """Rows of negligible weight pool into a PAV block whose rate rounds to exactly 0 or 1; the
    log loss read log(1 - 1.0) there. Before: MCB and DSC of the log loss were -inf for any spread
    beyond ~1e16 (weights 1 and 1e-20). After: the numbers of the rows without them."""
    rng = np.random.default_rng(1)
    n = 300
    p = np.round(rng.uniform(size=n), 2)
    y = (rng.uniform(size=n) < p**1.2).astype(int)
    keep = np.arange(n) % 7 != 0
    w = np.where(keep, 1.0, tiny)
    mcb, unc = _log_loss_decomposition_by_hand(p[keep], y[keep])
    got = vc.corp(p, y, sample_weight=w).log_loss
    assert got.mcb == pytest.approx(mcb, rel=1e-9)
    assert got.unc == pytest.approx(unc, rel=1e-9)
    assert got.score == pytest.approx(got.mcb - got.dsc + got.unc, rel=1e-12)


def test_corp_uncertainty_of_a_nearly_pure_sample_is_its_entropy():
    """All labels 1 but one row of weight 1e-20 labelled 0: the base rate rounds to 1.0. Before: UNC
    was inf and DSC NaN. UNC is the weighted entropy of the rate, written out here."""
    n = 300
    p = np.linspace(0.5, 0.99, n)
    y = np.ones(n, dtype=int)
    y[0] = 0
    w = np.ones(n)
    w[0] = 1e-20
    total = n - 1 + 1e-20
    want = -((n - 1) * math.log1p(-1e-20 / total) + 1e-20 * (math.log(1e-20) - math.log(total))) / total
    got = vc.corp(p, y, sample_weight=w).log_loss
    assert got.unc == pytest.approx(want, rel=1e-9)
    assert math.isfinite(got.dsc) and got.dsc >= 0.0 and got.mcb >= 0.0


@pytest.mark.parametrize("norm", ["l1", "l2"])
@pytest.mark.parametrize("tiny", [1e-300, 1e-160])
def test_debiased_ece_with_bins_of_negligible_weight_warns_nothing(norm, tiny):
    """A bin whose weights are so small that their squares underflow (Σw² = 0) made 0/0 in its
    effective size, and a gap of 1e160 standard errors overflowed a square: RuntimeWarnings (errors
    under -W error) from vc.ece(..., estimator='debiased'). Its share is ~0, so the answer is that
    of the rows without it (and, unweighted, the l2 formula of Kumar et al. written out here)."""
    rng = np.random.default_rng(1)
    n = 300
    p = rng.uniform(size=n)
    y = (rng.uniform(size=n) < p**1.2).astype(int)
    big = p >= 0.2
    w = np.where(big, 1.0, tiny)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = vc.ece(p, y, sample_weight=w, estimator="debiased", norm=norm)
        spread = w * 1e160
        spread[~big] = 1e-160
        got_spread = vc.ece(p, y, sample_weight=spread, estimator="debiased", norm=norm)
    want = vc.ece(p[big], y[big], estimator="debiased", norm=norm)
    assert got == pytest.approx(want, rel=1e-9, abs=1e-15)
    assert got_spread == pytest.approx(want, rel=1e-9, abs=1e-15)
    if norm == "l2":  # Σ_b (n_b/N) [(acc − conf)² − acc(1 − acc)/(n_b − 1)], floored at 0, square root
        q, yy = p[big], y[big]
        idx = np.minimum((q * 15).astype(int), 14)
        terms = 0.0
        for b in np.unique(idx):
            m = idx == b
            nb, acc, conf = m.sum(), yy[m].mean(), q[m].mean()
            terms += nb / q.size * ((acc - conf) ** 2 - (acc * (1 - acc) / (nb - 1) if nb > 1 else 0.0))
        assert want == pytest.approx(math.sqrt(max(terms, 0.0)), rel=1e-9, abs=1e-15)


# -- only the weights' ratios matter: every scale from 1e-300 to 1e300 ---------------------------------

_RNG = np.random.default_rng(11)
_N = 240
_P = np.round(_RNG.uniform(0.01, 0.99, size=_N), 3)
_Y = (_RNG.uniform(size=_N) < _P**1.3).astype(int)
_Y[_P > 0.9] = 1
_P[:12], _Y[:12] = 0.995, 0  # light rows (below) pooled into the top block of positives by PAV
_W = _RNG.uniform(0.2, 5.0, size=_N)
_W[:12] = 1e-6  # a few light rows: still normal numbers at a scale of 1e-300
_SPREAD = _W.copy()
_SPREAD[:12] = 1e-120  # a spread of 1e121: their squares underflow at scales below 1e-34


def _scale_free(w: np.ndarray) -> dict[str, float]:
    out = {
        "ece": vc.ece(_P, _Y, sample_weight=w),
        "ece_q": vc.ece(_P, _Y, sample_weight=w, strategy="quantile"),
        "ece_deb1": vc.ece(_P, _Y, sample_weight=w, estimator="debiased", norm="l1"),
        "ece_deb2": vc.ece(_P, _Y, sample_weight=w, estimator="debiased", norm="l2"),
        "mce": vc.mce(_P, _Y, sample_weight=w, bins=5),
        "brier": vc.brier(_P, _Y, sample_weight=w),
        "nll": vc.nll(_P, _Y, sample_weight=w),
        "auc": vc.auc(_P, _Y, sample_weight=w),
        "accuracy": vc.accuracy(_P, _Y, sample_weight=w),
    }
    bd = vc.brier_decomposition(_P, _Y, sample_weight=w)
    out.update(reliability=bd.reliability, resolution=bd.resolution)
    t = vc.calibration_tests(_P, _Y, sample_weight=w)
    out.update(hl=t.hosmer_lemeshow.statistic, slope=t.slope.slope, slope_se=t.slope.slope_se,
               z=t.spiegelhalter.statistic)
    c = vc.corp(_P, _Y, sample_weight=w)
    out.update(corp_ll_mcb=c.log_loss.mcb, corp_ll_dsc=c.log_loss.dsc, corp_bs_mcb=c.brier.mcb)
    return out


_REFERENCE = {"plain": _scale_free(_W), "spread": _scale_free(_SPREAD)}


def _same(got: dict[str, float], want: dict[str, float]) -> None:
    for key, value in want.items():
        assert math.isfinite(got[key]), key
        assert got[key] == pytest.approx(value, rel=1e-7, abs=1e-12), key


@settings(max_examples=20, deadline=None)
@given(st.floats(-300.0, 300.0))
def test_every_core_number_ignores_the_weights_scale(log10_scale):
    """Scaling every weight by 10^k (k in [-300, 300]) moves no metric, test or decomposition."""
    _same(_scale_free(_W * 10.0**log10_scale), _REFERENCE["plain"])


@settings(max_examples=20, deadline=None)
@given(st.floats(-180.0, 180.0))
def test_weights_spread_over_121_decades_ignore_the_scale(log10_scale):
    """The same with rows 1e-120 times lighter than the rest (none underflows to 0 in the input for
    k >= -180): before, Hosmer–Lemeshow moved and the CORP log-loss MCB/DSC were -inf."""
    _same(_scale_free(_SPREAD * 10.0**log10_scale), _REFERENCE["spread"])


def test_hosmer_lemeshow_of_a_subnormal_expected_count_is_infinite_without_a_warning():
    """A group expecting 5e-324 positives that holds one: its term (1 − E)² / E overflows. Before: a
    RuntimeWarning (an error under -W error) from vc.hosmer_lemeshow and vc.audit(tests=True).
    The statistic is +inf and the p-value 0."""
    p = np.array([0.0, 5e-324, 0.3, 0.5, 0.7, 0.9])
    y = np.array([0, 1, 0, 1, 1, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        h = vc.hosmer_lemeshow(p, y, bins=6)
        tests = vc.audit(p, y, tests=True).to_dict()["tests"]["hosmer_lemeshow"]
    assert h.statistic == math.inf and h.p_value == 0.0
    assert tests["statistic"] == math.inf and tests["p_value"] == 0.0


def test_compare_models_ece_interval_with_a_bin_of_negligible_weight_is_finite():
    """The bias-aware interval of an ECE difference reads every bin's standard error; a bin whose
    weights' squares underflow (rows 1e-170 beside rows of 1) had σ = 0/0 = NaN, and NaN × a zero share
    made the interval [nan, nan]. Such a bin's share is ~0: the interval is the one of rows 1e-100
    light (where nothing underflows), which was finite before too."""
    rng = np.random.default_rng(1)
    n = 600
    p = rng.uniform(size=n)
    y = (rng.uniform(size=n) < p).astype(int)
    q = np.clip(p + rng.normal(0, 0.1, n), 0.001, 0.999)

    def ece_row(tiny: float) -> dict:
        w = np.where(p < 0.1, tiny, 1.0)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            r = vc.compare_models({"a": p, "b": q}, y, sample_weight=w, random_state=0, n_resamples=100)
        (row,) = [c for c in r.to_dict()["comparison"] if c["metric"] == "ece"]
        return row

    want = ece_row(1e-100)
    assert math.isfinite(want["ci_low"]) and math.isfinite(want["ci_high"])
    for tiny in (1e-170, 1e-300):
        got = ece_row(tiny)
        assert got["ci_low"] == pytest.approx(want["ci_low"], rel=1e-9)
        assert got["ci_high"] == pytest.approx(want["ci_high"], rel=1e-9)


@pytest.mark.parametrize("n", [1e155, 1e200, 1e300])
def test_wilson_interval_of_astronomical_counts_is_the_point_not_zero_to_one(n):
    """k(n - k) overflowed past n ≈ 1e154: vc.binomial_interval(n/2, n) gave [0, 1] (and a
    RuntimeWarning) where Clopper–Pearson gives [0.5, 0.5]. Wilson's half-width is about
    z·sqrt(q(1 - q)/n), below 1e-70 here: the interval is the point k/n."""
    for frac in (0.5, 1 / 3):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            low, high = vc.binomial_interval(frac * n, n)
        assert float(low) == pytest.approx(frac, abs=1e-12)
        assert float(high) == pytest.approx(frac, abs=1e-12)


def test_weighted_bootstrap_intervals_do_not_depend_on_the_row_order():
    """The resampling layout sorts rows by score and label; rows tied in both but of different
    weights kept the input order, so the same weighted rows shuffled (a file read in another
    order) gave other intervals for the same random_state: ECE upper end 0.1016 vs 0.0998, AUC
    [0.826, 0.905] vs [0.824, 0.900]."""
    rng = np.random.default_rng(5)
    n = 400
    p = np.round(rng.uniform(size=n), 2)  # many ties
    y = (rng.uniform(size=n) < p).astype(int)
    w = rng.integers(1, 5, n).astype(float)
    want = vc.bootstrap_intervals(p, y, sample_weight=w, random_state=0, n_resamples=200).to_dict()
    for seed in range(3):
        perm = np.random.default_rng(seed).permutation(n)
        got = vc.bootstrap_intervals(p[perm], y[perm], sample_weight=w[perm], random_state=0,
                                     n_resamples=200).to_dict()
        assert got["intervals"] == want["intervals"]
