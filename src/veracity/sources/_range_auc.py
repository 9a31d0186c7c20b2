r"""The exact AUC's numerators of one shuffle partition, in numpy: what Spark's Python
workers and Dask's tasks run after the rows were shuffled by score range.

Imports only numpy and pyarrow, and :mod:`._spark` registers this module to be
pickled *by value*, so a cluster's executors need no veracity install.

The rows of a partition belong to one or more score ranges (cut at ``bounds``
on the score's own axis; a row with score ``s`` is in range
``#{b in bounds: b <= s}``, as :func:`._spark.range_column` computes it). Per
(slice, range) the positives are looked up in the sorted negatives of the same
slice (both sorted: sorted lookups stay in cache) — no per-row Python:

.. math:: 2U_r = \sum_{i \in r,\ y_i = 1} w_i\,\big(W_-^{(r)}(<s_i) + W_-^{(r)}(\le s_i)\big)

with :math:`W_-^{(r)}(<s)` the (weight of) negatives of range ``r`` below ``s``:
a ``searchsorted`` in the negatives sorted by score, less those of the lower
ranges (ranges are contiguous in score order). Unweighted, every term is an
integer and the sums are int64: exact for any N.
"""

from __future__ import annotations

from typing import Any, Iterator

import numpy as np
import pyarrow as pa


def range_numerators(batches: Iterator[Any], bounds: list[float], grouped: bool,
                     weighted: bool, whole: bool = False) -> Iterator[Any]:
    """``mapInArrow`` body: per (slice, range) present, ``_num`` (2U), ``_pos`` and ``_neg``.

    Input columns: ``[_g,] _s, _y (bool)[, _w]`` — or, for scores >= 0, no ``_y`` and the
    label in the sign bit of ``_s`` (``+s`` positive, ``-s`` negative, ``-0.0`` a negative
    at 0); output ``[_g,] _r, _num, _pos, _neg[, _all]``.
    ``whole`` (with slices): also one row per range for all the rows together,
    ``_all`` true (its ``_g`` null) — the whole table's AUC from the same pass.
    """
    chunks = [b for b in batches if b.num_rows]
    if not chunks:
        return
    table = pa.Table.from_batches(chunks)
    s = table.column("_s").to_numpy()
    if "_y" in table.column_names:
        y = table.column("_y").to_numpy()
    else:  # probabilities with the label in the sign bit (one column to move): +s positive, -s negative
        y = ~np.signbit(s)
        s = np.abs(s)
    w = table.column("_w").to_numpy() if weighted else None
    edges = np.asarray(bounds, dtype=np.float64)
    if grouped:
        codes = table.column("_g").combine_chunks().dictionary_encode(null_encoding="encode")
        keys, slice_of = codes.dictionary, codes.indices.to_numpy(zero_copy_only=False)
    else:
        keys, slice_of = None, None
    out: dict[str, list[Any]] = {"_k": [], "_r": [], "_num": [], "_pos": [], "_neg": []}
    wanted = [*range(1 if keys is None else len(keys)), *([-1] if whole and keys is not None else [])]
    for k in wanted:  # a loop over slices, never rows; -1: every row
        rows = slice(None) if keys is None or k < 0 else slice_of == k
        r, num, pos, neg = slice_numerators(s[rows], y[rows], None if w is None else w[rows], edges)
        out["_k"].append(np.full(r.size, k, np.int64))
        for name, part in (("_r", r), ("_num", num), ("_pos", pos), ("_neg", neg)):
            out[name].append(part)
    cols = {name: np.concatenate(parts) for name, parts in out.items()}
    arrays: dict[str, Any] = {}
    if keys is not None:
        every = cols["_k"] < 0
        arrays["_g"] = keys.take(pa.array(np.where(every, 0, cols["_k"]), mask=every))
    arrays.update({name: pa.array(cols[name]) for name in ("_r", "_num", "_pos", "_neg")})
    if whole and keys is not None:
        arrays["_all"] = pa.array(cols["_k"] < 0)
    yield pa.RecordBatch.from_pydict(arrays)


def slice_numerators(s: np.ndarray, y: np.ndarray, w: np.ndarray | None,
                     edges: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per range present: (range, 2U, positives, negatives) of one slice's rows ``s, y (0/1), w``.

    Unweighted (``w`` None): int64 counts and an int64 2U; weighted: float sums.
    """
    is_pos = y.astype(bool, copy=False)
    w_pos, w_neg = (None, None) if w is None else (w[is_pos], w[~is_pos])
    return class_numerators(s[is_pos], s[~is_pos], w_pos, w_neg, edges)


def class_numerators(s_pos: np.ndarray, s_neg: np.ndarray, w_pos: np.ndarray | None, w_neg: np.ndarray | None,
                     edges: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`slice_numerators` of rows already split by class (``s_pos``, ``s_neg``: the
    positives' and negatives' scores, sorted in place when unweighted — pass arrays you own)."""
    ranges = edges.size + 1
    if ranges == 1 and w_pos is None:  # one range, unweighted: two lookups and two int64 sums
        if not (s_pos.size or s_neg.size):
            return tuple(np.zeros(0, np.int64) for _ in range(4))  # type: ignore[return-value]
        s_pos.sort()
        s_neg.sort()
        num = (np.searchsorted(s_neg, s_pos, side="left").sum(dtype=np.int64)
               + np.searchsorted(s_neg, s_pos, side="right").sum(dtype=np.int64))
        return (np.zeros(1, np.int64), np.array([num], np.int64), np.array([s_pos.size], np.int64),
                np.array([s_neg.size], np.int64))
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
        cum = np.concatenate(([0.0], np.cumsum(w_neg[order])))  # cum[j]: weight of the j lowest negatives
        lt = cum[np.searchsorted(neg_sorted, s_pos, side="left")]
        le = cum[np.searchsorted(neg_sorted, s_pos, side="right")]
        below = cum[np.concatenate(([0], np.searchsorted(neg_sorted, edges, side="left")))]
        num = np.bincount(r_pos, weights=w_pos * (lt + le - 2.0 * below[r_pos]), minlength=ranges)
        pos = np.bincount(r_pos, weights=w_pos, minlength=ranges)
        neg = np.bincount(r_neg, weights=w_neg, minlength=ranges)
    present = np.flatnonzero(np.bincount(r_pos, minlength=ranges) + np.bincount(r_neg, minlength=ranges))
    return present.astype(np.int64), num[present], pos[present], neg[present]
