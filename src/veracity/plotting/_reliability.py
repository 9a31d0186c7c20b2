r"""Reliability diagrams: one table, several curves on one diagram, multiclass panels.

Compute is separated from drawing: :func:`plot_reliability` also accepts a
ready :class:`~veracity.ReliabilityTable` or :class:`~veracity.AuditResult`.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..core._audit import AuditResult, table_in_user_units
from ..core._binning import enough_effective, make_edges
from ..core._options import IntervalMethod, ScoreType, Strategy
from ..core._reliability import ReliabilityTable
from ..core._stats import BinStats
from ..core._text import interval_name
from ..core._validation import Binary, VeracityError, prepare_binary, prepare_classwise, prepare_top_label
from ._style import INK, MUTED, PALETTE, _figure, _figure_of, _legend_above, _name, _plain, _style, run_layout

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


def _table_of(
    scores: Any,
    labels: Any,
    *,
    bins: int,
    strategy: str,
    score_type: str,
    interval: str,
    level: float,
    min_count: int,
    sample_weight: Any,
    pos_label: Any = None,
) -> tuple[ReliabilityTable, bool]:
    """The table to draw, and whether it is the top-label reading of (N, K) scores (known for scores and
    for an audit; a bare table does not say)."""
    top = False
    if isinstance(scores, AuditResult):
        scores, top = scores.table, bool(scores.top_label)
    if isinstance(scores, ReliabilityTable):
        if labels is not None:
            raise VeracityError("pass either a ReliabilityTable/AuditResult or (scores, labels), not both")
        return scores, top
    if labels is None:
        raise VeracityError("labels are missing: call plot_reliability(scores, labels)")
    data = prepare_binary(scores, labels, sample_weight=sample_weight, score_type=score_type, pos_label=pos_label)
    return _table_from_binary(data, bins=bins, strategy=strategy, interval=interval, level=level,
                              min_count=min_count), data.top_label



def _table_from_binary(data: Binary, *, bins: int, strategy: str, interval: str, level: float,
                       min_count: int, edges: np.ndarray | None = None) -> ReliabilityTable:
    if edges is None:
        edges = make_edges(data.p, bins, strategy, data.w)
    stats = BinStats.from_binary(data, edges, strategy, full=False)
    # the rows' weighted n in the caller's units (the statistics hold rescaled weights), as vc.reliability
    table = ReliabilityTable.from_stats(stats, ci=interval, level=level, min_count=min_count)
    return table_in_user_units(table, data.weight_scale)


def _weight_shares(table: ReliabilityTable) -> np.ndarray:
    """Each bin's weight over the total weight, :math:`W_b / \\sum_c W_c`, from the statistics' weights.

    Those are rescaled by an exact power of two (:func:`~veracity.core._validation.check_weights`),
    so their sums stay finite where the caller's totals do not (weights near 1.8e308 sum to
    ``inf``: a bin's weighted ``n`` then has no float64 value); a share is the same in any units.
    """
    w = np.asarray(table.stats.weight, dtype=np.float64)
    total = float(w.sum()) if w.size else 0.0
    if not (np.isfinite(total) and total > 0):  # statistics merged without rescaling: the rows instead
        w = np.asarray(table.stats.count, dtype=np.float64)
        total = max(float(w.sum()), 1.0)
    return w / total


def _histogram_heights(table: ReliabilityTable, *, share: bool) -> np.ndarray:
    """Per-bin heights of the histogram: the bins' counts (weight totals, in the caller's units), or
    with ``share`` each bin's share of the total weight (:func:`_weight_shares`)."""
    if share:
        return _weight_shares(table)
    heights = np.zeros(table.stats.weight.shape[0])
    heights[[r.index for r in table.rows]] = [r.n for r in table.rows]
    return heights


def _needs_share(tables: Sequence[ReliabilityTable]) -> bool:
    """Whether some bin's weight total is ``inf`` in the caller's units (beyond the largest double):
    the histograms then show shares of the total weight, which stay finite."""
    return any(not math.isfinite(r.n) for t in tables for r in t.rows)


def _histogram_label(tables: Sequence[ReliabilityTable]) -> str:
    if _needs_share(tables):
        return "share of weight"
    return "weight" if any(t.weighted for t in tables) else "count"


def _count_text(n: float) -> str:
    """A bin's count label: ``1,234`` or ``640.2``; beyond 1e15 (weights of 1e300) ``8e+301``, never
    300 digits; ``inf`` where the weight total has no float64 value."""
    if not abs(n) < 1e15:
        return f"{n:.4g}"
    return f"{n:,.0f}" if float(n).is_integer() else f"{n:,.1f}"



