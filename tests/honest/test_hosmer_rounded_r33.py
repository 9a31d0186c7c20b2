"""Hosmer-Lemeshow on logits and top-label confidences that round to a probability of exactly 0 or 1
(round 33). Such a score is not a claim of certainty (no contradiction, as for Spiegelhalter and the
recalibration), so the test reads it at eps or 1 - eps, the log-loss's and the recalibration's clip: a
bin of them holding a wrong label has an enormous, finite term, and the line names the bin. Before, the
line read ``H = inf, p = 0.0000`` with no reason, and the Monte-Carlo route returned p = 0."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy.stats import chi2

import veracity as vc

EPS = float(np.finfo(np.float64).eps)


def _softmax_rows_with_a_wrong_certainty(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The report's rows: 500 Dirichlet(1, 1, 1) probabilities, 100 of them set to [1, 0, 0], one of those
    labelled 1 (wrong); the others' labels drawn from their probabilities."""
    rng = np.random.default_rng(seed)
    P = rng.dirichlet([1.0, 1.0, 1.0], 500)
    Y = np.array([rng.choice(3, p=p) for p in P])
    P[:100] = [1.0, 0.0, 0.0]
    Y[:100] = 0
    Y[0] = 1
    return P, Y


def _bin_term(rows: int, against: int) -> float:
    """By hand: a bin of ``rows`` scores read at 1 - eps, ``against`` of them wrong:
    (O - E)^2 / (E F / n) with E = n(1 - eps), F = n eps, O = n - against."""
    e, f = rows * (1.0 - EPS), rows * EPS
    return (against - f) ** 2 / (e * f / rows)


def test_a_wrong_label_at_a_rounded_confidence_of_one_is_named_not_a_bare_inf() -> None:
    P, Y = _softmax_rows_with_a_wrong_certainty()
    tests = vc.calibration_tests(P, Y)
    hl = tests.hosmer_lemeshow
    assert hl is not None and hl.contradicted == 0  # a rounded softmax is no certainty
    assert math.isfinite(hl.statistic)
    (miss,) = hl.rounded_misses
    b, score, rows, against, term = miss
    assert (b, score, rows, against) == (hl.bins, 1.0, 100, 1) and hl.n[b - 1] == 100
    assert term == pytest.approx(_bin_term(100, 1), rel=1e-6)  # about 4.5e13
    assert hl.statistic == pytest.approx(term, rel=1e-9)  # that bin alone makes H
    assert hl.method == "chi-square" and hl.p_value == chi2.sf(hl.statistic, hl.df)
    text = str(tests)
    assert "H = inf" not in text and "H = 45035" not in text  # neither a bare inf nor 15 digits
    assert f"H = {hl.statistic:.3g}, df = {hl.df}" in text
    assert (f"bin {b} of {hl.bins} (100 rows, every score exactly 1.0) holds 1 label against its score: a "
            "top-label confidence rounded to 1.0 is not certain, so it is read at 1 - 2.2e-16") in text
    assert f"the bin adds {term:.3g} to H (chance under calibration at most 2.2e-14" in text
    out = json.loads(json.dumps(hl.to_dict()))
    assert out["rounded_misses"] == [{"bin": b, "score": 1.0, "rows": 100, "against": 1, "term": term}]


def test_the_monte_carlo_and_chi_square_laws_agree_on_a_rounded_certainty_weighted_or_not() -> None:
    """Few rows: the Monte-Carlo law, whose redraws read the same clipped scores, so no redraw reaches H
    and p is its floor 1/(R + 1), not the 0 of a contradiction; the chi-square law (df given) reads the
    same H."""
    rng = np.random.default_rng(5)
    P = np.r_[rng.dirichlet([1.0, 1.0, 1.0], 40), np.tile([1.0, 0.0, 0.0], (20, 1))]
    Y = np.r_[[rng.choice(3, p=p) for p in P[:40]], [1], np.zeros(19, dtype=int)]
    for w in (None, np.r_[np.ones(30), np.full(30, 2.0)]):
        t = vc.hosmer_lemeshow(P, Y, bins=6, sample_weight=w, n_resamples=499)
        assert t.method == "monte-carlo" and t.degenerate == 1 and t.contradicted == 0
        assert t.p_value == pytest.approx(1.0 / 500.0, rel=1e-12)
        (miss,) = t.rounded_misses
        assert miss[:4] == (t.bins, 1.0, 20, 1)
        assert miss[4] == pytest.approx(_bin_term(20, 1), rel=1e-6)  # equal weights within the bin
        assert "Monte-Carlo p = 0.0020" in str(t) and f"bin {t.bins} of {t.bins} (20 rows" in str(t)
        fixed = vc.hosmer_lemeshow(P, Y, bins=6, sample_weight=w, df=t.bins - 1)
        assert fixed.method == "chi-square" and fixed.statistic == pytest.approx(t.statistic, rel=1e-12)
        assert fixed.p_value == chi2.sf(fixed.statistic, fixed.df) < 1e-12
        assert fixed.rounded_misses == t.rounded_misses


