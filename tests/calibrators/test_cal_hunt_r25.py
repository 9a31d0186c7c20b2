"""Session 25 bug hunt in the binary calibrators, the prior shift and their artifacts.

Each test names the wrong answer the old code gave; every expected value comes from a definition or an
oracle (scipy's isotonic regression, the likelihood-ratio formula on the log-odds scale), never from the
code under test.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from scipy.optimize import isotonic_regression
from scipy.special import expit, logit

import veracity as vc


# -- TemperatureScaling: an NLL that overflows only when summed --------------------------------------------
def _huge_wrong_logits() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(2)
    x = rng.normal(0.0, 2.0, 200)
    y = (rng.uniform(size=200) < expit(x)).astype(float)
    # two rows on the wrong side at +-1e308: each softplus term is finite (1e308), their sum is not
    return np.r_[1e308, -1e308, x], np.r_[0.0, 1.0, y]


def test_temperature_nll_before_is_finite_and_the_fit_saves(tmp_path):
    # old: nll_before_ = inf (Σ softplus overflowed), numpy's "overflow encountered in reduce" RuntimeWarning
    # reached the user, and save() raised json's bare "Out of range float values are not JSON compliant"
    s, y = _huge_wrong_logits()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cal = vc.TemperatureScaling(score_type="logit").fit(s, y)
    assert not [w for w in caught if issubclass(w.category, RuntimeWarning)]
    assert [w for w in caught if "dominate" in str(w.message)]  # the far rows are still named
    # the definition at tau = 1: mean of softplus(-m), m = (2y - 1) s, each term divided by N before summing
    margins = (2.0 * y - 1.0) * s
    want = float(np.sum(np.logaddexp(0.0, -margins) / s.size))
    assert np.isfinite(cal.nll_before_)
    assert cal.nll_before_ == pytest.approx(want, rel=1e-12)
    back = vc.load(cal.save(tmp_path / "t.json"))
    probe = np.array([-1e308, -3.0, 0.0, 2.5, 1e308])
    assert np.array_equal(back.transform(probe), cal.transform(probe))
    assert back.nll_before_ == cal.nll_before_


@pytest.mark.parametrize("method", ["newton", "golden"])
def test_temperature_calls_off_centre_logits_off_centre_not_reversed(method):
    # logits that rank the labels well (AUC ~0.74) but are shifted by +6, as a model trained on down-sampled
    # negatives gives: no positive temperature fits. Old: "the scores are reversed (higher scores go with FEWER
    # positives) ... pass -scores, or 1 - p", which would wreck a good ranking
    rng = np.random.default_rng(0)
    z = rng.normal(-3.0, 1.0, 5000)
    y = (rng.uniform(size=z.size) < expit(z)).astype(float)
    assert np.corrcoef(z, y)[0, 1] > 0.1  # the scores go the right way
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cal = vc.TemperatureScaling(score_type="logit", method=method).fit(z + 6.0, y)
    text = " ".join(str(w.message) for w in caught)
    assert cal.clamped_ == "upper"
    assert "scores are reversed" not in text and "sign convention" not in text
    assert "off-centre" in text and "PlattScaling" in text
    assert f"mean logit is {np.mean(z + 6.0):.3g}" in text and f"positive rate {y.mean():.3g}" in text
    # every score equal (p = 1 for every row at a positive rate of 0.2) is no reversal either
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        vc.TemperatureScaling().fit(np.ones(50), np.r_[np.ones(10), np.zeros(40)])
    assert "every score is equal" in " ".join(str(w.message) for w in caught)
    # reversed logits are still called reversed
    with pytest.warns(UserWarning, match="scores are reversed .*sign convention"):
        vc.TemperatureScaling(score_type="logit", method=method).fit(-(z + 3.0), y)


# -- adjust_prior: tiny positive rates ---------------------------------------------------------------------
def _shifted(p: np.ndarray, old: float, new: float) -> np.ndarray:
    """The likelihood-ratio rule on the log-odds scale: logit p_new = logit p + log((1-o)/o) + logit(new)."""
    with np.errstate(divide="ignore"):
        z = logit(p) + (np.log1p(-old) - np.log(old)) + (np.log(new) - np.log1p(-new))
    return expit(z)


@pytest.mark.parametrize("old, new", [(1e-20, 0.5), (0.3, 1e-18), (1e-200, 1e-3)])
def test_adjust_prior_takes_a_rate_below_machine_epsilon(old, new):
    # old: "old must lie strictly between 0 and 1, got 1e-20" (1 - 1e-20 rounds to 1, and the check read it)
    p = np.array([1e-30, 1e-12, 0.2, 0.5, 0.9])
    got = vc.adjust_prior(p, old, new)
    np.testing.assert_allclose(got, _shifted(p, old, new), rtol=1e-12)


def test_estimate_prior_takes_a_tiny_old_rate():
    est = vc.estimate_prior(np.array([0.1, 0.2, 0.3]), 1e-20)  # old: refused as not strictly in (0, 1)
    assert 0.0 < est.prior < 1.0


def test_adjust_prior_same_tiny_prior_is_the_identity():
    # old: p(1 - pi)pi underflowed: old = new = 1e-16 gave 0 for p = 1e-310 and p(1 - 1.6e-8) for p = 1e-300,
    # old = new = 1e-10 gave 0 for p = 1e-320 (and 1e-200 was refused): the same prior changed p
    p = np.array([1e-320, 1e-310, 1e-300, 1e-200, 1e-150, 1e-20, 0.3, 0.5, 1.0 - 2**-53])
    for prior in (1e-16, 1e-10, 0.3, 1e-200, 1e-300):
        np.testing.assert_allclose(vc.adjust_prior(p, prior, prior), p, rtol=1e-12, atol=0.0)


def test_adjust_prior_tiny_priors_match_the_log_odds_rule():
    p = np.logspace(-300, -1, 40)
    got = vc.adjust_prior(p, 1e-200, 1e-190)  # odds times 1e10
    np.testing.assert_allclose(got, _shifted(p, 1e-200, 1e-190), rtol=1e-12)
    assert np.all(np.diff(got) >= 0.0)


# -- IsotonicCalibration(ties="strict"): knots of scores 1 ulp apart ---------------------------------------
def _ulp_case(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    k = int(rng.integers(3, 8))
    u = np.empty(k)
    u[0] = rng.uniform(0.1, 0.9)
    for i in range(1, k):
        u[i] = np.nextafter(u[i - 1], 1.0)
    m = 5  # each score gets m rows, the i-th score min(i + 1, m - 1) positives: rising rates
    s = np.repeat(u, m)
    y = np.concatenate([(np.arange(m) < min(i + 1, m - 1)).astype(float) for i in range(k)])
    return s, y, rng.uniform(0.1, 10.0, s.size)


def test_strict_isotonic_knots_stay_in_order_for_scores_one_ulp_apart():
    # old: a block's weighted mean score Σwu/Σw rounded 1 ulp past its own score, onto or beyond the next
    # block's: knots out of order (10 of 300 fits) and fit scores interpolated between the wrong knots
    rng = np.random.default_rng(1)
    for _ in range(300):
        s, y, w = _ulp_case(rng)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # one-block fits warn; not this test's subject
            cal = vc.IsotonicCalibration(ties="strict").fit(s, y, sample_weight=w)
        assert np.all(np.diff(cal.knots_x_) > 0.0)
        ux, first = np.unique(s, return_index=True)
        wsum = np.add.reduceat(w, first)
        ybar = np.add.reduceat(w * y, first) / wsum
        fitted = isotonic_regression(ybar, weights=wsum).x
        # an interior block of one score has its knot at that score: its output is the block's value
        starts = np.r_[True, fitted[1:] != fitted[:-1]]
        ends = np.r_[starts[1:], True]
        single = starts & ends
        single[0] = single[-1] = False
        np.testing.assert_allclose(cal.transform(ux)[single], fitted[single], rtol=0.0, atol=1e-12)
        out = cal.transform(np.sort(np.r_[ux, rng.choice(ux, 20)]))
        assert np.all(np.diff(out) >= 0.0)
        back = vc.load(json.loads(json.dumps(cal.to_dict())))
        assert np.array_equal(back.transform(ux), cal.transform(ux))


# -- outside this file's modules: the SQL export of a prior shift (veracity.export) ------------------------
def test_sql_prior_shift_takes_a_rate_below_machine_epsilon():
    import sqlite3

    from veracity.export import to_sql

    sql = to_sql(None, "p", dialect="sqlite", prior_shift=(1e-20, 0.5))
    (got,) = sqlite3.connect(":memory:").execute(f"SELECT {sql} FROM (SELECT 0.2 AS p)").fetchone()
    assert got == pytest.approx(float(_shifted(np.array([0.2]), 1e-20, 0.5)[0]), rel=1e-12)


def test_sql_prior_shift_same_tiny_prior_is_the_identity():
    import sqlite3

    from veracity.export import to_sql

    sql = to_sql(None, "p", dialect="sqlite", prior_shift=(1e-16, 1e-16))
    (got,) = sqlite3.connect(":memory:").execute(f"SELECT {sql} FROM (SELECT 1e-310 AS p)").fetchone()
    assert got == pytest.approx(1e-310, rel=1e-9, abs=0.0)  # the same prior leaves p as it is (SQL gave 0.0)


# -- one number given as the scores ----------------------------------------------------------------------
@pytest.mark.parametrize("value", [0.7, np.float32(0.25)])
def test_a_single_number_is_refused_with_the_way_to_pass_it(value):
    # old: "scores must be 1-D (binary) or 2-D (N, K) (multiclass), got shape ()", which names no remedy
    rng = np.random.default_rng(0)
    p = rng.uniform(size=100)
    cal = vc.PlattScaling().fit(p, rng.uniform(size=100) < p)
    with pytest.raises(vc.VeracityError, match=r"single number .*a list such as \[") as info:
        cal.transform(value)
    assert "shape ()" not in str(info.value)
    assert cal.transform([float(value)]).shape == (1,)  # the way it names works


def test_compare_of_a_ranking_score_calibrator_says_why_there_is_no_before():
    # old: "this function reads the scores as probabilities, and score_type='score' declares a ranking score
    # ...: calibrate first, or declare it a probability" -- said to a user who passed the calibrator
    rng = np.random.default_rng(0)
    x = rng.normal(0.0, 2.0, 400)
    y = rng.uniform(size=400) < expit(x)
    cal = vc.PlattScaling(score_type="score").fit(x[:200], y[:200])
    with pytest.raises(vc.VeracityError) as info:
        vc.compare(x[200:], y[200:], cal)
    text = str(info.value)
    assert "\n" not in text and "calibrate first" not in text
    assert "no BEFORE column" in text and "score_type='logit'" in text and info.value.param == "score_type"
    # the way it names works: the same scores declared logits give a ledger
    assert vc.compare(x[200:], y[200:], vc.PlattScaling(score_type="logit").fit(x[:200], y[:200])).n == 200


@pytest.mark.parametrize("make", [vc.PlattScaling, vc.BetaCalibration, vc.TemperatureScaling])
def test_ledger_auc_row_says_it_can_move_when_the_clip_ties_scores(make):
    # probabilities below eps = 2.2e-16 are clipped there before the map: 1e-20 .. 1e-17 leave it tied, so the
    # AUC moves. Old: "can move? no -- strictly increasing map keeps the order" beside the changed AUC
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(0)
    p = rng.uniform(0.0, 1.0, 300)
    cal = make().fit(p, rng.uniform(size=300) < p)
    pe = np.r_[1e-20, 1e-19, 1e-18, 1e-17, rng.uniform(0.0, 1.0, 200)]
    ye = np.r_[1.0, 0.0, 1.0, 0.0, (rng.uniform(size=200) < pe[4:]).astype(float)]
    row = vc.compare(pe, ye, cal).row("AUC")
    assert row.before == pytest.approx(roc_auc_score(ye, pe), abs=1e-12)
    assert row.after == pytest.approx(roc_auc_score(ye, cal.transform(pe)), abs=1e-12)
    assert row.after != row.before  # the oracle's AUCs differ: the map tied scores
    assert row.can_move and "tied 3 neighbouring scores" in row.note
    # an AUC the map keeps still reads "no"
    kept = vc.compare(pe[4:], ye[4:], cal).row("AUC")
    assert not kept.can_move and kept.after == kept.before
