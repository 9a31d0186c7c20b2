"""Monitoring figures: calibration by period (vc.monitor) and over time (a monitoring store).

Only the store's ``(all)`` rows are drawn; slices are listed in the report's table, and a window where a
slice alerts is marked (a triangle at the top of the upper panel).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ._style import INK, MUTED, PALETTE, _figure, _figure_of, _legend_above, _name, _plain, _style

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


def _monitor_figure(result: Any, *, title: str | None = "Calibration by period",
                    figsize: tuple[float, float] = (7.0, 4.2), dpi: float = 100,
                    ax: Axes | None = None) -> Figure:
    """Draw a :class:`~veracity.MonitorResult`: mean confidence vs observed rate (with interval) per period."""
    if ax is None:
        fig = _figure(figsize, dpi)
        ax = fig.subplots(1, 1)
    else:
        fig = _figure_of(ax)
    rows = result.rows
    x = np.arange(len(rows))
    rate = np.array([getattr(r, "rate", None) if hasattr(r, "rate") else r.base_rate for r in rows], dtype=float)
    lo = np.array([r.ci_low for r in rows])
    hi = np.array([r.ci_high for r in rows])
    conf = np.array([r.conf for r in rows])
    alert = np.array([r.status == "alert" or bool(getattr(r, "alerts", ())) for r in rows])
    few = np.array([r.status == "insufficient" for r in rows])
    pct = f"{result.level * 100:g}%"
    ax.errorbar(x, rate, yerr=np.vstack((np.maximum(rate - lo, 0), np.maximum(hi - rate, 0))), fmt="none",
                ecolor=PALETTE[0], elinewidth=1.1, capsize=2.5, label=f"{pct} interval of the rate", gid="intervals")
    ax.plot(x, conf, color=INK, marker="_", markersize=12, linestyle="", label="mean confidence", gid="conf")
    ok = ~few
    ax.scatter(x[ok], rate[ok], color=PALETTE[0], s=28, zorder=3, label="observed rate", gid="rate")
    if few.any():
        # with weights a period is insufficient by its effective labelled rows (the text's weighted note):
        # "< 30 labelled" stood beside a hollow period whose count read 45
        rows_ = "effective labelled rows" if getattr(result, "histogram_sizes", None) else "labelled"
        ax.scatter(x[few], rate[few], facecolor="white", edgecolor=PALETTE[0], s=28, zorder=3,
                   label=f"insufficient (< {result.min_count} {rows_}), hollow", gid="insufficient")
    if alert.any():
        ax.scatter(x[alert], rate[alert], marker="o", s=110, facecolor="none", edgecolor=PALETTE[1],
                   linewidth=1.6, zorder=4, label="alert: confidence outside the interval", gid="alerts")
    # each period's labelled rows above its interval, as the text table's "labelled" column counts them:
    # a wide interval reads as few labels at a glance (before, the figure had no count at all)
    counted = getattr(result, "_labelled", None)
    top = np.where(np.isfinite(hi), hi, rate)
    for xi, r, h in zip(x, rows, top):
        if np.isfinite(h):
            ax.annotate(counted(r) if counted else f"{r.n:,.0f}", (xi, h), xytext=(0, 3),
                        textcoords="offset points", ha="center", va="bottom", fontsize=7,
                        color=INK if r.status != "insufficient" else MUTED, gid="count_label")
    _no_rate_notes(ax, x, rows, rate)
    if rows:  # room above the highest interval for its count
        y_lo, y_hi = ax.get_ylim()
        ax.set_ylim(y_lo, y_hi + 0.06 * (y_hi - y_lo))
    _style(ax)
    names = [r.period if getattr(r, "slice", "(all)") in ("(all)", "", None) else f"{r.period} {r.slice}"
             for r in rows]
    ax.set_xticks(x, [_name(n) for n in names], rotation=45 if len(rows) > 8 else 0, ha="right"
                  if len(rows) > 8 else "center")
    ax.set_ylabel("probability")
    ax.set_xlabel("period")
    handles, names = ax.get_legend_handles_labels()
    if rows:  # what the numbers are
        from matplotlib.patches import Patch

        handles, names = [*handles, Patch(visible=False)], [*names, "numbers: labelled rows per period"]
    _legend_above(ax, handles, names)
    if title:
        ax.set_title(_plain(title), loc="left", fontsize=12, fontweight="bold",
                     pad=9 + 12.5 * -(-len(names) // 2))
    return fig


def _no_rate_notes(ax: Axes, x: np.ndarray, rows: list[Any], rate: np.ndarray) -> None:
    """A period with no rate (every row pending, or labelled rows that all weigh 0) says why, upright at its
    place on the axis: before, its slot was left blank, though the printout reads "0 labelled, 614
    pending" (a week whose labels have not arrived looked like a week with no data)."""
    from matplotlib.transforms import blended_transform_factory

    if np.isfinite(rate).all():
        return
    # every period keeps its slot (an edge period's note was cut by the axis), and a figure with no rate
    # at all keeps the probability scale, not matplotlib's empty -0.05 … 0.05
    ax.set_xlim(-0.5, len(rows) - 0.5)
    if not np.isfinite(rate).any():
        ax.set_ylim(0.0, 1.0)
    where = blended_transform_factory(ax.transData, ax.transAxes)
    for xi, r, v in zip(x, rows, rate):
        if np.isfinite(v):
            continue
        waiting = int(getattr(r, "pending", 0) or 0)
        text = (f"no label yet ({waiting:,} pending)" if r.status == "pending"
                else "no rate: its labelled rows weigh 0")
        ax.text(xi, 0.03, text, transform=where, rotation=90, ha="center", va="bottom", fontsize=7,
                color=MUTED, gid="no_rate")


