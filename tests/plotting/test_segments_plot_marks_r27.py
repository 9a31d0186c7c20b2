"""The segments figure marks a discovery whose interval includes 0, as the text table does (session 27).

On the demo data ``segment=web`` is a discovery (p 0.011) whose interval is [-0.030, +0.000]: the test
weighs the gap against the spread calibration gives these scores, the interval (Wilson on the observed
rate) is wider. The text table stars it and says why under the table; the figure drew it as any other
orange dot on an interval touching 0, with no key (only a contradicted score of 0 or 1 had one, an X).
Now it is drawn hollow and the key says why, beside the X's line; the rows hug the axes with 3 or 200
segments and the key fits across the figure.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

import veracity as vc
from veracity.datasets import demo_path

pytest.importorskip("matplotlib")

CERTAIN_KEY = "certain: a score of exactly 0 or 1 its label contradicts (p = 0)"  # the X's key since r16


def _across(row) -> bool:
    """The rule the text table's ``*`` states, from the row's own numbers (a certain row is an X instead)."""
    return row.discovery and row.ci_low <= 0.0 <= row.ci_high and row.test != "certain"


def _points(ax) -> list:
    """The plotted points (one per segment), top row first: the lines drawn with a marker and no line."""
    pts = [ln for ln in ax.lines if ln.get_marker() not in (None, "None", "") and len(ln.get_xdata()) == 1]
    return sorted(pts, key=lambda ln: -ln.get_ydata()[0])


def _hollow(line) -> bool:
    return line.get_markerfacecolor() != line.get_markeredgecolor()


def _key_texts(fig) -> list[str]:
    return [t.get_text() for legend in fig.legends for t in legend.get_texts()]


def _drawn(fig):
    """``fig`` drawn on an Agg canvas, so artists' extents can be measured."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig).draw()
    return fig


def _assert_spread_key(texts: list[str]) -> str:
    spread = [t for t in texts if "interval includes 0" in t]
    assert len(spread) == 1, texts
    # the footnote's reason, short: the test's spread for these scores vs Wilson on the observed rate
    assert "Σw²p(1 − p)" in spread[0] and "Wilson" in spread[0], spread[0]
    return spread[0]


@pytest.fixture(scope="module")
def demo():
    return vc.segments(pd.read_csv(demo_path()), score="score", label="label", features=["segment"])


def test_demo_discovery_across_zero_is_hollow_and_keyed(demo):
    fig = _drawn(demo.plot())
    shown = [r for r in demo.rows if r.sufficient]
    points = _points(fig.axes[0])
    assert len(points) == len(shown) == 3
    web = demo.segment("segment=web")
    assert _across(web)  # the case docs/segments.md quotes
    for r, pt in zip(shown, points):
        assert pt.get_xdata()[0] == r.gap
        assert _hollow(pt) == _across(r), r.segment
        assert (pt.get_gid() == "spread") == _across(r)
    texts = _key_texts(fig)
    _assert_spread_key(texts)
    assert CERTAIN_KEY not in texts  # no contradicted score here
    # the key's marker is hollow like the point it explains
    handle = next(h for legend in fig.legends for h in legend.legend_handles
                  if "interval includes 0" in h.get_label())
    assert _hollow(handle) and handle.get_marker() == "o"
    # the key lies inside the figure and below the axes (it covers no interval)
    box, axes_box = fig.legends[0].get_window_extent(), fig.axes[0].get_window_extent()
    assert box.x0 >= 0 and box.x1 <= fig.bbox.x1 and box.y1 <= axes_box.y0


def _contradicted() -> vc.SegmentsResult:
    """The demo data with two ``partner`` rows scored exactly 0 and labelled 1: a certain discovery whose
    interval includes 0 beside the demo's starred ones."""
    d = pd.read_csv(demo_path())
    rows = d.index[d["segment"] == "partner"][:2]
    d.loc[rows, "score"], d.loc[rows, "label"] = 0.0, 1
    return vc.segments(d, score="score", label="label", features=["segment", "month"])


def test_certain_and_across_zero_each_have_their_marker_and_key():
    from matplotlib.figure import Figure

    res = _contradicted()
    shown = [r for r in res.rows if r.sufficient][:30]
    assert any(r.test == "certain" and r.ci_low <= 0 <= r.ci_high for r in shown)
    assert any(_across(r) for r in shown)
    fig = _drawn(res.plot())
    points = _points(fig.axes[0])
    assert len(points) == len(shown)
    for r, pt in zip(shown, points):
        assert pt.get_marker() == ("X" if r.test == "certain" else "o"), r.segment
        assert _hollow(pt) == _across(r), r.segment
    texts = _key_texts(fig)
    assert texts[0] == CERTAIN_KEY and _assert_spread_key(texts) == texts[1] and len(texts) == 2
    box = fig.legends[0].get_window_extent()
    assert box.x0 >= 0 and box.x1 <= fig.bbox.x1 + 0.5 and box.y0 >= 0
    # into a given Axes the key is the Axes' legend, with the same lines
    into = Figure().add_subplot()
    res.plot(ax=into)
    assert [t.get_text() for t in into.get_legend().get_texts()] == texts


def test_many_segments_rows_fill_the_axes_and_keep_their_marks():
    from veracity.plotting._segments import plot_segments

    # 200 levels, half of them 0.08 below their scores; every third discovery's interval is then stretched
    # to reach 0 (the mark follows a row's own numbers, whichever interval gave them), among the first 3,
    # 30 and 200 rows drawn
    rng = np.random.default_rng(0)
    n = 100_000
    level = rng.integers(0, 200, n)
    p = rng.uniform(0.05, 0.95, n)
    y = (rng.uniform(size=n) < np.clip(p - 0.08 * (level % 2 == 0), 0, 1)).astype(int)
    names = np.array([f"L{k:03d}" for k in range(200)])[level]
    res = vc.segments(p, y, features={"f": names}, depth=1, max_levels=200, n_resamples=19)
    assert res.n_tested == 200 and len(res.discoveries) > 30
    rows = [replace(r, ci_high=max(r.ci_high, 0.001)) if r.discovery and i % 3 == 1 else r
            for i, r in enumerate(res.rows)]
    res = replace(res, rows=tuple(rows))
    for shown_rows in (3, 30, 200):
        fig = _drawn(plot_segments(res, max_rows=shown_rows))
        ax = fig.axes[0]
        points = _points(ax)
        shown = [r for r in res.rows if r.sufficient][:shown_rows]
        assert len(points) == shown_rows and any(_across(r) for r in shown)
        assert [_hollow(pt) for pt in points] == [_across(r) for r in shown]
        assert [pt.get_xdata()[0] for pt in points] == [r.gap for r in shown]
        # under a row of margin above the top and below the bottom row (5 % of 200 rows left ten empty ones)
        low, high = ax.get_ylim()
        assert -1.0 < low < 0.0 and shown_rows - 1 < high < shown_rows
        _assert_spread_key(_key_texts(fig))
        box = fig.legends[0].get_window_extent()
        assert box.x0 >= 0 and box.x1 <= fig.bbox.x1 + 0.5 and box.y0 >= 0
