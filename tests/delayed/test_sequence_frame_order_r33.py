"""The frame form of the confidence sequences keeps a categorical ``batches=`` column's order, as the
array form does (``batches=df.day``): the column used to reach the function as a numpy array of its text,
sorted as text ('mon' < 'sun' < 'tue'), a silently different order of the looks."""

import numpy as np
import pandas as pd
import polars as pl
import pytest

import veracity as vc

ORDER = ["tue", "mon", "sun"]


@pytest.fixture
def frame() -> pd.DataFrame:
    rng = np.random.default_rng(3)
    n = 900
    p = rng.uniform(0.1, 0.9, n)
    y = (rng.random(n) < np.clip(p + np.repeat([0.0, 0.2, -0.1], 300), 0, 1)).astype(int)
    day = pd.Categorical(np.repeat(ORDER, 300), categories=ORDER)
    return pd.DataFrame({"p": p, "y": y, "day": day})


@pytest.mark.parametrize("fn", [vc.confidence_sequence, vc.binned_sequences])
def test_pandas_categorical_batches_keep_their_order_in_the_frame_form(frame, fn):
    by_name = fn(frame, score="p", label="y", batches="day")
    by_array = fn(frame["p"], frame["y"], batches=frame["day"])
    assert str(by_name) == str(by_array)
    if fn is vc.confidence_sequence:
        assert list(by_name.steps) == ORDER
        np.testing.assert_array_equal(by_name.low, by_array.low)


def test_polars_enum_batches_keep_their_order_in_the_frame_form(frame):
    lazy_free = pl.from_pandas(frame).with_columns(pl.col("day").cast(pl.Enum(ORDER)))
    res = vc.confidence_sequence(lazy_free, score="p", label="y", batches="day")
    assert list(res.steps) == ORDER
    ref = vc.confidence_sequence(frame["p"], frame["y"], batches=frame["day"])
    np.testing.assert_array_equal(res.low, ref.low)
    np.testing.assert_array_equal(res.high, ref.high)
