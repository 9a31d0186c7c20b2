"""Round 41: the MCE's family p-value is the same on every backend (docs/segments.md: "the draws are made on
the aggregate, so every backend gives the same p-value"). Each atom's rate Σwp / n is summed in each engine's
own order, an ulp or two apart, and numpy's binomial is not continuous in its rate where (n + 1)q is whole:
on calibrated scores rounded to 0.1 the p-value read 0.53 in memory and 0.485 on a polars LazyFrame. The
rates are now rounded to 12 significant digits of their smaller tail before the draws. And a feature named
by a numpy string (taken from an array) is named as text in a lazy frame's notes, not as np.str_('g')."""

from __future__ import annotations

import duckdb
import numpy as np
import pandas as pd
import polars as pl
import pytest

import veracity as vc


def _rounded(seed, n=20_000):
    rng = np.random.default_rng(seed)
    p = np.round(rng.uniform(0.02, 0.98, n), 1)
    g = rng.choice(list("ab"), n)
    y = (rng.uniform(size=n) < p).astype(int)
    return pd.DataFrame({"p": p, "y": y, "g": g})


@pytest.mark.parametrize("seed", [0, 1])
def test_mce_pvalue_is_the_same_on_every_route(seed):
    df = _rounded(seed)
    arrays = vc.segments(df["p"].to_numpy(), df["y"].to_numpy(), features={"g": df["g"].to_numpy()}, depth=1)
    lazy = vc.segments(pl.from_pandas(df).lazy(), score="p", label="y", features=["g"], depth=1)
    duck = vc.segments(duckdb.from_df(df), score="p", label="y", features=["g"], depth=1)
    assert arrays.mce_family_pvalue == lazy.mce_family_pvalue == duck.mce_family_pvalue


def test_numpy_string_names_read_as_text_in_a_lazy_frames_notes():
    rng = np.random.default_rng(11)
    n = 600
    p = rng.uniform(0.05, 0.95, n)
    frame = pl.DataFrame({"p": p, "y": (rng.uniform(size=n) < p).astype(int),
                          "g": rng.choice(["a", "b", "rare"], n, p=[0.5, 0.47, 0.03])}).lazy()
    names = list(np.array(["g"]))  # numpy strings
    res = vc.segments(frame, score="p", label="y", features=names, n_resamples=9)
    assert res.notes and all("np.str_" not in note for note in res.notes)
    assert "feature 'g'" in res.notes[0]
