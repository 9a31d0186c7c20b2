"""The result of a store's status: :class:`StatusRow` (one period and slice) and
:class:`StoreStatus` (the table, its text, JSON and HTML); see :mod:`veracity.monitoring._status`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypedDict

from ..core._display import Display
from ..core._stats import BinStats
from ..core._text import count_noun, fmt, render_table
from ..delayed._audit import MIN_LABELS
from ..delayed._ppi_result import NOT_CALIBRATED
from ._alerts import Alert
from ._estimate import Estimate
from ._sequence_alarms import ALL, STAYS, SequenceAlarms, bounds_text
from ._time import FREQ_NAMES

CELLS = 1200  # logit cells of width 0.02 over [-12, 12]
CELL_SPAN = 12.0
REF_ROWS_FACTOR = 10  # default reference: at least 10 * min_count rows, pooled
#: a bin's PPI rate is marked insufficient below this many audit labels: vc.ppi_audit's bins' constant
MIN_PPI_LABELS = MIN_LABELS
#: the most periods a status lists unless told otherwise (``max_periods``)
MAX_PERIODS = 1000
#: the slice that holds the rows of slices beyond ``max_slices``
OTHER = "(other)"


def _ppi_cell(ppi: dict[str, Any] | None) -> str:
    """A bin's PPI rate as printed: the estimate cut to [0, 1] (a rate's range; the stored estimate is
    PPI's own, which may leave it) with its Wilson interval (vc.ppi_audit's bins'), or n/a with the count
    under :data:`MIN_PPI_LABELS` audit labels."""
    if ppi is None:
        return ""
    if not ppi["sufficient"]:
        return f"n/a ({ppi['labels']} audit labels, too few)"
    low, high = max(0.0, ppi["ci_low"]), min(1.0, ppi["ci_high"])
    estimate = min(1.0, max(0.0, ppi["estimate"]))
    return f"{fmt(estimate)} [{fmt(low, 3)}, {fmt(high, 3)}] ({ppi['labels']})"


@dataclass(frozen=True, repr=False)
class StatusRow(Display):
    """One period (and slice) of a store's status; ``to_dict`` is the ``--json`` row."""

    period: str
    start: str
    end: str
    slice: str
    rows: int
    labelled: int
    pending: int
    overdue: int
    conf: float
    rate: float
    ci_low: float
    ci_high: float
    ece: float
    brier: float
    nll: float
    citl: float
    slope: float
    slope_p: float
    psi: float
    shift_p: float
    status: str
    #: the row's alerts, each an :class:`Alert` (its sentence, with ``period``, ``slice``, ``kind``)
    alerts: tuple[Alert, ...]
    diagnosis: str | None
    fix: str | None
    expected_positives: float
    realised_positives: float
    estimate: Estimate | None
    details: dict[str, Any] = field(default_factory=dict)
    #: PPI++ estimate of the window's rate from its random audit labels and all its scores
    #: (``{"estimate", "ci_low", "ci_high", "lam", "labels"}``), None without >= 2 audit labels
    estimate_ppi: dict[str, Any] | None = None
    #: the label-free (CBPE) estimate of the rate, valid only if the scores are calibrated;
    #: ``{"estimate": None, "withdrawn": reason}`` after a diagnosed prior shift
    estimate_cbpe: dict[str, Any] | None = None
    #: early evidence while labels are not final: ``{"basis": "ppi" | "partial labels", ...}``
    provisional: dict[str, Any] | None = None
    #: anytime-valid bounds on mean(y - p) of the final labels up to this window's end (at alpha / 2,
    #: alpha = 1 - alert_level: the other half is shared by the score bins' sequences, see ``bins``)
    sequence_low: float | None = None
    sequence_high: float | None = None
    #: with ``segments=True``: the window's discovered miscalibrated segments over the logged slice
    #: columns (``vc.segments``), most important first: ``segment, n, conf, rate, gap, ci_low, ci_high,
    #: q_value`` each
    segments: list[dict[str, Any]] | None = None
    #: per score bin (the status's equal-width ``bins``, all of them, in order): ``bin`` (its range),
    #: ``lo``, ``hi``, ``rows``, ``conf`` (mean score of all its rows), ``labelled``, ``rate``,
    #: ``ci_low``, ``ci_high`` (final labels, Wilson), ``estimate_ppi`` (the bin's PPI++ rate from its
    #: random audit labels and all its scores: ``{"estimate", "ci_low", "ci_high", "lam", "labels", "note"}``
    #: — ``note`` the flat-scores reason where ``lam`` is 0 because the bin's scores are one value, else
    #: None — and ``sufficient`` — at least 30 audit labels, below which its normal interval is not to be trusted;
    #: None without >= 2 audit labels in the bin), ``sequence_low``/``sequence_high`` (anytime-valid
    #: bounds on mean(y - p) of the bin's final labels up to the window's end, at alpha / (2 bins);
    #: None before any), ``sequence_labels`` and ``alert`` (those bounds exclude 0, or +-tolerance)
    bins: list[dict[str, Any]] | None = None
    #: PPI++ of the confusion and cost *per row* at the deployed ``threshold`` (flag when score >=
    #: threshold) from the window's random audit labels and all its scores: ``{"threshold", "cost_fp",
    #: "cost_fn", "labels", "tp", "fp", "fn", "tn", "cost"}``, each quantity ``{"estimate", "ci_low",
    #: "ci_high"}`` (multiply by ``rows`` for counts); None without >= 2 audit labels
    confusion_ppi: dict[str, Any] | None = None
    #: the mean score of all the window's rows, labelled or not (the scores' promise for the rows the PPI
    #: rate covers; ``conf`` is the mean score of the labelled rows only, those ``rate`` reads); NaN if empty
    mean_score: float = float("nan")
    #: the PPI rate minus ``mean_score``, ``{"estimate", "ci_low", "ci_high"}``: the PPI interval shifted by
    #: the mean score, which is known exactly (every row's score is logged), so it excludes 0 exactly when
    #: the PPI interval excludes the mean score; None without a PPI estimate.
    gap_ppi: dict[str, Any] | None = None
    #: the audit labels' own gap rate - score, mean(y - p) over the random audit labels (vc.ppi_mean's
    #: ``rectifier``, vc.ppi_audit's ``rate - score`` row), ``{"estimate", "ci_low", "ci_high"}``: the gap
    #: the "not calibrated" note judges; None without a PPI estimate. ``estimate_ppi["rate_minus_score"]``
    #: is the same dict under its earlier name. The ``gap_*`` keys are each a rate minus the mean score of
    #: the same rows: ``gap`` of the final labels, ``gap_audit`` of the audit labels, ``gap_ppi`` of all rows.
    gap_audit: dict[str, Any] | None = None

    @property
    def gap(self) -> float:
        return self.rate - self.conf

    def to_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in self.__dict__.items() if k not in ("estimate", "details")}
        out["alerts"] = [str(a) for a in self.alerts]
        out["gap"] = self.gap
        out["estimate"] = None if self.estimate is None else self.estimate.to_dict()
        withdrawn = (self.estimate_cbpe or {}).get("withdrawn")
        if out["estimate"] is not None and withdrawn:  # as the text and the figure: no longer a forecast
            out["estimate"]["withdrawn"] = withdrawn
        caveat = (self.estimate_cbpe or {}).get("caveat")
        if out["estimate"] is not None and caveat:  # the final labels rejected the estimate's assumption
            out["estimate"]["caveat"] = caveat
        out.update(self.details)
        return out


