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

import functools
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..core._audit import AuditResult, audit
from ..core._options import BootstrapMethod, IntervalMethod, ScoreType, Strategy
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
    #: the headline numbers of the page (n, base rate, metrics, and the findings of the
    #: "segments" and "comparison" sections), for ``--json`` and scripts
    summary: dict[str, Any] = field(default_factory=dict)
    #: what a notebook shows (``_repr_html_``): headline numbers, findings, the reliability diagram
    preview: str = field(default="", repr=False)

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
        """Inline in a notebook: a compact preview (the summary cards, the findings and the reliability
        diagram, in a sandboxed frame so the page's styles stay inside it), not the whole page: the
        explorer's data and every figure would put hundreds of KB into the notebook file.
        ``save(path)`` writes the whole self-contained page."""
        import html as _html

        if not self.preview:  # a Report built by hand
            return f"<pre>{_html.escape(str(self))}</pre>"
        return (f'<iframe title="veracity report (preview)" sandbox="" srcdoc="{_html.escape(self.preview)}" '
                'style="width:100%;height:600px;border:1px solid #e4e7eb;border-radius:4px"></iframe>')

    def __str__(self) -> str:
        text = f"Calibration report: {self.size / 1024:,.0f} KB; sections: {', '.join(self.sections)}"
        if self.notes:
            text += "\n" + "\n".join(f"note: {n}" for n in self.notes)
        return text


#: class panels the report draws beside the top-label diagram (three rows of four with the top label)
MAX_CLASS_PANELS = 11


def _worst_classes(scores: Any, labels: Any, *, score_type: str, sample_weight: Any, bins: Any,
                   strategy: str) -> list[int] | None:
    """The :data:`MAX_CLASS_PANELS` classes with the largest one-vs-rest ECE, worst first (ties: lower
    class first); ``None`` (every class) when there are no more classes than panels."""
    from ..core._metrics import ece
    from ..core._validation import prepare_classwise

    per_class = prepare_classwise(scores, labels, sample_weight=sample_weight, score_type=score_type)
    if len(per_class) <= MAX_CLASS_PANELS:
        return None
    how: Any = strategy  # checked by the audit before the page is drawn
    errors = np.array([ece(d.p, d.y, sample_weight=d.w, bins=bins, strategy=how) for d in per_class])
    return [int(k) for k in np.argsort(-errors, kind="stable")[:MAX_CLASS_PANELS]]


# -- the page ---------------------------------------------------------------------------------
#: ``target_recall``'s default: 0.95 (this object, so the page can tell "not given" from 0.95 given)
TARGET_RECALL = float("0.95")


