"""simulate_redraws: seed 003's redraw experiment and the k/(n+1) law of the recall threshold."""

import json

import numpy as np
import pytest
from scipy import stats

import veracity as vc
from veracity import VeracityError


@pytest.fixture(scope="module")
def pool():
    """200,000 positives with continuous scores and as many negatives."""
    rng = np.random.default_rng(0)
    s = np.r_[rng.beta(5, 2, 200_000), rng.beta(2, 5, 200_000)]
    y = np.r_[np.ones(200_000), np.zeros(200_000)]
    return s, y


@pytest.mark.parametrize("m", [50, 100])
def test_corrected_mean_recall_reaches_target_uncorrected_falls_short(pool, m):
    # Angelopoulos & Bates §1 (seed 003): with m calib positives the k-th highest leaves a
    # deployed recall ~ Beta(k, m + 1 - k) with mean k/(m+1).
    s, y = pool
    target, R = 0.95, 3000
    out = {}
    for corr in (True, False):
        r = vc.simulate_redraws(s, y, n_calib=2 * m, n_test=400, target=target, correction=corr,
                                n_resamples=R, stratify=True, random_state=7)
        assert (r.calib_positives == m).all()
        k = int(np.ceil(((m + 1) if corr else m) * target - 1e-9))
        law = stats.beta(k, m + 1 - k)
        se = law.std() / np.sqrt(R)
        assert abs(r.deployed_mean - law.mean()) < 4 * se
        assert r.expected_recall.mean() == pytest.approx(k / (m + 1))
        # how often deployed recall falls below target: the Beta law's cdf at the target
        p_below = law.cdf(target)
        assert abs(r.deployed_below_target - p_below) < 4 * np.sqrt(p_below * (1 - p_below) / R)
        out[corr] = r
    if m == 100:  # seed 003: k = 95 of n = 100 gives 95/101 ≈ 0.941 on average
        assert out[False].deployed_mean == pytest.approx(95 / 101, abs=0.002)
        assert out[True].deployed_mean == pytest.approx(96 / 101, abs=0.002)
    else:  # with m = 50 the correction's margin (49/51 vs 48/51) is many standard errors wide
        assert out[True].deployed_mean >= target
        assert out[False].deployed_mean < target
    # calib always reports at least the target: the threshold was fit there
    assert (out[True].calib_recall >= target).all()


def test_spread_shrinks_with_more_positives(pool):
    # seed 003: "the spread ... is set by the number of defects"
    s, y = pool
    widths = []
    for m in (40, 200, 1000):
        r = vc.simulate_redraws(s, y, n_calib=2 * m, target=0.95, n_resamples=400, stratify=True, random_state=1)
        lo, hi = r.deployed_range
        widths.append(hi - lo)
    assert widths[0] > widths[1] > widths[2]


def test_test_reported_recall_is_unbiased_but_noisier(pool):
    s, y = pool
    r = vc.simulate_redraws(s, y, n_calib=400, n_test=400, n_resamples=1500, random_state=3)
    assert abs(r.test_mean - r.deployed_mean) < 0.004
    assert np.std(r.test_recall) > np.std(r.deployed_recall)
    # unstratified: the calib positive count varies (hypergeometric, mean n·P/N)
    assert r.calib_positives.std() > 0
    assert r.calib_positives.mean() == pytest.approx(200, abs=2)


def test_matches_recall_threshold_on_one_redraw():
    rng = np.random.default_rng(4)
    s = rng.random(3000)
    y = (rng.random(3000) < s).astype(int)
    r = vc.simulate_redraws(s, y, n_calib=3000, n_test=0, n_resamples=1, random_state=0)
    # taking every row as calib reproduces recall_threshold on the whole pool
    assert r.thresholds[0] == vc.recall_threshold(s, y, target=0.95)


def test_result_object_summary_str_and_json(pool):
    s, y = pool
    r = vc.simulate_redraws(s, y, n_calib=300, n_resamples=200, random_state=5)
    summ = r.summary()
    assert set(summ) == {"calib", "test", "deployed"}
    d = summ["deployed"]
    assert d["p05"] <= d["mean"] <= d["p95"]
    assert d["below_target"] == np.mean(r.deployed_recall < 0.95)
    text = str(r)
    assert "test-reported" in text and "deployed" in text and "200 redraws" in text
    doc = json.loads(json.dumps(r.to_dict()))
    assert doc["n_resamples"] == 200
    # seeded: the same seed gives the same numbers
    r2 = vc.simulate_redraws(s, y, n_calib=300, n_resamples=200, random_state=5)
    np.testing.assert_array_equal(r.deployed_recall, r2.deployed_recall)


