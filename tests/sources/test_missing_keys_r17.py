"""A missing slice key is one slice named ``(missing)`` on every route, last, with the same rows.

Before (HEAD 5886e42), on one table whose text column ``g`` holds None and whose float column ``h``
holds NaN and null (Arrow, polars, DuckDB and Spark keep both; pandas, Dask and numpy cannot):

* ``g``: the slice ``'None'`` everywhere;
* ``h``: ``'nan'`` (270 rows) from a numpy array, ``'None'`` (270) from pandas, a CSV file (any
  engine), SQLite and Dask, but two slices ``'nan'`` (134) and ``'None'`` (136) from polars (eager and
  lazy), a pyarrow table, a DuckDB relation, a Parquet file (memory, DuckDB, Spark) and a DuckDB table
  audited in the database; ``vc.compare_models`` on a polars frame named the null rows ``'None'`` and
  dropped the NaN rows from every slice;
* the text ``'None'`` beside a missing key was refused ("both named 'None'"), and the text ``'nan'``
  beside a NaN key too, where neither is the missing key.

Now the missing key (None, NaN, NaT, SQL's NULL; :func:`veracity.core._keys.is_missing`) is one
slice, :data:`veracity.core._keys.MISSING_NAME` — the name ``veracity monitor status`` gives the rows
logged without a slice value (docs/monitoring.md). Only the text ``'(missing)'`` beside a missing key
is refused, as ``1`` beside ``'1'`` is.
"""

from __future__ import annotations

import sqlite3
import warnings

import numpy as np
import pytest

import veracity as vc

pd = pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
duckdb = pytest.importorskip("duckdb")

N = 400
RNG = np.random.default_rng(1717)
P = RNG.random(N)
Y = (RNG.random(N) < P).astype(np.int64)
Q = np.clip(P + RNG.normal(0.0, 0.05, N), 0.0, 1.0)  # a second model, for compare_models
K = RNG.integers(0, 3, N)  # 0: a value; 1: null; 2: the other value (g) or NaN (h)

TABLE = pa.table({
    "p": P, "q": Q, "y": Y,
    "g": pa.array([["a", None, "b"][k] for k in K], pa.string()),
    "h": pa.array([[1.0, None, float("nan")][k] for k in K], pa.float64()),  # null and NaN: both missing
})

#: the slices written by hand: (name, rows) in slice order, the missing key's last
WANT = {
    "g": [("a", K == 0), ("b", K == 2), ("(missing)", K == 1)],
    "h": [("1.0", K == 0), ("(missing)", K != 0)],
}


def _check(groups, by):
    want = WANT[by]
    assert list(groups) == [name for name, _ in want]
    for name, rows in want:
        audited = groups[name]
        assert audited.n == int(rows.sum()), name
        ece = getattr(audited, "ece", None)
        if ece is not None:
            assert ece == pytest.approx(vc.audit(P[rows], Y[rows]).ece, rel=1e-9, abs=1e-12), name


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("missing-keys")
    parquet, csv = folder / "t.parquet", folder / "t.csv"
    pq.write_table(TABLE, parquet)  # NaN and null stay apart in the file
    TABLE.to_pandas().to_csv(csv, index=False)  # both an empty cell in the text
    return {"parquet": str(parquet), "csv": str(csv)}


def _data(route, files):
    from veracity.sources._api import open_frame, read_path

    if route == "pandas":
        return TABLE.to_pandas()
    if route in ("polars", "polars-lazy"):
        pl = pytest.importorskip("polars")
        frame = pl.from_arrow(TABLE)
        return frame.lazy() if route == "polars-lazy" else frame
    if route == "pyarrow":
        return TABLE
    if route == "duckdb-relation":
        return duckdb.connect().from_arrow(TABLE)
    kind, engine = route.split("-")
    path = files[kind]
    if engine == "memory":
        return read_path(path)
    if engine == "duckdb":
        return path
    pytest.importorskip("dask")
    return open_frame(path, "dask")


ROUTES = ["pandas", "polars", "polars-lazy", "pyarrow", "duckdb-relation", "parquet-memory", "parquet-duckdb",
          "parquet-dask", "csv-memory", "csv-duckdb", "csv-dask"]


