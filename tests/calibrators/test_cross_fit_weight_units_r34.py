"""cross_fit passes the caller's weights to every fit, in the caller's units (session 34).

Platt's smoothed targets :math:`t_+ = (N_+ + 1)/(N_+ + 2)` read the weights as row counts, so a fit
remembers by which power of two it rescaled extreme weights. cross_fit rescaled them first and fit
on the rescaled weights: its ``final`` ("the calibrator fit on every row") and its folds fit another
model than ``fit`` on the same weights (weights of 1e-200: slope 0.97 where ``fit`` gives 0; 1e250:
1.013 where it gives 1.121).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import veracity as vc


def _data(n: int = 200):
    rng = np.random.default_rng(0)
    s = rng.random(n)
    y = (rng.random(n) < s).astype(int)
    return s, y, rng.integers(1, 3, n).astype(float)


@pytest.mark.parametrize("scale", [1e-200, 1e250])
def test_final_is_the_fit_on_every_row(scale):
    s, y, k = _data()
    w = k * scale
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Platt's "weights are not counts" warning: not the point here
        cf = vc.cross_fit(s, y, vc.PlattScaling(smoothing=True), sample_weight=w, random_state=0)
        direct = vc.PlattScaling(smoothing=True).fit(s, y, sample_weight=w)
    assert cf.final.a_ == direct.a_ and cf.final.b_ == direct.b_


def test_each_fold_is_fit_in_the_callers_units():
    s, y, k = _data()
    w = k * 1e250
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cf = vc.cross_fit(s, y, vc.PlattScaling(smoothing=True), sample_weight=w, random_state=0)
        for j, cal in enumerate(cf.calibrators):
            out = cf.fold == j
            own = vc.PlattScaling(smoothing=True).fit(s[~out], y[~out], sample_weight=w[~out])
            assert (cal.a_, cal.b_) == (own.a_, own.b_)
            np.testing.assert_array_equal(cf.oof[out], own.transform(s[out]))
