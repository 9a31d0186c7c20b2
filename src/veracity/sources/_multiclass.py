r"""Multiclass scores on lazy frames: the top-label reading as expressions.

``score=["p0", "p1", "p2"]`` and an integer class label reduce, row by row and
where the data lives, to the binary problem the rest of the audit reads:
confidence :math:`\max_k p_k`, correct :math:`[\arg\max_k p_k = y]` (on ties: for K = 2
class 1, as a 1-D score p >= 0.5 predicts 1; for K >= 3 the first maximum, as numpy's ``argmax``:
:func:`~veracity.core._validation.top_label_rows`) and the categorical log-loss :math:`-\log p_y`
(from logits: :math:`-(s_y - \mathrm{logsumexp}(s))`). The input contract is the
array one: finite scores, probabilities in [0, 1] whose rows sum to 1, labels that
are class indices ``0..K-1``: text labels are refused in the array form's words
(:func:`class_label_type_error`).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..core._validation import (MULTIPLE_SLACK, PROB_EPS, ROUNDING_DECIMALS, ROW_SUM_ATOL, VeracityError,
                                first_text, out_of_range_hint, range_text, refuse_probability_rows_as_logits,
                                rounded_decimals, row_sum_hint, text_class_labels)
from ._aggregates import _flag, as_float, backend_of, collect

if TYPE_CHECKING:
    from ._source import Frame

_INF = float("inf")


def _staged(frame: Any, scores: list[str], score_type: str, keep: list[Any]) -> tuple[Any, list[str], list[str] | None]:
    r"""``frame`` with the class probabilities (and log-probabilities) as columns of their own.

    From logits :math:`z`: :math:`\log p_k = (z_k - \max z) - \log \Sigma_j e^{z_j - \max z}`, in
    that order (the in-memory definition, :func:`veracity.core._validation.class_probabilities`),
    and :math:`p_k = e^{\log p_k}`.
    Each row-wise step (max, log-sum-exp, the probabilities) is its own ``with_columns``
    on plain columns: Dask aligns a conditional only with columns, not with a
    horizontal expression computed in the same step.
    """
    import narwhals as nw

    k = len(scores)
    raw = [f"__vc_s{i}" for i in range(k)]
    schema = frame.collect_schema()
    x = frame.select(*[as_float(c, schema).alias(r) for c, r in zip(scores, raw)], *keep)
    if score_type != "logit":
        return x, raw, None
    x = x.with_columns(__vc_top=nw.max_horizontal(*raw))
    x = x.with_columns(__vc_sum=nw.sum_horizontal(*[(nw.col(r) - nw.col("__vc_top")).exp() for r in raw]))
    x = x.with_columns(__vc_lse=nw.col("__vc_sum").log())
    log_p = [f"__vc_lp{i}" for i in range(k)]
    # (z - top) - log sum: the shift first, as core._validation.class_probabilities; z - (top + log sum)
    # loses log sum's low bits to top's magnitude (logits near 1e15: NLL 0.7083 for 0.7214)
    x = x.with_columns(*[((nw.col(r) - nw.col("__vc_top")) - nw.col("__vc_lse")).alias(lp)
                         for r, lp in zip(raw, log_p)])
    probs = [f"__vc_p{i}" for i in range(k)]
    x = x.with_columns(*[nw.col(lp).exp().alias(p) for lp, p in zip(log_p, probs)])
    return x, probs, log_p


def top_label_base(frame: Any, scores: list[str], label: str, weight: str | None, by: str | None,
                   score_type: str, weight_scale: float = 1.0, pooled: Any = None) -> Any:
    """Working columns ``_s`` (confidence), ``_y`` (correct), ``_w``, ``_l`` (log-loss) and ``_g``."""
    import narwhals as nw

    schema = frame.collect_schema()
    w = as_float(weight, schema) if weight else nw.lit(1.0, nw.Float64)
    if weight and weight_scale != 1.0:
        w = w * weight_scale
    keep = [as_float(label, schema).alias("__vc_y"), w.alias("_w")]
    if by is not None:
        from ._aggregates import one_missing_key, pooled_key

        key = one_missing_key(nw.col(by), schema[by])  # a float key's NaN: the missing key, as null
        if pooled is not None:
            key = pooled_key(key, schema[by], pooled)
        keep.append(key.alias("_g"))
    if backend_of(frame) == "dask":  # the row-wise steps in one numpy pass per partition (see _dask)
        return _dask_top_label(frame, scores, score_type, keep, by is not None)
    x, probs, log_p = _staged(frame, scores, score_type, keep)
    y = nw.col("__vc_y")
    x = x.with_columns(_s=nw.max_horizontal(*probs),
                       **{f"__vc_c{i}": nw.when(y == float(i)).then(nw.col(src)).otherwise(nw.lit(0.0))
                          for i, src in enumerate(log_p or probs)})
    chosen = nw.col("__vc_chosen")
    x = x.with_columns(__vc_chosen=nw.sum_horizontal(*[f"__vc_c{i}" for i in range(len(scores))]))
    if len(scores) == 2:  # a tie goes to class 1, as a 1-D p >= 0.5 predicts 1 (core's top_label_rows)
        pred = nw.when(nw.col(probs[1]) == nw.col("_s")).then(nw.lit(1.0)).otherwise(nw.lit(0.0))
    else:
        pred = nw.lit(float(len(scores) - 1))
        for i in reversed(range(len(scores) - 1)):  # K >= 3: the first maximum, as numpy's argmax
            pred = nw.when(nw.col(probs[i]) == nw.col("_s")).then(nw.lit(float(i))).otherwise(pred)
    x = x.with_columns(__vc_pred=pred)
    loss = -chosen if log_p is not None else -(chosen.clip(lower_bound=PROB_EPS).log())
    cols = ["_s", nw.when(nw.col("__vc_pred") == y).then(nw.lit(1.0)).otherwise(nw.lit(0.0)).alias("_y"),
            "_w", loss.alias("_l")]
    if by is not None:
        cols.append("_g")
    return x.select(cols)


def check_top_label(frame: Any, scores: list[str], label: str, score_type: str, shown: list[str]) -> None:
    """The multiclass contract's counts in one aggregate, and its one-line errors."""
    import narwhals as nw

    k = len(scores)
    raw = [f"__vc_s{i}" for i in range(k)]
    schema = frame.collect_schema()
    x = frame.select(*[as_float(c, schema).alias(r) for c, r in zip(scores, raw)],
                     as_float(label, schema).alias("__vc_y"))
    if backend_of(frame) == "dask":  # one numpy pass per partition (see _dask.top_label_counts)
        from ._dask import top_label_counts, top_label_rounding

        native = x.to_native()
        _raise_top_label(top_label_counts(native, k), k, label, score_type, shown,
                         lambda: top_label_rounding(native, k))
        return
    cols = [nw.col(r) for r in raw]
    bad = [(c.is_null() | c.is_nan() | (c.abs() == _INF)).fill_null(True) for c in cols]
    any_bad = bad[0]
    for b in bad[1:]:
        any_bad = any_bad | b
    y = nw.col("__vc_y")
    y_bad = ~(((y == y.round(0)) & (y >= 0) & (y <= float(k - 1))).fill_null(False))
    # row-wise min/max/sum first, as columns (see _staged), then the flags that read them
    x = x.with_columns(__vc_anybad=any_bad, __vc_min=nw.min_horizontal(*raw), __vc_max=nw.max_horizontal(*raw),
                       __vc_total=nw.sum_horizontal(*raw))
    ok = ~nw.col("__vc_anybad")
    x = x.with_columns(
        _one=nw.lit(1, nw.Int64), _bad=_flag(nw.col("__vc_anybad")), _y_bad=_flag(y_bad),
        _lo=nw.when(ok).then(nw.col("__vc_min")), _hi=nw.when(ok).then(nw.col("__vc_max")),
        _sum_bad=_flag(ok & ((nw.col("__vc_total") - 1.0).abs() > ROW_SUM_ATOL * max(1, k))),
        _out=_flag(ok & ((nw.col("__vc_min") < 0.0) | (nw.col("__vc_max") > 1.0))),
        _yf=nw.when(y_bad & ~(y.is_null() | y.is_nan()).fill_null(True)).then(y),
    )
    row = collect(x.select(
        nw.col("_one").sum().alias("n"), nw.col("_bad").sum().alias("bad"), nw.col("_y_bad").sum().alias("y_bad"),
        nw.col("_lo").min().alias("lo"), nw.col("_hi").max().alias("hi"), nw.col("_sum_bad").sum().alias("sum_bad"),
        nw.col("_yf").min().alias("y_min"), nw.col("_yf").max().alias("y_max"),
        nw.col("_out").sum().alias("out_rows"),  # rows with a score outside [0, 1], and each column's range
        *(nw.when(ok).then(nw.col(r)).min().alias(f"lo{i}") for i, r in enumerate(raw)),
        *(nw.when(ok).then(nw.col(r)).max().alias(f"hi{i}") for i, r in enumerate(raw)),
    )).rows(named=True)[0]
    _raise_top_label(row, k, label, score_type, shown, lambda: _rounding(x, raw, k))