@pytest.mark.parametrize("by", ["g", "h"])
def test_arrays_name_the_missing_key_as_every_route(by):
    keys = TABLE.column(by).to_numpy(zero_copy_only=False)  # g: None in an object array; h: NaN floats
    _check(vc.audit(P, Y, by=keys, min_count=1).groups, by)
    if by == "h":  # a pandas Series of floats: NaN too
        _check(vc.audit(P, Y, by=pd.Series(keys, name="h"), min_count=1).groups, by)


@pytest.mark.parametrize("by", ["g", "h"])
@pytest.mark.parametrize("route", ROUTES)
def test_frames_and_files_name_the_missing_key_as_arrays(route, by, files):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # narwhals' note on its Dask support
        got = vc.audit(_data(route, files), score="p", label="y", by=by, min_count=1)
    _check(got.groups, by)


@pytest.mark.parametrize("by", ["g", "h"])
@pytest.mark.parametrize("database", ["duckdb", "sqlite"])
def test_the_sql_pushdown_names_the_missing_key_as_arrays(database, by):
    if database == "duckdb":
        con = duckdb.connect()
        con.register("v", TABLE)
        con.execute("CREATE TABLE t AS SELECT * FROM v")  # DOUBLE: NaN and NULL apart
    else:
        con = sqlite3.connect(":memory:")  # SQLite stores NaN as NULL
        TABLE.to_pandas().to_sql("t", con, index=False)
    _check(vc.audit(con, table="t", score="p", label="y", by=by, min_count=1).groups, by)


@pytest.mark.parametrize("route", ["sql-duckdb", "polars-lazy"])
def test_the_slice_cap_counts_nan_and_null_as_one_key(route):
    """max_groups (in the database, or on a lazy frame): NaN and NULL are one key when the largest keys are
    kept; before, each was a key of its own (134 and 136 rows, neither the largest)."""
    h = np.where(K == 0, 1.0, np.where(K == 2, np.nan, 2.0))
    h = pa.array(np.where(np.arange(N) % 5 == 0, None, h).tolist(), pa.float64())  # and some NULLs
    table = pa.table({"p": P, "y": Y, "h": h})
    values = np.asarray(h.to_numpy(zero_copy_only=False), dtype=float)
    missing = np.isnan(values)
    assert missing.sum() > max((values == 1.0).sum(), (values == 2.0).sum())  # the largest key, as one
    if route == "sql-duckdb":
        con = duckdb.connect()
        con.register("v", table)
        con.execute("CREATE TABLE t AS SELECT * FROM v")
        got = vc.audit(con, table="t", score="p", label="y", by="h", max_groups=2, min_count=1)
    else:
        pl = pytest.importorskip("polars")
        got = vc.audit(pl.from_arrow(table).lazy(), score="p", label="y", by="h", max_groups=2, min_count=1)
    want = {"(missing)": int(missing.sum()), "(other 2 values)": int((~missing).sum())}
    assert {name: g.n for name, g in got.groups.items()} == want
    assert list(got.groups) == list(want) == list(vc.audit(P, Y, by=values, max_groups=2, min_count=1).groups)
    assert got.groups["(missing)"].ece == pytest.approx(vc.audit(P[missing], Y[missing]).ece, rel=1e-9)


def test_spark_names_the_missing_key_as_arrays(spark, files):
    from veracity.sources._api import open_frame

    got = vc.audit(open_frame(files["parquet"], "spark"), score="p", label="y", by="h", min_count=1)
    _check(got.groups, "h")  # was 'nan' (134 rows) and 'None' (136)


@pytest.mark.parametrize("by", ["g", "h"])
@pytest.mark.parametrize("route", ["arrays", "pandas", "polars"])
def test_compare_models_names_the_missing_key_as_the_audit(route, by):
    if route == "arrays":
        got = vc.compare_models({"p": P, "q": Q}, Y, by=TABLE.column(by).to_numpy(zero_copy_only=False))
    else:
        data = TABLE.to_pandas() if route == "pandas" else pytest.importorskip("polars").from_arrow(TABLE)
        got = vc.compare_models(data, scores=["p", "q"], label="y", by=by)
    assert list(got.groups) == [name for name, _ in WANT[by]]
    # before, polars h: the null rows (136) named 'None', the NaN rows (134) in no slice
    assert [g.n for g in got.groups.values()] == [int(rows.sum()) for _, rows in WANT[by]]


