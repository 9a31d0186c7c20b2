"""A lazy multiclass temperature fit issues one aggregate query fewer, with the same numbers.

``nll_before_`` (f at beta = 1) was one more query after Newton, whose first step had already summed the same
terms at beta = 1; the objective now keeps the f each step read.
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc
from veracity.frames import _fit

from .conftest import counted_queries, make

LAZY = ["polars-lazy", "duckdb"]


def _queries(backend, monkeypatch):
    """Every query a fit sends: the collects, and on DuckDB also the SQL aggregates of ``_aggregate``
    (which polars runs through a collect, counted there)."""
    seen = counted_queries(monkeypatch)
    if backend == "duckdb":
        real = _fit._aggregate

        def counted(lf, **spec):
            seen.append(1)
            return real(lf, **spec)

        monkeypatch.setattr(_fit, "_aggregate", counted)
    return seen


def _multiclass(n=800, seed=0):
    import pandas as pd

    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, 3)) * 2.0
    prob = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    y = (rng.random(n)[:, None] > np.cumsum(prob, axis=1)).sum(axis=1)
    return pd.DataFrame({"p0": prob[:, 0], "p1": prob[:, 1], "p2": prob[:, 2], "y": y,
                         "w": rng.uniform(0.5, 2.0, n)})


@pytest.mark.parametrize("backend", LAZY)
def test_multiclass_temperature_reads_nll_before_from_its_first_step(backend, tmp_path, monkeypatch):
    df = _multiclass()
    frame = make(backend, df, tmp_path)
    cols = ["p0", "p1", "p2"]
    seen = _queries(backend, monkeypatch)
    calls = []
    real_nll = _fit.FrameMulticlassObjective.nll

    def nll(self, beta):
        calls.append(beta)
        return real_nll(self, beta)

    monkeypatch.setattr(_fit.FrameMulticlassObjective, "nll", nll)
    start = []  # the queries before the fit's own (the contract's checks: one or two by engine)
    real_fit = _fit._fit_multiclass_temperature

    def fit(*args):
        start.append(len(seen))
        return real_fit(*args)

    monkeypatch.setattr(_fit, "_fit_multiclass_temperature", fit)
    got = vc.TemperatureScaling().fit(frame, score=cols, label="y", sample_weight="w")
    assert calls == [1.0]  # nll_before_, read ...
    # ... with no query of its own: the first pass (sums and counts), one per Newton step
    assert len(seen) - start[0] == 1 + got.n_iter_  # old: 2 + n_iter_
    want = vc.TemperatureScaling().fit(df[cols].to_numpy(), df["y"].to_numpy(),
                                       sample_weight=df["w"].to_numpy())
    assert got.temperature_ == pytest.approx(want.temperature_, rel=1e-9)
    assert got.nll_before_ == pytest.approx(want.nll_before_, rel=1e-12)
    assert got.nll_after_ == pytest.approx(want.nll_after_, rel=1e-12)
