"""Round 23: swapping A and B mirrors DeLong's row to the bit, and DeLong's level on few positives.

Swap: ``compare_models({"b": ..., "a": ...})`` is ``compare_models({"a": ..., "b": ...})`` read from the
other side, so every difference flips sign exactly, each interval's ends swap and negate exactly and the
p-values are equal. Weighted, the DeLong covariance matrix was not symmetric to the bit
(``cov[i, j]`` and ``cov[j, i]`` are two sums of the same products, rounded apart), so the swapped
comparison's ΔAUC interval ends and p-value moved in their last bits (found by a seeded search: 8 of 30
weighted problems).

Level: DeLong's normal test is asymptotic. Seeded simulations (two exchangeable models, the null true)
showed it rejecting above its level where a class has few rows: 7.3 % at 5 % with 10 positives, and
weighted (exponential weights) ~10 % with 15, its variance ~20 % low there (Bessel's n/(n - 1) is not
the unbiasing factor for unequal weights). Since round 23 each class's term is scaled by the paired
mean's kappa and the test reads Student's t on the Welch–Satterthwaite degrees of freedom of the two
class terms (``veracity.core._delong``); these simulations hold it to its level (more regimes and the
power guard: tests/comparison/test_delong_level_r23.py).
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc

from .conftest import level_allowance, null_rejection_rate, two_model_problem


@pytest.mark.parametrize("seed", range(12))
def test_swapping_weighted_models_mirrors_every_row_to_the_bit(seed):
    a, b, y, w = two_model_problem(seed)
    ab = vc.compare_models({"a": a, "b": b}, y, sample_weight=w, n_resamples=60)
    ba = vc.compare_models({"b": b, "a": a}, y, sample_weight=w, n_resamples=60)
    for metric in ("brier", "log_loss", "ece", "auc"):
        r1, r2 = ab.row(metric), ba.row(metric)
        assert r1.diff == -r2.diff, metric
        assert (r1.ci_low, r1.ci_high) == (-r2.ci_high, -r2.ci_low), metric
        assert r1.p_value == r2.p_value, metric


def test_swapping_models_mirrors_delong_in_a_three_model_comparison():
    a, b, y, w = two_model_problem(3)
    c = np.clip(a + 0.1 * (b - 0.5), 0.0, 1.0)
    abc = vc.compare_models({"a": a, "b": b, "c": c}, y, sample_weight=w, n_resamples=0)
    cba = vc.compare_models({"c": c, "b": b, "a": a}, y, sample_weight=w, n_resamples=0)
    for x, z in (("a", "b"), ("a", "c"), ("b", "c")):
        r1, r2 = abc.row("auc", x, z), cba.row("auc", z, x)
        assert (r1.diff, r1.ci_low, r1.ci_high, r1.p_value) == (-r2.diff, -r2.ci_high, -r2.ci_low, r2.p_value)


def test_delong_holds_its_level_with_ten_positives():
    draws = 3000
    assert null_rejection_rate(10, 300, draws, seed=2, weighted=False) <= level_allowance(draws)


def test_weighted_delong_holds_its_level_with_few_positives():
    draws = 1000
    assert null_rejection_rate(15, 300, draws, seed=1, weighted=True) <= level_allowance(draws)

