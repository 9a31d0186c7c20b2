"""The Murphy diagram's θ axis follows the curves at a rare event (session 28).

A mean elementary score is (1 - θ)(π - NB(θ)): past the models' scores every curve runs down the one line
(1 - θ)π to 0 at θ = 1, so at a 0.5 % base rate the whole [0, 1] axis drew the models' differences in its
first few percent (the difference panel flat from θ = 0.15 on). The θ axis now ends a margin past where the
largest |NB| of any model falls under 5 % of its peak — the decision curve's rule — and keeps the whole
axis at a 30 % base rate.
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc

pytest.importorskip("matplotlib")

FINE = np.arange(1, 1000) / 1000.0


def _net_benefit(p, y, t):
    """NB(t) = TP/n - FP/n * t / (1 - t), flagging p >= t (the elementary score's side), by hand."""
    flag = p[None, :] >= t[:, None]
    tp = (flag & (y[None, :] == 1)).mean(axis=1)
    fp = (flag & (y[None, :] == 0)).mean(axis=1)
    return tp - fp * t / (1 - t)


@pytest.fixture(scope="module")
def rare(two_models):
    models, y = two_models(0.005, n=100_000)
    return models, y, vc.murphy_diagram(models, y, theta=FINE)


def test_the_theta_axis_follows_a_rare_events_curves(rare):
    models, y, murphy = rare
    fig = murphy.plot()
    top, bottom = fig.axes
    x0, x1 = top.get_xlim()
    gain = np.max([np.abs(_net_benefit(p, y, FINE)) for p in models.values()], axis=0)
    useful = FINE[gain >= 0.05 * gain.max()]
    assert 0.0 <= x0 <= FINE[0]
    assert useful.max() < x1 <= 0.3  # was the whole axis, to 1.05
    assert x1 >= 1.2 * useful.max()  # a margin past the last useful θ
    assert bottom.get_xlim() == (x0, x1)  # the difference panel shares it
    # every θ is still drawn: set_xlim(0, 1) shows the whole curve
    assert all(len(line.get_xdata()) == FINE.size for line in top.lines)


def test_the_default_grid_at_a_rare_event_zooms_too(rare):
    models, y, _ = rare
    x1 = vc.murphy_diagram(models, y).plot().axes[0].get_xlim()[1]
    assert x1 <= 0.3


def test_a_given_axis_is_zoomed_as_well(rare):
    import matplotlib.pyplot as plt

    _, _, murphy = rare
    fig, ax = plt.subplots()
    try:
        murphy.plot(ax=ax)
        assert ax.get_xlim()[1] <= 0.3
    finally:
        plt.close(fig)


@pytest.mark.parametrize("seed", [0, 1])
def test_a_common_rate_keeps_the_whole_axis(seed, two_models):
    models, y = two_models(0.3, n=20_000, seed=seed)
    fig = vc.murphy_diagram(models, y).plot()
    for axis in fig.axes:
        x0, x1 = axis.get_xlim()
        assert x0 < 0.01 and x1 > 0.99  # the default θ's whole span


def test_one_model_and_a_short_grid_keep_the_whole_axis(two_models):
    models, y = two_models(0.005, n=20_000)
    one = vc.murphy_diagram({"good": models["good"]}, y, theta=[0.01, 0.02])
    x0, x1 = one.plot().axes[0].get_xlim()
    assert x0 < 0.01 and x1 > 0.02
