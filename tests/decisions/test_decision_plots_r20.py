"""Round 20: the decision figures' words and a hostile user's options.

* ``vc.plot_thresholds(p, y, recall_threshold=t90)`` (a threshold fit for recall 0.9) labelled its line
  ``t = 0.389 (recall ≥ 0.95)``: the default ``target_recall`` named a target the caller never gave;
* ``target_recall=1.5`` drew no line and said nothing (the bad target was swallowed with the
  "too few positives" case);
* ``cost_fp=inf`` drew ``t* = nan (cost)`` and a RuntimeWarning; ``cost_fp="one"`` raised a raw TypeError;
* ``threshold_table(s, y, [0.5, 0.1, 0.3]).plot()`` joined the points in the order given, a line that
  runs back and forth along the threshold axis.
"""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest

import veracity as vc


def _data(n: int = 400, seed: int = 0):
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    y = (rng.random(n) < p).astype(int)
    return p, y


def _line(fig, gid):
    (line,) = [ln for ln in fig.axes[0].lines if ln.get_gid() == gid]
    return line


def test_a_given_recall_threshold_is_not_labelled_with_the_default_target():
    p, y = _data()
    t90 = vc.recall_threshold(p, y, target=0.9)
    fig = vc.plot_thresholds(p, y, recall_threshold=t90)
    line = _line(fig, "t_recall")
    assert line.get_xdata()[0] == pytest.approx(t90)
    assert "0.95" not in line.get_label()
    assert line.get_label() == f"t = {t90:.3g} (target recall)"
    # the target is named when the caller names it, and when the line is computed for it
    told = _line(vc.plot_thresholds(p, y, recall_threshold=t90, target_recall=0.9), "t_recall")
    assert told.get_label() == f"t = {t90:.3g} (recall ≥ 0.9)"
    own = _line(vc.plot_thresholds(p, y), "t_recall")
    t95 = vc.recall_threshold(p, y, target=0.95)
    assert own.get_xdata()[0] == pytest.approx(t95)
    assert own.get_label() == f"t = {t95:.3g} (recall ≥ 0.95)"


@pytest.mark.parametrize("target", [1.5, 0.0, 1.0, -0.2, float("nan"), "high"])
def test_a_target_recall_outside_0_1_is_refused_not_dropped(target):
    p, y = _data()
    with pytest.raises(vc.VeracityError, match="target_recall must be") as exc:
        vc.plot_thresholds(p, y, target_recall=target)
    assert "\n" not in str(exc.value)


def test_too_few_positives_still_just_leave_the_line_out():
    fig = vc.plot_thresholds([0.1, 0.4, 0.8], [0, 0, 1])  # one positive: no +1-corrected 0.95 threshold
    assert not [ln for ln in fig.axes[0].lines if ln.get_gid() == "t_recall"]


@pytest.mark.parametrize("kwargs", [dict(cost_fp=math.inf), dict(cost_fn=math.inf), dict(cost_fp=math.nan),
                                    dict(cost_fp="one"), dict(cost_fn=True), dict(cost_fp=None)])
def test_a_cost_that_is_no_finite_number_is_refused_in_one_line(kwargs):
    p, y = _data()
    with pytest.raises(vc.VeracityError, match="costs must be") as exc:
        vc.plot_thresholds(p, y, **kwargs)
    assert "\n" not in str(exc.value)


def test_the_operating_points_figure_draws_its_lines_in_threshold_order():
    p, y = _data()
    given = [0.5, 0.1, 0.3, 0.7]
    table = vc.threshold_table(p, y, given, cost_fp=1, cost_fn=9)
    fig = table.plot()
    for gid, column in (("recall", table.recall), ("precision", table.precision),
                        ("false_alarm_rate", table.false_alarm_rate)):
        line = _line(fig, gid)
        x = np.asarray(line.get_xdata(), dtype=float)
        assert (np.diff(x) > 0).all(), (gid, x)
        order = np.argsort(given)
        np.testing.assert_allclose(line.get_ydata(), np.asarray(column)[order])
    (cost,) = [ln for ln in fig.axes[1].lines if ln.get_gid() == "cost"]
    assert (np.diff(np.asarray(cost.get_xdata(), dtype=float)) > 0).all()
    np.testing.assert_allclose(cost.get_ydata(), table.cost_per_1000[np.argsort(given)])