def _by_name_alias(fn: Any) -> Any:
    """``by_name=`` (the old name of the slice column, a banned vocabulary name) still works, with one
    deprecation warning: the slices' name now comes from ``by=`` itself."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if "by_name" in kwargs:
            from ..core._compat import _warn_once

            name = kwargs.pop("by_name")
            _warn_once("report", "by_name",
                       "vc.report(by_name=) is deprecated: by= names the slices itself — a column name in the "
                       "frame form, a named Series, or {'segment': keys} with arrays")
            by = kwargs.get("by")
            if name is not None and by is not None and not isinstance(by, (str, dict)):
                kwargs["by"] = {str(name): by}
        return fn(*args, **kwargs)

    return wrapper


@_by_name_alias
@renamed(ci="bootstrap")
def report(
    scores: Any = None,
    labels: Any = None,
    *,
    score: Any = None,
    label: Any = None,
    out: str | Path | None = None,
    calibrator: Any = None,
    score_type: ScoreType = "probability",
    sample_weight: Any = None,
    pos_label: Any = None,
    by: Any = None,
    max_groups: int | None = 100,
    features: Any = None,
    depth: int | None = None,
    against: Any = None,
    bins: int = 15,
    strategy: Strategy = "uniform",
    interval: IntervalMethod = "wilson",
    level: float = 0.95,
    min_count: int = 20,
    threshold: float = 0.5,
    cost_fp: float | None = None,
    cost_fn: float | None = None,
    target_recall: float | None = TARGET_RECALL,
    recall_threshold: float | None = None,
    bootstrap: bool | BootstrapMethod = True,
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

    Array form ``report(scores, labels, ...)``; frame form ``report(frame, score="p",
    label="y", ...)`` (an in-memory pandas, polars or pyarrow frame), where ``by=``,
    ``sample_weight=``, ``features=`` and ``against=`` name columns.

    Sections: summary (N, base rate, ECE with its interval when the estimator
    is available, Brier and its decomposition, NLL, AUC, accuracy); the
    reliability diagram and full table; with ``by=`` one audit per slice; with a
    fitted ``calibrator`` the before/after diagram, ``vc.compare``'s ledger and
    the calibrator's metadata; operating curves; and a threshold explorer whose
    slider shows TP/FP/FN/TN, recall, false-alarm rate, precision, alerts and
    cost :math:`c_{FP}\,\mathrm{FP} + c_{FN}\,\mathrm{FN}` (costs editable) at
    each cut point, marking :math:`t^* = c_{FP}/(c_{FP}+c_{FN})` and the
    target-recall threshold.

    * ``by``: the slices — an array of keys (a named pandas/polars Series is named after
      itself), ``{"segment": keys}``, or a column name in the frame form. (``by_name=`` is
      the deprecated old way to name them.)
    * ``features`` adds **"Where it is miscalibrated"**: one call of
      :func:`veracity.segments` over these features (frame form: a list of column names;
      array form: ``{"region": array, ...}`` or a frame of feature columns) up to ``depth``
      (default 2): the multicalibration error with its sigma, the discovered segments with
      their gap, interval and q-value, how many segments were tested and how many were too
      small, and the gap-per-segment figure.
    * ``against`` adds **"Which model?"**: one call of
      :func:`veracity.compare_models` of these scores (model A) against a second model's
      scores on the same rows (model B: an array, ``{"new": array}`` to name it, or a column
      name in the frame form), of the same ``score_type``: paired differences of Brier, log
      loss, ECE and AUC with intervals and p-values, the CORP verdict, the Murphy diagram and
      the decision curve.
    * ``store``: a monitoring store — a path (``"monitor.duckdb"``), a
      :class:`~veracity.MonitorStore` or a :class:`~veracity.StoreStatus` — adds the "Over
      time" section; with a path or store and no ``scores`` the report audits the store's
      labelled rows.

    Costs and the explorer: ``cost_fp``/``cost_fn`` are the costs of a false alarm and a
    miss. When either is given the explorer opens at the threshold they imply,
    :math:`t^*`. When neither is given the page says that no costs were declared, its cost
    readouts assume 1:1 (:math:`t^* = 0.5`, an arbitrary point for a low-base-rate model),
    and the explorer opens at the target-recall threshold instead (at :math:`t^*` when
    there is none). The target-recall threshold is ``recall_threshold`` when given (fit it
    on calib rows, e.g. with ``vc.recall_threshold``), else computed on these rows for
    ``target_recall`` (default 0.95) — which flatters it, and the page says so. Its label
    comes from the threshold used: the recall it reaches on these rows, and the target it
    was fit for only when that is known (computed here, or ``target_recall`` passed along
    with ``recall_threshold``).

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
    ``pos_label`` names the positive class of two-valued labels. ``level`` is that of every interval
    on the page: the bins', the bootstrap's, the slices', the segments', the comparison's, the calibrator
    ledger's and a store's periods (a StoreStatus passed as it was made keeps its own, with a note).

    In a notebook the report displays a compact preview (headline numbers, findings and
    the reliability diagram, a few tens of KB); ``save()`` / ``out=`` write the whole
    self-contained page.

    >>> r = report([.1, .3, .7, .9, .2, .8], [0, 0, 1, 1, 1, 0], min_count=1, bootstrap=False)
    >>> r.sections[:2], r.html.startswith("<!DOCTYPE html>")
    (('summary', 'reliability'), True)
    """
    if depth is not None and features is None:
        raise VeracityError("depth= bounds the segment search: pass features= too (the features to search)",
                            param="depth")
    return _report(functools.partial(_inputs, score=score, label=label, sample_weight=sample_weight, by=by,
                                     features=features, against=against, pos_label=pos_label),
                   scores=scores, labels=labels, from_frame=score is not None, store=store, out=out,
                   calibrator=calibrator, score_type=score_type, max_groups=max_groups, depth=depth, bins=bins,
                   strategy=strategy, interval=interval, level=level, min_count=min_count, threshold=threshold,
                   cost_fp=cost_fp, cost_fn=cost_fn, target_recall=target_recall,
                   recall_threshold=recall_threshold, bootstrap=bootstrap, n_resamples=n_resamples, title=title,
                   source=source, details=details, timestamp=timestamp, max_cuts=max_cuts, figures=figures)


