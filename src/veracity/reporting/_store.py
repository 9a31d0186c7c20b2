"""The report's "Over time" section: calibration per period from a monitoring store.

One figure (:func:`veracity.plotting._monitoring.store_figure`: observed rate with its
interval against mean confidence per period, alerts ringed; below it the labelled and
pending rows per period) and one table (counts, pending share, conf, rate, interval,
ECE, PSI, status, alerts and the diagnosis). Only the store's ``(all)`` rows are drawn;
slices are listed.
"""

from __future__ import annotations

import os
from typing import Any

from ..core._validation import VeracityError
from ..monitoring._sequence_alarms import SequenceAlarms
from ..monitoring._status_rows import conf_note, overdue_note, sequential_note, shown_conf
from ..plotting._monitoring import store_figure
from ._sections import _e, _num, _section, _svg, _table


def resolve_store(store: Any, *, bins: int = 15, level: float = 0.95,
                  ) -> tuple[Any, tuple[Any, Any] | None, str | None]:
    """``store=`` as given to ``vc.report``: (its status, the labelled (scores, labels) — None for a StoreStatus —, a name).

    A path (str or PathLike) or a :class:`~veracity.MonitorStore` is read: its status (``bins``
    as the report's, so the ECEs compare — ``bins="auto"``, a count that follows each table's rows, gives the
    status's 15 —, and its intervals at the report's ``level``) and its labelled rows; a
    :class:`~veracity.StoreStatus` is used as it is. Anything else, or a path that is not a
    store, is a one-line :class:`~veracity.VeracityError`.
    """
    from ..monitoring import MonitorStore

    if hasattr(store, "rows") and hasattr(store, "alerts") and hasattr(store, "as_of"):
        return store, None, None
    if isinstance(store, (str, os.PathLike)):
        path = os.fspath(store)
        if not path:
            raise VeracityError("store= is an empty path; pass the monitoring store's file, e.g. 'monitor.duckdb'",
                                param="store")
        if not os.path.exists(path):
            raise VeracityError(f"no monitoring store at {path}; pass the path of a store written by "
                                "`veracity monitor` (or vc.MonitorStore), or a StoreStatus", param="store")
        store = MonitorStore(path)
    if not isinstance(store, MonitorStore):
        raise VeracityError(f"store= takes a monitoring store's path, a MonitorStore or a StoreStatus; got "
                            f"{type(store).__name__}", param="store")
    from ..monitoring._recalibrate import labelled_rows

    try:
        status = store.status(bins=15 if isinstance(bins, str) else bins, level=level)
        scores, labels = labelled_rows(store)
    except VeracityError:
        raise
    except Exception as exc:  # a file DuckDB cannot read as a store: one line, never a traceback
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise VeracityError(f"cannot read the monitoring store {store.path}: {first}", param="store") from None
    return status, (scores, labels), str(store.path)


def store_section(status: Any, *, source: str, plots: bool = True) -> str:
    """HTML of the "Over time" section for a :class:`~veracity.StoreStatus`."""
    fig = ""
    if plots and status.rows:
        fig = (f'<figure class="plot-box wide">'
               f'{_svg(store_figure(status), "store", "calibration over time from the monitoring store")}</figure>')
    headers = ["period"] + (["slice"] if status.by else []) + [
        "rows", "labelled", "pending", "conf", "rate", f"{status.level * 100:g}% CI", "ECE", "PSI", "status"]
    body, classes, items = [], [], []
    starred = any(shown_conf(r)[1] for r in status.rows)
    for r in status.rows:
        share = (r.pending + r.overdue) / r.rows if r.rows else 0.0
        # "not tested" (sequential alerts: no window test ran) keeps the plain badge
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
            f"{r.rows:,}", f"{r.labelled:,}", f"{r.pending + r.overdue:,} ({share:.0%})",
            _conf_cell(r, starred), _num(r.rate), ci, _num(r.ece), _num(r.psi, 3),
            f'<span class="badge {badge}">{_e(r.status)}</span>'])
        classes.append("thin" if r.status in ("empty", "insufficient") else "")
    table = _table(headers, body, cls="store", numeric="l" + ("l" if status.by else "") + "rrrrrlrrl",
                   row_classes=classes)
    note = conf_note(status.rows)  # the status text's note on its conf column, the same words
    if note:
        table += f'<p class="note">{_e(note)}</p>'
    # the status text's note on overdue rows (past the horizon with no outcome), the same words: the report
    # listed a "prior shift" alert and its adjust_prior fix without the caveat that the window's missing
    # late outcomes alone can make that alert
    note = overdue_note(status.rows)
    if note:
        table += f'<p class="note overdue">{_e(note[0].upper() + note[1:])}.</p>'
    if items:
        table += '<h3>Alerts</h3><ul class="store-alerts">' + "".join(items) + "</ul>"
    # windows (a window may hold several alerts; with slices, several alerted rows)
    n_alerts = len({r.period for r in status.alert_rows})
    n_rows = len(status.alert_rows)
    what = f"{status.freq and {'D': 'days', 'W': 'ISO weeks', 'M': 'months', 'Q': 'quarters'}[status.freq] or status.window + ' windows'}"
    if status.alert_mode == "sequential":  # no window test runs: say what alerts, as the status text does
        note = sequential_note()
        tests = (f"{_e(note[0].upper() + note[1:])} (a calibrated slice alerts with probability at most "
                 f"{1 - status.alert_level:.2g}, however often it is read)."
                 + "".join(f" {_e(line)}." for line in SequenceAlarms(
                     status.sequence_alarms,
                     before_listing=getattr(status.sequence_alarms, "before_listing", ())).lines()))
    else:
        # the status text's words ("family-wise level of 0.99" read as a 99% chance of an alert)
        alpha = 1 - status.alert_level
        if status.by:  # every slice is a row with its own three tests: no correction across the slices
            per = (f"each row (a window's (all) or one slice) runs three tests at {alpha / 3:.2g} each, so a "
                   f"calibrated, stationary row alerts with probability at most {alpha:.2g}")
        else:
            per = (f"each window runs three tests at {alpha / 3:.2g} each, so a calibrated, stationary "
                   f"window alerts with probability at most {alpha:.2g}")
        tests = (f"Alerts need at least {status.min_count} labelled rows (calibration, slope) or rows (score "
                 f"shift); {per}.")
    lead = (f"From the monitoring store <code>{_e(source)}</code> as of {_e(status.as_of)} UTC, by {_e(what)}"
            + (f", labels final after {_e(status.horizon)}" if status.horizon else "")
            + f". Pending rows (grey) have no final label and are never counted as negatives. {tests} "
            f"{n_alerts} window{'s' if n_alerts != 1 else ''} alerted"
            + (f" ({n_rows} rows)" if n_rows != n_alerts else "") + ".")
    return _section("over-time", "Over time", fig + table, lead)


def _conf_cell(r: Any, starred: bool) -> str:
    """The conf cell: the status text's (:func:`~veracity.monitoring._status_rows.shown_conf`), starred
    where it is the mean score of a window with no final label yet; n/a only where there is no score.
    With a starred row in the table (``starred``) the others hold a hidden star, so the digits align."""
    value, star = shown_conf(r)
    return _num(value) + ("*" if star else '<span style="visibility:hidden">*</span>' if starred else "")
