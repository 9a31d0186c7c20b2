r"""Distributed engine: the full audit of a Dask DataFrame, on one machine or a cluster.

Needs the optional extra ``veracity[dask]``. Only the Dask collection API is
used, so the same call runs on the local scheduler or a ``distributed`` cluster.

* **Per-bin statistics** — every partition is validated and binned by the same
  numpy code as an in-memory audit; the small per-(group, bin) tables are
  brought back and added (merging :class:`~veracity.BinStats` is addition).
* **Exact AUC** — order statistics without moving all rows to one place. Cut
  points (approximate quantiles; any cuts give the exact answer, they only
  balance the work) split the score axis into ranges; equal scores always share
  a range. Rows are shuffled by range, and each range contributes its own
  Mann–Whitney numerator plus its positives times the negatives in all lower
  ranges:

  .. math:: 2U = \sum_r \Big(2U_r + 2\,W_+^{(r)} \sum_{r' < r} W_-^{(r')}\Big)

  which is the in-memory :func:`~veracity.core._metrics.mann_whitney_u2` of all rows,
  in integers when unweighted (bit-identical AUC).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from ..core._audit import AuditResult, audit_from_stats
from ..core._binning import check_bins
from ..core._metrics import mann_whitney_u2
from ..core._stats import BinStats, grouped_stats
from ..core._validation import VeracityError, check_score_type, prepare_binary

_SUMS = ("count", "weight", "weight_sq", "sum_p", "sum_y", "sum_p2", "sum_py", "sum_nll", "correct")
_ALL = "(all)"


def _require_dask() -> Any:
    try:
        import dask.dataframe as dd
    except ImportError:  # pragma: no cover - exercised only without the extra
        raise VeracityError("the Dask engine needs the optional dependency: pip install 'veracity[dask]'") from None
    return dd


def _partition_data(df: Any, score: str, label: str, weight: str | None, score_type: str) -> Any:
    return prepare_binary(
        df[score].to_numpy(),
        df[label].to_numpy(),
        sample_weight=None if weight is None else df[weight].to_numpy(),
        score_type=score_type,
        rescale_weights=False,  # partitions are merged: one scale for all
    )


def _decisions(data: Any, threshold: float) -> np.ndarray:
    if data.logit is not None and 0.0 < threshold < 1.0:
        return data.logit >= np.log(threshold / (1.0 - threshold))
    return data.p >= threshold


def _partition_stats(df: Any, score: str, label: str, weight: str | None, by: str | None,
                     score_type: str, edges: np.ndarray, threshold: float) -> Any:
    import pandas as pd

    if len(df) == 0:
        return pd.DataFrame({"g": pd.Series(dtype=str), "b": pd.Series(dtype=np.int64),
                             **{k: pd.Series(dtype=np.float64) for k in _SUMS}})
    data = _partition_data(df, score, label, weight, score_type)
    keys = df[by].astype(str).to_numpy() if by else np.full(data.n, _ALL)
    correct = (_decisions(data, threshold) == (data.y == 1.0)).astype(np.float64)
    if data.w is not None:
        correct *= data.w
    frames = []
    m = edges.size - 1
    for key, stats in grouped_stats(data, keys, edges).items():
        rows = keys == key
        idx = np.minimum((data.p[rows] * m).astype(np.intp), m - 1)
        frames.append(pd.DataFrame({
            "g": key, "b": np.arange(m),
            **{name: np.asarray(getattr(stats, name), dtype=np.float64) for name in _SUMS[:-1]},
            "correct": np.bincount(idx, weights=correct[rows], minlength=m),
        }))
    return pd.concat(frames, ignore_index=True)


def _partition_u(df: Any, score: str, label: str, weight: str | None, by: str | None, score_type: str) -> Any:
    import pandas as pd

    out = []
    if len(df):
        data = _partition_data(df, score, label, weight, score_type)
        s = data.logit if data.logit is not None else data.p
        keys = df[by].astype(str).to_numpy() if by else np.full(data.n, _ALL)
        ranges = df["_range"].to_numpy()
        for key in np.unique(keys):
            for r in np.unique(ranges[keys == key]):
                rows = (keys == key) & (ranges == r)
                w = None if data.w is None else data.w[rows]
                u2, wp, wn = mann_whitney_u2(s[rows], data.y[rows] == 1.0, w)
                out.append((key, int(r), u2, wp, wn))
    frame = pd.DataFrame(out, columns=["g", "r", "u2", "wp", "wn"])
    return frame.astype({"g": str, "r": np.int64, "u2": object, "wp": object, "wn": object})


def _auc_by_group(ddf: Any, score: str, label: str, weight: str | None, by: str | None,
                  score_type: str, n_ranges: int) -> dict[str, float | None]:
    import pandas as pd

    probs = np.linspace(0, 1, n_ranges + 1)[1:-1]
    cuts = np.unique(np.asarray(ddf[score].astype("float64").quantile(probs).compute(), dtype=np.float64))

    def with_range(df: Any) -> Any:
        return df.assign(_range=np.searchsorted(cuts, df[score].to_numpy(dtype=np.float64), side="right"))

    cols = [c for c in (score, label, weight, by) if c]
    meta = ddf[cols]._meta.assign(_range=np.int64(0))
    keyed = ddf[cols].map_partitions(with_range, meta=meta)
    shuffled = keyed.shuffle(on="_range", npartitions=max(1, min(n_ranges, ddf.npartitions * 2)))
    u_meta = pd.DataFrame({"g": pd.Series(dtype=str), "r": pd.Series(dtype=np.int64),
                           "u2": pd.Series(dtype=object), "wp": pd.Series(dtype=object),
                           "wn": pd.Series(dtype=object)})
    parts = shuffled.map_partitions(_partition_u, score, label, weight, by, score_type, meta=u_meta).compute()
    out: dict[str, float | None] = {}
    for key, frame in parts.groupby("g"):
        frame = frame.sort_values("r")
        u2 = frame["u2"].tolist()
        wp = frame["wp"].tolist()
        wn = frame["wn"].tolist()
        total, neg_below = 0, 0
        for u2_r, wp_r, wn_r in zip(u2, wp, wn):  # a loop over ranges, not rows
            total += u2_r + 2 * wp_r * neg_below
            neg_below += wn_r
        w_pos, w_neg = sum(wp), sum(wn)
        out[str(key)] = None if not (w_pos > 0 and w_neg > 0) else float(total / (2 * w_pos * w_neg)) \
            if weight else total / (2.0 * w_pos * w_neg)
    return out


def audit_dask(
    ddf: Any,
    *,
    score: str = "score",
    label: str = "label",
    weight: str | None = None,
    by: str | None = None,
    bins: int = 15,
    score_type: str = "probability",
    interval: str = "wilson",
    level: float = 0.95,
    min_count: int = 20,
    threshold: float = 0.5,
    n_ranges: int = 16,
) -> AuditResult:
    """``vc.audit`` of a Dask DataFrame (equal-width bins; exact AUC by range shuffle).

    Returns the same :class:`~veracity.AuditResult` as the in-memory audit of the
    collected rows; ``by`` names a column for per-group audits.
    """
    dd = _require_dask()
    if not isinstance(ddf, dd.DataFrame):
        raise VeracityError(f"audit_dask needs a dask DataFrame, got {type(ddf).__name__}; "
                            "for pandas/numpy data use vc.audit")
    check_score_type(score_type)
    bins = check_bins(bins)
    if not 0.0 <= threshold <= 1.0:
        raise VeracityError(f"threshold must be a probability in [0, 1], got {threshold!r}")
    for name in (c for c in (score, label, weight, by) if c):
        if name not in ddf.columns:
            raise VeracityError(f"column {name!r} not found; available columns: {', '.join(map(str, ddf.columns[:20]))}")
    import pandas as pd

    edges = np.arange(int(bins) + 1) / int(bins)
    meta = pd.DataFrame({"g": pd.Series(dtype=str), "b": pd.Series(dtype=np.int64),
                         **{k: pd.Series(dtype=np.float64) for k in _SUMS}})
    parts = ddf.map_partitions(_partition_stats, score, label, weight, by, score_type, edges,
                               float(threshold), meta=meta).compute()
    if parts.empty:
        raise VeracityError("the dask DataFrame has no rows; nothing to audit")
    summed = parts.groupby(["g", "b"], sort=True)[list(_SUMS)].sum()
    aucs = _auc_by_group(ddf, score, label, weight, by, score_type, n_ranges)

    def result(key: str | None) -> AuditResult:
        frame = summed if key is None else summed.xs(key, level="g")
        per_bin = frame.groupby(level="b").sum() if key is None else frame
        per_bin = per_bin.reindex(range(int(bins)), fill_value=0.0)
        stats = BinStats(
            edges, "uniform", count=per_bin["count"].to_numpy().astype(np.int64),
            **{k: per_bin[k].to_numpy(dtype=np.float64) for k in _SUMS[1:-1]},
        )
        return audit_from_stats(
            stats, auc=aucs.get(key if key is not None else _ALL),
            accuracy=float(per_bin["correct"].sum()) / stats.total_weight, score_type=score_type,
            threshold=threshold, ci=interval, level=level, min_count=min_count,
        )

    if by is None:
        return result(None)
    whole_auc = _auc_by_group(ddf, score, label, weight, None, score_type, n_ranges)[_ALL]
    groups = {str(g): result(str(g)) for g in summed.index.get_level_values("g").unique()}
    return replace(result(None), auc=whole_auc, groups=groups, group_column=by)
