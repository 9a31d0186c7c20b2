"""Temperature scaling with one row of huge logits among scores without signal (session 36).

Multiclass logits ``z ~ N(0, 2)`` with labels drawn at random, plus one row ``[1e304, 1e304, 0]`` labelled
0. The ordinary rows alone want β = 1/τ = 0 (their slope at β = 0 is ``G / N > 0``); the huge row's term
``log(2 + e^{-βD}) - 0`` (``D = 1e304``) keeps falling as β grows. For β of order ``1/D`` the ordinary rows'
NLL is linear in β to ~1e-300, so the optimum solves ``G = D e^{-x} / (2 + e^{-x})``, ``x = βD``:

    x* = log((D - G) / (2G)),    τ* = D / x*  (≈ 1.43e301 here, x* ≈ 699.3)

an interior optimum of Newton's range. There the objective (on the huge row's scale) falls off as
``e^{-x}``, and each Newton step moved x by exactly +1: the fit stopped at ``max_iter = 100`` with no word,
at τ = 4.968e301 on arrays (x = 201 after the warm start) and 9.874e301 on a DuckDB relation (x = 101).
The binary form (one logit ``D`` labelled 1 among reversed-within-noise logits, ``x* = log((D - G)/G)``,
``G = -Σ m / 2``) did the same. Newton now bisects where its steps stop shrinking, and a fit that does
run out of steps warns.
"""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest

import veracity as vc
from veracity.calibrators import _temperature

D = 1e304


def _multiclass() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(2)
    z = rng.normal(0, 2, (400, 3))
    y = rng.integers(0, 3, 400)
    z[0] = [D, D, 0.0]
    assert y[0] == 0
    return z, y


def _multiclass_oracle(z: np.ndarray, y: np.ndarray) -> float:
    d = z[1:] - z[1:].max(axis=1, keepdims=True)
    g = float(np.sum(d.mean(axis=1) - d[np.arange(d.shape[0]), y[1:]]))  # Σ f_i'(0) of the ordinary rows
    assert g > 0.0  # they alone want tau = inf
    return D / math.log((D - g) / (2.0 * g))


def _binary(big: float) -> tuple[np.ndarray, np.ndarray, float]:
    rng = np.random.default_rng(2)
    s = rng.normal(0, 2, 400)
    y = 1.0 - rng.integers(0, 2, 400).astype(float)
    g = -0.5 * float(np.sum((2.0 * y - 1.0) * s))          # Σ f_i'(0) of the ordinary rows
    assert g > 0.0
    return np.r_[big, s], np.r_[1.0, y], big / math.log((big - g) / g)


def _lazy(backend: str, columns: dict[str, np.ndarray]):
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(columns)
    if backend == "duckdb":
        duckdb = pytest.importorskip("duckdb")
        return duckdb.from_df(frame)
    pl = pytest.importorskip("polars")
    return pl.from_pandas(frame).lazy()


def _quiet_fit(data, *args, **kw) -> vc.TemperatureScaling:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an interior optimum: nothing to warn about
        return vc.TemperatureScaling(score_type="logit").fit(data, *args, **kw)


def test_multiclass_array_fit_finds_the_interior_optimum():
    z, y = _multiclass()
    got = _quiet_fit(z, y)
    assert got.clamped_ is None
    assert got.temperature_ == pytest.approx(_multiclass_oracle(z, y), rel=1e-9)  # old: 4.968e301


@pytest.mark.parametrize("backend", ["duckdb", "polars-lazy"])
def test_multiclass_lazy_fit_agrees_with_the_array_fit(backend):
    z, y = _multiclass()
    frame = _lazy(backend, {"p0": z[:, 0], "p1": z[:, 1], "p2": z[:, 2], "y": y})
    got = _quiet_fit(frame, score=["p0", "p1", "p2"], label="y")
    assert got.temperature_ == pytest.approx(_multiclass_oracle(z, y), rel=1e-9)  # old: 9.874e301
    assert got.temperature_ == pytest.approx(_quiet_fit(z, y).temperature_, rel=1e-12)


@pytest.mark.parametrize("big", [1e200, 1e300, 1e304])
def test_binary_array_and_lazy_fits_find_the_interior_optimum(big):
    s, y, want = _binary(big)
    got = _quiet_fit(s, y)
    assert got.clamped_ is None
    assert got.temperature_ == pytest.approx(want, rel=1e-9)  # old: 4.96 * big / 100
    lazy = _quiet_fit(_lazy("duckdb", {"s": s, "y": y}), score="s", label="y")
    assert lazy.temperature_ == pytest.approx(got.temperature_, rel=1e-12)  # old: 9.85 * big / 100


def test_a_fit_that_runs_out_of_newton_steps_warns(monkeypatch):
    z, y = _multiclass()
    monkeypatch.setattr(_temperature._newton, "__kwdefaults__", {"rtol": 1e-11, "max_iter": 3})
    frame = _lazy("duckdb", {"p0": z[:, 0], "p1": z[:, 1], "p2": z[:, 2], "y": y})
    with pytest.warns(UserWarning) as caught:
        got = vc.TemperatureScaling(score_type="logit").fit(frame, score=["p0", "p1", "p2"], label="y")
    said = [str(w.message) for w in caught]
    assert len(said) == 1 and "\n" not in said[0], said
    head = r"TemperatureScaling: Newton stopped after \d+ steps without converging \(tau = "
    assert re.match(head, said[0]), said
    assert "method='golden'" in said[0]
    assert got.clamped_ is None