class _Settings(TypedDict):
    """The settings a :class:`StoreStatus` carries besides its rows (its keyword arguments)."""

    as_of: str
    freq: str | None
    window: str | None
    horizon: str | None
    by: str | None
    level: float
    alert_level: float
    min_count: int
    threshold: float
    bins: int
    pooled: int
    alert_mode: str
    tolerance: float


@dataclass(frozen=True, eq=False, repr=False)
class StoreStatus(Display):
    """Status of a store: ``rows`` per period (and slice), with the settings that produced them."""

    rows: tuple[StatusRow, ...]
    as_of: str
    freq: str | None
    window: str | None
    horizon: str | None
    by: str | None
    reference: str | None
    level: float
    alert_level: float
    min_count: int
    threshold: float
    bins: int
    stats: dict[tuple[str, str], BinStats] = field(default_factory=dict)
    #: slices summed into "(other)" because the slice column had more than ``max_slices`` values
    pooled: int = 0
    #: "window" (a fixed-sample test per window) or "sequential" (anytime-valid confidence sequences)
    alert_mode: str = "window"
    #: per slice: the first day the confidence sequence left the calibrated region (sequential mode); a
    #: :class:`~veracity.monitoring._sequence_alarms.SequenceAlarms`, a dict with a readable repr
    sequence_alarms: dict[str, Any] = field(default_factory=lambda: SequenceAlarms(sequential=False))
    #: with sequential alerts: a gap |mean(y - p)| this small counts as calibrated
    tolerance: float = 0.0
    #: with ``since=``/``last=``: where the listing begins (the period key or the UTC time), None when every
    #: period is listed; ``last`` the N of ``last=N``; ``left_out`` the earlier periods not listed and
    #: ``left_out_alerts`` their alerts (not in ``rows``, so not in ``alerts``); ``left_out_alarms`` the
    #: sequence alarms no listed row alerts on any more (not in ``sequence_alarms``)
    since: str | None = None
    last: int | None = None
    left_out: int = 0
    left_out_alerts: int = 0
    left_out_alarms: int = 0
    #: with ``since=``/``last=``: when no period is listed although earlier ones hold predictions, the time
    #: (UTC) of the latest prediction at or before the as-of time (a logging job that stopped), else None
    latest_unlisted: str | None = None

    @property
    def alerts(self) -> tuple[Alert, ...]:
        """Every alert of every row, in row order: the same :class:`Alert` type as ``row.alerts``."""
        return tuple(Alert(a, period=r.period, slice=r.slice, row=r) for r in self.rows for a in r.alerts)

    @property
    def alert_rows(self) -> list[StatusRow]:
        """The rows (period and slice) with at least one alert."""
        return [r for r in self.rows if r.alerts]

    def _repr_html_(self) -> str:
        """The notebook view: the verdict first, a dozen columns a person reads, the rest in the text."""
        from ..core._display import html_kv, html_page, html_table

        def ppi(r: StatusRow) -> str:
            # shown while the window has rows without a final label; the estimate is the rate of all the
            # window's rows (vc.ppi_mean is the mean over the rows whose scores it is given: all of them,
            # as the audit sample is drawn from all of them), the same rows as "mean score (all rows)"
            e = r.estimate_ppi if _not_final(r) else None
            return "" if not e else f"{e['estimate']:.4f} [{e['ci_low']:.3f}, {e['ci_high']:.3f}]"

        # the verdict first (status, the kind of each alert and diagnosis: their full sentences are in the
        # text below the table), then the numbers behind it
        records = [{
            "status": r.status, "period": r.period, **({"slice": r.slice} if self.by is not None else {}),
            "alerts": ", ".join(dict.fromkeys(a.kind for a in r.alerts)),
            "diagnosis": (r.diagnosis or "").split(":")[0],
            "rows": r.rows, "labelled": r.labelled, "pending": r.pending + r.overdue, "conf": r.conf,
            "rate": r.rate, "ci_low": r.ci_low, "ci_high": r.ci_high, "ece": r.ece, "psi": r.psi,
            "PPI rate (all rows)": ppi(r),
            # what the PPI rate is compared with: the mean score of the same rows (all the window's)
            "mean score (all rows)": r.mean_score if _not_final(r) else ""} for r in self.rows]
        what = f"{FREQ_NAMES[self.freq]}s" if self.freq else f"{self.window} windows"
        pct = f"{self.level * 100:g}% CI"
        # the intervals' level and PSI's reference window, as the text's header and table say them
        summary = {"as of (UTC)": self.as_of, "periods": what, "horizon": self.horizon or "none",
                   "intervals": pct, **({"PSI": f"against {self.reference}"} if self.reference else {}),
                   "alerts": len(self.alerts), "alert mode": self.alert_mode,
                   **({"listed": self._cut_note()} if self.since is not None else {})}
        # every column: the verdict (alerts, diagnosis) is the point of the view, never folded away
        rename = {"ci_low": pct, "psi": "PSI", "PPI rate (all rows)": f"PPI rate (all rows), {pct}",
                  "conf": "conf (labelled rows)"}
        table = html_table(records, wide=True, rename=rename) if records else ""
        page = html_page("Calibration over time", [html_kv(summary), table], str(self))
        shown = self._bins_rows()
        if not shown:
            return page
        from ..core._display import html_note, html_section

        parts = []
        for r in shown:
            cells = [{
                "lo": b["lo"], "hi": b["hi"], "rows": b["rows"], "conf": b["conf"], "labelled": b["labelled"],
                # NaN for a bin without a final label: n/a in a numbers' column, as the weekly table's rate
                "rate": float("nan") if b["rate"] is None else b["rate"],
                "PPI rate": _ppi_cell(b["estimate_ppi"]),
                "bounds on rate - score (final labels so far)": "" if b["sequence_low"] is None else
                bounds_text(b["sequence_low"], b["sequence_high"]),
                "alert": "ALERT" if b["alert"] and self.alert_mode == "sequential" else ""}
                for b in r.bins or [] if b["rows"]]
            tag = r.period + (f" [{r.slice}]" if self.by is not None else "")
            # the window's rows, but the bounds read every final label of the bin up to its end (the last
            # window's rows often have none yet): said in the note, as the text's header says it
            parts.append(html_section(f"Per score bin, {tag}",
                                      html_table(cells) + html_note(self._bins_note())))
        # the sections go before the closed text block
        cut = page.rfind("<details><summary>as text")
        return page[:cut] + "".join(parts) + page[cut:] if cut >= 0 else page + "".join(parts)

    def _bins_rows(self) -> list[StatusRow]:
        """The rows whose per-bin table is shown: the latest window holding rows, every cohort; only with
        sequential alerts (the bins' bounds are alarms) or an audit sample there (the bins' PPI rates)."""
        latest = [r for r in self.rows if r.rows and r.bins]
        if not latest:
            return []
        rows = [r for r in latest if r.period == latest[-1].period]
        if self.alert_mode != "sequential" and not any(b["estimate_ppi"] for r in rows for b in r.bins or []):
            return []
        return rows

    def _bins_note(self) -> str:
        """What each column of the per-bin table reads (the text's header and the notebook's note)."""
        return (f"rate: final labels; PPI rate: the bin's audit labels with all its scores, "
                f"{self.level * 100:g}% Wilson CI, Garwood's exact end below 10 events (audit labels; n/a under "
                f"{MIN_PPI_LABELS}); bounds: "
                "anytime-valid on mean(y - p) of the bin's final labels so far, every window up to this "
                "one's end")

    def _bins_text(self, show_slice: bool) -> list[str]:
        """Per score bin of the latest window holding rows, for each cohort: the final labels' rate,
        the PPI rate from the audit labels, and the bin's anytime-valid bounds."""
        out = []
        for r in self._bins_rows():
            body = []
            for b in r.bins or []:
                if not b["rows"]:
                    continue
                ppi = b["estimate_ppi"]
                body.append([b["bin"], f"{b['rows']:,}", fmt(b["conf"]), f"{b['labelled']:,}",
                             # no final label in the bin: n/a, as the weekly table prints a window's rate
                             "n/a" if b["rate"] is None else fmt(b["rate"]),
                             _ppi_cell(ppi),
                             "" if b["sequence_low"] is None
                             else bounds_text(b["sequence_low"], b["sequence_high"]),
                             "ALERT" if b["alert"] and self.alert_mode == "sequential" else ""])
            if not body:
                continue
            tag = r.period + (f" [{r.slice}]" if show_slice else "")
            out.append(f"per score bin, {tag} ({self._bins_note()}):")
            out.append(render_table(["scores", "rows", "conf", "labelled", "rate", "PPI rate", "bounds", ""], body,
                                    align="lrrrrlll"))
        return out

    def _estimate_lines(self, pend: list[StatusRow], show_slice: bool) -> list[str]:
        """The label-free estimates, one line per window and slice; a run of consecutive windows of one slice
        that read the same (a withdrawn estimate: the same reason from the diagnosed shift on) is one line
        naming its first and last window (``2026-W08..2026-W11``, as ``reference=`` names a run)."""
        order = {p: i for i, p in enumerate(dict.fromkeys(r.period for r in self.rows))}
        runs: list[list[Any]] = []  # [first row, last row, text]
        last: dict[str, list[Any]] = {}  # slice -> its open run
        for r in pend:
            withdrawn = (r.estimate_cbpe or {}).get("withdrawn")
            caveat = (r.estimate_cbpe or {}).get("caveat")
            text = (f"withdrawn: {withdrawn}" if withdrawn
                    else str(r.estimate) + (f" ({caveat})" if caveat else ""))
            run = last.get(r.slice)
            # only a withdrawn estimate joins a run: two windows whose estimates read the same each hold
            # their own pending rows ("2026-01..2026-02: 1 pending" read as one row in two months)
            if (withdrawn and run is not None and run[2] == text
                    and order[run[1].period] + 1 == order[r.period]):
                run[1] = r
                continue
            last[r.slice] = run = [r, r, text]
            runs.append(run)
        out = []
        for first, end, text in runs:
            span = first.period if end is first else f"{first.period}..{end.period}"
            out.append(span + (f" [{first.slice}]" if show_slice else "") + f": {text}")
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "as_of": self.as_of, "freq": self.freq, "window": self.window, "horizon": self.horizon,
            "by": self.by, "reference": self.reference, "level": self.level,
            "alert_level": self.alert_level, "min_count": self.min_count,
            "threshold": self.threshold, "bins": self.bins, "pooled_slices": self.pooled,
            "alert_mode": self.alert_mode, "tolerance": self.tolerance,
            "sequence_alarms": {name: dict(alarm) for name, alarm in self.sequence_alarms.items()},
            "alerts": len(self.alerts), "alert_rows": len(self.alert_rows),
            # only when the listing was cut, so that the full listing's JSON stays as it was
            **({"since": self.since, "last": self.last, "periods_left_out": self.left_out,
                "alerts_left_out": self.left_out_alerts} if self.since is not None else {}),
            **({"sequence_alarms_left_out": self.left_out_alarms,
                "sequence_alarms_before_listing": sorted(getattr(self.sequence_alarms, "before_listing", ()))}
               if self.since is not None and self.alert_mode == "sequential" else {}),
            "periods": [r.to_dict() for r in self.rows],
        }

    def _cut_note(self) -> str | None:
        """What ``since=``/``last=`` left out, or None when every period is listed."""
        if self.since is None:
            return None
        noun = FREQ_NAMES[self.freq] if self.freq else f"{self.window} window"
        how = (f"the last {count_noun(self.last, noun)} up to the as-of time (--last {self.last}), from "
               f"{self.since}" if self.last is not None else f"{noun}s from {self.since} on (--since)")
        n = self.left_out_alarms  # with sequential alerts: the alarms no listed row alerts on any more
        alarms = (f", as {'is' if n == 1 else 'are'} {count_noun(n, 'sequence alarm')} that no listed {noun} "
                  "still alerts on" if n else "")
        silent = (f"; no prediction since {self.latest_unlisted} UTC, the latest stored: if the model still "
                  "scores, the job that logs its predictions has stopped" if self.latest_unlisted else "")
        return (f"listed: {how}; {count_noun(self.left_out, 'earlier ' + noun)} with "
                f"{count_noun(self.left_out_alerts, 'alert')} left out{alarms} (every listed number, and the "
                f"reference, as in the full listing){silent}")

    def __str__(self) -> str:
        show_slice = self.by is not None
        body = []
        # a window with rows but no final label: its conf cell shows the mean score of all its rows, starred
        # (known without a label; the PPI rate below is compared with it), the others pad for the star
        starred = any(shown_conf(r)[1] for r in self.rows)
        for r in self.rows:
            ci = f"[{fmt(r.ci_low, 3)}, {fmt(r.ci_high, 3)}]" if r.labelled else ""
            value, star = shown_conf(r)
            conf = fmt(value) + ("*" if star else " " if starred else "")
            line = [r.period] + ([r.slice] if show_slice else []) + [
                str(r.rows), str(r.labelled), str(r.pending + r.overdue), conf, fmt(r.rate), ci,
                fmt(r.ece), fmt(r.brier), fmt(r.nll), fmt(r.slope, 2), fmt(r.psi, 3), r.status]
            body.append(line)
        headers = ["period"] + (["slice"] if show_slice else []) + [
            "rows", "labelled", "pending", "conf", "rate", f"{self.level * 100:g}% CI", "ECE", "Brier",
            "NLL", "slope", "PSI", "status"]
        align = "l" + ("l" if show_slice else "") + "rrrrrlrrrrrl"
        what = (f"{FREQ_NAMES[self.freq]}s" if self.freq else f"{self.window} windows ending at the as-of time")
        lines = [f"as of {self.as_of} UTC; {what}" + (f"; labels final after {self.horizon}" if self.horizon else "")
                 + (f"; PSI against {self.reference}" if self.reference else ""),
                 render_table(headers, body, align=align)]
        alpha = 1 - self.alert_level
        per = (f"three tests per window at {alpha / 3:.2g} each, so a calibrated, stationary window alerts with "
               f"probability <= {alpha:.2g}")
        if show_slice:  # every slice is a row with its own three tests: no correction across the slices
            k = len({r.slice for r in self.rows})
            per = (f"three tests per row (a window's {ALL} or one slice) at {alpha / 3:.2g} each, so a calibrated, "
                   f"stationary row alerts with probability <= {alpha:.2g}; with {k} rows a window, some row of "
                   f"a window alerts with probability up to {min(1.0, k * alpha):.2g}")
        if self.alert_mode == "sequential":  # the window tests do not alert: say what does
            lines.append(f"(pending = no final label yet, never counted as negatives; {sequential_note()}; "
                         "pass alerts='window' (--alerts window) for the window tests)")
            if not self.horizon:
                lines.append(NO_HORIZON_SEQUENCES)
        else:
            lines.append(
                f"(pending = no final label yet, never counted as negatives; alerts need >= {self.min_count} "
                f"labelled rows (calibration, slope) or rows (score shift); {per})")
        note = conf_note(self.rows)
        if note:
            lines.append(f"({note})")
        note = overdue_note(self.rows)
        if note:
            lines.append(f"({note})")
        if not self.rows and self.since is None:  # "alerts: none" below checked nothing: say so
            lines.append("(no prediction at or before the as-of time, so nothing was checked: log predictions "
                         "first, veracity monitor log STORE FILE or MonitorStore(path).log(...))")
        cut = self._cut_note()
        if cut:
            lines.append(f"({cut})")
        if self.pooled:
            lines.append(f"({self.pooled} {self.by!r} values with the fewest rows are pooled into slice "
                         f"'{OTHER}'; pass max_slices= (--max-slices) to show more)")
        for r in self.rows:
            tag = r.period + (f" [{r.slice}]" if show_slice else "")
            for a in r.alerts:
                lines.append(f"ALERT {tag}: {a}")
            if r.diagnosis:
                lines.append(f"  diagnosis: {r.diagnosis}" + (f"; fix: {r.fix}" if r.fix else ""))
        pend = [r for r in self.rows if r.estimate is not None and r.slice == (ALL if not show_slice else r.slice)]
        if pend:
            lines.append(f"label-free estimates for pending rows (assume the scores are calibrated; "
                         f"threshold {self.threshold:g}):")
            lines.extend(f"  {line}" for line in self._estimate_lines(pend, show_slice))
        seg = [r for r in self.rows if r.segments]
        if seg:
            lines.append("where it is miscalibrated (vc.segments over the logged slices; BH/BY q-values):")
            for r in seg:
                for d in r.segments or []:
                    lines.append(f"  {r.period}: {d['segment']}  n={d['n']}  gap {d['gap']:+.4f} "
                                 f"[{d['ci_low']:+.4f}, {d['ci_high']:+.4f}]  q={d['q_value']:.2g}")
        # only windows with a row still without a final label: a fully labelled window's numbers are the final
        # ones in the table above (its PPI estimate stays in to_dict()['periods'][i]['estimate_ppi'])
        early = [r for r in self.rows if _not_final(r) and (r.provisional or r.estimate_ppi)]
        if early:
            lines.append("before the labels are final (provisional; PPI = the random audit labels with every "
                         "score, valid whether or not the scores are calibrated):")
            for r in early:
                tag = r.period + (f" [{r.slice}]" if show_slice else "")
                lines.append(f"  {tag}: {_provisional_text(r, self.level)}")
        lines.extend(self._bins_text(show_slice))
        if self.alert_mode == "sequential":
            alpha = 1 - self.alert_level
            lines.append(f"alerts: anytime-valid confidence sequences on mean(y - p) of the final labels "
                         f"(alpha {alpha:.2g} per cohort over every look, however often: "
                         f"{alpha / 2:.2g} for the overall gap, "
                         f"{alpha / 2:.2g} shared by the {self.bins} score bins)")
            # with since=/last=: the alarms dated before the listing (old, still active) say so
            before = getattr(self.sequence_alarms, "before_listing", ())
            lines.extend(f"  {line}" for line in SequenceAlarms(self.sequence_alarms,
                                                                before_listing=before).lines())
            if self.sequence_alarms:
                lines.append(f"  ({STAYS})")
        if not self.alerts:
            lines.append("alerts: none")
        return "\n".join(lines)


