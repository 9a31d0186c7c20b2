r"""The operating table: confusion counts, rates and cost at many thresholds at once."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, cast

import numpy as np

from ..core._text import fmt, fmt_count, render_table
from ..core._options import ScoreType
from ..core._validation import VeracityError, as_float_array, to_numpy
from ._inputs import binary_inputs, check_cost, in_caller_units, weight_shift
from ..core._display import Display

COLUMNS = (
    "threshold", "tp", "fp", "fn", "tn", "recall", "false_alarm_rate", "precision",
    "alerts", "cost", "cost_per_1000",
)


def threshold_cell(t: float) -> str:
    """A chosen threshold as ``veracity threshold``'s table prints it: 4 decimals when they are the threshold
    exactly, else 6 significant digits when those are, else every digit. A row must flag what its threshold
    cell says: the cell "0.5000" of a threshold just above a top score of 0.5 (it flags nothing), "0.0277" of
    0.027713 or "0.0000" of 1e-07 named another threshold than the one measured."""
    four = fmt(t)
    if four == "n/a" or float(four) == t:
        return four
    six = f"{t:.6g}"
    return six if float(six) == t else repr(float(t))


@dataclass(frozen=True)
class ThresholdRow:
    """One threshold: rows with ``score >= threshold`` are flagged (alerts)."""

    threshold: float
    tp: float
    fp: float
    fn: float
    tn: float
    recall: float
    false_alarm_rate: float
    precision: float
    alerts: float
    cost: float
    cost_per_1000: float

    def to_dict(self) -> dict[str, Any]:
        return {c: float(getattr(self, c)) for c in COLUMNS}


@dataclass(frozen=True, eq=False, repr=False)
class ThresholdTable(Display):
    r"""Confusion counts and operating rates per threshold (row *i* flags ``score >= threshold[i]``).

    * ``recall = TP / (TP + FN)`` (NaN without positives),
    * ``false_alarm_rate = FP / (FP + TN)`` (NaN without negatives),
    * ``precision = TP / (TP + FP)`` (NaN when nothing is flagged),
    * ``alerts = TP + FP`` (review volume),
    * ``cost = cost_fp·FP + cost_fn·FN`` and ``cost_per_1000 = 1000·cost / N``.

    Counts are sums of ``sample_weight`` when weights are given. Every column is
    also an attribute holding a numpy array (``table.recall[i]``).
    """

    threshold: np.ndarray
    tp: np.ndarray
    fp: np.ndarray
    fn: np.ndarray
    tn: np.ndarray
    recall: np.ndarray
    false_alarm_rate: np.ndarray
    precision: np.ndarray
    alerts: np.ndarray
    cost: np.ndarray
    cost_per_1000: np.ndarray
    n: float
    positives: float
    cost_fp: float
    cost_fn: float
    weighted: bool = False

    @property
    def thresholds(self) -> np.ndarray:
        """Alias of :attr:`threshold`."""
        return self.threshold

    @property
    def rows(self) -> tuple[ThresholdRow, ...]:
        cols = [getattr(self, c) for c in COLUMNS]
        return tuple(ThresholdRow(*(float(col[i]) for col in cols)) for i in range(len(self)))

    def __len__(self) -> int:
        return int(self.threshold.shape[0])

    def best(self) -> ThresholdRow:
        r"""The row with the lowest total cost (the first one on ties).

        Rows are ranked by :math:`2^{-e}(c_{FP}\,FP + c_{FN}\,FN)` with :math:`2^e` the power of two
        of the larger cost — the costs' ratio exactly, so costs near 1e308 (whose totals overflow to
        inf in ``cost``) or subnormal costs (whose totals lose their digits) rank as 1 and 9 would."""
        e = math.frexp(max(self.cost_fp, self.cost_fn))[1]
        with np.errstate(over="ignore"):
            key = math.ldexp(self.cost_fp, -e) * self.fp + math.ldexp(self.cost_fn, -e) * self.fn
        return self.rows[int(np.argmin(key))]

    def to_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "positives": self.positives,
            "cost_fp": self.cost_fp,
            "cost_fn": self.cost_fn,
            "weighted": self.weighted,
            "table": [r.to_dict() for r in self.rows],
        }

    def _title(self) -> str:
        what = "weight" if self.weighted else "rows"
        return (f"Threshold table: {fmt_count(self.n)} {what}, {fmt_count(self.positives)} positive; "
                f"flag score >= threshold; cost = {self.cost_fp:g}·FP + {self.cost_fn:g}·FN")

    def _summary_items(self) -> dict[str, Any]:
        return {}

    def __str__(self) -> str:
        headers = ["threshold", "TP", "FP", "FN", "TN", "recall", "false alarm", "precision",
                   "alerts", "cost", "cost/1000"]
        body = [
            [
                fmt(r.threshold),
                fmt_count(r.tp), fmt_count(r.fp), fmt_count(r.fn), fmt_count(r.tn),
                fmt(r.recall), fmt(r.false_alarm_rate), fmt(r.precision),
                fmt_count(r.alerts), fmt_count(round(r.cost, 1)), f"{r.cost_per_1000:.1f}",
            ]
            for r in self.rows
        ]
        what = "weight" if self.weighted else "rows"
        footer = (
            f"({fmt_count(self.n)} {what}, {fmt_count(self.positives)} positive; flag score >= threshold; "
            f"cost = {self.cost_fp:g}·FP + {self.cost_fn:g}·FN)"
        )
        return f"{render_table(headers, body)}\n{footer}"


def _counts_at_or_above(
    values: np.ndarray, weights: np.ndarray | None, thresholds: np.ndarray
) -> np.ndarray:
    """(Weighted) number of ``values >= t`` for every ``t``.

    No sort of the values: each is located among the sorted distinct thresholds
    (``searchsorted``, O(N log T)), the weights are summed per gap with ``bincount``
    and suffix sums give the weight at or above every threshold — the threshold-count
    kernel of every engine (:mod:`veracity.sources._thresholds`).
    """
    from ..sources._thresholds import array_gap_sums, at_or_above, thresholds_grid

    u = thresholds_grid(thresholds)
    return at_or_above(array_gap_sums(values, weights, u), thresholds, u)


def _thresholds_array(thresholds: Any) -> np.ndarray:
    """Thresholds as float64; ±inf allowed (flag everything / nothing), NaN is not."""
    raw = to_numpy(thresholds, "thresholds")
    if raw.dtype.kind not in "biuf":
        return as_float_array(raw, "thresholds")  # converts or raises a clear error
    t = np.asarray(raw, dtype=np.float64)
    if t.size == 0:
        raise VeracityError("thresholds is empty; pass at least one threshold")
    if np.isnan(t).any():
        raise VeracityError(
            f"thresholds contains {int(np.isnan(t).sum())} NaN values; pass numbers (inf flags nothing)"
        )
    return t


def threshold_table(
    scores: Any,
    labels: Any = None,
    thresholds: Any = None,
    *,
    score: Any = None,
    label: Any = None,
    cost_fp: float = 1.0,
    cost_fn: float = 1.0,
    sample_weight: Any = None,
    score_type: ScoreType = "probability",
    pos_label: Any = None,
) -> ThresholdTable:
    r"""Operating table at every threshold: TP, FP, FN, TN, recall, false-alarm rate,
    precision, alerts and cost (seed 003's threshold table, seed 004's confusion
    matrix per threshold with cost and review volume).

    Row *i* flags the rows with ``score >= thresholds[i]``. Any number of
    thresholds costs one sort of the scores: the scores are split by label and each
    part is sorted once; then for every threshold ``t``

    .. math:: \mathrm{TP}(t) = \#\{i: y_i = 1, s_i \ge t\},\qquad
              \mathrm{FP}(t) = \#\{i: y_i = 0, s_i \ge t\}

    are read off with a binary search, ``FN = P − TP`` and ``TN = N − P − FP``.
    With ``sample_weight`` the counts are weight sums, found without sorting the
    scores: each row is located among the sorted thresholds and the weights are
    summed per gap (``bincount``) and then from the top.

    ``score_type`` only states what the scores are: ``"probability"`` checks that
    they lie in [0, 1]; ``"logit"`` accepts any real score, and the thresholds are
    then on the same (logit) scale; ``"score"`` (a ranking score) likewise, on its own scale.
    ``pos_label`` names the positive class of
    two-valued labels (e.g. ``"yes"``, ``True``).

    >>> t = threshold_table([.1, .4, .35, .8], [0, 0, 1, 1], [0.3, 0.5], cost_fn=9)
    >>> [(r.tp, r.fp, r.fn, r.tn, r.cost) for r in t.rows]
    [(2.0, 1.0, 0.0, 1.0, 1.0), (1.0, 0.0, 1.0, 2.0, 9.0)]
    """
    if score is not None or label is not None:
        if thresholds is None:  # threshold_table(frame, thresholds, score=..., label=...)
            thresholds, labels = labels, None
        from ..sources import read_errors

        table: ThresholdTable = read_errors(scores, lambda: _threshold_table_frame(
            scores, labels, thresholds, score=score, label=label, sample_weight=sample_weight, cost_fp=cost_fp,
            cost_fn=cost_fn, score_type=score_type, pos_label=pos_label))  # read_errors returns fn()'s value
        return table
    if labels is None or thresholds is None:
        raise VeracityError("threshold_table needs scores, labels and thresholds: threshold_table(scores, labels, "
                            "[0.3, 0.5]), or with a frame threshold_table(frame, [0.3, 0.5], score='p', label='y')",
                            param="thresholds" if labels is not None else "labels")
    s, y, w = binary_inputs(scores, labels, sample_weight=sample_weight, score_type=score_type,
                            pos_label=pos_label, allow_score=True)  # counts by rank: any real score
    c_fp = check_cost(cost_fp, "cost_fp")
    c_fn = check_cost(cost_fn, "cost_fn")
    t = np.atleast_1d(_thresholds_array(thresholds))
    if t.ndim != 1:
        raise VeracityError(f"thresholds must be a number or a 1-D array, got shape {t.shape}")
    pos = y == 1.0
    neg = ~pos
    if w is None:
        n_total = float(s.shape[0])
        n_pos = float(np.count_nonzero(pos))
        tp = _counts_at_or_above(s[pos], None, t)
        fp = _counts_at_or_above(s[neg], None, t)
    else:
        n_total = float(w.sum())
        n_pos = float(w[pos].sum())
        tp = _counts_at_or_above(s[pos], w[pos], t)
        fp = _counts_at_or_above(s[neg], w[neg], t)
        # check_weights scaled extreme weights by a power of two; the counts are weight sums in the
        # caller's units (the rates, computed first, do not depend on it)
        shift = weight_shift(sample_weight, w)
        if shift != 0:
            table = table_from_counts(t, tp, fp, n_total, n_pos, c_fp, c_fn, weighted=True)
            return replace(table, **{c: in_caller_units(getattr(table, c), shift)
                                     for c in ("tp", "fp", "fn", "tn", "alerts", "cost")},
                           n=in_caller_units(table.n, shift),
                           positives=in_caller_units(table.positives, shift))
    return table_from_counts(t, tp, fp, n_total, n_pos, c_fp, c_fn, weighted=w is not None)


def _threshold_table_frame(data: Any, labels: Any, thresholds: Any, *, score: Any, label: Any,
                           sample_weight: Any, cost_fp: float, cost_fn: float, score_type: str,
                           pos_label: Any) -> ThresholdTable:
    """The frame form: in-memory frames take the array code, lazy ones count where they live."""
    from ..sources import ArraySource, FrameSource, as_source

    if labels is not None:
        raise VeracityError("threshold_table(frame, thresholds, score=..., label=...) takes no labels array; "
                            "name the label column with label=", param="labels")
    if score is None or label is None:
        raise VeracityError("the frame form needs both column names: threshold_table(frame, thresholds, "
                            "score='p', label='y')", param="label" if score is not None else "score")
    if thresholds is None:
        raise VeracityError("threshold_table(frame, thresholds, score=..., label=...) needs thresholds",
                        param="thresholds")
    # the counts compare the raw scores with the thresholds: a ranking score (score_type="score")
    # is read as a logit is, any finite real never squashed (the array form's counts, tested)
    ranking = "logit" if score_type == "score" else score_type
    # as_source returns one of the two (annotated as their base, which declares no ``prep``)
    source = cast("ArraySource | FrameSource", as_source(
        data, score=score, label=label, sample_weight=sample_weight, score_type=ranking, pos_label=pos_label))
    if getattr(source.prep, "multiclass", False):
        raise VeracityError(
            "vc.threshold_table flags one score per row; pass score= naming the column of the class to flag"
        )
    if isinstance(source, ArraySource):  # in-memory rows (as_source's non-lazy source): the array code
        table: ThresholdTable = source.call(threshold_table, thresholds, cost_fp=cost_fp, cost_fn=cost_fn)
        return table
    source.contract_counts()  # the array form's order: rows first, then options
    c_fp = check_cost(cost_fp, "cost_fp")
    c_fn = check_cost(cost_fn, "cost_fn")
    t = np.atleast_1d(_thresholds_array(thresholds))
    if t.ndim != 1:
        raise VeracityError(f"thresholds must be a number or a 1-D array, got shape {t.shape}")
    tp, fp, n_total, n_pos = source.counts_at(t)
    return table_from_counts(t.copy(), tp, fp, n_total, n_pos, c_fp, c_fn, weighted=source.weighted)


def table_from_counts(t: np.ndarray, tp: np.ndarray, fp: np.ndarray, n_total: float, n_pos: float,
                      c_fp: float, c_fn: float, *, weighted: bool) -> ThresholdTable:
    """The table from ``TP(t)``, ``FP(t)`` and the totals (also the frame form's entry point)."""
    n_neg = n_total - n_pos
    fn = np.maximum(n_pos - tp, 0.0)
    tn = np.maximum(n_neg - fp, 0.0)
    alerts = tp + fp
    with np.errstate(divide="ignore", invalid="ignore"):
        recall = tp / n_pos if n_pos > 0 else np.full_like(tp, np.nan)
        far = fp / n_neg if n_neg > 0 else np.full_like(fp, np.nan)
        precision = np.where(alerts > 0, tp / np.where(alerts > 0, alerts, 1.0), np.nan)
    with np.errstate(over="ignore"):  # a total beyond 1.8e308 is inf (best() ranks without it)
        cost = c_fp * fp + c_fn * fn
        cost_per_1000 = 1000.0 * cost / n_total
        # 1000·cost may overflow where cost / N does not (costs near 1e308 over many rows)
        cost_per_1000 = np.where(np.isinf(cost_per_1000) & np.isfinite(cost), cost / n_total * 1000.0,
                                 cost_per_1000)
    return ThresholdTable(
        threshold=t.copy(), tp=tp, fp=fp, fn=fn, tn=tn, recall=recall, false_alarm_rate=far,
        precision=precision, alerts=alerts, cost=cost, cost_per_1000=cost_per_1000,
        n=n_total, positives=n_pos, cost_fp=c_fp, cost_fn=c_fn, weighted=weighted,
    )
