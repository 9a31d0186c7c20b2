"""Backends for the frame tests: one random dataset, every way a user may hold it.

The dataset has ties (scores rounded to 2 decimals), weights, a segment column
and a logit column. Dask runs on its threaded scheduler, and on a real two-process
``distributed`` cluster on 127.0.0.1 in the tests marked ``dask_cluster`` (tests/conftest.py);
Spark for real in ``local[2]``; each is started once per test process, on first use (Spark
takes ~20 s), and stopped at the end of the run. Java comes from scripts/ensure-java.sh.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

N = 3000


def dataset(n: int = N, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    logit = np.round(rng.normal(0.0, 1.8, n), 1)  # ties, within and across AUC ranges
    p = np.round(1.0 / (1.0 + np.exp(-logit)), 2)
    y = (rng.random(n) < 1.0 / (1.0 + np.exp(-logit / 1.4))).astype(np.int64)
    return pd.DataFrame({
        "p": p, "y": y, "w": np.round(rng.uniform(0.2, 3.0, n), 3),
        "segment": rng.choice(["north", "south", "east"], n), "logit": logit,
    })


def threaded_dask() -> Any:
    """Dask's threaded scheduler (and its in-memory ``tasks`` shuffle) for the block, even in a test
    marked ``dask_cluster``. For the tests of many small queries on one machine's rows (the
    Newton fits: one query per step) whose code path the two-process cluster does not change: it
    costs ~6x the CPU of the threads there (a fit of 3000 rows: 40 s against 7 s on two busy cores).
    What the cluster does change (pickling to worker processes, the p2p range shuffle of the exact
    AUC) stays on it: the audit, metric, threshold and monitor tests, and the isotonic fit."""
    import dask

    return dask.config.set({"scheduler": "threads", "dataframe.shuffle.method": "tasks"})


#: the running test's request: make() reaches the root conftest's session-wide ``spark`` fixture through it
_REQUEST: list[Any] = []


@pytest.fixture(autouse=True)
def _current_request(request):
    _REQUEST.append(request)
    yield
    _REQUEST.pop()


def spark_session() -> Any:
    """The run's one ``local[2]`` Spark session: tests/conftest.py's ``spark`` fixture (it skips
    without pyspark or Java and stops the session at the end of the run)."""
    return _REQUEST[-1].getfixturevalue("spark")


def make(backend: str, df: pd.DataFrame, tmp_path, request=None):
    """``df`` as ``backend`` holds it (paths for the file backends)."""
    if backend == "pandas":
        return df
    if backend == "polars":
        import polars as pl

        return pl.from_pandas(df)
    if backend == "polars-lazy":
        import polars as pl

        return pl.from_pandas(df).lazy()
    if backend == "pyarrow":
        import pyarrow as pa

        return pa.Table.from_pandas(df, preserve_index=False)
    if backend == "duckdb":
        import duckdb

        con = duckdb.connect()
        con.register("t", df)
        return con.sql("SELECT * FROM t")
    if backend == "parquet":
        path = tmp_path / "scores.parquet"
        df.to_parquet(path, index=False)
        return str(path)
    if backend == "csv":
        path = tmp_path / "scores.csv"
        df.to_csv(path, index=False)
        return str(path)
    if backend == "glob":
        for i, part in enumerate(np.array_split(np.arange(len(df)), 3)):
            df.iloc[part].to_parquet(tmp_path / f"part-{i}.parquet", index=False)
        return str(tmp_path / "part-*.parquet")
    if backend == "dask":
        import dask.dataframe as dd

        return dd.from_pandas(df, npartitions=2)  # on the cluster where the test is marked dask_cluster
    if backend == "spark":
        return _spark_frame(df, tmp_path)
    raise AssertionError(backend)


#: the Spark frames made so far in this run, by their rows (see :func:`_spark_frame`)
_SPARK_FRAMES: dict[tuple[Any, ...], Any] = {}


def _spark_frame(df: pd.DataFrame, tmp_path) -> Any:
    """``df`` written to Parquet and read by the run's Spark session, once per distinct frame of the run
    (column names, dtypes and every value, index included): a test that asks for the rows an earlier one
    made gets the same (immutable) DataFrame, over the same file, without a second write and the
    schema-reading job of a second read (a Spark job, ~0.1-0.3 s of the JVM's CPU each; tests/frames asks
    for 22 Spark frames, 14 of them distinct)."""
    import hashlib

    session = spark_session()
    digest = hashlib.sha256(pd.util.hash_pandas_object(df.index).to_numpy().tobytes())
    # numbers by their bytes (-0.0 is not 0.0, nor one NaN another), text by pandas' hash
    for name in df.columns:
        values = df[name].to_numpy()
        digest.update(np.ascontiguousarray(values).tobytes() if values.dtype.kind in "biufcmM"
                      else pd.util.hash_pandas_object(df[name], index=False).to_numpy().tobytes())
    rows = digest.hexdigest()
    key = (id(session), tuple(df.columns), tuple(str(t) for t in df.dtypes), rows)
    if key not in _SPARK_FRAMES:
        path = tmp_path / f"spark-{rows[:16]}.parquet"  # a second frame of the test: a file of its own
        df.to_parquet(path, index=False)
        _SPARK_FRAMES[key] = session.read.parquet(str(path))
    return _SPARK_FRAMES[key]


#: the one parametrisation every frame test runs through (Spark last: its JVM starts on first use)
BACKENDS = ["pandas", "polars", "polars-lazy", "pyarrow", "duckdb", "parquet", "csv", "glob", "dask", "spark"]


def counted_queries(monkeypatch) -> list[int]:
    """Every aggregate a lazy route collects from here on (one entry each): what a fit costs in queries
    (on Spark and Dask a query is a job)."""
    from veracity.sources import _aggregates as agg

    seen: list[int] = []
    real = agg.collect

    def counted(x):
        seen.append(1)
        return real(x)

    monkeypatch.setattr(agg, "collect", counted)
    return seen
