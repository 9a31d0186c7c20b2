r"""The operating table: confusion counts, rates and cost at many thresholds at once."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from ..core._text import fmt, fmt_count, render_table
from ..core._options import ScoreType
from ..core._validation import VeracityError, as_float_array, check_same_index, to_numpy
from ._inputs import (binary_inputs, check_cost, compared_thresholds, in_caller_units, narrow_float,
                      weight_shift)
from ..core._display import Display, fmt_weight

COLUMNS = (
    "threshold", "tp", "fp", "fn", "tn", "recall", "false_alarm_rate", "precision",
    "alerts", "cost", "cost_per_1000",
)


def threshold_cell(t: float, dtype: np.dtype | None = None, *, decimals: bool = True) -> str:
    """A threshold as the tables print it: 4 decimals when they name the threshold exactly, else 6
    significant digits when those do, else every digit it needs (the shortest text that reads back as
    it). A row must flag what its threshold cell says: the cell "0.5000" of a threshold just above a
    top score of 0.5 (it flags nothing), "0.0277" of 0.027713 or "0.0000" of 1e-07 named another
    threshold than the one measured; 0.50001 and 0.50004 printed alike. 0.3 prints as 0.3000.

    ``dtype``: the precision the scores are compared in (float32 scores, :func:`._inputs.narrow_float`):
    a text names the threshold when it rounds to the same value there (``0.7`` for ``float32(0.7)``,
    whose float64 digits are 0.699999988079071). ``decimals=False``: no 4-decimal form (a headline)."""
    t = float(t)
    kind = np.float64 if dtype is None else dtype.type

    def names_it(text: str) -> bool:
        with np.errstate(over="ignore"):
            return bool(kind(float(text)) == kind(t))

    four = fmt(t)
    if four == "n/a" or math.isinf(t) or (decimals and names_it(four)):
        return four
    six = f"{t:.6g}"
    if names_it(six):
        return six
    if dtype is not None:
        short = str(kind(t))  # numpy's shortest text of the value in the scores' dtype
        if names_it(short):
            return short
    return repr(t)


def flag_rule(dtype: np.dtype | None) -> str:
    """How a row is flagged, as the tables say it: in the scores' precision when it is not float64."""
    if dtype is None:
        return "flag score >= threshold"
    return f"flag score >= threshold, compared in {np.dtype(dtype).name} as the scores are"


