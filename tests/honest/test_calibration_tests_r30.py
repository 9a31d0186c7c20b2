"""Calibration tests, round 30: the recalibration's Wald tests and a contradicted certainty; every
printed p-value names its law; Spiegelhalter's blind spot at 0.5."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import chi2, norm

import veracity as vc


def test_a_contradicted_certainty_gives_the_recalibration_tests_p_value_zero() -> None:
    # five scores of exactly 0 that came true: impossible under alpha = 0 or b = 1, so exact p = 0;
    # the Wald in-the-large test had read the flat likelihood as alpha = +18.6, SE 1,929, p = 0.99
    t = vc.calibration_slope([0.0, 0.3, 0.6, 0.8] * 5, [1, 0, 1, 1] * 5)
    assert t.contradicted == 5
    assert t.citl_p_value == 0.0 and t.slope_p_value == 0.0
    assert 2 * norm.sf(abs(t.citl / t.citl_se)) > 0.9  # what the Wald law alone reads
    assert "5 scores of exactly 0 or 1 that the label contradicts" in str(t)
    assert t.to_dict()["contradicted"] == 5


def test_one_contradicted_row_among_calibrated_ones() -> None:
    rng = np.random.default_rng(3)
    wald = []
    for _ in range(3):
        p = rng.uniform(0.05, 0.95, 1000)
        y = (rng.uniform(size=1000) < p).astype(float)
        t = vc.calibration_tests(np.r_[p, 0.0], np.r_[y, 1.0])
        assert t.slope is not None and t.slope.contradicted == 1
        assert t.slope.citl_p_value == t.slope.slope_p_value == 0.0
        assert t.spiegelhalter is not None and t.spiegelhalter.p_value == 0.0
        wald.append(2 * norm.sf(abs(t.slope.citl / t.slope.citl_se)))
    assert max(wald) > 0.3  # the module doc's 0.37 and 0.90: the Wald law saw nothing


def test_logits_top_labels_and_zero_weights_are_never_contradicted() -> None:
    p = np.r_[np.linspace(0.05, 0.95, 40), 0.0]
    y = np.r_[np.arange(40) % 2, 1]
    w = np.r_[np.ones(40), 0.0]
    t = vc.calibration_slope(p, y, sample_weight=w)  # the contradicting row carries no weight
    assert t.contradicted == 0 and t.citl_p_value > 0.0
    s = np.r_[np.linspace(-3, 3, 40), -800.0]  # a logit of -800 is a probability of 0 only when rounded
    assert vc.calibration_slope(s, y, score_type="logit").contradicted == 0


def test_calibrated_scores_with_exact_zeros_and_ones_keep_the_level() -> None:
    """Seeded: a calibrated model whose scores are exactly 0 or 1 a fifth of the time (hard rules),
    never contradicted; the Wald tests and Spiegelhalter's reject at about their 5 % level."""
    rng = np.random.default_rng(30)
    runs = 400
    rejected = {"citl": 0, "slope": 0, "spiegelhalter": 0}
    for _ in range(runs):
        p = rng.uniform(size=200)
        hard = rng.uniform(size=200) < 0.2
        p[hard] = (rng.uniform(size=hard.sum()) < 0.5).astype(float)
        y = (rng.uniform(size=200) < p).astype(int)
        s = vc.calibration_slope(p, y)
        assert s.contradicted == 0
        rejected["citl"] += s.citl_p_value <= 0.05
        rejected["slope"] += s.slope_p_value <= 0.05
        rejected["spiegelhalter"] += vc.spiegelhalter(p, y).p_value <= 0.05
    for name, k in rejected.items():
        assert 0.02 <= k / runs <= 0.08, (name, k)


def test_every_printed_p_value_names_its_law() -> None:
    rng = np.random.default_rng(0)
    p = rng.beta(2, 2, 300)
    y = (rng.uniform(size=300) < p).astype(int)
    text = str(vc.calibration_tests(p, y))
    t = vc.spiegelhalter(p, y)
    want = f"Spiegelhalter z = {t.statistic:+.3f}, two-sided p = {t.p_value:.4f} (normal law; 300 rows)"
    assert want in text
    assert "Logistic recalibration (logit P(y=1) = a + b * logit(score); two-sided Wald p-values):" in text
    assert "Monte-Carlo p = " in text or ", df = 10, p = " in text


