r"""The exact AUC's one kernel: twice the Mann–Whitney U, per score range, in numpy.

For positives with scores :math:`s_i` (weights :math:`w_i`) and negatives sorted by score,

.. math:: 2U = \sum_{i:\,y_i=1} w_i\,\big(W_-(< s_i) + W_-(\le s_i)\big),

found with two binary searches per positive (ties count ½); AUC = 2U / (2 W+ W-).
Unweighted every term is an integer and the sums are int64: exact for any N, and sums
over partitions stay exact. With cut points (``edges``) the rows of each score range
count against the negatives of that range only (:func:`class_numerators`): what a
shuffle by score range gives each task.

Weighted, the running weight of the negatives and the sum over the positives are
compensated (:func:`running_sum`, :func:`bin_sums`): each is about one rounding from the
exact value, so the AUC of a table with weights from 1e-8 to 1e8 moves by an ulp or two
when its rows are shuffled (numpy's ``cumsum`` and ``dot`` add in row order: ten ulps off).

Every engine counts here: the array form (:func:`veracity.core._metrics.mann_whitney_u2`),
DuckDB's spilled ranges, Spark's Python workers and Dask's tasks. The module imports
only numpy, so Spark pickles it by value to executors that have no veracity installed.
"""

from __future__ import annotations

import numpy as np


def twice_u(neg: np.ndarray, pos: np.ndarray) -> int:
    """Σ over ``pos`` of 2·#(neg < p) + #(neg = p), both arrays sorted (unweighted 2U)."""
    # ties are rare, so the second binary search runs only where one was found
    below = np.searchsorted(neg, pos, side="left")
    hit = below < neg.size
    hit[hit] = neg[below[hit]] == pos[hit]
    ties = np.searchsorted(neg, pos[hit], side="right") - below[hit]
    return 2 * int(below.sum()) + int(ties.sum())


def running_sum(values: np.ndarray) -> np.ndarray:
    r"""``[0, x_0, x_0 + x_1, …]``: numpy's sequential ``cumsum`` with each step's rounding error
    added back (TwoSum, exact: :math:`s_i + e_i = s_{i-1} + x_i`), so every entry is about one
    rounding from the exact prefix sum (Ogita, Rump & Oishi's Sum2, in prefix form)."""
    total = np.cumsum(values)
    before = np.concatenate(([0.0], total[:-1]))
    part = total - before
    error = (before - (total - part)) + (values - part)
    return np.concatenate(([0.0], total + np.cumsum(error)))


def bin_sums(index: np.ndarray, values: np.ndarray, length: int) -> np.ndarray:
    r"""Per-bin sums of ``values`` (``np.bincount(index, weights=values)``), accurate to about one
    rounding of each sum and the same, to the last bit or two, in any order of the rows.

    A plain ``bincount`` adds in row order: its error grows with the rows and cancels badly in a
    signed sum (a calibrated bin's :math:`\sum w(p - y)`). Here each value is split exactly
    (Rump's extraction) into :math:`h = (\sigma_b + x) - \sigma_b` and :math:`x - h`, with
    :math:`\sigma_b` a power of two :math:`\ge 4\sum_{i\in b}|x_i|`: every :math:`h` is a multiple
    of :math:`2^{-53}\sigma_b` below :math:`\sigma_b/4` in size, so their sum is exact in any order;
    the small parts' sum errs by at most :math:`n_b^2 2^{-105}\sigma_b`. Three ``bincount`` passes
    instead of one. Scales near the largest double keep the plain sum.
    """
    high, low = split_sums(index, values, length)
    total: np.ndarray = high + low
    return total


