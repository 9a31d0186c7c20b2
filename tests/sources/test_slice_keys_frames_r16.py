"""Eager frames name and order duration slices as the lazy routes do: a nanosecond duration column with
a missing value was named by integers ('1000000'), durations were ordered as text ('-1 days', '10 days',
'2 days'), and compare_models kept 1 and '1' as two slices where the audit refuses them."""
from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest

import veracity as vc


def _data(n: int = 300) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    p = rng.uniform(size=n)
    return p, (rng.uniform(size=n) < p).astype(int), rng.integers(0, 3, n)


@pytest.mark.parametrize("form", ["pandas", "polars", "polars-lazy"])
def test_nanosecond_durations_with_a_missing_value_are_named_as_durations(form: str) -> None:
    p, y, k = _data()
    d = pd.Series(pd.to_timedelta(k * 1000, unit="us"))
    d[::7] = pd.NaT
    frame = pd.DataFrame({"p": p, "y": y, "d": d})
    data = {"pandas": frame, "polars": pl.from_pandas(frame), "polars-lazy": pl.from_pandas(frame).lazy()}[form]
    groups = vc.audit(data, score="p", label="y", by="d").groups
    assert list(groups) == ["0 days 00:00:00", "0 days 00:00:00.001000", "0 days 00:00:00.002000", "(missing)"]
    assert groups["(missing)"].n == int(d.isna().sum())


def test_durations_are_ordered_by_value_in_memory() -> None:
    p, y, k = _data()
    d = np.array([-1, 2, 10], dtype="timedelta64[D]")[k]
    want = ["-1 days 00:00:00", "2 days 00:00:00", "10 days 00:00:00"]
    assert list(vc.audit(p, y, by=d).groups) == want
    assert list(vc.audit(pd.DataFrame({"p": p, "y": y, "d": d}), score="p", label="y", by="d").groups) == want


def test_compare_models_refuses_two_keys_of_one_name_as_the_audit_does() -> None:
    p, y, _ = _data()
    keys = np.array(["1", 1] * 150, dtype=object)
    with pytest.raises(vc.VeracityError, match="both named '1'"):
        vc.audit(p, y, by=keys)
    with pytest.raises(vc.VeracityError, match="both named '1'"):
        vc.compare_models({"a": p, "b": p ** 1.1}, y, by=keys)
