"""The printed summary of IsotonicCalibration(ties="strict") says what the map is (session 20).

It printed "isotonic calibration (strict ties, step): 11 distinct scores -> 7 steps (4 ties created)":
the centred map is always linear (``interpolation`` is ignored under ``ties="strict"``) and strictly
increasing on the fit range, so it creates no ties there -- the line named the interpolation it does
not use and counted ties of the PAV blocks it removes. Checked against the map itself.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import veracity as vc


def _data():
    rng = np.random.default_rng(5)
    p = np.round(rng.uniform(0, 1, 200), 1)
    y = (rng.random(200) < p).astype(int)
    return p, y


@pytest.mark.parametrize("interpolation", ["step", "linear"])
def test_strict_summary_names_the_centred_linear_map(interpolation):
    p, y = _data()
    cal = vc.IsotonicCalibration(ties="strict", interpolation=interpolation).fit(p, y)
    ux = np.unique(p)
    out = cal.transform(ux)
    assert np.all(np.diff(out) > 0)  # strictly increasing: no tie created on the fit scores
    text = str(cal)
    assert "step" not in text and "ties created" not in text
    assert "linear" in text and "strictly increasing" in text
    assert f"{ux.size} distinct scores" in text and f"{cal.knots_x_.size} knots" in text


def test_strict_single_block_summary_says_constant():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cal = vc.IsotonicCalibration(ties="strict").fit([0.1, 0.2, 0.3, 0.4], [1, 0, 1, 0])
    assert np.ptp(cal.transform([0.1, 0.25, 0.4])) == 0.0
    assert "constant" in str(cal) and "strictly increasing" not in str(cal)


def test_allow_summary_unchanged():
    p, y = _data()
    cal = vc.IsotonicCalibration().fit(p, y)
    assert str(cal) == (f"isotonic calibration (allow ties, step): {cal.n_unique_} distinct scores -> "
                        f"{cal.n_steps_} steps ({cal.ties_created_} ties created)")
