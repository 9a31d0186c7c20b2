"""Binary temperature scaling on a Dask frame past ``READ_ONCE_ROWS`` (the aggregate route, r21): a tenth of
the rows at 1e100, or a majority at 1e-200. The frame objective's ``extent()`` lets the second fit on those
rows' scale run there as on arrays (before: tau 1e10 or 2.6e-190, clamped, and a false warning), and its
logistic function formed exp(1e100) in the unused branch of a ``when``/``otherwise`` (pandas evaluates both),
so every fit also raised "RuntimeWarning: overflow encountered in exp". Oracle: the array fit, itself checked
against the definition (tests/calibrators/test_temperature_extreme_rows_r21.py)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import veracity as vc
from veracity.frames import _fit

from .conftest import threaded_dask


def _case(frac: float, scale: float) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 600)
    s = rng.normal(size=600) + 1.5 * (2 * y - 1)
    s[np.random.default_rng(1).random(600) < frac] *= scale
    return s, y


@pytest.mark.parametrize("frac, scale", [(0.1, 1e100), (0.6, 1e-200)],
                         ids=["tenth at 1e100", "majority at 1e-200"])
def test_dask_aggregate_route_fits_far_rows_as_the_array_fit(frac, scale, monkeypatch):
    dd = pytest.importorskip("dask.dataframe")
    s, y = _case(frac, scale)
    frame = dd.from_pandas(pd.DataFrame({"s": s, "y": y}), npartitions=2)
    monkeypatch.setattr(_fit, "READ_ONCE_ROWS", 10)  # the aggregate route, not the rows read once
    with threaded_dask(), warnings.catch_warnings():
        warnings.simplefilter("error")
        got = vc.TemperatureScaling(score_type="logit").fit(frame, score="s", label="y")
    want = vc.TemperatureScaling(score_type="logit").fit(s, y)
    assert want.clamped_ is None and got.clamped_ is None
    assert got.temperature_ == pytest.approx(want.temperature_, rel=1e-9)
    assert got.nll_after_ == pytest.approx(want.nll_after_, rel=1e-9)