def test_small_calib_skips_with_warning():
    rng = np.random.default_rng(6)
    s = rng.random(2000)
    y = (rng.random(2000) < 0.05).astype(int)
    with pytest.warns(UserWarning, match="skipped"):
        r = vc.simulate_redraws(s, y, n_calib=300, n_resamples=200, random_state=0)  # ~15 positives, 19 needed
    assert r.skipped > 0 and r.n_resamples + r.skipped == 200


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(n_calib=0), "n_calib must be a positive integer"),
        (dict(n_calib=10, n_resamples=0), "n_resamples must be a positive integer"),
        (dict(n_calib=600, n_test=600), "exceeds the pool"),
        (dict(n_calib=100, target=1.0), r"target must be in \(0, 1\)"),
        (dict(n_calib=20, stratify=True), "every redraw had too few calib positives"),
    ],
)
def test_redraws_bad_input(kwargs, message):
    rng = np.random.default_rng(8)
    s = rng.random(1000)
    y = (rng.random(1000) < s).astype(int)
    with pytest.raises(VeracityError, match=message):
        vc.simulate_redraws(s, y, **kwargs)


def _pool(n=3000, seed=11):
    rng = np.random.default_rng(seed)
    s = rng.random(n)
    return s, (rng.random(n) < s).astype(int), rng.uniform(0.2, 3.0, n)


def test_equal_weights_give_the_unweighted_result_exactly():
    s, y, _ = _pool()
    plain = vc.simulate_redraws(s, y, n_calib=400, n_resamples=50, random_state=2)
    same = vc.simulate_redraws(s, y, n_calib=400, n_resamples=50, random_state=2, sample_weight=np.full(s.size, 2.5))
    assert plain.to_dict() == same.to_dict()
    np.testing.assert_array_equal(plain.deployed_recall, same.deployed_recall)


def test_zero_weight_rows_are_dropped_rows():
    s, y, w = _pool()
    w[::7] = 0.0
    with_zeros = vc.simulate_redraws(s, y, n_calib=400, n_resamples=30, random_state=4, sample_weight=w)
    keep = w > 0
    without = vc.simulate_redraws(s[keep], y[keep], n_calib=400, n_resamples=30, random_state=4,
                                  sample_weight=w[keep])
    assert with_zeros.pool_size == int(keep.sum()) and with_zeros.weighted
    np.testing.assert_array_equal(with_zeros.thresholds, without.thresholds)
    np.testing.assert_array_equal(with_zeros.test_recall, without.test_recall)


@pytest.mark.parametrize("correction", [True, False])
def test_weighted_threshold_is_recall_thresholds_weighted_rule(correction):
    """Oracle: with the whole pool as calib (one redraw) the threshold is vc.recall_threshold's
    weighted choice on the pool, and each recall is the weighted share of positive weight."""
    s, y, w = _pool(n=500)
    r = vc.simulate_redraws(s, y, n_calib=500, n_test=0, n_resamples=1, target=0.9, correction=correction,
                            random_state=0, sample_weight=w)
    t = vc.recall_threshold(s, y, target=0.9, correction=correction, sample_weight=w)
    assert r.thresholds[0] == t
    pos = y == 1
    assert r.calib_recall[0] == pytest.approx(w[pos & (s >= t)].sum() / w[pos].sum(), rel=1e-12)
    assert np.isnan(r.deployed_recall[0])  # no positive outside calib


def test_weighted_redraws_match_a_row_level_reference():
    """Reference implementation, one redraw at a time: the same draws (the documented order:
    calib positives ~ hypergeometric, then the positive rows by Generator.choice), the threshold
    from vc.recall_threshold's weighted rule on the calib positives, and each recall as a share of
    positive weight."""
    s, y, w = _pool(n=2000, seed=3)
    target, n_calib, n_test, R = 0.9, 600, 300, 20
    r = vc.simulate_redraws(s, y, n_calib=n_calib, n_test=n_test, n_resamples=R, target=target,
                            random_state=9, sample_weight=w)
    pos = y == 1
    ps, pw = s[pos], w[pos]
    P, N = int(pos.sum()), s.size
    rng = np.random.default_rng(9)
    m = rng.hypergeometric(P, N - P, n_calib, size=R)
    t = rng.hypergeometric(P - m, (N - P) - (n_calib - m), n_test)
    assert r.skipped == 0 and r.n_resamples == R
    for i in range(R):
        idx = rng.choice(P, m[i] + t[i], replace=False)
        cal, test = idx[: m[i]], idx[m[i]:]
        thr = vc.recall_threshold(ps[cal], np.ones(m[i]), target=target, sample_weight=pw[cal])
        assert r.thresholds[i] == thr
        outside = np.setdiff1d(np.arange(P), cal)
        assert r.calib_recall[i] == pytest.approx(pw[cal][ps[cal] >= thr].sum() / pw[cal].sum(), rel=1e-12)
        assert r.test_recall[i] == pytest.approx(pw[test][ps[test] >= thr].sum() / pw[test].sum(), rel=1e-12)
        assert r.deployed_recall[i] == pytest.approx(
            pw[outside][ps[outside] >= thr].sum() / pw[outside].sum(), rel=1e-9)
    assert r.to_dict()["weighted"] is True and r.to_dict()["random_state"] == 9
