"""Calibrator fits on lazy frames take ``pos_label=`` (round 38, w3): docs/calibrators.md says every fit
takes it, and the frame layer already reads the labels as ``[label == pos_label]`` where the data lives (the
lazy audits do), but a polars LazyFrame or a DuckDB relation refused it: "pos_label= needs the labels in
memory; on a lazy ... frame map the label column to 0/1". Now the lazy fit is the array fit's, and records
``pos_label`` as it does.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import veracity as vc

KINDS = [vc.TemperatureScaling, vc.PlattScaling, vc.IsotonicCalibration, vc.HistogramBinning]


def _rows() -> pd.DataFrame:
    rng = np.random.default_rng(1)
    p = rng.uniform(0.02, 0.98, 3000)
    return pd.DataFrame({"p": p, "y": np.where(rng.uniform(size=3000) < p**1.5, "yes", "no"),
                         "w": rng.uniform(0.5, 2.0, 3000)})


def _lazy(backend: str, df: pd.DataFrame) -> object:
    if backend == "polars-lazy":
        return pytest.importorskip("polars").from_pandas(df).lazy()
    return pytest.importorskip("duckdb").connect().from_df(df)


@pytest.mark.parametrize("backend", ["polars-lazy", "duckdb"])
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("pos_label", ["yes", "no"])
def test_lazy_fit_with_pos_label_is_the_array_fit(backend, kind, pos_label):
    df = _rows()
    q = np.linspace(0.01, 0.99, 25)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pos_label='no' fits reversed scores: both fits warn alike
        want = kind().fit(df["p"].to_numpy(), df["y"].to_numpy(), sample_weight=df["w"].to_numpy(),
                          pos_label=pos_label)
        got = kind().fit(_lazy(backend, df), score="p", label="y", sample_weight="w", pos_label=pos_label)
    np.testing.assert_allclose(got.transform(q), want.transform(q), rtol=1e-9, atol=1e-12)
    assert got.metadata["pos_label"] == want.metadata["pos_label"] == pos_label


def test_lazy_fit_refuses_a_pos_label_it_cannot_find():
    with pytest.raises(vc.VeracityError, match=r"pos_label='maybe' is not among the values of column 'y'"):
        vc.PlattScaling().fit(_lazy("duckdb", _rows()), score="p", label="y", pos_label="maybe")