def _segments(table: ReliabilityTable) -> tuple[np.ndarray, np.ndarray]:
    """x, y of the line through the sufficient bins, broken (NaN) at every empty or insufficient bin."""
    xs: list[float] = []
    ys: list[float] = []
    prev = None
    for r in table.rows:
        if not r.sufficient:
            continue
        if prev is not None and r.index != prev + 1:
            xs.append(np.nan)
            ys.append(np.nan)
        xs.append(r.conf)
        ys.append(r.acc)
        prev = r.index
    return np.array(xs), np.array(ys)



def _has_gap(table: ReliabilityTable) -> bool:
    """Whether the line is broken somewhere between the first and last drawn bin: a NaN of
    :func:`_segments`, which stands wherever an empty or insufficient bin lies between two sufficient ones.
    Insufficient bins before the first or after the last sufficient bin break nothing (the line ends there);
    before, two such bins at an end ("rows[1:-1]" holding one of them) put "line broken at empty /
    insufficient bins" in the legend of a line drawn whole."""
    x, _ = _segments(table)
    return bool(np.isnan(x).any())



def _draw_reliability(
    ax: Axes,
    table: ReliabilityTable,
    *,
    color: str,
    name: str | None = None,
    annotate: bool = True,
    diagonal: bool = True,
    marker_scale: float = 1.0,
    interval_alpha: float = 0.75,
    legend_details: bool = True,
) -> None:
    """Diagonal, per-bin points sized by count, interval bars, insufficient bins hollow.

    The line joins only neighbouring sufficient bins: it is broken at every empty
    or insufficient bin (said in the legend), so it never claims a trend where
    there is no data. Count labels sit above (or below) each interval bar, never on it.
    """
    rows = table.rows
    if diagonal:
        ax.plot([0, 1], [0, 1], linestyle=(0, (4, 3)), color=MUTED, linewidth=1.0,
                label="perfect calibration", gid="diagonal", zorder=1)
    if not rows:
        return
    conf = np.array([r.conf for r in rows])
    acc = np.array([r.acc for r in rows])
    lo = np.array([r.ci_low for r in rows])
    hi = np.array([r.ci_high for r in rows])
    count = np.array([r.n for r in rows])
    ok = np.array([r.sufficient for r in rows])
    # sized by each bin's weight relative to the fullest bin, from finite statistics (the rows'
    # weighted n is inf for weights near 1.8e308, and inf / inf would be NaN)
    share = _weight_shares(table)[[r.index for r in rows]]
    size = marker_scale * (14.0 + 110.0 * np.sqrt(share / share.max()))
    ece = f"ECE {table.ece:.4f}"
    unit = "weight" if table.weighted else "count"
    label = f"{_plain(name)} ({ece})" if name else f"bins, size grows with {unit} ({ece})"
    below, above = np.maximum(acc - lo, 0), np.maximum(hi - acc, 0)
    if table.sided == "upper":  # [0, bound]: the bar runs from the point up to the bound it gives
        below = np.zeros_like(below)
    elif table.sided == "lower":  # [bound, 1]: from the bound up to the point
        above = np.zeros_like(above)
    ax.errorbar(conf, acc, yerr=np.vstack((below, above)),
                fmt="none", ecolor=color, elinewidth=1.1, capsize=2.5, alpha=interval_alpha, gid="intervals",
                zorder=2, label=interval_label(table) if legend_details else None)
    lx, ly = _segments(table)
    finite = np.isfinite(lx)
    if np.any(finite[1:] & finite[:-1]):  # some two adjacent bins to join: a line is drawn (and named)
        gap = legend_details and _has_gap(table)
        ax.plot(lx, ly, color=color, linewidth=1.2, alpha=0.8, zorder=2, gid="line",
                label="line broken at empty / insufficient bins" if gap else None)
    thin = f"insufficient ({'effective ' if table.weighted else ''}n < {table.min_count}), hollow"
    if ok.any():
        ax.scatter(conf[ok], acc[ok], s=size[ok], color=color, edgecolor="white", linewidth=0.8,
                   label=label, gid="bins", zorder=3)
    else:
        # no filled bin: the key is drawn as the bins are (hollow, or in the curve's colour when named);
        # before, an empty scatter's key had size 1, a legend entry naming nothing visible
        ax.scatter([], [], s=40.0, facecolor=color if name else "white", edgecolor=color,
                   linewidth=0.8 if name else 1.2, label=label, gid="bins", zorder=3)
    if (~ok).any():
        ax.scatter(conf[~ok], acc[~ok], s=size[~ok], facecolor="white", edgecolor=color,
                   linewidth=1.2, linestyle=(0, (2, 1)), label=thin, gid="insufficient", zorder=3)
    if annotate:
        # by the ends of the bars drawn (a one-sided interval's bar ends at the point on one side)
        for c, a, h, low, n, good in zip(conf, acc, acc + above, acc - below, count, ok):
            text = _count_text(n)
            above = h <= 0.9  # above the bar's upper end, or below its lower end near the top
            ax.annotate(text, (c, h if above else low), xytext=(0, 3 if above else -3),
                        textcoords="offset points", ha="center", va="bottom" if above else "top",
                        fontsize=7, color=INK if good else MUTED, gid="count_label", zorder=4)



