"""Plots: the Figure objects carry the right elements, PNGs come out at the expected size,
and matplotlib is imported only when a plot is drawn."""

from __future__ import annotations

import io
import os
import subprocess
import sys

import numpy as np
import pytest
from matplotlib.collections import PathCollection
from matplotlib.figure import Figure
from PIL import Image

import veracity as vc


def _gids(ax):
    return {a.get_gid() for a in ax.get_children() if a.get_gid()}


def _by_gid(ax, gid):
    return [a for a in ax.get_children() if a.get_gid() == gid]


@pytest.fixture(scope="module")
def demo():
    d = vc.load_demo()
    return d["score"], d["label"]


def test_lazy_matplotlib_and_same_bytes_across_interpreters():
    """In fresh interpreters: `import veracity` does not import matplotlib (a plot does, without
    pyplot), and two interpreters with different hash seeds write the same report bytes."""
    code = (
        "import sys, veracity as vc\n"
        "assert 'matplotlib' not in sys.modules, 'imported eagerly'\n"
        "vc.plot_reliability([.1, .9], [0, 1], min_count=1)\n"
        "assert 'matplotlib' in sys.modules\n"
        "assert 'matplotlib.pyplot' not in sys.modules, 'pyplot (a GUI backend) was imported'\n"
        "rep = vc.report([.1, .35, .4, .8, .9, .2], [0, 1, 0, 1, 1, 0], min_count=1, by=list('aabbab'),\n"
        "                title='t', bootstrap=False)\n"
        "sys.stdout.write(rep.html)\n"
    )
    procs = [  # two interpreters at once
        subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                         env={**os.environ, "PYTHONHASHSEED": seed})
        for seed in ("1", "2")
    ]
    pages = [p.communicate(timeout=120)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0]
    assert pages[0] == pages[1] and pages[0].startswith("<!DOCTYPE html>")


def test_reliability_diagram_elements(demo):
    p, y = demo
    table = vc.reliability(p, y, bins=15)
    fig = vc.plot_reliability(p, y, bins=15)
    assert isinstance(fig, Figure)
    ax, hax = fig.axes
    assert ax.get_xlabel() == "" and hax.get_xlabel() == "mean predicted probability (confidence)"
    assert ax.get_ylabel() == "observed frequency" and hax.get_ylabel() == "count"
    assert {"diagonal", "bins", "intervals", "histogram"} <= _gids(ax) | _gids(hax)
    # the diagonal is y = x
    (diag,) = _by_gid(ax, "diagonal")
    assert list(diag.get_xdata()) == [0, 1] and list(diag.get_ydata()) == [0, 1]
    # one point per sufficient bin, at (conf, acc)
    (points,) = [c for c in ax.collections if isinstance(c, PathCollection) and c.get_gid() == "bins"]
    offsets = points.get_offsets()
    ok = [r for r in table.rows if r.sufficient]
    np.testing.assert_allclose(offsets[:, 0], [r.conf for r in ok])
    np.testing.assert_allclose(offsets[:, 1], [r.acc for r in ok])
    # sized by count: the fullest bin has the largest marker
    sizes = points.get_sizes()
    assert np.argmax(sizes) == int(np.argmax([r.n for r in ok]))
    # counts annotated next to the points
    texts = {t.get_text() for t in ax.texts}
    assert {f"{r.n:,.0f}" for r in table.rows} <= texts
    # histogram: one bar per bin holding its count
    bars = [b for b in hax.patches if b.get_gid() == "histogram"]
    assert sorted(round(b.get_height()) for b in bars) == sorted(int(c) for c in table.stats.count)
    assert f"ECE {vc.ece(p, y):.4f}" in ax.get_legend().get_texts()[1].get_text()


def test_insufficient_bins_are_marked():
    rng = np.random.default_rng(3)
    p = np.concatenate([rng.uniform(0, 0.5, 400), rng.uniform(0.9, 1.0, 5)])
    y = (rng.uniform(size=p.size) < p).astype(float)
    table = vc.reliability(p, y, bins=10, min_count=20)
    thin = [r for r in table.rows if not r.sufficient]
    assert thin, "the data should have a thin bin"
    fig = vc.plot_reliability(p, y, bins=10, min_count=20)
    ax, hax = fig.axes
    (hollow,) = [c for c in ax.collections if c.get_gid() == "insufficient"]
    np.testing.assert_allclose(hollow.get_offsets()[:, 0], [r.conf for r in thin])
    assert "insufficient (n < 20), hollow" in [t.get_text() for t in ax.get_legend().get_texts()]
    assert any(b.get_gid() == "histogram_insufficient" for b in hax.patches)


