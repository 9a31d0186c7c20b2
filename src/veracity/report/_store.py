"""The report's "Over time" section: calibration per period from a monitoring store.

One figure (observed rate with its interval against mean confidence per period,
alerts ringed; below it the labelled and pending rows per period) and one table
(counts, pending share, conf, rate, interval, ECE, PSI, status, alerts and the
diagnosis). Only the store's ``(all)`` rows are drawn; slices are listed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ._sections import _e, _num, _section, _svg, _table

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure


def store_figure(status: Any, *, title: str | None = "Calibration over time", dpi: float = 100) -> Figure:
    """Rate vs confidence per period (top) and labelled / pending rows (bottom)."""
    from ._plots import INK, MUTED, PALETTE, _figure, _legend_above, _plain, _style

    rows = [r for r in status.rows if r.slice == "(all)"]
    fig = _figure((9.6, 5.6), dpi)
    top, bottom = fig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [2.3, 1], "hspace": 0.08})
    x = np.arange(len(rows))
    rate = np.array([r.rate for r in rows])
    conf = np.array([r.conf for r in rows])
    lo = np.array([r.ci_low for r in rows])
    hi = np.array([r.ci_high for r in rows])
    has = np.isfinite(rate)
    few = np.array([r.labelled < status.min_count for r in rows]) & has
    alert = np.array([bool(r.alerts) for r in rows])
    pct = f"{status.level * 100:g}%"
    top.errorbar(x[has], rate[has], yerr=np.vstack((np.maximum(rate - lo, 0)[has], np.maximum(hi - rate, 0)[has])),
                 fmt="none", ecolor=PALETTE[0], elinewidth=1.1, capsize=2.5, label=f"{pct} interval of the rate",
                 gid="intervals")
    top.plot(x[has], conf[has], color=INK, marker="_", markersize=12, linestyle="", label="mean confidence",
             gid="conf")
    ok = has & ~few
    top.scatter(x[ok], rate[ok], color=PALETTE[0], s=26, zorder=3, label="observed rate", gid="rate")
    if few.any():
        top.scatter(x[few], rate[few], facecolor="white", edgecolor=PALETTE[0], s=26, zorder=3,
                    label=f"fewer than {status.min_count} labelled (hollow)", gid="insufficient")
    if alert.any():
        y_alert = np.where(has, rate, np.where(np.isfinite(conf), conf, 0.0))
        top.scatter(x[alert], y_alert[alert], marker="o", s=120, facecolor="none", edgecolor=PALETTE[1],
                    linewidth=1.7, zorder=4, label="alert", gid="alerts")
    est = np.array([r.estimate.rate if (r.estimate is not None and r.labelled == 0) else np.nan for r in rows])
    if np.isfinite(est).any():
        top.scatter(x, est, marker="D", s=22, facecolor="white", edgecolor=MUTED, zorder=3,
                    label="expected rate of pending rows (label-free)", gid="estimate")
    _style(top)
    top.set_ylabel("probability")
    handles, names = top.get_legend_handles_labels()
    _legend_above(top, handles, names, ncol=3)
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
    bottom.set_xticks(x[::step], [_plain(r.period) for r in rows][::step], rotation=45 if len(rows) > 8 else 0,
                      ha="right" if len(rows) > 8 else "center")
    bottom.set_xlabel("period")
    if title:
        top.set_title(_plain(title), loc="left", fontsize=12, fontweight="bold", pad=9 + 12.5 * -(-len(names) // 3))
    return fig


def store_section(status: Any, *, source: str, plots: bool = True) -> str:
    """HTML of the "Over time" section for a :class:`~veracity.StoreStatus`."""
    fig = ""
    if plots and status.rows:
        fig = (f'<figure class="plot-box wide">'
               f'{_svg(store_figure(status), "store", "calibration over time from the monitoring store")}</figure>')
    headers = ["period"] + (["slice"] if status.by else []) + [
        "rows", "labelled", "pending", "conf", "rate", f"{status.level * 100:g}% CI", "ECE", "PSI", "status"]
    body, classes, items = [], [], []
    for r in status.rows:
        share = (r.pending + r.overdue) / r.rows if r.rows else 0.0
        badge = {"alert": "bad", "ok": "ok", "insufficient": "warn", "pending": "warn"}.get(r.status, "")
        notes = [_e(a) for a in r.alerts]
        if r.diagnosis:
            notes.append(f"<em>diagnosis: {_e(r.diagnosis)}</em>" + (f" — fix: <code>{_e(r.fix)}</code>"
                                                                      if r.fix else ""))
        if notes:
            tag = _e(r.period) + (f" [{_e(r.slice)}]" if status.by else "")
            items.append(f"<li><strong>{tag}</strong>: " + "<br>".join(notes) + "</li>")
        ci = f"[{_num(r.ci_low, 3)}, {_num(r.ci_high, 3)}]" if r.labelled else ""
        body.append([f'<span class="key">{_e(r.period)}</span>'] + ([_e(r.slice)] if status.by else []) + [
            f"{r.rows:,}", f"{r.labelled:,}", f"{r.pending + r.overdue:,} ({share:.0%})", _num(r.conf), _num(r.rate),
            ci, _num(r.ece), _num(r.psi, 3), f'<span class="badge {badge}">{_e(r.status)}</span>'])
        classes.append("thin" if r.status in ("empty", "insufficient") else "")
    table = _table(headers, body, cls="store", numeric="l" + ("l" if status.by else "") + "rrrrrlrrl",
                   row_classes=classes)
    if items:
        table += '<h3>Alerts</h3><ul class="store-alerts">' + "".join(items) + "</ul>"
    n_alerts = len(status.alerts)
    what = f"{status.freq and {'D': 'days', 'W': 'ISO weeks', 'M': 'months', 'Q': 'quarters'}[status.freq] or status.window + ' windows'}"
    lead = (f"From the monitoring store <code>{_e(source)}</code> as of {_e(status.as_of)} UTC, by {_e(what)}"
            + (f", labels final after {_e(status.horizon)}" if status.horizon else "")
            + f". Pending rows (grey) have no final label and are never counted as negatives. Alerts need at "
            f"least {status.min_count} labelled rows; each window runs three tests with a family-wise level of "
            f"{status.alert_level:g}. {n_alerts} window{'s' if n_alerts != 1 else ''} alerted.")
    return _section("over-time", "Over time", fig + table, lead)