def _rounding(x: Any, raw: list[str], k: int) -> int | None:
    """:func:`~veracity.core._validation.rounded_decimals` of the rows of ``x`` (:func:`check_top_label`'s
    staged columns) whose sums are off 1, in one aggregate: the same counts as the array form's
    (:func:`~veracity.core._validation.rows_rounding`), read only to word the refusal of such rows."""
    import narwhals as nw

    off = ~nw.col("__vc_anybad") & ((nw.col("__vc_total") - 1.0).abs() > ROW_SUM_ATOL * max(1, k))
    flags = {}
    for d in ROUNDING_DECIMALS:
        scaled = [nw.col(r) * 10.0 ** d for r in raw]
        not_multiple = [(c - c.round(0)).abs() > MULTIPLE_SLACK for c in scaled]
        anyone = not_multiple[0]
        for b in not_multiple[1:]:
            anyone = anyone | b
        flags[f"_d{d}"] = _flag(off & anyone)
    x = x.with_columns(_off=nw.when(off).then((nw.col("__vc_total") - 1.0).abs()), **flags)
    counts = [nw.col(f"_d{d}").sum().alias(f"d{d}") for d in ROUNDING_DECIMALS]
    row = collect(x.select(nw.col("_off").max().alias("off"), *counts)).rows(named=True)[0]
    if row["off"] is None:
        return None
    return rounded_decimals([int(row[f"d{d}"] or 0) for d in ROUNDING_DECIMALS], float(row["off"]), k)