def test_interval_bars_span_the_binomial_interval():
    p = np.repeat([0.15, 0.55, 0.85], 40)
    y = np.r_[np.zeros(34), np.ones(6), np.zeros(20), np.ones(20), np.zeros(4), np.ones(36)]
    table = vc.reliability(p, y, bins=10, min_count=1)
    fig = vc.plot_reliability(p, y, bins=10, min_count=1)
    (bars,) = [c for c in fig.axes[0].collections if c.get_gid() == "intervals"]
    segs = np.array([s for s in bars.get_segments()])
    np.testing.assert_allclose(segs[:, 0, 1], [r.ci_low for r in table.rows])
    np.testing.assert_allclose(segs[:, 1, 1], [r.ci_high for r in table.rows])


def test_draws_into_given_axes(demo):
    p, y = demo
    fig = Figure()
    ax = fig.add_subplot(1, 2, 2)
    assert vc.plot_reliability(p, y, ax=ax) is fig
    assert len(fig.axes) == 1 and {"diagonal", "bins"} <= _gids(ax)


def test_table_or_audit_result_can_be_plotted(demo):
    p, y = demo
    result = vc.audit(p, y)
    a = vc.plot_reliability(result)
    b = vc.plot_reliability(result.table, histogram=False)
    assert len(a.axes) == 2 and len(b.axes) == 1
    assert b.axes[0].get_xlabel() == "mean predicted probability (confidence)"
    with pytest.raises(vc.VeracityError, match="not both"):
        vc.plot_reliability(result.table, y)
    with pytest.raises(vc.VeracityError, match="labels are missing"):
        vc.plot_reliability(p)


@pytest.mark.parametrize("dpi,size", [(100, (6.0, 6.2)), (50, (4.0, 3.0))])
def test_png_has_expected_size(demo, dpi, size):
    p, y = demo
    fig = vc.plot_reliability(p, y, figsize=size, dpi=dpi)
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    img = Image.open(io.BytesIO(buf.getvalue()))
    assert img.format == "PNG"
    assert img.size == (round(size[0] * dpi), round(size[1] * dpi))


def test_overlay_before_after(demo):
    p, y = demo
    after = np.clip(0.5 + 0.6 * (p - 0.5), 0, 1)
    fig = vc.plot_reliability_overlay({"before": p, "after": after}, y)
    ax, hax = fig.axes
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    ece_before, ece_after = vc.ece(p, y), vc.ece(after, y)
    assert f"before (ECE {ece_before:.4f})" in legend and f"after (ECE {ece_after:.4f})" in legend
    assert len(_by_gid(ax, "diagonal")) == 1
    assert len(_by_gid(hax, "histogram")) == 2
    with pytest.raises(vc.VeracityError, match="curves is empty"):
        vc.plot_reliability_overlay({}, y)


def test_overlay_accepts_logits_per_curve(demo):
    d = vc.load_demo()
    fig = vc.plot_reliability_overlay({"raw": d["logit"], "scaled": d["logit"] / 2},
                                      d["label"], score_type="logit")
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert f"raw (ECE {vc.ece(d['logit'], d['label'], score_type='logit'):.4f})" in legend


def test_multiclass_panels():
    rng = np.random.default_rng(0)
    z = rng.normal(size=(900, 4)) * 2
    y = rng.integers(0, 4, 900)
    z[np.arange(900), y] += 2
    P = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    fig = vc.plot_multiclass_reliability(P, y, class_names=["a", "b", "c", "d"])
    visible = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title(loc="left") for ax in visible] == ["top label", "class a", "class b", "class c", "class d"]
    assert len(fig.axes) == 6 and not fig.axes[5].get_visible()
    # the top-label panel reports the top-label ECE; class panels the one-vs-rest ECE
    assert f"ECE {vc.ece(P, y):.4f}" in visible[0].get_title(loc="right")
    assert f"ECE {vc.ece(P[:, 2], (y == 2).astype(float)):.4f}" in visible[3].get_title(loc="right")
    fig = vc.plot_multiclass_reliability(P, y, classes=[1])
    assert [ax.get_title(loc="left") for ax in fig.axes if ax.get_visible()] == ["top label", "class 1"]
    with pytest.raises(vc.VeracityError, match="classes must lie in 0..3"):
        vc.plot_multiclass_reliability(P, y, classes=[7])
    with pytest.raises(vc.VeracityError, match="class_names has 2 names for 4 classes"):
        vc.plot_multiclass_reliability(P, y, class_names=["a", "b"])


def test_risk_coverage_plot(demo):
    p, y = demo
    rc = vc.risk_coverage(p, y)
    fig = vc.plot_risk_coverage(p, y)
    (ax,) = fig.axes
    (line,) = _by_gid(ax, "risk_coverage")
    assert f"AURC {rc.aurc:.4f}" in line.get_label()
    assert line.get_xdata()[-1] == pytest.approx(1.0)
    assert line.get_ydata()[-1] == pytest.approx(rc.risk[-1])
    assert len(line.get_xdata()) <= 2002  # long curves are thinned for drawing