def test_binary_logits_that_round_to_0_or_1_are_read_at_eps() -> None:
    rng = np.random.default_rng(8)
    s = rng.normal(0.0, 1.0, 240)
    y = (rng.uniform(size=240) < 1.0 / (1.0 + np.exp(-s))).astype(int)
    s = np.r_[s, np.full(30, -800.0)]  # sigmoid(-800) is 0.0 in floating point
    y = np.r_[y, np.zeros(30, dtype=int)]
    agreed = vc.hosmer_lemeshow(s, y, score_type="logit")
    assert agreed.rounded_misses == () and agreed.degenerate == 1 and math.isfinite(agreed.statistic)
    assert "not certain" not in str(agreed)
    y[-1] = 1  # one positive at logit -800: all but impossible, not a contradiction
    t = vc.hosmer_lemeshow(s, y, score_type="logit")
    assert t.contradicted == 0 and math.isfinite(t.statistic)
    (miss,) = t.rounded_misses
    assert miss[:4] == (1, 0.0, 30, 1) and miss[4] == pytest.approx(_bin_term(30, 1), rel=1e-6)
    assert ("bin 1 of 10 (30 rows, every score exactly 0.0) holds 1 label against its score: a logit's "
            "probability rounded to 0.0 is not certain, so it is read at 2.2e-16") in str(t)
    assert "float16" not in str(t)  # the rounding remark is the top-label confidences'


def test_a_binary_probability_of_exactly_1_with_label_0_stays_a_contradiction() -> None:
    p = np.r_[np.linspace(0.05, 0.95, 90), np.ones(10)]
    y = np.r_[np.arange(90) % 2, np.zeros(1), np.ones(9)].astype(int)
    t = vc.hosmer_lemeshow(p, y)
    assert t.contradicted == 1 and t.statistic == math.inf and t.p_value == 0.0
    assert t.rounded_misses == () and "not certain" not in str(t)
    assert "1 score of exactly 0 or 1 that the label contradicts: impossible under calibration" in str(t)


def test_calibrated_top_label_scores_with_exact_confidences_of_one_keep_the_level() -> None:
    """Seeded: a confident softmax (120 of 400 rows at logits [45, 0, 0], confidence exactly 1.0), the
    labels drawn from the softmax itself: Hosmer-Lemeshow rejects about 5 % at the 5 % level (0.052 in
    2,000 samples of another seed), the bin of confidences 1.0 counting no degree of freedom and naming
    no miss."""
    rng = np.random.default_rng(33)
    runs, n = 400, 400
    rejected = 0
    for _ in range(runs):
        z = rng.normal(0.0, 1.5, (n, 3))
        sure = rng.permutation(n) < 120  # 7 runs of 40 rows below them: the 8th bin is theirs
        z[sure] = 0.0
        z[sure, rng.integers(0, 3, 120)] = 45.0
        prob = np.exp(z - z.max(axis=1, keepdims=True))
        prob /= prob.sum(axis=1, keepdims=True)
        y = (rng.uniform(size=(n, 1)) > np.cumsum(prob, axis=1)).sum(axis=1)
        t = vc.hosmer_lemeshow(z, y, score_type="logit", n_resamples=199)
        assert t.degenerate == 1 and t.df == t.bins - 1 and t.rounded_misses == ()
        rejected += t.p_value <= 0.05
    assert 0.025 <= rejected / runs <= 0.085, rejected
