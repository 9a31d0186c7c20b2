"""The before/after reliability diagram's legend reads "before" ahead of "after", as drawn.

Before: the legend (two columns, filled top to bottom) listed "perfect calibration", "before (ECE …)",
"line broken …" in its first column and "after (ECE …)" at the head of the second, level with
"perfect calibration": read row by row, "after" came first and "before" on the row below. Now the
curves come first, in the order drawn, one under the other, and the shared entries after them.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402

import veracity as vc  # noqa: E402


def _data():
    rng = np.random.default_rng(1)
    z = rng.normal(0, 2, 4000)
    y = (rng.uniform(size=4000) < 1 / (1 + np.exp(-z))).astype(int)
    return 1 / (1 + np.exp(-1.8 * z)), y


def _renderer(fig):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = fig.canvas if hasattr(fig.canvas, "get_renderer") else FigureCanvasAgg(fig)
    canvas.draw()
    return canvas.get_renderer()


def _reading_order(fig) -> list[str]:
    """The legend's texts in reading order: top to bottom, then left to right, as drawn."""
    texts = fig.axes[0].get_legend().get_texts()
    renderer = _renderer(fig)
    boxes = [(t.get_window_extent(renderer), t.get_text()) for t in texts]
    return [text for box, text in sorted(boxes, key=lambda bt: (-round(bt[0].y0), bt[0].x0))]


def _check(fig, names):
    order = _reading_order(fig)
    curves = [next(i for i, t in enumerate(order) if t.startswith(f"{name} (ECE")) for name in names]
    assert curves == sorted(curves), order  # drawn first, read first (row by row)
    # and read first down the first column: the curves, in the order drawn, then the shared entries
    renderer = _renderer(fig)
    boxes = [(t.get_window_extent(renderer), t.get_text()) for t in fig.axes[0].get_legend().get_texts()]
    left = min(box.x0 for box, _ in boxes)
    column = [text for box, text in sorted(boxes, key=lambda bt: -bt[0].y0) if box.x0 == left]
    assert [t.split(" (ECE")[0] for t in column[:len(names)]] == names, column


def test_ledger_legend_reads_before_then_after():
    p, y = _data()
    cal = vc.IsotonicCalibration().fit(p[:2000], y[:2000])
    ledger = vc.compare(p[2000:], y[2000:], cal)
    fig = ledger.plot()
    _check(fig, ["before", "after"])


def test_overlay_legend_follows_the_order_of_the_curves():
    p, y = _data()
    q = np.clip(p * 0.8 + 0.1, 0, 1)
    r = np.clip(p * 0.6 + 0.2, 0, 1)
    fig = vc.plot_reliability_overlay({"raw": p, "shrunk": q, "flat": r}, y)
    _check(fig, ["raw", "shrunk", "flat"])