def alert_band(status: Any, rows: list[Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(low, high, point)`` per row on the scale rate − mean score: the band the row's calibration
    alert reads and the value it compares with it.

    ``alerts="window"``: the count test's acceptance region — realised positives inside the
    scores' promise ``[expected_low, expected_high]`` (whole numbers, ``count_interval`` at the
    alert level) — divided by the labelled rows and centred on the window's gap; the point is rate − conf.
    ``alerts="sequential"``: the anytime-valid bounds ``[sequence_low, sequence_high]``; the
    point is 0 (the alarm fires when the bounds leave 0, or ±tolerance). NaN where no test ran.
    """
    nan = float("nan")
    low, high, point = (np.full(len(rows), nan) for _ in range(3))
    for i, r in enumerate(rows):
        if status.alert_mode == "sequential":
            if r.sequence_low is not None:
                low[i], high[i], point[i] = r.sequence_low, r.sequence_high, 0.0
        elif r.labelled >= status.min_count and "expected_low" in r.details:
            e = r.expected_positives
            low[i] = (r.details["expected_low"] - e) / r.labelled
            high[i] = (r.details["expected_high"] - e) / r.labelled
            point[i] = (r.realised_positives - e) / r.labelled
    return low, high, point


def store_figure(status: Any, *, title: str | None = "Calibration over time", dpi: float = 100) -> Figure:
    """Rate vs confidence per period (top), the band the alert uses (middle), labelled / pending rows
    (bottom), for the ``(all)`` rows; a window where some slice alerts is marked with a triangle on top."""
    rows = [r for r in status.rows if r.slice == "(all)"]
    fig = _figure((9.6, 7.4), dpi)
    top, mid, bottom = fig.subplots(3, 1, sharex=True,
                                    gridspec_kw={"height_ratios": [2.3, 1.3, 1], "hspace": 0.08})
    x = np.arange(len(rows))
    rate = np.array([r.rate for r in rows])
    conf = np.array([r.conf for r in rows])
    lo = np.array([r.ci_low for r in rows])
    hi = np.array([r.ci_high for r in rows])
    has = np.isfinite(rate)
    few = np.array([r.labelled < status.min_count for r in rows]) & has
    alert = np.array([bool(r.alerts) for r in rows])
    pct = f"{status.level * 100:g}%"
    # no window with a final label (every row pending): no rate, interval or labelled rows' mean score drawn,
    # and none keyed (the legend listed three marks the panel did not hold)
    keyed = "" if has.any() else "_"  # "_": a label matplotlib keeps out of the legend
    top.errorbar(x[has], rate[has], yerr=np.vstack((np.maximum(rate - lo, 0)[has], np.maximum(hi - rate, 0)[has])),
                 fmt="none", ecolor=PALETTE[0], elinewidth=1.1, capsize=2.5,
                 label=f"{keyed}{pct} interval of the rate", gid="intervals")
    top.plot(x[has], conf[has], color=INK, marker="_", markersize=12, linestyle="",
             label=f"{keyed}mean score (labelled rows)", gid="conf")
    ok = has & ~few
    top.scatter(x[ok], rate[ok], color=PALETTE[0], s=26, zorder=3,
                label=f"{'' if ok.any() else '_'}observed rate", gid="rate")
    if few.any():
        top.scatter(x[few], rate[few], facecolor="white", edgecolor=PALETTE[0], s=26, zorder=3,
                    label=f"fewer than {status.min_count} labelled (hollow)", gid="insufficient")
    if alert.any():
        # where the alert is: the rate; before final labels, the PPI estimate, else the label-free expectation
        ppi_mid = np.array([(getattr(r, "estimate_ppi", None) or {}).get("estimate", np.nan) if _ppi_valid(r)
                            else np.nan for r in rows], dtype=float)
        expected = np.array([np.nan if r.estimate is None else r.estimate.rate for r in rows], dtype=float)
        on_ppi = ~has & np.isfinite(ppi_mid) & np.array([r.labelled < r.rows for r in rows], dtype=bool)
        y_alert = np.where(has, rate, np.where(np.isfinite(ppi_mid), ppi_mid, expected))
        x_alert = x + np.where(on_ppi, 0.18, 0.0)  # ringed where its PPI square is drawn, beside the tick
        ringed = alert & np.isfinite(y_alert)
        top.scatter(x_alert[ringed], y_alert[ringed], marker="o", s=120, facecolor="none", edgecolor=PALETTE[1],
                    linewidth=1.7, zorder=4, label="alert", gid="alerts")
    # a slice's alert: only the (all) rows are drawn, so a window where some slice (and not necessarily
    # (all)) alerts is marked at the top of the panel, else a slice's alert would leave the figure silent
    sliced = {r.period for r in status.rows if r.slice != "(all)" and r.alerts}
    in_slice = np.array([r.period in sliced for r in rows], dtype=bool)
    if in_slice.any():
        top.scatter(x[in_slice], np.full(int(in_slice.sum()), 0.96), transform=top.get_xaxis_transform(),
                    marker="v", s=46, color=PALETTE[1], zorder=4, clip_on=False,
                    label="a slice alerts (see the status)", gid="slice-alerts")
    # the label-free (CBPE) estimate, where it stands: not after a diagnosed prior shift (withdrawn), nor
    # while the latest judged window's final labels found the scores miscalibrated (its caveat: the note
    # under the figure says so)
    cbpe = [getattr(r, "estimate_cbpe", None) or {} for r in rows]
    est = np.array([r.estimate.rate if (r.estimate is not None and r.labelled == 0 and not c.get("withdrawn")
                                        and not c.get("caveat")) else np.nan for r, c in zip(rows, cbpe)])
    caveated = [r.period for r, c in zip(rows, cbpe) if r.estimate is not None and r.labelled == 0
                and not c.get("withdrawn") and c.get("caveat")]
    if np.isfinite(est).any():
        top.scatter(x, est, marker="D", s=22, facecolor="white", edgecolor=MUTED, zorder=3,
                    label="expected rate of pending rows (label-free)", gid="estimate")
    # prediction-powered estimates (random audit labels + every score): valid before labels are final
    # not where the audit labels failed the random-sample check (the status's NOT VALID note): the legend
    # says so
    ppi = [getattr(r, "estimate_ppi", None) if r.labelled < r.rows and _ppi_valid(r) else None for r in rows]
    has_ppi = np.array([e is not None for e in ppi])
    voided = [r.period for r in rows if r.labelled < r.rows and getattr(r, "estimate_ppi", None)
              and not _ppi_valid(r)]
    if has_ppi.any():
        e_mid = np.array([e["estimate"] if e else np.nan for e in ppi])
        e_lo = np.array([e["ci_low"] if e else np.nan for e in ppi])
        e_hi = np.array([e["ci_high"] if e else np.nan for e in ppi])
        xs = x[has_ppi] + 0.18
        top.errorbar(xs, e_mid[has_ppi], yerr=np.vstack((e_mid - e_lo, e_hi - e_mid))[:, has_ppi], fmt="s",
                     color=PALETTE[2], markersize=4.5, elinewidth=1.1, capsize=2.5, zorder=3,
                     label=f"PPI estimate before labels are final ({pct})", gid="ppi")
    # the scores' promise for the rows without a final label: the mean score of all the window's rows (the
    # status table's starred conf), beside the PPI estimate of the same rows, else where the rate would be
    mean_all = np.array([getattr(r, "mean_score", np.nan) for r in rows], dtype=float)
    waiting_all = np.array([r.rows > 0 and r.labelled < r.rows for r in rows])
    beside = waiting_all & (has_ppi | ~has) & np.isfinite(mean_all)
    if beside.any():
        top.plot(x[beside] + np.where(has_ppi[beside], 0.18, 0.0), mean_all[beside], color=INK, marker="_",
                 markersize=9, markeredgewidth=2.2, linestyle="",
                 label="mean score of all rows (not all labelled)", gid="mean-score")
    _style(top)
    top.set_ylabel("probability")
    handles, names = top.get_legend_handles_labels()
    _legend_above(top, handles, names, ncol=3)
    # what is not drawn, and why: under the figure (in the legend's thirds, a line this long ran over its
    # neighbours)
    notes = []
    if voided:
        notes.append(f"no PPI drawn for {_periods_text(voided)}: its audit labels are not a random sample")
    if caveated:
        notes.append(f"no label-free expectation drawn for {_periods_text(caveated)}: final labels found the "
                     "scores miscalibrated")
    if notes:
        fig.supxlabel("\n".join(notes), x=0.01, ha="left", fontsize=8, color=MUTED)
    # the band each alert reads (the same numbers), and what it is compared with
    b_lo, b_hi, point = alert_band(status, rows)
    tested = np.isfinite(b_lo)
    tol = float(getattr(status, "tolerance", 0.0) or 0.0)
    if status.alert_mode == "sequential":
        what = f"anytime-valid bounds on mean(y - p) (alert when they leave {'0' if not tol else f'+-{tol:g}'})"
    else:
        what = "scores' promise at the alert level (alert when the gap leaves it)"
    if tested.any():
        mid.bar(x[tested], (b_hi - b_lo)[tested], bottom=b_lo[tested], width=0.6, color=PALETTE[0], alpha=0.25,
                label=what, gid="band")
    mid.axhline(0.0, color=INK, linewidth=0.8, gid="zero")
    if status.alert_mode == "sequential" and tol:
        for sign in (-1, 1):
            mid.axhline(sign * tol, color=MUTED, linewidth=0.8, linestyle="--", gid="tolerance")
    gap = np.array([r.rate - r.conf for r in rows])
    shown = np.isfinite(gap) & (tested if status.alert_mode == "window" else np.isfinite(gap))
    mid.scatter(x[shown], gap[shown], color=PALETTE[0], s=18, zorder=3, label="rate - conf of the window",
                gid="gap")
    # before the labels are final: the PPI rate minus the mean score of the same rows, with its interval
    g_ppi = [getattr(r, "gap_ppi", None) if r.labelled < r.rows and getattr(r, "estimate_ppi", None)
             and _ppi_valid(r) else None for r in rows]
    g_mid, g_lo, g_hi = (np.array([np.nan if not g or g[k] is None else g[k] for g in g_ppi], dtype=float)
                         for k in ("estimate", "ci_low", "ci_high"))
    has_gap = np.isfinite(g_mid) & np.isfinite(g_lo) & np.isfinite(g_hi)
    if has_gap.any():
        mid.errorbar(x[has_gap] + 0.18, g_mid[has_gap],
                     yerr=np.vstack((g_mid - g_lo, g_hi - g_mid))[:, has_gap], fmt="s", color=PALETTE[2],
                     markersize=4, elinewidth=1.1, capsize=2.5, zorder=3,
                     label=f"PPI rate - mean score ({pct})", gid="ppi-gap")
    # ringed here: the alerts that read this band (a calibration alert; sequential: the overall sequence's),
    # never a slope or score-shift alert (or a score bin's sequence), whose gap may sit inside the band
    reads_band = np.array([any(a.kind == "calibration" if status.alert_mode == "window"
                               else str(a).startswith("sequential: mean") for a in r.alerts) for r in rows],
                          dtype=bool) & tested
    if reads_band.any():
        centre = (b_lo + b_hi) / 2
        y_mark = np.where(np.isfinite(gap), gap, centre) if status.alert_mode == "window" else centre
        mid.scatter(x[reads_band], y_mark[reads_band], marker="o", s=120, facecolor="none",
                    edgecolor=PALETTE[1], linewidth=1.7, zorder=4, gid="band-alerts")
    span = np.concatenate([b_lo[tested], b_hi[tested], gap[shown], g_lo[has_gap], g_hi[has_gap]])
    span = span[np.isfinite(span) & (np.abs(span) < 1)]
    if span.size:
        pad = max(float(np.abs(span).max()), 0.01) * 1.15
        mid.set_ylim(-pad, pad * 1.7)  # headroom for the legend
    _style(mid)
    mid.set_ylabel("rate - score")
    mid.legend(loc="upper left", frameon=False, fontsize=8.5, ncol=2)
    labelled = np.array([r.labelled for r in rows], dtype=float)
    waiting = np.array([r.pending + r.overdue for r in rows], dtype=float)
    bottom.bar(x, labelled, color=PALETTE[0], alpha=0.75, label="labelled", gid="labelled")
    bottom.bar(x, waiting, bottom=labelled, color=MUTED, alpha=0.55, label="pending", gid="pending")
    _style(bottom)
    bottom.set_ylabel("rows")
    top_rows = float(max((labelled + waiting).max(), 1.0))
    bottom.set_ylim(0, top_rows * 1.45)
    bottom.legend(loc="upper left", frameon=False, fontsize=9, ncol=2)
    step = max(1, len(rows) // 26)
    bottom.set_xticks(x[::step], [_name(r.period) for r in rows][::step], rotation=45 if len(rows) > 8 else 0,
                      ha="right" if len(rows) > 8 else "center")
    bottom.set_xlabel("period")
    if title:
        top.set_title(_plain(title), loc="left", fontsize=12, fontweight="bold", pad=9 + 12.5 * -(-len(names) // 3))
    return fig


def _ppi_valid(r: Any) -> bool:
    """Whether a status row's PPI estimate stands: not where its audit labels failed the random-sample
    check (``details["ppi_note"]`` leads with NOT VALID; the text says so, and the figure drew the biased
    estimate)."""
    return not str((getattr(r, "details", None) or {}).get("ppi_note") or "").startswith("NOT VALID")


def _periods_text(periods: list[str]) -> str:
    """``2026-W10``, ``2026-W10, 2026-W11`` or ``2026-W10 and 3 more``: the legend stays one line."""
    return ", ".join(periods) if len(periods) <= 2 else f"{periods[0]} and {len(periods) - 1} more"
