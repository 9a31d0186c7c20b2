"""Figures built with less work and the same artists (session 36).

* :func:`plot_segments` added each row's interval and point with ``ax.plot`` (its argument parsing twice per
  row, 400 times for 200 rows): now the same ``Line2D`` objects are added directly;
* ``_text_width`` (the segment figure's and the slice panels' name widths) laid the glyphs out on every call,
  the same name measured again by each panel and each report: now once per text, size, weight and font;
* :func:`plot_binned` built a figure with one Axes, cleared it, then made its grid: now only the grid.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("matplotlib")

import veracity as vc  # noqa: E402
from veracity.plotting import _reliability  # noqa: E402
from veracity.plotting._delayed import plot_binned  # noqa: E402
from veracity.plotting._segments import POINTS, plot_segments  # noqa: E402


@pytest.fixture(scope="module")
def search():
    rng = np.random.default_rng(0)
    n = 6000
    x = rng.normal(size=n)
    p = 1 / (1 + np.exp(-(1.3 * x - 1)))
    y = (rng.random(n) < 1 / (1 + np.exp(-(x - 1)))).astype(int)
    return vc.segments(p, y, features={"a": rng.integers(0, 6, n), "b": rng.integers(0, 5, n)},
                       n_resamples=19, random_state=0)


def test_segment_rows_are_added_without_a_plot_call_each(monkeypatch, search) -> None:
    from matplotlib.axes import Axes

    calls = []
    plot = Axes.plot
    monkeypatch.setattr(Axes, "plot", lambda self, *a, **k: calls.append(a) or plot(self, *a, **k))
    fig = plot_segments(search, max_rows=200)
    rows = [r for r in search.rows if r.sufficient][:200]
    assert len(rows) > 20
    assert calls == []  # two per row before
    ax = fig.axes[0]
    # the lines ax.plot made: an interval (two points, no marker) and a point (one, its marker) per row, top
    # row first, float arrays, the row's colour, autoscaled x (the view holds every interval)
    intervals = [ln for ln in ax.lines if len(ln.get_xdata()) == 2 and ln.get_marker() in ("None", None, "")
                 and list(ln.get_ydata()) != [0, 1]]  # not the line at 0 (axvline)
    points = [ln for ln in ax.lines if len(ln.get_xdata()) == 1]
    assert len(intervals) == len(points) == len(rows)
    lo, hi = ax.get_xlim()
    for k, (r, line, point) in enumerate(zip(rows, intervals, points)):
        y = len(rows) - 1 - k
        assert isinstance(line.get_xdata(), np.ndarray) and list(line.get_xdata()) == [r.ci_low, r.ci_high]
        assert list(line.get_ydata()) == [y, y] and list(point.get_ydata()) == [y]
        assert list(point.get_xdata()) == [r.gap]
        colour = "#d55e00" if r.discovery else "#1f5fa8"
        assert line.get_color() == colour == point.get_color()
        assert line.get_alpha() == 0.8 and line.get_linewidth() == 2.0
        assert point.get_marker() == POINTS[point.get_gid() or ""]["marker"]
        assert line.get_label().startswith("_child") and lo < r.ci_low and r.ci_high < hi


def test_text_width_lays_out_a_text_once_and_follows_the_font(monkeypatch) -> None:
    import matplotlib
    from matplotlib.textpath import TextToPath

    laid: list[str] = []
    measure = TextToPath.get_text_width_height_descent
    monkeypatch.setattr(TextToPath, "get_text_width_height_descent",
                        lambda self, s, prop, ismath: laid.append(s) or measure(self, s, prop, ismath))
    text = "segment = a name measured twice r36"
    first = _reliability._text_width(text, 8.5, "bold")
    assert _reliability._text_width(text, 8.5, "bold") == first
    assert laid == [text]  # twice before
    assert _reliability._text_width(text, 10.0, "bold") > first  # another size is measured
    with matplotlib.rc_context({"font.family": "monospace"}):  # another font: measured again, not recalled
        mono = _reliability._text_width(text, 8.5, "bold")
    assert laid.count(text) == 3
    assert mono != first


def test_binned_figure_makes_only_its_grid(monkeypatch) -> None:
    from matplotlib.axes import Axes

    made = []
    init = Axes.__init__
    monkeypatch.setattr(Axes, "__init__", lambda self, *a, **k: made.append(1) or init(self, *a, **k))
    rng = np.random.default_rng(2)
    p = rng.uniform(size=3000)
    fig = plot_binned(vc.binned_sequences(p, (rng.random(3000) < p).astype(int), bins=7))
    assert len(made) == len(fig.axes) == 10  # 7 bins in 2 rows of 5; one more Axes, cleared, before
    assert [a.get_visible() for a in fig.axes] == [True] * 7 + [False] * 3


def test_count_labels_are_measured_with_one_renderer(monkeypatch) -> None:
    # thinning the count labels measured each with a renderer of its own (made for it, its extent cached for
    # nothing): one for the layout and one for the labels now; the labels hidden are the same (the boxes are
    # the same numbers: each was an Agg renderer at the figure's dpi)
    from matplotlib.figure import Figure

    rng = np.random.default_rng(4)
    p = rng.beta(0.4, 3, 3000)
    y = (rng.random(3000) < p).astype(int)
    table = vc.audit(p, y, bins=30, bootstrap=False).table
    made = []
    get = Figure._get_renderer
    monkeypatch.setattr(Figure, "_get_renderer", lambda self: made.append(1) or get(self))
    fig = _reliability.plot_reliability(table)
    assert len(made) == 2  # 1 + one per label before
    labels = [t for t in fig.axes[0].texts if t.get_gid() == "count_label"]
    hidden = [not t.get_visible() for t in labels]
    assert 0 < sum(hidden) < len(labels)
    # the same labels hidden as when each label is measured alone
    monkeypatch.setattr(Figure, "_get_renderer", get)
    shared = get(fig)
    alone = [t.get_window_extent(get(fig)).bounds for t in labels]
    assert [t.get_window_extent(shared).bounds for t in labels] == alone
