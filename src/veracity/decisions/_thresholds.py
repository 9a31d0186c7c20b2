r"""Choosing a decision threshold: by cost, by target recall, by target precision, by budget.

A threshold ``t`` flags a row when ``score >= t`` (seed ``003_a7ff4a889641a574.txt``: "raise an
alarm when the score is t or above").
A threshold is a decision fit on data: choose it on the calib role and measure it
on test (:func:`threshold_table`).
"""

from __future__ import annotations

import functools
import math
import numbers
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from ..core._compat import positional_options
from ..core._options import ScoreType
from ..core._text import count_noun
from ..core._validation import VeracityError, check_same_index, check_weights, to_numpy
from ..core._weights import kish_size, share_size
from ._inputs import (CEIL_EPS, RECALL_ONE, binary_inputs, ceil_rank, check_cost, check_flag, check_target,
                      in_caller_units, narrow_float, next_above, scores_1d, weight_shift)
from ._table import _counts_at_or_above, threshold_table
from ..core._frameform import rows_form

F = TypeVar("F", bound=Callable[..., Any])


def _frame_positional(fn: F) -> F:
    """``fn(frame, 0.9, score=..., label=...)``: a number after the frame is the first positional option
    (``target``), read as the array form ``fn(scores, labels, 0.9)`` reads it (with its deprecation
    warning), as :func:`threshold_table` reads its positional thresholds after a frame. An array there
    stays the labels argument, which the frame form refuses (``label=`` names the column)."""

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        framed = kwargs.get("score") is not None or kwargs.get("label") is not None
        if framed and len(args) > 1 and isinstance(args[1], numbers.Real) and "labels" not in kwargs:
            names = getattr(fn, "__positional_options__", ())
            if len(args) - 1 > len(names):  # counted as given, not with the labels slot put in
                raise TypeError(f"{fn.__name__}() takes the frame and at most {count_noun(len(names), 'positional option')} "
                                f"({', '.join(names)}) but {len(args)} positional arguments were given")
            args = (args[0], None, *args[1:])  # the frame form has no labels: the number is the option
        return fn(*args, **kwargs)

    return call  # type: ignore[return-value]


def cost_threshold(cost_fp: float, cost_fn: float) -> float:
    r"""Cost-optimal threshold for calibrated probabilities (Elkan 2001, eq. 2):

    .. math:: t^* = \frac{c_{FP}}{c_{FP} + c_{FN}}

    Flagging a row with probability *p* costs :math:`(1-p)\,c_{FP}` in expectation
    and not flagging it costs :math:`p\,c_{FN}`; the two are equal at :math:`t^*`.
    **This assumes the probabilities are calibrated** — it trusts their size, not
    just their order. On an uncalibrated model (seed ``003_a7ff4a889641a574.txt``: "no calibration") the same
    :math:`t^*` costs more than the cheapest threshold found on calib, so
    calibrate first (or pick the cheapest row of :func:`threshold_table` on calib).

    >>> cost_threshold(1, 9)       # seed 003: a miss costs 9x a false alarm
    0.1
    >>> cost_threshold(1, 1)
    0.5
    """
    c_fp = check_cost(cost_fp, "cost_fp")
    c_fn = check_cost(cost_fn, "cost_fn")
    if c_fp + c_fn <= 0:
        raise VeracityError("cost_fp and cost_fn are both 0; give at least one a positive cost")
    # only the ratio matters: scale both by the same power of two (exact), so that 1e308 + 1e308
    # cannot overflow to inf (t* = 0) nor two subnormal costs lose their digits
    e = math.frexp(max(c_fp, c_fn))[1]
    c_fp, c_fn = math.ldexp(c_fp, -e), math.ldexp(c_fn, -e)
    return c_fp / (c_fp + c_fn)


def min_positives(target: float, correction: bool = True) -> int:
    r"""The fewest positives for which :func:`recall_threshold` can reach ``target``.

    With the +1 correction the rank :math:`k = \lceil (n+1)\,\mathrm{target} \rceil`
    must not exceed *n*, i.e. :math:`n \ge \mathrm{target} / (1 - \mathrm{target})`;
    without it one positive suffices.

    >>> min_positives(0.95), min_positives(0.9), min_positives(0.95, correction=False)
    (19, 9, 1)
    """
    target = check_target(target, one=RECALL_ONE)
    if not check_flag(correction, "correction"):
        return 1

    def enough(n: int) -> bool:  # the check recall_threshold (and conformal_quantile) applies
        return ceil_rank((n + 1) * target) <= n

    # a binary search between a power-of-two bracket of the estimate target / (1 - target): stepping by
    # one from the estimate took 90 s for 1 - 1e-12 (the estimate's rounding is millions of steps off)
    hi = max(1, ceil_rank(target / (1.0 - target)))
    while not enough(hi):
        hi *= 2
    lo = 0  # invariant: lo positives are too few (none always are), hi are enough
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if enough(mid) else (mid, hi)
    return hi