def _report(make_inputs: Any, *, scores: Any, labels: Any, from_frame: bool = False, store: Any, cost_fp: Any,
            cost_fn: Any, target_recall: Any, source: str | None, bins: int, **options: Any) -> Report:
    """Check the options, read the store, turn the rows into :class:`Inputs` (``make_inputs(scores,
    labels)``) and build the page. ``veracity report`` calls it with the arrays it read."""
    declared_target = target_recall is not TARGET_RECALL
    if target_recall is TARGET_RECALL:
        target_recall = 0.95
    costs_declared = cost_fp is not None or cost_fn is not None
    cost_fp = 1.0 if cost_fp is None else cost_fp
    cost_fn = 1.0 if cost_fn is None else cost_fn
    try:
        cost_ok = 0 <= cost_fp < math.inf and 0 <= cost_fn < math.inf and cost_fp + cost_fn > 0
    except TypeError:
        cost_ok = False
    if not cost_ok:
        raise VeracityError(f"costs must be non-negative, finite and not both 0; got cost_fp={cost_fp}, cost_fn={cost_fn}")
    if target_recall is not None:  # checked, not replaced: the default is told apart by identity
        from ..decisions._inputs import RECALL_ONE, check_target

        check_target(target_recall, "target_recall", one=RECALL_ONE)
    status = None
    if store is not None:
        from ._store import resolve_store

        status, store_rows, store_name = resolve_store(store, bins=bins, level=options["level"])
        if source is None and store_name:
            source = store_name
        if scores is None and not from_frame:
            if store_rows is None:
                raise VeracityError("report(store=<StoreStatus>) needs scores and labels to audit; pass the store's "
                                    "path (or a MonitorStore) to audit its labelled rows", param="store")
            if np.size(store_rows[0]) == 0:
                raise VeracityError(f"store {store_name} has no labelled rows yet; pass scores and labels to audit, "
                                    "or wait for outcomes", param="store")
            scores, labels = store_rows
    return _build(make_inputs(scores, labels), cost_fp=cost_fp, cost_fn=cost_fn, costs_declared=costs_declared,
                  target_recall=target_recall, declared_target=declared_target, source=source, bins=bins,
                  status=status, **options)




@dataclass
class Inputs:
    """The report's rows as arrays, with the names the page shows."""

    scores: Any
    labels: Any
    sample_weight: Any = None
    by: Any = None
    by_name: str | None = None
    features: dict[str, Any] | None = None
    against: Any = None
    score_name: str = "scores"
    against_name: str = "against"
    #: the positive class where ``pos_label`` named it ("fraud", or "label = fraud" with a column), which
    #: "About this report" says: the base rate and every rate on the page are that class's
    positive: str | None = None


def _name_of(value: Any) -> str | None:
    name = getattr(value, "name", None)
    return name if isinstance(name, str) and name else None


