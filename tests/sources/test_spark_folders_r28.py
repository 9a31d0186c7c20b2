"""Round 28: a folder is Parquet or CSV on Spark (and Dask) as the memory and DuckDB engines tell it.

``open_frame`` told Parquet from CSV by the path's name alone ("a name without an extension is a Parquet
directory"), where memory and DuckDB look at the files (``_files.expand``: a directory is read when it
holds ``.parquet`` files, else refused: "d is a directory without .parquet files; pass a file or a glob").
Before, on Spark:

* ``data/scores`` (no dot) holding CSV files: read as Parquet, a Java stack trace on stderr, then "could not
  read scores as PARQUET: Spark Py4JJavaError; check that it is a valid parquet file";
* ``data/scores.d`` holding CSV files: read as CSV, an audit where every other engine refuses the folder;
* ``data/pq.d`` holding Parquet files: read as CSV, a stack trace, then "could not read pq.d as PARQUET";
* a path that is not there: "could not read nothere as FILE: Spark Analysis error" (the others: "file not
  found: nothere; check the path").

Dask had fixed the first alone; the second and third said "could not read ... as PARQUET: the engine
IsADirectoryError" there. One Spark session: the suite's ``spark`` fixture (tests/conftest.py).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

N = 80


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The same 160 rows as two CSV files in ``scores`` and ``scores.d``, as two Parquet files in ``pq``
    and ``pq.d``."""
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    root = tmp_path_factory.mktemp("r28folders")
    rng = np.random.default_rng(28)
    for name in ("scores", "scores.d", "pq", "pq.d"):
        (root / name).mkdir()
    for i in range(2):
        p = np.round(rng.uniform(0.02, 0.98, N), 3)
        y = (rng.uniform(size=N) < p).astype(int)
        text = "p,y\n" + "".join(f"{a},{b}\n" for a, b in zip(p, y))
        for name in ("scores", "scores.d"):
            (root / name / f"part{i}.csv").write_text(text)
        for name in ("pq", "pq.d"):
            pq.write_table(pa.table({"p": p, "y": y}), root / name / f"part{i}.parquet")
    return {name: str(root / name) for name in ("scores", "scores.d", "pq", "pq.d", "nothere")}


def _audit(cli, path: str, engine: str):
    return cli(["audit", path, "--score", "p", "--label", "y", "--engine", engine, "--json"])


def _started(engine: str, request) -> None:
    if engine == "spark":
        request.getfixturevalue("spark")  # the tests' tuned session (skipped without pyspark or Java)
    else:
        pytest.importorskip("dask.dataframe")


@pytest.mark.parametrize("engine", ["spark", "dask"])
@pytest.mark.parametrize("name", ["scores", "scores.d", "nothere"])
def test_a_folder_of_csv_files_is_refused_as_memory_refuses_it(folders, cli, refused, request, engine,
                                                                name) -> None:
    _started(engine, request)
    memory, lazy = _audit(cli, folders[name], "memory"), _audit(cli, folders[name], engine)
    refused(memory)
    refused(lazy)
    assert lazy.err == memory.err
    folder = "is a directory without .parquet files; pass a file or a glob"
    said = "file not found" if name == "nothere" else folder
    assert said in lazy.err


@pytest.mark.parametrize("engine", ["spark", "dask"])
@pytest.mark.parametrize("name", ["pq", "pq.d"])
def test_a_folder_of_parquet_files_gives_memorys_numbers(folders, cli, request, engine, name) -> None:
    _started(engine, request)
    memory, lazy = _audit(cli, folders[name], "memory"), _audit(cli, folders[name], engine)
    assert memory.code == 0 and lazy.code == 0, (memory.err, lazy.err)
    want, got = json.loads(memory.out), json.loads(lazy.out)
    assert got["n"] == want["n"] == 2 * N
    for key in ("ece", "brier", "auc", "nll", "accuracy"):
        assert got["metrics"][key] == pytest.approx(want["metrics"][key], rel=1e-9, abs=1e-12), key


def test_the_python_route_says_the_same(folders, spark) -> None:
    """``open_frame(path, "spark")``, the frame form's way to a path on Spark: the memory engine's line."""
    import veracity as vc
    from veracity.sources._api import open_frame

    with pytest.raises(vc.VeracityError, match="scores is a directory without .parquet files") as err:
        open_frame(folders["scores"], "spark")
    assert "\n" not in str(err.value)
    frame = open_frame(folders["pq.d"], "spark")
    with pytest.raises(vc.VeracityError, match="is a directory without .parquet files"):
        vc.audit(folders["scores.d"], score="p", label="y")
    want = vc.audit(folders["pq.d"], score="p", label="y")
    got = vc.audit(frame, score="p", label="y")
    assert got.n == want.n == 2 * N and got.ece == pytest.approx(want.ece, rel=1e-9)
