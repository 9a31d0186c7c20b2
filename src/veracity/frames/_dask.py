"""Dask's one missing piece: the running sum inside each score range of the exact AUC.

narwhals has no ordered window on Dask, so after the shared per-(slice, range,
distinct score) aggregate (see :mod:`._aggregates`) the rows are shuffled by
(slice, range) and each partition sorts and sums its own ranges with pandas —
the same numerator as the window, and only per-range rows come back.
"""

from __future__ import annotations

from typing import Any


def _numerators(df: Any, keys: list[str], rank: str) -> Any:
    import pandas as pd

    cols = [*keys, "_r"]
    if len(df) == 0:
        return pd.DataFrame({**{k: df[k] for k in cols}, "_num": df["_pos"], "_pos": df["_pos"],
                             "_neg": df["_neg"]})
    df = df.sort_values([*cols, rank], kind="stable")
    below = df.groupby(cols, sort=False)["_neg"].cumsum() - df["_neg"]
    df = df.assign(_num=df["_pos"] * (2 * below + df["_neg"]))
    return df.groupby(cols, sort=False, as_index=False)[["_num", "_pos", "_neg"]].sum()


def range_numerators(per_value: Any, keys: list[str], rank: str) -> dict[str, list]:
    """``{"_g"?, "_r", "_num", "_pos", "_neg"}`` columns, one row per (slice, range)."""
    ddf = per_value.to_native()
    cols = [*keys, "_r"]
    meta = ddf._meta[cols].assign(_num=ddf._meta["_pos"], _pos=ddf._meta["_pos"], _neg=ddf._meta["_neg"])
    shuffled = ddf.shuffle(on=cols)
    out = shuffled.map_partitions(_numerators, keys, rank, meta=meta).compute()
    return {name: out[name].tolist() for name in out.columns}