def _inputs(scores: Any, labels: Any, *, score: Any, label: Any, sample_weight: Any, by: Any, features: Any,
            against: Any, pos_label: Any) -> Inputs:
    """Arrays and names from the array form or the frame form (``score=``/``label=`` name columns)."""
    if score is not None or label is not None:
        return _frame_inputs(scores, labels, score=score, label=label, sample_weight=sample_weight, by=by,
                             features=features, against=against, pos_label=pos_label)
    if scores is None or labels is None:
        raise VeracityError("vc.report needs scores and labels: report(scores, labels, ...), the frame form "
                            "report(frame, score='p', label='y', ...), or report(store='monitor.duckdb')")
    n = np.shape(scores)[0] if np.ndim(scores) else 0
    if pos_label is not None:  # the page reads 0/1 labels
        labels = labels_with_pos_label(labels, pos_label, n)
    got = Inputs(scores=scores, labels=labels, sample_weight=sample_weight,
                 score_name=_name_of(scores) or "scores",
                 positive=None if pos_label is None else str(pos_label))
    if isinstance(by, str):
        raise VeracityError(f"by={by!r} names a column, which needs the frame form report(frame, score=, label=, "
                            "by=...); with arrays pass the keys, e.g. by={'segment': keys}", param="by")
    if isinstance(by, dict):
        if len(by) != 1:
            raise VeracityError(f"by= as a dict names one slice column, e.g. {{'segment': keys}}; got {len(by)} entries",
                                param="by")
        (got.by_name, got.by), = ((str(k), v) for k, v in by.items())
    elif by is not None:
        got.by, got.by_name = by, _name_of(by)
    if features is not None:
        got.features = _feature_arrays(features)
    if against is not None:
        if isinstance(against, str):
            raise VeracityError(f"against={against!r} names a column, which needs the frame form report(frame, "
                                "score=, label=, against=...); with arrays pass the second model's scores",
                                param="against")
        if isinstance(against, dict):
            if len(against) != 1:
                raise VeracityError("against= compares one second model: pass its scores, or {'name': scores}",
                                    param="against")
            (got.against_name, got.against), = ((str(k), v) for k, v in against.items())
        else:
            got.against, got.against_name = against, _name_of(against) or "against"
    return got


def _feature_arrays(features: Any) -> dict[str, Any]:
    """The array form's features: ``{"name": array}`` or a frame of feature columns."""
    if isinstance(features, dict):
        if not features:
            raise VeracityError("features= is empty; name at least one feature", param="features")
        return {str(k): v for k, v in features.items()}
    if isinstance(features, (str, list, tuple)):
        raise VeracityError("with arrays, features= maps names to arrays, e.g. features={'region': region}; to "
                            "name columns use the frame form report(frame, score='p', label='y', features=[...])",
                            param="features")
    from ..sources import is_frame

    if is_frame(features):
        import narwhals as nw

        from ..sources._arrow_numpy import series_to_numpy

        f = nw.from_native(features, eager_only=True)
        return {c: series_to_numpy(f.get_column(c)) for c in f.columns}
    raise VeracityError(f"features= must be a dict of arrays or a frame of feature columns, got "
                        f"{type(features).__name__}", param="features")


def _frame_inputs(data: Any, labels: Any, *, score: Any, label: Any, sample_weight: Any, by: Any, features: Any,
                  against: Any, pos_label: Any) -> Inputs:
    from ..sources._api import _Prepared

    if labels is not None:
        raise VeracityError("report(frame, score=..., label=...) takes no positional labels")
    if score is None or label is None:
        raise VeracityError("the frame form needs both column names: report(frame, score='p', label='y')")
    if data is None:
        raise VeracityError("the frame form needs the frame: report(frame, score='p', label='y')")
    from ..core._frameform import refuse_answers_as_scores

    refuse_answers_as_scores("report", score, label, sample_weight)  # the labels read as scores: a perfect model
    names = None
    if features is not None:
        if isinstance(features, str):
            features = [features]
        if not isinstance(features, (list, tuple)) or not features:
            raise VeracityError("with a frame, features= is a list of column names, e.g. features=['region', 'age']",
                                param="features")
        names = [str(f) if isinstance(f, str) else f for f in features]
    if against is not None and not isinstance(against, str):
        raise VeracityError("with a frame, against= names the second model's score column (a string)",
                            param="against")
    prep = _Prepared(data, score, label, sample_weight, by,
                     extra={"features": names or [], "against": against}, pos_label=pos_label)
    if prep.frame.lazy:
        raise VeracityError(
            f"vc.report reads every row into memory (the explorer, the figures); {prep.frame.backend} frames are "
            "lazy: collect a sample first (e.g. .collect() / .to_pandas()), or run `veracity report FILE`")
    s, y, w = prep.arrays()
    got = Inputs(scores=s, labels=y, sample_weight=w, score_name=", ".join(prep.score),
                 positive=None if pos_label is None else f"{label} = {pos_label}")
    if prep.by is not None:
        got.by, got.by_name = prep.slice_keys(), prep.by
    if names:
        from ..segments._api import _column_with_missing

        got.features = {n: _column_with_missing(prep, n) for n in names}
    if against is not None:
        got.against, got.against_name = prep.column(against), against
    return got


