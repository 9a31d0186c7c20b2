"""Platt and beta calibration on perfectly separated calibration rows say so (session 20).

When every positive scores above every negative the likelihood has no maximum: it keeps rising
as the slope grows, and any "fitted" map is an arbitrary step from 0 to 1. Newton stopped where the
residual p - t could no longer be told from 0 in float64 (p rounds to 1 near 1 - 1e-16) and called
that converged: ``PlattScaling().fit([0.3, 0.4, 0.45, 0.6], [0, 0, 0, 1])`` gave a = 164, probabilities
0 or 1 and ``converged_ = True``, silently (two rows at 0.2/0.8 did warn). Now such a fit warns that
the score separates the labels and records ``converged_ = False``; one overlapping pair is enough for
a finite maximum-likelihood fit, which still matches scikit-learn's unpenalised logistic regression.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

import veracity as vc

#: the fix (calibrators/_platt.py ``separation`` + ``PlattScaling._set_fit(separated=)``, the same check in
#: ``BetaCalibration._fit``) is ready but makes 5 tests in other files fail under filterwarnings=error, as
#: they fit Platt on separated toy rows:
#: test_cal_labels_index.py::test_cross_fit_passes_pos_label_to_every_fold, hardening/test_hostile_calibrators_export.py (3 tests), export/test_export_cli.py (1 test)
PENDING = pytest.mark.xfail(strict=True, reason="silent 'converged' fit on separated rows; fix pending the "
                                                "lead (5 tests in other areas must expect the warning)")

SEPARATED = [
    ([0.01, 0.02, 0.98, 0.99], [0, 0, 1, 1]),
    ([0.012, 0.108, 0.497, 0.564, 0.637, 0.742], [0, 0, 0, 0, 1, 1]),
    ([0.3, 0.4, 0.45, 0.6], [0, 0, 0, 1]),
    ([0.2, 0.8], [0, 1]),
    ([0.2, 0.5, 0.5, 0.8], [0, 0, 1, 1]),          # quasi-separated: a tie on the boundary
]


def _fit(cal, s, y, **kw):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cal.fit(np.asarray(s, dtype=float), np.asarray(y), **kw)
    return cal, [str(c.message) for c in caught]


@PENDING
@pytest.mark.parametrize("s, y", SEPARATED)
def test_platt_on_separated_rows_warns_and_is_not_converged(s, y):
    cal, said = _fit(vc.PlattScaling(), s, y)
    assert len(said) == 1 and "separat" in said[0], said
    assert cal.converged_ is False
    # smoothed targets have a finite maximum: no warning
    cal, said = _fit(vc.PlattScaling(smoothing=True), s, y)
    assert said == [] and cal.converged_ is True


@PENDING
@pytest.mark.parametrize("s, y", SEPARATED)
def test_beta_on_separated_rows_warns(s, y):
    _, said = _fit(vc.BetaCalibration(), s, y)
    assert len(said) == 1 and "separat" in said[0], said


@PENDING
def test_separated_weighted_rows_and_one_vs_rest():
    # the overlap is carried by a row of weight 0 only: still separated
    s, y = [0.1, 0.3, 0.6, 0.9, 0.2], [0, 0, 1, 1, 1]
    _, said = _fit(vc.PlattScaling(), s, y, sample_weight=[1, 1, 1, 1, 0])
    assert len(said) == 1 and "separat" in said[0]
    P = np.array([[0.7, 0.2, 0.1], [0.6, 0.3, 0.1], [0.2, 0.7, 0.1], [0.1, 0.8, 0.1],
                  [0.3, 0.3, 0.4], [0.25, 0.25, 0.5]])
    _, said = _fit(vc.OneVsRest(method="platt"), P, [0, 0, 1, 1, 2, 2])
    assert said and all("separat" in m for m in said)


@pytest.mark.parametrize("seed", range(5))
def test_one_overlap_still_fits_like_scikit_learn(seed):
    rng = np.random.default_rng(seed)
    x = np.sort(rng.normal(size=30))
    y = (np.arange(30) >= 15).astype(int)
    y[14], y[15] = 1, 0                                  # one overlapping pair: a finite optimum
    cal, said = _fit(vc.PlattScaling(score_type="logit"), x, y)
    assert said == [] and cal.converged_ is True
    ref = LogisticRegression(C=np.inf, tol=1e-12, max_iter=10_000).fit(x[:, None], y)
    assert cal.a_ == pytest.approx(ref.coef_[0, 0], rel=1e-5)
    assert cal.b_ == pytest.approx(ref.intercept_[0], rel=1e-5, abs=1e-6)


def test_constant_scores_are_not_called_separated():
    cal, said = _fit(vc.PlattScaling(), [0.4, 0.4, 0.4, 0.4], [0, 1, 0, 1])
    assert not any("separat" in m for m in said)
    assert cal.transform([0.4])[0] == pytest.approx(0.5)
