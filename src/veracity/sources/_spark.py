r"""Spark's exact AUC in one shuffle: rows move once, by score range, to numpy in the Python workers.

Per (slice, score range) the AUC needs its rows in score order. A ranked window
in Spark SQL buffers every row of a range (measured at 1e8 rows in ``local[2]``:
~105 s); here the rows are shuffled once by their range — one range per shuffle
partition, the range keys chosen so that Spark's hash puts each in its own
partition — and :func:`._range_auc.range_numerators` sorts each range's
negatives with numpy and looks the positives up in them (``mapInArrow``; only one
row per (slice, range) comes back). The worker module imports only numpy and
pyarrow and is pickled by value: executors need no veracity install.
"""

from __future__ import annotations

import warnings
from functools import partial
from typing import Any


def range_column(bounds: list[float], score: str = "_s", keys: list[int] | None = None) -> Any:
    """The score range of each row — ``#{b in bounds: b <= score}`` — by binary search over
    ``bounds`` (a ``CASE`` tree of depth log2(ranges)); ``keys[r]`` in place of ``r`` if given."""
    from pyspark.sql import functions as F

    col = F.col(score)
    labels = list(range(len(bounds) + 1)) if keys is None else keys

    def tree(lo: int, hi: int) -> Any:  # ranges lo..hi-1
        if hi - lo == 1:
            return F.lit(int(labels[lo]))
        mid = (lo + hi) // 2
        return F.when(col < F.lit(float(bounds[mid - 1])), tree(lo, mid)).otherwise(tree(mid, hi))

    return tree(0, len(bounds) + 1)


#: spread keys already found, per (Spark application, partition count): a small job each time otherwise
_SPREAD: dict[tuple[Any, int], list[int]] = {}


def spread_keys(spark: Any, partitions: int) -> list[int]:
    """For each partition ``i``, an int key that Spark's hash partitioner sends to ``i``
    (``pmod(hash(key), partitions)``), so that no two score ranges share a task."""
    try:
        session: Any = str(spark.sparkContext.applicationId)
    except Exception:  # Spark Connect has no SparkContext: the session object is the key
        session = id(spark)
    app = (session, partitions)
    if app not in _SPREAD:
        _SPREAD[app] = _find_spread_keys(spark, partitions)
    return list(_SPREAD[app])


def _find_spread_keys(spark: Any, partitions: int) -> list[int]:
    from pyspark.sql import functions as F

    found: dict[int, int] = {}
    candidates = spark.range(0, 64 * partitions).select(
        F.col("id").cast("int").alias("k"),
        F.pmod(F.hash(F.col("id").cast("int")), F.lit(partitions)).alias("p")).collect()
    for row in candidates:
        found.setdefault(int(row["p"]), int(row["k"]))
    return [found.get(i, i) for i in range(partitions)]  # a missing one only costs balance


def auc_table(df: Any, *, weighted: bool, grouped: bool, bounds: list[float],
              whole: bool = False, non_negative: bool = False) -> dict[str, list[Any]]:
    """Per (slice, score range): ``_num`` (= 2U of the range), ``_pos``, ``_neg`` (``whole``:
    plus the ranges of all rows together, ``_all`` true; see :func:`._range_auc.range_numerators`)."""
    from pyspark import cloudpickle
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    from . import _range_auc

    _range_auc.register_by_value(cloudpickle)
    ranges = len(bounds) + 1
    if non_negative:  # probabilities: the label rides in the score's sign bit (a narrower shuffle)
        score = F.abs(F.col("_s"))
        label = [F.when(F.col("_y") == 1.0, score).otherwise(-score).alias("_s")]
    else:
        label = [F.col("_s"), (F.col("_y") == 1.0).alias("_y")]
    cols = [*(["_g"] if grouped else []), *label, *(["_w"] if weighted else [])]
    if ranges == 1:
        x = df.select(*cols).repartition(1)
    else:
        keys = spread_keys(df.sparkSession, ranges)
        x = (df.select(*cols, range_column(bounds, keys=keys).alias("_k"))  # the range of the score as given
             .repartition(ranges, "_k").drop("_k"))
    number = T.DoubleType() if weighted else T.LongType()
    schema = T.StructType([
        *([df.schema["_g"]] if grouped else []), T.StructField("_r", T.LongType()),
        T.StructField("_num", number), T.StructField("_pos", number), T.StructField("_neg", number),
        *([T.StructField("_all", T.BooleanType())] if whole and grouped else []),
    ])
    body = partial(_range_auc.range_numerators, bounds=[float(b) for b in bounds], grouped=grouped,
                   weighted=weighted, whole=whole)
    with warnings.catch_warnings():  # pyspark's pandas-version notice: mapInArrow uses no pandas
        warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas",
                                category=FutureWarning)
        plan = x.mapInArrow(body, schema)
    names = [*(["_g"] if grouped else []), "_r", "_num", "_pos", "_neg", *(["_all"] if whole and grouped else [])]
    return collect_arrow(plan, names)


def collect_arrow(df: Any, names: list[str]) -> dict[str, list[Any]]:
    """The columns ``names`` of a Spark DataFrame's rows, read through Arrow as narwhals reads the bin sums.

    ``collect()``'s Row objects hand a ``TimestampType`` back as a naive datetime in the Python process's
    local zone, where the bin sums (read through Arrow) hold the zone-aware instant: no slice's AUC found its
    slice, and every slice of a timestamp column showed AUC n/a (the whole table's was right)."""
    import pyarrow as pa

    if hasattr(df, "toArrow"):  # pyspark 4
        table = df.toArrow()
    else:  # pragma: no cover - pyspark 3.5 (narwhals' own route there)
        batches = df._collect_as_arrow()
        if not batches:
            return {k: [] for k in names}
        table = pa.Table.from_batches(batches)
    return {k: table.column(k).to_pylist() for k in names}
