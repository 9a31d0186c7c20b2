r"""``vc.monitor`` of a frame: per-period, per-bin statistics grouped where the data lives.

``vc.monitor(frame, score="p", label="y", periods="ts", freq="M", mature="final")``
is the array form's monitor (:func:`veracity.monitoring.monitor`) with column
names. On a lazy frame three aggregates come back, each one row per (period
key, bin) or per period key:

* the per-bin statistics of the rows whose label is final (``mature``; every
  row without it), grouped by (key, bin) — :func:`._aggregates.bin_sums`;
* all rows' score histograms per key (the PSI reads these: labels arrive late,
  scores do not);
* the count of pending rows per key.

The key is the period column itself, or with ``freq`` the calendar day
(``D``, ``W``) or month (``M``, ``Q``, ``Y``) as an integer ``yyyymmdd`` /
``yyyymm``; the few distinct keys are then turned into the array form's period
names (:func:`~veracity.monitoring.period_keys`) and merged in Python, so a week
or a quarter is the sum of its days or months. The same
:func:`~veracity.monitoring._monitor.summarize_periods` makes the result.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core._validation import VeracityError, check_score_type


def _period_key(prep: Any, periods: str, freq: str | None) -> Any:
    """The grouping key expression (and the checks of the period column)."""
    import narwhals as nw

    from ..monitoring._monitor import FREQS

    dtype = prep.frame.schema[periods]
    col = nw.col(prep.frame.ref(periods))
    if freq is None:
        if dtype.is_temporal():
            raise VeracityError(
                f"column {periods!r} (periods) holds dates/times; pass freq='D', 'W', 'M', 'Q' or 'Y' "
                "to group them into periods"
            )
        return col
    if freq not in FREQS:
        raise VeracityError(f"freq must be one of {', '.join(FREQS)}; got {freq!r}")
    if not dtype.is_temporal() or dtype == nw.Duration:
        raise VeracityError(
            f"column {periods!r} (periods) is {dtype}; with freq= it must hold dates or datetimes "
            "(cast it first, e.g. CAST(ts AS TIMESTAMP))"
        )
    month = col.dt.year().cast(nw.Int64) * 100 + col.dt.month().cast(nw.Int64)
    if freq in ("D", "W"):
        return month * 100 + col.dt.day().cast(nw.Int64)
    return month


def _names(keys: list[Any], freq: str | None) -> list[str]:
    """The array form's period names of the keys that came back."""
    from ..monitoring._monitor import period_keys

    if freq is None:
        return [str(k) for k in np.asarray(keys, dtype=object).astype(str)]
    k = np.asarray(keys, dtype=np.int64)
    if freq in ("D", "W"):
        text = [f"{v // 10000:04d}-{v // 100 % 100:02d}-{v % 100:02d}" for v in k]
        days = np.asarray(text, dtype="datetime64[D]")
        return [str(v) for v in period_keys(days, freq)]
    months = np.asarray([f"{v // 100:04d}-{v % 100:02d}" for v in k], dtype="datetime64[M]")
    return [str(v) for v in period_keys(months, freq)]


def _add(target: dict[str, Any], key: str, value: Any) -> None:
    target[key] = target[key] + value if key in target else value


