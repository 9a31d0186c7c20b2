"""A feature whose rows of positive weight hold one value is refused in words that say so: the rows of
weight 0 are dropped first, and "one value in every row" read as false beside a column of two values."""

import numpy as np
import pandas as pd
import polars as pl
import pytest

import veracity as vc


@pytest.mark.parametrize("form", ["pandas", "polars-lazy"])
def test_one_value_among_the_rows_of_positive_weight(form):
    rng = np.random.default_rng(0)
    n = 400
    p = rng.uniform(0.1, 0.9, n)
    df = pd.DataFrame({"p": p, "y": (rng.random(n) < p).astype(int), "g": np.repeat(["a", "b"], n // 2),
                       "w": np.repeat([0.0, 1.0], n // 2)})
    data = df if form == "pandas" else pl.from_pandas(df).lazy()
    with pytest.raises(vc.VeracityError, match=r"one value \('b'\) in every row of positive weight; it splits"):
        vc.segments(data, score="p", label="y", features=["g"], sample_weight="w")


def test_unweighted_wording_is_unchanged():
    df = pd.DataFrame({"p": [0.2, 0.7] * 50, "y": [0, 1] * 50, "g": ["b"] * 100})
    with pytest.raises(vc.VeracityError, match=r"one value \('b'\) in every row; it splits nothing"):
        vc.segments(df, score="p", label="y", features=["g"])