def split_sums(index: np.ndarray, values: np.ndarray, length: int, parts: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """:func:`bin_sums` as its exact sums of the high parts and the sums of the low parts.

    ``parts``: ``index`` is ``bin * parts + part`` and the split is per bin (``index // parts``),
    so the high sums of one bin's parts add up exactly (``high.reshape(-1, parts).sum(axis=1)``)
    and a bin's total is as accurate as its parts (one ``bincount`` of ``|x|`` over the bins).
    """
    bins = index if parts == 1 else index // parts
    scale = np.bincount(bins, weights=np.abs(values), minlength=length // parts)
    if not np.isfinite(scale).all() or scale.max(initial=0.0) >= 2.0**1020:
        return np.bincount(index, weights=values, minlength=length), np.zeros(length)
    sigma = np.ldexp(1.0, np.frexp(scale)[1] + 2)[bins]  # 2**(e + 2) > 4·scale, scale < 2**e
    high = (sigma + values) - sigma
    return (np.bincount(index, weights=high, minlength=length),
            np.bincount(index, weights=values - high, minlength=length))


def accurate_sum(values: np.ndarray) -> float:
    """:func:`bin_sums` of one bin."""
    return float(bin_sums(np.zeros(values.size, np.intp), values, 1)[0])


def weighted_twice_u(s_pos: np.ndarray, w_pos: np.ndarray, s_neg: np.ndarray,
                     w_neg: np.ndarray) -> tuple[float, float, float]:
    """``(2U, W+, W-)`` with weights: the negatives sorted once (stable), the positives looked up;
    the running weight and the sums compensated (:func:`running_sum`, :func:`accurate_sum`)."""
    order = np.argsort(s_neg, kind="stable")
    neg_sorted = s_neg[order]
    cum = running_sum(w_neg[order])
    below = cum[np.searchsorted(neg_sorted, s_pos, side="left")]
    at_or_below = cum[np.searchsorted(neg_sorted, s_pos, side="right")]
    return accurate_sum(w_pos * (below + at_or_below)), accurate_sum(w_pos), float(cum[-1])


def class_numerators(s_pos: np.ndarray, s_neg: np.ndarray, w_pos: np.ndarray | None, w_neg: np.ndarray | None,
                     edges: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`slice_numerators` of rows already split by class (``s_pos``, ``s_neg``: the
    positives' and negatives' scores, sorted in place when unweighted — pass arrays you own)."""
    ranges = edges.size + 1
    if ranges == 1:  # one range: the whole-table kernels, as the array form computes them
        if not (s_pos.size or s_neg.size):
            return tuple(np.zeros(0, np.int64) for _ in range(4))  # type: ignore[return-value]
        if w_pos is None or w_neg is None:
            s_pos.sort()
            s_neg.sort()
            return (np.zeros(1, np.int64), np.array([twice_u(s_neg, s_pos)], np.int64),
                    np.array([s_pos.size], np.int64), np.array([s_neg.size], np.int64))
        u2, pos_w, neg_w = weighted_twice_u(s_pos, w_pos, s_neg, w_neg)
        return np.zeros(1, np.int64), np.array([u2]), np.array([pos_w]), np.array([neg_w])
    if w_pos is None:  # sorted lookups are ~8x faster than random ones (cache)
        s_pos.sort()
    else:
        order = np.argsort(s_pos)
        s_pos, w_pos = s_pos[order], w_pos[order]
    r_pos = np.searchsorted(edges, s_pos, side="right")
    r_neg = np.searchsorted(edges, s_neg, side="right")
    if w_pos is None or w_neg is None:
        neg_sorted = s_neg
        neg_sorted.sort()
        lt = np.searchsorted(neg_sorted, s_pos, side="left")
        le = np.searchsorted(neg_sorted, s_pos, side="right")
        # negatives of the ranges below range r: those under r's lower bound
        below = np.concatenate(([0], np.searchsorted(neg_sorted, edges, side="left")))
        terms = lt + le - 2 * below[r_pos]
        # r_pos is sorted (s_pos is): each range's sum is a difference of an int64 running sum
        run = np.concatenate(([0], np.cumsum(terms, dtype=np.int64)))
        num = np.diff(run[np.searchsorted(r_pos, np.arange(ranges + 1), side="left")])
        pos = np.bincount(r_pos, minlength=ranges).astype(np.int64)
        neg = np.bincount(r_neg, minlength=ranges).astype(np.int64)
    else:
        order = np.argsort(s_neg)
        neg_sorted = s_neg[order]
        cum = running_sum(w_neg[order])  # cum[j]: weight of the j lowest negatives
        lt = cum[np.searchsorted(neg_sorted, s_pos, side="left")]
        le = cum[np.searchsorted(neg_sorted, s_pos, side="right")]
        below = cum[np.concatenate(([0], np.searchsorted(neg_sorted, edges, side="left")))]
        num = bin_sums(r_pos, w_pos * ((lt - below[r_pos]) + (le - below[r_pos])), ranges)
        pos = bin_sums(r_pos, w_pos, ranges)
        neg = bin_sums(r_neg, w_neg, ranges)
    present = np.flatnonzero(np.bincount(r_pos, minlength=ranges) + np.bincount(r_neg, minlength=ranges))
    return present.astype(np.int64), num[present], pos[present], neg[present]
