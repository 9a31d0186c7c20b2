r"""Status of a monitoring store: calibration per period and slice, alerts, diagnosis.

One aggregate groups the stored rows by (period, slice, state, label, reliability
bin, logit cell, above-threshold flag) with count, Σp, Σp², Σ log-loss and Σ logit:
the store's SQL says only which rows and in which state (a DuckDB relation), the
rows seam computes the groups (:func:`veracity.sources._grouped.grouped_sums`, the
score bin from the one bin index). Everything else is numpy on those groups:

* **state** — a prediction is *labelled* when its outcome was observed by the
  as-of time and (with a horizon) ``time + horizon <= as_of``; *pending* while it
  waits (never counted as a negative, seed 004); *overdue* when the horizon has
  passed without an outcome (reported, never a negative).
* **calibration** — per-bin :class:`~veracity.BinStats` of the labelled rows give
  ECE, Brier and NLL by the core formulas; the observed rate gets a Wilson
  interval; calibration-in-the-large and slope come from the logistic fits
  :math:`\mathrm{logit}\,P = \alpha + \eta` and :math:`\mathrm{logit}\,P = a + b\eta`
  (on logit cells 0.02 wide — indistinguishable from the row-level fit).
* **alerts** — three tests per window, each at :math:`(1-\text{alert\_level})/3` so
  that a window of a calibrated, stationary stream alerts with probability at most
  1 − alert_level (Bonferroni; default 0.99: about one false alert per hundred
  windows). The printed intervals are at ``level`` (default 0.95):

  - *calibration*: realised positives :math:`\sum y` against the scores' promise
    :math:`\sum p \pm z\sqrt{\sum p(1-p)}` (the label-free estimate's interval);
  - *slope*: Wald test of :math:`b = 1`;
  - *score shift*: a chi-square test of homogeneity between the window's score
    histogram (all rows, pending included) and the reference's, **and** PSI ≥ 0.1
    (a shift must be both real and material).

  No test runs on fewer than ``min_count`` rows (labelled rows for calibration,
  all rows for the shift): such windows are ``insufficient``, never alerts.
* **diagnosis** of a calibration alert — *prior shift* when the base rate moved
  against the reference, the slope is consistent with 1, the class-conditional
  score histograms are stable and ``adjust_prior(p, old=π_ref, new=π)`` makes the
  realised count agree with the scores; otherwise *likelihood shift* (recalibrate
  or retrain) — or *miscalibration* when the base rate did not move.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypedDict

import numpy as np
from ..core._special import expit, ndtr, ndtri  # scipy.stats costs 0.3 s of import

from ..core._binning import bin_index, uniform_edges
from ..core._display import Display
from ..core._formulas import brier_from_stats, ece_from_stats, nll_from_stats
from ..core._intervals import binomial_interval, check_interval_args
from ..core._metrics import check_threshold
from ..decisions._inputs import check_cost
from ..core._sql_names import quote_identifier
from ..core._stats import BinStats
from ..core._text import fmt, render_table
from ..core._validation import PROB_EPS, VeracityError
from ._alerts import Alert, _alert, _alerts  # noqa: F401  (re-exported: pickles name _status._alert)
from ._shift import PSI_MATERIAL, chi2_homogeneity, population_stability
from ._estimate import Estimate, estimate_from_sums
from ._time import (FREQ_NAMES, parse_duration, parse_instant, parse_window, period_count, period_label,
                    period_sql, period_starts)

ALL = "(all)"
CELLS = 1200  # logit cells of width 0.02 over [-12, 12]
CELL_SPAN = 12.0
REF_ROWS_FACTOR = 10  # default reference: at least 10 * min_count rows, pooled
MIN_PPI_LABELS = 30  # a bin's PPI normal interval is marked insufficient below this many audit labels
#: the most periods a status lists unless told otherwise (``max_periods``)
MAX_PERIODS = 1000


def _ppi_cell(ppi: dict[str, Any] | None) -> str:
    """A bin's PPI rate as printed: the estimate with its interval cut to [0, 1] (a rate's range; the
    stored estimate and ci_low/ci_high are PPI's own, which may leave it), or n/a with the count when too few
    audit labels make the normal interval meaningless."""
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
    #: random audit labels and all its scores: ``{"estimate", "ci_low", "ci_high", "lam", "labels"}``,
    #: and ``sufficient`` — at least 30 audit labels, below which its normal interval is not to be trusted;
    #: None without >= 2 audit labels in the bin), ``sequence_low``/``sequence_high`` (anytime-valid
    #: bounds on mean(y - p) of the bin's final labels up to the window's end, at alpha / (2 bins);
    #: None before any), ``sequence_labels`` and ``alert`` (those bounds exclude 0, or +-tolerance)
    bins: list[dict[str, Any]] | None = None
    #: PPI++ of the confusion and cost *per row* at the deployed ``threshold`` (flag when score >=
    #: threshold) from the window's random audit labels and all its scores: ``{"threshold", "cost_fp",
    #: "cost_fn", "labels", "tp", "fp", "fn", "tn", "cost"}``, each quantity ``{"estimate", "ci_low",
    #: "ci_high"}`` (multiply by ``rows`` for counts); None without >= 2 audit labels
    confusion_ppi: dict[str, Any] | None = None

    @property
    def gap(self) -> float:
        return self.rate - self.conf

    def to_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in self.__dict__.items() if k not in ("estimate", "details")}
        out["alerts"] = [str(a) for a in self.alerts]
        out["gap"] = self.gap
        out["estimate"] = None if self.estimate is None else self.estimate.to_dict()
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
    #: per slice: the first day the confidence sequence left the calibrated region (sequential mode)
    sequence_alarms: dict[str, Any] = field(default_factory=dict)
    #: with sequential alerts: a gap |mean(y - p)| this small counts as calibrated
    tolerance: float = 0.0

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
        from ..core._display import html_result

        def ppi(r: StatusRow) -> str:
            e = r.estimate_ppi
            return "" if not e else f"{e['estimate']:.4f} [{e['ci_low']:.3f}, {e['ci_high']:.3f}]"

        records = [{
            "status": r.status, "period": r.period, **({"slice": r.slice} if self.by is not None else {}),
            "rows": r.rows, "labelled": r.labelled, "pending": r.pending + r.overdue, "conf": r.conf,
            "rate": r.rate, "ci_low": r.ci_low, "ci_high": r.ci_high, "ece": r.ece, "psi": r.psi,
            "PPI rate (before final labels)": ppi(r),
            # the kind of each alert and diagnosis; their full sentences are in the text below the table
            "alerts": ", ".join(a.split(":")[0] for a in r.alerts),
            "diagnosis": (r.diagnosis or "").split(":")[0]} for r in self.rows]
        what = f"{FREQ_NAMES[self.freq]}s" if self.freq else f"{self.window} windows"
        summary = {"as of (UTC)": self.as_of, "periods": what, "horizon": self.horizon or "none",
                   "alerts": len(self.alerts), "alert mode": self.alert_mode}
        page = html_result("Calibration over time", summary, records, str(self))
        shown = self._bins_rows()
        if not shown:
            return page
        from ..core._display import html_section, html_table

        parts = []
        for r in shown:
            cells = [{
                "lo": b["lo"], "hi": b["hi"], "rows": b["rows"], "conf": b["conf"], "labelled": b["labelled"],
                "rate": b["rate"],
                "PPI rate": _ppi_cell(b["estimate_ppi"]),
                "bounds on rate - score": "" if b["sequence_low"] is None else
                f"[{b['sequence_low']:+.4f}, {b['sequence_high']:+.4f}]",
                "alert": "ALERT" if b["alert"] and self.alert_mode == "sequential" else ""}
                for b in r.bins or [] if b["rows"]]
            tag = r.period + (f" [{r.slice}]" if self.by is not None else "")
            parts.append(html_section(f"Per score bin, {tag}", html_table(cells)))
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
                             "" if b["rate"] is None else fmt(b["rate"]),
                             _ppi_cell(ppi),
                             "" if b["sequence_low"] is None else
                             f"[{b['sequence_low']:+.4f}, {b['sequence_high']:+.4f}]",
                             "ALERT" if b["alert"] and self.alert_mode == "sequential" else ""])
            if not body:
                continue
            tag = r.period + (f" [{r.slice}]" if show_slice else "")
            out.append(f"per score bin, {tag} (rate: final labels; PPI rate: the bin's audit labels with all its "
                       f"scores, {self.level * 100:g}% CI cut to [0, 1] (audit labels; n/a under {MIN_PPI_LABELS}); bounds: "
                       "anytime-valid on mean(y - p) of the bin's final labels so far):")
            out.append(render_table(["scores", "rows", "conf", "labelled", "rate", "PPI rate", "bounds", ""], body,
                                    align="lrrrrlll"))
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "as_of": self.as_of, "freq": self.freq, "window": self.window, "horizon": self.horizon,
            "by": self.by, "reference": self.reference, "level": self.level,
            "alert_level": self.alert_level, "min_count": self.min_count,
            "threshold": self.threshold, "bins": self.bins, "pooled_slices": self.pooled,
            "alert_mode": self.alert_mode, "tolerance": self.tolerance, "sequence_alarms": self.sequence_alarms,
            "alerts": len(self.alerts), "alert_rows": len(self.alert_rows),
            "periods": [r.to_dict() for r in self.rows],
        }

    def __str__(self) -> str:
        show_slice = self.by is not None
        body = []
        for r in self.rows:
            ci = f"[{fmt(r.ci_low, 3)}, {fmt(r.ci_high, 3)}]" if r.labelled else ""
            line = [r.period] + ([r.slice] if show_slice else []) + [
                str(r.rows), str(r.labelled), str(r.pending + r.overdue), fmt(r.conf), fmt(r.rate), ci,
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
        lines.append(
            f"(pending = no final label yet, never counted as negatives; alerts need >= {self.min_count} labelled "
            f"rows (calibration, slope) or rows (score shift); three tests per window at "
            f"{(1 - self.alert_level) / 3:.2g} each, so a calibrated, stationary window alerts with probability "
            f"<= {1 - self.alert_level:.2g})")
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
            for r in pend:
                e = r.estimate
                assert e is not None
                tag = r.period + (f" [{r.slice}]" if show_slice else "")
                withdrawn = (r.estimate_cbpe or {}).get("withdrawn")
                lines.append(f"  {tag}: " + (f"withdrawn: {withdrawn}" if withdrawn else str(e)))
        seg = [r for r in self.rows if r.segments]
        if seg:
            lines.append("where it is miscalibrated (vc.segments over the logged slices; BH/BY q-values):")
            for r in seg:
                for d in r.segments or []:
                    lines.append(f"  {r.period}: {d['segment']}  n={d['n']}  gap {d['gap']:+.4f} "
                                 f"[{d['ci_low']:+.4f}, {d['ci_high']:+.4f}]  q={d['q_value']:.2g}")
        early = [r for r in self.rows if r.provisional or r.estimate_ppi]
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
            for name, alarm in self.sequence_alarms.items():
                where = f" in scores {alarm['bin']}" if alarm.get("bin") else ""
                lines.append(f"  [{name}] left the calibrated region{where} on {alarm['day']} (after "
                             f"{alarm['labels']} final labels; bounds [{alarm['low']:+.4f}, {alarm['high']:+.4f}])")
        if not self.alerts:
            lines.append("alerts: none")
        return "\n".join(lines)


#: the slice that holds the rows of slices beyond ``max_slices``
OTHER = "(other)"


def _wald_two_sided(z: float) -> float:
    return float(2 * ndtr(-abs(z)))


def _logistic(eta: np.ndarray, y: np.ndarray, w: np.ndarray) -> tuple[float, float, float, float, float]:
    """(citl, citl_se, slope, slope_se, slope_p) from weighted logit cells."""
    from ..honest._tests import _newton

    ones = np.ones((eta.size, 1))
    (alpha,), cov0 = _newton(ones, eta, y, w)
    beta, cov = _newton(np.column_stack([ones[:, 0], eta]), np.zeros_like(eta), y, w)
    slope_se = float(np.sqrt(cov[1, 1]))
    return float(alpha), float(np.sqrt(cov0[0, 0])), float(beta[1]), slope_se, \
        _wald_two_sided((beta[1] - 1.0) / slope_se)


def check_model(con: Any, model: Any) -> None:
    """A one-line error unless some prediction was logged with ``model`` (the message lists the models)."""
    if not isinstance(model, str):
        raise VeracityError(f"model must be a string naming a logged model, got {model!r}", param="model")
    if con.execute("SELECT count(*) FROM predictions WHERE model = ?", [model]).fetchall()[0][0]:
        return
    names = [m for (m,) in con.execute("SELECT DISTINCT model FROM predictions WHERE model IS NOT NULL "
                                         "ORDER BY model LIMIT 11").fetchall()]
    shown = ", ".join(repr(m) for m in names[:10]) + (" ..." if len(names) > 10 else "") or "none"
    raise VeracityError(f"no prediction was logged with model {model!r} (logged models: {shown}); "
                        "pass one of those, or log predictions with --model", param="model")


def _query(store: Any, con: Any, *, period: str, as_of_us: int, horizon_us: int | None, slice_col: str | None,
           bins: int, threshold: float, model: str | None, max_slices: int = 20, delayed: bool = True
           ) -> tuple[Any, Any, int]:
    """Per (period, slice, state, audited, bin, cell, flag) sums; per (slice, day, bin) sums of the
    matured labels for the confidence sequences; and how many slices were pooled into ``(other)``.

    States: 0 labelled and final, 1 pending, 2 overdue (final but no label), 3 labelled early
    (observed, not final yet: early evidence). ``audited``: the label belongs to the random
    audit sample (prediction-powered estimates). Only the ``max_slices`` slices with the most
    rows keep their name; the rest are summed into one ``(other)`` slice (a slice column with
    20,000 user ids is one aggregate, not 20,000 tables).

    The store's SQL only says which rows and in which state (:func:`_rows`); the keys and sums are
    the rows seam's (:func:`veracity.sources._grouped.grouped_sums`): the score bin is the one
    bin index, the logit cell and the threshold flag its keys.
    """
    import narwhals as nw

    from ..sources._grouped import at_threshold, grouped_sums, logit_cell, score_bin

    rows = _rows(con, period=period, as_of_us=as_of_us, horizon_us=horizon_us, slice_col=slice_col, model=model)
    pooled, slice_key = 0, nw.col("slice")
    if slice_col is not None:
        per_slice = grouped_sums(rows, {"slice": nw.col("slice")}, {})
        if per_slice["slice"].size > max_slices:
            keep = _largest(per_slice["slice"], per_slice["n"], max_slices)
            pooled = per_slice["slice"].size - max_slices
            slice_key = nw.when(nw.col("slice").is_in(keep)).then(nw.col("slice")).otherwise(nw.lit(OTHER))
    state, score, y = nw.col("state"), nw.col("score"), nw.col("y")
    final = state == 0
    keys = {
        "period": nw.col("period"), "slice": slice_key, "state": state,
        "audited": nw.col("audited") if delayed else nw.lit(0, nw.Int32),  # the plain status: no audit column
        "y": nw.when(state.is_in([0, 3])).then(y).otherwise(nw.lit(-1, nw.Int32)),
        "bin": score_bin(score, bins),
        "cell": nw.when(final).then(logit_cell(nw.col("eta"), CELLS, CELL_SPAN)).otherwise(nw.lit(0, nw.Int64)),
        "flag": at_threshold(score, threshold),
    }
    sums = {"sp": score, "sp2": score * score, "snll": nw.col("nll"), "seta": nw.col("eta")}
    g = grouped_sums(rows, keys, sums)
    if not delayed:  # no sequence sums
        return g, {}, pooled
    # the final labels only, slices pooled as above (20,000 user ids are 21 slices here too, not
    # 20,000 x days x bins groups)
    d = y - score
    final_rows = _rows(con, period=period, as_of_us=as_of_us, horizon_us=horizon_us, slice_col=slice_col,
                       model=model, final_only=True)  # filtered on the table's columns: DuckDB skips the others early
    seq = grouped_sums(final_rows, {"slice": slice_key, "day": nw.col("day"), "bin": score_bin(score, bins)},
                       {"sx": d, "sxx": d * d})
    return g, seq, pooled


def _rows(con: Any, *, period: str, as_of_us: int, horizon_us: int | None, slice_col: str | None,
          model: str | None, final_only: bool = False) -> Any:
    """The stored predictions up to the as-of time as a DuckDB relation (nothing is read yet):
    ``period`` (epoch microseconds of its start), ``slice``, ``score``, ``y`` (the label, null
    without one), ``state`` (see :func:`_query`), ``audited`` (0/1), ``day`` (epoch microseconds
    of the day a final label became usable: observed, or made final by the horizon), and for the
    final labels (else 0) the logit ``eta`` and the log-loss term ``nll``. ``final_only``: only the
    rows with a final label (state 0)."""
    final = "TRUE" if horizon_us is None else f"epoch_us(p.ts) + {horizon_us} <= {as_of_us}"
    sl = "'" + ALL + "'" if slice_col is None else f"coalesce(p.{quote_identifier('s_' + slice_col)}, '(missing)')"
    seen = f"p.label IS NOT NULL AND p.observed <= make_timestamp({as_of_us})"
    matured = ("p.observed" if horizon_us is None
               else f"greatest(p.observed, make_timestamp(epoch_us(p.ts) + {horizon_us}))")
    eta = "(ln(greatest(score, 1e-12)) - ln(greatest(1 - score, 1e-12)))"
    sql = f"""
      SELECT *, CASE WHEN state = 0 THEN {eta} ELSE 0 END AS eta,
             CASE WHEN state <> 0 THEN 0 WHEN y = 1 THEN -ln(greatest(score, {PROB_EPS!r}))
                  ELSE -ln(greatest(1 - score, {PROB_EPS!r})) END AS nll
      FROM (
        SELECT epoch_us({period}) AS period, {sl} AS slice, p.score AS score, p.label AS y,
               CASE WHEN {seen} AND {final} THEN 0
                    WHEN {seen} THEN 3
                    WHEN {final} AND {horizon_us is not None} THEN 2 ELSE 1 END AS state,
               ({seen} AND coalesce(p.audit, FALSE))::INTEGER AS audited,
               CASE WHEN {seen} AND {final} THEN epoch_us(date_trunc('day', {matured})) END AS day
        FROM predictions p
        WHERE p.ts <= make_timestamp({as_of_us})""" + (f" AND {seen} AND {final}" if final_only else "") \
        + (" AND p.model = $1" if model is not None else "") + ") r"
    return con.sql(sql, params=[model] if model is not None else None)


def _largest(names: np.ndarray, counts: np.ndarray, k: int) -> list[str]:
    """The ``k`` names with the largest counts (ties: the names in order)."""
    names = np.asarray(names).astype(str)
    by_name = np.argsort(names, kind="stable")
    order = by_name[np.argsort(-np.asarray(counts)[by_name], kind="stable")]
    return names[order[:k]].tolist()


def store_status(
    store: Any,
    *,
    freq: str | None = "W",
    window: str | None = None,
    as_of: Any = None,
    horizon: str | float | None = None,
    by: str | None = None,
    bins: int = 15,
    level: float = 0.95,
    alert_level: float = 0.99,
    min_count: int = 100,
    reference: str | None = None,
    threshold: float = 0.5,
    cost_fp: float = 1.0,
    cost_fn: float = 1.0,
    model: str | None = None,
    max_slices: int = 20,
    alerts: str = "window",
    tolerance: float = 0.0,
    segments: bool = False,
    delayed: bool = True,
    max_periods: int = MAX_PERIODS,
) -> StoreStatus:
    """Calibration per period (``freq`` D/W/M/Q, or a rolling ``window`` like ``7d``) and slice ``by``.

    Every period from the earliest stored prediction to the latest is listed, empty ones too; more
    than ``max_periods`` of them is refused in one line naming the earliest and latest prediction
    times and the widest gap between them (one mistyped year, 2206 among 2026 rows, once made ten
    thousand empty weeks in silence): fix those times, or pass a larger ``max_periods``. Under it,
    a listing of at least 100 periods of which 90% hold no prediction is warned about. With
    ``as_of=None`` (now), predictions dated more than a day in the future are left out with a warning.
    ``tolerance`` is for ``alerts="sequential"`` only (refused with the window tests, which it
    would not change).

    ``delayed=False`` leaves out the delayed-label estimates and sequences (the plain status, which
    benchmarks/bench_store_delayed.py times against the full one)."""
    check_interval_args("wilson", level, "two-sided")
    if not 0.5 <= _number(alert_level) < 1.0:
        raise VeracityError(f"alert_level must be in [0.5, 1), e.g. 0.99; got {alert_level!r}")
    if window is not None:
        window_s: float | None = parse_window(window)
        freq = None
    else:
        window_s = None
        if freq not in FREQ_NAMES:
            raise VeracityError(f"freq must be one of {', '.join(FREQ_NAMES)} (ISO weeks start on Monday); "
                                f"got {freq!r}")
    if isinstance(bins, bool) or not isinstance(bins, int) or not 1 <= bins <= 1000:
        raise VeracityError(f"bins must be an integer in 1..1000, got {bins!r}", param="bins")
    threshold = check_threshold(threshold)
    cost_fp, cost_fn = check_cost(cost_fp, "cost_fp"), check_cost(cost_fn, "cost_fn")
    if not (np.isfinite(_number(min_count)) and _number(min_count) >= 1 and _number(min_count) % 1 == 0):
        raise VeracityError(f"min_count must be a whole number of rows, at least 1, got {min_count!r}",
                            param="min_count")
    if alerts not in ("window", "sequential"):
        raise VeracityError(f"alerts must be 'window' (a test per window) or 'sequential' (anytime-valid "
                            f"confidence sequences), got {alerts!r}", param="alerts")
    if not 0.0 <= _number(tolerance) < 1.0:
        raise VeracityError(f"tolerance must be in [0, 1), e.g. 0.01, got {tolerance!r}", param="tolerance")
    if float(tolerance) > 0 and alerts != "sequential":
        raise VeracityError(f"tolerance={float(tolerance):g} applies to the sequential alerts only (the window "
                            "tests would ignore it); pass alerts='sequential' with it, or drop it",
                            param="tolerance")
    if isinstance(max_periods, bool) or not isinstance(max_periods, (int, np.integer)) or max_periods < 1:
        raise VeracityError(f"max_periods must be a positive integer, got {max_periods!r}", param="max_periods")
    if isinstance(max_slices, bool) or not isinstance(max_slices, int) or max_slices < 1:
        raise VeracityError(f"max_slices must be a positive integer, got {max_slices!r}", param="max_slices")
    t_as_of = parse_instant(as_of)
    as_of_us = int(t_as_of.astype("datetime64[us]").astype(np.int64))
    horizon_s = None if horizon is None else parse_duration(horizon, "--horizon")
    horizon_us = None if horizon_s is None else int(round(horizon_s * 1e6))
    con = store.connect(read_only=True)
    try:
        return _status_from(store, con, freq=freq, window=window, window_s=window_s, t_as_of=t_as_of,
                            as_of_us=as_of_us, horizon=horizon, horizon_us=horizon_us, by=by, bins=bins,
                            level=level, alert_level=alert_level, min_count=min_count, reference=reference,
                            threshold=threshold, cost_fp=cost_fp, cost_fn=cost_fn, model=model,
                            max_slices=max_slices, alerts=alerts, tolerance=float(tolerance),
                            segments=bool(segments), delayed=delayed, max_periods=int(max_periods),
                            as_of_given=as_of is not None)
    except VeracityError:
        raise
    except Exception as exc:
        import duckdb

        if isinstance(exc, duckdb.Error):  # a block lost after the checks on open
            raise VeracityError(f"{store.path} could not be read as a monitoring store "
                                f"({str(exc).splitlines()[0][:160]}); restore it from a backup") from None
        raise
    finally:
        con.close()


def _status_from(store: Any, con: Any, *, freq: str | None, window: str | None, window_s: float | None,
                 t_as_of: Any, as_of_us: int, horizon: Any, horizon_us: int | None, by: str | None, bins: int,
                 level: float, alert_level: float, min_count: int, reference: str | None, threshold: float,
                 cost_fp: float, cost_fn: float, model: str | None, max_slices: int, alerts: str,
                 tolerance: float, segments: bool = False, delayed: bool = True,
                 max_periods: int = MAX_PERIODS, as_of_given: bool = True) -> StoreStatus:
    if by is not None and by not in store.slices(con=con):
        known = ", ".join(store.slices(con=con)) or "none"
        raise VeracityError(f"slice {by!r} was never logged (logged slices: {known}); "
                            "log predictions with --by COL first")
    if model is not None:
        check_model(con, model)
    lo, hi = con.execute(f"SELECT min(ts), max(ts) FROM predictions WHERE ts <= make_timestamp({as_of_us})"
                         + (" AND model = ?" if model is not None else ""),
                         [model] if model is not None else []).fetchall()[0]
    if not as_of_given:
        _warn_future(con, as_of_us, model)
    count = 0
    if lo is not None:
        count = _check_span(con, np.datetime64(lo, "us"), np.datetime64(hi, "us"), freq, window, window_s, t_as_of,
                            as_of_us, model, max_periods)
    start_sql, _ = period_sql(freq, window_s, as_of_us, "p.ts")
    g, seq, pooled = _query(store, con, period=start_sql, as_of_us=as_of_us, horizon_us=horizon_us,
                            slice_col=by, bins=bins, threshold=float(threshold), model=model,
                            max_slices=max_slices, delayed=delayed)
    settings = _Settings(as_of=str(t_as_of.astype("datetime64[s]")).replace("T", " "), freq=freq,
                         window=window, horizon=None if horizon is None else str(horizon), by=by,
                         level=float(level), alert_level=float(alert_level), min_count=int(min_count),
                         threshold=float(threshold), bins=bins, pooled=pooled, alert_mode=alerts,
                         tolerance=tolerance)
    if lo is None:
        _warn_nothing_before(con, as_of_us, model)
        return StoreStatus(rows=(), reference=None, **settings)
    starts = period_starts(np.datetime64(lo, "us"), np.datetime64(hi, "us"), freq, window_s, t_as_of)
    status = _assemble(g, starts, freq, window_s, t_as_of, by, bins, level, int(min_count), reference,
                       float(threshold), float(cost_fp), float(cost_fn), settings)
    _warn_sparse(status, count, lo, hi, freq, window)
    if segments:
        status = _with_segments(store, con, status, starts, start_sql, as_of_us, horizon_us, model,
                                int(min_count), level)
    if not delayed:
        return status
    return _with_delayed_labels(status, g, seq, starts, _next_start(starts, freq, window_s), by, level, alerts,
                                tolerance, min_count, bins, cost_fp=float(cost_fp), cost_fn=float(cost_fn))


def _what(freq: str | None, window: str | None) -> str:
    return f"{FREQ_NAMES[freq]}s" if freq else f"{window} windows"


def _when(t: Any) -> str:
    return str(np.datetime64(t, "s")).replace("T", " ")


def _check_span(con: Any, lo: np.datetime64, hi: np.datetime64, freq: str | None, window: str | None,
                window_s: float | None, t_as_of: np.datetime64, as_of_us: int, model: str | None,
                max_periods: int) -> int:
    """The number of periods from ``lo`` to ``hi``; more than ``max_periods`` is refused in one line that
    names the earliest and latest prediction and the widest gap between two consecutive ones (where a
    mistyped time sits)."""
    count = period_count(lo, hi, freq, window_s, t_as_of)
    if count <= max_periods:
        return count
    where = f"ts <= make_timestamp({as_of_us})" + (" AND model = ?" if model is not None else "")
    params = [model] if model is not None else []
    gap = con.execute(
        f"SELECT prev, ts FROM (SELECT ts, lag(ts) OVER (ORDER BY ts) AS prev FROM predictions WHERE {where}) "
        "WHERE prev IS NOT NULL ORDER BY epoch_us(ts) - epoch_us(prev) DESC LIMIT 1", params).fetchall()
    coarser = "a longer window=" if window_s is not None else "a coarser freq="
    widest, typo = "", False
    if gap:
        a, b = gap[0]
        gap_us = int((np.datetime64(b, "us") - np.datetime64(a, "us")) // np.timedelta64(1, "us"))
        typo = gap_us > 0.5 * int((hi - lo) // np.timedelta64(1, "us"))  # one gap is most of the span: stray rows
        if typo:
            before, after = con.execute(
                f"SELECT count(*) FILTER (WHERE ts <= ?), count(*) FILTER (WHERE ts >= ?) FROM predictions "
                f"WHERE {where}", [a, b, *params]).fetchall()[0]
            days = gap_us / 86_400e6
            span = f"{days / 365.25:,.0f} years" if days >= 730 else f"{days:,.0f} days"
            widest = (f"; {span} pass between {_when(a)} and {_when(b)} without a prediction ({before:,} "
                      f"predictions before, {after:,} after)")
    fix = ("a mistyped time? Re-log the stray predictions with their right time (replacing them), or pass as_of= "
           f"before them, {coarser}" if typo else f"pass {coarser}")
    raise VeracityError(
        f"status would list {count:,} {_what(freq, window)} (more than max_periods={max_periods}), from "
        f"{_when(lo)} (the earliest prediction) to {_when(hi)} (the latest){widest}: {fix} or "
        f"max_periods={count} to list every period", param="max_periods")


def _warn_sparse(status: StoreStatus, count: int, lo: Any, hi: Any, freq: str | None, window: str | None) -> None:
    """A warning when at least 100 periods are listed and 90% of them hold no prediction."""
    if count < 100:
        return
    empty = sum(1 for r in status.rows if r.slice == ALL and r.rows == 0)
    if empty >= 0.9 * count:
        import warnings

        warnings.warn(f"{empty:,} of the {count:,} {_what(freq, window)} listed hold no prediction (the earliest is "
                      f"{_when(lo)}, the latest {_when(hi)}): a mistyped time? Or use coarser periods",
                      stacklevel=5)


def _warn_nothing_before(con: Any, as_of_us: int, model: str | None) -> None:
    """An empty status of a store that holds predictions, all after the as-of time: say so (an as-of
    mistyped into the past would otherwise read as "alerts: none")."""
    n, first = con.execute("SELECT count(*), min(ts) FROM predictions" + (" WHERE model = ?" if model is not None
                                                                          else ""),
                           [model] if model is not None else []).fetchall()[0]
    if n:
        import warnings

        warnings.warn(f"no prediction is dated at or before the as-of time {_when(np.datetime64(as_of_us, 'us'))} UTC; "
                      f"the {n:,} stored begin at {_when(first)}: nothing to judge (pass a later as_of=)",
                      stacklevel=5)


def _warn_future(con: Any, as_of_us: int, model: str | None) -> None:
    """As of now, predictions dated more than a day ahead are left out: say so (a mistyped year is one)."""
    ahead = as_of_us + 86_400_000_000
    n, latest = con.execute(f"SELECT count(*), max(ts) FROM predictions WHERE ts > make_timestamp({ahead})"
                            + (" AND model = ?" if model is not None else ""),
                            [model] if model is not None else []).fetchall()[0]
    if n:
        import warnings

        warnings.warn(f"{n:,} predictions are dated in the future (after now, {_when(np.datetime64(as_of_us, 'us'))} "
                      f"UTC; the latest at {_when(latest)}) and are left out: a mistyped time? Re-log them with their "
                      "right time, or pass as_of= explicitly", stacklevel=5)


def _number(value: Any) -> float:
    """``value`` as a float, NaN for anything that is not a number (so a range check refuses it in one line)."""
    if isinstance(value, bool):
        return float("nan")
    try:
        return float(value)
    except (TypeError, ValueError):
        return float("nan")


def _next_start(starts: np.ndarray, freq: str | None, window_s: float | None) -> np.datetime64:
    last = starts[-1]
    if window_s is not None:
        return last + np.timedelta64(int(round(window_s * 1e6)), "us")
    if freq == "D":
        return last + np.timedelta64(1, "D")
    if freq == "W":
        return last + np.timedelta64(7, "D")
    m = last.astype("datetime64[M]") + (3 if freq == "Q" else 1)
    return m.astype("datetime64[us]")


def _assemble(g: dict[str, np.ndarray], starts: np.ndarray, freq: str | None, window_s: float | None,
              as_of: np.datetime64, by: str | None, bins: int, level: float, min_count: int,
              reference: str | None, threshold: float, cost_fp: float, cost_fn: float,
              settings: _Settings) -> StoreStatus:
    labels = [period_label(s, freq, window_s) for s in starts]
    ends = list(starts[1:]) + [_next_start(starts, freq, window_s)]
    n_p = len(starts)
    pidx = np.searchsorted(starts.astype(np.int64), np.asarray(g["period"], dtype=np.int64))
    slice_names = np.asarray(g["slice"]).astype(str)
    names = [ALL] if by is None else [ALL] + sorted(set(slice_names.tolist()))
    sidx = np.searchsorted(np.array(names[1:] if by else names), slice_names) + (1 if by else 0)
    n_s = len(names)
    # every group counts for its own slice and, when slicing, for (all) too
    if by is not None:
        pidx = np.concatenate([pidx, pidx])
        sidx = np.concatenate([sidx, np.zeros_like(sidx)])
        g = {k: np.concatenate([np.asarray(v), np.asarray(v)]) for k, v in g.items()}
    key = pidx * n_s + sidx
    K = n_p * n_s
    state = np.asarray(g["state"])
    y = np.asarray(g["y"], dtype=np.float64)
    b = np.asarray(g["bin"], dtype=np.int64)
    n, sp, sp2 = (np.asarray(g[c], dtype=np.float64) for c in ("n", "sp", "sp2"))
    snll, seta = np.asarray(g["snll"], dtype=np.float64), np.asarray(g["seta"], dtype=np.float64)
    flag = np.asarray(g["flag"]) == 1
    lab = state == 0
    pos = lab & (y == 1)

    def per_key_bin(mask: np.ndarray, values: np.ndarray) -> np.ndarray:
        return np.bincount(key[mask] * bins + b[mask], weights=values[mask], minlength=K * bins).reshape(K, bins)

    def per_key(mask: np.ndarray, values: np.ndarray) -> np.ndarray:
        return np.bincount(key[mask], weights=values[mask], minlength=K)

    count = per_key_bin(lab, n)
    s_p, s_y = per_key_bin(lab, sp), per_key_bin(pos, n)
    s_p2, s_py, s_nll = per_key_bin(lab, sp2), per_key_bin(pos, sp), per_key_bin(lab, snll)
    hist = per_key_bin(np.ones_like(lab), n)
    hist_pos, hist_neg = per_key_bin(pos, n), per_key_bin(lab & (y == 0), n)
    rows_all = per_key(np.ones_like(lab), n)
    pending = per_key((state == 1) | (state == 3), n)  # early labels are not final: still pending
    overdue = per_key(state == 2, n)
    unl = state != 0
    est_parts = {name: per_key(unl & f, v) for name, f, v in (
        ("sp_hi", flag, sp), ("n_hi", flag, n), ("sp_lo", ~flag, sp), ("n_lo", ~flag, n))}
    est_var = per_key(unl, sp - sp2)
    edges = uniform_edges(bins)  # the audit's edges: store statistics merge with an audit's
    alpha_t = (1.0 - settings["alert_level"]) / 3.0
    z_t = float(ndtri(1.0 - alpha_t / 2.0))

    # the reference: named periods ("A" or "A..B"), or from the first period with min_count labelled
    # rows, consecutive periods pooled until they hold REF_ROWS_FACTOR * min_count rows (a small
    # reference would make every later window look shifted at once)
    labelled_all = count.sum(axis=1).reshape(n_p, n_s)[:, 0]
    rows_p = rows_all.reshape(n_p, n_s)[:, 0]
    if reference is not None:
        first_name, _, last_name = str(reference).partition("..")
        for name in (first_name, last_name or first_name):
            if name not in labels:
                raise VeracityError(f"reference period {name!r} not found; periods: {', '.join(labels[:8])}"
                                    + (" ..." if len(labels) > 8 else ""))
        ref_ps = list(range(labels.index(first_name), labels.index(last_name or first_name) + 1))
        if not ref_ps:
            raise VeracityError(f"reference {reference!r} runs backwards; write FIRST..LAST")
        if not rows_p[ref_ps].sum():  # every PSI would be n/a and every diagnosis compare with nothing
            held = [labels[i] for i in np.flatnonzero(rows_p > 0)[:8]]
            raise VeracityError(f"reference {reference!r} holds no predictions; name periods with rows (e.g. "
                                f"{', '.join(held)})", param="reference")
    else:
        ok = np.flatnonzero(labelled_all >= min_count)
        first = int(ok[0]) if ok.size else int(np.flatnonzero(rows_p > 0)[0])
        ref_ps = [first]
        while rows_p[ref_ps].sum() < REF_ROWS_FACTOR * min_count and ref_ps[-1] + 1 < n_p - 1:
            ref_ps.append(ref_ps[-1] + 1)
    ref_label = labels[ref_ps[0]] if len(ref_ps) == 1 else f"{labels[ref_ps[0]]}..{labels[ref_ps[-1]]}"
    in_ref = set(ref_ps)

    def with_reference(a: np.ndarray) -> np.ndarray:  # key K + si holds the pooled reference of slice si
        pooled = a[:K].reshape((n_p, n_s) + a.shape[1:])[ref_ps].sum(axis=0)
        return np.concatenate([a, pooled])

    count, s_p, s_y, hist, hist_pos, hist_neg, rows_all = map(
        with_reference, (count, s_p, s_y, hist, hist_pos, hist_neg, rows_all))
    cell_data = _cells(key, lab, y, np.asarray(g["cell"], dtype=np.int64), n, seta, sp, b, bins, K)

    rows: list[StatusRow] = []
    stats_out: dict[tuple[str, str], BinStats] = {}
    nan = float("nan")
    for pi in range(n_p):
        for si in range(n_s):
            k = pi * n_s + si
            rk = K + si
            nl = float(count[k].sum())
            stats = BinStats(edges, "uniform", count[k].astype(np.int64), count[k].copy(), count[k].copy(),
                             s_p[k], s_y[k], sum_p2=s_p2[k], sum_py=s_py[k], sum_nll=s_nll[k])
            if nl:
                stats_out[(labels[pi], names[si])] = stats
            details: dict[str, Any] = {}
            alerts: list[str] = []
            conf = rate = ci_low = ci_high = ece = brier = nll = citl = slope = slope_p = nan
            exp_pos = real_pos = nan
            if nl > 0:
                conf = float(s_p[k].sum() / nl)
                rate = float(s_y[k].sum() / nl)
                lo_, hi_ = binomial_interval(np.asarray(rate * nl), np.asarray(nl), method="wilson",
                                             level=level)
                ci_low, ci_high = float(lo_), float(hi_)
                ece, brier, nll = ece_from_stats(stats), brier_from_stats(stats), nll_from_stats(stats)
                exp_pos, real_pos = float(s_p[k].sum()), float(s_y[k].sum())
                sd = float(np.sqrt(max(s_p[k].sum() - s_p2[k].sum(), 0.0)))
                # continuity-corrected: the realised count is an integer. Scores of exactly 0 and 1 (sd 0)
                # promise the count itself: any other count is infinitely unlikely, not untestable
                miss = max(abs(real_pos - exp_pos) - 0.5, 0.0)
                details.update(expected_low=exp_pos - z_t * sd - 0.5, expected_high=exp_pos + z_t * sd + 0.5,
                               z=np.sign(real_pos - exp_pos) * (miss / sd if sd > 0 else np.inf if miss else 0.0))
                # the slope is judged only where alerts are (>= min_count labelled rows): a logistic fit
                # on a handful of rows is noise, and fitting every small slice dominated the time
                fit = _fit_cells(cell_data, k) if nl >= min_count else None
                if fit is not None:
                    citl, _, slope, slope_se, slope_p = fit
                    details["slope_se"] = slope_se
            psi = shift_p = nan
            if rows_all[k] > 0 and rows_all[rk] > 0:
                psi = population_stability(hist[k], hist[rk])
                if pi not in in_ref:
                    shift_p = chi2_homogeneity(hist[k], hist[rk])
            # -- alerts (sample-size aware) --
            if nl >= min_count:
                if details["z"] == details["z"] and abs(details["z"]) > z_t:
                    alerts.append(
                        f"calibration: {real_pos:.0f} positives observed, the scores promised {exp_pos:.1f} "
                        f"[{details['expected_low']:.1f}, {details['expected_high']:.1f}] "
                        f"(rate {rate:.4f} vs conf {conf:.4f})")
                if slope_p == slope_p and slope_p < alpha_t:
                    alerts.append(f"slope {slope:.2f} (p = {slope_p:.2g}; 1 when calibrated: "
                                  f"{'over' if slope < 1 else 'under'}-confident scores)")
            if (pi not in in_ref and rows_all[k] >= min_count and rows_all[rk] >= min_count and shift_p == shift_p
                    and shift_p < alpha_t and psi >= PSI_MATERIAL):
                alerts.append(f"score shift vs {ref_label}: PSI {psi:.3f}, chi-square p = {shift_p:.2g}")
            diagnosis = fix = None
            if nl >= min_count and any(a.startswith(("calibration", "slope")) for a in alerts):
                diagnosis, fix, extra = _diagnose(k, rk, count, s_p, s_y, hist_pos, hist_neg, slope_p, alpha_t, z_t,
                                                  cell_data, edges, ref_label, pi in in_ref)
                details.update(extra)
            elif alerts:
                diagnosis = ("score distribution moved; labels will tell whether calibration held — "
                             "the label-free estimate below assumes it did")
            n_unl = float(pending[k] + overdue[k])
            estimate = None
            if n_unl > 0:
                estimate = estimate_from_sums(
                    n=n_unl, sum_p=est_parts["sp_hi"][k] + est_parts["sp_lo"][k], var=est_var[k],
                    sum_p_hi=est_parts["sp_hi"][k], n_hi=est_parts["n_hi"][k], sum_p_lo=est_parts["sp_lo"][k],
                    n_lo=est_parts["n_lo"][k], level=level, threshold=threshold, cost_fp=cost_fp, cost_fn=cost_fn)
            if rows_all[k] == 0:
                status = "empty"
            elif alerts:
                status = "alert"
            elif nl == 0:
                status = "pending"
            elif nl < min_count:
                status = "insufficient"
            else:
                status = "ok"
            rows.append(StatusRow(
                period=labels[pi], start=str(starts[pi].astype("datetime64[s]")),
                end=str(np.datetime64(ends[pi], "s")), slice=names[si], rows=int(rows_all[k]),
                labelled=int(nl), pending=int(pending[k]), overdue=int(overdue[k]), conf=conf, rate=rate,
                ci_low=ci_low, ci_high=ci_high, ece=ece, brier=brier, nll=nll, citl=citl, slope=slope,
                slope_p=slope_p, psi=psi, shift_p=shift_p, status=status,
                alerts=_alerts(alerts, labels[pi], names[si]),
                diagnosis=diagnosis, fix=fix, expected_positives=exp_pos, realised_positives=real_pos,
                estimate=estimate, details=details))
    return StoreStatus(rows=tuple(rows), reference=ref_label, stats=stats_out, **settings)


@dataclass(frozen=True, eq=False)
class _Cells:
    key: np.ndarray
    y: np.ndarray
    n: np.ndarray
    eta: np.ndarray
    order: np.ndarray
    bounds: np.ndarray


def _cells(key: np.ndarray, lab: np.ndarray, y: np.ndarray, cell: np.ndarray, n: np.ndarray, seta: np.ndarray,
           sp: np.ndarray, b: np.ndarray, bins: int, K: int) -> _Cells:
    """Labelled groups merged to (key, label, logit cell): weights and mean logits, sorted by key."""
    m = lab
    code = (key[m] * 2 + y[m].astype(np.int64)) * CELLS + cell[m]
    uniq, inv = np.unique(code, return_inverse=True)
    w = np.bincount(inv, weights=n[m])
    e = np.bincount(inv, weights=seta[m]) / w
    k_of = uniq // (2 * CELLS)
    y_of = (uniq // CELLS) % 2
    bounds = np.searchsorted(k_of, np.arange(K + 1))
    return _Cells(k_of, y_of.astype(np.float64), w, e, np.arange(uniq.size), bounds)


def _fit_cells(c: _Cells, k: int) -> tuple[float, float, float, float, float] | None:
    sl = slice(c.bounds[k], c.bounds[k + 1])
    y, w, eta = c.y[sl], c.n[sl], c.eta[sl]
    if y.size == 0 or y.min() == y.max() or np.ptp(eta) == 0:
        return None
    try:
        return _logistic(eta, y, w)
    except VeracityError:  # separated or singular: no slope for this window
        return None


def _diagnose(k: int, rk: int, count: np.ndarray, s_p: np.ndarray, s_y: np.ndarray, hist_pos: np.ndarray, hist_neg: np.ndarray,
              slope_p: float, alpha_t: float, z_t: float, cells: _Cells, edges: np.ndarray,
              ref_label: str, in_reference: bool) -> tuple[str, str, dict[str, Any]]:
    """Prior shift vs likelihood shift vs plain miscalibration (see the module doc)."""
    from ..calibrators import adjust_prior

    n_k, n_r = count[k].sum(), count[rk].sum()
    pi_new = float(s_y[k].sum() / n_k)
    # the prior the scores embody: the reference's mean confidence (its labelled rate is noisier)
    pi_old = float(s_p[rk].sum() / n_r) if n_r else float("nan")
    extra: dict[str, Any] = {"prior_old": pi_old, "prior_new": pi_new}
    if not in_reference and not n_r:  # nothing labelled to compare with: the cause cannot be told
        return (f"miscalibration; the reference {ref_label} has no labelled rows here to tell a prior shift from "
                "a changed score-outcome relation",
                "recalibrate on a mature window (veracity monitor recalibrate)", extra)
    if in_reference or not 0 < pi_old < 1 or not 0 < pi_new < 1:
        return ("miscalibration in the reference window itself",
                "recalibrate on a mature window (veracity monitor recalibrate)", extra)
    pooled = (s_y[k].sum() + s_y[rk].sum()) / (n_k + n_r)
    z_rate = (pi_new - pi_old) / np.sqrt(pooled * (1 - pooled) * (1 / n_k + 1 / n_r))
    rate_moved = abs(z_rate) > z_t
    p_pos = chi2_homogeneity(hist_pos[k], hist_pos[rk])
    p_neg = chi2_homogeneity(hist_neg[k], hist_neg[rk])
    cond_stable = not (p_pos == p_pos and p_pos < alpha_t) and not (p_neg == p_neg and p_neg < alpha_t)
    slope_ok = not (slope_p == slope_p and slope_p < alpha_t)
    # apply the prior correction on the logit cells and re-test the realised count
    sl = slice(cells.bounds[k], cells.bounds[k + 1])
    w, eta, y = cells.n[sl], cells.eta[sl], cells.y[sl]
    p_adj = adjust_prior(expit(eta), pi_old, pi_new)
    exp_adj = float(np.dot(w, p_adj))
    sd_adj = float(np.sqrt(np.dot(w, p_adj * (1 - p_adj))))
    real = float(np.dot(w, y))
    adj_ok = sd_adj > 0 and abs(real - exp_adj) <= z_t * sd_adj
    idx = bin_index(p_adj, edges, "uniform")
    bw = np.bincount(idx, weights=w, minlength=edges.size - 1)
    bp = np.bincount(idx, weights=w * p_adj, minlength=edges.size - 1)
    by_ = np.bincount(idx, weights=w * y, minlength=edges.size - 1)
    extra.update(ece_after_adjust=float(np.abs(by_ - bp).sum() / bw.sum()), class_scores_p=[p_neg, p_pos],
                 rate_z=float(z_rate))
    if rate_moved and slope_ok and cond_stable and adj_ok:
        return (f"prior shift: base rate {pi_old:.4g} (mean confidence in {ref_label}) -> {pi_new:.4g}, scores "
                "within each class stable, slope consistent with 1",
                f"vc.adjust_prior(p, old={pi_old:.4g}, new={pi_new:.4g})", extra)
    if not rate_moved and cond_stable and slope_ok:
        return ("miscalibration without a change in base rate or class-conditional scores",
                "recalibrate on a mature window (veracity monitor recalibrate)", extra)
    why = []
    if not slope_ok:
        why.append("slope differs from 1")
    if not cond_stable:
        why.append("scores within a class changed")
    if rate_moved and not adj_ok:
        why.append("adjust_prior does not restore it")
    return ("likelihood/concept shift: " + ", ".join(why or ["the score-outcome relation changed"]),
            "recalibrate on a recent mature window (veracity monitor recalibrate) or retrain", extra)


# -- delayed labels: PPI, early evidence, shift-aware CBPE, confidence sequences (issue 26) ---------------
def _provisional_text(r: StatusRow, level: float) -> str:
    parts = []
    if r.estimate_ppi:
        e = r.estimate_ppi
        parts.append(f"PPI rate {e['estimate']:.4f} [{e['ci_low']:.4f}, {e['ci_high']:.4f}] from "
                     f"{e['labels']} audit labels and {r.rows} scores")
    if r.provisional and r.provisional.get("basis") == "partial labels":
        p = r.provisional
        parts.append(f"{p['labels']} labels so far, rate {p['rate']:.4f} [{p['ci_low']:.4f}, {p['ci_high']:.4f}] "
                     f"({p['caveat']})")
    c = r.confusion_ppi
    if c:
        parts.append(f"at t={c['threshold']:g} per row: TP {c['tp']['estimate']:.4f}, FP {c['fp']['estimate']:.4f}, "
                     f"FN {c['fn']['estimate']:.4f}, TN {c['tn']['estimate']:.4f}, cost {c['cost']['estimate']:.4f} "
                     f"[{c['cost']['ci_low']:.4f}, {c['cost']['ci_high']:.4f}] (PPI)")
    cbpe = r.estimate_cbpe or {}
    if cbpe.get("estimate") is not None:
        parts.append(f"CBPE rate {cbpe['estimate']:.4f}")
    if r.details.get("ppi_note"):
        parts.append(str(r.details["ppi_note"]))
    return "; ".join(parts) or "no labels yet"


def _bin_label(lo: float, hi: float, last: bool) -> str:
    return f"[{lo:.4g}, {hi:.4g}{']' if last else ')'}"


def _opt(v: Any) -> float | None:
    return float(v) if np.isfinite(v) else None


def _confusion_ppi(per_key: Any, aud: np.ndarray, pos: np.ndarray, flag: np.ndarray, n: np.ndarray, sp: np.ndarray,
                   sp2: np.ndarray, K: int, *, level: float, threshold: float, cost_fp: float, cost_fn: float
                   ) -> list[dict[str, Any] | None]:
    r"""PPI++ of the confusion and cost per row at the deployed threshold, per (period, slice).

    With :math:`a = [f \ge t]`, each quantity is the mean of a target that needs the label with a
    label-free prediction (as in :func:`veracity.ppi_audit`): TP :math:`ya` / :math:`fa`, FP
    :math:`(1-y)a` / :math:`(1-f)a`, FN :math:`y(1-a)` / :math:`f(1-a)`, TN :math:`(1-y)(1-a)` /
    :math:`(1-f)(1-a)`, cost :math:`c_{FP}(1-y)a + c_{FN}y(1-a)` / :math:`c_{FP}(1-f)a + c_{FN}f(1-a)`.
    Because :math:`a` splits the rows, every sum PPI needs is a sum over the flagged or the other
    rows of :math:`1, y, f, f^2, yf` — the groups the status query already has."""
    from ..delayed import PpiSums, ppi_from_sums
    from ..delayed._ppi import cut_to_range

    def split(mask: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return per_key(mask & flag, v), per_key(mask & ~flag, v)

    (n1, n0), (y1, y0), (f1, f0) = split(aud, n), split(aud & pos, n), split(aud, sp)
    (ff1, ff0), (yf1, yf0) = split(aud, sp2), split(aud & pos, sp)
    (m1, m0), (g1, g0), (gg1, gg0) = split(~aud, n), split(~aud, sp), split(~aud, sp2)
    n_all = n1 + n0
    # per quantity: (sum t, sum t^2, sum h, sum h^2, sum t h) over audited rows; (sum h, sum h^2) over the rest
    cf, cn = float(cost_fp), float(cost_fn)
    q = {
        "tp": (y1, y1, f1, ff1, yf1, g1, gg1),
        "fp": (n1 - y1, n1 - y1, n1 - f1, n1 - 2 * f1 + ff1, n1 - f1 - y1 + yf1, m1 - g1, m1 - 2 * g1 + gg1),
        "fn": (y0, y0, f0, ff0, yf0, g0, gg0),
        "tn": (n0 - y0, n0 - y0, n0 - f0, n0 - 2 * f0 + ff0, n0 - f0 - y0 + yf0, m0 - g0, m0 - 2 * g0 + gg0),
        "cost": (cf * (n1 - y1) + cn * y0, cf * cf * (n1 - y1) + cn * cn * y0, cf * (n1 - f1) + cn * f0,
                 cf * cf * (n1 - 2 * f1 + ff1) + cn * cn * ff0, cf * cf * (n1 - f1 - y1 + yf1) + cn * cn * yf0,
                 cf * (m1 - g1) + cn * g0, cf * cf * (m1 - 2 * g1 + gg1) + cn * cn * gg0),
    }
    names = list(q)
    stack = [np.concatenate([q[k][i] for k in names]) for i in range(7)]
    sums = PpiSums.from_counts(n=np.tile(n_all, len(names)), sum_y=stack[0], sum_yy=stack[1], sum_f=stack[2],
                               sum_ff=stack[3], sum_yf=stack[4], m=np.tile(m1 + m0, len(names)),
                               sum_fu=stack[5], sum_ffu=stack[6])
    out = ppi_from_sums(sums, level=level)
    # each interval cut at the range its quantity can take, as vc.ppi_audit's rows: shares in [0, 1], the
    # cost per row in [0, max(c_FP, c_FN)]
    top = np.repeat([1.0, 1.0, 1.0, 1.0, max(cf, cn)], K)
    cut_to_range(out, {"ci": (0.0, top)})
    est, lo, hi = (np.asarray(out[c]).reshape(len(names), K) for c in ("estimate", "ci_low", "ci_high"))
    ok = (n_all >= 2) & np.isfinite(est).all(axis=0)
    res: list[dict[str, Any] | None] = []
    for k in range(K):
        if not ok[k]:
            res.append(None)
            continue
        res.append({"threshold": float(threshold), "cost_fp": cf, "cost_fn": cn, "labels": int(n_all[k]),
                    **{name: {"estimate": float(est[i, k]), "ci_low": float(lo[i, k]), "ci_high": float(hi[i, k])}
                       for i, name in enumerate(names)}})
    return res


def _with_delayed_labels(status: StoreStatus, g: dict[str, np.ndarray], seq: dict[str, np.ndarray],
                         starts: np.ndarray, last_end: np.datetime64, by: str | None, level: float, alerts: str,
                         tolerance: float, min_count: int, bins: int, cost_fp: float = 1.0,
                         cost_fn: float = 1.0) -> StoreStatus:
    """Add PPI, provisional and shift-aware CBPE estimates and the confidence sequences to each row,
    per score bin (``bins``) the PPI rate and the bin's own confidence sequence, and the PPI
    confusion and cost per row at the deployed threshold (``confusion_ppi``).

    The false-alarm level of the sequential alerts, ``alpha = 1 - alert_level`` per cohort, is
    shared out in advance: ``alpha / 2`` for calibration-in-the-large (the overall sequence)
    and ``alpha / 2`` over the ``bins`` score bins (``alpha / (2 bins)`` each, Bonferroni).
    """
    from dataclasses import replace

    from ..delayed import PpiSums, first_alarm, ppi_from_sums, ppi_records, sequence_from_sums
    from ..delayed._ppi import RATE_BOUNDS, cut_to_range

    rows = list(status.rows)
    if not rows:
        return status
    n_p = len(starts)
    n_s = len(rows) // n_p
    names = [r.slice for r in rows[:n_s]]
    K = n_p * n_s
    B = int(bins)

    # per (period, slice) sums, (all) counting every slice's groups too (as in _assemble)
    pidx = np.searchsorted(starts.astype("datetime64[us]").astype(np.int64), np.asarray(g["period"], dtype=np.int64))
    slice_of = {name: i for i, name in enumerate(names)}

    def slice_index(values: Any) -> np.ndarray:
        """Each group's slice position (vectorised: a lookup per distinct slice, not per group)."""
        v = np.asarray(values)
        if by is None or v.size == 0:
            return np.zeros(v.size, np.int64)
        uniq, inv = np.unique(v.astype(str), return_inverse=True)
        pooled_at = slice_of.get(OTHER, 0)  # a name beyond max_slices counts in the pooled slice
        return np.array([slice_of.get(u, pooled_at) for u in uniq.tolist()], dtype=np.int64)[inv.reshape(-1)]

    if by is None:
        sidx = np.zeros(np.asarray(g["slice"]).size, np.int64)
    else:  # the groups carry the status's own (pooled) slice names: (all) first, the rest sorted, as in _assemble
        sidx = np.searchsorted(np.array(names[1:]), np.asarray(g["slice"]).astype(str)) + 1
    cols = {k: np.asarray(g[k]) for k in ("state", "audited", "y", "n", "sp", "sp2", "bin", "flag")}
    if by is not None:
        pidx = np.concatenate([pidx, pidx])
        sidx = np.concatenate([sidx, np.zeros_like(sidx)])
        cols = {k: np.concatenate([v, v]) for k, v in cols.items()}
    key = pidx * n_s + sidx
    state, aud = cols["state"], cols["audited"] == 1
    y, n = cols["y"].astype(np.float64), cols["n"].astype(np.float64)
    sp, sp2 = cols["sp"].astype(np.float64), cols["sp2"].astype(np.float64)
    kb = key * B + cols["bin"].astype(np.int64)

    def per_key(mask: np.ndarray, values: np.ndarray) -> np.ndarray:
        return np.bincount(key[mask], weights=values[mask], minlength=K)

    def per_key_bin(mask: np.ndarray, values: np.ndarray) -> np.ndarray:
        return np.bincount(kb[mask], weights=values[mask], minlength=K * B)

    pos = y == 1

    def ppi_sums(per: Any) -> PpiSums:
        return PpiSums.from_counts(n=per(aud, n), sum_y=per(aud & pos, n), sum_f=per(aud, sp),
                                   sum_ff=per(aud, sp2), sum_yf=per(aud & pos, sp), m=per(~aud, n),
                                   sum_fu=per(~aud, sp), sum_ffu=per(~aud, sp2))

    records = ppi_records(ppi_sums(per_key), level=level)
    confusion = _confusion_ppi(per_key, aud, pos, cols["flag"] == 1, n, sp, sp2, K, level=level,
                               threshold=status.threshold, cost_fp=cost_fp, cost_fn=cost_fn)
    seen = (state == 0) | (state == 3)
    seen_n, seen_pos = per_key(seen, n), per_key(seen & pos, n)
    early_n = per_key(state == 3, n)

    # per (period, slice, bin): the PPI rate of the bin (its audit labels with all its scores), the
    # final labels' rate with its Wilson interval, the mean score of all the bin's rows
    b_sums = ppi_sums(per_key_bin)
    b_ppi = ppi_from_sums(b_sums, level=level)
    cut_to_range(b_ppi, RATE_BOUNDS)  # each bin's rate, as vc.ppi_mean reports one
    b_has = (np.asarray(b_sums.n) >= 2) & np.isfinite(b_ppi["estimate"])
    everyone = np.ones(n.size, dtype=bool)
    b_rows, b_sp = per_key_bin(everyone, n), per_key_bin(everyone, sp)
    final = state == 0
    b_lab, b_pos = per_key_bin(final, n), per_key_bin(final & pos, n)
    b_lo, b_hi = binomial_interval(b_pos, b_lab, method="wilson", level=level)
    with np.errstate(divide="ignore", invalid="ignore"):
        b_conf = np.where(b_rows > 0, b_sp / b_rows, np.nan)
        b_rate = np.where(b_lab > 0, b_pos / b_lab, np.nan)
    edges = uniform_edges(B)
    b_names = [_bin_label(edges[j], edges[j + 1], j == B - 1) for j in range(B)]

    # confidence sequences of the final labels, per slice (and per slice x bin), one batch per day
    # they became final
    sq = {k: np.asarray(v) for k, v in seq.items()}
    days_raw = np.asarray(sq.get("day", np.array([], dtype=np.int64)), dtype=np.int64)
    bins_raw = np.asarray(sq.get("bin", np.zeros(days_raw.size, dtype=np.int64)), dtype=np.int64)
    s_idx = slice_index(sq.get("slice", np.array([], dtype=object)))
    sn, sx, sxx = (np.asarray(sq.get(c, np.array([])), dtype=np.float64) for c in ("n", "sx", "sxx"))
    if by is not None:
        s_idx = np.concatenate([s_idx, np.zeros_like(s_idx)])
        days_raw, bins_raw, sn, sx, sxx = (np.concatenate([a, a]) for a in (days_raw, bins_raw, sn, sx, sxx))
    days = np.unique(days_raw)
    alpha = 1.0 - status.alert_level
    alpha_all, alpha_bin = alpha / 2.0, alpha / (2.0 * B)
    D = days.size
    if D:
        d_idx = np.searchsorted(days, days_raw)
        flat = (s_idx * B + bins_raw) * D + d_idx
        grids = [np.bincount(flat, weights=v, minlength=n_s * B * D).reshape(n_s, B, D) for v in (sn, sx, sxx)]
        low, high = sequence_from_sums(*(a.sum(axis=1) for a in grids), alpha=alpha_all)
        b_low, b_high = sequence_from_sums(*grids, alpha=alpha_bin)
        labels_so_far = np.cumsum(grids[0].sum(axis=1), axis=1)
        b_labels = np.cumsum(grids[0], axis=2)
        alarm = first_alarm(low, high, tolerance)
        b_alarm = first_alarm(b_low, b_high, tolerance)
    last_us = last_end.astype("datetime64[us]")
    ends = np.concatenate([starts[1:].astype("datetime64[us]"), [last_us]]).astype(np.int64)
    # the day index of each window's bounds: labels final by the window's end; the last window's: by as-of
    look = np.searchsorted(days, ends, side="left") - 1 if D else np.full(n_p, -1)
    if D:
        look[-1] = D - 1
    tol_text = "0" if not tolerance else f"+-{tolerance:g}"

    # the per-bin records as plain lists, in (period, slice, bin) order (one conversion, not one per value)
    def listed(a: np.ndarray) -> list[Any]:
        v = np.asarray(a, dtype=np.float64)
        return np.where(np.isfinite(v), v, np.nan).astype(object).tolist() if v.size else []

    def none_for_nan(a: np.ndarray) -> list[Any]:
        return [None if x != x else x for x in listed(a)]

    if D:
        at = np.maximum(look, 0)  # (n_s, B, n_p) -> (n_p, n_s, B), flattened like k * B + bin
        seq_n = np.where(look >= 0, b_labels[:, :, at], 0).transpose(2, 0, 1).reshape(-1)
        seq_lo = np.where(seq_n > 0, b_low[:, :, at].transpose(2, 0, 1).reshape(-1), np.nan)
        seq_hi = np.where(seq_n > 0, b_high[:, :, at].transpose(2, 0, 1).reshape(-1), np.nan)
        seq_alert = (seq_n > 0) & ((seq_lo > tolerance) | (seq_hi < -tolerance))
    else:
        seq_n = np.zeros(K * B)
        seq_lo = seq_hi = np.full(K * B, np.nan)
        seq_alert = np.zeros(K * B, dtype=bool)
    L = {"rows": b_rows.astype(np.int64).tolist(), "conf": none_for_nan(b_conf), "lab": b_lab.astype(np.int64).tolist(),
         "rate": none_for_nan(b_rate), "lo": none_for_nan(b_lo), "hi": none_for_nan(b_hi), "has": b_has.tolist(),
         "est": listed(b_ppi["estimate"]), "est_lo": listed(b_ppi["ci_low"]), "est_hi": listed(b_ppi["ci_high"]),
         "lam": listed(b_ppi["lam"]), "labels": np.asarray(b_sums.n).astype(np.int64).tolist(),
         "seq_lo": none_for_nan(seq_lo), "seq_hi": none_for_nan(seq_hi), "seq_n": seq_n.astype(np.int64).tolist(),
         "alert": seq_alert.tolist()}
    lo_edges, hi_edges = edges[:-1].tolist(), edges[1:].tolist()

    alarms: dict[str, Any] = {}
    prior_shift: dict[int, str] = {}  # slice index -> why CBPE is withdrawn from then on
    new_rows = []
    for pi in range(n_p):
        j = int(look[pi])
        for si in range(n_s):
            k = pi * n_s + si
            r = rows[k]
            rec = records[k]
            cbpe: dict[str, Any] | None = rec["estimate_cbpe"] if r.rows else None
            if si in prior_shift and cbpe is not None:
                cbpe = {"estimate": None, "ci_low": None, "ci_high": None, "withdrawn": prior_shift[si]}
            details = dict(r.details)
            if rec["note"] and rec["estimate_ppi"]:
                details["ppi_note"] = rec["note"]
            provisional = None
            unfinished = r.pending > 0
            if unfinished and (early_n[k] > 0 or rec["estimate_ppi"]):
                if rec["estimate_ppi"]:
                    provisional = {"basis": "ppi", **rec["estimate_ppi"]}
                else:
                    lo_, hi_ = binomial_interval(seen_pos[k], seen_n[k], method="wilson", level=level)
                    provisional = {
                        "basis": "partial labels", "labels": int(seen_n[k]), "rate": float(seen_pos[k] / seen_n[k]),
                        "ci_low": float(lo_), "ci_high": float(hi_),
                        "caveat": "early labels are not a random sample (e.g. confirmed positives arrive first)"}
            seq_low = seq_high = None
            if j >= 0:
                seq_low, seq_high = float(low[si, j]), float(high[si, j])
            bin_rows = [{
                "bin": b_names[bj], "lo": lo_edges[bj], "hi": hi_edges[bj], "rows": L["rows"][f], "conf": L["conf"][f],
                "labelled": L["lab"][f], "rate": L["rate"][f], "ci_low": L["lo"][f], "ci_high": L["hi"][f],
                "estimate_ppi": None if not L["has"][f] else {
                    "estimate": L["est"][f], "ci_low": L["est_lo"][f], "ci_high": L["est_hi"][f], "lam": L["lam"][f],
                    "labels": L["labels"][f], "sufficient": L["labels"][f] >= MIN_PPI_LABELS},
                "sequence_low": L["seq_lo"][f], "sequence_high": L["seq_hi"][f], "sequence_labels": L["seq_n"][f],
                "alert": L["alert"][f]} for bj, f in enumerate(range(k * B, k * B + B))]
            alerts_now: list[str] = list(r.alerts)
            if alerts == "sequential":
                alerts_now = [a for a in alerts_now if not a.startswith(("calibration", "slope", "score shift"))]
                outside = seq_low is not None and seq_high is not None and (
                    seq_low > tolerance or seq_high < -tolerance)
                if outside:
                    alerts_now.append(f"sequential: mean(y - p) is in [{seq_low:+.4f}, {seq_high:+.4f}], outside "
                                      f"{tol_text} (anytime-valid at alpha {alpha_all:.2g})")
                for br in bin_rows:
                    if br["alert"]:
                        alerts_now.append(f"sequential: scores in {br['bin']}: mean(y - p) is in "
                                          f"[{br['sequence_low']:+.4f}, {br['sequence_high']:+.4f}], outside "
                                          f"{tol_text} (anytime-valid at alpha {alpha_bin:.2g})")
            st = r.status
            if alerts == "sequential":
                st = ("empty" if r.rows == 0 else "alert" if alerts_now else "pending" if r.labelled == 0
                      else "insufficient" if r.labelled < min_count else "ok")
            e_ppi = rec["estimate_ppi"]
            if e_ppi is not None:  # calibration-in-the-large from the audit labels: rate - score, its interval
                e_ppi = {**e_ppi, "rate_minus_score": rec["rectifier"]}
            new_rows.append(replace(r, alerts=_alerts(alerts_now, r.period, r.slice), status=st, details=details,
                                    estimate_ppi=e_ppi, confusion_ppi=confusion[k], estimate_cbpe=cbpe,
                                    provisional=provisional,
                                    sequence_low=seq_low, sequence_high=seq_high, bins=bin_rows,
                                    diagnosis=r.diagnosis if alerts == "window" or alerts_now else None,
                                    fix=r.fix if alerts == "window" or alerts_now else None))
            if r.diagnosis and r.diagnosis.startswith("prior shift") and si not in prior_shift:
                prior_shift[si] = (f"prior shift diagnosed in {r.period} ({r.diagnosis.split(': ', 1)[1].split(',')[0]}); "
                                   "the label-free estimate assumes the old prior; use the PPI estimate or "
                                   f"{r.fix}")
    if alerts == "sequential" and D:
        for si, name in enumerate(names):
            # the first day any of the slice's sequences (overall, or a score bin) left the calibrated region
            hits = [(int(alarm[si]), -1)] + [(int(b_alarm[si, bj]), bj) for bj in range(B)]
            hits = [h for h in hits if h[0] >= 0]
            if not hits:
                continue
            jd, bj = min(hits)
            lo_, hi_ = (low[si, jd], high[si, jd]) if bj < 0 else (b_low[si, bj, jd], b_high[si, bj, jd])
            alarms[name] = {"day": str(np.datetime64(int(days[jd]), "us").astype("datetime64[D]")),
                            "labels": int(labels_so_far[si, jd]), "low": float(lo_), "high": float(hi_),
                            "bin": None if bj < 0 else b_names[bj]}
    return replace(status, rows=tuple(new_rows), sequence_alarms=alarms)


def store_plan(store: Any, *, width: float, level: float = 0.95, freq: str | None = "W", window: str | None = None,
               as_of: Any = None, horizon: str | float | None = None, by: str | None = None,
               model: str | None = None) -> Any:
    """Labels to draw at random per window (and slice) for a PPI interval of ``width`` on its rate.

    Planned on the window's rows that have no final label yet, from their scores' own mean and
    variance (:func:`veracity.delayed.plan_from_sums`); a :class:`veracity.delayed.LabelPlan`.
    """
    import narwhals as nw

    from ..delayed import plan_from_group_sums
    from ..sources._grouped import grouped_sums

    if window is not None:
        window_s: float | None = parse_window(window)
        freq = None
    else:
        window_s = None
        if freq not in FREQ_NAMES:
            raise VeracityError(f"freq must be one of {', '.join(FREQ_NAMES)}; got {freq!r}", param="freq")
    t_as_of = parse_instant(as_of)
    as_of_us = int(t_as_of.astype("datetime64[us]").astype(np.int64))
    horizon_s = None if horizon is None else parse_duration(horizon, "--horizon")
    horizon_us = None if horizon_s is None else int(round(horizon_s * 1e6))
    con = store.connect(read_only=True)
    try:
        if by is not None and by not in store.slices(con=con):
            raise VeracityError(f"slice {by!r} was never logged; log predictions with --by COL first", param="by")
        if model is not None:
            check_model(con, model)
        start_sql, _ = period_sql(freq, window_s, as_of_us, "p.ts")
        rows = _rows(con, period=start_sql, as_of_us=as_of_us, horizon_us=horizon_us, slice_col=by, model=model)
        score = nw.col("score")  # the rows without a final label (state 0: final)
        got = grouped_sums(rows, {"period": nw.col("period"), "slice": nw.col("slice")},
                           {"sf": score, "sff": score * score}, where=nw.col("state") != 0)
    finally:
        con.close()
    order = np.lexsort((got["slice"].astype(str), got["period"]))  # by period, then slice
    got = {k: v[order] for k, v in got.items()}
    keys = [period_label(np.datetime64(int(t), "us"), freq, window_s) + ("" if by is None else f" [{s}]")
            for t, s in zip(got["period"], got["slice"])]
    return plan_from_group_sums(keys, rows=got["n"], sum_f=got["sf"], sum_ff=got["sff"], width=width, level=level)


def _with_segments(store: Any, con: Any, status: StoreStatus, starts: np.ndarray, period: str,
                   as_of_us: int, horizon_us: int | None, model: str | None, min_count: int,
                   level: float) -> StoreStatus:
    """Per window, the miscalibrated segments over the logged slice columns (:func:`veracity.segments`
    on the window's final labels, read as a DuckDB relation: only the segment table comes back).
    ``period``: the SQL of a row's period start, the status's own, so a window's segments read
    exactly its rows (a rolling window holds (start, start + w], a calendar period [start, next))."""
    from dataclasses import replace

    from ..segments import segments as find_segments

    features = store.slices(con=con)
    if not features:
        raise VeracityError("segments=True needs slice columns: log predictions with by=[...] (--by COL) first",
                            param="segments")
    final = "TRUE" if horizon_us is None else f"epoch_us(p.ts) + {horizon_us} <= {as_of_us}"
    cols = ", ".join(f"p.{quote_identifier(_slice_name(f))} AS {quote_identifier(f)}" for f in features)
    found: dict[str, list[dict[str, Any]]] = {}
    for start, row in zip(starts, [r for r in status.rows if r.slice == ALL]):
        if row.labelled < min_count:
            continue
        params: list[Any] = [int(start.astype("datetime64[us]").astype(np.int64))]
        if model is not None:
            params.append(model)
        rel = con.sql(
            f"SELECT p.score, p.label, {cols} FROM predictions p WHERE epoch_us({period}) = $1 "
            f"AND p.ts <= make_timestamp({as_of_us}) AND p.label IS NOT NULL AND "
            f"p.observed <= make_timestamp({as_of_us}) AND {final}" + (" AND p.model = $2" if model else ""),
            params=params)
        result = find_segments(rel, score="score", label="label", features=list(features), level=level,
                               min_count=max(50, min_count // 2))
        found[row.period] = [{"segment": d.segment, "n": d.n, "conf": d.conf, "rate": d.rate, "gap": d.gap,
                              "ci_low": d.ci_low, "ci_high": d.ci_high, "q_value": d.q_value}
                             for d in result.discoveries[:5]]
    rows = tuple(replace(r, segments=found.get(r.period, [])) if r.slice == ALL else r for r in status.rows)
    return replace(status, rows=rows)


def _slice_name(feature: str) -> str:
    return "s_" + feature