def _build(inp: Inputs, *, out: str | Path | None, calibrator: Any, score_type: ScoreType,
           max_groups: int | None, depth: int | None, bins: int, strategy: Strategy, interval: IntervalMethod,
           level: float, min_count: int, threshold: float, cost_fp: float, cost_fn: float,
           costs_declared: bool, target_recall: float | None, declared_target: bool,
           recall_threshold: float | None, bootstrap: bool | BootstrapMethod, n_resamples: int, title: str,
           source: str | None, details: dict[str, Any] | None, timestamp: bool | str, max_cuts: int,
           figures: bool, status: Any, notes_in: tuple[str, ...] = ()) -> Report:
    scores, labels, sample_weight, by = inp.scores, inp.labels, inp.sample_weight, inp.by
    options = dict(bins=bins, strategy=strategy, interval=interval, level=level, min_count=min_count,
                   threshold=threshold, sample_weight=sample_weight)
    raw = prepare_binary(scores, labels, sample_weight=sample_weight, score_type=score_type)
    multiclass = raw.top_label
    if multiclass:  # the report's accuracy and explorer read the argmax: no threshold cuts it (in its own words)
        from ..core._metrics import refuse_top_label_threshold

        refuse_top_label_threshold(threshold, raw.n_classes)
    notes: list[str] = list(notes_in)  # the caller's own (veracity report: why the fit rows gave no threshold)
    findings: list[tuple[str, str]] = []  # (section id, one line) for the preview
    about: list[list[str]] = []  # the question sections' settings, for "About this report"
    if inp.positive is not None:  # a page read as 0/1 did not say which class was 1
        about.append(["positive class", _e(inp.positive)])
    result = _audit_with_extras(scores, labels, score_type=score_type, by=by, by_name=inp.by_name,
                                max_groups=max_groups, ci=bootstrap, n_resamples=n_resamples, notes=notes, **options)
    reading = "top-label confidence" if multiclass else ("probability" if score_type == "probability"
                                                          else "σ(logit)")
    plots = figures and _have_matplotlib()
    if figures and not plots:
        notes.append("diagrams omitted: install matplotlib (pip install 'veracity[plot]')")
    from ..plotting import _decisions, _reliability, _style

    sections: list[tuple[str, str, str]] = []  # (id, nav title, html)
    # with a calibrator the summary, reliability and slices audit the scores as given, while the explorer and
    # the curves read the calibrated probabilities: each section says which it shows (the summary's ECE of
    # the raw scores read as the calibrated model's)
    before = (" These are the scores as given, before the calibrator: the Calibrator section shows them "
              "after it." if calibrator is not None else "")
    sections.append(("summary", "Summary", _section("summary", "Summary", _summary(result, reading),
                                                    before.strip())))

    # reliability
    figs = ""
    if plots:
        figs = _svg(_reliability.plot_reliability(result.table, title="Reliability diagram"), "rel",
                    "reliability diagram")
        figs = f'<figure class="plot-box">{figs}</figure>'
        if multiclass:
            shown = _worst_classes(scores, labels, score_type=score_type, sample_weight=sample_weight,
                                   bins=bins, strategy=strategy)
            fig = _reliability.plot_multiclass_reliability(scores, labels, score_type=score_type,
                                                           bins=bins, strategy=strategy, interval=interval,
                                                           level=level, min_count=min_count,
                                                           sample_weight=sample_weight, classes=shown,
                                                           ncols=4)
            mc_fig = fig
            mc_note = ("One panel per class, that class against the rest." if shown is None else
                       f"The {len(shown)} of {raw.n_classes} classes with the largest one-vs-rest ECE, worst "
                       f"first (classes {', '.join(map(str, shown))}); vc.plot_multiclass_reliability(..., "
                       "classes=[...]) draws others.")
    reliability_figure = figs
    lead = ("Each point is one bin: mean confidence (x) against observed frequency (y), sized by its "
            f"{'weight' if result.table.weighted else 'count'}, with its binomial interval. Points under "
            "the dashed diagonal are over-confident." + before)
    mc = ""
    if multiclass and plots:
        mc = (f'<figure class="plot-box wide">{_svg(mc_fig, "mc", "per-class reliability")}</figure>'
              f'<p class="note">{_e(mc_note)}</p>')
    body = (f'<div class="rel-grid"><div>{figs}</div><div>{_reliability_table(result.table)}</div></div>'
            + mc)
    sections.append(("reliability", "Reliability", _section("reliability", "Reliability", body, lead)))

    # where it is miscalibrated (issue 24)
    if inp.features is not None:
        if multiclass:
            notes.append("'Where it is miscalibrated' omitted: vc.segments needs binary scores")
        else:
            from ..segments import segments
            from ._findings import segments_section

            seg = segments(scores, labels, features=inp.features, depth=depth, sample_weight=sample_weight,
                           score_type=score_type, level=level)
            html_seg, line = segments_section(seg, plots=plots, reading=reading)
            about.append(["segments", _e(f"vc.segments over {', '.join(seg.features)}, depth {seg.depth}, "
                                         f"min_count {seg.min_count}, FDR {seg.fdr:g}")])
            sections.append(("segments", "Where it is miscalibrated", html_seg))
            findings.append(("segments", line))

    # which model (issue 25)
    if inp.against is not None:
        if multiclass:
            notes.append("'Which model?' omitted: the comparison needs binary scores")
        else:
            html_cmp, line = _comparison(inp, raw=raw, score_type=score_type, level=level, bins=bins,
                                         bootstrap=bootstrap, n_resamples=n_resamples, plots=plots, notes=notes)
            sections.append(("comparison", "Which model?", html_cmp))
            resamples = f"{n_resamples} paired resamples, random_state 0" if bootstrap else "no resamples"
            about.append(["model comparison", _e(f"vc.compare_models: {inp.score_name} (A) against "
                                                 f"{inp.against_name} (B), {resamples}")])
            findings.append(("comparison", line))

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
        assert decision_y is not None  # set with decision_p: binary labels
        markup, data, ex_notes = _explorer(decision_p, decision_y, decision_w, cost_fp=cost_fp,
                                           cost_fn=cost_fn, target_recall=target_recall, reading=which,
                                           max_cuts=max_cuts, t_recall=recall_threshold,
                                           costs_declared=costs_declared, declared_target=declared_target,
                                           weight_scale=raw.weight_scale if decision_w is raw.w else 1.0)
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
                                                 # a target that could not be fit: noted on the figure
                                                 # as beside the explorer, not warned (the page says it)
                                                 target_recall=(_decisions.quiet_target(target_recall)
                                                                if data["recall_missing"] and target_recall
                                                                is not None else data["recall_target"]),
                                                 recall_threshold=data["t_recall"]),
                      "th", "recall, precision, false-alarm rate and cost by threshold")
            body = (f'<div class="figure-row"><figure class="plot-box">{th}</figure>'
                    f'<figure class="plot-box">{rc}</figure></div>')
            sections.append(("curves", "Operating curves", _section(
                "curves", "Operating curves", body,
                "Left: rates and cost per 1,000 rows by threshold. Right: the error rate among the "
                "rows answered when only the most confident fraction is answered (selective prediction)."
                + (" Both read the calibrated probabilities." if which == "calibrated probability" else ""))))
    else:
        notes.append("threshold explorer omitted: it needs binary scores" + (
            "; these are two class columns, read top-label: pass the positive class's column alone "
            "for the binary reading with thresholds" if raw.n_classes == 2 else ""))
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
                "(selective prediction), reading the top label"
                + (" of the calibrated probabilities." if after is not None else "."))))

    if result.groups:
        svg = ""
        if plots:
            biggest = sorted(result.groups.items(), key=lambda kv: -kv[1].n)[:6]
            panels = {"(all)": result.table}
            panels.update({f"{result.group_column} = {k}": g.table for k, g in biggest})
            fig = _reliability._panel_tables(panels, ncols=4 if len(panels) in (4, 7, 8) else 3,
                                             colors=(_style.PALETTE[0], _style.PALETTE[1]), size=2.9,
                                             key=("bin of all rows", "bin of one slice"),
                                             prefix=f"{result.group_column} = ")
            svg = _svg(fig, "slices", f"reliability by {result.group_column}")
        floors = None
        if "noise_floor" in result.extras:  # each slice against its own floor (skipped with the bootstrap)
            from ._slice_noise import slice_floors

            floors = slice_floors(raw, by, result.groups, edges=result.table.stats.edges, strategy=strategy,
                                  max_groups=max_groups, n_resamples=n_resamples, alpha=1.0 - level)
        lead = (f"One audit per value of <code>{_e(result.group_column)}</code>, binned with the same "
                "edges as the whole" + ("; the panels show the six largest slices." if len(result.groups) > 6
                                        else ".") + before)
        sections.append(("slices", "Slices", _section("slices", f"Slices by {result.group_column}",
                                                        _slices(result, svg, floors), lead)))

    if status is not None:
        from ._store import store_section

        if not math.isclose(float(status.level), float(level)):  # a StoreStatus is shown as it was made
            notes.append(f"'Over time' shows the StoreStatus as given, its intervals at "
                         f"{status.level * 100:g}% (the report's at {level * 100:g}%): pass the store's "
                         f"path, or a status made with level={level:g}")

        sections.append(("over-time", "Over time", store_section(status, source=str(source or "store"),
                                                                   plots=plots)))
    sections.append(("about", "About", _section("about", "About this report",
                                               _about(result, options, score_type, cost_fp, cost_fn,
                                                      target_recall, notes, timestamp,
                                                      costs_declared=costs_declared, extra=about))))
    page = _page(title=title, source=source, details=details, result=result, sections=sections,
                 explorer=data_json)
    summary: dict[str, Any] = {"n": result.n, "n_classes": result.n_classes, "metrics": result.metrics}
    if not result.top_label:
        summary["base_rate"] = result.base_rate
    summary.update({k: v for k, v in findings})
    preview = _preview(title=title, source=source, result=result, sections=sections, findings=findings,
                       figure=reliability_figure, size=len(page.encode("utf-8")))
    rep = Report(html=page, sections=tuple(s[0] for s in sections), notes=tuple(notes), summary=summary,
                 preview=preview)
    if out is not None:
        rep.save(out)
    return rep