def _unlabelled(r: StatusRow) -> bool:
    """A window with rows and no final label: its table ``conf`` is the mean score of all its rows."""
    return r.rows > 0 and r.labelled == 0


def shown_conf(r: StatusRow) -> tuple[float, bool]:
    """The ``conf`` column of a status table (the text's and the report's) and whether it is starred.

    A window with final labels shows ``conf``, the mean score of its labelled rows (those ``rate``
    reads); a window with rows and no final label shows ``mean_score``, the mean score of all its rows
    (known without a label), starred; an empty window has no score at all (NaN, printed n/a)."""
    return (r.mean_score, True) if _unlabelled(r) else (r.conf, False)


def conf_note(rows: Any) -> str | None:
    """What the ``conf`` column reads, with the star's meaning when some row is starred
    (:func:`shown_conf`); None when every row's labels are final (``conf`` then needs no note)."""
    rows = list(rows)
    if not any(_not_final(r) for r in rows):
        return None
    return ("conf: the mean score of the labelled rows, those rate reads"
            + ("; * no final label yet: the mean score of all the window's rows, known without a label"
               if any(shown_conf(r)[1] for r in rows) else ""))


def overdue_note(rows: Any) -> str | None:
    """What the ``pending`` column holds beside the rows still within the horizon: the *overdue* rows,
    past the horizon without an outcome (``overdue`` in the JSON), counted over the ``(all)`` rows; None
    when there is none. Where an alerting row holds some, it says that missing outcomes alone can make the
    alert: outcomes of one class that come after the horizon (frauds confirmed weeks later) leave the
    labelled rows short of that class, so a calibrated model alerted, with a "prior shift" and an
    ``adjust_prior`` fix, on windows whose late positives were simply not in yet."""
    rows = [r for r in rows if r.overdue]
    if not rows:
        return None
    total = sum(r.overdue for r in rows if r.slice == ALL)
    text = (f"{total:,} of the pending rows {'is' if total == 1 else 'are'} overdue: past the horizon "
            "without an outcome (JSON overdue), never counted as negatives")
    alerted = list(dict.fromkeys(r.period + ("" if r.slice == ALL else f" [{r.slice}]")
                                 for r in rows if r.alerts))
    if alerted:
        shown = ", ".join(alerted[:4]) + (" ..." if len(alerted) > 4 else "")
        text += (f"; alerting rows hold some ({shown}): if one class's outcomes come after the horizon "
                 "(frauds confirmed later, say), the final labels lack them and that alone can make a "
                 "calibration alert and its diagnosis: check when the outcomes arrive, or pass a longer "
                 "horizon (--horizon)")
    return text


