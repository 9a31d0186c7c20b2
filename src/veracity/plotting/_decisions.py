r"""Decision figures: risk against coverage, and operating curves by threshold."""

from __future__ import annotations

import math
import textwrap
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from ..core._options import ScoreType
from ..core._validation import VeracityError, VeracityWarning, check_score_type, prepare_binary
from ..decisions._table import threshold_cell
from ._curves import threshold_curve, threshold_grid
from ._style import INK, MUTED, PALETTE, _figure, _figure_of, _legend_above, _plain, _style
from ..core._frameform import rows_form

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


@rows_form
def plot_risk_coverage(
    scores: Any,
    labels: Any = None,
    *,
    score: Any = None,
    label: Any = None,
    score_type: ScoreType = "probability",
    sample_weight: Any = None,
    pos_label: Any = None,
    title: str | None = "Risk–coverage",
    figsize: tuple[float, float] = (6.0, 4.0),
    dpi: float = 100,
) -> Figure:
    r"""Selective risk against coverage when only the most confident rows are answered.

    Binary: predict ``p ≥ 0.5`` with confidence ``max(p, 1 − p)``; (N, K): top
    label. Coverage c keeps the fraction c of rows with the highest confidence;
    risk is their error rate. The area under the curve (AURC) is in the legend;
    a well-ordered model's curve rises from near 0 on the left.

    >>> fig = plot_risk_coverage([.9, .8, .3, .6], [1, 1, 0, 0])
    >>> fig.axes[0].get_xlabel()
    'coverage (fraction answered)'
    """
    from ..decisions import risk_coverage

    check_score_type(score_type, what="vc.plot_risk_coverage")  # "this function reads ..." named none
    rc = risk_coverage(scores, labels, sample_weight=sample_weight, score_type=score_type, pos_label=pos_label)
    return _risk_coverage_figure(rc, title=title, figsize=figsize, dpi=dpi)



def _risk_coverage_figure(rc: Any, *, title: str | None = "Risk–coverage",
                          figsize: tuple[float, float] = (6.0, 4.0), dpi: float = 100,
                          ax: Axes | None = None) -> Figure:
    """Draw a :class:`~veracity.RiskCoverage` (into ``ax`` when given)."""
    coverage, risk, aurc = rc.coverage, rc.risk, rc.aurc
    if coverage.size > 2000:  # keep the drawing small: ~2,000 evenly spaced coverages
        keep = np.minimum(np.unique(np.searchsorted(coverage, np.linspace(0.0, 1.0, 2001))),
                          coverage.size - 1)
        coverage, risk = coverage[keep], risk[keep]
    # risk[i] holds on (coverage[i - 1], coverage[i]]: the rows of one run of tied confidences are answered
    # together, and the AURC integrates risk[i] over that width. So the steps are "pre" (each value drawn on
    # the interval that ends at its coverage), starting from (0, risk[0]); "post" drew every risk one tie
    # group to the right, e.g. 0 up to coverage 1 for a curve whose last group alone has errors.
    cov = np.concatenate(([0.0], coverage))
    rsk = np.concatenate(([risk[0]], risk))
    if ax is None:
        fig = _figure(figsize, dpi)
        ax = fig.subplots(1, 1)
    else:
        fig = _figure_of(ax)
    ax.step(cov, rsk, where="pre", color=PALETTE[0], linewidth=1.6,
            label=f"selective risk (AURC {aurc:.4f})", gid="risk_coverage")
    ax.axhline(risk[-1], color=MUTED, linestyle=(0, (4, 3)), linewidth=1.0,
               label=f"risk at full coverage {risk[-1]:.4f}")
    _style(ax)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, max(float(risk.max()) * 1.1, 0.01))
    ax.set_xlabel("coverage (fraction answered)")
    ax.set_ylabel("risk (error rate of answered)")
    handles, names = ax.get_legend_handles_labels()
    _legend_above(ax, handles, names)
    if title:
        ax.set_title(_plain(title), loc="left", fontsize=12, fontweight="bold", pad=9 + 12.5)
    return fig



