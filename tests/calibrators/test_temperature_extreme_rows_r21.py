"""Temperature scaling where some rows' logits lie far from the rest (r21): a tenth of the rows at 1e100
among ordinary ones, or a majority at 1e-200. The MLE exists (τ ≈ 7e99: the huge rows calibrated, the others
near uniform; τ ≈ 0.65 for the tiny case), but the fit clamped τ at 1e10 (or 1e-190) with an NLL of 1e88
and warned that "the scores are reversed", which is false: the model is informative. Checked against the
definition: the NLL at the fitted τ, computed stably here, is no worse than at τ = 1 and at the best τ of a
fine log-spaced grid."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.special import logsumexp

import veracity as vc

from .conftest import informative_logits


_data = informative_logits


def _nll_multi(z: np.ndarray, y: np.ndarray, tau: float) -> float:
    """Mean of logsumexp((z - max z)/τ) - (z_y - max z)/τ, in float64 with each row's own maximum."""
    d = (z - z.max(axis=1, keepdims=True)) / tau
    return float(np.mean(logsumexp(d, axis=1) - d[np.arange(y.size), y]))


def _nll_binary(s: np.ndarray, y: np.ndarray, tau: float) -> float:
    """Mean softplus(-y±·s/τ), stably: logaddexp(0, ·)."""
    return float(np.mean(np.logaddexp(0.0, -(2.0 * y - 1.0) * s / tau)))


def _cases() -> list[tuple[str, np.ndarray, np.ndarray]]:
    z, y = _data()
    out = []
    for name, frac, scale in [("tenth at 1e100", 0.1, 1e100), ("majority at 1e-200", 0.6, 1e-200)]:
        rows = np.random.default_rng(1).random(y.size) < frac
        Z = z.copy()
        Z[rows] *= scale
        out.append((f"multiclass, {name}", Z, y))
        s = z[:, 1] - z[:, 0] + 0.3 * z[:, 2]
        s[rows] *= scale
        out.append((f"binary, {name}", s, (y == 1).astype(int)))
    return out


CASES = _cases()
GRID = np.logspace(-5, 120, 2501)


@pytest.mark.parametrize("name, z, y", CASES, ids=[c[0] for c in CASES])
def test_the_mle_is_found_without_a_warning(name, z, y):
    nll = _nll_multi if z.ndim == 2 else _nll_binary
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning at all: a finite optimum exists
        ts = vc.TemperatureScaling(score_type="logit").fit(z, y)
    tau = ts.temperature_
    with np.errstate(over="ignore"):
        grid = min(nll(z, y, t) for t in GRID)
    got = nll(z, y, tau)
    assert ts.clamped_ is None
    assert got <= nll(z, y, 1.0) + 1e-12
    assert got <= grid + 1e-9
    assert ts.nll_after_ == pytest.approx(got, rel=1e-9)
    # and the transform agrees: its NLL is the definition's
    p = ts.transform(z)
    direct = -np.mean(np.log(p[np.arange(y.size), y])) if z.ndim == 2 else -np.mean(
        np.where(y == 1, np.log(p), np.log1p(-p)))
    assert direct == pytest.approx(got, rel=1e-6)


@pytest.mark.parametrize("method", ["golden", "newton"])
def test_never_a_false_reversed_claim(method):
    """Bounds that stop τ short of the MLE (1e100): the warning says the optimum lies beyond the bound,
    never that an informative model's scores are reversed."""
    z, y = CASES[0][1], CASES[0][2]
    kw = {"bounds": (0.05, 1e6)} if method == "newton" else {}
    with pytest.warns(UserWarning) as rec:
        vc.TemperatureScaling(score_type="logit", method=method, **kw).fit(z, y)
    text = " ".join(str(r.message) for r in rec)
    assert "reversed" not in text
    assert "upper bound" in text


def test_reversed_scores_are_still_called_reversed():
    z, y = _data()
    with pytest.warns(UserWarning, match="reversed"):
        vc.TemperatureScaling(score_type="logit").fit(-z, y)


def test_dominating_wrong_rows_get_a_truthful_message():
    """A tenth of the rows at 1e100 with the WRONG top class: those rows dominate the likelihood and no
    finite τ fits them (the MLE is τ -> inf). The warning names them rather than calling every score
    reversed, and τ is large enough that every probability is near uniform (NLL ≈ log 3; at the old
    τ = 1e10 the huge rows kept an NLL of ~1e89)."""
    z, y = _data()
    rows = np.random.default_rng(1).random(y.size) < 0.1
    Z = np.where(rows[:, None], 1e100 * np.eye(3)[(y + 1) % 3], z)
    with pytest.warns(UserWarning, match="dominate the likelihood") as rec:
        ts = vc.TemperatureScaling(score_type="logit").fit(Z, y)
    assert "the scores are reversed" not in str(rec[0].message)
    assert ts.clamped_ == "upper"
    assert _nll_multi(Z, y, ts.temperature_) == pytest.approx(np.log(3), abs=1e-6)


