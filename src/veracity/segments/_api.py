r"""``vc.segments``: find where a model is miscalibrated, with honest statistics.

Array form ``vc.segments(scores, labels, features={"region": array, ...})``; frame
form ``vc.segments(frame, score="p", label="y", features=["region", "age"])`` on every
frame ``vc.audit`` reads. In-memory frames hand their columns to the array code; lazy
frames (DuckDB, polars LazyFrame, Spark, Dask, files) are never collected: the level
counts and the per (segment, score cell) sums are aggregates computed where the data
lives (:mod:`._cells`), and the same numpy code reads them (:mod:`._analyse`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core._binning import MAX_BINS
from ..core._validation import (
    VeracityError,
    check_random_state,
    check_same_index,
    check_score_type,
    is_real,
    prepare_binary,
    to_numpy,
)
from ._analyse import analyse
from ._cells import cells_lazy, cells_numpy
from ._family import (MAX_DISTINCT, MAX_SEGMENTS, check_depth, check_family_size, check_features, feature_sets,
                      refuse_label_feature)
from ._levels import feature_spec
from ._mce_null import N_RESAMPLES, RANDOM_STATE
from ._result import SegmentsResult
from ._spec import FeatureSpec
from ._values import distinct_counts, duration_error, exact_ints, missing_mask

#: most distinct scores taken as the cells of the cumulative path (beyond: equal-width cells)
MAX_CELLS = 256


def resolve_depth(depth: Any, n_features: int) -> int:
    """``depth=None``: 2, or the number of features when fewer; an explicit depth is checked."""
    return min(2, n_features) if depth is None else check_depth(depth, n_features)


def _check_options(*, depth: Any, bins: Any, min_count: Any, fdr: Any, level: Any, max_levels: Any,
                   ece_bins: Any, max_cells: Any, max_segments: Any, names: list[str],
                   n_resamples: Any = N_RESAMPLES, random_state: Any = RANDOM_STATE) -> None:
    check_depth(depth, len(names))
    check_random_state(random_state)
    if isinstance(bins, dict):
        unknown = [k for k in bins if k not in names]
        if unknown:  # a misspelt name would leave its feature with the default bins, silently
            raise VeracityError(f"{{param}} names {unknown[0]!r}, which is not among features= {names}; "
                                "name a feature, e.g. bins={'age': [30, 45, 60]}", param="bins")
    elif bins is not None:  # None: not given, 5
        _positive_int(bins, "bins", 2)
    for name, value, lo in (("min_count", min_count, 1), ("max_levels", max_levels, 1),
                            ("ece_bins", ece_bins, 1), ("max_cells", max_cells, 2),
                            ("max_segments", max_segments, 1), ("n_resamples", n_resamples, 1)):
        _positive_int(value, name, lo)
    if ece_bins > MAX_BINS:  # the score grid holds at least ece_bins cells: memory, not resolution
        raise VeracityError(f"ece_bins must be at most {MAX_BINS:,}, got {int(ece_bins):,}; each segment's ECE "
                            "reads equal-width bins, 10 or 15 as in vc.reliability", param="ece_bins")
    for name, value, example in (("fdr", fdr, "0.05"), ("level", level, "0.95")):
        if not is_real(value) or not 0.0 < float(value) < 1.0:  # numpy floats are numbers too
            raise VeracityError(f"{name} must be in (0, 1), e.g. {example}; got {value!r}", param=name)


def _positive_int(value: Any, name: str, lo: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < lo:
        raise VeracityError(f"{name} must be an integer >= {lo}, got {value!r}")
    return int(value)


#: equal-mass bins of each numeric feature where ``bins`` is not given
BINS = 5


def _bins_for(bins: Any, name: str) -> Any:
    if bins is None:
        return BINS
    if isinstance(bins, dict):
        b = bins.get(name, BINS)
        if isinstance(b, (list, tuple, np.ndarray)):
            return list(b)
        return _positive_int(b, f"bins[{name!r}]", 2)
    return bins


#: the words of that note (``veracity segments`` refuses ``--bins`` where the result holds it)
UNUSED_BINS = "cuts numeric features into equal-mass bins; no feature here is numeric"


def unused_bins_note(bins: Any, specs: list[FeatureSpec]) -> list[str]:
    """The note on a ``bins`` given where no feature is numeric: it cuts numeric features only (a categorical
    feature's levels are its values), so it changed nothing, and the result says so. ``bins=None`` (not
    given: 5) gives no note."""
    if bins is None or any(sp.kind != "category" for sp in specs):
        return []
    names = ", ".join(repr(sp.name) for sp in specs)
    return [f"(bins={bins!r} {UNUSED_BINS} (the levels of {names} are their values), so it changed "
            "nothing)"]


def segments(
    data: Any,
    labels: Any = None,
    *,
    score: Any = None,
    label: Any = None,
    features: Any = None,
    depth: int | None = None,
    bins: Any = None,
    min_count: int = 50,
    fdr: float = 0.05,
    sample_weight: Any = None,
    pos_label: Any = None,
    score_type: str = "probability",
    level: float = 0.95,
    max_levels: int = 20,
    ece_bins: int = 10,
    max_cells: int = MAX_CELLS,
    max_segments: int = MAX_SEGMENTS,
    n_resamples: int = N_RESAMPLES,
    random_state: Any = RANDOM_STATE,
) -> SegmentsResult:
    r"""Where is the model miscalibrated? Every segment over ``features`` up to ``depth``, tested.

    Categorical features split by level (levels with fewer than ``min_count`` rows, and
    all beyond the ``max_levels`` largest, pooled into ``"other"``); numeric features
    by ``bins`` equal-mass bins (an integer, default 5, or ``{"age": [30, 45, 60], "x": 4}`` with
    cut points or a count per feature; with ``sample_weight`` each bin holds an equal share of the weight,
    as every equal-mass binning in veracity; a ``bins`` given where no feature is numeric changed nothing,
    and a note says so). For each segment with at least ``min_count``
    rows: the gap ``rate - conf`` with a Wilson interval, a test of
    calibration-in-the-large (z; exact Poisson-binomial for small or skewed unweighted
    segments; a shifted gamma on the long side of skewed weighted ones; on that side, where a
    few heavy rows are atoms, the law of the largest weight's jumps when its p-value is larger),
    its q-value (BH over single features, BY over intersections), the
    segment's ECE beside its noise floor and the smallest gap its size can detect. The
    multicalibration error ``mce`` / ``mce_sigma`` is MCGrad's over the same family; its p-value
    ``mce_family_pvalue`` is drawn under calibration (``n_resamples`` draws seeded by
    ``random_state``: valid at any event rate, at least 1/(n_resamples + 1)).
    ``depth`` defaults to 2 (pairs), or to the number of features when there is one.

    >>> import numpy as np, veracity as vc
    >>> rng = np.random.default_rng(0)
    >>> p = rng.uniform(0.05, 0.95, 20_000)
    >>> region = rng.choice(["EU", "US", "APAC"], 20_000)
    >>> y = (rng.uniform(size=p.size) < np.where(region == "EU", p + 0.08, p).clip(0, 1)).astype(int)
    >>> res = vc.segments(p, y, features={"region": region}, depth=1)
    >>> [r.segment for r in res.discoveries][:1]
    ['region=EU']
    """
    if score is not None or label is not None:
        if labels is not None:
            raise VeracityError("vc.segments(frame, score=..., label=..., features=[...]) takes no positional labels")
        if score is None or label is None:
            raise VeracityError("the frame form needs both column names: vc.segments(frame, score='p', label='y', "
                                "features=[...])")
        from ..core._frameform import refuse_answers_as_scores

        refuse_answers_as_scores("segments", score, label, sample_weight)  # the labels as scores: no gap anywhere
        try:
            return _segments_frame(data, score=score, label=label, features=features, depth=depth, bins=bins,
                                   min_count=min_count, fdr=fdr, sample_weight=sample_weight, pos_label=pos_label,
                                   score_type=score_type, level=level, max_levels=max_levels, ece_bins=ece_bins,
                                   max_cells=max_cells, max_segments=max_segments, n_resamples=n_resamples,
                                   random_state=random_state)
        except VeracityError:
            raise
        except Exception as exc:  # a file's read error is one line, never its content or a traceback
            import os

            from ..sources._duckdb import describe_error, is_duckdb_error

            if isinstance(data, (str, os.PathLike)) and is_duckdb_error(exc):
                raise VeracityError(describe_error(exc, os.fspath(data))) from None
            raise
    if labels is None:
        raise VeracityError("vc.segments needs labels: vc.segments(scores, labels, features={...}), or the frame "
                            "form vc.segments(frame, score='p', label='y', features=[...])")
    if not isinstance(features, dict) or not features:
        raise VeracityError(
            "in the array form, features= maps names to arrays, e.g. features={'region': region, 'age': age}; "
            "to name columns, use the frame form vc.segments(frame, score='p', label='y', features=[...])")
    return segments_arrays(data, labels, features, depth=depth, bins=bins, min_count=min_count, fdr=fdr,
                           sample_weight=sample_weight, pos_label=pos_label, score_type=score_type, level=level,
                           max_levels=max_levels, ece_bins=ece_bins, max_cells=max_cells,
                           max_segments=max_segments, n_resamples=n_resamples, random_state=random_state)


def specs_from_arrays(features: dict[str, Any], n: int, keep: np.ndarray | None, *, bins: Any, min_count: int,
                      max_levels: int, weights: np.ndarray | None = None,
                      ) -> tuple[list[FeatureSpec], list[np.ndarray], list[str]]:
    """The levels (and every row's code) of in-memory feature columns; ``weights`` (one per kept row)
    place the numeric features' equal-mass cuts. :func:`vc.segments` and ``vc.SegmentCalibration`` both
    read their levels here, so the repair corrects the segments the audit reports."""
    specs, cols, notes = [], [], []
    for name, column in features.items():
        raw = feature_values(column, str(name))
        if raw.ndim != 1 or raw.shape[0] != n:
            raise VeracityError(
                f"feature {name!r} has shape {raw.shape} but there are {n} scores; pass one value per row")
        if keep is not None:
            raw = raw[keep]
        values, counts, n_missing, numeric, masses = distinct_counts(raw, str(name), weights)
        spec = feature_spec(str(name), values, counts, n_missing, numeric=numeric, bins=_bins_for(bins, name),
                            min_count=min_count, max_levels=max_levels,
                            named=isinstance(bins, dict) and name in bins, masses=masses, rows=_rows_word(weights))
        specs.append(spec)
        cols.append(raw)
        notes.extend(_notes(spec, values.size, n_missing))
    return specs, [sp.codes(c) for sp, c in zip(specs, cols)], notes


def _rows_word(weights: Any) -> str:
    """The rows a feature's levels are read from: with weights, those of positive weight (a row of weight 0
    is dropped first, so a column of two values may hold one value there)."""
    return "every row" if weights is None else "every row of positive weight"


def _notes(spec: FeatureSpec, n_values: int, n_missing: int) -> list[str]:
    """The note on a categorical feature's pooled levels. ``spec.pooled`` counts the missing rows as one more
    level when there are fewer than min_count of them (they join ``other``): of ``n_values`` (non-missing)
    levels only ``spec.pooled - 1`` were then pooled, and the missing rows are said apart ("1 of 2 levels
    pooled" where both levels were kept and ``other`` held the 10 missing rows only)."""
    if spec.kind != "category" or not spec.pooled:
        return []
    missing_pooled = n_missing > 0 and spec.missing is not None and spec.missing == spec.other
    levels = spec.pooled - int(missing_pooled)
    rows = f"its {n_missing:,} missing row{'s' if n_missing != 1 else ''}"
    if not levels:
        return [f"(feature {spec.name!r}: {rows}, fewer than min_count, pooled into 'other'; no level was "
                "pooled)"]
    also = f", and {rows}" if missing_pooled else ""
    return [f"(feature {spec.name!r}: {levels:,} of {n_values:,} levels pooled into 'other' "
            f"— fewer than min_count rows, or beyond max_levels{also})"]


def segments_arrays(scores: Any, labels: Any, features: dict[str, Any], *, depth: int | None = None,
                    bins: Any = None, min_count: int = 50, fdr: float = 0.05, sample_weight: Any = None,
                    pos_label: Any = None, score_type: str = "probability", level: float = 0.95,
                    max_levels: int = 20, ece_bins: int = 10, max_cells: int = MAX_CELLS,
                    max_segments: int = MAX_SEGMENTS, n_resamples: int = N_RESAMPLES,
                    random_state: Any = RANDOM_STATE) -> SegmentsResult:
    names = check_features(list(features))
    # a feature Series on another index than the scores would be matched by position: wrong rows
    check_same_index(scores=scores, labels=labels, sample_weight=sample_weight,
                     **{f"features[{k!r}]": v for k, v in features.items()})
    depth = resolve_depth(depth, len(names))
    _check_options(depth=depth, bins=bins, min_count=min_count, fdr=fdr, level=level, max_levels=max_levels,
                   ece_bins=ece_bins, max_cells=max_cells, max_segments=max_segments, names=names,
                   n_resamples=n_resamples, random_state=random_state)
    data = prepare_binary(scores, labels, sample_weight=sample_weight, score_type=score_type, pos_label=pos_label)
    if data.top_label or data.p.ndim != 1:  # (N, K) scores, (N, 2) included
        raise VeracityError("vc.segments audits binary scores (one probability per row); pass the positive "
                            "class's column")
    p, y, w, logit = data.p, data.y, data.w, data.logit
    keep = None
    if w is not None and not (w > 0).all():
        keep = w > 0
        p, y, w = p[keep], y[keep], w[keep]
        logit = None if logit is None else logit[keep]
    specs, codes, notes = specs_from_arrays(features, data.n, keep, bins=bins, min_count=min_count,
                                            max_levels=max_levels, weights=w)
    notes = [*notes, *unused_bins_note(bins, specs)]
    check_family_size(specs, depth, max_segments)
    sets = feature_sets(len(specs), depth)
    table = cells_numpy(p, y, w, codes, specs, sets, max_cells=max_cells, ece_bins=ece_bins, logit=logit)
    result = analyse(table, specs, sets, min_count=min_count, fdr=float(fdr), level=float(level),
                     ece_bins=ece_bins, depth=int(depth), notes=tuple(notes), n_resamples=int(n_resamples),
                     random_state=random_state, weight_scale=data.weight_scale)
    return weightless_noted(result, int(data.n))


# ---------------------------------------------------------------------------------------
# frames
# ---------------------------------------------------------------------------------------
def _segments_frame(data: Any, *, score: Any, label: Any, features: Any, sample_weight: Any, pos_label: Any,
                    score_type: str, **options: Any) -> SegmentsResult:
    from ..sources._api import _Prepared

    names = check_features(features)
    refuse_label_feature(names, label)
    score_type = check_score_type(score_type)
    prep = _Prepared(data, score, label, sample_weight, extra={"features": names}, pos_label=pos_label,
                     keys=("by", "features"))
    if prep.multiclass:
        raise VeracityError("vc.segments audits binary scores; pass score= one probability column")
    if not prep.frame.lazy:
        scores, labels, weights = prep.arrays()
        feats = {name: _column_with_missing(prep, name) for name in names}
        try:
            return segments_arrays(scores, labels, feats, sample_weight=weights, score_type=score_type, **options)
        except VeracityError as exc:
            raise prep.explain(score_type, exc) from None
    options["depth"] = resolve_depth(options["depth"], len(names))
    _check_options(names=names, **options)
    counts = prep.check_lazy(score_type)
    return weightless_noted(_segments_lazy(prep, names, score_type=score_type, **options), int(counts["n"]))


def weightless_noted(result: SegmentsResult, rows: int) -> SegmentsResult:
    """``result`` with a note of the rows of weight 0 it left out (``rows``: every row read): its counts are
    of the rows of positive weight (``min_count`` counts them), where ``vc.audit`` says every row — 2,701
    rows here, 4,000 there, unsaid."""
    left = rows - result.n
    if left <= 0:
        return result
    from dataclasses import replace

    note = (f"({left:,} row{'s' if left != 1 else ''} of weight 0 left out: the counts here are of the "
            f"{result.n:,} rows of positive weight)")
    return replace(result, notes=(*result.notes, note))


def _column_with_missing(prep: Any, name: str) -> np.ndarray:
    """An in-memory frame's feature column as :func:`series_values` reads it (times with a zone as
    ``datetime`` objects in that zone). A time of day with nanoseconds is refused, as ``by=`` refuses it
    (a Python ``time`` holds microseconds: its levels were one)."""
    from ..sources._source import refuse_ns_times

    refuse_ns_times(prep.frame.nw.get_column(name), name)
    return series_values(prep.frame.nw.get_column(name))


def series_values(col: Any) -> np.ndarray:
    """A narwhals Series as numpy, its nulls as None (NaN / NaT in float and datetime columns). An
    integer column with nulls stays integers: its ``to_numpy()`` would be float64 with NaN, where
    2**53 + 1 reads as 2**53. Times with a zone as ``datetime`` objects in that zone
    (:func:`~veracity.sources._api._python_times`; ``to_numpy()`` drops the zone, and pandas gives
    ``Timestamp`` objects where polars and Arrow give UTC ``datetime64``), so that every backend's
    column of the same instants has the same levels, named as ``vc.audit(..., by=)`` names the same
    slices: the UTC instant with ``+00:00`` (:func:`~veracity.core._keys.key_name`, in
    :func:`._values._shown`), as on a lazy frame, which hands the instants back in its own zone."""
    from ..sources._arrow_numpy import series_to_numpy, to_numpy  # Arrow's columns without pandas

    missing = series_to_numpy(col.is_null())
    if missing.any() and col.dtype.is_integer():
        values = series_to_numpy(col.fill_null(0)).astype(object)
        values[missing] = None
        return values
    zone = getattr(col.dtype, "time_zone", None)
    if zone is not None:
        import pyarrow as pa

        from ..sources._api import _python_times

        arrow = col.to_arrow()  # its UTC instants as integers, exactly (a float of nanoseconds would round)
        if isinstance(arrow, pa.ChunkedArray):
            arrow = arrow.combine_chunks()
        ints = np.array(to_numpy(arrow.cast(pa.int64()).fill_null(0)), dtype=np.int64)
        stamps = ints.view(f"datetime64[{arrow.type.unit}]")
        stamps[missing] = np.datetime64("NaT")
        return _python_times(stamps, zone)
    values = series_to_numpy(col)
    if missing.any() and values.dtype.kind not in "fmM":  # NaN / NaT mark floats' and datetimes' own missing
        values = values.astype(object)
        values[missing] = None
    if _is_decimal(col.dtype):  # numbers: Decimal objects read as text levels, never binned
        return _decimal_numbers(values, col)
    return values


def _is_decimal(dtype: Any) -> bool:
    from ..sources._source import _is_decimal as decimal_type

    return decimal_type(dtype)


def _decimal_numbers(values: np.ndarray, col: Any) -> np.ndarray:
    """A DECIMAL column's values as the numbers they are (a Parquet price, a DuckDB ``DECIMAL(10, 2)``):
    with scale 0, Python integers (exact, as an integer column's: :func:`~._values.exact_ints` keeps those
    beyond 2**53 apart), else the nearest double of each (:func:`~veracity.sources._arrow_numpy.series_floats`,
    as the scores of such a column are read), NaN where missing. Their ``Decimal`` objects were levels of
    text: a price of 2,609 values was one level ``other``, and ``bins=`` was said to change nothing."""
    from ..sources._arrow_numpy import series_floats

    if getattr(col.dtype, "scale", None) == 0:
        out = np.empty(values.shape[0], dtype=object)
        out[:] = [None if v is None else int(v) for v in values]
        return out
    return series_floats(col)


def feature_values(column: Any, name: str) -> np.ndarray:
    """One in-memory feature column as numpy: a pandas / polars / pyarrow series (or array) as a frame's
    column is read (:func:`series_values`: missing values are a level, integers stay exact, times with
    a zone are instants in that zone), so the same column gives the same levels, names and codes in the
    array form and in every frame form; anything else as :func:`~veracity.core._validation.to_numpy`
    reads it."""
    module = type(column).__module__
    if module.startswith(("pandas", "polars", "pyarrow")):
        import narwhals as nw

        native = column
        if module.startswith("pandas") and not hasattr(column, "index"):  # an extension array
            import pandas as pd

            native = pd.Series(column)
        elif module.startswith("pyarrow"):
            import pyarrow as pa

            native = pa.chunked_array([column]) if isinstance(column, pa.Array) else column
        try:
            series = nw.from_native(native, series_only=True)
        except TypeError:
            series = None
        if series is not None:
            from ..sources._source import refuse_ns_times

            refuse_ns_times(series, name)
            return series_values(series)
    return to_numpy(column, f"feature {name!r}")


def _segments_lazy(prep: Any, names: list[str], *, score_type: str, depth: int, bins: Any, min_count: int,
                   fdr: float, level: float, max_levels: int, ece_bins: int, max_cells: int,
                   max_segments: int, n_resamples: int = N_RESAMPLES,
                   random_state: Any = RANDOM_STATE) -> SegmentsResult:
    import narwhals as nw

    from ..core._sql_names import quote_identifier
    from ..sources import _aggregates as agg
    from ..sources._source import _is_numeric, refuse_ns_times

    f = prep.frame
    src = f.nw
    # score, label and weight as the audit reads them: booleans as 1.0/0.0 without a cast (a DuckDB
    # relation over a CSV file otherwise fails on the text 'False')
    schema = src.collect_schema()
    wcol = None
    if prep.weight is not None:
        wcol = agg.as_float(f.ref(prep.weight), schema)
        if prep.weight_scale != 1.0:
            wcol = wcol * prep.weight_scale
        src = src.filter(wcol > 0)
    refs = [f.ref(n) for n in names]
    for name in names:
        if isinstance(f.schema[name], nw.Duration):
            raise duration_error(name)
    src, epoch = _epoch_columns(src, refs) if f.backend == "duckdb" else (src, {})
    # distinct values of every feature and of the probability (the score cells' rule): one aggregate
    prob = agg.probability(score_type).alias("_p")
    edge = agg.probability(score_type)
    # every column renamed: a feature called "_s" must not collide with the score's alias
    uniq = agg.collect(src.select(agg.as_float(f.ref(prep.score[0]), schema).alias("_s"),
                                  *(nw.col(r).alias(f"_r{i}") for i, r in enumerate(refs))).select(
        *(nw.col(f"_r{i}").n_unique().alias(f"_u{i}") for i in range(len(refs))),
        nw.when((edge == 0.0) | (edge == 1.0)).then(nw.lit(1, nw.Int64)).otherwise(nw.lit(0, nw.Int64)).sum()
        .alias("_edge"),  # scores of exactly 0 or 1: only then can a label contradict a score
        prob.n_unique().alias("_up"))).rows()[0]
    specs, notes, nanos = [], [], []
    for i, (name, ref) in enumerate(zip(names, refs)):
        # a DECIMAL is numbers too (read as the nearest doubles; with scale 0 as exact integers)
        numeric = _is_numeric(f.schema[name]) or _is_decimal(f.schema[name])
        # nanosecond times: levels kept exact (to_list() and datetime literals hold microseconds)
        nanos.append(isinstance(f.schema[name], nw.Datetime) and f.schema[name].time_unit == "ns")
        if int(uniq[i]) > MAX_DISTINCT and numeric and not isinstance(_bins_for(bins, name), list):
            raise VeracityError(
                f"numeric feature {name!r} has {int(uniq[i]):,} distinct values, over the {MAX_DISTINCT:,} whose "
                f"counts a lazy frame brings back for equal-mass bins; round it, or pass cut points: "
                f"bins={{{name!r}: [..]}}")
        integer = numeric and (f.schema[name].is_integer() or getattr(f.schema[name], "scale", None) == 0)
        # integers kept as integers: float64 merges those beyond 2**53 (a DECIMAL(38, 0) too)
        col = nw.col(ref).cast(nw.Float64) if numeric and not integer else nw.col(ref)
        # rows per value, and (a weighted numeric feature) the weight on each value: its equal-mass cuts
        massed = numeric and wcol is not None
        mass = (wcol.alias("_wv"),) if massed and wcol is not None else ()
        t = agg.collect(src.select(col.alias("_v"), *mass)
                        .with_columns(_one=nw.lit(1, nw.Int64)).group_by("_v")
                        .agg(nw.col("_one").sum(), *((nw.col("_wv").sum(),) if massed else ())))
        refuse_ns_times(t.get_column("_v"), name)  # times of day 1 ns apart: one level, the others' rows lost
        cnts = np.asarray(t.get_column("_one").to_list(), dtype=np.int64)
        masses = np.asarray(t.get_column("_wv").to_list(), dtype=np.float64) if massed else None
        if nanos[-1]:
            values, miss = _ns_values(t.get_column("_v"), getattr(f.schema[name], "time_zone", None))
            present = list(values)
        else:
            vals = t.get_column("_v").to_list()
            if integer:  # DuckDB hands HUGEINT / UHUGEINT values back as Decimal: float64 merged them
                vals = _whole_numbers(vals)
            boxed = np.empty(len(vals), dtype=object)
            boxed[:] = vals
            miss = missing_mask(boxed)  # None, NaN, and pandas' NA / NaT (a Dask frame's nullable columns)
            present = [v for v, m in zip(vals, miss) if not m]
            values = np.asarray(present, dtype=np.float64) if numeric else np.asarray(present, dtype=object)
        if integer:
            boxed_present = np.empty(len(present), dtype=object)
            boxed_present[:] = present
            # a DuckDB relation or file (a CSV's integers beyond int64 are HUGEINT): its cast, not pandas'
            hint = f"read the column as text: CAST({quote_identifier(name)} AS VARCHAR)" \
                if f.backend == "duckdb" else None
            ints = exact_ints(boxed_present, name, hint=hint)
            if ints is not None:
                values = ints
        if numeric and not np.isfinite(values.astype(np.float64)).all():
            raise VeracityError(f"numeric feature {name!r} holds infinite values; replace them or drop those rows")
        spec = feature_spec(name, values, cnts[~miss], int(cnts[miss].sum()), numeric=numeric,
                            bins=_bins_for(bins, name), min_count=min_count, max_levels=max_levels,
                            named=isinstance(bins, dict) and name in bins,
                            masses=None if masses is None else masses[~miss],
                            rows=_rows_word(prep.weight))
        specs.append(spec)
        notes.extend(_notes(spec, len(present), int(cnts[miss].sum())))
    notes.extend(unused_bins_note(bins, specs))
    check_family_size(specs, depth, max_segments)
    sets = feature_sets(len(specs), depth)
    y = agg.as_float(prep.y, schema) if isinstance(prep.y, str) else prep.y
    cols = [agg.as_float(f.ref(prep.score[0]), schema).alias("_s"), y.alias("_y"),
            (wcol if wcol is not None else nw.lit(1.0, nw.Float64)).alias("_w"),
            *(sp.expr(epoch.get(i, r), ns_backend=("polars" if i in epoch else f.backend) if ns else None)
              .alias(f"_f{i}") for i, (sp, r, ns) in enumerate(zip(specs, refs, nanos)))]
    x = src.select(cols).with_columns(_p=agg.probability(score_type))
    table = cells_lazy(x, specs, sets, weighted=prep.weight is not None, max_cells=max_cells, ece_bins=ece_bins,
                       n_distinct=int(uniq[-1]), certain=bool(uniq[-2]), logit=score_type == "logit")
    return analyse(table, specs, sets, min_count=min_count, fdr=float(fdr), level=float(level), ece_bins=ece_bins,
                   depth=int(depth), notes=tuple(notes), n_resamples=int(n_resamples),
                   random_state=random_state, weight_scale=prep.weight_scale)


def _whole_numbers(values: list[Any]) -> list[Any]:
    """An integer column's distinct values as Python integers, exactly: DuckDB returns those of a
    ``HUGEINT`` / ``UHUGEINT`` column (a CSV's integers beyond int64 are read as HUGEINT) as
    ``decimal.Decimal``, which :func:`~._values.exact_ints` did not read as integers, so they became
    float64, where 2**53 and 2**53 + 1 are one level (its rows pooled, named by another value). As
    integers they are kept exact as int64 levels, or refused in one line beyond int64, as arrays are."""
    from decimal import Decimal

    return [int(v) if isinstance(v, Decimal) and v.is_finite() else v for v in values]


def _epoch_columns(src: Any, refs: list[str]) -> tuple[Any, dict[int, str]]:
    """A DuckDB frame with each zone-aware nanosecond feature (``TIMESTAMPTZ_NS``, read as it is:
    :func:`~veracity.sources._source._duckdb_readable`) beside its UTC instant as BIGINT nanoseconds
    (``epoch_ns``, whatever the session's zone), and ``{feature's position: that column}``: its levels
    are matched on these integers (``_ns_levels``' integer form), exactly. A TIMESTAMPTZ literal holds
    microseconds, and narwhals has no ``dt.timestamp`` on DuckDB."""
    import narwhals as nw

    from ..core._sql_names import quote_identifier

    native = src.to_native()
    types = dict(zip(native.columns, (str(t) for t in native.types)))
    zoned = [i for i, r in enumerate(refs) if types.get(r) == "TIMESTAMPTZ_NS"]
    if not zoned:
        return src, {}
    epoch = {i: f"__veracity_epoch_ns_{i}" for i in zoned}
    extra = ", ".join(f"epoch_ns({quote_identifier(refs[i])}) AS {quote_identifier(epoch[i])}" for i in zoned)
    return nw.from_native(native.project(f"*, {extra}")), epoch


def _ns_values(series: Any, zone: str | None) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of a nanosecond datetime column (a collected, narwhals Series) as the
    in-memory route reads the same column, ``(values, missing)``: ``datetime64[ns]``, or with a
    zone the ``Timestamp`` objects of :func:`~veracity.sources._api._python_times` — exact to the
    nanosecond (``to_list()`` gives ``datetime`` objects, microseconds only: values 1 ns apart were
    one level). ``missing``: True for each null of ``series``; ``values`` holds the others."""
    import pyarrow as pa

    arr = series.to_arrow()
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    missing = np.asarray(arr.is_null().to_numpy(zero_copy_only=False), dtype=bool)
    ints = np.asarray(arr.cast(pa.int64()).fill_null(0).to_numpy(zero_copy_only=False), dtype=np.int64)
    stamps = ints[~missing].view("datetime64[ns]")  # a zoned column's integers are its UTC instants
    if zone is None:
        return stamps, missing
    from ..sources._api import _python_times

    return _python_times(stamps, zone), missing
