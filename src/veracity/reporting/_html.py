r"""``vc.report``: one self-contained, offline HTML page.

The page holds a summary, the reliability diagram(s) as inline SVG, the full
reliability table, slices, the before/after ledger and the calibrator's
metadata when a calibrator is given, operating curves, and an interactive
threshold explorer. It carries aggregates only — per-bin statistics and the
cumulative (TP, FP) counts at a few thousand cut points — never rows, so a
10⁶-row audit stays well under 2 MB. Nothing is fetched: the CSS and the
script are inlined and a Content-Security-Policy forbids every request.
Every user-supplied string is escaped; the same inputs give the same bytes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..core._audit import AuditResult, audit
from ..core._validation import VeracityError, labels_with_pos_label, prepare_binary
from .._version import __version__
from ._sections import (
    _about,
    _asset,
    _calibrator_meta,
    _e,
    _explorer,
    _have_matplotlib,
    _json_script,
    _ledger,
    _reliability_table,
    _section,
    _slices,
    _summary,
    _svg,
)
from ..core._compat import renamed
from ..core._display import Display

_CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
    "img-src data:; base-uri 'none'; form-action 'none'"
)


@dataclass(frozen=True, repr=False)
class Report(Display):
    """A rendered report: ``html`` (the whole page) and the ``sections`` it holds.

    ``save(path)`` writes the page; ``str(report)`` is a one-line description.
    """

    html: str = field(repr=False)
    sections: tuple[str, ...]
    notes: tuple[str, ...] = ()
    #: the headline numbers of the page (n, base rate, metrics), for ``--json`` and scripts
    summary: dict[str, Any] = field(default_factory=dict)

    @property
    def size(self) -> int:
        """Size of the page in bytes (UTF-8)."""
        return len(self.html.encode("utf-8"))

    def save(self, path: str | Path) -> Path:
        from .._files import write_atomic

        return write_atomic(path, self.html)

    def to_dict(self) -> dict[str, Any]:
        return {"sections": list(self.sections), "bytes": self.size, "notes": list(self.notes),
                "summary": dict(self.summary)}

    def _repr_html_(self) -> str:
        """Inline in a notebook: the page in a sandboxed frame (its scripts run, nothing is fetched)."""
        import html as _html

        return (f'<iframe title="veracity report" sandbox="allow-scripts" srcdoc="{_html.escape(self.html)}" '
                'style="width:100%;height:760px;border:1px solid #e4e7eb;border-radius:4px"></iframe>')

    def __str__(self) -> str:
        text = f"Calibration report: {self.size / 1024:,.0f} KB; sections: {', '.join(self.sections)}"
        if self.notes:
            text += "\n" + "\n".join(f"note: {n}" for n in self.notes)
        return text


# -- the page ---------------------------------------------------------------------------------
@renamed(ci="bootstrap")
def report(
    scores: Any,
    labels: Any,
    *,
    out: str | Path | None = None,
    calibrator: Any = None,
    score_type: str = "probability",
    sample_weight: Any = None,
    pos_label: Any = None,
    by: Any = None,
    by_name: str | None = None,
    max_groups: int | None = 100,
    bins: int = 15,
    strategy: str = "uniform",
    interval: str = "wilson",
    level: float = 0.95,
    min_count: int = 20,
    threshold: float = 0.5,
    cost_fp: float = 1.0,
    cost_fn: float = 1.0,
    target_recall: float | None = 0.95,
    recall_threshold: float | None = None,
    bootstrap: bool | str = True,
    n_resamples: int = 1000,
    title: str = "Calibration report",
    source: str | None = None,
    details: dict[str, Any] | None = None,
    timestamp: bool | str = False,
    max_cuts: int = 4000,
    figures: bool = True,
    store: Any = None,
) -> Report:
    r"""Build a self-contained HTML calibration report (and write it to ``out`` if given).

    Sections: summary (N, base rate, ECE with its interval when the estimator
    is available, Brier and its decomposition, NLL, AUC, accuracy); the
    reliability diagram and full table; with ``by=`` one audit per slice; with a
    fitted ``calibrator`` the before/after diagram, ``vc.compare``'s ledger and
    the calibrator's metadata; operating curves; and a threshold explorer whose
    slider shows TP/FP/FN/TN, recall, false-alarm rate, precision, alerts and
    cost :math:`c_{FP}\,\mathrm{FP} + c_{FN}\,\mathrm{FN}` (costs editable) at
    each cut point, marking :math:`t^* = c_{FP}/(c_{FP}+c_{FN})` and the
    ``target_recall`` threshold: ``recall_threshold`` when given (fit it on calib
    rows, e.g. with ``vc.recall_threshold``), else computed on these rows — which
    flatters it, and the page says so.

    With a calibrator the explorer and curves use the calibrated probabilities
    (thresholds are chosen on probabilities you can trust); ``scores`` are the
    raw scores of ``score_type`` that the calibrator takes. ``details`` adds
    key/value lines to the header (e.g. model revision). The page has no
    timestamp unless ``timestamp=True`` (UTC now) or a string is given. ``bootstrap``
    (``True``, ``"percentile"`` or ``"bca"``) adds seeded bootstrap intervals with
    ``n_resamples`` resamples and the ECE noise floor (``vc.audit``); on 10⁶ rows
    that takes tens of seconds — pass ``bootstrap=False`` to skip it (``ci=`` is the old name). ``figures=False``
    leaves out the diagrams (tables and explorer only); ``max_cuts`` caps the
    explorer's cut points (every distinct score below it, a fixed grid above).
    ``store`` (a :class:`~veracity.StoreStatus`, e.g. ``vc.MonitorStore(path).status()``)
    adds the "Over time" section: calibration per period with intervals, alerts and
    the pending share. ``pos_label`` names the positive class of two-valued labels.

    >>> r = report([.1, .3, .7, .9, .2, .8], [0, 0, 1, 1, 1, 0], min_count=1, bootstrap=False)
    >>> r.sections[:2], r.html.startswith("<!DOCTYPE html>")
    (('summary', 'reliability'), True)
    """
    if not (0 <= cost_fp < math.inf and 0 <= cost_fn < math.inf and cost_fp + cost_fn > 0):
        raise VeracityError(f"costs must be non-negative, finite and not both 0; got cost_fp={cost_fp}, cost_fn={cost_fn}")
    if target_recall is not None and not 0 < target_recall < 1:
        raise VeracityError(f"target_recall must lie in (0, 1), got {target_recall}")
    if pos_label is not None:  # the page reads 0/1 labels
        labels = labels_with_pos_label(labels, pos_label, np.shape(scores)[0])
    options = dict(bins=bins, strategy=strategy, interval=interval, level=level, min_count=min_count,
                   threshold=threshold, sample_weight=sample_weight)
    raw = prepare_binary(scores, labels, sample_weight=sample_weight, score_type=score_type)
    multiclass = raw.n_classes > 2
    notes: list[str] = []
    result = _audit_with_extras(scores, labels, score_type=score_type, by=by, by_name=by_name, max_groups=max_groups,
                                ci=bootstrap, n_resamples=n_resamples, notes=notes, **options)
    reading = "top-label confidence" if multiclass else ("probability" if score_type == "probability"
                                                          else "σ(logit)")
    plots = figures and _have_matplotlib()
    if figures and not plots:
        notes.append("diagrams omitted: install matplotlib (pip install 'veracity[plot]')")
    from ..plotting import _decisions, _reliability, _style

    sections: list[tuple[str, str, str]] = []  # (id, nav title, html)
    sections.append(("summary", "Summary", _section("summary", "Summary", _summary(result, reading))))

    # reliability
    figs = ""
    if plots:
        figs = _svg(_reliability.plot_reliability(result.table, title="Reliability diagram"), "rel",
                    "reliability diagram")
        figs = f'<figure class="plot-box">{figs}</figure>'
        if multiclass:
            fig = _reliability.plot_multiclass_reliability(scores, labels, score_type=score_type,
                                                           bins=bins, strategy=strategy, interval=interval,
                                                           level=level, min_count=min_count,
                                                           sample_weight=sample_weight,
                                                           classes=None if raw.n_classes <= 11 else range(11),
                                                           ncols=4)
            mc_fig = fig
    lead = ("Each point is one bin: mean confidence (x) against observed frequency (y), sized by its "
            "count, with its binomial interval. Points under the dashed diagonal are over-confident.")
    mc = ""
    if multiclass and plots:
        mc = f'<figure class="plot-box wide">{_svg(mc_fig, "mc", "per-class reliability")}</figure>'
    body = (f'<div class="rel-grid"><div>{figs}</div><div>{_reliability_table(result.table)}</div></div>'
            + mc)
    sections.append(("reliability", "Reliability", _section("reliability", "Reliability", body, lead)))

    # calibrator
    decision_p, decision_y, decision_w = (None, None, None) if multiclass else (raw.p, raw.y, raw.w)
    calibrated = None
    if calibrator is not None:
        cal_html, calibrated = _calibration(calibrator, scores, labels, raw=raw, score_type=score_type,
                                            result=result, plots=plots, notes=notes, **options)
        sections.append(("calibration", "Calibrator", cal_html))
        if calibrated is not None and not multiclass and calibrated.ndim == 1:
            decision_p = calibrated
    # explorer + curves (binary only)
    data_json = None
    if decision_p is not None:
        which = "calibrated probability" if calibrator is not None and decision_p is not raw.p else reading
        markup, data, ex_notes = _explorer(decision_p, decision_y, decision_w, cost_fp=cost_fp,
                                           cost_fn=cost_fn, target_recall=target_recall, reading=which,
                                           max_cuts=max_cuts, t_recall=recall_threshold)
        notes.extend(ex_notes)
        data_json = data
        lead = (f"Drag the threshold: rows whose {_e(which)} is ≥ t are flagged. Counts are exact at "
                + ("every distinct score" if data["exact"] else
                   f"each of the {len(data['thresholds']):,} cut points (0.001 grid plus score quantiles)")
                + ". t* = c<sub>FP</sub> / (c<sub>FP</sub> + c<sub>FN</sub>) is the cost-optimal "
                "threshold when the probabilities are honest; edit the costs to move it.")
        sections.append(("explorer", "Threshold explorer", _section("explorer-section", "Threshold explorer",
                                                                     markup, lead)))
        if plots:
            rc = _svg(_decisions.plot_risk_coverage(decision_p, decision_y, sample_weight=decision_w),
                      "rc", "risk-coverage curve")
            th = _svg(_decisions.plot_thresholds(decision_p, decision_y, sample_weight=decision_w,
                                                 cost_fp=cost_fp, cost_fn=cost_fn,
                                                 target_recall=target_recall,
                                                 recall_threshold=data["t_recall"]),
                      "th", "recall, precision, false-alarm rate and cost by threshold")
            body = (f'<div class="figure-row"><figure class="plot-box">{th}</figure>'
                    f'<figure class="plot-box">{rc}</figure></div>')
            sections.append(("curves", "Operating curves", _section(
                "curves", "Operating curves", body,
                "Left: rates and cost per 1,000 rows by threshold. Right: the error rate among the "
                "rows answered when only the most confident fraction is answered (selective prediction).")))
    else:
        notes.append("threshold explorer omitted: it needs binary scores")
        if plots:
            after = None
            if calibrator is not None and calibrated is not None and calibrated.ndim == 2:
                after = calibrated / calibrated.sum(axis=1, keepdims=True)
            rc = _svg(_decisions.plot_risk_coverage(scores if after is None else after, labels,
                                                    score_type=score_type if after is None else "probability",
                                                    sample_weight=sample_weight, title="Risk–coverage (top label)"),
                      "rc", "risk-coverage curve")
            sections.append(("curves", "Risk–coverage", _section(
                "curves", "Risk–coverage", f'<div class="figure-row"><figure class="plot-box">{rc}</figure></div>',
                "The error rate among the rows answered when only the most confident fraction is answered "
                "(selective prediction), reading the top label.")))

    if result.groups:
        svg = ""
        if plots:
            biggest = sorted(result.groups.items(), key=lambda kv: -kv[1].n)[:6]
            panels = {"(all)": result.table}
            panels.update({f"{result.group_column} = {k}": g.table for k, g in biggest})
            fig = _reliability._panel_tables(panels, ncols=4 if len(panels) in (4, 7, 8) else 3,
                                             colors=(_style.PALETTE[0], _style.PALETTE[1]), size=2.9)
            svg = _svg(fig, "slices", f"reliability by {result.group_column}")
        lead = (f"One audit per value of <code>{_e(result.group_column)}</code>, binned with the same "
                "edges as the whole. The bar shows ECE relative to the worst slice"
                + ("; the panels show the six largest slices." if len(result.groups) > 6 else "."))
        sections.append(("slices", "Slices", _section("slices", f"Slices by {result.group_column}",
                                                        _slices(result, svg), lead)))

    if store is not None:
        from ._store import store_section

        sections.append(("over-time", "Over time", store_section(store, source=str(source or "store"),
                                                                   plots=plots)))
    sections.append(("about", "About", _section("about", "About this report",
                                               _about(result, options, score_type, cost_fp, cost_fn,
                                                      target_recall, notes, timestamp))))
    page = _page(title=title, source=source, details=details, result=result, sections=sections,
                 explorer=data_json)
    summary = {"n": result.n, "n_classes": result.n_classes, "metrics": result.metrics}
    if result.n_classes <= 2:
        summary["base_rate"] = result.base_rate
    rep = Report(html=page, sections=tuple(s[0] for s in sections), notes=tuple(notes), summary=summary)
    if out is not None:
        rep.save(out)
    return rep


def _audit_with_extras(scores: Any, labels: Any, *, ci: bool | str, n_resamples: int, notes: list[str],
                       **kwargs: Any) -> AuditResult:
    """``vc.audit`` with bootstrap intervals (seeded: the same input gives the same page) and the noise floor."""
    if ci:
        try:
            return audit(scores, labels, bootstrap=ci, n_resamples=n_resamples, noise_floor=True, random_state=0,
                         **kwargs)
        except TypeError as exc:  # pragma: no cover - an audit core without the honest estimators
            if "unexpected keyword" not in str(exc):
                raise
            notes.append("ECE interval omitted: this vc.audit has no bootstrap= option")
    return audit(scores, labels, **kwargs)


def _calibration(calibrator: Any, scores: Any, labels: Any, *, raw: Any, score_type: str,
                 result: AuditResult, plots: bool, notes: list[str], **options: Any) -> tuple[str, np.ndarray | None]:
    from ..plotting import _reliability

    declared = getattr(calibrator, "score_type", None)
    if declared is not None and declared != score_type:
        raise VeracityError(
            f"the calibrator takes {declared} scores (it was fit on them) but the report was given "
            f"{score_type} scores; pass {{setting}} with the matching scores", param="score_type", value=declared
        )
    try:
        calibrated = np.asarray(calibrator.transform(scores), dtype=np.float64)
    except VeracityError:
        raise
    except Exception as exc:  # a calibrator from elsewhere: say what failed
        raise VeracityError(f"the calibrator could not transform these scores: {exc}") from None
    figure, ledger_html, meta_html = "", "", ""
    if plots:
        probs = calibrated / calibrated.sum(axis=1, keepdims=True) if calibrated.ndim == 2 else calibrated
        after = prepare_binary(probs, labels, sample_weight=options["sample_weight"])
        before_t = result.table
        after_t = _reliability._table_from_binary(
            after, bins=options["bins"], strategy=options["strategy"], interval=options["interval"],
            level=options["level"], min_count=options["min_count"])
        fig = _reliability._overlay_tables({"before": before_t, "after": after_t},
                                           title="Before and after calibration")
        figure = (f'<figure class="plot-box">'
                  f'{_svg(fig, "cal", "reliability before and after calibration")}</figure>')
    try:
        from ..calibrators import compare
    except ImportError:  # pragma: no cover - only while the calibrators are being built
        notes.append("ledger omitted: vc.compare is not available")
    else:
        ledger = compare(scores, labels, calibrator, score_type=score_type, bins=options["bins"],
                         strategy=options["strategy"], threshold=options["threshold"],
                         sample_weight=options["sample_weight"])
        ledger_html = "<h3>Before / after ledger</h3>" + _ledger(ledger)
    doc = calibrator.to_dict() if hasattr(calibrator, "to_dict") else None
    if isinstance(doc, dict):
        meta_html = '<h3 class="first">Calibrator metadata</h3>' + _calibrator_meta(doc)
    parts = [f'<div class="rel-grid"><div>{figure}</div><div>{meta_html}</div></div>' if figure
             else meta_html, ledger_html]
    lead = ("The calibrator was fit elsewhere; here it is applied to these rows. Regressions are "
            "shown, not hidden. Its metadata says which model revision, score type, fit window and "
            "cohort it belongs to: a new score generator invalidates it.")
    return _section("calibration", "Calibrator", "".join(parts), lead), calibrated


def _page(*, title: str, source: str | None, details: dict[str, Any] | None, result: AuditResult,
          sections: list[tuple[str, str, str]], explorer: dict[str, Any] | None) -> str:
    css = _asset("_style.css")
    facts = []
    if source:
        facts.append(f'<span class="fact"><span class="muted">source</span> {_e(source)}</span>')
    for k, v in (details or {}).items():
        facts.append(f'<span class="fact"><span class="muted">{_e(k)}</span> {_e(v)}</span>')
    facts.append(f'<span class="fact"><span class="muted">rows</span> {result.n:,}</span>')
    if result.n_classes > 2:
        facts.append(f'<span class="fact"><span class="muted">classes</span> {result.n_classes}</span>')
    nav = "".join(f'<a href="#{sid if sid != "explorer" else "explorer-section"}">{_e(name)}</a>'
                  for sid, name, _ in sections)
    body = "\n".join(h for _, _, h in sections)
    script = ""
    if explorer is not None:
        script = (f'<script type="application/json" id="vc-explorer-data">{_json_script(explorer)}</script>\n'
                  f"<script>{_asset('_explorer.js')}</script>")
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="{_CSP}">
<meta name="generator" content="veracity {_e(__version__)}">
<title>{_e(title)}</title>
<style>{css}</style>
</head>
<body>
<header class="top"><div class="wrap">
<div class="brand">veracity · calibration report</div>
<h1>{_e(title)}</h1>
<div class="facts">{"".join(facts)}</div>
<nav>{nav}</nav>
</div></header>
<main class="wrap">
{body}
</main>
<footer class="wrap">Made with veracity {_e(__version__)} — does 0.97 mean 97 times in 100?</footer>
{script}
</body>
</html>
"""