def monitor_frame(fn: Any, data: Any, *args: Any, score: Any, label: Any, periods: Any = None,
                  freq: str | None = None, mature: Any = None, bins: int = 10,
                  score_type: str = "probability", sample_weight: Any = None, level: float = 0.95,
                  min_count: int = 100, reference: str | None = None, pos_label: Any = None) -> Any:
    """``vc.monitor(frame, score=..., label=..., periods="ts", ...)`` (see the module doc)."""
    import narwhals as nw

    from ..core._binning import check_bins
    from ..monitoring._monitor import summarize_periods
    from . import _aggregates as agg
    from ._api import _column_arg, _Prepared, _stats

    if args:
        if len(args) > 1 or periods is not None:
            raise VeracityError("vc.monitor(frame, score=..., label=..., periods='column') takes no other "
                                "positional arguments")
        periods = args[0]
    periods = _column_arg(periods, "periods")
    if periods is None:
        raise VeracityError("the frame form of vc.monitor needs periods= naming the period or time column")
    mature = _column_arg(mature, "mature")
    prep = _Prepared(data, score, label, sample_weight, extra={"periods": periods, "mature": mature},
                     pos_label=pos_label, label_rows=mature)
    if prep.multiclass:
        raise VeracityError("vc.monitor watches binary scores; pass score= naming one probability column")
    score_type = check_score_type(score_type)
    f = prep.frame
    if not f.lazy:
        scores, labels, weights = prep.arrays()
        return fn(scores, labels, prep.column(periods), freq=freq,
                  mature=None if mature is None else prep.column(mature), bins=bins, score_type=score_type,
                  sample_weight=weights, level=level, min_count=min_count, reference=reference)

    m = check_bins(bins)
    edges = np.arange(m + 1) / m
    key = _period_key(prep, periods, freq)
    w = nw.col(f.ref(prep.weight)).cast(nw.Float64) if prep.weight else nw.lit(1.0, nw.Float64)
    y = nw.col(prep.y).cast(nw.Float64) if isinstance(prep.y, str) else prep.y
    working = f.nw.select(nw.col(f.ref(prep.score[0])).cast(nw.Float64).alias("_s"), y.alias("_y"),
                          w.alias("_w"), key.alias("_g"),
                          (prep.rows if prep.rows is not None else nw.lit(True)).alias("_m"))
    if freq is not None:
        missing = int(agg.collect(working.select(agg._flag(nw.col("_g").is_null()).sum())).rows()[0][0] or 0)
        if missing:
            raise VeracityError(f"column {periods!r} (periods) has {missing} missing values; drop or fill them")
    # every row's score and weight (labels of pending rows may be missing) ...
    every = agg.contract_counts(working.with_columns(_y=nw.lit(0.0)), score_type=score_type,
                                weighted=prep.weight is not None)
    agg.check_contract(every, score=prep.score[0], label=label, weight=prep.weight, score_type=score_type)
    # ... and the final labels
    final = working.filter(nw.col("_m"))
    counts = agg.contract_counts(final, score_type=score_type, weighted=prep.weight is not None)
    labelled = int(counts["n"] or 0)
    if labelled:
        agg.check_contract(counts, score=prep.score[0], label=label, weight=prep.weight, score_type=score_type)

    def scaled(lf: Any, c: dict[str, Any]) -> Any:
        scale = agg.weight_scale(c) if prep.weight else 1.0
        return lf if scale == 1.0 else lf.with_columns(_w=nw.col("_w") * scale)

    stats: dict[str, Any] = {}
    if labelled:
        sums = agg.bin_sums(scaled(final, counts), bins=m, score_type=score_type, threshold=0.5, grouped=True)
        for name, k in zip(_names(list(sums), freq), sums):
            _add(stats, name, _stats(sums[k], edges))
    hist_rows = agg.collect(
        scaled(working, every).with_columns(_p=agg.probability(score_type))
        .with_columns(_b=agg.bin_index(nw.col("_p"), m, None, "uniform"))
        .group_by("_g", "_b").agg(nw.col("_w").sum())
    )
    histograms: dict[str, np.ndarray] = {}
    hist_keys = hist_rows.get_column("_g").to_list()
    names = dict(zip(hist_keys, _names(hist_keys, freq))) if hist_keys else {}
    for k, b, total in zip(hist_keys, hist_rows.get_column("_b").to_list(), hist_rows.get_column("_w").to_list()):
        h = np.zeros(m)
        h[int(b)] = float(total)
        _add(histograms, names[k], h)
    pending: dict[str, int] = {}
    if mature is not None:
        waiting = agg.collect(working.filter(~nw.col("_m")).with_columns(_one=nw.lit(1, nw.Int64))
                              .group_by("_g").agg(nw.col("_one").sum()))
        keys = waiting.get_column("_g").to_list()
        for name, c in zip(_names(keys, freq) if keys else [], waiting.get_column("_one").to_list()):
            pending[name] = pending.get(name, 0) + int(c)
    return summarize_periods(dict(sorted(stats.items())), pending=pending, histograms=histograms,
                             reference=reference, level=level, min_count=min_count)