def _threshold_table_figure(table: Any, *, title: str | None = "Operating points",
                            figsize: tuple[float, float] = (6.0, 5.6), dpi: float = 100,
                            ax: Axes | None = None) -> Figure:
    """Draw a :class:`~veracity.ThresholdTable`: rates (and, without ``ax``, cost) per threshold."""
    if ax is None:
        fig = _figure(figsize, dpi)
        ax, cax = fig.subplots(2, 1, sharex=True, height_ratios=(1.6, 1))
    else:
        fig, cax = _figure_of(ax), None
    # the lines join the points in threshold order (a table keeps the order given: [0.5, 0.1, 0.3] drew
    # a line running back and forth along the axis)
    order = np.argsort(np.asarray(table.threshold, dtype=float), kind="stable")
    t = np.asarray(table.threshold, dtype=float)[order]
    marker = "o" if t.size <= 30 else None
    for name, values, color in (("recall", table.recall, PALETTE[0]), ("precision", table.precision, PALETTE[2]),
                                ("false-alarm rate", table.false_alarm_rate, PALETTE[1])):
        ax.plot(t, np.asarray(values)[order], color=color, linewidth=1.6, marker=marker, markersize=4,
                label=name, gid=name.replace("-", "_").replace(" ", "_"))
    _style(ax)
    ax.set_ylim(-0.02, 1.02)
    ax.set_ylabel("rate")
    best = table.best()
    if cax is not None:
        cax.plot(t, np.asarray(table.cost_per_1000)[order], color=INK, linewidth=1.4, marker=marker,
                 markersize=4, gid="cost")
        cax.axvline(best.threshold, color=PALETTE[3], linestyle=":", linewidth=1.3)
        _style(cax)
        cax.set_ylabel(f"cost / 1,000\n(FP {table.cost_fp:g}, FN {table.cost_fn:g})")
        cax.set_xlabel("threshold t (flag when score ≥ t)")
    else:
        ax.set_xlabel("threshold t (flag when score ≥ t)")
    # a lowest cost at the edge of the thresholds tried is no minimum: the cost may keep falling beyond
    # it (the demo's cost_fn=9 grid from 0.05 drew "lowest cost: t = 0.05" with the cost still falling)
    edge = ""
    if t.size > 1 and np.isfinite(t).all():
        if best.threshold == t.min():
            edge = ", the lowest t tried"
        elif best.threshold == t.max():
            edge = ", the highest t tried"
    if math.isinf(best.threshold):  # drawn nowhere: an infinite threshold has no place on the axis
        edge = f", {'every row' if best.threshold < 0 else 'no row'} flagged; off the axis"
    # the threshold as the table prints it (threshold_cell): "t = 0.5" was said of a lowest cost at 0.50001,
    # beside a 0.50004 that prints alike, and a copy of 0.0277 flags other rows than 0.027713
    cell = threshold_cell(best.threshold, table._dtype, decimals=False)
    ax.axvline(best.threshold, color=PALETTE[3], linestyle=":", linewidth=1.3,
               label=f"lowest cost: t = {cell}{edge}", gid="t_best")
    handles, names = ax.get_legend_handles_labels()
    _legend_above(ax, handles, names)
    if title:
        ax.set_title(_plain(title), loc="left", fontsize=12, fontweight="bold", pad=9 + 12.5 * 2)
    return fig



class _DefaultTarget(float):
    """``target_recall``'s default (0.95), told apart from a target the caller names: the line of a
    ``recall_threshold`` given alone is no threshold "for recall ≥ 0.95"."""


_TARGET_RECALL = _DefaultTarget(0.95)