#: a window's status with sequential alerts when it has final labels and no alert: no window test
#: compares its own rate with its conf (``ok`` and ``insufficient`` are the window tests' verdicts)
NOT_TESTED = "not tested"


def row_status(rows: float, labelled: float, alerted: bool, min_count: int, alert_mode: str) -> str:
    """A window's ``status``: ``empty`` (no row), ``alert``, ``pending`` (no final label yet), then with
    the window tests (``alert_mode="window"``) ``insufficient`` (fewer than ``min_count`` labelled rows)
    or ``ok``; with sequential alerts :data:`NOT_TESTED` — the window tests do not run, and the
    sequences read every final label so far (this window's count in later windows' bounds), so no
    verdict on the window's own rows is given (its alert, if any, is the slice's sequence)."""
    if rows == 0:
        return "empty"
    if alerted:
        return "alert"
    if labelled == 0:
        return "pending"
    if alert_mode == "sequential":
        return NOT_TESTED
    return "insufficient" if labelled < min_count else "ok"


#: the status text's line under sequential alerts without a horizon: each label enters its sequence on the day
#: it arrives, so a class whose outcomes come sooner (frauds confirmed in 2 days, legitimate payments at 30)
#: over-represents itself in the early days: a calibrated store alarmed on day 3 or 4 in 20 of 20 simulated
#: quarters, in none with horizon 30d (docs/delayed.md)
NO_HORIZON_SEQUENCES = ("(no horizon: each label enters its sequence on the day it arrives, so where one "
                        "class's outcomes come sooner than the other's a calibrated model alarms; pass the "
                        "longest wait for an outcome as the horizon (--horizon 30d), which keys each label by "
                        "its prediction's time plus the horizon)")


