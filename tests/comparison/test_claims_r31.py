"""Round 31: the decision curve's net-benefit interval (vc.decision_curve).

The Student-t interval of the per-row net benefits f(y - (1 - y) t/(1 - t)) is a Wald interval of two rare
shares (TP/N, FP/N) where the event is rare: at a 1 % event rate on 300 rows it covered the net benefit at
t = 0.02-0.1 in 54-86 % of seeded draws at 95 % (66-85 % with log-normal weights), and "treat all" (Wald's
interval of the prevalence) in 90 % (80 % weighted). The interval is now the MOVER combination of the two
shares' Wilson intervals (module doc of veracity.comparison._decision_curve)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import ndtri

import veracity as vc

from .conftest import wilson_oracle


def _draw(rng: np.random.Generator, n: int, base: float, weighted: bool = False):
    x = rng.normal(size=n)
    y = rng.binomial(1, 1 / (1 + np.exp(-(base + x)))).astype(float)
    p = 1 / (1 + np.exp(-(base + x + 0.5 * rng.normal(size=n))))
    w = rng.lognormal(0.0, 1.0, n) if weighted else None
    return p, y, w


def _coverage(n: int, base: float, thresholds: np.ndarray, weighted: bool,
              k: int) -> tuple[np.ndarray, float]:
    """Coverage of the model's net benefit (among draws where its interval has width: a threshold above
    every score keeps its exact, noted 0) and of "treat all"'s, over ``k`` seeded data sets; truths from
    10^6 rows."""
    p, y, w = _draw(np.random.default_rng(11), 1_000_000, base, weighted)
    big = vc.decision_curve({"m": p}, y, thresholds=thresholds, sample_weight=w)
    truth, truth_all = big.net_benefit["m"], big.net_benefit["all"][0]
    rng = np.random.default_rng(5)
    hit, real, hit_all = np.zeros(thresholds.size), np.zeros(thresholds.size), 0
    for _ in range(k):
        p, y, w = _draw(rng, n, base, weighted)
        dc = vc.decision_curve({"m": p}, y, thresholds=thresholds, sample_weight=w)
        low, high = dc.ci_low["m"], dc.ci_high["m"]
        has_width = high > low
        real += has_width
        hit += has_width & (low <= truth) & (truth <= high)
        hit_all += dc.ci_low["all"][0] <= truth_all <= dc.ci_high["all"][0]
    assert real.min() >= 0.9 * k  # the thresholds flag rows in nearly every draw
    return hit / real, hit_all / k


@pytest.mark.parametrize("weighted", [False, True])
def test_net_benefit_interval_covers_at_a_rare_event(weighted):
    # 1 % events, 300 rows, 300 data sets (Monte-Carlo error ~1.3 %). Measured (MOVER): 0.947-0.970 and "treat
    # all" 0.953 (weighted 0.943-0.956, 0.953); the t interval: 0.557-0.877 and 0.880 (weighted 0.637-0.792,
    # 0.777)
    cover, cover_all = _coverage(300, -4.5, np.array([0.02, 0.05, 0.1]), weighted, 300)
    assert cover.min() >= 0.92, cover
    assert cover_all >= 0.92, cover_all


def test_net_benefit_interval_covers_on_few_rows():
    # 10 % events on 100 rows: the t interval measured 0.843-0.907 at t = 0.02-0.2 ("treat all" 0.897), MOVER
    # 0.963-0.990 (0.963)
    cover, cover_all = _coverage(100, -3.0, np.array([0.02, 0.1, 0.2]), False, 300)
    assert cover.min() >= 0.92, cover
    assert cover_all >= 0.92, cover_all


def test_net_benefit_interval_is_not_too_wide_at_a_common_rate():
    # 30 % events on 150 rows: MOVER measured 0.943-0.967 (the t interval 0.940-0.967); an interval
    # sqrt(2) too wide would cover ~0.99
    cover, cover_all = _coverage(150, -0.85, np.array([0.1, 0.3, 0.5]), False, 300)
    assert cover.min() >= 0.92 and cover.max() <= 0.98, cover
    assert 0.92 <= cover_all <= 0.98, cover_all


@pytest.mark.parametrize("weighted", [False])  # weighted, each share has its own size since round 32:
# tests/comparison/test_decision_curve_weights_r32.py writes that out
def test_net_benefit_interval_is_the_mover_of_two_wilson_intervals(weighted):
    p, y, w = _draw(np.random.default_rng(3), 400, -1.5, weighted)
    t = np.array([0.1, 0.3, 0.6])
    dc = vc.decision_curve({"m": p}, y, thresholds=t, sample_weight=w, level=0.9)
    ww = np.ones(y.size) if w is None else w
    total, size = ww.sum(), ww.sum() ** 2 / (ww * ww).sum()
    z = ndtri(0.95)
    for j, tk in enumerate(t):
        k = tk / (1 - tk)
        a, b = ww[(p >= tk) & (y == 1)].sum() / total, ww[(p >= tk) & (y == 0)].sum() / total
        (la, ua), (lb, ub) = wilson_oracle(a * size, size, z), wilson_oracle(b * size, size, z)
        r = np.sqrt(a * b / ((1 - a) * (1 - b)))
        nb = a - k * b
        low = nb - np.sqrt((a - la) ** 2 + (k * (ub - b)) ** 2 + 2 * r * (a - la) * k * (ub - b))
        high = nb + np.sqrt((ua - a) ** 2 + (k * (b - lb)) ** 2 + 2 * r * (ua - a) * k * (b - lb))
        assert dc.net_benefit["m"][j] == pytest.approx(nb, abs=1e-14)
        assert (dc.ci_low["m"][j], dc.ci_high["m"][j]) == pytest.approx((low, high), abs=1e-12)
    # "treat all": Wilson's interval of the prevalence, mapped by pi -> pi - (1 - pi) t/(1 - t)
    k0 = t[0] / (1 - t[0])
    pi = ww[y == 1].sum() / total
    lo, hi = wilson_oracle(pi * size, size, z)
    assert (dc.ci_low["all"][0], dc.ci_high["all"][0]) == pytest.approx(
        (lo - (1 - lo) * k0, hi - (1 - hi) * k0), abs=1e-12)


def test_a_threshold_above_every_score_keeps_its_exact_zero_and_note():
    p = np.array([0.1, 0.4, 0.35, 0.8, 0.6])
    dc = vc.decision_curve({"m": p}, np.array([0, 1, 0, 1, 1.0]), thresholds=[0.3, 0.9])
    assert dc.ci_low["m"][1] == dc.ci_high["m"][1] == 0.0
    assert any(t.startswith("'m': zero-width interval at 1 of 2 thresholds") for t in dc.notes)
    assert dc.ci_low["m"][0] < dc.net_benefit["m"][0] < dc.ci_high["m"][0]


def test_a_curve_without_intervals_says_why():
    # one row carrying the weight (or one row): every interval is n/a; the printout said nothing of why
    m = {"a": [0.2, 0.7, 0.4], "b": [0.3, 0.6, 0.5]}
    heavy = vc.decision_curve(m, [0, 1, 1], sample_weight=[1e9, 1, 1], thresholds=[0.1, 0.5])
    assert np.isnan(heavy.ci_low["a"]).all()
    assert "note: no interval (n/a): one row carries nearly all the weight (Kish effective size 1, below 2)" \
        in str(heavy)
    one = vc.decision_curve({"a": [0.3]}, [1], thresholds=[0.1])
    assert one.notes == ("no interval (n/a): one row",)
    assert not vc.decision_curve(m, [0, 1, 1], thresholds=[0.1, 0.5]).notes
