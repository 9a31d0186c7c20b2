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
                                redraws=R, stratify=True, random_state=7)
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
    # seed 003: "흔들림은 ... 불량의 개수로 정해진다"
    s, y = pool
    widths = []
    for m in (40, 200, 1000):
        r = vc.simulate_redraws(s, y, n_calib=2 * m, target=0.95, redraws=400, stratify=True, random_state=1)
        lo, hi = r.deployed_range
        widths.append(hi - lo)
    assert widths[0] > widths[1] > widths[2]


def test_test_reported_recall_is_unbiased_but_noisier(pool):
    s, y = pool
    r = vc.simulate_redraws(s, y, n_calib=400, n_test=400, redraws=1500, random_state=3)
    assert abs(r.test_mean - r.deployed_mean) < 0.004
    assert np.std(r.test_recall) > np.std(r.deployed_recall)
    # unstratified: the calib positive count varies (hypergeometric, mean n·P/N)
    assert r.calib_positives.std() > 0
    assert r.calib_positives.mean() == pytest.approx(200, abs=2)


def test_matches_recall_threshold_on_one_redraw():
    rng = np.random.default_rng(4)
    s = rng.random(3000)
    y = (rng.random(3000) < s).astype(int)
    r = vc.simulate_redraws(s, y, n_calib=3000, n_test=0, redraws=1, random_state=0)
    # taking every row as calib reproduces recall_threshold on the whole pool
    assert r.thresholds[0] == vc.recall_threshold(s, y, 0.95)


def test_result_object_summary_str_and_json(pool):
    s, y = pool
    r = vc.simulate_redraws(s, y, n_calib=300, redraws=200, random_state=5)
    summ = r.summary()
    assert set(summ) == {"calib", "test", "deployed"}
    d = summ["deployed"]
    assert d["p05"] <= d["mean"] <= d["p95"]
    assert d["below_target"] == np.mean(r.deployed_recall < 0.95)
    text = str(r)
    assert "test-reported" in text and "deployed" in text and "200 redraws" in text
    doc = json.loads(json.dumps(r.to_dict()))
    assert doc["redraws"] == 200
    # seeded: the same seed gives the same numbers
    r2 = vc.simulate_redraws(s, y, n_calib=300, redraws=200, random_state=5)
    np.testing.assert_array_equal(r.deployed_recall, r2.deployed_recall)


def test_small_calib_skips_with_warning():
    rng = np.random.default_rng(6)
    s = rng.random(2000)
    y = (rng.random(2000) < 0.05).astype(int)
    with pytest.warns(UserWarning, match="skipped"):
        r = vc.simulate_redraws(s, y, n_calib=300, redraws=200, random_state=0)  # ~15 positives, 19 needed
    assert r.skipped > 0 and r.redraws + r.skipped == 200


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(n_calib=0), "n_calib must be a positive integer"),
        (dict(n_calib=10, redraws=0), "redraws must be a positive integer"),
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