def _comparison(inp: Inputs, *, raw: Any, score_type: str, level: float, bins: int,
                bootstrap: bool | BootstrapMethod, n_resamples: int, plots: bool,
                notes: list[str]) -> tuple[str, str]:
    """``vc.compare_models`` of the scores (A) against ``against`` (B), once, with its figures."""
    from ..comparison import compare_models, decision_curve, murphy_diagram
    from ._findings import comparison_section

    a, b = inp.score_name, inp.against_name
    if a == b or {a, b} & {"all", "none"}:  # one name twice, or a decision-curve strategy's name
        a, b = f"{a} (A)", f"{b} (B)"
    models = {a: inp.scores, b: inp.against}
    common = dict(sample_weight=inp.sample_weight, score_type=score_type, level=level)
    cmp = compare_models(models, inp.labels, n_resamples=n_resamples if bootstrap else 0, random_state=0,
                         bins=bins, **common)
    murphy = curve = None
    if plots:
        if score_type == "score":
            notes.append("Murphy diagram and decision curve omitted: score_type='score' has no probability reading")
        else:
            # both read the scores as probabilities: logits go through the sigmoid, as compare_models does
            theta, thresholds = _threshold_grids(models, inp.labels, **common)
            murphy = murphy_diagram(models, inp.labels, theta=theta, **common)
            curve = decision_curve(models, inp.labels, thresholds=thresholds, **common)
    return comparison_section(cmp, murphy=murphy, curve=curve, plots=plots, notes=notes)