def _raise_top_label(row: dict[str, Any], k: int, label: str, score_type: str, shown: list[str],
                     rounding: Callable[[], int | None] = lambda: None) -> None:
    """The multiclass contract's one-line errors from :func:`check_top_label`'s counts; logits that are
    all probability vectors are refused by the array form's rule and words
    (:func:`~veracity.core._validation.refuse_probability_rows_as_logits`). ``rounding``: the decimals the
    rows off 1 look rounded to (:func:`_rounding`), asked only to word their refusal
    (:func:`~veracity.core._validation.row_sum_hint`, the array form's words)."""
    n = int(row["n"] or 0)
    names = ", ".join(repr(c) for c in shown)
    if n == 0:
        raise VeracityError("the frame has no rows; pass at least one row")
    if int(row["bad"] or 0):
        raise VeracityError(
            f"score columns {names} have {int(row['bad'])} rows with missing/NaN/infinite values of {n}; "
            "drop or fill those rows first")
    if score_type == "probability":
        lo, hi = float(row["lo"]), float(row["hi"])
        if lo < 0.0 or hi > 1.0:
            raise VeracityError(
                f"score columns {names} must hold probabilities in [0, 1]; {int(row['out_rows'] or 0)} of {n} "
                f"rows are not ({range_text(lo, hi)}; {_first_bad_column(row, shown)})",
                param="score_type", hint=out_of_range_hint(lo, hi), value="logit")
        if int(row["sum_bad"] or 0):
            raise VeracityError(
                f"multiclass probability rows must sum to 1; {int(row['sum_bad'])} of {n} rows of {names} do "
                "not", param="score_type", hint=row_sum_hint(rounding(), k), value="logit")
    if int(row["y_bad"] or 0):
        shown_y = ("missing" if row["y_min"] is None or row["y_min"] != row["y_min"]
                   else f"min={float(row['y_min']):g}, max={float(row['y_max']):g}")
        raise VeracityError(
            f"column {label!r} (labels) must hold class indices 0..{k - 1} for {k} score columns; "
            f"{int(row['y_bad'])} of {n} do not ({shown_y})")
    if score_type == "logit":  # the array form's rule and words, from the counts
        refuse_probability_rows_as_logits(n, float(row["lo"]), float(row["hi"]), int(row["sum_bad"] or 0))


