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
        if y is None:  # a frame and its column names
            cal.fit(s, **kw)
        else:
            cal.fit(np.asarray(s, dtype=float), np.asarray(y), **kw)
    return cal, [str(c.message) for c in caught]


@pytest.mark.parametrize("s, y", SEPARATED)
def test_platt_on_separated_rows_warns_and_is_not_converged(s, y):
    cal, said = _fit(vc.PlattScaling(), s, y)
    assert len(said) == 1 and "separat" in said[0], said
    assert cal.converged_ is False
    # smoothed targets have a finite maximum: no warning
    cal, said = _fit(vc.PlattScaling(smoothing=True), s, y)
    assert said == [] and cal.converged_ is True


@pytest.mark.parametrize("s, y", SEPARATED)
def test_beta_on_separated_rows_warns(s, y):
    _, said = _fit(vc.BetaCalibration(), s, y)
    assert len(said) == 1 and "separat" in said[0], said


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


@pytest.mark.parametrize("route", ["polars-lazy", "duckdb"])
@pytest.mark.parametrize("s, y", SEPARATED[:3])
def test_a_lazy_frame_fit_says_so_too(route, s, y):
    # frames/_fit.py fits a lazy frame where it lives: each class's score range, read with the median,
    # tells it the labels are separated, as the array fit's check does
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"s": np.asarray(s, dtype=float), "y": np.asarray(y)})
    if route == "duckdb":
        duckdb = pytest.importorskip("duckdb")
        lazy = duckdb.from_df(frame)
    else:
        pl = pytest.importorskip("polars")
        lazy = pl.from_pandas(frame).lazy()
    cal, said = _fit(vc.PlattScaling(), lazy, None, score="s", label="y")
    assert len(said) == 1 and "separat" in said[0], said
    assert cal.converged_ is False
    cal, said = _fit(vc.PlattScaling(smoothing=True), lazy, None, score="s", label="y")
    assert said == [] and cal.converged_ is True