def recall_rank(n: int, target: float, correction: bool = True) -> int:
    r"""The rank *k* (from the top) of the positive score used as threshold.

    :math:`k = \lceil (n+1)\,\mathrm{target} \rceil` with the +1 correction (a new
    positive lands at or above the *k*-th highest of *n* with probability
    :math:`k/(n+1)`), :math:`\lceil n\,\mathrm{target} \rceil` without.

    >>> recall_rank(100, 0.95), recall_rank(100, 0.95, correction=False)   # seed 003
    (96, 95)
    """
    target = check_target(target, one=RECALL_ONE)
    return max(1, ceil_rank((n + 1 if check_flag(correction, "correction") else n) * target))


@_frame_positional
@positional_options("target", "correction")
@rows_form
def recall_threshold(
    scores: Any,
    labels: Any = None,
    *,
    score: Any = None,
    label: Any = None,
    target: float = 0.95,
    correction: bool = True,
    sample_weight: Any = None,
    score_type: ScoreType = "probability",
    pos_label: Any = None,
) -> float:
    r"""Threshold that catches ``target`` of the positives, chosen on calib data.

    Sort the *n* positive scores from the top and return the *k*-th:
    :math:`k = \lceil (n+1)\,\mathrm{target} \rceil` with ``correction=True`` (the
    conformal "+1 correction"), :math:`k = \lceil n\,\mathrm{target} \rceil` without.
    A fresh positive from the same distribution scores at or above the *k*-th
    highest of *n* with probability :math:`k/(n+1)` (Angelopoulos & Bates 2021,
    §1, Thm. 1), so the corrected rule has expected recall ≥ target on new data,
    while the plain one (k = 95 of n = 100) averages only 95/101 ≈ 0.941.

    Rows with ``score >= threshold`` are flagged (ties at the threshold included).
    With ``sample_weight``, *k* becomes the first position in descending order
    where the cumulative positive weight reaches
    :math:`\mathrm{target}\cdot(W + W/m) = \mathrm{target}\cdot W\,(1 + 1/m)`
    (``target·W`` without correction), *W* the total positive weight and *m* an effective number of
    positives: the new positive counted at the weight :math:`W/m`, the :math:`k/(n+1)` correction in
    effective units. *m* is Kish's :math:`(\sum w)^2/\sum w^2` (the new positive at the size-biased mean
    weight :math:`\sum w^2/\sum w`), or, when it is smaller, the size the weights' spread about that
    threshold gives, :math:`F(1-F)\,W^2/\sum_i w_i^2 (h_i - F)^2` (:math:`h_i = 1\{s_i \ge t\}`, *F* the
    weighted share caught): the rule of :func:`~veracity.decisions.conformal_quantile` on the positives'
    scores, so heavy positives below the threshold count the new one heavier. Equal weights give back
    the formula above, bit for bit, and its guarantee. Uneven weights carry no finite-sample proof:
    counting the new positive at the plain mean weight :math:`W/n` fell short of the target (seeded
    simulations, weights lognormal with sd 1.5 of the log and independent of the scores, 100 positives,
    target 0.9: 0.884 on average; sd 2, 300 positives: 0.874), while :math:`W/m` reaches it with a margin
    (0.925 in both). Weights that depend on the scores fell short with Kish's size alone: inverse
    sampling probabilities of positives kept with probability :math:`0.02 + 0.98\,s` (few low-scored
    ones, each weighing up to 50), target 0.9, delivered a recall of 0.847 on average with 30 positives,
    0.883 with 60, 0.892 with 100 and 0.899 with 300 (4,000 draws each); the smaller size gives 0.898,
    0.912 and 0.916 from 60 positives on, but still 0.847 with 30 (the threshold is then the lowest
    positive in 998 draws of 1,000, with no row below it to read): check it on a held-out role.
    Uneven weights with *m* below :func:`min_positives` are refused (the rule cannot be met; 7.5 % and
    12 % of the lognormal draws, 5 % of the 30-positive ones).

    Raises :class:`~veracity.VeracityError` when there are too few positives for the
    target (with correction: n ≥ target/(1 − target), e.g. 19 for 0.95; with uneven weights
    also m ≥ that number, for either size). ``pos_label``
    names the positive class of two-valued labels (e.g. ``"yes"``).

    >>> p = np.linspace(0.01, 1.0, 100)          # 100 positives
    >>> round(recall_threshold(p, np.ones(100), target=0.95), 2)   # k = ceil(101 * 0.95) = 96: 5th lowest
    0.05
    >>> round(recall_threshold(p, np.ones(100), target=0.95, correction=False), 2)   # k = 95
    0.06
    """
    s, y, w = binary_inputs(scores, labels, sample_weight=sample_weight, score_type=score_type,
                            pos_label=pos_label, allow_score=True)  # an order statistic: any real score
    target = check_target(target, one=RECALL_ONE)
    correction = check_flag(correction, "correction")
    pos = y == 1.0
    n = int(np.count_nonzero(pos))
    if n == 0:
        raise VeracityError("recall_threshold needs positive rows (label 1); the labels have none")
    sp = s[pos]
    if w is not None and w[pos].min() == w[pos].max() > 0:
        # equal positive weights: only their ratios matter, so the plain rule, bit for bit (the weighted
        # rule's tolerance, 1e-9 of the total weight, is 1e-3 of a rank at n = 1e6: k = 950,000 for 950,000.0005)
        w = None
    if w is None:
        k = recall_rank(n, target, correction)
        if k > n:
            need = min_positives(target, correction)
            raise VeracityError(
                f"too few positives for target recall {target:g}: the +1 correction needs at least "
                f"{need} positives (k = ceil((n+1)·{target:g}) <= n), got n = {n}. Collect more "
                "positives in the calib role, lower the target, or pass {setting}", param="correction", value=False
            )
        # the k-th highest = the (n-k)-th smallest (0-based)
        return float(np.partition(sp, n - k)[n - k])
    desc, k = weighted_recall_rank(sp, w[pos], target, correction)
    return float(desc[k - 1])


