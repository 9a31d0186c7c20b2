"""Round 20: the conformal shortfall flag's false-alarm rate on small calibration sets.

``CoverageReport.below_target`` flags coverage whose Wilson interval lies below ``calib_floor``. The
floor was ``1 - alpha - 1.96 sd``, the normal approximation of the coverage law Beta(k, n + 1 - k),
k = ceil((n + 1)(1 - alpha)), which is skewed to the left: with n = 9 calib rows (alpha = 0.1) a
calib set delivered coverage below that floor with probability 5.4 % (scipy's Beta cdf), with n = 20
4.1 % (simulated, 2,000 calib sets of 20,000 exchangeable test rows each: 4.45 % and 3.85 % flagged)
where the docs promised about 2.5 %. The floor is now the law's own 0.025 quantile, so at most 2.5 %
of calib sets lie below it whatever their size.
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


@pytest.mark.parametrize("n", [9, 20, 100])
def test_the_floor_leaves_at_most_2_5_percent_of_calib_sets_below_it(n):
    rng = np.random.default_rng(n)
    alpha = 0.1
    cp = vc.ConformalClassifier(alpha=alpha).fit(*_draw(rng, n))
    report = cp.coverage(*_draw(rng, 2000))
    k = math.ceil((n + 1) * (1 - alpha) - 1e-9)
    # the share of calib sets whose coverage lies below the floor (continuous scores: exact)
    assert stats.beta.cdf(report.calib_floor, k, n + 1 - k) <= 0.025 + 1e-9


def test_the_docs_state_the_2_5_percent_for_every_calib_size():
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "decisions.md").read_text(encoding="utf-8")
    text = " ".join(page.split())
    assert "the floor is the normal approximation of the coverage law" not in text
    assert "at most about 2.5 % of the time, whatever the calib set's size" in text
