"""Reading one Parquet file with Dask again and again costs the same each time (session 40).

Dask's Parquet reader writes into the ``arrow_to_pandas`` dict it is given the type mapper it makes (the
one it read there first, then its own), and keeps that dict in a plan shared by every later read of the
same file. veracity handed it one module-level dict, so each partition read wrapped the last mapper once
more, for the life of the process; Dask pickles that nest whenever it names an expression, over every
loaded module: an audit of a small Parquet file went from 0.2 s to 3 s of CPU after 30 reads, and the
task graph grew by ~635 bytes per read. Now Dask always reads the given mapper: the graph, the types
and the numbers are the same at every read.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import veracity as vc

pytest.importorskip("dask.dataframe")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
cloudpickle = pytest.importorskip("cloudpickle")

READS = 6


def test_reading_a_parquet_file_again_ships_the_same_graph(tmp_path):
    from veracity.sources._api import open_frame

    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"p": [0.1, 0.7, 0.4, 0.9], "y": pa.array([0, 1, None, 1], pa.int64()),
                             "g": ["a", "b", None, "a"]}), path)
    sizes, frames = [], []
    for _ in range(READS):
        frame = open_frame(str(path), "dask")
        frames.append(frame.compute())
        sizes.append(len(cloudpickle.dumps(dict(frame.__dask_graph__()))))
    assert sizes == [sizes[0]] * READS  # was 4609, 5244, 5879, ... bytes
    for got in frames:  # the integers still in pandas' nullable type, the text in Dask's string type
        assert dict(got.dtypes.astype(str)) == {"p": "float64", "y": "Int64", "g": "string"}
        assert got["y"].isna().tolist() == [False, False, True, False]
        assert got["y"].dropna().tolist() == [0, 1, 1]
        assert got["g"].tolist()[:2] == ["a", "b"]


def test_repeated_dask_audits_of_a_parquet_file_are_one_audit(tmp_path):
    from veracity.sources._api import open_frame

    rng = np.random.default_rng(40)
    p = rng.random(300)
    y = (rng.random(300) < p).astype(np.int64)
    g = np.asarray(["a", "b", "c"])[rng.integers(0, 3, 300)]
    path = tmp_path / "a.parquet"
    pq.write_table(pa.table({"p": p, "y": y, "g": g}), path)
    want = vc.audit(p, y, by=g, min_count=1)
    for _ in range(READS):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)  # narwhals' note on its Dask support
            got = vc.audit(open_frame(str(path), "dask"), score="p", label="y", by="g", min_count=1)
        assert list(got.groups) == list(want.groups)
        for name, audited in want.groups.items():
            assert got.groups[name].n == audited.n
            assert got.groups[name].ece == pytest.approx(audited.ece, rel=1e-12, abs=1e-15)
