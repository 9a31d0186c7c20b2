"""A misspelt column name gets the closest names as a hint on every route (before: a hint only for a
name differing in case or surrounding spaces)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest

import veracity as vc


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    p = rng.uniform(size=50)
    return pd.DataFrame({"score": p, "label": (rng.uniform(size=50) < p).astype(int), "region": "eu"})


@pytest.mark.parametrize("form", ["pandas", "polars-lazy", "csv", "parquet"])
def test_a_misspelt_column_names_the_closest(frame, tmp_path, form: str) -> None:
    data: object = {"pandas": frame, "polars-lazy": pl.from_pandas(frame).lazy()}.get(form)
    if data is None:
        data = tmp_path / f"f.{form}"
        frame.to_csv(data, index=False) if form == "csv" else frame.to_parquet(data)
    with pytest.raises(vc.VeracityError, match=r"column 'scroe' not found.*\(did you mean 'score'\?\)"):
        vc.audit(data, score="scroe", label="label")
    with pytest.raises(vc.VeracityError) as far:
        vc.audit(data, score="zzz", label="label")
    assert "did you mean" not in str(far.value)  # nothing alike: no guess


def test_the_cli_names_the_closest(frame, tmp_path, cli, refused) -> None:
    path = tmp_path / "f.csv"
    frame.to_csv(path, index=False)
    refused(cli(["audit", path, "--score", "score", "--label", "lable"]), r"did you mean 'label'\?")
