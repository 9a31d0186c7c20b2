"""vc.compare_models names its by= slices as vc.audit names the slice of the same key (core._keys.key_name)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import veracity as vc


def _models(n: int = 400):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, n)
    a = np.clip(rng.random(n), 0.01, 0.99)
    b = np.clip(a + rng.normal(0, 0.1, n), 0.01, 0.99)
    return {"a": a, "b": b}, y


@pytest.mark.parametrize("case", ["zoned", "negative_zero", "bytes"])
def test_compare_slices_are_named_as_the_audit_names_them(case):
    models, y = _models()
    half = np.arange(y.size) < y.size // 2
    if case == "zoned":
        times = pd.to_datetime(np.where(half, "2024-01-01 10:00", "2024-01-02 10:00"))
        by = pd.Series(times).dt.tz_localize("Europe/Paris").to_numpy(dtype=object)
        expected = ["2024-01-01 09:00:00+00:00", "2024-01-02 09:00:00+00:00"]
    elif case == "negative_zero":
        by = np.where(half, -0.0, 1.0)
        expected = ["0.0", "1.0"]
    else:
        by = np.array([b"\x00a" if h else b"b" for h in half], dtype=object)
        expected = ["b'\\x00a'", "b'b'"]
    compared = vc.compare_models(models, y, by=by, n_resamples=0)
    audited = vc.audit(models["a"], y, by=by)
    assert list(compared.groups) == list(audited.groups) == expected
