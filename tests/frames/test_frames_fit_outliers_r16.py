"""Temperature and Platt fits on a LAZY frame with a few scores far beyond the rest (session 16).

The array fits were fixed in calibrators/_temperature.py and _platt.py (tests/calibrators/
test_cal_*_outliers_r16.py); the frame fits (DuckDB relations, polars LazyFrames, Parquet paths,
``veracity fit --engine duckdb``) had their own copies of the old arithmetic. Two correctly
labelled logits of ±1e10 … ±1e308 among 500 logits of order 1 add nothing to either loss at the
optimum, so the fit is that of the 500 rows. Before:

* Platt: damped Newton on the raw x from (0, 0) took one tiny step and stopped "converged" at
  a = 2.0e-10, b = 3.4e-7 (every output the base rate), no warning; at ±1e308 it raised
  "invalid value encountered in multiply";
* temperature: f'(β) = Σ w z σ(βz) − Σ w z y cancelled; ±1e100 and ±1e308 gave τ = 1 (silently),
  ±1e10 a τ 4e-9 off.

Oracles: scipy (τ: the NLL of the ordinary rows minimised over log τ; Platt: scikit-learn's
LogisticRegression(C=inf) on the ordinary rows), and the array fit of the same rows.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import minimize_scalar

import veracity as vc
from veracity.cli import main

from .conftest import make

LAZY = ["duckdb", "polars-lazy", "parquet"]


def _data(seed: int = 3, n: int = 500):
    rng = np.random.default_rng(seed)
    z = rng.normal(0.0, 2.0, n)
    y = (rng.random(n) < 1.0 / (1.0 + np.exp(-z))).astype(np.int64)
    return z, y


def _frame(x, y, w=None):
    return pd.DataFrame({"s": x, "y": y, "w": np.ones(len(x)) if w is None else w})


def _sklearn(x, y, w=None):
    from sklearn.linear_model import LogisticRegression

    m = LogisticRegression(C=np.inf, tol=1e-14, max_iter=100_000).fit(x[:, None], y, sample_weight=w)
    return np.array([m.coef_[0, 0], m.intercept_[0]])


def _scipy_tau(z, y):
    m = (2.0 * y - 1.0) * z
    res = minimize_scalar(lambda lt: np.logaddexp(0.0, -m / np.exp(lt)).sum(), bounds=(-5.0, 5.0),
                          method="bounded", options={"xatol": 1e-12})
    return float(np.exp(res.x))


@pytest.mark.parametrize("backend", LAZY)
@pytest.mark.parametrize("big", [1e10, 1e100, 1e308])
def test_platt_far_scores_on_the_right_side_do_not_move_the_fit(backend, big, tmp_path):
    z, y = _data()
    ref = _sklearn(z, y)  # a = 1.05158, b = -0.010547
    x, t = np.r_[z, big, -big], np.r_[y, 1, 0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # converged, slope positive: no warning
        frame = make(backend, _frame(x, t), tmp_path)
        got = vc.PlattScaling(score_type="logit").fit(frame, score="s", label="y")
    assert got.converged_
    np.testing.assert_allclose([got.a_, got.b_], ref, rtol=1e-6, atol=1e-8)
    want = vc.PlattScaling(score_type="logit").fit(x, t)
    np.testing.assert_allclose([got.a_, got.b_], [want.a_, want.b_], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("backend", LAZY)
@pytest.mark.parametrize("big", [1e10, 1e100, 1e308])
def test_temperature_far_logits_on_the_right_side_do_not_move_tau(backend, big, tmp_path):
    z, y = _data()
    ref = _scipy_tau(z, y)  # 0.95132
    x, t = np.r_[z, big, -big], np.r_[y, 1, 0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = vc.TemperatureScaling(score_type="logit").fit(make(backend, _frame(x, t), tmp_path),
                                                            score="s", label="y")
    assert got.clamped_ is None
    assert got.temperature_ == pytest.approx(ref, rel=1e-7)
    assert got.temperature_ == pytest.approx(vc.TemperatureScaling(score_type="logit").fit(x, t).temperature_,
                                             rel=1e-9)


@pytest.mark.parametrize("backend", ["duckdb", "polars-lazy"])
def test_weighted_far_rows(backend, tmp_path):
    z, y = _data()
    w = np.random.default_rng(8).uniform(0.5, 2.0, z.size)
    x, t, ww = np.r_[z, 1e10, -1e10], np.r_[y, 1, 0], np.r_[w, 3.0, 0.5]
    frame = make(backend, _frame(x, t, ww), tmp_path)
    got = vc.PlattScaling(score_type="logit").fit(frame, score="s", label="y", sample_weight="w")
    np.testing.assert_allclose([got.a_, got.b_], _sklearn(z, y, w), rtol=1e-6, atol=1e-8)
    tau = vc.TemperatureScaling(score_type="logit").fit(frame, score="s", label="y", sample_weight="w")
    want = vc.TemperatureScaling(score_type="logit").fit(x, t, sample_weight=ww)
    assert tau.temperature_ == pytest.approx(want.temperature_, rel=1e-9)


@pytest.mark.parametrize("backend", ["duckdb", "polars-lazy"])
def test_a_far_score_on_the_wrong_side_still_counts(backend, tmp_path):
    # one row at +1e10 labelled 0: Platt's maximum-likelihood slope is ~ -1.7e-9, and no positive
    # temperature fits (f'(0+) > 0); the frame fits give the array fits' answers and warnings
    z, y = _data()
    x, t = np.r_[z, 1e10], np.r_[y, 0]
    frame = make(backend, _frame(x, t), tmp_path)
    with pytest.warns(UserWarning, match="negative slope"):
        got = vc.PlattScaling(score_type="logit").fit(frame, score="s", label="y")
    with pytest.warns(UserWarning, match="negative slope"):
        want = vc.PlattScaling(score_type="logit").fit(x, t)
    assert want.a_ < 0.0
    np.testing.assert_allclose([got.a_, got.b_], [want.a_, want.b_], rtol=1e-9)
    with pytest.warns(UserWarning, match="reversed"):
        tau = vc.TemperatureScaling(score_type="logit").fit(frame, score="s", label="y")
    assert tau.clamped_ == "upper" and tau.temperature_ >= 1e10


@pytest.mark.parametrize("backend", ["duckdb", "polars-lazy"])
@pytest.mark.parametrize("factor", [1e5, 1e-5])
def test_scores_of_extreme_scale(backend, factor, tmp_path):
    # decision values of order 1e5 (or 1e-5): the array fits run Newton on a typical scale of 1;
    # the frame fits did not (Platt from (0, 0) on the raw x)
    z, y = _data()
    frame = make(backend, _frame(z * factor, y), tmp_path)
    got = vc.PlattScaling(score_type="logit").fit(frame, score="s", label="y")
    ref = _sklearn(z, y)
    np.testing.assert_allclose([got.a_ * factor, got.b_], ref, rtol=1e-6, atol=1e-8)
    tau = vc.TemperatureScaling(score_type="logit").fit(frame, score="s", label="y")
    assert tau.temperature_ == pytest.approx(_scipy_tau(z, y) * factor, rel=1e-7)


def test_heavy_tailed_scores_equal_the_array_fit(tmp_path):
    # Cauchy decision values: far rows on both sides of every boundary, both fits run
    rng = np.random.default_rng(4)
    x = rng.standard_cauchy(20_000)
    y = (rng.random(x.size) < 1.0 / (1.0 + np.exp(-0.7 * np.clip(x, -50, 50) + 0.2))).astype(np.int64)
    frame = make("duckdb", _frame(x, y), tmp_path)
    got = vc.PlattScaling(score_type="logit").fit(frame, score="s", label="y")
    want = vc.PlattScaling(score_type="logit").fit(x, y)
    np.testing.assert_allclose([got.a_, got.b_], [want.a_, want.b_], rtol=1e-9)
    tau = vc.TemperatureScaling(score_type="logit").fit(frame, score="s", label="y")
    assert tau.temperature_ == pytest.approx(vc.TemperatureScaling(score_type="logit").fit(x, y).temperature_,
                                             rel=1e-9)


@pytest.mark.parametrize("method", ["platt", "temperature"])
def test_cli_fit_engine_duckdb(method, tmp_path, capsys):
    z, y = _data()
    path = tmp_path / "s.parquet"
    _frame(np.r_[z, 1e100, -1e100], np.r_[y, 1, 0]).to_parquet(path, index=False)
    docs = {}
    for engine in ("memory", "duckdb"):
        code = main(["fit", str(path), "--score", "s", "--label", "y", "--score-type", "logit",
                     "--method", method, "--engine", engine, "--json", "-",
                     "--out", str(tmp_path / f"{engine}.json")])
        out = capsys.readouterr()
        assert code == 0, out.err
        docs[engine] = json.loads(out.out)["state"]
    if method == "platt":
        np.testing.assert_allclose([docs["duckdb"]["a_"], docs["duckdb"]["b_"]], _sklearn(z, y), rtol=1e-6)
        keys = ("a_", "b_")
    else:
        assert docs["duckdb"]["temperature_"] == pytest.approx(_scipy_tau(z, y), rel=1e-7)
        keys = ("temperature_", "nll_before_", "nll_after_")
    for key in keys:
        assert docs["duckdb"][key] == pytest.approx(docs["memory"][key], rel=1e-9), key