#: a rare event's figures get finer thresholds: where this quantile of the models' probabilities …
RARE_QUANTILE = 0.999
#: … is under this (fewer than 50 of the default 0.01, …, 0.99 below it), …
RARE_TOP = 0.5
#: … this many more, evenly spaced up to it
RARE_STEPS = 100


def _threshold_grids(models: dict[str, Any], labels: Any, *, sample_weight: Any, score_type: str,
                     level: float) -> tuple[np.ndarray | None, np.ndarray | None]:
    r"""(Murphy diagram's θ, decision curve's thresholds) for the report; None: the functions' defaults.

    The defaults step by 0.005 and 0.01, and at a rare event (π = 0.5 %) every model's net benefit turns
    within the first few percent of them: the zoomed figures
    (:func:`veracity.plotting._comparison.murphy_limits`) drew a handful of points. With :math:`q` the
    :data:`RARE_QUANTILE` quantile of both models' probabilities (rows of weight 0 left out), where
    :math:`0 < q <` :data:`RARE_TOP` each grid gets the :data:`RARE_STEPS` thresholds
    :math:`q\,k /` :data:`RARE_STEPS`, :math:`k = 1, \ldots,` :data:`RARE_STEPS`, beside its own; at
    common rates both stay the defaults."""
    from ..comparison._decision_curve import DEFAULT_THRESHOLDS
    from ..comparison._inputs import models_of
    from ..comparison._murphy import DEFAULT_THETA

    checked, _, _ = models_of(models, labels, scores=None, label=None, sample_weight=sample_weight,
                              pos_label=None, score_type=score_type, what="vc.report", minimum=1)
    kept = [d.p if d.w is None else d.p[d.w > 0] for d in checked.data]
    pooled = np.concatenate(kept) if kept else np.empty(0)
    q = float(np.quantile(pooled, RARE_QUANTILE)) if pooled.size else 0.0
    if not 0 < q < RARE_TOP:
        return None, None
    fine = np.linspace(q / RARE_STEPS, q, RARE_STEPS)  # q/100, 2q/100, ..., q (thresholds, not bin edges)
    return (np.unique(np.concatenate([DEFAULT_THETA, fine])),
            np.unique(np.concatenate([DEFAULT_THRESHOLDS, fine])))


