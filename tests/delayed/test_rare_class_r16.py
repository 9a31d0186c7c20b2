"""Session 16: labels with few of one class — the calibration judgement and the note on the PPI interval.

Seeded simulations sized to run in seconds (vectorised over windows through ``ppi_from_sums``/``ppi_records``).
"""

import numpy as np
import pytest
from scipy.stats import binom

import veracity as vc
from veracity.delayed import PpiSums, ppi_from_sums, ppi_records


def _windows(rng, a, b, n, m, reps, mult=1.0):
    """``reps`` windows: n random labels and m unlabelled rows, scores Beta(a, b), outcomes Bernoulli(mult * f).
    Returns the unweighted sums of every window and each window's true rate E[y]."""
    f = rng.beta(a, b, (reps, n))
    g = rng.beta(a, b, (reps, m))
    y = (rng.random((reps, n)) < np.clip(mult * f, 0, 1)).astype(np.float64)
    sums = PpiSums.from_counts(n=np.full(reps, float(n)), sum_y=y.sum(1), sum_f=f.sum(1), sum_ff=(f * f).sum(1),
                               sum_yf=(y * f).sum(1), m=np.full(reps, float(m)), sum_fu=g.sum(1),
                               sum_ffu=(g * g).sum(1))
    truth = np.clip(mult * (a / (a + b)), 0, 1) if mult == 1.0 else None
    return sums, y.sum(1), truth


def test_calibrated_rare_outcomes_are_judged_calibrated_at_the_level():
    # rates 0.02-0.05 with 100-400 random labels: the rectifier's normal interval excluded 0 for calibrated scores
    # in 7-10 % of windows at a nominal 5 % (mostly on the low side: too few positives is skewed); the exact
    # binomial bound below 10 labels of one class keeps it at the level
    rng = np.random.default_rng(16)
    for a, b, n in [(1, 19, 100), (0.5, 20, 200), (1, 49, 400)]:
        sums, _, _ = _windows(rng, a, b, n, 2000, 1500)
        judged = np.array([r["calibrated"] for r in ppi_records(sums)], dtype=bool)
        assert 1 - judged.mean() <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / 1500), (a, b, n, 1 - judged.mean())


def test_real_miscalibration_of_rare_outcomes_is_still_found():
    rng = np.random.default_rng(17)
    for a, b, n, mult, power in [(1, 19, 300, 0.5, 0.45), (1, 49, 400, 2.0, 0.45), (1, 19, 300, 1.6, 0.4)]:
        sums, _, _ = _windows(rng, a, b, n, 2000, 600, mult=mult)
        judged = np.array([r["calibrated"] for r in ppi_records(sums)], dtype=bool)
        assert 1 - judged.mean() >= power, (a, b, n, mult, 1 - judged.mean())


def test_one_positive_among_100_labels_scored_005_is_no_evidence_of_miscalibration():
    # under calibration 1 or fewer positives has probability P(Bin(100, 0.05) <= 1) = 0.037 > 0.025: not rejected
    # (the normal interval of the rectifier, -0.04 +- 1.96 * 0.0099, excluded 0: "not calibrated")
    y = np.zeros(100, int)
    y[7] = 1
    f = np.full(100, 0.05)
    g = np.random.default_rng(0).beta(1, 19, 3000)
    off = {"sample_check": "off"}  # constant labelled scores beside varied ones: not a random sample, by design
    assert binom.cdf(1, 100, 0.05) == pytest.approx(0.0371, abs=1e-4)
    r = vc.ppi_mean(y, f, g, **off)
    assert r.rectifier_high < 0  # the normal interval still reads below 0 ...
    assert r.calibrated  # ... but the exact judgement does not reject
    assert "not calibrated" not in (r.note or "")
    assert vc.ppi_audit(y, f, g, **off).calibrated
    assert ppi_records(PpiSums.of(y.astype(float), f, g))[0]["calibrated"] is True
    # no positive at all among 100 labels scored 0.05: probability 0.0059, rejected (the exact test of r15)
    assert not vc.ppi_mean(np.zeros(100, int), f, g, **off).calibrated
    # rare negatives: the same test of n - S
    r = vc.ppi_mean(1 - y, 1 - f, 1 - g, **off)
    assert r.calibrated
    # 0 positives where 3.2 are expected (0.968^100 = 0.039) is not rejected either
    assert vc.ppi_mean(np.zeros(100, int), np.full(100, 0.032), g, **off).calibrated


def test_ppi_intervals_from_one_or_two_labels_of_a_class_cover_badly_and_say_so():
    # the conditional coverage the note quotes: among windows whose labels held 1 (2) positives, the 95 %
    # PPI interval covered the true rate 13-28 % (52-64 %) of the time; from 3 on, about the level
    rng = np.random.default_rng(18)
    cover = {1: [], 2: [], 3: []}
    for a, b, n in [(1, 19, 60), (1, 19, 100), (0.5, 20, 200)]:
        sums, k, truth = _windows(rng, a, b, n, 3000, 3000)
        out = ppi_from_sums(sums)
        hit = (out["ci_low"] <= truth) & (truth <= out["ci_high"])
        for c in cover:
            cover[c].extend(hit[k == c].tolist())
    rate = {c: np.mean(v) for c, v in cover.items()}
    assert rate[1] < 0.35 and rate[2] < 0.7 and rate[3] > 0.85, rate


@pytest.mark.parametrize("k, noted", [(1, True), (2, True), (3, False)])
def test_the_rare_class_note_names_the_count(k, noted):
    rng = np.random.default_rng(5)
    f = rng.beta(2, 5, 200)
    g = rng.beta(2, 5, 2000)
    y = np.zeros(200, int)
    y[:k] = 1
    r = vc.ppi_mean(y, f, g)
    assert (f"only {k} of the 200 labels" in (r.note or "")) is noted
    rec = ppi_records(PpiSums.of(y.astype(float), f, g))[0]
    assert (f"only {k} of the 200 labels" in (rec["note"] or "")) is noted
    assert (f"only {k} of the 200 labels" in (vc.ppi_audit(y, f, g).note or "")) is noted
    neg = vc.ppi_mean(1 - y, 1 - f, 1 - g)
    assert (f"only {k} of the 200 labels {'is' if k == 1 else 'are'} negative" in (neg.note or "")) is noted


def test_the_note_counts_weighted_labels_by_their_kish_size():
    rng = np.random.default_rng(6)
    f = rng.beta(2, 5, 200)
    g = rng.beta(2, 5, 2000)
    y = np.zeros(200, int)
    y[:10] = 1
    # equal weights: the count itself (10 positives: no note); the positives weighing 1/20 of the others:
    # their weighted share times the Kish size is about 0.5 of a label
    assert "of the 200 labels" not in (vc.ppi_mean(y, f, g, sample_weight=np.full(200, 3.0)).note or "")
    w = np.where(y == 1, 0.05, 1.0)
    r = vc.ppi_mean(y, f, g, sample_weight=w)
    share = (w * y).sum() / w.sum()
    kish = w.sum() ** 2 / (w @ w)
    assert f"only {share * kish:.2g} of the 200 labels are positive (effective labels" in r.note  # 0.5