def interval_label(table: ReliabilityTable) -> str:
    """The interval bars' key: ``95% Wilson interval``, or for a one-sided interval the bound it gives,
    ``95% upper Wilson bound`` (drawn from the point to the bound). Before, the one-sided intervals [0, hi]
    and [lo, 1] were drawn whole and keyed "95% Wilson interval", bars down to 0 read as two-sided
    intervals of enormous width beside a text table headed "95% upper CI"."""
    pct = f"{table.level * 100:g}%"
    if table.sided in ("upper", "lower"):
        return f"{pct} {table.sided} {interval_name(table.ci)} bound"
    return f"{pct} {interval_name(table.ci)} interval"



def _draw_histogram(ax: Axes, table: ReliabilityTable, *, color: str, step: bool = False,
                    name: str | None = None, share: bool = False) -> None:
    """The bins' counts (weight totals in the caller's units) or, with ``share``, their shares of
    the total weight (:func:`_histogram_heights`)."""
    e = table.stats.edges
    counts = _histogram_heights(table, share=share)
    if step:
        ax.stairs(counts, e, color=color, linewidth=1.4, label=None if name is None else _plain(name),
                  gid="histogram")
        return
    ok = enough_effective(table.stats.effective_count, table.min_count, table.stats.count)  # as the table
    widths = np.diff(e)
    ax.bar(e[:-1][ok], counts[ok], width=widths[ok], align="edge", color=color, alpha=0.55,
           edgecolor="white", linewidth=0.6, gid="histogram")
    if (~ok).any():
        ax.bar(e[:-1][~ok], counts[~ok], width=widths[~ok], align="edge", facecolor="white",
               edgecolor=color, hatch="////", linewidth=0.6, alpha=0.8, gid="histogram_insufficient")



def plot_reliability(
    scores: Any,
    labels: Any = None,
    *,
    score: Any = None,
    label: Any = None,
    bins: int = 15,
    strategy: Strategy = "uniform",
    score_type: ScoreType = "probability",
    interval: IntervalMethod = "wilson",
    level: float = 0.95,
    min_count: int = 20,
    sample_weight: Any = None,
    pos_label: Any = None,
    title: str | None = "Reliability diagram",
    annotate: bool = True,
    histogram: bool = True,
    ax: Axes | None = None,
    figsize: tuple[float, float] = (6.0, 6.2),
    dpi: float = 100,
) -> Figure:
    r"""Reliability diagram: observed frequency against mean confidence per bin.

    Each non-empty bin b is a point :math:`(\mathrm{conf}_b, \mathrm{acc}_b)`
    sized (and, with ``annotate``, labelled) by its count, with its binomial
    ``interval`` at ``level`` as an error bar; bins with fewer than ``min_count``
    observations are drawn hollow and labelled *insufficient*. The dashed
    diagonal is perfect calibration (:math:`\mathrm{acc} = \mathrm{conf}`);
    points below it are over-confident. A count histogram sits beneath.

    ``scores`` may also be a :class:`~veracity.ReliabilityTable` or an
    :class:`~veracity.AuditResult` (then ``labels`` is omitted). (N, K) scores use
    the top-label reading (the default title then says "(top label)"). Nothing is shown or saved:
    call ``fig.savefig(path)``.
    With ``ax=`` the diagram is drawn into that matplotlib Axes (no histogram)
    and its figure is returned. With a frame, ``score=``/``label=`` name its columns (any frame
    :func:`~veracity.reliability` reads, lazy ones included).

    >>> fig = plot_reliability([.1, .2, .8, .9], [0, 0, 1, 1], bins=5, min_count=1)
    >>> [ax.get_ylabel() for ax in fig.axes]
    ['observed frequency', 'count']
    """
    if score is not None or label is not None:  # plot_reliability(frame, score="p", label="y", ...)
        from ..core._reliability import reliability

        scores, labels = reliability(scores, labels, score=score, label=label, bins=bins, strategy=strategy,
                                     score_type=score_type, interval=interval, level=level,
                                     min_count=min_count, sample_weight=sample_weight, pos_label=pos_label), None
    table, top = _table_of(scores, labels, bins=bins, strategy=strategy, score_type=score_type,
                           interval=interval, level=level, min_count=min_count,
                           sample_weight=sample_weight, pos_label=pos_label)
    if top and title == "Reliability diagram":  # the default title says the reading, as audit.plot() does
        title = "Reliability diagram (top label)"
    if ax is not None:
        fig, hax = _figure_of(ax), None
    else:
        fig = _figure(figsize, dpi)
        if histogram:
            ax, hax = fig.subplots(2, 1, sharex=True, height_ratios=(3.2, 1))
        else:
            ax, hax = fig.subplots(1, 1), None
    _draw_reliability(ax, table, color=PALETTE[0], annotate=annotate)
    _finish_reliability_axes(ax, table, title=title, with_xlabel=hax is None)
    if hax is not None:
        _draw_histogram(hax, table, color=PALETTE[0], share=_needs_share([table]))
        _style(hax)
        hax.set_ylabel(_histogram_label([table]))
        hax.set_xlabel("mean predicted probability (confidence)")
    if annotate:
        hidden = _thin_count_labels(ax, table)
        if hidden and hax is not None:  # where the hidden counts are
            hax.set_title(f"every bin's {_histogram_label([table])} here ({hidden} crowded "
                          f"label{'s' if hidden != 1 else ''} above omitted)", loc="right", fontsize=7.5,
                          color=MUTED, pad=3)
    return fig


