"""The decision curve's axes follow the curves at a rare event (session 28).

At a 0.5 % base rate every model's net benefit turns within the first few percent of the thresholds, and the
figure drew the whole [0, 1] axis with a fixed margin of 0.01 net benefit below 0 and above the top: the
curves sat in a corner (the top net benefit is 0.005). The threshold axis now ends a margin past where the
best model's net benefit falls under 5 % of its peak, the net-benefit axis runs from a little below 0 to a
little above the top (the margin scales with it), and a note says where "treat all" leaves the axis. At a
30 % base rate the figure keeps its whole axis.
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc

pytest.importorskip("matplotlib")

FINE = np.arange(1, 1000) / 1000.0


@pytest.fixture(scope="module")
def rare(two_models):
    models, y = two_models(0.005)
    curve = vc.decision_curve(models, y, thresholds=FINE)
    return curve, curve.plot()


def test_the_threshold_axis_follows_a_rare_events_curves(rare):
    curve, fig = rare
    x0, x1 = fig.axes[0].get_xlim()
    best = np.max([curve.net_benefit[m] for m in curve.models], axis=0)
    useful = curve.thresholds[best >= 0.05 * best.max()]
    assert 0.0 <= x0 <= curve.thresholds[0]
    assert useful.max() < x1 <= 0.3  # was the whole axis, to 1.05
    assert x1 >= 1.2 * useful.max()  # a margin past the last useful threshold


def test_the_net_benefit_axis_is_a_little_below_zero_to_a_little_above_the_top(rare):
    curve, fig = rare
    y0, y1 = fig.axes[0].get_ylim()
    top = max(float(np.max(curve.ci_high[m])) for m in curve.models)
    assert -0.15 * top <= y0 < 0  # was -0.0102, twice the curves' height below 0
    assert top <= y1 <= 1.3 * top  # was 0.0149


def test_treat_all_leaving_the_axis_is_said(rare):
    curve, fig = rare
    ax = fig.axes[0]
    y0 = ax.get_ylim()[0]
    off = curve.thresholds[np.argmax(curve.net_benefit["all"] < y0)]
    notes = [t for t in ax.texts if t.get_gid() == "treat_all_off"]
    assert len(notes) == 1 and f"t = {off:.2g}" in notes[0].get_text()
    # every threshold is still drawn: set_xlim(0, 1) shows the whole curve
    lines = {ln.get_label(): ln for ln in ax.lines}
    assert len(lines["good"].get_xdata()) == len(FINE)
    ax.set_xlim(0, 1)
    assert ax.get_xlim() == (0.0, 1.0)


def test_a_common_rate_keeps_the_whole_axis(two_models):
    models, y = two_models(0.3, n=20_000)
    curve = vc.decision_curve(models, y)
    ax = curve.plot().axes[0]
    x0, x1 = ax.get_xlim()
    assert x0 < 0.01 and x1 > 0.99  # the default thresholds' whole span
    y0, y1 = ax.get_ylim()
    top = max(float(np.max(curve.ci_high[m])) for m in curve.models)
    assert y0 == pytest.approx(-0.05 * top - 0.01) and y1 == pytest.approx(1.1 * top + 0.01)
    off = curve.thresholds[np.argmax(curve.net_benefit["all"] < y0)]
    assert [t.get_text() for t in ax.texts if t.get_gid() == "treat_all_off"] == [
        f"treat all: below the axis from t = {off:.2g}"]
