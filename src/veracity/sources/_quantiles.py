r"""Equal-mass bin edges on a lazy frame: exact where affordable, otherwise approximate — and said so.

Up to ``limit`` distinct scores, the per-distinct-score counts come back and the
array rule finds exactly the edges it finds on the rows
(:func:`veracity.core._binning.sorted_edges` on the per-value counts). Beyond it the cuts at the levels
:math:`q_k = k/M` are approximate:

* DuckDB (unweighted): ``approx_quantile`` (a t-digest; no a-priori bound);
* Spark (unweighted): ``percentile_approx`` with accuracy :data:`SPARK_ACCURACY`,
  whose rank error is at most ``1 / accuracy``;
* otherwise (polars, Dask, any weighted ``"quantile"`` frame): one histogram of :data:`FINE`
  equal-width bins of the probability; the cut is the lower edge of the fine bin
  where the cumulative weight reaches :math:`q_k W`, so its rank error is at most
  that bin's share of the weight.

``"equal-count"`` splits by row counts, weighted or not (weights never move its cuts, as in
:mod:`veracity.core._binning`): its levels, cuts and rank error are in row shares.

Whatever the method, the rank error of the edges used is then **measured** with
one more aggregate: with :math:`F(c^-)` and :math:`F(c)` the weight shares below
and at-or-below a cut,

.. math:: \varepsilon = \max_k \operatorname{dist}\big(q_k, [F(c_k^-), F(c_k)]\big),

which is 0 for exact quantiles even with ties. The audit states it (a line in
its printout and ``bin_edges`` in ``to_dict()``); the scalar metrics and
``vc.reliability`` warn in one line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core._binning import sorted_edges
from ._aggregates import collect, count_distinct, per_value, probability

#: fine equal-width bins of the histogram method
FINE = 1 << 16
#: ``accuracy`` of Spark's percentile_approx (rank error at most 1 / accuracy)
SPARK_ACCURACY = 10_000


@dataclass(frozen=True)
class ApproxEdges:
    """How approximate equal-mass edges were found, and their measured rank error."""

    method: str
    rank_error: float
    bound: float | None
    distinct: int
    limit: int

    def to_dict(self) -> dict[str, Any]:
        return {"exact": False, "method": self.method, "rank_error": self.rank_error,
                "rank_error_bound": self.bound, "distinct_scores": self.distinct, "limit": self.limit}

    def __str__(self) -> str:
        bound = "" if self.bound is None else f"; the method guarantees <= {self.bound:.3g}"
        return (f"equal-mass edges are approximate ({self.distinct:,} distinct scores, over the exact limit of "
                f"{self.limit:,}): {self.method}; measured rank error of the edges {self.rank_error:.3g}{bound}")


def _histogram_cuts(x: Any, levels: np.ndarray) -> tuple[np.ndarray, float]:
    import narwhals as nw

    from ..core._binning import bin_index, uniform_edges

    h = collect(x.with_columns(_f=bin_index(nw.col("_p"), uniform_edges(FINE), "uniform"))
                .group_by("_f").agg(nw.col("_w").sum()))
    mass = np.zeros(FINE)
    mass[np.asarray(h.get_column("_f").to_list(), dtype=np.int64)] = h.get_column("_w").to_list()
    cum = np.cumsum(mass)
    j = np.minimum(np.searchsorted(cum, levels * cum[-1], side="left"), FINE - 1)
    return j / float(FINE), float(mass[j].max() / cum[-1])


def approximate_cuts(x: Any, levels: np.ndarray, *, backend: str, weighted: bool) -> tuple[np.ndarray, str, float | None]:
    """Cuts near the weighted ``levels``-quantiles of ``_p``: ``(cuts, method, a-priori bound)``."""
    if not weighted and backend == "duckdb":
        rel = x.select("_p").to_native()
        shown = ", ".join(repr(float(q)) for q in levels)  # our own numbers, never user text
        cuts = rel.aggregate(f'approx_quantile("_p", [{shown}])').fetchall()[0][0]
        return np.asarray(cuts, dtype=np.float64), "DuckDB approx_quantile", None
    if not weighted and backend == "pyspark":
        from pyspark.sql import functions as F

        native = x.select("_p").to_native()
        cuts = native.select(F.percentile_approx("_p", [float(q) for q in levels], SPARK_ACCURACY)).first()[0]
        return (np.asarray(cuts, dtype=np.float64), f"Spark percentile_approx (accuracy {SPARK_ACCURACY})",
                1.0 / SPARK_ACCURACY)
    cuts, bound = _histogram_cuts(x, levels)
    return cuts, f"histogram of {FINE} equal-width bins", bound


def rank_error(x: Any, cuts: np.ndarray, levels: np.ndarray) -> float:
    r""":math:`\max_k \operatorname{dist}(q_k, [F(c_k^-), F(c_k)])` in one aggregate."""
    import narwhals as nw

    p, w = nw.col("_p"), nw.col("_w")
    zero = nw.lit(0.0)
    sums = [w.sum().alias("_total")]
    for k, c in enumerate(cuts):
        sums.append(nw.when(p < float(c)).then(w).otherwise(zero).sum().alias(f"_lo{k}"))
        sums.append(nw.when(p <= float(c)).then(w).otherwise(zero).sum().alias(f"_hi{k}"))
    row = collect(x.select(*sums)).rows(named=True)[0]
    total = float(row["_total"])
    worst = 0.0
    for k, q in enumerate(levels):
        lo, hi = float(row[f"_lo{k}"]) / total, float(row[f"_hi{k}"]) / total
        worst = max(worst, lo - q, q - hi)
    return float(worst)


def equal_mass_edges(lf: Any, *, bins: int, strategy: str, score_type: str, weighted: bool, backend: str,
                     limit: int) -> tuple[np.ndarray, ApproxEdges | None]:
    """``(edges, None)`` exactly as the arrays find them, or ``(edges, how)`` beyond ``limit`` scores."""
    x = lf.with_columns(_p=probability(score_type))
    distinct = count_distinct(x)
    if distinct <= limit:
        v, c, wsum = per_value(x)
        return sorted_edges(v, bins, strategy, counts=c, weights=wsum if weighted else None), None
    levels = np.arange(1, bins) / bins
    if levels.size == 0:
        return np.array([0.0, 1.0]), None
    if weighted and strategy == "equal-count":
        # "equal-count" splits by row counts, weights never move its cuts (as the exact rule above):
        # the levels are row shares, and so is the rank error measured (weighted, both were weight shares)
        import narwhals as nw

        x, weighted = x.with_columns(_w=nw.lit(1.0, nw.Float64)), False
    cuts, method, bound = approximate_cuts(x, levels, backend=backend, weighted=weighted)
    measured = rank_error(x, cuts, levels)
    kept = np.unique(cuts)
    kept = kept[(kept > 0.0) & ((kept < 1.0) | (strategy == "quantile"))]  # as core._binning.cut_edges
    edges = np.concatenate(([0.0], kept, [1.0]))
    return edges, ApproxEdges(method, measured, bound, distinct, int(limit))