#: points of space kept between two count labels of a reliability diagram
LABEL_GAP = 1.5


def _thin_count_labels(ax: Axes, table: ReliabilityTable) -> int:
    """Hide the count labels that would overlap one already kept; returns how many were hidden.

    Bins close together (quantile bins of scores piled near 0, or many bins) printed their counts on
    top of each other ("500500500"), text no one could read. With the axes laid out (:func:`run_layout`),
    labels are kept greedily, sufficient bins first and then by count (largest first), each only where
    its box, widened by :data:`LABEL_GAP` points, touches no kept label; the hidden ones stay in the
    figure, invisible (gid ``count_label``). :func:`plot_reliability` then says above the histogram that
    every count is there."""
    labels = [t for t in ax.texts if t.get_gid() == "count_label"]
    if len(labels) < 2 or len(labels) != len(table.rows):
        return 0
    fig = _figure_of(ax)
    run_layout(fig)
    # one renderer measures every label (asked for none, each label made its own, its extent not remembered)
    renderer = getattr(fig, "_get_renderer")()
    boxes = [t.get_window_extent(renderer) for t in labels]
    pad = LABEL_GAP * fig.dpi / 72.0
    marks = _bin_marks(ax, table, pad)
    order = sorted(range(len(labels)), key=lambda i: (not table.rows[i].sufficient, -table.rows[i].n, i))
    kept: list[Any] = []
    hidden = 0
    for i in order:
        b = boxes[i]
        if (any(b.x0 < k.x1 + pad and k.x0 < b.x1 + pad and b.y0 < k.y1 and k.y0 < b.y1 for k in kept)
                or _covers_other_bin(b, i, marks)):
            labels[i].set_visible(False)
            hidden += 1
        else:
            kept.append(b)
    return hidden


def _bin_marks(ax: Axes, table: ReliabilityTable, pad: float) -> np.ndarray:
    r"""Each bin's marker and interval bar as display boxes, one row per bin in ``table.rows``' order:
    ``(x0, x1, y0, y1)`` of the marker's disc (its area :math:`s` points², radius :math:`\sqrt s / 2`, plus
    ``pad`` pixels) and of the bar (its caps' width, from its low end to its high end)."""
    rows = table.rows
    centre = np.array([[r.conf, r.acc] for r in rows], dtype=np.float64)
    radius = np.full(len(rows), 0.0)
    for gid in ("bins", "insufficient"):  # the markers drawn: sizes by their offsets (each bin's (conf, acc))
        for c in (c for c in ax.collections if c.get_gid() == gid):
            offsets = np.asarray(c.get_offsets(), dtype=np.float64).reshape(-1, 2)
            sizes = np.broadcast_to(np.asarray(getattr(c, "get_sizes")(), dtype=np.float64), len(offsets))
            for (x, y), s in zip(offsets, sizes):
                radius[(centre[:, 0] == x) & (centre[:, 1] == y)] = math.sqrt(s) / 2.0
    px = ax.figure.dpi / 72.0
    at = ax.transData.transform(centre)
    r = radius * px + pad
    bars = np.full((len(rows), 2), np.nan)
    for container in ax.containers:  # the interval bars' segments, [(conf, low), (conf, high)] per bin
        for lines in getattr(container, "lines", (None, None, ()))[2] or ():
            for seg in lines.get_segments():
                ends = ax.transData.transform(np.asarray(seg))
                bars[np.flatnonzero(centre[:, 0] == seg[0][0])] = np.sort(ends[:, 1])
    cap = 2.5 * px + pad  # the caps' half width (capsize 2.5 points)
    return np.column_stack((at[:, 0] - r, at[:, 0] + r, at[:, 1] - r, at[:, 1] + r,
                            at[:, 0] - cap, at[:, 0] + cap, bars[:, 0], bars[:, 1]))


