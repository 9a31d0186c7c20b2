"""``estimate_prior`` on scores that all equal the old prior (session 38).

Where every p is the old prior (a constant model, or an isotonic/histogram map collapsed to the base rate
the prior was read from) each row's likelihood ratio is 1: the likelihood of the prior is flat, no row says
it moved, and EM started at the old prior stays there. The binary root-finder read the flat slope as "the
root lies at the lower end" and returned 1e-12 ("0.3000 -> 0.0000 ... converged"), so
``adjust_prior(p, old, est.prior)`` then zeroed every probability; the multiclass path already returned the
old prior. Both now return the old prior.
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc


@pytest.mark.parametrize("old", [0.3, 0.05, 1e-9, 0.999])
def test_scores_at_the_old_prior_leave_it_where_it_is(old):
    est = vc.estimate_prior(np.full(50, old), old)
    assert est.prior == old and est.converged, str(est)
    adjusted = vc.adjust_prior(np.full(50, old), old, est.prior)
    np.testing.assert_allclose(adjusted, old, rtol=1e-13)  # before: ~1e-12 everywhere


def test_rows_of_weight_zero_carry_no_evidence():
    p = np.array([0.3, 0.3, 0.9, 0.3])
    est = vc.estimate_prior(p, 0.3, sample_weight=[1.0, 2.0, 0.0, 1.0])
    assert est.prior == 0.3, str(est)
    # the same row weighed: it says "more positives than the old prior", and the estimate rises
    assert vc.estimate_prior(p, 0.3, sample_weight=[1.0, 2.0, 1.0, 1.0]).prior > 0.3
    # every row off the old prior, all one way: the likelihood rises to an end (unchanged)
    assert vc.estimate_prior(np.full(10, 0.9), 0.3).prior == pytest.approx(1.0, abs=1e-11)
    assert vc.estimate_prior(np.full(10, 0.1), 0.3).prior == pytest.approx(0.0, abs=1e-11)


def test_binary_agrees_with_the_two_column_form_and_plain_em():
    old = 0.25
    binary = vc.estimate_prior(np.full(40, old), old).prior
    two = vc.estimate_prior(np.column_stack([np.full(40, 1 - old), np.full(40, old)]), [1 - old, old]).prior
    assert binary == pytest.approx(two[1], abs=1e-15) == pytest.approx(old)
    # Saerens et al.'s EM from the old prior: p_new = (pi/old) p / ((pi/old) p + ((1-pi)/(1-old)) (1-p))
    pi = old
    for _ in range(100):
        q = (pi / old) * old / ((pi / old) * old + ((1 - pi) / (1 - old)) * (1 - old))
        pi = float(np.mean(np.full(40, q)))
    assert pi == pytest.approx(binary, abs=1e-15)
