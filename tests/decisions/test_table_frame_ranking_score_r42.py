"""Round 42: threshold_table's frame form with score_type="score" (a ranking score) read the column as a logit,
and a ranking score that happens to lie in [0, 1] (a percentile rank, a normalised risk score) was refused as
"scores were declared score_type='logit' but all 400 lie in [0, 1]" on every frame (pandas, polars, pyarrow,
polars lazy, DuckDB), a type the caller never named, where the array form counts it. Now every frame route
gives the array form's table."""

from __future__ import annotations

import duckdb
import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import veracity as vc


def _rows(seed: int = 4, n: int = 400) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rank = np.round(rng.random(n), 3)  # a ranking score in [0, 1]: no probability reading
    y = (rng.random(n) < 0.2 + 0.6 * rank).astype(int)
    return pd.DataFrame({"rank": rank, "y": np.where(y == 1, "bad", "good"), "w": rng.uniform(0.5, 2.0, n)})


FRAMES = {
    "pandas": lambda df: df,
    "polars": pl.from_pandas,
    "pyarrow": pa.Table.from_pandas,
    "polars-lazy": lambda df: pl.from_pandas(df).lazy(),
    "duckdb": lambda df: duckdb.from_df(df),
}


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("kind", list(FRAMES))
def test_a_ranking_score_in_unit_range_is_counted_on_every_frame(kind, weighted):
    df = _rows()
    thresholds = [0.25, 0.5, 0.9]
    y = (df["y"] == "bad").to_numpy().astype(int)
    w = df["w"].to_numpy() if weighted else None
    want = vc.threshold_table(df["rank"].to_numpy(), y, thresholds, sample_weight=w, score_type="score")
    got = vc.threshold_table(FRAMES[kind](df), thresholds, score="rank", label="y", pos_label="bad",
                             sample_weight="w" if weighted else None, score_type="score")
    for column in ("tp", "fp", "fn", "tn", "recall", "precision"):
        np.testing.assert_allclose(getattr(got, column), getattr(want, column), rtol=1e-12)
    assert str(got) == str(want)


@pytest.mark.parametrize("kind", ["pandas", "polars-lazy"])
def test_declared_logits_in_unit_range_are_still_refused(kind):
    """Only the ranking score is read as it is: probabilities declared as logits stay refused."""
    with pytest.raises(vc.VeracityError, match="declared score_type='logit'"):
        vc.threshold_table(FRAMES[kind](_rows()), [0.5], score="rank", label="y", pos_label="bad",
                           score_type="logit")