def _check_costs(cost_fp: Any, cost_fn: Any) -> tuple[float, float]:
    """Finite non-negative costs, not both 0 (``inf`` drew "t* = nan"; a text raised a TypeError)."""
    costs = []
    for value in (cost_fp, cost_fn):
        try:
            c = math.nan if isinstance(value, (bool, np.bool_)) else float(value)
        except (TypeError, ValueError):
            c = math.nan
        costs.append(c)
    c_fp, c_fn = costs
    if not (math.isfinite(c_fp) and math.isfinite(c_fn) and c_fp >= 0 and c_fn >= 0 and c_fp + c_fn > 0):
        raise VeracityError(f"costs must be non-negative finite numbers and not both 0; got "
                            f"cost_fp={cost_fp!r}, cost_fn={cost_fn!r}")
    return c_fp, c_fn


def _check_xlim(xlim: Any) -> tuple[float, float]:
    """The threshold axis' range: ``(0, 1)`` by default, else two numbers ``0 <= lo < hi <= 1``."""
    if xlim is None:
        return 0.0, 1.0
    try:
        lo, hi = (math.nan if isinstance(v, (bool, np.bool_)) else float(v) for v in xlim)
    except (TypeError, ValueError):
        lo = hi = math.nan
    if not 0.0 <= lo < hi <= 1.0:
        raise VeracityError(f"xlim must be two thresholds (lo, hi) with 0 <= lo < hi <= 1, e.g. (0, 0.05); "
                            f"got {xlim!r}", param="xlim")
    return lo, hi


def _recall_label(t: float, target: float | None, p: np.ndarray, y: np.ndarray, w: np.ndarray | None) -> str:
    r"""The target-recall line's legend. "recall ≥ R" only where it holds on the rows drawn: the recall
    here is :math:`\sum_{y_i = 1,\, p_i \ge t} w_i / \sum_{y_i = 1} w_i`; a threshold fit on other rows
    (calib) that reaches less here says so ("target recall R; 0.936 here"), as the report's explorer does."""
    if target is None:
        return f"t = {t:.3g} (target recall)"
    pos = y == 1
    wp = np.ones(int(pos.sum())) if w is None else np.asarray(w, dtype=float)[pos]
    total = float(wp.sum())
    if not total > 0:
        return f"t = {t:.3g} (target recall {target:g})"
    here = float(wp[p[pos] >= t].sum()) / total
    if here >= target:
        return f"t = {t:.3g} (recall ≥ {target:g})"
    return f"t = {t:.3g} (target recall {target:g}; {here:.3g} here)"


