"""Round 21: a calibrator's ``transform`` reads a frame as its ``fit`` does.

``fit(frame, score="p", label="y")`` and ``fit_transform(frame, score=..., label=...)`` had a frame form,
``transform`` had none: ``cal.transform(frame, score="p")`` was a TypeError, and ``cal.transform(frame)``
read every column of the frame as scores ("could not convert string to float: '2026-01'", or "scores have
shape (200, 2) (multiclass)").
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import veracity as vc


def _data(n: int = 300, seed: int = 0):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.02, 0.98, n)
    y = (rng.random(n) < p ** 1.3).astype(int)
    return p, y, pd.DataFrame({"p": p, "y": y, "month": ["2026-01"] * n})


@pytest.mark.parametrize("kind", ["pandas", "polars", "pyarrow"])
@pytest.mark.parametrize("make", [vc.PlattScaling, vc.IsotonicCalibration, vc.BetaCalibration])
def test_transform_of_a_frame_equals_the_array_form(kind, make):
    p, y, df = _data()
    cal = make().fit(p, y)
    frame = {"pandas": lambda: df, "polars": lambda: pytest.importorskip("polars").from_pandas(df),
             "pyarrow": lambda: pytest.importorskip("pyarrow").Table.from_pandas(df)}[kind]()
    assert np.array_equal(cal.transform(frame, score="p"), cal.transform(p))


def test_multiclass_transform_reads_the_named_columns():
    rng = np.random.default_rng(1)
    probs = rng.dirichlet([1.0, 1.0, 1.0], 300)
    labels = (probs.cumsum(axis=1) < rng.random((300, 1))).sum(axis=1)
    cal = vc.TemperatureScaling().fit(probs, labels)
    frame = pd.DataFrame(probs, columns=["a", "b", "c"])
    assert np.array_equal(cal.transform(frame, score=["a", "b", "c"]), cal.transform(probs))


def test_fit_transform_of_a_frame_equals_fit_then_transform_of_the_arrays():
    p, y, df = _data()
    assert np.array_equal(vc.PlattScaling().fit_transform(df, score="p", label="y"),
                          vc.PlattScaling().fit(p, y).transform(p))


@pytest.mark.parametrize("call, match", [
    (lambda cal, df: cal.transform(df), r"^PlattScaling\.transform got a frame: name its score column with score="),
    (lambda cal, df: cal.transform(df, score="q"), r"^column 'q' not found; available columns: p, y, month"),
    (lambda cal, df: cal.transform(df, score="month"), r"^column 'month' \(scores\) must be numeric"),
    (lambda cal, df: cal.transform(df.iloc[:0], score="p"), r"^the frame has no rows"),
    (lambda cal, df: cal.transform(df.assign(p=np.where(df.index == 3, np.nan, df.p)), score="p"),
     r"^column 'p' \(scores\) has 1 missing/NaN"),
    (lambda cal, df: cal.transform(df.assign(p=df.p * 3), score="p"),
     r"this PlattScaling was fit on probabilities and reads only those"),
])
def test_a_frame_given_wrongly_is_one_line(call, match):
    p, y, df = _data()
    cal = vc.PlattScaling().fit(p, y)
    with pytest.raises(vc.VeracityError, match=match) as info:
        call(cal, df)
    assert "\n" not in str(info.value)
