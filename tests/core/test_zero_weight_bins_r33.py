"""A bin whose rows all weigh 0 is omitted from the table as an empty bin is, but the note under the
table must not say it has no rows: it read "no rows in [0.8,1.0]" of a bin holding 56 rows of weight 0,
rows the same footer counts among its points."""

from __future__ import annotations

import duckdb
import numpy as np
import pandas as pd
import polars as pl
import pytest

import veracity as vc


def _data() -> pd.DataFrame:
    rng = np.random.default_rng(1)
    p = rng.random(300)
    y = (rng.random(300) < p).astype(int)
    p[(p > 0.2) & (p < 0.4)] = 0.5  # bin [0.2,0.4) holds no row
    w = np.where(p > 0.8, 0.0, 1.0)  # bin [0.8,1.0] holds rows, all of weight 0
    return pd.DataFrame({"s": p, "y": y, "w": w})


WANT = "no rows in [0.2,0.4); only rows of weight 0 in [0.8,1.0] (2 empty bins omitted)"


@pytest.mark.parametrize("form", ["arrays", "pandas", "polars-lazy", "duckdb"])
def test_a_bin_of_zero_weight_rows_is_not_said_to_have_no_rows(form: str) -> None:
    df = _data()
    frames = {"pandas": lambda: df, "polars-lazy": lambda: pl.from_pandas(df).lazy(),
              "duckdb": lambda: duckdb.from_df(df)}
    if form == "arrays":
        result = vc.audit(df["s"].to_numpy(), df["y"].to_numpy(), sample_weight=df["w"].to_numpy(), bins=5)
    else:
        result = vc.audit(frames[form](), score="s", label="y", sample_weight="w", bins=5)
    assert int(result.table.stats.count[4]) == int((df["w"] == 0).sum()) > 0
    assert result.table.empty_bin_text() == WANT
    assert f"(300 points in 5 uniform bins; {WANT})" in str(result)
    assert WANT in result._repr_html_()


def test_bins_without_rows_keep_their_note() -> None:
    df = _data()
    table = vc.reliability(df["s"].to_numpy(), df["y"].to_numpy(), bins=5)
    assert table.empty_bin_text() == "no rows in [0.2,0.4) (1 empty bin omitted)"


def test_one_row_is_one_point() -> None:
    text = str(vc.reliability([0.3], [1], bins=3))
    assert "(1 point in 3 uniform bins;" in text
    assert "(2 points in 3 uniform bins;" in str(vc.reliability([0.3, 0.4], [1, 0], bins=3))