def weighted_recall_rank(sp: np.ndarray, wp: np.ndarray, target: float,
                         correction: bool = True) -> tuple[np.ndarray, int]:
    r"""The weighted rule of :func:`recall_threshold`: ``(positive scores of positive weight in
    descending order, k)``, *k* the first position (from 1) where their cumulative weight reaches
    :math:`\mathrm{target}\cdot(W + W/m)` (``target·W`` without correction): the new positive counted
    at :math:`W/m`, *m* the smaller of Kish's effective number (the size-biased mean weight,
    :func:`plus_one_weight`) and the size the weights' spread about that rule's threshold gives
    (:func:`weighted_recall_rule`). Equal weights (beside rows of weight 0): :func:`recall_rank` of the
    *n* rows kept, bit for bit."""
    desc, k, _, _ = weighted_recall_rule(sp, wp, target, correction)
    return desc, k


def weighted_recall_rule(sp: np.ndarray, wp: np.ndarray, target: float,
                         correction: bool = True) -> tuple[np.ndarray, int, float, float | None]:
    r""":func:`weighted_recall_rank`, the weight *t* it counts the new positive at (0 without
    correction) and the spread's size *m* where that is the one used (None for Kish's):
    ``(descending scores, k, t, m)``.

    *k* is the first position where the cumulative weight reaches :math:`\mathrm{target}\cdot(W + t)`.
    :math:`t = W/m`, *m* Kish's :math:`(\sum w)^2/\sum w^2` (:math:`t = \sum w^2/\sum w`), or, where it
    is smaller, the sandwich size of the weighted share of positives caught by that threshold,
    :math:`F(1-F)\,W^2/\sum_i w_i^2 (h_i - F)^2`, :math:`h_i = 1\{s_i \ge \hat t\}` (the split-conformal
    rule of :func:`~veracity.decisions.conformal_quantile` on the positives' scores,
    :func:`~veracity.core._weights.share_size`): heavy positives below the threshold, the ones a new positive's own weight would
    count, make the share noisier than Kish's size says. Either size below :func:`min_positives` is
    refused (the rule cannot be met)."""
    if not wp.all():  # a row of weight 0 is a dropped row (it must not count in the +1 row's weight)
        sp, wp = sp[wp > 0], wp[wp > 0]
    n = sp.size
    if n == 0:
        raise VeracityError("the positive rows all have weight 0; recall is undefined")
    order = np.argsort(-sp, kind="stable")
    desc = sp[order]
    cum = np.cumsum(wp[order])
    total = float(cum[-1])
    if total <= 0:
        raise VeracityError("the positive rows all have weight 0; recall is undefined")
    need = min_positives(target, correction)
    if wp.min() == wp.max():  # equal weights (beside rows of weight 0): the plain rank, bit for bit
        return desc, _checked_rank(recall_rank(n, target, correction) - 1, n, need, target, total), (
            total / n if correction else 0.0), None
    if not correction:
        return desc, _checked_rank(_reaching(cum, target * total, total), n, need, target, total), 0.0, None
    m = effective_number(wp)
    if n >= need and m < need:  # n < need: the refusal below, whatever the weights
        raise VeracityError(
            f"too few effective positives for target recall {target:g}: their weights are uneven, and "
            f"the +1 correction needs an effective number (Kish, (sum w)^2 / sum w^2) of at least {need} "
            f"positives, got {m:.3g} of n = {n}. Collect more positives or give them more even weights, "
            "lower the target, or pass {setting}", param="correction", value=False)
    t = plus_one_weight(wp, total)
    k = _checked_rank(_reaching(cum, target * (total + t), total), n, need, target, total)
    spread = share_size(sp >= desc[k - 1], wp)
    if not spread < m:  # weights unrelated to the share caught (or no row below the threshold): Kish's size
        return desc, k, t, None
    if spread < need:
        raise VeracityError(
            f"too few effective positives for target recall {target:g}: their weights are uneven, heaviest "
            f"about the threshold, and the +1 correction needs an effective number of at least {need} "
            f"positives (the smaller of Kish's, {m:.3g}, and the one their spread about the threshold "
            f"gives, F(1-F) W^2 / sum w^2 (h-F)^2), got {spread:.3g} of n = {n}. Collect more positives or "
            "give them more even weights, lower the target, or pass {setting}", param="correction",
            value=False)
    t = total / spread
    k = _checked_rank(_reaching(cum, target * (total + t), total), n, need, target, total)
    return desc, k, t, spread