def test_one_group_is_one_bin() -> None:
    assert str(vc.hosmer_lemeshow([0.4] * 20, [0, 1] * 10)).endswith("(1 equal-count bin, 9 of bins=10 merged by tied scores)")


def test_spiegelhalter_gives_scores_of_one_half_no_weight() -> None:
    """The documented blind spot: rows at p = 0.5 change neither z's numerator nor its variance, so
    ten of them that all came true (chance 1/1,024) leave z where it was; Hosmer-Lemeshow sees them."""
    base_p, base_y = [0.1, 0.3, 0.7, 0.9] * 10, [0, 0, 1, 1, 0, 1, 1, 1] * 5
    more_p, more_y = base_p + [0.5] * 10, base_y + [1] * 10
    a, b = vc.spiegelhalter(base_p, base_y), vc.spiegelhalter(more_p, more_y)
    assert math.isclose(a.statistic, b.statistic, rel_tol=1e-12) and b.n == a.n + 10
    assert vc.hosmer_lemeshow(more_p, more_y).p_value < vc.hosmer_lemeshow(base_p, base_y).p_value


def test_spiegelhalter_keeps_5_percent_on_few_rows_and_its_far_tail() -> None:
    """The module doc's claim, seeded: calibrated Beta(0.3, 6) scores, 20 rows, 4,000 samples. By the normal
    law p <= 0.01 read 1.5x its level and p <= 0.001 3x; these rows expect fewer than 5 events, so the
    p-value is by Monte Carlo (round 42), and its tail keeps its level too."""
    rng = np.random.default_rng(7)
    p_values = []
    for _ in range(4000):
        p = rng.beta(0.3, 6.0, 20)
        y = (rng.uniform(size=20) < p).astype(int)
        p_values.append(vc.spiegelhalter(p, y).p_value)
    v = np.array(p_values)
    assert 0.035 <= np.mean(v <= 0.05) <= 0.065
    assert np.mean(v <= 0.01) <= 0.015  # the normal law's: 1.5x its level and more
    assert np.mean(v <= 0.001) <= 0.0025  # the normal law's: 3x and more


def test_hosmer_lemeshow_counts_no_degree_of_freedom_for_a_bin_of_certain_scores() -> None:
    """A bin whose scores are all 0 (or all 1) has no variance: its term is 0 under calibration, so it is
    not a chi-square term. Counted as one, it read H on too many df."""
    p = np.r_[np.zeros(500), np.linspace(0.1, 0.9, 1000), np.ones(500)]
    y = np.r_[np.zeros(500), np.arange(1000) % 2, np.ones(500)].astype(int)
    t = vc.hosmer_lemeshow(p, y, bins=4)
    assert t.bins == 4 and t.degenerate == 2 and t.df == 2 and t.method == "chi-square"
    assert t.min_expected >= 5  # the certain bins' 0 expected events do not flag the law approximate
    assert t.p_value == pytest.approx(chi2.sf(t.statistic, 2), rel=1e-12)
    assert "(4 equal-count bins, 2 of scores all 0 or all 1)" in str(t)
    assert t.to_dict()["degenerate"] == 2 and t.to_dict()["df"] == 2
    assert vc.hosmer_lemeshow(p, y, bins=4, df=4).df == 4  # a df given is kept


def test_hosmer_lemeshow_keeps_its_level_with_many_certain_scores() -> None:
    """Seeded: 25,000 calibrated rows (chi-square law), 30 % scores of exactly 0 and 30 % of exactly 1;
    the 5 % test rejected 2 % of the time with a df for each certain bin."""
    rng = np.random.default_rng(30)
    runs, rejected = 250, 0
    for _ in range(runs):
        p = rng.uniform(0.1, 0.9, 25_000)
        z = rng.uniform(size=25_000)
        p[z < 0.3], p[z > 0.7] = 0.0, 1.0
        y = (rng.uniform(size=25_000) < p).astype(int)
        t = vc.hosmer_lemeshow(p, y)
        assert t.method == "chi-square" and t.degenerate >= 1
        rejected += t.p_value <= 0.05
    assert 0.03 <= rejected / runs <= 0.08, rejected
