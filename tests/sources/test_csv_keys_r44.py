"""CSV key columns keep the text written where numbers would lose it (session 44).

Every engine read a CSV's slice-key column as numbers, so that distinct keys merged or were renamed,
silently: versions ``1.1`` and ``1.10`` were one slice ``1.1`` of all 400 rows, zip codes ``02134`` and
``2134`` one slice ``2134`` (and a file of only ``02134`` named its slice ``2134``). A key column whose
numbers lose what the file tells apart (two texts that are one number, or a leading zero) is now read
as the text written on every route (``sources._csv_text.keys_as_written``); a column of plain numbers
stays numbers, sorted as numbers, as before.
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc
from veracity.sources._api import open_frame

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::DeprecationWarning")

N = 400
rng = np.random.default_rng(44)
P = rng.uniform(0.02, 0.98, N).round(6)
Y = (rng.uniform(size=N) < P).astype(int)
VERSION = np.where(np.arange(N) % 2 == 0, "1.1", "1.10")
ZIP = np.where(np.arange(N) % 3 == 0, "02134", "2134")
PLAIN = np.array(["1", "2", "10"])[np.arange(N) % 3]  # plain numbers: numeric keys 1 < 2 < 10
HALF = np.array(["0.5", "1.5", "10"])[np.arange(N) % 3]
REGION = np.where(np.arange(N) % 4 == 0, "NA", "EU")


@pytest.fixture
def path(tmp_path):
    """A CSV of scores, labels and key columns (as /tmp/s44/lead/k.csv holds them)."""
    file = tmp_path / "k.csv"
    file.write_text("score,label,version,zip,plain,half,region,only\n" + "".join(
        f"{float(p)!r},{y},{v},{z},{n},{h},{r},02134\n"
        for p, y, v, z, n, h, r in zip(P, Y, VERSION, ZIP, PLAIN, HALF, REGION)))
    return str(file)


def _groups(result):
    return [(str(k), g.n) for k, g in result.groups.items()]


ROUTES = {
    "duckdb": lambda path: path,  # vc.audit(path): the file read lazily through DuckDB
    "dask": lambda path: open_frame(path, "dask"),  # --engine dask's frame
}


@pytest.mark.parametrize("route", ["duckdb", "dask"])
def test_versions_are_two_slices(path, route):
    """Before: one slice '1.1' of 400 rows."""
    pytest.importorskip(route.replace("dask", "dask.dataframe"))
    got = vc.audit(ROUTES[route](path), score="score", label="label", by="version")
    assert _groups(got) == [("1.1", 200), ("1.10", 200)]
    want = vc.audit(P[VERSION == "1.10"], Y[VERSION == "1.10"])
    assert got.groups["1.10"].metrics["ece"] == pytest.approx(want.metrics["ece"], rel=1e-12)


@pytest.mark.parametrize("route", ["duckdb", "dask"])
def test_zip_codes_keep_their_leading_zero(path, route):
    """Before: one slice '2134' of 400 rows; a file of only '02134' named its slice '2134'."""
    pytest.importorskip(route.replace("dask", "dask.dataframe"))
    got = vc.audit(ROUTES[route](path), score="score", label="label", by="zip")
    assert _groups(got) == [("02134", 134), ("2134", 266)]
    only = vc.audit(ROUTES[route](path), score="score", label="label", by="only")
    assert _groups(only) == [("02134", N)]


def test_memory_engine_of_a_path_reads_the_keys_alike(path):
    """``as_source(path, engine="memory")`` (the path's rows collected): the same two slices."""
    source = vc.sources.as_source(path, score="score", label="label", by="version", engine="memory")
    keys, counts = np.unique(np.asarray(source.by, dtype=object).astype(str), return_counts=True)
    assert list(zip(keys, counts)) == [("1.1", 200), ("1.10", 200)]


def test_segments_of_a_path_name_the_levels_as_written(path):
    """vc.segments(path, features=[...]): levels zip=02134 and zip=2134 (before: one level zip=2134)."""
    res = vc.segments(path, score="score", label="label", features=["zip", "version"], depth=1)
    assert sorted((s["segment"], s["n"]) for s in res.to_dict()["segments"]) == [
        ("version=1.1", 200), ("version=1.10", 200), ("zip=02134", 134), ("zip=2134", 266)]


@pytest.mark.parametrize("cells", [["1", "1.0", "2"], ["+1", "1", "2"], ["007", "7", "8"], ["00", "0", "1"],
                                   ["1e3", "1000", "5"], [str(2**60), str(2**60 + 1), "0.5"]])
def test_numbers_that_lose_the_text_are_keys_as_written(tmp_path, cells):
    """Two texts that are one number (as an integer, or as a double where the column holds a fraction), or
    a leading zero: three slices named as the file writes them, on DuckDB and Dask alike."""
    file = tmp_path / "c.csv"
    file.write_text("score,label,k\n" + "".join(f"{float(p)!r},{y},{cells[i % 3]}\n"
                                               for i, (p, y) in enumerate(zip(P, Y))))
    want = sorted((c, int(np.sum(np.arange(N) % 3 == i))) for i, c in enumerate(cells))
    for route in ("duckdb", "dask"):
        got = vc.audit(ROUTES[route](str(file)), score="score", label="label", by="k")
        assert sorted(_groups(got)) == want, route


# -- guards: plain numbers stay numbers (the same keys, order and names as before) -------------------------
@pytest.mark.parametrize("route", ["duckdb", "dask"])
def test_plain_number_keys_stay_numbers(path, route):
    """Guard (passes before and after): '1', '2', '10' are the numeric keys 1 < 2 < 10, and a column with a
    fraction the doubles 0.5 < 1.5 < 10.0."""
    got = vc.audit(ROUTES[route](path), score="score", label="label", by="plain")
    assert [str(k) for k in got.groups] == ["1", "2", "10"]  # numeric order (as text: 1, 10, 2)
    half = vc.audit(ROUTES[route](path), score="score", label="label", by="half")
    assert [str(k) for k in half.groups] == ["0.5", "1.5", "10.0"]


def test_plain_number_features_are_still_binned(path):
    """Guard (passes before and after): a numeric segment feature is cut into bins, not read as levels."""
    res = vc.segments(path, score="score", label="label", features=["half"], depth=1)
    assert res.to_dict()["levels"] == vc.segments(P, Y, features={"half": HALF.astype(float)},
                                                  depth=1).to_dict()["levels"]


def test_missing_spellings_in_a_text_key_stay_missing(path):
    """Guard (passes before and after; the documented behaviour, which tests/hardening pin as the routes'
    agreement with ``vc.io.read_path``): in a text key column ``NA`` is a missing key, as in a score."""
    got = vc.audit(path, score="score", label="label", by="region")
    assert _groups(got) == [("EU", 300), ("(missing)", 100)]