def point_aligned(cells: list[str]) -> list[str]:
    """Cells of numbers padded to one width with their decimal points in one column (a number with no
    point aligns its exponent, or its end, there): ``0.3000`` over ``0.30000001192092896``, ``-2.5000``
    over ``10.0000``. A cell with no digit (``inf``, ``-inf``, ``n/a``) starts at the left."""
    def split(cell: str) -> tuple[str, str]:
        i = cell.find(".")
        i = cell.find("e") if i < 0 else i
        i = len(cell) if i < 0 else i
        return cell[:i], cell[i:]

    numbers = [split(c) for c in cells if any(ch.isdigit() for ch in c)]
    whole = max((len(a) for a, _ in numbers), default=0)
    frac = max((len(b) for _, b in numbers), default=0)
    width = max([whole + frac, *(len(c) for c in cells)])
    return [(split(c)[0].rjust(whole) + split(c)[1].ljust(frac) if any(ch.isdigit() for ch in c) else c)
            .ljust(width) for c in cells]


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

    ``score_dtype`` is the precision the scores were compared in: ``"float64"``, or ``"float32"``
    (``"float16"``) for scores of that dtype, which are compared with each threshold rounded to their
    dtype — numpy's own ``scores >= t`` on a float32 array (:func:`threshold_table`). ``threshold``
    holds the thresholds as given.
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
    score_dtype: str = "float64"

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
            "score_dtype": self.score_dtype,
            "table": [r.to_dict() for r in self.rows],
        }

    @property
    def _dtype(self) -> np.dtype | None:
        """The precision the thresholds were compared in, None for float64 (:func:`threshold_cell`)."""
        return None if self.score_dtype == "float64" else np.dtype(self.score_dtype)

    def _rule(self) -> str:
        return flag_rule(self._dtype)

    def _threshold_cells(self) -> list[str]:
        """The thresholds as the table prints them (:func:`threshold_cell`), decimal points aligned."""
        return point_aligned([threshold_cell(t, self._dtype) for t in self.threshold])

    def _rows_noun(self) -> str:
        """The noun of an unweighted table's count, ``row`` or ``rows`` ("1 rows" was printed)."""
        return "row" if self.n == 1 else "rows"

    def _title(self) -> str:
        what, count = ("weight", fmt_weight) if self.weighted else (self._rows_noun(), fmt_count)
        return (f"Threshold table: {count(self.n)} {what}, {count(self.positives)} positive; "
                f"{self._rule()}; cost = {self.cost_fp:g}·FP + {self.cost_fn:g}·FN")

    def _summary_items(self) -> dict[str, Any]:
        return {}

    def _html_records(self) -> list[dict[str, Any]]:
        # the threshold as the text prints it: fmt_cell's 4 decimals printed 0.50001 and 0.50004 alike
        return [{**r, "threshold": threshold_cell(r["threshold"], self._dtype)}
                for r in self._frame_records()]

    def __str__(self) -> str:
        headers = ["threshold", "TP", "FP", "FN", "TN", "recall", "false alarm", "precision",
                   "alerts", "cost", "cost/1000"]
        # weighted counts are weight sums: read at 12 digits, "10" whatever the last bit of 100 weights of 0.1
        count = fmt_weight if self.weighted else fmt_count
        body = [
            [
                cell,
                count(r.tp), count(r.fp), count(r.fn), count(r.tn),
                fmt(r.recall), fmt(r.false_alarm_rate), fmt(r.precision),
                count(r.alerts), fmt_count(round(r.cost, 1)), f"{r.cost_per_1000:.1f}",
            ]
            for cell, r in zip(self._threshold_cells(), self.rows)
        ]
        what = "weight" if self.weighted else self._rows_noun()
        footer = (
            f"({count(self.n)} {what}, {count(self.positives)} positive; {self._rule()}; "
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


def _counts_and_total(values: np.ndarray, weights: np.ndarray,
                      thresholds: np.ndarray) -> tuple[np.ndarray, float]:
    r""":func:`_counts_at_or_above` and the total weight, read off the same sums (the count at
    :math:`-\infty`): a threshold at or below every score then counts the total exactly. The total summed
    apart (``w.sum()``, in another order) left FN and TN of 6e-14 and a recall of 0.9999999999999998
    where every row was flagged."""
    counts = _counts_at_or_above(values, weights, np.append(thresholds, -np.inf))
    return counts[:-1], float(counts[-1])


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

    **Precision of the comparison.** ``score >= t`` is decided in the scores' own precision, as numpy
    decides ``scores >= t`` for a Python float ``t``: float64 scores (and integers, lists of Python
    floats) are compared in float64; float32 (float16) scores are compared with ``t`` rounded to the
    nearest float32 (float16) value, :math:`s \ge \mathrm{fl}_{32}(t)`. A float32 score that prints as 0.7
    is ``float32(0.7)`` = 0.699999988…, below the float64 0.7: ``threshold_table(s32, y, [0.7])`` flags
    it, as ``s32 >= 0.7`` does, where a float64 comparison would not. The table keeps the thresholds
    as given (``table.threshold``), says so in its footer and prints each threshold with the digits
    that name it in that precision. Frames and files follow their score column's dtype (a Float32
    column, a Parquet ``float``). To compare float32 scores in float64 instead, pass
    ``scores.astype(np.float64)``; SQL and ONNX exports of calibrators compute in double.

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
    check_same_index(scores=scores, labels=labels, sample_weight=sample_weight)  # before to_numpy drops it
    raw = to_numpy(scores, "scores")  # once: its dtype is the precision of the comparison
    s, y, w = binary_inputs(raw, labels, sample_weight=sample_weight, score_type=score_type,
                            pos_label=pos_label, allow_score=True)  # counts by rank: any real score
    c_fp = check_cost(cost_fp, "cost_fp")
    c_fn = check_cost(cost_fn, "cost_fn")
    t = np.atleast_1d(_thresholds_array(thresholds))
    if t.ndim != 1:
        raise VeracityError(f"thresholds must be a number or a 1-D array, got shape {t.shape}")
    dtype = narrow_float(raw)
    tc = compared_thresholds(t, dtype)  # float32 scores: s >= fl32(t), numpy's scores >= t
    pos = y == 1.0
    neg = ~pos
    if w is None:
        n_total = float(s.shape[0])
        n_pos = float(np.count_nonzero(pos))
        tp = _counts_at_or_above(s[pos], None, tc)
        fp = _counts_at_or_above(s[neg], None, tc)
    else:
        tp, n_pos = _counts_and_total(s[pos], w[pos], tc)
        fp, n_neg = _counts_and_total(s[neg], w[neg], tc)
        n_total = n_pos + n_neg
        # check_weights scaled extreme weights by a power of two; the counts are weight sums in the
        # caller's units (the rates, computed first, do not depend on it)
        return table_from_counts(t, tp, fp, n_total, n_pos, c_fp, c_fn, weighted=True, score_dtype=dtype,
                                 shift=weight_shift(sample_weight, w), n_neg=n_neg)
    return table_from_counts(t, tp, fp, n_total, n_pos, c_fp, c_fn, weighted=False, score_dtype=dtype)


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
    from ..core._frameform import refuse_answers_as_scores

    refuse_answers_as_scores("threshold_table", score, label, sample_weight)  # recall 1, precision 1: silently
    # the counts compare the raw scores with the thresholds: a ranking score (score_type="score") is any
    # finite real, never squashed. The sources take no "score": built as "logit", then read as "score", so
    # that no check of declared logits runs (a ranking score in [0, 1] was refused as "declared
    # score_type='logit' but all lie in [0, 1]", a type the caller never named, where the array form
    # counts it)
    ranking = "logit" if score_type == "score" else score_type
    # as_source returns one of the two (annotated as their base, which declares no ``prep``)
    source = cast("ArraySource | FrameSource", as_source(
        data, score=score, label=label, sample_weight=sample_weight, score_type=ranking, pos_label=pos_label))
    if score_type == "score":
        source.score_type = "score"  # the array form's reading; the lazy contract checks no logits
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
    dtype = _column_dtype(source)
    tc = compared_thresholds(t, dtype)  # a Float32 column: fl32(t)
    if not source.weighted:
        tp, fp, n_total, n_pos = source.counts_at(tc)
        return table_from_counts(t.copy(), tp, fp, n_total, n_pos, c_fp, c_fn, weighted=False,
                                 score_dtype=dtype)
    tp, fp, n_pos, n_neg = _rescaled_counts(source, tc)
    shift = 1 - math.frexp(source.prep.weight_scale)[1]
    return table_from_counts(t.copy(), tp, fp, n_pos + n_neg, n_pos, c_fp, c_fn, weighted=True,
                             score_dtype=dtype, shift=shift, n_neg=n_neg)