def test_threshold_curves_match_threshold_table(demo):
    p, y = demo
    fig = vc.plot_thresholds(p, y, cost_fp=1, cost_fn=9, target_recall=0.95)
    ax, cax = fig.axes
    (recall,) = _by_gid(ax, "recall")
    (precision,) = _by_gid(ax, "precision")
    (cost,) = _by_gid(cax, "cost")
    t = np.asarray(recall.get_xdata())
    table = vc.threshold_table(p, y, t, cost_fp=1, cost_fn=9)
    np.testing.assert_allclose(recall.get_ydata(), table.recall)
    np.testing.assert_allclose(precision.get_ydata(), table.precision)
    np.testing.assert_allclose(cost.get_ydata(), table.cost_per_1000)
    (star, _) = _by_gid(ax, "t_star") + _by_gid(cax, "t_star")
    assert star.get_xdata()[0] == pytest.approx(0.1)  # seed 003: miss 9x costlier -> t* = 0.1
    (mark, _) = _by_gid(ax, "t_recall") + _by_gid(cax, "t_recall")
    assert mark.get_xdata()[0] == pytest.approx(vc.recall_threshold(p, y, target=0.95))
    assert cax.get_xlabel() == "threshold t (flag when p ≥ t)"


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(cost_fp=-1.0), "costs must be non-negative"),
        (dict(cost_fp=0.0, cost_fn=0.0), "not both 0"),
    ],
)
def test_threshold_plot_bad_costs(kwargs, match):
    with pytest.raises(vc.VeracityError, match=match):
        vc.plot_thresholds([.1, .9], [0, 1], **kwargs)


def test_threshold_plot_needs_binary():
    P = np.array([[.7, .2, .1], [.1, .8, .1], [.2, .2, .6]])
    with pytest.raises(vc.VeracityError, match="need binary scores"):
        vc.plot_thresholds(P, [0, 1, 2])


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: vc.plot_reliability([0.2, 1.5], [0, 1]), "probabilities in"),
        (lambda: vc.plot_reliability([0.2, 0.5], [0, 2]), "binary 0/1"),
        (lambda: vc.plot_reliability([0.2, 0.5], [0, 1, 1]), "pass one label per score"),
    ],
)
def test_plot_bad_input(call, match):
    with pytest.raises(vc.VeracityError, match=match):
        call()


def test_line_is_broken_at_empty_and_insufficient_bins():
    # naive-Bayes-like scores: mass at both ends, a few stragglers, many empty bins in between
    rng = np.random.default_rng(5)
    p = np.concatenate([rng.uniform(0, 0.05, 300), [0.33, 0.52], rng.uniform(0.95, 1.0, 300)])
    y = (rng.uniform(size=p.size) < p).astype(float)
    fig = vc.plot_reliability(p, y, bins=10, min_count=20)
    ax = fig.axes[0]
    # two sufficient bins (0 and 9) that are not neighbours: no segment joins them, so no line is drawn
    # and the legend names none (a legend line with no line in the plot misleads)
    assert not [ln for ln in ax.lines if ln.get_gid() == "line"]
    assert "line broken at empty / insufficient bins" not in [t.get_text() for t in ax.get_legend().get_texts()]
    # bins 0 and 1 sufficient, then a gap to bin 9: one segment, broken before bin 9
    p = np.concatenate([rng.uniform(0, 0.05, 300), rng.uniform(0.1, 0.15, 300), [0.33, 0.52],
                        rng.uniform(0.95, 1.0, 300)])
    y = (rng.uniform(size=p.size) < p).astype(float)
    ax = vc.plot_reliability(p, y, bins=10, min_count=20).axes[0]
    (line,) = [ln for ln in ax.lines if ln.get_gid() == "line"]
    assert np.isnan(line.get_xdata()).sum() == 1
    assert "line broken at empty / insufficient bins" in [t.get_text() for t in ax.get_legend().get_texts()]


def test_legend_sits_outside_the_data_and_counts_clear_the_bars():
    rng = np.random.default_rng(6)
    p = rng.uniform(size=3000)
    y = (rng.uniform(size=p.size) < p ** 1.5).astype(float)
    fig = vc.plot_reliability(p, y)
    ax = fig.axes[0]
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    legend_box = ax.get_legend().get_window_extent(renderer)
    axes_box = ax.get_window_extent(renderer)
    assert legend_box.y0 >= axes_box.y1 - 1  # the legend band is above the plotting area
    table = vc.reliability(p, y)
    labels = [t for t in ax.texts if t.get_gid() == "count_label"]
    assert len(labels) == len(table.rows)
    for t, r in zip(labels, table.rows):  # anchored at the bar's end, pushed away from it
        assert t.xy[1] in (r.ci_high, r.ci_low)