@pytest.mark.parametrize("scale, kw", [(1e200, {"method": "golden"}), (1e200, {"bounds": (0.1, 10.0)}),
                                       (1e-200, {"bounds": (0.1, 10.0)})])
def test_a_bound_short_of_an_extreme_scale_is_not_called_reversed(scale, kw):
    """Every logit at 1e200 (or 1e-200) under a finite bracket: the MLE τ ≈ 1e200 (1e-200) lies beyond it,
    which is what the warning says (before: "reversed"); reversed logits are still called so. (Golden on
    1e-200 is not asked: its NLL is log 3 to the last bit over the whole bracket, no slope to read.)"""
    z, y = _data()
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        vc.TemperatureScaling(score_type="logit", **kw).fit(z * scale, y)
    texts = [str(r.message) for r in rec]
    assert len(texts) == 1 and "reversed" not in texts[0] and "bound" in texts[0]  # no RuntimeWarning either
    with pytest.warns(UserWarning, match="the scores are reversed"):
        vc.TemperatureScaling(score_type="logit", **kw).fit(-z * scale, y)


def test_weights_are_read_by_the_second_fit():
    """Weights on the tenth-at-1e100 case: the fitted τ is the weighted NLL's optimum (grid check)."""
    _, Z, y = CASES[0]
    w = np.random.default_rng(4).uniform(0.2, 3.0, y.size)

    def nll(tau: float) -> float:
        d = (Z - Z.max(axis=1, keepdims=True)) / tau
        return float(np.average(logsumexp(d, axis=1) - d[np.arange(y.size), y], weights=w))

    ts = vc.TemperatureScaling(score_type="logit").fit(Z, y, sample_weight=w)
    assert ts.clamped_ is None
    assert nll(ts.temperature_) <= min(nll(t) for t in GRID) + 1e-9
    assert ts.nll_after_ == pytest.approx(nll(ts.temperature_), rel=1e-9)


def _lazy(backend: str, cols: dict[str, np.ndarray]):
    if backend == "polars-lazy":
        pl = pytest.importorskip("polars")
        return pl.DataFrame(cols).lazy()
    duckdb = pytest.importorskip("duckdb")
    pd = pytest.importorskip("pandas")
    con = duckdb.connect()
    con.register("t", pd.DataFrame(cols))
    return con.table("t")


@pytest.mark.parametrize("backend", ["polars-lazy", "duckdb"])
@pytest.mark.parametrize("name, z, y", CASES, ids=[c[0] for c in CASES])
def test_lazy_frame_fit_agrees(backend, name, z, y):
    """The lazy frame objectives offer the same ``extent()`` (counted in their first query), so the second
    fit on the extreme rows' scale runs there too: the array fit's τ and NLL, and no warning."""
    score = ["a", "b", "c"] if z.ndim == 2 else "a"
    cols = dict(zip(score, z.T)) if z.ndim == 2 else {"a": z}
    lazy = _lazy(backend, {**cols, "y": y})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = vc.TemperatureScaling(score_type="logit").fit(lazy, score=score, label="y")
    want = vc.TemperatureScaling(score_type="logit").fit(z, y)
    assert got.clamped_ is None
    assert got.temperature_ == pytest.approx(want.temperature_, rel=1e-9)
    assert got.nll_after_ == pytest.approx(want.nll_after_, rel=1e-9)
    assert got.nll_before_ == pytest.approx(want.nll_before_, rel=1e-9)


def test_lazy_frame_dominating_wrong_rows_get_the_array_message():
    """The degenerate case on a lazy frame: the same clamp and the same truthful message as in memory."""
    z, y = _data()
    rows = np.random.default_rng(1).random(y.size) < 0.1
    Z = np.where(rows[:, None], 1e100 * np.eye(3)[(y + 1) % 3], z)
    lazy = _lazy("polars-lazy", {"a": Z[:, 0], "b": Z[:, 1], "c": Z[:, 2], "y": y})
    with pytest.warns(UserWarning, match="dominate the likelihood"):
        got = vc.TemperatureScaling(score_type="logit").fit(lazy, score=["a", "b", "c"], label="y")
    with pytest.warns(UserWarning, match="dominate the likelihood"):
        want = vc.TemperatureScaling(score_type="logit").fit(Z, y)
    assert got.clamped_ == want.clamped_ == "upper"
    assert got.temperature_ == pytest.approx(want.temperature_, rel=1e-9)
