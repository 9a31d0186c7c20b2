r"""Spark's exact AUC in one shuffle: a ranked window per (slice, score range).

The generic narwhals form first groups by every distinct score (a shuffle of all
rows), then runs a running sum in a second window (another shuffle). Here the
rows are shuffled once, by (slice, range); each task sorts its ranges and
Spark's ``rank()`` and peer-inclusive running count/sums give each positive's
share of :math:`2U` directly (ties share a rank; see :mod:`._aggregates`):

.. math:: 2U_r = \sum_{i:\,y_i=1} w_i\,\big(W_-^{(r)}(<s_i) + W_-^{(r)}(\le s_i)\big)

Unweighted, with ``rank = 1 + #(<s)`` and ``count = #(\le s)`` over all rows of the
range, :math:`\sum_{y_i=1}(\mathrm{rank}_i + \mathrm{count}_i) = 2U_r + n_+ + n_+^2`:
integers, exact for any N. The aggregate after the window keeps Spark's
partitioning, so one audit's AUC is one shuffle and one small collect.
"""

from __future__ import annotations

from typing import Any


def range_column(bounds: list[float]) -> Any:
    """The score range of each row: how many of ``bounds`` lie at or below ``_s``."""
    from pyspark.sql import functions as F

    expr = F.lit(0)
    for b in bounds:
        expr = expr + F.when(F.col("_s") >= F.lit(float(b)), 1).otherwise(0)
    return expr


def auc_table(df: Any, *, weighted: bool, grouped: bool, bounds: list[float]) -> dict[str, list]:
    """Per (slice, score range): ``_num`` (= 2U of the range), ``_pos``, ``_neg``."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    keys = ["_g", "_r"] if grouped else ["_r"]
    x = df.select(*(["_g"] if grouped else []), "_s", "_y", "_w", range_column(bounds).alias("_r"))
    order = Window.partitionBy(*keys).orderBy("_s")
    upto = order.rangeBetween(Window.unboundedPreceding, Window.currentRow)
    is_pos = F.col("_y") == 1.0
    if weighted:
        wneg = F.col("_w") * (1.0 - F.col("_y"))
        same = order.rangeBetween(Window.currentRow, Window.currentRow)
        x = x.select(*keys, is_pos.alias("_ip"), F.col("_w"), wneg.alias("_wn"),
                     F.sum(wneg).over(upto).alias("_le"), F.sum(wneg).over(same).alias("_eq"))
        out = x.groupBy(*keys).agg(
            F.sum(F.when(F.col("_ip"), F.col("_w") * (2.0 * F.col("_le") - F.col("_eq"))).otherwise(0.0)).alias("_num"),
            F.sum(F.when(F.col("_ip"), F.col("_w")).otherwise(0.0)).alias("_pos"),
            F.sum("_wn").alias("_neg"),
        )
    else:
        x = x.select(*keys, is_pos.alias("_ip"), F.rank().over(order).alias("_rk"),
                     F.count(F.lit(1)).over(upto).alias("_le"))
        out = x.groupBy(*keys).agg(
            F.sum(F.when(F.col("_ip"), F.col("_rk") + F.col("_le")).otherwise(0)).alias("_num"),
            F.sum(F.when(F.col("_ip"), 1).otherwise(0)).alias("_pos"),
            F.sum(F.when(F.col("_ip"), 0).otherwise(1)).alias("_neg"),
        )
    rows = out.collect()
    table: dict[str, list] = {k: [r[k] for r in rows] for k in [*keys, "_num", "_pos", "_neg"]}
    if not weighted:  # Σ_pos (rank + count) = 2U + n+ + n+²
        table["_pos"] = [int(v) for v in table["_pos"]]
        table["_num"] = [int(v) - p - p * p for v, p in zip(table["_num"], table["_pos"])]
    return table
