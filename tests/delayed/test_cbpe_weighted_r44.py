"""Session 44: CBPE's label-free interval of weighted rows covers the realised weighted rate.

Weighted rows kept the normal interval, mean score +- z sqrt(sum w^2 f(1 - f)) / W. With log-normal(0, 1)
weights a few heavy rows carry the events and the weighted rate's law is skewed well past 10 expected events:
on 2,000 rows (5 configurations x 2,000 label draws) it covered 0.967-0.983 at 2-5 expected events and
0.971-0.989 at 20 at a nominal 0.99 (0.937 at worst at 0.95). It is now widened to its hull with the count
interval the unweighted rows take, at an effective size n* = min(Kish's, W sum w^2 f(1 - f) / |sum w^3 f(1 -
f)(1 - 2f)|) and the weighted rate's first three cumulants (_ppi_sums.weighted_count_terms): at least 0.987
there (0.958 at 0.95).
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc

ROWS = 2_000


def _window(ev: float, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Scores expecting ``ev`` events, log-normal weights, and the realised weighted rate of 2,000 label
    draws under calibration (the claims helper's design)."""
    rng = np.random.default_rng(100 + seed)
    f = rng.beta(0.5, 0.5 * ROWS / ev, ROWS)
    f *= ev / f.sum()
    w = rng.lognormal(0, 1, ROWS)
    real = (rng.random((2_000, ROWS)) < f).astype(float) @ w / w.sum()
    return f, w, real


def _cbpe(f: np.ndarray, w: np.ndarray, level: float) -> vc.PpiMean:
    return vc.ppi_mean(np.zeros(100, int), f[:100], f[100:], sample_check="off", level=level,
                       sample_weight=w[:100], sample_weight_unlabelled=w[100:])


def test_weighted_cbpe_covers_the_realised_rate_of_few_expected_events():
    cover: dict[float, list[float]] = {0.8: [], 0.95: [], 0.99: []}
    for ev in (2, 5, 20):
        for seed in range(5):
            f, w, real = _window(ev, seed)
            for lv in cover:
                r = _cbpe(f, w, lv)
                cover[lv].append(float(np.mean((real >= r.cbpe_low - 1e-12) & (real <= r.cbpe_high + 1e-12))))
    print({lv: (round(min(c), 3), round(float(np.mean(c)), 3)) for lv, c in cover.items()})
    # old: 0.967 at worst at 0.99 (mean 0.977), 0.937 at 0.95; 0.8 was met and stays met (Monte Carlo se
    # <= 0.009)
    assert min(cover[0.99]) >= 0.983 and np.mean(cover[0.99]) >= 0.988, cover
    assert min(cover[0.95]) >= 0.945, cover
    assert min(cover[0.8]) >= 0.78, cover


def test_many_expected_events_keep_the_normal_interval_and_every_route_agrees():
    rng = np.random.default_rng(8)
    f, w = rng.beta(2, 5, ROWS), rng.uniform(0.5, 2.0, ROWS)  # about 570 expected events, even-ish weights
    r = _cbpe(f, w, 0.95)  # the normal interval, as before
    sd = np.sqrt(w**2 @ (f * (1 - f))) / w.sum()
    assert r.cbpe_high - r.cbpe == pytest.approx(1.959963984540054 * sd, rel=1e-9)
    f, w, _ = _window(5, 1)
    y = np.zeros(ROWS, dtype=int)
    r = _cbpe(f, w, 0.99)
    assert r.cbpe_low <= r.cbpe <= r.cbpe_high
    assert r.cbpe_high - r.cbpe > 1.2 * 2.5758293035489 * np.sqrt(w**2 @ (f * (1 - f))) / w.sum()
    a = vc.ppi_audit(y[:100], f[:100], f[100:], bins=1, sample_check="off", level=0.99,
                     sample_weight=w[:100], sample_weight_unlabelled=w[100:])
    [b] = [x for x in a.rows if x["quantity"].startswith("rate in")]
    for row in (a.row("rate"), b):
        assert (row["cbpe_low"], row["cbpe_high"]) == pytest.approx((r.cbpe_low, r.cbpe_high), abs=1e-15)


def test_nearly_equal_weights_give_nearly_the_unweighted_count_interval():
    rng = np.random.default_rng(4)
    f = rng.beta(0.5, 500, 3_000)  # about 3 expected events
    w = 1.0 + 1e-6 * rng.random(f.size)
    ru = vc.ppi_mean(np.zeros(100, int), f[:100], f[100:], sample_check="off")
    rw = vc.ppi_mean(np.zeros(100, int), f[:100], f[100:], sample_check="off", sample_weight=w[:100],
                     sample_weight_unlabelled=w[100:])
    assert (rw.cbpe_low, rw.cbpe_high) == pytest.approx((ru.cbpe_low, ru.cbpe_high), rel=1e-4, abs=1e-9)
