"""Round 20: the conformal shortfall flag's false-alarm rate on small calibration sets.

``CoverageReport.below_target`` flags coverage below ``calib_floor = 1 - alpha - 1.96 sd`` (beyond the
test rows' Wilson interval), the normal approximation of the coverage law Beta(k, n + 1 - k),
k = ceil((n + 1)(1 - alpha)). The docs promised "on exchangeable rows that happens at most about
2.5 % of the time". On many test rows the flag fires when the calib set's coverage falls below the
floor, and the Beta law is skewed to the left: with n = 9 calib rows (alpha = 0.1) a calib set
delivers coverage below the floor with probability 5.4 % (scipy's Beta cdf), with n = 20 4.1 %.
Simulated (2,000 calib sets, 20,000 exchangeable test rows each): 4.45 % flagged at n = 9,
3.85 % at n = 20 — the promise held only for calib sets of a few hundred rows.

The fix belongs in ``ConformalClassifier._shortfall_bounds`` (the floor as the 0.025 quantile of
Beta(k, n + 1 - k), moment-matched for Mondrian and weighted calib sets), but
``tests/decisions/test_conformal_shortfall_r18.py`` pins the normal-approximation floor to 1e-12,
so the page now states where the promise holds and this test waits for that change.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import veracity as vc


def _draw(rng, n, k=4):
    z = rng.normal(size=(n, k)) * 2.0
    P = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    y = (P.cumsum(axis=1) > rng.uniform(size=(n, 1))).argmax(axis=1)
    return P, y


@pytest.mark.xfail(strict=True, reason="the floor is the normal approximation, pinned by "
                   "test_conformal_shortfall_r18.py; the Beta quantile needs that test changed")
@pytest.mark.parametrize("n", [9, 20, 100])
def test_the_floor_leaves_at_most_2_5_percent_of_calib_sets_below_it(n):
    rng = np.random.default_rng(n)
    alpha = 0.1
    cp = vc.ConformalClassifier(alpha=alpha).fit(*_draw(rng, n))
    report = cp.coverage(*_draw(rng, 2000))
    k = math.ceil((n + 1) * (1 - alpha) - 1e-9)
    # the share of calib sets whose coverage lies below the floor (continuous scores: exact)
    assert stats.beta.cdf(report.calib_floor, k, n + 1 - k) <= 0.025 + 1e-9


def test_the_docs_state_where_the_2_5_percent_holds():
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "decisions.md").read_text(encoding="utf-8")
    assert "at most about\n2.5 % of the time." not in page and "at most about 2.5 % of the time." not in page
    assert "about 5 % of calib sets of 9 rows" in " ".join(page.split())