@rows_form
def plot_thresholds(
    scores: Any,
    labels: Any = None,
    *,
    score: Any = None,
    label: Any = None,
    cost_fp: float = 1.0,
    cost_fn: float = 1.0,
    target_recall: float | None = _TARGET_RECALL,
    recall_threshold: float | None = None,
    score_type: ScoreType = "probability",
    sample_weight: Any = None,
    pos_label: Any = None,
    title: str | None = "Operating curves",
    figsize: tuple[float, float] = (6.0, 5.6),
    dpi: float = 100,
    xlim: tuple[float, float] | None = None,
) -> Figure:
    r"""Recall, precision and false-alarm rate (top) and cost per 1,000 rows (bottom) by threshold.

    A row is flagged when its probability is ≥ t, so a count changes just above each distinct
    score and the value at a cut point holds down to the cut point before it (a steps-pre line:
    at any t between two scores the curve shows what t flags). The cost is
    :math:`c_{FP}\,\mathrm{FP}(t) + c_{FN}\,\mathrm{FN}(t)`, per 1,000 rows. The
    dotted line marks the cost-optimal :math:`t^* = c_{FP} / (c_{FP} + c_{FN})`
    (right when the probabilities are honest); the dash-dotted line the
    target-recall threshold (``recall_threshold``, a probability even for logit scores, or computed
    for ``target_recall`` with ``vc.recall_threshold`` when available). Its legend names the target
    the caller gives (``recall ≥ 0.9``), or the default 0.95 it was computed for, where the recall
    on these rows reaches it; a threshold fit on other rows that falls short here reads
    ``target recall 0.9; 0.874 here``. A ``recall_threshold`` given without ``target_recall`` reads
    "target recall". A target no threshold can be fit for on these rows (no positives, or fewer than
    the +1 correction needs: 199 for 0.995) draws no line and says why under the threshold axis ("no line
    for target recall 0.995: too few positives (98; ...)"); a target the caller named warns too
    (:class:`~veracity.VeracityWarning`). Costs must be finite
    and non-negative, ``target_recall`` in (0, 1).

    ``xlim=(lo, hi)`` (within [0, 1]; default the whole axis) zooms the threshold axis: on a rare event
    (a 0.5 % default rate, costs 1:100, t* = 0.0099) every curve turns in the first percent of [0, 1].
    The curves are counted at every distinct score, or at score quantiles on large data, so a zoom keeps
    the steps where the scores lie.

    >>> fig = plot_thresholds([.1, .4, .35, .8], [0, 0, 1, 1], cost_fp=1, cost_fn=9, target_recall=None)
    >>> [a.get_gid() for a in fig.axes[0].lines if a.get_gid()]
    ['recall', 'precision', 'false_alarm_rate', 't_star']
    """
    check_score_type(score_type, what="vc.plot_thresholds")  # "this function reads ..." named none
    data = prepare_binary(scores, labels, sample_weight=sample_weight, score_type=score_type, pos_label=pos_label)
    if data.top_label:
        raise VeracityError("threshold curves need binary scores; pass the probability of the positive class")
    cost_fp, cost_fn = _check_costs(cost_fp, cost_fn)
    x_range = _check_xlim(xlim)
    t_star = cost_fp / (cost_fp + cost_fn)
    named = not isinstance(target_recall, _DefaultTarget)  # the caller's own target, or None
    if target_recall is not None:  # a target outside (0, 1) was silently dropped with the line
        from ..decisions._inputs import RECALL_ONE, check_target

        target_recall = check_target(target_recall, "target_recall", one=RECALL_ONE)
    if recall_threshold is not None and not named:
        target_recall = None  # a given threshold, no target named: "(target recall)", not "recall ≥ 0.95"
    if recall_threshold is not None:
        try:  # a text raised numpy's "could not convert string to float", naming no option
            given = math.nan if isinstance(recall_threshold, (bool, np.bool_)) else float(recall_threshold)
        except (TypeError, ValueError):
            given = math.nan
        if not 0.0 <= given <= 1.0:
            hint = " (a logit threshold s is the probability expit(s))" if score_type == "logit" else ""
            got = f"{given:g}{hint}" if given == given else repr(recall_threshold)
            raise VeracityError(f"recall_threshold is drawn on the probability axis, so it must be a number "
                                f"in [0, 1]; got {got}", param="recall_threshold")
        recall_threshold = given
    missing = ""  # why the target-recall line is not drawn, said on the figure (and warned of, when named)
    if recall_threshold is None and target_recall is not None:
        recall_threshold, why = recall_fit(data.p, data.y, data.w, target_recall)
        if recall_threshold is None:
            missing = missing_recall_note(target_recall, why)
            if named:  # the caller asked for this line: a figure without it says so, and so does a warning
                warnings.warn(f"plot_thresholds: {missing}; lower target_recall, or pass recall_threshold= "
                              "(fit on calib rows)", VeracityWarning, stacklevel=3)
    grid = threshold_grid(data.p, extra=(t_star, recall_threshold or np.nan), max_cuts=1500)
    curve = threshold_curve(data.p, data.y, data.w, grid)
    recall_label = None
    if recall_threshold is not None:  # the legend: what it was fit for, and what it reaches on these rows
        recall_label = _recall_label(float(recall_threshold), target_recall, data.p, data.y, data.w)
    fig = _figure(figsize, dpi)
    ax, cax = fig.subplots(2, 1, sharex=True, height_ratios=(1.6, 1))
    t = curve.thresholds
    recall, far = curve.recall(), curve.false_alarm_rate()
    # a rate without a denominator at any t is drawn nowhere: its legend entry says so
    ax.plot(t, recall, color=PALETTE[0], linewidth=1.6, label=_rate_label("recall", recall, "positives"),
            gid="recall", drawstyle="steps-pre")
    ax.plot(t, curve.precision(), color=PALETTE[2], linewidth=1.6, label="precision",
            gid="precision", drawstyle="steps-pre")
    ax.plot(t, far, color=PALETTE[1], linewidth=1.6, label=_rate_label("false-alarm rate", far, "negatives"),
            gid="false_alarm_rate", drawstyle="steps-pre")
    cost = curve.cost_per_1000(cost_fp, cost_fn)
    cax.plot(t, cost, color=INK, linewidth=1.4, gid="cost", drawstyle="steps-pre")
    for a in (ax, cax):
        a.axvline(t_star, color=INK, linestyle=":", linewidth=1.3,
                  label=f"t* = {t_star:.3g} (cost)" if a is ax else None, gid="t_star")
        if recall_threshold is not None:
            a.axvline(recall_threshold, color=PALETTE[3], linestyle="-.", linewidth=1.3,
                      label=recall_label if a is ax else None, gid="t_recall")
        _style(a)
    ax.set_xlim(*x_range)
    ax.set_ylim(-0.02, 1.02)
    ax.set_ylabel("rate")
    handles, names = ax.get_legend_handles_labels()
    _legend_above(ax, handles, names, ncol=3)
    cax.set_ylabel(f"cost / 1,000\n(FP {cost_fp:g}, FN {cost_fn:g})")
    cax.set_xlabel("threshold t (flag when p ≥ t)")
    if missing:  # under the threshold axis, where the layout keeps room for it
        cax.annotate(textwrap.fill(missing, 86), (0.0, 0.0), xycoords="axes fraction", xytext=(0, -30),
                     textcoords="offset points", ha="left", va="top", fontsize=8, color=PALETTE[3],
                     gid="t_recall_missing")
    if title:
        ax.set_title(_plain(title), loc="left", fontsize=12, fontweight="bold",
                     pad=9 + 12.5 * -(-len(names) // 3))
    return fig



def _rate_label(name: str, values: np.ndarray, rows: str) -> str:
    """A rate's legend entry: its name, with "(n/a: no positives)" where no threshold gives it a value (recall
    without positives, the false-alarm rate without negatives), whose line is then drawn nowhere."""
    return name if np.isfinite(np.asarray(values, dtype=float)).any() else f"{name} (n/a: no {rows})"


def missing_recall_note(target: float, why: str) -> str:
    """What a threshold figure (and the report's operating curves) says in place of a target-recall line
    that could not be fit: "no line for target recall 0.995: too few positives (...)"."""
    return f"no line for target recall {target:g}: {why}"


def quiet_target(target: float) -> float:
    """``target`` as a target recall that :func:`plot_thresholds` draws (or notes on the figure) without a
    warning when it cannot be fit: for a caller that says so itself (the report's threshold explorer)."""
    return _DefaultTarget(target)


def recall_fit(p: np.ndarray, y: np.ndarray, w: np.ndarray | None, target: float) -> tuple[float | None, str]:
    """``vc.recall_threshold`` on these rows, or (None, why) when it cannot be computed: no positives, or
    too few of them for ``target`` with the +1 correction (``k = ceil((n+1)·target) <= n``, so at least
    ``target / (1 - target)``: 19 for 0.95, 199 for 0.995), or positives of weight 0 only."""
    from ..decisions import recall_threshold
    from ..decisions._thresholds import min_positives

    pos = y == 1
    if not pos.any():
        return None, "there are no positives"
    try:
        return float(recall_threshold(p, y, target=target, sample_weight=w)), ""
    except VeracityError as exc:
        n = int(np.count_nonzero(pos if w is None else pos & (w > 0)))
        if n == 0:
            return None, "the positives all have weight 0"
        if "too few positives" in str(exc):
            equal = " equally weighted" if w is not None else ""
            return None, (f"too few positives ({n:,}; the +1 correction needs at least "
                          f"{min_positives(target):,}{equal})")
        return None, str(exc)