def sequential_note() -> str:
    """What a window's status says under sequential alerts: the status text's note and the report's lead."""
    return ("alerts: only the anytime-valid sequences of the final labels -- the window tests (calibration, "
            "slope, score shift) raise none, so a large PSI is shown but not alerted on; "
            f"{NOT_TESTED} = final labels, but no test of the window's own rows: they count in their slice's "
            "sequence, which alerts on the window whose bounds leave the calibrated region")


def _not_final(r: StatusRow) -> bool:
    """Whether some of the window's rows have no final label yet (pending, or overdue: past the horizon
    without an outcome) — the table's ``pending`` column above 0, the rows the plot's PPI marks cover."""
    return r.labelled < r.rows


def _verdict_basis(gap_ppi: dict[str, Any], gap_audit: dict[str, Any] | None, not_calibrated: bool) -> str:
    """Where the calibration verdict (the "not calibrated" note, judged on the audit labels alone:
    ``gap_audit``'s interval, or an exact binomial bound where they hold fewer than 10 labels of one class)
    and the printed PPI gap's interval disagree — one excludes 0, the other not — the audit labels' gap
    beside it, so that the line does not read "gap [-0.31, +0.01] ... not calibrated". Empty where they
    agree."""
    if gap_audit is None or None in (gap_audit["estimate"], gap_audit["ci_low"], gap_audit["ci_high"]):
        return ""
    excludes = gap_ppi["ci_low"] > 0 or gap_ppi["ci_high"] < 0
    if excludes == not_calibrated:
        return ""
    own = (f"the audit labels' own gap {gap_audit['estimate']:+.4f} "
           f"[{gap_audit['ci_low']:+.4f}, {gap_audit['ci_high']:+.4f}]")
    audit_excludes = gap_audit["ci_low"] > 0 or gap_audit["ci_high"] < 0
    if not_calibrated and audit_excludes:
        return f" (holds 0; calibration is judged on {own}, which excludes it)"
    if not_calibrated:  # both hold 0: the exact bound of fewer than 10 labels of one class judged it
        return (f" (holds 0; calibration is judged on {own}, which holds it too, but with fewer than 10 labels "
                "of one class an exact binomial bound finds the scores miscalibrated)")
    if audit_excludes:
        return (f" (excludes 0; calibration is judged on {own}, with fewer than 10 labels of one class no "
                "evidence of miscalibration by an exact binomial bound)")
    return f" (excludes 0; calibration is judged on {own}, which holds it)"