def _reaching(cum: np.ndarray, need_w: float, total: float) -> int:
    """The first (0-based) position whose cumulative weight reaches ``need_w`` (the tolerance of the
    unweighted rule's ceiling, relative to the total weight); ``cum.size`` when none does."""
    return int(np.searchsorted(cum, need_w - CEIL_EPS * total, side="left"))


def _checked_rank(j: int, n: int, need: int, target: float, total: float) -> int:
    """``j + 1``, the rank from 1, or the refusal of a rule no position meets (``j >= n``)."""
    if j >= n:
        raise VeracityError(
            f"too few positives for target recall {target:g}: the +1 correction needs at least "
            f"{need} positives of positive weight, whatever their weights, got n = {n} (weight {total:.4g}). "
            "Collect more "
            "positives, lower the target, or pass {setting}", param="correction", value=False
        )
    return j + 1


def plus_one_weight(w: np.ndarray, total: float | None = None) -> float:
    r"""The least weight at which the weighted "+1" rules count the new row: the size-biased mean weight
    :math:`\sum w^2 / \sum w = W/m` (*m* Kish's effective number), so that the rule stops at
    :math:`\mathrm{target}\cdot(W + \sum w^2/\sum w) = \mathrm{target}\cdot W\,(1 + 1/m)`, the
    :math:`k/(n+1)` correction in effective units; a heavier one where the weights' spread about the
    threshold gives a smaller *m* (:func:`weighted_recall_rule`). Equal weights give :math:`W/n` exactly
    (the unweighted rule, bit for bit); ``w`` holds positive weights, ``total`` their sum when known.

    >>> plus_one_weight(np.full(4, 0.1)), plus_one_weight(np.array([1.0, 2.0, 1.0]))   # w̄; (1 + 4 + 1) / 4
    (0.1, 1.5)
    """
    total = float(w.sum()) if total is None else total
    if w.min() == w.max():
        return total / w.size
    top = float(w.max())
    u = w / top  # scaled by the largest first: the squares of weights near the float range stay finite
    return top * float(np.dot(u, u)) / float(u.sum())


