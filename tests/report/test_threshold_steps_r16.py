"""The threshold curves are drawn on the side of each cut point that a threshold there flags.

A row is flagged when its probability is ≥ t, so recall, precision, false-alarm rate and cost
at a t between two distinct scores equal their values at the next score above t. Drawn as
steps-post (holding a score's value up to the next score), the curves showed, at every t between
two scores, the counts of the score below: with every score 0.3, the recall line stood at 1.0 up
to t = 0.5 while the explorer's table (and vc.threshold_table) said recall 0 at t = 0.4."""

from __future__ import annotations

import re

import numpy as np
import pytest

import veracity as vc

SCORES = np.repeat([0.1, 0.3, 0.6, 0.8], [50, 60, 70, 40])
LABELS = (np.arange(SCORES.size) % 10 < np.round(SCORES * 10)).astype(int)
BETWEEN = [0.05, 0.2, 0.45, 0.7, 0.9]  # thresholds strictly between the cut points


def _drawn_y(line, t: float) -> float:
    """The y the line shows at x = t (a horizontal run of the drawn step path covers t)."""
    from matplotlib.cbook import STEP_LOOKUP_MAP

    x, y = STEP_LOOKUP_MAP[line.get_drawstyle()](np.asarray(line.get_xdata(), float),
                                                 np.asarray(line.get_ydata(), float))
    for k in range(x.size - 1):
        if x[k] < t < x[k + 1]:
            return float(y[k]) if y[k] == y[k + 1] else float("nan")
    return float("nan")


def test_plot_thresholds_curves_show_what_t_flags():
    import matplotlib.pyplot as plt

    fig = vc.plot_thresholds(SCORES, LABELS, cost_fp=1, cost_fn=3, target_recall=None)
    try:
        rate_ax, cost_ax = fig.axes[:2]
        lines = {ln.get_gid(): ln for ln in rate_ax.lines + cost_ax.lines if ln.get_gid()}
        table = vc.threshold_table(SCORES, LABELS, BETWEEN, cost_fp=1, cost_fn=3)
        for t, row in zip(BETWEEN, table.rows):
            assert _drawn_y(lines["recall"], t) == pytest.approx(row.recall), t
            assert _drawn_y(lines["false_alarm_rate"], t) == pytest.approx(row.false_alarm_rate), t
            assert _drawn_y(lines["cost"], t) == pytest.approx(row.cost_per_1000), t
            if np.isfinite(row.precision):
                assert _drawn_y(lines["precision"], t) == pytest.approx(row.precision), t
        # every score the same: nothing is flagged above it, and the recall line says so
        p = np.full(40, 0.3)
        y = (np.arange(40) % 3 == 0).astype(int)
        one = vc.plot_thresholds(p, y, target_recall=None)
        recall = next(ln for ln in one.axes[0].lines if ln.get_gid() == "recall")
        assert _drawn_y(recall, 0.2) == 1.0 and _drawn_y(recall, 0.4) == 0.0
        plt.close(one)
    finally:
        plt.close(fig)




def _path_y(d: str, x: float) -> float:
    """The y of an SVG path made of M/H/V commands at an x strictly inside one of its horizontal runs."""
    cx = cy = 0.0
    for cmd, args in re.findall(r"([MHV])([^MHV]*)", d):
        nums = [float(v) for v in args.split()]
        if cmd == "M":
            cx, cy = nums
        elif cmd == "V":
            cy = nums[0]
        else:
            x0, cx = cx, nums[0]
            if min(x0, cx) < x < max(x0, cx):
                return cy
    return float("nan")


@pytest.mark.browser
def test_explorer_chart_dot_sits_on_the_recall_line(tmp_path, tabs):
    path = tmp_path / "steps.html"
    vc.report(SCORES, LABELS, bootstrap=False, figures=False, out=path)
    page = tabs.page(width=1280, height=900)
    page.goto(path.as_uri())
    page.wait_for_selector('#explorer[data-ready="1"]', timeout=10_000)
    # the first path drawn is recall (blue), the dot marks the recall the table shows
    recall_d = page.eval_on_selector("#ex-chart",
                                     "c => c.querySelectorAll('path')[0].getAttribute('d')")
    table = vc.threshold_table(SCORES, LABELS, BETWEEN)
    for t, row in zip(BETWEEN, table.rows):
        page.fill("#ex-slider", str(t))
        assert float(page.get_attribute("#ex-recall", "data-value")) == pytest.approx(row.recall)
        cx = float(page.eval_on_selector("#ex-chart circle", "c => c.getAttribute('cx')"))
        cy = float(page.eval_on_selector("#ex-chart circle", "c => c.getAttribute('cy')"))
        assert _path_y(recall_d, cx) == pytest.approx(cy, abs=0.15), t
