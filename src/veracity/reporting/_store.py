"""The report's "Over time" section: calibration per period from a monitoring store.

One figure (:func:`veracity.plotting._monitoring.store_figure`: observed rate with its
interval against mean confidence per period, alerts ringed; below it the labelled and
pending rows per period) and one table (counts, pending share, conf, rate, interval,
ECE, PSI, status, alerts and the diagnosis). Only the store's ``(all)`` rows are drawn;
slices are listed.
"""

from __future__ import annotations

from typing import Any

from ..plotting._monitoring import store_figure
from ._sections import _e, _num, _section, _svg, _table


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
