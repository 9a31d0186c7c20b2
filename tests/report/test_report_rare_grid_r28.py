"""The report's Murphy diagram and decision curve get finer thresholds at a rare event (session 28).

The report drew both on the functions' default grids (θ = 0.005, …, 0.995; t = 0.01, …, 0.99). At a 0.5 %
base rate every model's net benefit turns within the first few percent of them, so the zoomed figures drew
a handful of points. Where the 99.9 % quantile q of both models' probabilities is under 0.5, each grid now
also holds q k / 100 (k = 1, …, 100); at a 30 % base rate (and the demo's) both stay the defaults.
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc
import veracity.comparison as comparison

pytest.importorskip("matplotlib")


def _models(rate: float, n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    c = np.log(rate / (1 - rate)) - 1.2 * (rate < 0.1)  # a mean score near `rate`
    p = 1 / (1 + np.exp(-(c + 1.5 * x)))
    y = (rng.random(n) < p).astype(int)
    weak = 1 / (1 + np.exp(-(c + 0.8 * x + 0.6 * rng.normal(size=n))))
    return p, weak, y


@pytest.fixture
def grids(monkeypatch):
    """The θ and thresholds the report passes (None: the functions' defaults)."""
    seen: dict[str, object] = {}
    murphy, curve = comparison.murphy_diagram, comparison.decision_curve

    def spy_murphy(*args, **kw):
        seen["theta"] = kw.get("theta")
        result = murphy(*args, **kw)
        seen["murphy"] = result
        return result

    def spy_curve(*args, **kw):
        seen["thresholds"] = kw.get("thresholds")
        result = curve(*args, **kw)
        seen["curve"] = result
        return result

    monkeypatch.setattr(comparison, "murphy_diagram", spy_murphy)
    monkeypatch.setattr(comparison, "decision_curve", spy_curve)
    return seen


def test_a_rare_event_gets_a_fine_grid_where_the_scores_are(grids):
    p, weak, y = _models(0.005, n=40_000)
    assert 0.002 < y.mean() < 0.01
    vc.report(p, y, against={"weak": weak}, bootstrap=False)
    q = float(np.quantile(np.concatenate([p, weak]), 0.999))
    assert q < 0.2
    for key in ("theta", "thresholds"):
        grid = np.asarray(grids[key])
        assert np.sum(grid <= q * (1 + 1e-12)) >= 100  # was 3 to 20 default points under q
        assert np.all(np.diff(grid) > 0) and 0 < grid[0] and grid[-1] < 1
    default_t = np.arange(1, 100) / 100.0
    assert set(default_t) <= set(np.asarray(grids["thresholds"]))  # the default points are all kept
    assert np.array_equal(grids["curve"].thresholds, grids["thresholds"])
    assert np.array_equal(grids["murphy"].theta, grids["theta"])
    # the figure the report draws: the zoomed axis holds many of the curve's points (was a handful)
    from veracity.plotting._comparison import decision_curve_limits, murphy_limits

    x1 = decision_curve_limits(grids["curve"])[0][1]
    assert np.sum(grids["curve"].thresholds <= x1) >= 30
    m1 = murphy_limits(grids["murphy"])[1]
    assert np.sum(grids["murphy"].theta <= m1) >= 30


def test_a_logit_score_is_read_through_the_sigmoid(grids):
    p, weak, y = _models(0.005, n=40_000)
    logit = lambda v: np.log(v / (1 - v))  # noqa: E731
    vc.report(logit(p), y, against={"weak": logit(weak)}, score_type="logit", bootstrap=False)
    q = float(np.quantile(np.concatenate([p, weak]), 0.999))
    assert grids["thresholds"] is not None and np.sum(np.asarray(grids["thresholds"]) <= q * 1.0001) >= 100


@pytest.mark.parametrize("rate", [0.3, 0.5])
def test_a_common_rate_keeps_the_default_grids(grids, rate):
    p, weak, y = _models(rate, n=5_000)
    vc.report(p, y, against={"weak": weak}, bootstrap=False)
    assert grids["theta"] is None and grids["thresholds"] is None
    assert grids["curve"].thresholds.size == 99 and grids["murphy"].theta.size == 199


def test_the_demo_keeps_the_default_grids(grids):
    d = vc.load_demo()
    test = np.asarray(d["role"]) == "test"
    p, y = np.asarray(d["score"])[test], np.asarray(d["label"])[test]
    other = np.clip(p + 0.05 * np.random.default_rng(0).normal(size=p.size), 0.001, 0.999)
    vc.report(p, y, against={"other": other}, bootstrap=False)
    assert grids["theta"] is None and grids["thresholds"] is None
