r"""The exact AUC's numerators of one shuffle partition, in numpy: what Spark's Python
workers and Dask's tasks run after the rows were shuffled by score range.

Imports only numpy, pyarrow and the kernel :mod:`veracity.core._rank` (numpy only), and
:mod:`._spark` registers both modules to be pickled *by value*, so a cluster's executors
need no veracity install.

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

from ..core._rank import class_numerators


def register_by_value(cloudpickle: Any) -> None:
    """Have ``cloudpickle`` ship this module and the 2U kernel by value (executors need no veracity)."""
    import sys

    from ..core import _rank

    cloudpickle.register_pickle_by_value(_rank)
    cloudpickle.register_pickle_by_value(sys.modules[__name__])


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
        column = table.column("_g").combine_chunks()
        if pa.types.is_dictionary(column.type):  # categorical keys (pandas, polars, DuckDB's ENUM): their values
            column = column.dictionary_decode()
        codes = column.dictionary_encode(null_encoding="encode")
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
