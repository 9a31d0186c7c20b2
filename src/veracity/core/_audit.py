"""``vc.audit``: every audit number from one pass over the data, optionally per slice."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from collections.abc import Callable, Iterator
from typing import Any, TypeVar, cast

import numpy as np

from ._binning import make_edges
from ._formulas import BrierDecomposition, brier_decomposition_from_stats, nll_from_stats
from ._keys import MISSING_NAME, array_keys
from ._metrics import Multiclass, accuracy_of, auc_of, refuse_top_label_threshold
from ._parallel import submit
from ._reliability import ReliabilityTable
from ._stats import MAX_GROUPS, BinStats, group_rows, slice_keys, subset
from ._text import count_noun, fmt, render_table
from ._compat import renamed
from ._frameform import frame_call, is_frame_form, require_labels, table_call
from ._sections import section as audit_section
from ._validation import Binary, VeracityError, prepare_binary, prepare_classwise, refuse_score
from ._weights import in_user_units
from ._display import Display, added_term, zero_weight_note
from ._options import BootstrapMethod, IntervalMethod, ScoreType, Sided, Strategy


@dataclass(frozen=True)
class ClasswiseSummary:
    r"""The classwise reading of (N, K) scores (``vc.audit(..., multiclass="classwise")``), beside the
    top-label headline: classwise ECE :math:`\frac1K\sum_k \mathrm{ECE}_k` (each class's one-vs-rest
    ECE, the class binned by its own probabilities: ``vc.ece(..., multiclass="classwise")``) and Brier's
    original multiclass score :math:`\frac1N\sum_i\sum_k (p_{ik} - [y_i = k])^2 = \sum_k \mathrm{BS}_k`
    (``vc.brier(..., multiclass="classwise")``)."""

    n_classes: int
    ece: float
    brier: float

    def to_dict(self) -> dict[str, Any]:
        return {"n_classes": self.n_classes, "ece": self.ece, "brier": self.brier}

    def __str__(self) -> str:
        return (f"classwise ECE {fmt(self.ece)} (mean of the {self.n_classes} one-vs-rest ECEs)   "
                f"multiclass Brier {fmt(self.brier)} (sum of the {self.n_classes} one-vs-rest Briers)")


@dataclass(frozen=True, eq=False, repr=False)
class AuditResult(Display):
    """All audit numbers for one set of forecasts.

    ``metrics`` holds ``ece, mce, brier, nll, auc, accuracy`` (``auc`` is ``None``
    when the data has a single class); ``table`` is the reliability table;
    ``decomposition`` the exact Brier decomposition; ``groups`` one
    :class:`AuditResult` per slice when ``by=`` was given; ``extras`` holds
    optional sections (intervals, noise floor, tests) added by other estimators.
    ``zero_weight_groups`` names the slices of ``by=`` whose rows all weigh 0, with their row counts: they
    hold no evidence and have no audit in ``groups``, but the whole's ``n`` counts their rows (the text says
    so under the slice table; JSON ``zero_weight_groups``, ``{}`` when none).
    ``top_label`` is True when the scores were (N, K) class probabilities, K = 2 included
    (``predict_proba``'s two columns): every number is then the top-label reading (confidence
    of the argmax against whether it is the label), so ``base_rate`` is the top-label accuracy —
    but for ``nll``, the multiclass log-loss :math:`-\\log p_{i, y_i}` (``vc.nll``'s; the printout says so);
    ``to_dict()`` says which reading under ``"reading"``.
    """

    n: int
    total_weight: float
    base_rate: float
    score_type: str
    n_classes: int
    threshold: float
    table: ReliabilityTable
    decomposition: BrierDecomposition
    ece: float
    mce: float
    brier: float
    nll: float
    auc: float | None
    accuracy: float
    groups: dict[str, AuditResult] = field(default_factory=dict)
    group_column: str | None = None
    extras: dict[str, Any] = field(default_factory=dict)
    top_label: bool = False
    zero_weight_groups: dict[str, int] = field(default_factory=dict)

    @property
    def metrics(self) -> dict[str, float | None]:
        return {
            "ece": self.ece,
            "mce": self.mce,
            "brier": self.brier,
            "nll": self.nll,
            "auc": self.auc,
            "accuracy": self.accuracy,
        }

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict; keys mirror the Python names (DESIGN §3)."""
        table = self.table.to_dict()
        out: dict[str, Any] = {
            "n": self.n,
            "total_weight": self.total_weight,
            "base_rate": self.base_rate,
            "score_type": self.score_type,
            "n_classes": self.n_classes,
            "reading": "top-label" if self.top_label else "binary",
            "threshold": self.threshold,
            "metrics": self.metrics,
            "decomposition": self.decomposition.to_dict(),
            "bins": table["bins"],
            "strategy": table["strategy"],
            "interval": table["interval"], "ci": table["ci"],
            "level": table["level"],
            "min_count": table["min_count"],
            "empty_bins": table["empty_bins"],
            "table": table["table"],
        }
        for key, section in self.extras.items():
            out[key] = section.to_dict() if hasattr(section, "to_dict") else section
        if self.groups:
            out["by"] = self.group_column
            out["groups"] = {k: g.to_dict() for k, g in self.groups.items()}
            out["zero_weight_groups"] = dict(self.zero_weight_groups)
        return out

    def summary_line(self) -> str:
        floor = self.extras.get("noise_floor")
        beside = (
            f" (noise floor {fmt(floor.expected)}, p = {floor.p_value:.3f})" if floor is not None else ""
        )
        acc = "top-label accuracy" if self.top_label else f"acc({self.threshold:g})"
        # the one number of (N, K) scores that is not the top-label reading: -log p of the true class (as the
        # HTML view says); under "top-label reading" a bare "NLL" read as the confidence's binary log loss
        nll = "multiclass NLL" if self.top_label else "NLL"
        return (
            f"ECE {fmt(self.ece)}{beside}   MCE {fmt(self.mce)}   Brier {fmt(self.brier)}   "
            f"{nll} {fmt(self.nll)}   {acc} {fmt(self.accuracy)}   AUC {fmt(self.auc)}"
        )

    def _frame_records(self) -> list[dict[str, Any]]:
        return self.table._frame_records()

    def _summary_items(self) -> dict[str, Any]:
        items: dict[str, Any] = {"n": self.n}
        if not self.top_label:
            items["base rate"] = self.base_rate
        items.update({k: v for k, v in self.metrics.items() if k != "accuracy"})
        items["top-label accuracy" if self.top_label else f"accuracy@{self.threshold:g}"] = self.accuracy
        return items

    def _accuracy_head(self) -> str:
        """The slice table's accuracy column: at the audit's threshold, or the top-label accuracy (the
        slices of (N, K) scores; classwise slices are binary one-vs-rest audits at the threshold)."""
        if self.top_label and self.group_column != "class":
            return "top-label acc"
        return f"acc@{self.threshold:g}"

    def __str__(self) -> str:
        # multiclass: the top-label reading; its "base rate" would be the accuracy, so it is not shown
        reading = f"top-label reading of {self.n_classes} classes" if self.top_label else (
            f"base rate {self.base_rate:.4f}")
        binned = count_noun(self.table.bins, self.table.strategy + " bin")
        head = f"Calibration audit: {count_noun(self.n, 'row')}, {reading}, {binned}"
        d = self.decomposition
        within = d.within_variance - 2 * d.within_covariance
        lines = [
            head,
            str(self.table),
            self.summary_line(),
            (
                f"Brier = reliability {d.reliability:.4f} - resolution {d.resolution:.4f} "
                f"+ uncertainty {d.uncertainty:.4f} {added_term('within-bin', within)}"
            ),
        ]
        lines.extend(str(section) for section in self.extras.values())
        if self.groups:
            rows = [
                [
                    str(k),
                    str(g.n),
                    fmt(g.base_rate),
                    fmt(g.ece),
                    fmt(g.brier),
                    fmt(g.nll),
                    fmt(g.auc),
                    fmt(g.accuracy),
                ]
                for k, g in self.groups.items()
            ]
            rows.append(
                ["(all, top-label)" if self.top_label and self.group_column == "class" else "(all)", str(self.n), fmt(self.base_rate), fmt(self.ece), fmt(self.brier),
                 fmt(self.nll), fmt(self.auc), fmt(self.accuracy)]
            )
            heads = [self.group_column or "group", "n", "base", "ECE", "Brier", "NLL", "AUC",
                     self._accuracy_head()]
            if self.top_label:  # read top-label, a "base rate" is the top-label accuracy again (the header
                # and the HTML table show none): the column had repeated the accuracy beside prevalences
                heads, rows = heads[:2] + heads[3:], [r[:2] + r[3:] for r in rows]
            lines.append(f"\nBy {self.group_column or 'group'}:")
            lines.append(render_table(heads, rows))
            if self.zero_weight_groups:
                lines.append(zero_weight_note(self.zero_weight_groups))
        return "\n".join(lines)


#: the audit's own reading that keeps a threshold on (N, K) scores (the refusal's remedy)
CLASSWISE_REMEDY = " (or multiclass='classwise' for one-vs-rest accuracies at it)"


def _audit_binary(
    data: Binary,
    edges: np.ndarray,
    strategy: str,
    *,
    score_type: str,
    ci: str,
    level: float,
    sided: str,
    min_count: int,
    threshold: float,
    classwise: bool = False,
) -> AuditResult:
    # AUC (two sorts) runs beside the per-bin statistics on large inputs
    # AUC needs both classes with positive weight (a class whose rows all weigh 0 is absent: AUC None)
    if data.w is None:
        both_classes = data.y.min() == 0.0 and data.y.max() == 1.0
    else:
        both_classes = bool(data.w[data.y == 1.0].sum() > 0 and data.w[data.y == 0.0].sum() > 0)
    auc_future = submit(data.n, auc_of, data) if both_classes else None
    stats = BinStats.from_binary(data, edges, strategy, full=True)
    return audit_from_stats(
        stats,
        auc=auc_future.result() if auc_future is not None else None,
        accuracy=accuracy_of(data, threshold),
        score_type=score_type,
        n_classes=data.n_classes,
        top_label=data.top_label,
        threshold=threshold,
        ci=ci,
        level=level,
        sided=sided,
        min_count=min_count,
        weight_scale=data.weight_scale,
        classwise=classwise,
    )


def table_in_user_units(table: ReliabilityTable, weight_scale: float) -> ReliabilityTable:
    """``table`` with each row's weighted ``n`` divided by ``weight_scale`` (the power of two its
    statistics' weights were multiplied by): the caller's per-bin weight totals; the rest, ratios
    of the statistics, is the same in any units."""
    if weight_scale == 1.0:
        return table
    return replace(table, rows=tuple(replace(r, n=in_user_units(r.n, weight_scale)) for r in table.rows))


def audit_from_stats(
    stats: BinStats,
    *,
    auc: float | None,
    accuracy: float,
    score_type: str = "probability",
    n_classes: int = 2,
    top_label: bool = False,
    threshold: float = 0.5,
    ci: str = "wilson",
    level: float = 0.95,
    sided: str = "two-sided",
    min_count: int = 20,
    weight_scale: float = 1.0,
    classwise: bool = False,
) -> AuditResult:
    r"""An :class:`AuditResult` from full statistics plus the two order/row-level numbers.

    Every engine (memory, DuckDB, Dask) ends here, so their results share one code path.
    ``top_label``: the statistics are the top-label reading of (N, K) scores (K = 2 included).
    ``weight_scale``: the power of two :math:`2^k` the statistics' weights were multiplied by
    (:mod:`veracity.core._weights`); every number is computed in those units, and the weight
    totals shown — ``total_weight`` :math:`= \sum w`, each row's weighted ``n`` — are divided by
    it, so that they are the caller's.
    ``classwise``: one-vs-rest audits at ``threshold`` go with this top-label one; otherwise a ``threshold``
    other than 0.5 of top-label statistics, whose accuracy is the argmax's, is refused
    (:func:`~._metrics.refuse_top_label_threshold`): no number would read it.
    """
    if top_label and not classwise:  # a lazy frame's audit (the array form refuses it before any work)
        refuse_top_label_threshold(threshold, n_classes)
    table = table_in_user_units(
        ReliabilityTable.from_stats(stats, ci=ci, level=level, sided=sided, min_count=min_count), weight_scale)
    decomposition = brier_decomposition_from_stats(stats)
    total = stats.total_weight
    return AuditResult(
        n=stats.n,
        total_weight=in_user_units(total, weight_scale),
        base_rate=float(stats.sum_y.sum()) / total,
        score_type=score_type,
        n_classes=n_classes,
        threshold=float(threshold) + 0.0,  # -0.0 reads 0 ("acc(-0)")
        table=table,
        decomposition=decomposition,
        ece=table.ece,
        mce=table.mce,
        brier=decomposition.brier,
        nll=nll_from_stats(stats),
        auc=auc,
        accuracy=float(accuracy),
        top_label=bool(top_label),
    )


def _honest_extras(
    data: Binary,
    edges: np.ndarray,
    strategy: str,
    *,
    ci: Any,
    n_resamples: int,
    noise_floor: bool,
    seed: Any,
    estimators: bool,
    tests: bool,
    corp: bool,
    level: float,
    threshold: float,
    min_count: int = 20,
) -> dict[str, Any]:
    """Optional honest-estimator sections (issue 5), in print order. ``min_count``: the audit's, so the
    estimators' and the bootstrap's MCE read the bins the audit's MCE reads."""
    if ci not in (False, True, "percentile", "bca", None):
        raise VeracityError(f"bootstrap must be False, True, 'percentile' or 'bca', got {ci!r}", param="bootstrap")
    for name, flag in (("noise_floor", noise_floor), ("estimators", estimators), ("tests", tests),
                       ("corp", corp)):
        if not isinstance(flag, (bool, np.bool_)):
            raise VeracityError(f"{name} must be True or False, got {flag!r}", param=name)
    extras: dict[str, Any] = {}
    if ci or noise_floor:
        from ._validation import check_count

        n_resamples = check_count(n_resamples, "n_resamples", 2)
    if estimators:
        ece_estimates_of = audit_section("estimators")  # registered by veracity.honest

        extras["estimators"] = ece_estimates_of(data, edges, strategy, min_count)
    if noise_floor:
        noise_floor_of = audit_section("noise_floor")

        extras["noise_floor"] = noise_floor_of(
            data, strategy=strategy, n_redraws=n_resamples, seed=seed, edges=edges
        )
    if ci:
        bootstrap_of = audit_section("bootstrap")

        extras["intervals"] = bootstrap_of(
            data, method="bca" if ci is True else ci, n_resamples=n_resamples, level=level,
            seed=seed, strategy=strategy, threshold=threshold, edges=edges, min_count=min_count,
        )
    if tests:
        calibration_tests_of = audit_section("tests")

        extras["tests"] = calibration_tests_of(data, seed=seed)  # the Monte-Carlo Hosmer-Lemeshow p
    if corp:
        corp_of = audit_section("corp")

        extras["corp"] = corp_of(data)
    return extras


F = TypeVar("F", bound=Callable[..., Any])


def slice_rows(by: Any, n: int, max_groups: int | None) -> Iterator[tuple[str, np.ndarray]]:
    """``(name, rows)`` of each slice of ``by`` (one key per row of ``n``), at most ``max_groups`` (the rest
    pooled): named as a frame names them, the missing keys' slice ``(missing)`` last, as every backend orders
    it — the slices of :func:`audit`'s ``by=`` (and the report's per-slice noise floors)."""
    keys = array_keys(_slices_named(by)[0])  # integers with missing keys stay integers; Arrow nulls: (missing)
    if keys.ndim != 1 or keys.shape[0] != n:
        got = f"{keys.shape[0]} keys" if keys.ndim == 1 else f"shape {keys.shape} (pass one column)"
        raise VeracityError(f"by must hold one group key per row: got {got} for {n} rows", param="by")
    texts, last = slice_keys(keys)
    ordered_by = keys if keys.dtype.kind in "OmM" else None  # times and durations ordered by value, not text
    # a float key's NaN (np.unique's last key, printed 'nan') is the missing key: its name on every route
    nan_name = "nan" if texts.dtype.kind == "f" else None
    for key, rows in group_rows(texts, max_groups, last=last, values=ordered_by):
        yield (MISSING_NAME if key == nan_name else key), rows


def _slices_named(by: Any) -> tuple[Any, str | None]:
    """``by=`` as its keys and the slices' name: ``{"segment": keys}``, or a named Series / array."""
    if isinstance(by, dict):
        if len(by) != 1:
            raise VeracityError(f"by= as a dict names one slice column, e.g. {{'segment': keys}}; got {len(by)} "
                                "entries", param="by")
        ((name, keys),) = by.items()
        return keys, str(name)
    name = getattr(by, "name", None)
    return by, name if isinstance(name, str) and name else None


#: whether ``by_name=`` warns: off until the callers left (tests/sql, veracity.reporting) pass
#: ``by={name: keys}``, since every warning is an error in the test suite (issue 21's report)
BY_NAME_WARNS = True


def _by_name_alias(fn: F) -> F:
    """``by_name=`` (the slice column's old name, out of the vocabulary) still works — with one
    :class:`~veracity.core._compat.VeracityDeprecationWarning` once :data:`BY_NAME_WARNS` is on:
    ``by=`` names the slices itself."""
    import functools
    import os
    import sys

    from ._compat import _PACKAGE, _warn_once

    @functools.wraps(fn)
    def audit(*args: Any, **kwargs: Any) -> Any:
        if "by_name" in kwargs:
            name = kwargs.pop("by_name")
            # veracity.reporting still passes it while it moves to by={name: keys}: its calls do not warn
            if BY_NAME_WARNS and not os.path.abspath(sys._getframe(1).f_code.co_filename).startswith(_PACKAGE):
                _warn_once("audit", "by_name", "audit(): by_name= is renamed by=: by= names the slices itself "
                           "({'segment': keys} or a named Series with arrays, a column name in the frame form); "
                           "by_name= will be removed")
            by = kwargs.get("by")
            if name is not None and by is not None and not isinstance(by, (str, dict)):
                kwargs["by"] = {str(name): by}
        return fn(*args, **kwargs)

    if BY_NAME_WARNS:  # a listed alias is one that warns (tests/display/test_vocabulary.py)
        audit.__renamed__ = {**getattr(fn, "__renamed__", {}), "by_name": "by"}  # type: ignore[attr-defined]
    return cast(F, audit)


@_by_name_alias
@renamed(ci="bootstrap", seed="random_state")
def audit(
    scores: Any,
    labels: Any = None,
    *,
    score: Any = None,
    label: Any = None,
    bins: int | str = 15,
    strategy: Strategy = "uniform",
    score_type: ScoreType = "probability",
    interval: IntervalMethod = "wilson",
    level: float = 0.95,
    sided: Sided = "two-sided",
    min_count: int = 20,
    threshold: float = 0.5,
    sample_weight: Any = None,
    by: Any = None,
    max_groups: int | None = MAX_GROUPS,
    bootstrap: bool | BootstrapMethod = False,
    n_resamples: int = 1000,
    noise_floor: bool = False,
    random_state: Any = None,
    estimators: bool = False,
    tests: bool = False,
    corp: bool = False,
    multiclass: Multiclass = "top-label",
    pos_label: Any = None,
    table: Any = None,
    dialect: str | None = None,
) -> AuditResult:
    r"""Reliability table, ECE, MCE, Brier (+ decomposition), NLL, AUC and accuracy at once.

    One pass builds the per-bin statistics that every binned number reads; AUC
    needs one sort. ``by=`` (an array of group keys, one per row) adds one audit
    per group, binned with the same edges as the whole so their tables line up; the slices
    are named by ``by=`` itself: ``by={"segment": keys}``, a named pandas/polars Series, or a
    column name in the frame form (``by_name=`` is the deprecated old way). At most
    ``max_groups`` slices (default 100): the smallest groups beyond it are audited together
    as one slice named ``"(other N values)"`` (``max_groups=None``: no cap).
    ``interval`` names the per-bin binomial interval ('wilson' or 'clopper-pearson');
    ``bins="auto"`` picks :math:`M = \lceil N^{1/3} \rceil` (printed in the header).

    Honest-estimator sections (computed for the whole data, stored in ``extras``
    and printed / exported with the result):

    * ``bootstrap=True`` (= ``"bca"``) or ``"percentile"`` — bootstrap intervals for ECE,
      MCE, Brier, NLL, AUC and accuracy (``extras["intervals"]``, ``n_resamples``
      resamples, seeded by ``random_state`` — None, the default, is the fixed seed 0: the same rows
      print the same audit — at ``level``);
    * ``noise_floor=True`` — the expected plug-in ECE if the model were perfectly
      calibrated and a p-value (``extras["noise_floor"]``, ``n_resamples`` redraws),
      also printed beside ECE;
    * ``estimators=True`` — plug-in, debiased and smooth ECE (``extras["estimators"]``);
    * ``tests=True`` — Spiegelhalter, Hosmer–Lemeshow, calibration-in-the-large and
      slope (``extras["tests"]``);
    * ``corp=True`` — the CORP (PAV) decomposition MCB − DSC + UNC (``extras["corp"]``).

    (N, K) scores use the top-label reading (``multiclass="top-label"``, as on the
    metrics), whose accuracy is the argmax's: no threshold cuts it, and a ``threshold`` other
    than 0.5 is refused there; ``multiclass="classwise"`` adds one one-vs-rest audit per class in
    ``groups`` (keys ``"class 0"``, ``"class 1"``, …; their accuracy at ``threshold``), each class binned
    by its own probabilities (uniform bins: the whole's edges), and ``extras["classwise"]``: classwise
    ECE and Brier's multiclass score (:class:`ClasswiseSummary`).
    ``pos_label`` names the positive class of two-valued labels (strings such as
    ``"yes"``/``"no"``, booleans, numbers): rows whose label equals it count as 1.
    The old names ``ci=`` (now ``bootstrap=``) and ``seed=`` (now ``random_state=``)
    still work and warn once.

    Frame form: ``audit(frame, score="p", label="y", by="segment", sample_weight="w")``
    with column names (multiclass ``score=["p0", "p1", ...]``) on pandas, polars, pyarrow,
    DuckDB, Dask, Spark and Ibis frames and CSV/Parquet paths or globs; lazy frames are
    audited where they live (see :mod:`veracity.sources`).

    Database form: ``audit(connection_or_url, table="t", score="p", label="y", ...)`` with a
    DB-API / ADBC / SQLAlchemy connection or a URL computes everything inside the database
    (only per-bin aggregates travel; see :func:`veracity.audit_sql`); ``dialect=`` names the
    database's SQL dialect where the connection does not tell it.
    """
    refuse_score(score_type, "vc.audit")
    if table is not None:
        return table_call(audit, scores, locals())
    if dialect is not None:
        raise VeracityError("dialect= applies to the database form only: vc.audit(connection, table='t', "
                            "score=..., label=..., dialect=...); drop it for arrays and frames", param="dialect")
    if is_frame_form(score, label):
        return frame_call(audit, scores, labels, locals())
    require_labels("audit", labels)
    if multiclass not in ("top-label", "classwise"):
        raise VeracityError(f"multiclass must be 'top-label' or 'classwise', got {multiclass!r}",
                            param="multiclass")
    data = prepare_binary(scores, labels, sample_weight=sample_weight, score_type=score_type,
                          pos_label=pos_label)
    if data.top_label and multiclass == "top-label":  # before any work (audit_from_stats refuses it too)
        refuse_top_label_threshold(threshold, data.n_classes, classwise=CLASSWISE_REMEDY)
    edges = make_edges(data.p, bins, strategy, data.w)
    options: dict[str, Any] = dict(
        score_type=score_type, ci=interval, level=level, sided=sided, min_count=min_count,
        threshold=threshold,
    )
    whole = _audit_binary(data, edges, strategy, classwise=multiclass == "classwise", **options)
    extras = _honest_extras(
        data, edges, strategy, ci=bootstrap, n_resamples=n_resamples, noise_floor=noise_floor,
        seed=random_state, estimators=estimators, tests=tests, corp=corp, level=level,
        threshold=threshold, min_count=min_count,
    )
    if isinstance(bins, str) and bins == "auto":
        from ._binning import AutoBins, auto_bins, effective_size

        size = effective_size(data.p, data.w)  # the rule's M, and the bins left where tied cuts merged
        extras = {"auto_bins": AutoBins(auto_bins(size), size, used=edges.size - 1), **extras}
    if extras:
        whole = replace(whole, extras={**whole.extras, **extras})
    if multiclass == "classwise" and data.top_label:
        if by is not None:
            raise VeracityError("multiclass='classwise' and by= both fill groups; pass one of them")
        per_class = prepare_classwise(scores, labels, sample_weight=sample_weight, score_type=score_type)
        # each class binned by its own probabilities (uniform: the whole's edges; equal-mass: the class's
        # own quantiles — the top-label confidences' put most of a class's small probabilities in one bin)
        groups = {f"class {k}": _audit_binary(d, make_edges(d.p, bins, strategy, d.w), strategy, **options)
                  for k, d in enumerate(per_class)}
        summary = ClasswiseSummary(len(groups), float(np.mean([g.ece for g in groups.values()])),
                                   float(sum(g.brier for g in groups.values())))
        return replace(whole, groups=groups, group_column="class", extras={**whole.extras, "classwise": summary})
    if by is None:
        return whole
    by_name = _slices_named(by)[1]
    groups, weightless = {}, {}
    for name, rows in slice_rows(by, data.n, max_groups):
        part = subset(data, rows)
        if part.w is not None and not part.w.sum() > 0:
            weightless[name] = part.n  # a slice whose rows all weigh 0 holds no evidence: left out, and named
            continue
        groups[name] = _audit_binary(_own_scale(part), edges, strategy, **options)
    return replace(whole, groups=groups, group_column=by_name or "group", zero_weight_groups=weightless)


def _own_scale(part: Binary) -> Binary:
    r"""A slice's rows with its weights rescaled by their own exact :math:`2^k` (``weight_scale`` keeps the
    product, so totals still read in the caller's units): the whole's common :math:`2^k` leaves a slice of
    weights far below the others' (more than about :math:`10^{221}` apart) subnormal, where its AUC's
    weight products lost digits (1e-235), read as a negative variance (1e-240) or divided by 0 (1e-245)."""
    if part.w is None:
        return part
    from ._weights import rescale_exponent

    k = rescale_exponent(part.w)
    if k == 0:
        return part
    return replace(part, w=np.ldexp(part.w, k), weight_scale=part.weight_scale * 2.0 ** k)