def effective_number(w: np.ndarray) -> float:
    r"""Kish's effective number :math:`(\sum w)^2/\sum w^2` of positive weights ``w``; exactly their
    count for equal weights."""
    return float(w.size) if w.min() == w.max() else kish_size(w)


@_frame_positional
@positional_options("target")
@rows_form
def precision_threshold(
    scores: Any,
    labels: Any = None,
    *,
    score: Any = None,
    label: Any = None,
    target: float = 0.9,
    sample_weight: Any = None,
    score_type: ScoreType = "probability",
    pos_label: Any = None,
) -> float:
    r"""Lowest threshold whose empirical precision :math:`TP/(TP+FP)` reaches ``target``.

    Among the observed scores used as thresholds, return the smallest *t* with
    ``precision(t) >= target`` — the most recall for that precision on these data.
    Precision is not monotone in *t* and this is a plug-in choice with no
    finite-sample correction: measure it on a held-out role. ``target`` lies in
    (0, 1] (a target recall of 1 is refused, a precision of 1 is not): ``target=1``
    asks for no false alarm on these data, the lowest threshold with no negative row of
    positive weight at or above it (FP = 0, not a precision that rounds to 1); on new rows
    that is a hope, not a guarantee (one false alarm breaks it). ``pos_label`` names the
    positive class of two-valued labels.

    >>> precision_threshold([.1, .3, .4, .6, .8, .9], [0, 0, 1, 0, 1, 1], target=0.75)
    0.4
    >>> precision_threshold([.1, .3, .4, .6, .8, .9], [0, 0, 1, 0, 1, 1], target=1)   # above every negative
    0.8
    """
    s, y, w = binary_inputs(scores, labels, sample_weight=sample_weight, score_type=score_type,
                            pos_label=pos_label, allow_score=True)  # an order statistic: any real score
    target = check_target(target, example=0.9, one=True)  # 1: no false alarm on these data
    if not (y == 1.0).any():
        raise VeracityError("precision_threshold needs positive rows (label 1); the labels have none")
    if w is not None and not (w[y == 1.0] > 0).any():  # "the best is 0 at threshold ..." said nothing of why
        raise VeracityError("the positive rows all have weight 0; precision is 0 at every threshold. Give the "
                            "positive rows a positive sample_weight")
    candidates = np.unique(s if w is None else s[w > 0])   # a row of weight 0 is no candidate
    table = threshold_table(s, y, candidates, sample_weight=w, score_type=score_type)
    # precision 1 is no false alarm (FP = 0): a false alarm of tiny weight rounds TP/(TP+FP) to within 1e-12
    ok = np.flatnonzero(table.fp == 0 if target == 1.0 else table.precision >= target - 1e-12)
    if ok.size == 0:
        best = int(np.nanargmax(table.precision))
        raise VeracityError(
            f"no threshold reaches precision {target:g}; the best is {table.precision[best]:.4g} "
            f"at threshold {candidates[best]:.6g}. Lower the target"
        )
    return float(candidates[ok[0]])