def test_compare_models_on_a_lazy_frame_keeps_the_nan_rows():
    got = vc.compare_models(duckdb.connect().from_arrow(TABLE), scores=["p", "q"], label="y", by="h")
    assert [g.n for g in got.groups.values()] == [int(rows.sum()) for _, rows in WANT["h"]]


# -- the text 'None', 'nan' and '(missing)' beside a missing key ----------------------------------------
@pytest.mark.parametrize("text", ["None", "nan", "NaN", "null", "missing"])
def test_texts_that_spell_a_missing_value_are_keys_of_their_own(text):
    keys = np.array([[text, None, "a"][k] for k in K], dtype=object)
    frame = pd.DataFrame({"p": P, "y": Y, "k": keys})
    con = duckdb.connect()
    con.register("v", frame)
    con.execute("CREATE TABLE t AS SELECT * FROM v")
    want = {name: int((K == i).sum()) for i, name in enumerate([text, "(missing)", "a"])}
    for got in (vc.audit(P, Y, by=keys), vc.audit(frame, score="p", label="y", by="k"),  # 'None': was refused
                vc.audit(con, table="t", score="p", label="y", by="k")):
        assert {name: g.n for name, g in got.groups.items()} == want
        assert list(got.groups)[-1] == "(missing)"


def test_a_nan_key_beside_the_text_nan_is_two_slices():
    keys = np.array([["nan", float("nan"), "a"][k] for k in K], dtype=object)  # was refused: both named 'nan'
    got = vc.audit(P, Y, by=keys)
    want = {"a": int((K == 2).sum()), "nan": int((K == 0).sum()), "(missing)": int((K == 1).sum())}
    assert {name: g.n for name, g in got.groups.items()} == want


def test_the_text_of_the_missing_name_beside_a_missing_key_is_refused_on_every_route():
    keys = np.array([["(missing)", None, "a"][k] for k in K], dtype=object)
    frame = pd.DataFrame({"p": P, "y": Y, "k": keys})
    con = duckdb.connect()
    con.register("v", frame)
    con.execute("CREATE TABLE t AS SELECT * FROM v")
    pl = pytest.importorskip("polars")
    runs = [lambda: vc.audit(P, Y, by=keys), lambda: vc.audit(frame, score="p", label="y", by="k"),
            lambda: vc.audit(pl.from_pandas(frame).lazy(), score="p", label="y", by="k"),
            lambda: vc.audit(con, table="t", score="p", label="y", by="k"),
            lambda: vc.compare_models({"p": P, "q": Q}, Y, by=keys)]
    for run in runs:
        with pytest.raises(vc.VeracityError, match=r"two slice keys, .* are both named '\(missing\)'"):
            run()
    alone = np.array([["(missing)", "a"][k % 2] for k in K], dtype=object)  # no missing key: just a key
    assert set(vc.audit(P, Y, by=alone).groups) == {"(missing)", "a"}


# -- the helpers ------------------------------------------------------------------------------------------
def test_every_missing_value_is_the_one_missing_key():
    from veracity.core._keys import MISSING_NAME, is_missing, key_name, key_order, same_key

    gaps = [None, float("nan"), np.float32("nan"), np.datetime64("NaT"), np.timedelta64("NaT"), pd.NaT, pd.NA]
    assert all(is_missing(k) for k in gaps)
    assert {key_name(k) for k in gaps} == {MISSING_NAME} == {"(missing)"}
    assert not any(is_missing(k) for k in ("None", "nan", "", 0, 0.0, False, b""))
    assert same_key(float("nan")) is None
    order = key_order([float("nan"), 2, None, 1])
    assert order[:2] == [1, 2] and all(is_missing(k) for k in order[2:])  # the missing keys last
    times = np.array(["2026-01-01", "NaT"], dtype="datetime64[D]")[K % 2]
    assert list(vc.audit(P, Y, by=times).groups) == ["2026-01-01", "(missing)"]