def _first_bad_column(row: dict[str, Any], shown: list[str]) -> str:
    """The first score column (in the order given) holding a value outside [0, 1], with its smallest value
    below 0 and/or its largest above 1 (``row["lo{j}"]``, ``row["hi{j}"]``: column j's min and max):
    "first bad column 'p0': max=1.2". A frame's rows have no order every engine keeps, so no row is named
    (the command line names the file's data row); the array form names the first row and its column."""
    for j, name in enumerate(shown):
        lo, hi = float(row[f"lo{j}"]), float(row[f"hi{j}"])
        if lo < 0.0 or hi > 1.0:
            below, above = range_text(lo, hi).split(", ")
            outside = [text for text, off in ((below, lo < 0.0), (above, hi > 1.0)) if off]
            return f"first bad column {name!r}: {', '.join(outside)}"
    return "first bad column unknown"  # not reached: the min or max of some column is outside [0, 1]


def class_label_type_error(frame: Frame, label: str, k: int) -> VeracityError:
    """The refusal of a label column ``label`` for ``k`` score columns that does not hold numbers (or
    booleans): the array form's (:func:`~veracity.core._validation.check_class_labels`) when it holds
    text, whose example is the first text label in row order, as in memory (``'0'`` is refused too:
    labels are the class's column index, and which column a text names is the caller's to say).

    Rows in memory are read as the array form reads them (a pandas object column mixing numbers and
    text shows its first text); a lazy frame's first label that is not missing is read (one ``head(1)``),
    never the whole column. A column of another type (dates) is named as not class indices."""
    import narwhals as nw

    from ._arrow_numpy import series_to_numpy

    dtype = frame.schema[label]
    if frame.lazy:
        text = None
        if dtype in (nw.String, nw.Categorical, nw.Enum, nw.Object, nw.Binary):
            with warnings.catch_warnings():  # Dask's "Insufficient elements for head": a short partition
                warnings.simplefilter("ignore")
                first = collect(frame.nw.select(nw.col(frame.ref(label)).alias("_v"))
                                .filter(~nw.col("_v").is_null()).head(1)).get_column("_v").to_list()
            text = first[0] if first and isinstance(first[0], (str, bytes)) else None
    else:
        text = first_text(series_to_numpy(frame.nw.get_column(frame.ref(label))))
    if text is not None:
        return text_class_labels(k, text)
    return VeracityError(
        f"column {label!r} (labels) must hold class indices 0..{k - 1} for {k} score columns, got {dtype}; "
        "convert the column to numbers", param="labels")


def _dask_top_label(frame: Any, scores: list[str], score_type: str, keep: list[Any], grouped: bool) -> Any:
    """:func:`top_label_base` on Dask: the columns selected as on every backend, then the row-wise
    steps as one ``map_partitions`` (:func:`._dask.top_label_frame`): the same steps as expressions,
    a column each, made a tree that Dask's optimiser took seconds to simplify per compute."""
    import narwhals as nw

    from ._dask import top_label_frame

    schema = frame.collect_schema()
    x = frame.select(*[as_float(c, schema).alias(f"__vc_s{i}") for i, c in enumerate(scores)], *keep)
    native = top_label_frame(x.to_native(), len(scores), score_type, grouped)
    with warnings.catch_warnings():  # narwhals announces that its Dask support moves to a plugin
        warnings.simplefilter("ignore", FutureWarning)
        return nw.from_native(native)