def _covers_other_bin(box: Any, i: int, marks: np.ndarray) -> bool:
    """Whether the label ``box`` of bin ``i`` lies on another bin's marker or interval bar, where the
    reader would take it for that bin's count (quantile bins piled near 0 put one bin's count on its
    neighbour's marker)."""
    other = np.arange(marks.shape[0]) != i
    m = marks[other]
    on_marker = (box.x0 < m[:, 1]) & (m[:, 0] < box.x1) & (box.y0 < m[:, 3]) & (m[:, 2] < box.y1)
    with np.errstate(invalid="ignore"):  # a bin with no bar drawn (NaN ends): not on it
        on_bar = (box.x0 < m[:, 5]) & (m[:, 4] < box.x1) & (box.y0 < m[:, 7]) & (m[:, 6] < box.y1)
    return bool(np.any(on_marker | on_bar))


def _finish_reliability_axes(ax: Axes, table: ReliabilityTable | None, *, title: str | None,
                             with_xlabel: bool, legend: bool = True, show_n: bool = True,
                             neutral_key: bool = False) -> None:
    _style(ax)
    ax.set_xlim(-0.02, 1.02)  # a bin at 0 or 1 (naive Bayes' mass) shows its whole marker and count
    ax.set_ylim(-0.02, 1.02)
    ax.set_aspect("auto")
    ax.set_ylabel("observed frequency")
    if with_xlabel:
        ax.set_xlabel("mean predicted probability (confidence)")
    note = None
    if table is not None:
        note = ((f"N = {table.n:,}, " if show_n else "") + f"{table.bins} {table.strategy} "
                f"bin{'s' if table.bins != 1 else ''}")  # "1 uniform bins" before
    rows = 0
    if legend:
        handles, names = ax.get_legend_handles_labels()
        unique = dict(zip(names, handles))  # one "insufficient" entry however many curves
        if neutral_key:  # several curves: the shared entries in ink, not in the colour of one curve
            # and the curves first, in the order drawn, one under the other in the first column (the
            # legend fills its columns top to bottom): before, the diagonal and the broken line came
            # between them, so "after" headed the second column, level with "perfect calibration",
            # and read ahead of "before" on the row below
            curves = [name for name, handle in unique.items()
                      if getattr(handle, "get_gid", lambda: None)() == "bins"]
            unique = {name: _neutral(name, unique[name])
                      for name in [*curves, *(n for n in unique if n not in curves)]}
        if note:
            from matplotlib.patches import Patch

            unique[note] = Patch(visible=False)
        _legend_above(ax, list(unique.values()), list(unique.keys()))
        rows = -(-len(unique) // 2)
    elif note:
        ax.text(0.98, 0.03, note, transform=ax.transAxes, ha="right", va="bottom", fontsize=8, color=MUTED)
    if title:  # above the legend band
        ax.set_title(_plain(title), loc="left", fontsize=12, fontweight="bold", pad=9 + 12.5 * rows)



def _neutral(name: str, handle: Any) -> Any:
    """A legend handle in ink for an entry every curve shares (the broken line, the hollow
    insufficient bins, the interval bars); a curve's own entry is returned as it is."""
    from matplotlib.lines import Line2D

    if name.startswith("line broken"):
        return Line2D([], [], color=INK, linewidth=1.2)
    if name.startswith("insufficient"):
        return Line2D([], [], marker="o", linestyle="", markerfacecolor="white", markeredgecolor=INK,
                      markersize=7)
    if name.endswith((" interval", " bound")):
        return Line2D([], [], marker="|", linestyle="", color=INK, markersize=10)
    return handle



def plot_reliability_overlay(
    curves: Mapping[str, Any],
    labels: Any,
    *,
    bins: int = 15,
    strategy: Strategy = "uniform",
    score_type: ScoreType | Mapping[str, ScoreType] = "probability",
    interval: IntervalMethod = "wilson",
    level: float = 0.95,
    min_count: int = 20,
    sample_weight: Any = None,
    pos_label: Any = None,
    title: str | None = "Before and after calibration",
    figsize: tuple[float, float] = (6.0, 6.2),
    dpi: float = 100,
) -> Figure:
    """Several reliability curves of the same rows on one diagram (e.g. before/after).

    ``curves`` maps a name to scores (``{"raw": logits, "temperature": p}``);
    ``score_type`` is one type for all or a mapping name -> type. Quantile bins
    are cut separately for each curve; a step histogram per curve sits beneath.

    >>> fig = plot_reliability_overlay({"before": [.1, .9, .8], "after": [.3, .7, .6]}, [0, 1, 1])
    >>> len(fig.axes)
    2
    """
    if not curves:
        raise VeracityError("curves is empty; pass a mapping name -> scores, e.g. {'before': p, 'after': q}")
    types = score_type if isinstance(score_type, Mapping) else {k: score_type for k in curves}
    tables = {}
    for name, scores in curves.items():
        data = prepare_binary(scores, labels, sample_weight=sample_weight,
                              score_type=types.get(name, "probability"), pos_label=pos_label)
        tables[str(name)] = _table_from_binary(data, bins=bins, strategy=strategy, interval=interval,
                                               level=level, min_count=min_count)
    return _overlay_tables(tables, title=title, figsize=figsize, dpi=dpi)



def _overlay_tables(tables: Mapping[str, ReliabilityTable], *, title: str | None,
                    figsize: tuple[float, float] = (6.0, 6.2), dpi: float = 100,
                    ax: Axes | None = None) -> Figure:
    if ax is not None:
        fig, hax = _figure_of(ax), None
    else:
        fig = _figure(figsize, dpi)
        ax, hax = fig.subplots(2, 1, sharex=True, height_ratios=(3.2, 1))
    first = None
    share = _needs_share(list(tables.values()))
    for i, (name, table) in enumerate(tables.items()):
        first = first or table
        color = PALETTE[i % len(PALETTE)]
        _draw_reliability(ax, table, color=color, name=name, annotate=False, diagonal=i == 0,
                          interval_alpha=0.75 if len(tables) <= 2 else 0.35)
        if hax is not None:
            _draw_histogram(hax, table, color=color, step=True, name=name, share=share)
    same_n = len({t.n for t in tables.values()}) == 1
    _finish_reliability_axes(ax, first, title=title, with_xlabel=hax is None, show_n=same_n,
                             neutral_key=len(tables) > 1)
    if hax is not None:
        _style(hax)
        hax.set_ylabel(_histogram_label(list(tables.values())))
        hax.set_xlabel("mean predicted probability (confidence)")
    return fig



def plot_multiclass_reliability(
    scores: Any,
    labels: Any,
    *,
    classes: Sequence[int] | None = None,
    class_names: Sequence[str] | None = None,
    bins: int = 15,
    strategy: Strategy = "uniform",
    score_type: ScoreType = "probability",
    interval: IntervalMethod = "wilson",
    level: float = 0.95,
    min_count: int = 20,
    sample_weight: Any = None,
    ncols: int = 3,
    dpi: float = 100,
) -> Figure:
    """Multiclass panels: the top-label diagram first, then one one-vs-rest panel per class.

    ``classes`` picks which class panels to draw (default: all, at most 24);
    ``class_names`` labels them.

    >>> P = [[.7, .2, .1], [.1, .8, .1], [.2, .2, .6], [.5, .3, .2]]
    >>> fig = plot_multiclass_reliability(P, [0, 1, 2, 1], min_count=1)
    >>> [ax.get_title(loc="left") for ax in fig.axes if ax.get_visible()]
    ['top label', 'class 0', 'class 1', 'class 2']
    """
    top = prepare_top_label(scores, labels, sample_weight=sample_weight, score_type=score_type)
    per_class = prepare_classwise(scores, labels, sample_weight=sample_weight, score_type=score_type)
    k = len(per_class)
    picked = list(range(k)) if classes is None else [int(c) for c in classes]
    bad = [c for c in picked if not 0 <= c < k]
    if bad:
        raise VeracityError(f"classes must lie in 0..{k - 1}; got {bad}")
    if len(picked) > 24:
        raise VeracityError(f"{len(picked)} class panels is too many to read; pass classes=[...] (at most 24)")
    if class_names is not None and len(class_names) != k:
        raise VeracityError(f"class_names has {len(class_names)} names for {k} classes; pass one per class")
    panels: list[tuple[str, Binary]] = [("top label", top)]
    panels += [(f"class {class_names[c] if class_names else c}", per_class[c]) for c in picked]
    tables = {
        name: _table_from_binary(data, bins=bins, strategy=strategy, interval=interval, level=level,
                                 min_count=min_count)
        for name, data in panels
    }
    return _panel_tables(tables, ncols=ncols, dpi=dpi, colors=(PALETTE[0], PALETTE[2]))



def _panel_tables(tables: Mapping[str, ReliabilityTable], *, ncols: int = 3, dpi: float = 100,
                  colors: tuple[str, str] = (PALETTE[0], PALETTE[0]), size: float = 3.3,
                  key: tuple[str, str] = ("top-label bin", "one-vs-rest class bin"),
                  prefix: str = "", title: str | None = None) -> Figure:
    """Small multiples: one reliability panel per table (first panel in ``colors[0]``).

    ``key`` names the first panel's bins and the other panels' bins in the shared legend (when
    their colours differ): the multiclass panels' top label and classes, or the report's rows and slices.
    A panel's name is shortened (with "…") where it would run into the ECE beside it; a name that
    starts with ``prefix`` (the report's "segment = ", which its section title already says) loses
    the prefix before any of its own characters. ``title`` heads the shared legend (a figure's suptitle
    and an outside legend take the same place under constrained layout: they were drawn over each other)."""
    ncols = max(1, min(ncols, len(tables)))
    nrows = -(-len(tables) // ncols)
    fig = _figure((size * ncols, size * nrows), dpi)
    axes = np.atleast_1d(fig.subplots(nrows, ncols, sharex=True, sharey=True, squeeze=False)).ravel()
    for i, (ax, (name, table)) in enumerate(zip(axes, tables.items())):
        _draw_reliability(ax, table, color=colors[0] if i == 0 else colors[1], annotate=False,
                          marker_scale=0.55)
        _style(ax)
        ax.set_xlim(-0.02, 1.02)
        ax.set_ylim(-0.02, 1.02)
        # a placeholder until the layout gives the panel its width (then :func:`_fit_name`): a whole
        # 300-character name here squeezed the axes to nothing before there was a width to fit it to
        ax.set_title(_name(name), loc="left", fontsize=10, fontweight="bold")
        ax.set_title(f"ECE {table.ece:.4f}, N {table.n:,}", loc="right", fontsize=8, color=MUTED)
        if i % ncols == 0:
            ax.set_ylabel("observed frequency")
        if i + ncols >= len(tables):
            # a one-vs-rest panel's x is the mean probability of its class, no "confidence" (the top label's
            # largest probability): said so of every panel, whichever stands in the bottom row
            ax.set_xlabel("mean predicted probability")
            ax.xaxis.set_tick_params(labelbottom=True)
    for ax in axes[len(tables):]:
        ax.set_visible(False)
    _marker_key(fig, next(iter(tables.values())), colors, key, title=title)
    # the layout, so each panel's width is known (the layout alone: draw_without_rendering also walked
    # every artist with output disabled, which positions nothing)
    run_layout(fig)
    names = list(tables)
    rooms = [(ax.get_window_extent().width * 72.0 / fig.dpi, ax.get_title(loc="right")) for ax in axes]
    fitted = [_fit_name(name, width, right, prefix=prefix) for name, (width, right) in zip(names, rooms)]
    for i in _ambiguous(names, [text for text, _ in fitted], prefix):
        fitted[i] = _fit_window(_stem(names[i], prefix), *rooms[i], _differs_at(i, names, prefix))
    for ax, (text, fontsize) in zip(axes, fitted):
        ax.set_title(_plain(text), loc="left", fontsize=fontsize, fontweight="bold")
    return fig


def _stem(name: str, prefix: str) -> str:
    """``name`` without ``prefix`` (as :func:`_fit_name` drops it before cutting), else itself."""
    return name[len(prefix):] if prefix and name.startswith(prefix) and len(name) > len(prefix) else name


def _ambiguous(names: list[str], texts: list[str], prefix: str) -> list[int]:
    """Indices of panels whose title was cut to an end ("…" + end) that another panel's name ends with too.

    Names that share a long end ("north — all customers with a premium plan", "south — all customers with a
    premium plan") were cut to "…premium plan" on every panel (a little more or less of it as the ECE beside
    it was wider or narrower): the panels could not be told apart."""
    stems = [_stem(name, prefix) for name in names]
    return [i for i, text in enumerate(texts)
            if text.startswith("…") and text != names[i]
            and any(j != i and names[j] != names[i] and stems[j].endswith(text[1:]) for j in range(len(names)))]


def _differs_at(i: int, names: list[str], prefix: str) -> int:
    """Where panel ``i``'s name (its stem) first differs from the name nearest it (their longest common
    start), moved back to the start of that word when it is at most 12 characters back."""
    stem = _stem(names[i], prefix)
    common = max((len(os.path.commonprefix([stem, _stem(other, prefix)]))
                  for j, other in enumerate(names) if j != i and other != names[i]), default=0)
    common = min(common, max(len(stem) - 1, 0))
    word = stem.rfind(" ", 0, common) + 1
    return word if common - word <= 12 else common


def _fit_window(name: str, width_pt: float, right: str, start: int) -> tuple[str, float]:
    """The longest piece of ``name`` from character ``start`` that fits as a bold 8.5 pt title beside ``right``
    ("…" before it when ``start`` > 0, after it when the name goes on): the part that tells this panel from
    another whose name has the same end. Bisection, as :func:`_fit_name`."""
    room = width_pt - _text_width(right, 8) - 5.0
    lead = "…" if start > 0 else ""

    def piece(keep: int) -> str:
        return lead + name[start:start + keep] + ("…" if start + keep < len(name) else "")

    lo, hi = 1, len(name) - start
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if _text_width(piece(mid), 8.5, "bold") <= room:
            lo = mid
        else:
            hi = mid - 1
    return piece(lo), 8.5


def _text_width(text: str, size: float, weight: str = "normal") -> float:
    """Width of ``text`` in points at font ``size`` (measured from the glyphs; no renderer needed).

    Remembered per text, size, weight and the font files (and rcParams) that draw it, so a name a figure
    measures again (each panel's, each report's) is laid out once."""
    import matplotlib
    from matplotlib.font_manager import FontProperties, fontManager

    prop = FontProperties(size=size, weight=weight)
    files = tuple(str(f) for f in fontManager._find_fonts_by_props(prop))
    rc = matplotlib.rcParams
    return _glyph_width(text, float(prop.get_size_in_points()), weight, files, rc["text.hinting_factor"],
                        rc["text.kerning_factor"])


@functools.lru_cache(maxsize=4096)
def _glyph_width(text: str, size: float, weight: str, files: tuple[str, ...], hinting: Any,
                 kerning: Any) -> float:
    """:func:`_text_width` measured (its key: the font files and the rcParams that shape the glyphs)."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextToPath

    width, _, _ = TextToPath().get_text_width_height_descent(text, FontProperties(size=size, weight=weight),
                                                             ismath=False)
    return float(width)


def _fit_name(name: str, width_pt: float, right: str, prefix: str = "") -> tuple[str, float]:
    """``name`` and its font size as a bold panel title that fits beside ``right`` (8 pt) on a panel
    ``width_pt`` points wide, so a long name never runs into the panel's ECE: 10 pt, else down to
    8.5 pt, else (a name starting with ``prefix``) the name without the prefix at 10 … 8.5 pt, else
    shortened at 8.5 pt keeping its end ("…" in front), which tells the panels apart
    ("segment = web", "class fox"). Shortening "segment = <b>bold</b>" kept ">bold</b>", a name
    the slice does not have, where dropping "segment = " left the whole name."""
    room = width_pt - _text_width(right, 8) - 5.0
    for size in (10.0, 9.5, 9.0, 8.5):
        if _text_width(name, size, "bold") <= room:
            return name, size
    if prefix and name.startswith(prefix) and len(name) > len(prefix):
        name = name[len(prefix):]
        for size in (10.0, 9.5, 9.0, 8.5):
            if _text_width(name, size, "bold") <= room:
                return name, size
    # the longest end that fits (at least one character): a longer end is never narrower, so a bisection
    # finds it in ~log2(len) measurements (one character at a time took 4.5 s for a 300-character name)
    def fits(keep: int) -> bool:
        return _text_width("…" + name[-keep:], 8.5, "bold") <= room

    lo, hi = 1, len(name)  # fits(k) for every k <= lo where any fits; not for k > hi
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid - 1
    return "…" + name[-lo:].lstrip(), 8.5



def _marker_key(fig: Figure, table: ReliabilityTable, colors: tuple[str, str],
                key: tuple[str, str] = ("top-label bin", "one-vs-rest class bin"),
                title: str | None = None) -> None:
    """One legend for all panels: what the markers, bars, line and diagonal mean (``key``: what the
    first panel's and the other panels' bins are, when their colours differ), headed by ``title``."""
    from matplotlib.lines import Line2D

    color = colors[0]
    unit = "weight" if table.weighted else "count"
    handles = [
        Line2D([], [], linestyle=(0, (4, 3)), color=MUTED, label="perfect calibration"),
        Line2D([], [], marker="o", linestyle="", color=color, markeredgecolor="white",
               label=(f"bin (size grows with {unit})" if colors[0] == colors[1]
                      else f"{key[0]} (size grows with {unit})")),
        *([Line2D([], [], marker="o", linestyle="", color=colors[1], markeredgecolor="white",
                  label=key[1])] if colors[0] != colors[1] else []),
        Line2D([], [], marker="o", linestyle="", markerfacecolor="white", markeredgecolor=color,
               label=f"insufficient bin ({'effective ' if table.weighted else ''}n < {table.min_count})"),
        Line2D([], [], marker="|", linestyle="", color=color, markersize=10,
               label=interval_label(table)),
        Line2D([], [], color=color, label="line broken at empty / insufficient bins"),
    ]
    legend = fig.legend(handles=handles, loc="outside upper center", ncol=3, fontsize=8.5, frameon=False,
                        title=None if title is None else _plain(title),
                        title_fontproperties={"size": 11, "weight": "bold"})
    if title is not None:
        legend.get_title().set_color(INK)
