"""Temperature scaling on the typical scale: one rule for the array fit and the lazy frame fits (session 17).

``calibrators._temperature.typical_scale`` decides, from counts of the nonzero |d| (binary d = z,
multiclass d = z - max_k z) and their median, whether Newton runs on d or on d/c (tau = c tau'). The
array fit and the lazy frame fits (DuckDB relations, polars LazyFrames, Parquet paths) both call it
through ``TemperatureScaling._fit_scaled``. Before, the binary frame fit had its own copy of the rule
and the MULTICLASS frame fit none: logits of typical size 1e-200 (the optimum beta = 1e200, beyond
Newton's [1e-10, 1e10]) gave tau = 1e-10 with the warning "the score separates the calibration labels
perfectly" (the array fit: tau = 1.0177e-200), and two rows spanning +-1e308 (d = -inf) gave
tau = 1e-10 with the same warning on a frame and a refusal ("every calibration row gives all classes
the same score") in memory.

Oracle: scipy's bounded minimisation of the multiclass NLL of the ordinary rows over log tau; the
NLL of s*z at s*tau is that of z at tau, so the scaled data's optimum is s times it.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import minimize_scalar
from scipy.special import logsumexp

import veracity as vc
from veracity.calibrators._temperature import TemperatureScaling

from .conftest import make

LAZY = ["duckdb", "polars-lazy", "parquet"]
COLS = ["c0", "c1", "c2"]


def _multiclass(n: int = 600, seed: int = 3):
    rng = np.random.default_rng(seed)
    z = rng.normal(0.0, 2.0, (n, 3))
    p = np.exp(z - logsumexp(z, axis=1, keepdims=True))
    y = np.minimum((p.cumsum(axis=1) < rng.random((n, 1))).sum(axis=1), 2)
    return z, y


def _scipy_tau(z, y):
    def nll(lt):
        u = z / np.exp(lt)
        return float((logsumexp(u, axis=1) - u[np.arange(len(y)), y]).sum())

    res = minimize_scalar(nll, bounds=(-5.0, 5.0), method="bounded", options={"xatol": 1e-12})
    return float(np.exp(res.x))


Z, Y = _multiclass()
REF = _scipy_tau(Z, Y)  # 0.9856


def _frame(z, y, w=None):
    cols = {c: z[:, i] for i, c in enumerate(COLS)}
    return pd.DataFrame({**cols, "y": y, "w": np.ones(len(y)) if w is None else w})


def _far(big):
    # two rows whose label holds the row maximum, the other logits `big` (or 2·big) below it:
    # they add nothing to the NLL at any tau near the optimum
    return np.array([[big, 0.0, -big], [-big, big, 0.0]]), np.array([0, 1])


def _fit_both(z, y, backend, tmp_path, score_type="logit", w=None):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no clamp, no overflow warning
        want = TemperatureScaling(score_type=score_type).fit(z, y, sample_weight=w)
        got = TemperatureScaling(score_type=score_type).fit(make(backend, _frame(z, y, w), tmp_path),
                                                            score=COLS, label="y",
                                                            sample_weight=None if w is None else "w")
    return got, want


@pytest.mark.parametrize("backend", LAZY)
@pytest.mark.parametrize("scale", [1.0, 1e3, 1e6, 1e-5, 1e-12, 1e-200])
def test_multiclass_lazy_fit_equals_the_array_fit_at_any_typical_scale(backend, scale, tmp_path):
    # before: at 1e-12 and 1e-200 the frame fit clamped tau at 1e-10 ("separates ... perfectly")
    got, want = _fit_both(Z * scale, Y, backend, tmp_path)
    assert want.temperature_ == pytest.approx(scale * REF, rel=1e-7)
    assert got.clamped_ is None and want.clamped_ is None
    assert got.temperature_ == pytest.approx(want.temperature_, rel=1e-9)
    assert got.nll_before_ == pytest.approx(want.nll_before_, rel=1e-9)
    assert got.nll_after_ == pytest.approx(want.nll_after_, rel=1e-9)


@pytest.mark.parametrize("backend", LAZY)
@pytest.mark.parametrize("big", [1e3, 1e10, 1e100, 1e308])
def test_multiclass_far_logits_on_the_right_side_do_not_move_tau(backend, big, tmp_path):
    # before, at 1e308 (z - max z = -2e308 = -inf): tau = 1e-10 and "separates ... perfectly" on a frame,
    # "every calibration row gives all classes the same score" in memory
    far, t = _far(big)
    got, want = _fit_both(np.r_[Z, far], np.r_[Y, t], backend, tmp_path)
    assert want.temperature_ == pytest.approx(REF, rel=1e-7)
    assert got.temperature_ == pytest.approx(want.temperature_, rel=1e-9)
    assert got.nll_after_ == pytest.approx(want.nll_after_, rel=1e-9)


@pytest.mark.parametrize("backend", ["duckdb", "polars-lazy"])
def test_multiclass_weighted_tiny_logits_and_far_rows(backend, tmp_path):
    far, t = _far(1e308)
    w = np.r_[np.random.default_rng(8).uniform(0.5, 2.0, len(Y)), 3.0, 0.0]  # a weight-0 row is dropped
    z = np.r_[Z, far] * 1e-300  # the far rows become +-1e8: still far
    got, want = _fit_both(z, np.r_[Y, t], backend, tmp_path, w=w)
    assert got.temperature_ == pytest.approx(want.temperature_, rel=1e-9)
    assert got.nll_after_ == pytest.approx(want.nll_after_, rel=1e-9)


@pytest.mark.parametrize("backend", ["duckdb", "polars-lazy"])
@pytest.mark.parametrize("eps", [1e-6, 1e-12, 1e-300])
def test_multiclass_probabilities_near_0_and_1(backend, eps, tmp_path):
    # probabilities read as log p, clipped at machine epsilon on both routes
    p = np.exp(Z - logsumexp(Z, axis=1, keepdims=True))
    p[:20] = [1.0 - 2.0 * eps, eps, eps]
    got, want = _fit_both(p, Y, backend, tmp_path, score_type="probability")
    assert got.temperature_ == pytest.approx(want.temperature_, rel=1e-9)
    assert got.nll_after_ == pytest.approx(want.nll_after_, rel=1e-9)


@pytest.mark.parametrize("backend", ["duckdb", "polars-lazy"])
@pytest.mark.parametrize("case", ["ordinary", "1e5", "1e-5", "1e-12", "far 1e308"])
def test_binary_lazy_fit_equals_the_array_fit(backend, case, tmp_path):
    # the binary frame fit runs the shared rule too (it agreed before, with its own copy of it)
    rng = np.random.default_rng(5)
    z = rng.normal(0.0, 2.0, 500)
    y = (rng.random(500) < 1.0 / (1.0 + np.exp(-z))).astype(np.int64)
    if case == "far 1e308":
        z, y = np.r_[z, 1e308, -1e308], np.r_[y, 1, 0]
    elif case != "ordinary":
        z = z * float(case)
    want = vc.TemperatureScaling(score_type="logit").fit(z, y)
    got = vc.TemperatureScaling(score_type="logit").fit(
        make(backend, pd.DataFrame({"s": z, "y": y}), tmp_path), score="s", label="y")
    assert got.clamped_ is None
    assert got.temperature_ == pytest.approx(want.temperature_, rel=1e-9)
    assert got.nll_before_ == pytest.approx(want.nll_before_, rel=1e-9)


@pytest.mark.parametrize("case", ["ordinary", "1e4", "1e-4", "half small", "most small", "far 1e308",
                                  "tiny far"])
@pytest.mark.parametrize("k", [1, 3])
def test_both_routes_take_the_same_rescaling_decision(case, k, tmp_path, monkeypatch):
    # one rule: Newton runs on d itself (c = 1) on both routes, or on d/c on both
    from veracity.calibrators._temperature import array_typical_scale

    rng = np.random.default_rng(2)
    z = rng.normal(0.0, 2.0, (400, 3))
    y = rng.integers(0, 3, 400)
    if case in ("1e4", "1e-4"):
        z = z * float(case)
    elif case in ("half small", "most small"):
        # |d| of ~1e-5 and ~5: exactly half small (the median pass runs and finds ~2.5, in range), or 3/5
        cells = 400 if k == 1 else 800  # the nonzero |d|: one per row, or two (d = 0 at the max)
        n_small = cells // 2 if case == "half small" else cells * 3 // 5
        size = rng.permutation(np.r_[np.full(n_small, 1e-5), np.full(cells - n_small, 5.0)])
        size *= rng.uniform(1.0, 1.1, cells)
        if k == 3:
            z = np.c_[np.zeros(400), -size.reshape(400, 2)]
        else:  # column 1 is the binary score
            z[:, 1] = size * rng.choice([-1.0, 1.0], 400)
    elif case == "far 1e308":
        z[:2] = [[1e308, 0.0, -1e308], [-1e308, 1e308, 0.0]]
    elif case == "tiny far":  # ordinary d, one far row: the floor max|d| / 1e300 decides
        z[0] = [1e304, 1e304, 0.0]
    if k == 1:
        z, y = z[:, 1], (y == 1).astype(np.int64)
    seen = []

    class Decided(Exception):
        """The route's scale is read: the fit after it is not this test's (the Newton steps on a lazy frame
        are one query each; "tiny far" ran ~100 of them)."""

    def spy(self, scale, objective):
        seen.append(scale())
        raise Decided

    monkeypatch.setattr(TemperatureScaling, "_fit_scaled", spy)
    with pytest.raises(Decided):
        TemperatureScaling(score_type="logit").fit(z, y)
    cols = {"s": z} if k == 1 else {c: z[:, i] for i, c in enumerate(COLS)}
    with pytest.raises(Decided):
        TemperatureScaling(score_type="logit").fit(make("duckdb", pd.DataFrame({**cols, "y": y}), tmp_path),
                                                   score="s" if k == 1 else COLS, label="y")
    array_c, frame_c = seen
    assert array_c == array_typical_scale(z)
    runs_on_d = case in ("ordinary", "half small")  # the typical scale within [1e-3, 1e3]
    assert (1e-3 <= array_c <= 1e3) == (1e-3 <= frame_c <= 1e3) == runs_on_d
    if not runs_on_d:  # the medians (a subsample's; DuckDB's approx_quantile) may differ a little: only
        assert frame_c == pytest.approx(array_c, rel=0.05)  # the scale, not tau (c tau' is c-free)


def test_typical_scale_rule():
    from veracity.calibrators._temperature import typical_scale

    def never() -> float:
        raise AssertionError("the median is read only where the counts cannot place it in range")

    assert typical_scale(0, 0, 0, 0.0, never) == 0.0
    assert typical_scale(5, 2, 2, 1e6, never) == 1.0  # fewer than half below, fewer than half above
    assert typical_scale(4, 2, 0, 1.0, lambda: 2e-3) == 2e-3  # exactly half below: the median decides
    assert typical_scale(5, 0, 3, 1e10, lambda: 5e4) == 5e4
    assert typical_scale(5, 0, 0, 1e304, lambda: 1.0) == pytest.approx(1e4, rel=1e-15)  # max|d| / 1e300
    # a span that overflowed: the widest finite one, 2 * 1.797e308, over 1e300
    assert typical_scale(5, 0, 0, np.inf, lambda: 1.0) == pytest.approx(3.5953862697246314e8, rel=1e-15)