def budget_threshold(
    scores: Any,
    *,
    top_k: float | None = None,
    fraction: float | None = None,
    sample_weight: Any = None,
    score_type: ScoreType = "probability",
    score: str | None = None,
) -> float:
    r"""Lowest threshold whose review volume fits the budget (seed 004: review volume).

    Give ``top_k`` (rows to review; with ``sample_weight``, total weight) or
    ``fraction`` (share of rows, in (0, 1]). Returns the smallest observed score
    *t* with :math:`\#\{s_i \ge t\} \le` budget, so the alerts never exceed it;
    when rows tie at the cut, all of them stay below it and fewer than ``top_k``
    are flagged. If even the top score is shared by more rows than the budget,
    the threshold is just above the maximum (nothing flagged) and a warning says so: the next value
    above it in the scores' precision (float32 scores: the next float32, which flags nothing when
    compared in float32 as :func:`threshold_table` and numpy's ``scores >= t`` compare them).

    >>> budget_threshold([.9, .8, .8, .7, .1], top_k=2)    # the two 0.8s would exceed 2
    0.9
    >>> budget_threshold([.9, .8, .8, .7, .1], fraction=0.6)
    0.8

    Frame form (no labels needed): ``budget_threshold(frame, score="p", top_k=100, sample_weight="w")``
    on an in-memory frame (pandas, polars, pyarrow); ``sample_weight`` names a column or holds the
    weights (a pandas Series on another index is refused, never paired by position). Lazy frames,
    database relations, paths and connections are refused in one line: collect the columns first.
    """
    if score is not None:
        if not isinstance(score, str):  # one score column: the review volume ranks one score per row
            from ..sources._api import shown_arg

            raise VeracityError("score= names the score column of the frame (a string); got "
                                f"{shown_arg(score)}", param="score")
        from ..core._frameform import scores_call

        with warnings.catch_warnings(record=True) as caught:  # the "flags nothing" warning: said at the
            warnings.simplefilter("always")                    # caller's line, as the array form says it
            threshold = scores_call("budget_threshold", budget_threshold, scores, score=score, top_k=top_k,
                                    fraction=fraction, sample_weight=sample_weight, score_type=score_type)
        for said in caught:
            warnings.warn(said.message, said.category, stacklevel=2)
        return threshold
    if hasattr(scores, "columns") and not hasattr(scores, "dtype"):  # a frame (a Series has a dtype)
        raise VeracityError("vc.budget_threshold got a frame: name its score column with score=, e.g. "
                            "budget_threshold(frame, score='p', top_k=100)", param="score")
    check_same_index(scores=scores, sample_weight=sample_weight)  # never paired by position
    raw = to_numpy(scores, "scores")  # its dtype: the precision "just above the top score" is taken in
    s = scores_1d(raw, score_type=score_type, allow_score=True)  # an order statistic: any real score
    w = check_weights(sample_weight, s.shape[0])
    if (top_k is None) == (fraction is None):
        raise VeracityError("give exactly one of top_k (rows to review) or fraction (share of rows)")
    total = float(s.shape[0]) if w is None else float(w.sum())
    shift = weight_shift(sample_weight, w)  # top_k is in the caller's weight units, w in check_weights'
    if top_k is not None:
        if isinstance(top_k, (bool, np.bool_)):  # True would read as one row
            raise VeracityError(f"top_k must be a positive number of rows; got {top_k!r}", param="top_k")
        try:
            budget = float(top_k)
        except (TypeError, ValueError):
            raise VeracityError(f"top_k must be a positive number of rows; got {top_k!r}", param="top_k") from None
        if not math.isfinite(budget) or budget <= 0:
            raise VeracityError(f"top_k must be a positive number of rows; got {top_k!r}", param="top_k")
        budget = in_caller_units(budget, -shift)  # exact: 2**shift may exceed the largest double
    else:
        if isinstance(fraction, (bool, np.bool_)):  # True would read as every row
            raise VeracityError(f"fraction must be a share of the rows in (0, 1], e.g. 0.05; got {fraction!r}",
                                param="fraction")
        try:
            frac = float(fraction)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            raise VeracityError(f"fraction must be a number in (0, 1], e.g. 0.05 for 5%; got {fraction!r}",
                                param="fraction") from None
        if not 0.0 < frac <= 1.0:
            raise VeracityError(f"fraction must be in (0, 1], e.g. 0.05 for 5%; got {fraction!r}", param="fraction")
        budget = frac * total
    candidates = np.unique(s if w is None else s[w > 0])   # a row of weight 0 is no candidate
    volume = _counts_at_or_above(s, w, candidates)
    ok = np.flatnonzero(volume <= budget * (1 + 1e-12))
    if ok.size == 0:
        top = float(candidates[-1])
        tie = in_caller_units(float(volume[-1]), shift)
        limit = in_caller_units(budget, shift)
        at_top = int(np.count_nonzero(s == top)) if w is None else int(np.count_nonzero((s == top) & (w > 0)))
        if w is None and at_top == 1:  # one row at the top: no tie, a budget below one row
            what = f"the budget {budget:g} is less than one row (the top score {top:.6g})"
        elif w is None:
            what = f"{at_top} rows tie at the top score {top:.6g}, more than the budget {limit:g}"
        elif at_top == 1:  # one weighted row, not a tie ("7.4 weight tie at the top score" was said)
            what = f"the one row at the top score {top:.6g} weighs {tie:g}, more than the budget {limit:g}"
        else:
            what = (f"{at_top} rows of total weight {tie:g} tie at the top score {top:.6g}, more than the "
                    f"budget {limit:g}")
        warnings.warn(f"{what}; the threshold flags nothing", stacklevel=2)
        return next_above(top, narrow_float(raw))
    return float(candidates[ok[0]])
