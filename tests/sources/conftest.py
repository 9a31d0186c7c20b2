"""Helpers shared by the tests of the frame routes (``from .conftest import same_audit``, as tests/frames
and tests/sql share theirs)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

#: how far two audits of the same rows may differ: the order in which an engine sums rows
REL = 1e-12


def same_audit(got: Any, want: Any, rel: float = REL) -> None:
    """``got`` is the audit ``want`` up to the order of summation: the same rows, classes and bin counts,
    every per-bin sum and every metric within ``rel`` (NaN equal to NaN)."""
    assert got.n == want.n and got.n_classes == want.n_classes
    np.testing.assert_array_equal(got.table.stats.count, want.table.stats.count)
    for name in ("weight", "sum_p", "sum_y", "sum_nll"):
        np.testing.assert_allclose(getattr(got.table.stats, name), getattr(want.table.stats, name), rtol=rel,
                                   atol=1e-300, err_msg=name)
    for key, value in want.metrics.items():
        assert got.metrics[key] == pytest.approx(value, rel=rel, abs=1e-15, nan_ok=True), key


#: the routes the round-29 multiclass tests compare (class columns c0, c1, ... and the labels y)
CLASS_COLUMN_ROUTES = ["pandas", "polars-lazy", "duckdb", "dask", "csv", "spark"]


def class_columns_frame(backend: str, s: Any, y: Any, tmp_path: Any, request: Any) -> Any:
    """(N, K) scores ``s`` as columns c0 … c(K-1) beside the labels y, on ``backend``
    (:data:`CLASS_COLUMN_ROUTES`; a CSV file written with every digit; Spark from the ``spark`` fixture)."""
    import pandas as pd

    df = pd.DataFrame({**{f"c{i}": s[:, i] for i in range(s.shape[1])}, "y": np.asarray(y, dtype=np.int64)})
    if backend == "pandas":
        return df
    if backend == "polars-lazy":
        pl = pytest.importorskip("polars")
        return pl.from_pandas(df).lazy()
    if backend == "duckdb":
        duckdb = pytest.importorskip("duckdb")
        return duckdb.connect().from_df(df)
    if backend == "dask":
        dd = pytest.importorskip("dask.dataframe")
        return dd.from_pandas(df, npartitions=3, sort=False)
    if backend == "csv":
        path = tmp_path / "classes.csv"
        path.write_text(",".join([*df.columns[:-1], "y"]) + "\n" + "".join(
            ",".join(f"{v:.17g}" for v in row) + f",{t}\n" for row, t in zip(s, y)))
        return str(path)
    return request.getfixturevalue("spark").createDataFrame(df)