def _rescaled_counts(source: Any, t: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, float]:
    r"""``TP(t)``, ``FP(t)``, the positive and the negative weight of a lazy frame in the units of its
    rescaled weights :math:`w \cdot s` (``prep.weight_scale`` :math:`s = 2^{-k}`, the array form's
    rescaling): :func:`table_from_counts` reads the rates off these and only then multiplies the counts
    by :math:`2^{k}`. ``source.counts_at`` answers in the caller's units, where a total beyond 1.8e308
    (weights of 1e308 each) is ``inf`` and every rate ``inf / inf`` = NaN."""
    from ..sources._thresholds import at_or_above, gap_sums, thresholds_grid

    u = thresholds_grid(t)
    per_pos, per_neg = gap_sums(source.prep.working(False), u, weighted=True)
    # the totals read off the same suffix sums as the counts (the count at -inf; :func:`_counts_and_total`)
    t_all = np.append(t, -np.inf)
    tp, fp = at_or_above(per_pos, t_all, u), at_or_above(per_neg, t_all, u)
    return tp[:-1], fp[:-1], float(tp[-1]), float(fp[-1])


def _column_dtype(source: Any) -> np.dtype | None:
    """The score column's float dtype when narrower than float64 (a Float32 column of a lazy frame, a
    Parquet ``float``), else None: where the rows live they are compared as numpy compares them."""
    import narwhals as nw

    names = source.prep.score if isinstance(source.prep.score, list) else [source.prep.score]
    dtype = source.prep.frame.schema.get(names[0]) if len(names) == 1 else None
    return np.dtype(np.float32) if dtype == nw.Float32 else None


def table_from_counts(t: np.ndarray, tp: np.ndarray, fp: np.ndarray, n_total: float, n_pos: float,
                      c_fp: float, c_fn: float, *, weighted: bool,
                      score_dtype: np.dtype | None = None, shift: int = 0,
                      n_neg: float | None = None) -> ThresholdTable:
    r"""The table from ``TP(t)``, ``FP(t)`` and the totals (also the frame form's entry point);
    ``score_dtype`` the precision the counts compared the scores in (None: float64).

    ``shift`` *k*: the counts are sums of weights rescaled by :math:`2^{-k}` (extreme weights, see
    :mod:`veracity.core._weights`). The rates and ``cost_per_1000`` are ratios, read off the rescaled
    counts; the counts, totals and ``cost`` are then given in the caller's units, :math:`x \cdot 2^k`
    (``inf`` beyond the largest double). Rates read off caller-unit counts were NaN there: weights of
    1e308 each total ``inf`` and ``inf / inf`` is NaN. ``n_neg``: the negative weight where it was summed
    with the counts (:func:`_counts_and_total`; ``n_total - n_pos`` rounds otherwise: TN of 2e-13 where
    every row was flagged)."""
    n_neg = n_total - n_pos if n_neg is None else n_neg
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
    if shift != 0:
        tp, fp, fn, tn, alerts, cost = (in_caller_units(x, shift) for x in (tp, fp, fn, tn, alerts, cost))
        n_total, n_pos = in_caller_units(n_total, shift), in_caller_units(n_pos, shift)
    return ThresholdTable(
        threshold=t.copy(), tp=tp, fp=fp, fn=fn, tn=tn, recall=recall, false_alarm_rate=far,
        precision=precision, alerts=alerts, cost=cost, cost_per_1000=cost_per_1000,
        n=n_total, positives=n_pos, cost_fp=c_fp, cost_fn=c_fn, weighted=weighted,
        score_dtype="float64" if score_dtype is None else np.dtype(score_dtype).name,
    )