def _audit_with_extras(scores: Any, labels: Any, *, ci: bool | BootstrapMethod, n_resamples: int,
                       notes: list[str], **kwargs: Any) -> AuditResult:
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
                         sample_weight=options["sample_weight"], level=options["level"])
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
    if result.top_label:
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


def _preview(*, title: str, source: str | None, result: AuditResult, sections: list[tuple[str, str, str]],
             findings: list[tuple[str, str]], figure: str, size: int) -> str:
    """The compact page a notebook shows: the summary section, one line per finding and the reliability
    diagram — no explorer data, no other figure, no table beyond the summary."""
    css = _asset("_style.css")
    summary = next((h for sid, _, h in sections if sid == "summary"), "")
    names = {"segments": "Where it is miscalibrated", "comparison": "Which model?"}
    items = "".join(f'<li data-finding="{_e(sid)}"><strong>{_e(names.get(sid, sid))}</strong>: {_e(line)}</li>'
                    for sid, line in findings)
    found = f'<section id="findings"><h2>Findings</h2><ul>{items}</ul></section>' if items else ""
    fig = f'<section id="preview-reliability"><h2>Reliability</h2><div class="figure-row">{figure}</div></section>' \
        if figure else ""
    facts = f'<span class="fact"><span class="muted">rows</span> {result.n:,}</span>'
    if source:
        facts = f'<span class="fact"><span class="muted">source</span> {_e(source)}</span>' + facts
    listed = ", ".join(_e(name) for _, name, _ in sections)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{_CSP}">
<title>{_e(title)}</title><style>{css}</style></head>
<body><header class="top"><div class="wrap"><div class="brand">veracity · calibration report (preview)</div>
<h1>{_e(title)}</h1><div class="facts">{facts}</div></div></header>
<main class="wrap">{summary}{found}{fig}
<p class="note">A preview of the {size / 1024:,.0f} KB report (sections: {listed}). <code>rep.save("report.html")</code>
writes the whole self-contained page, with the threshold explorer, every table and figure.</p></main></body></html>
"""