def _provisional_text(r: StatusRow, level: float) -> str:
    note = str(r.details.get("ppi_note") or "")
    # audit labels that fail the random-sample check void the PPI numbers that follow: said first
    parts = [note] if note.startswith("NOT VALID") else []
    if r.estimate_ppi:
        e = r.estimate_ppi
        text = (f"PPI rate {e['estimate']:.4f} [{e['ci_low']:.4f}, {e['ci_high']:.4f}] from "
                f"{e['labels']} audit labels and {r.rows} scores")
        if r.mean_score == r.mean_score:  # the scores' promise for the same rows, and the gap to it
            text += f", vs mean score {r.mean_score:.4f} of those scores"
            g = r.gap_ppi
            if g and None not in (g["estimate"], g["ci_low"], g["ci_high"]):
                text += f": gap (rate - score) {g['estimate']:+.4f} [{g['ci_low']:+.4f}, {g['ci_high']:+.4f}]"
                text += _verdict_basis(g, r.gap_audit, NOT_CALIBRATED in str(r.details.get("ppi_note") or ""))
        parts.append(text)
    if r.provisional and r.provisional.get("basis") == "partial labels":
        p = r.provisional
        vs = f" vs mean score {p['mean_score']:.4f} of those rows" if p.get("mean_score") is not None else ""
        parts.append(f"{p['labels']} labels so far, rate {p['rate']:.4f} [{p['ci_low']:.4f}, "
                     f"{p['ci_high']:.4f}]{vs} ({p['caveat']})")
    c = r.confusion_ppi
    if c:
        # the estimates first (they add up: TP + FP + FN + TN = 1, cost = c_FP FP + c_FN FN), then their CIs
        names = {"tp": "TP", "fp": "FP", "fn": "FN", "tn": "TN", "cost": "cost"}
        parts.append(f"at t={c['threshold']:g} per row: "
                     + ", ".join(f"{v} {c[k]['estimate']:.4f}" for k, v in names.items())
                     + f" (PPI; {level * 100:g}% CIs: "
                     + ", ".join(f"{v} [{c[k]['ci_low']:.4f}, {c[k]['ci_high']:.4f}]"
                                 for k, v in names.items())
                     + ")")
    cbpe = r.estimate_cbpe or {}
    if cbpe.get("estimate") is not None:
        parts.append(f"CBPE rate {cbpe['estimate']:.4f}")
    if note and not note.startswith("NOT VALID"):
        parts.append(note)
    return "; ".join(parts) or "no labels yet"
