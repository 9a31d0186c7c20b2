"""Session 34: the two effective sizes of weighted shares are different quantities, each named by what it is.

``_murphy._discordant_sizes`` (the Murphy band's cells): one size per class,
m_c = W / max(S_D/W_D, S_c/W_c), D the class's discordant rows — a small share's variance, no floor.
``_decision_curve.share_size`` (net benefit, realised cost): each share's whole variance
[(1-a)^2 S_D + a^2 S_R] / W^2 matched, with the floor S/W, so never above Kish's W^2/S.
Each is checked here against its docstring formula, written out by hand, and where they part: under class
weights a class of light rows reads the Murphy size above Kish's; the share size never does."""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc
from veracity.comparison._decision_curve import share_size
from veracity.comparison._murphy import pseudo_band


def _problem(seed=3, n=800):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=n)
    y = (rng.random(n) < 1 / (1 + np.exp(-(z - 1.5)))).astype(int)
    a = 1 / (1 + np.exp(-(z - 1.5 + 0.5 * rng.normal(size=n))))
    b = 1 / (1 + np.exp(-(1.4 * (z - 1.5) + 0.5 * rng.normal(size=n))))
    w = np.where(y == 1, 8.0, 1.0) * rng.uniform(0.5, 1.5, n)  # class weights, some spread within each class
    return a, b, y, w


def test_the_murphy_band_reads_the_documented_discordant_sizes():
    a, b, y, w = _problem()
    theta = np.array([0.1, 0.3, 0.6])
    m = vc.murphy_diagram({"a": a, "b": b}, y, theta=theta, sample_weight=w)
    d = m.differences[0]
    W, S = w.sum(), (w * w).sum()
    for k, t in enumerate(theta):
        fa, fb = a >= t, b >= t
        cells = [(y == 0) & fb & ~fa, (y == 0) & fa & ~fb, (y == 1) & fa & ~fb, (y == 1) & fb & ~fa]
        shares = tuple(np.array([w[c].sum() / W]) for c in cells)
        sizes = []
        for cls in (0, 1):
            disc = cells[2 * cls] | cells[2 * cls + 1]
            wd, sd = w[disc].sum(), (w[disc] ** 2).sum()
            wc, sc = w[y == cls].sum(), (w[y == cls] ** 2).sum()
            size = W / max(sd / wd, sc / wc)
            sizes += [np.array([size])] * 2
            if cls == 0:  # the light class: above Kish's size of all rows, which share_size never exceeds
                assert size > W * W / S
        low, high, _ = pseudo_band(np.array([d.diff[k]]), shares, tuple(sizes), np.array([t]), 0.95)
        assert (d.ci_low[k], d.ci_high[k]) == pytest.approx((low[0], high[0]), rel=1e-9, abs=1e-15)


def test_share_size_is_the_documented_variance_match_and_never_above_kish():
    a, _, y, w = _problem()
    W, S = w.sum(), (w * w).sum()
    kish = W * W / S
    for t in (0.05, 0.2, 0.4):
        for cls in (0, 1):
            counted = (a >= t) & (y == cls)
            assert counted.sum() >= 2
            wd, sd = w[counted].sum(), (w[counted] ** 2).sum()
            wc, sc = w[y == cls].sum(), (w[y == cls] ** 2).sum()
            share = wd / W
            rho_d = max(sd / wd, sc / wc, S / W)
            rest, rest_sq = W - wd, S - sd
            rho_r = max(rest_sq / rest, S / W)
            want = W / ((1 - share) * rho_d + share * rho_r)
            got = float(share_size(np.array(wd), np.array(sd), wc, sc, W, S, kish))
            assert got == pytest.approx(want, rel=1e-12)
            assert got <= kish * (1 + 1e-12)
