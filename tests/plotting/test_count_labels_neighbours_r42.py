"""A reliability diagram's count label never sits on another bin's marker or interval bar (round 42).

Quantile bins of scores piled near 0 put their points a few pixels apart: the labels were kept apart from
each other, but one bin's "200" was printed on its neighbour's marker and bar, where it read as that bin's
count. Such a label is now hidden like a crowded one (the histogram beneath gives every count)."""
import math

import matplotlib
import numpy as np

import veracity as vc

matplotlib.use("Agg")


def _discs(ax):
    """Each drawn marker as (centre x, centre y, radius) in display pixels."""
    out = []
    for c in ax.collections:
        if c.get_gid() in ("bins", "insufficient"):
            offsets = np.asarray(c.get_offsets())
            for (x, y), s in zip(offsets, np.broadcast_to(c.get_sizes(), len(offsets))):
                cx, cy = ax.transData.transform((x, y))
                out.append((x, cx, cy, math.sqrt(s) / 2 * ax.figure.dpi / 72))
    return out


def _on_disc(box, cx, cy, r) -> bool:
    dx = max(box.x0 - cx, 0.0, cx - box.x1)
    dy = max(box.y0 - cy, 0.0, cy - box.y1)
    return dx * dx + dy * dy < r * r


def _bars(ax):
    """Each interval bar as (conf, x in pixels, low y, high y)."""
    out = []
    for container in ax.containers:
        for lines in getattr(container, "lines", (None, None, ()))[2] or ():
            for seg in lines.get_segments():
                (x, y0), (_, y1) = ax.transData.transform(np.asarray(seg))
                out.append((seg[0][0], x, min(y0, y1), max(y0, y1)))
    return out


def _misplaced(fig) -> list[str]:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    ax = fig.axes[0]
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    wrong = []
    for t in ax.texts:
        if t.get_gid() != "count_label" or not t.get_visible():
            continue
        box = t.get_window_extent(renderer)
        own = t.xy[0]
        if any(x != own and _on_disc(box, cx, cy, r) for x, cx, cy, r in _discs(ax)):
            wrong.append(f"{t.get_text()} at {own:.4f} on a marker")
        bars = _bars(ax)
        if any(x != own and box.x0 < bx < box.x1 and box.y0 < hi and lo < box.y1 for x, bx, lo, hi in bars):
            wrong.append(f"{t.get_text()} at {own:.4f} on a bar")
    return wrong


def test_no_count_label_sits_on_a_neighbours_marker():
    rng = np.random.default_rng(3)
    p = rng.beta(0.3, 3, 3000)
    y = (rng.uniform(size=3000) < p).astype(int)
    fig = vc.plot_reliability(p, y, bins=15, strategy="quantile")
    assert _misplaced(fig) == []
    labels = [t for t in fig.axes[0].texts if t.get_gid() == "count_label"]
    assert len(labels) == 15 and sum(t.get_visible() for t in labels) >= 4  # the bins far apart keep theirs
    hidden = 15 - sum(t.get_visible() for t in labels)
    assert f"({hidden} crowded labels above omitted)" in fig.axes[1].get_title(loc="right")


def test_uniform_bins_keep_every_label():
    rng = np.random.default_rng(4)
    p = rng.beta(2, 2, 3000)
    fig = vc.plot_reliability(p, (rng.uniform(size=3000) < p).astype(int), bins=15)
    labels = [t for t in fig.axes[0].texts if t.get_gid() == "count_label"]
    assert len(labels) == 15 and all(t.get_visible() for t in labels)
    assert _misplaced(fig) == []
