"""``veracity audit --by`` / ``segments --features`` keep a CSV key column's text where numbers would lose
it, on every engine (session 44): versions ``1.1`` and ``1.10`` were one slice ``1.1`` of all rows, zip codes
``02134`` and ``2134`` one slice ``2134`` (``--engine memory``, ``duckdb`` and ``dask`` alike). A column of
plain numbers keeps its numeric keys and order."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::DeprecationWarning")

N = 300
rng = np.random.default_rng(4402)
P = rng.uniform(0.02, 0.98, N).round(6)
Y = (rng.uniform(size=N) < P).astype(int)


@pytest.fixture
def path(tmp_path):
    file = tmp_path / "k.csv"
    file.write_text("score,label,version,zip,plain,other\n" + "".join(
        f"{float(p)!r},{y},{['1.1', '1.10'][i % 2]},{['02134', '2134', '2134'][i % 3]},"
        f"{['1', '2', '10'][i % 3]},{float(p) ** 2!r}\n" for i, (p, y) in enumerate(zip(P, Y))))
    return file


def _groups(cli, path, by, engine):
    got = cli(["audit", path, "--score", "score", "--label", "label", "--by", by, "--engine", engine,
               "--json", "-"])
    assert got.code == 0, got.err
    return [(k, g["n"]) for k, g in json.loads(got.out)["groups"].items()]


@pytest.mark.parametrize("engine", ["memory", "duckdb", "dask"])
def test_audit_by_keeps_versions_and_zip_codes_apart(cli, path, engine):
    """Before: [('1.1', 300)] and [('2134', 300)] on every engine."""
    if engine == "dask":
        pytest.importorskip("dask.dataframe")
    assert _groups(cli, path, "version", engine) == [("1.1", 150), ("1.10", 150)]
    assert _groups(cli, path, "zip", engine) == [("02134", 100), ("2134", 200)]


@pytest.mark.parametrize("engine", ["memory", "duckdb", "dask"])
def test_plain_number_keys_keep_their_order(cli, path, engine):
    """Guard (passes before and after): 1 < 2 < 10 as numbers."""
    if engine == "dask":
        pytest.importorskip("dask.dataframe")
    assert _groups(cli, path, "plain", engine) == [("1", 100), ("2", 100), ("10", 100)]


def test_segments_features_name_levels_as_written(cli, path):
    """Before: one level zip=2134 of 300 rows, version=1.1 of 300."""
    got = cli(["segments", path, "--score", "score", "--label", "label", "--features", "zip,version",
               "--depth", "1", "--json", "-"])
    assert got.code == 0, got.err
    segs = sorted((s["segment"], s["n"]) for s in json.loads(got.out)["segments"])
    assert segs == [("version=1.1", 150), ("version=1.10", 150), ("zip=02134", 100), ("zip=2134", 200)]


def test_compare_by_reads_the_keys_alike(cli, path):
    """``compare --against --by`` reads its file in memory through the same loader: two zip slices (before:
    one, '2134')."""
    got = cli(["compare", path, "--score", "score", "--against", "other", "--label", "label", "--by", "zip",
               "--n-resamples", "50", "--json", "-"])
    assert got.code == 0, got.err
    assert sorted(json.loads(got.out)["groups"]) == ["02134", "2134"]
