"""The routes agree: a frame on every backend, a path, and ``--engine memory`` give the array form's
numbers and the same one-line errors.

* a boolean score (or weight) column is read as 1.0/0.0, as the array form reads a boolean array
  (hard 0/1 predictions are scores), on every backend — it was refused ("must be numeric, got Boolean");
* Dask reads an Arrow DECIMAL(p, p) column (no integer digit, e.g. DECIMAL(4, 4) scores from
  Parquet) as the nearest doubles — it raised ``ArrowInvalid`` — and says how to fix a pandas
  object column of ``Decimal`` values that ``dd.from_pandas`` turned into text;
* a file read into memory words missing and infinite values as the lazy contract does.
"""

from __future__ import annotations

import re
from decimal import Decimal

import numpy as np
import pytest

import veracity as vc

pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")
pa = pytest.importorskip("pyarrow")
duckdb = pytest.importorskip("duckdb")

RNG = np.random.default_rng(5)
N = 600
HARD = RNG.random(N) < 0.45  # hard 0/1 predictions
Y = (RNG.random(N) < np.where(HARD, 0.8, 0.25)).astype(np.int64)
W = np.round(RNG.uniform(0.25, 3.0, N), 2)
G = RNG.choice(["a", "b", "c"], N)
FLAG = RNG.random(N) < 0.7  # a boolean weight: keep the row or not


def _dask(df):
    dd = pytest.importorskip("dask.dataframe")
    return dd.from_pandas(df, npartitions=3)


def _forms(df, tmp_path):
    path = tmp_path / "rows.parquet"
    df.to_parquet(path)
    csv = tmp_path / "rows.csv"
    df.to_csv(csv, index=False)
    return {
        "pandas": lambda: df, "polars": lambda: pl.from_pandas(df),
        "pyarrow": lambda: pa.Table.from_pandas(df),
        "polars-lazy": lambda: pl.from_pandas(df).lazy(), "duckdb": lambda: duckdb.connect().from_df(df),
        "parquet": lambda: str(path), "csv": lambda: str(csv), "dask": lambda: _dask(df),
    }


def _same(a, b):
    assert a.n == b.n
    assert a.ece == pytest.approx(b.ece, rel=1e-12, abs=1e-15)
    assert a.brier == pytest.approx(b.brier, rel=1e-12, abs=1e-15)
    assert a.auc == pytest.approx(b.auc, rel=1e-12)
    assert sorted(a.groups) == sorted(b.groups)
    for k in a.groups:
        assert a.groups[k].ece == pytest.approx(b.groups[k].ece, rel=1e-12, abs=1e-15)
        assert a.groups[k].auc == pytest.approx(b.groups[k].auc, rel=1e-12)


@pytest.fixture
def threads():
    dask = pytest.importorskip("dask")
    with dask.config.set({"scheduler": "threads", "dataframe.shuffle.method": "tasks"}):
        yield


ALL = ["pandas", "polars", "pyarrow", "polars-lazy", "duckdb", "parquet", "csv", "dask"]


@pytest.mark.parametrize("form", ALL)
def test_a_boolean_score_column_is_read_as_0_1_on_every_backend(form, tmp_path, threads):
    df = pd.DataFrame({"p": HARD, "y": Y, "w": W, "g": G, "keep": FLAG})
    frame = _forms(df, tmp_path)[form]()
    want = vc.audit(HARD, Y)
    _same(vc.audit(frame, score="p", label="y"), want)
    weighted = vc.audit(HARD, Y, sample_weight=W, by={"g": G}, strategy="quantile", bins=4)
    got = vc.audit(frame, score="p", label="y", sample_weight="w", by="g", strategy="quantile", bins=4)
    _same(got, weighted)
    # a boolean weight column: rows kept (1) or not (0), as a boolean weight array
    _same(vc.audit(frame, score="p", label="y", sample_weight="keep"), vc.audit(HARD, Y, sample_weight=FLAG))


def test_boolean_scores_are_the_0_1_floats(tmp_path):
    """The numbers themselves (not produced by the code under test): scores 0/1, so the Brier score is
    the error rate and one bin per class holds the rows."""
    got = vc.audit(pl.from_pandas(pd.DataFrame({"p": HARD, "y": Y})).lazy(), score="p", label="y")
    assert got.brier == pytest.approx(np.mean(HARD.astype(float) != Y))
    assert got.accuracy == pytest.approx(np.mean(HARD.astype(int) == Y))


def test_dask_reads_a_decimal_with_no_integer_digit(tmp_path, threads):
    dd = pytest.importorskip("dask.dataframe")
    p = np.repeat(np.arange(1, 10) / 10, 40)  # every score on an edge of 10 equal-width bins
    y = (np.random.default_rng(2).random(p.size) < p).astype(np.int64)
    table = pa.table({"p": pa.array([Decimal(f"{v:.4f}") for v in p], pa.decimal128(4, 4)), "y": y})
    path = tmp_path / "dec.parquet"
    import pyarrow.parquet as pq

    pq.write_table(table, path)
    want = vc.audit(p, y, bins=10)
    for frame in (dd.read_parquet(path), str(path)):
        got = vc.audit(frame, score="p", label="y", bins=10)
        assert got.ece == pytest.approx(want.ece, rel=1e-12)
        assert got.table.stats.count.tolist() == want.table.stats.count.tolist()


def test_dask_text_from_decimal_objects_says_how_to_fix_it(tmp_path, threads):
    """Dask's dd.from_pandas turns Decimal objects into text: refused as text is on every backend,
    in the same words, which say how to fix it."""
    for name, role, kwargs in (("p", "scores", {}), ("w", "sample_weight", {"sample_weight": "w"})):
        df = pd.DataFrame({"p": [0.25, 0.75] * 10, "y": [0, 1] * 10, "w": [1.5] * 20})
        df[name] = [Decimal(str(v)) for v in df[name]]
        said = set()
        for form, make in {"dask": lambda: _dask(df), **_forms(df.astype({name: str}), tmp_path)}.items():
            if form in ("csv", "parquet"):  # a file's text "0.25" is read as a number
                continue
            with pytest.raises(vc.VeracityError) as err:
                vc.audit(make(), score="p", label="y", **kwargs)
            said.add(str(err.value))
        assert len(said) == 1, said
        (message,) = said
        assert message.startswith(f"column '{name}' ({role}) must be numeric, got String; "
                                  "convert the column to numbers (")
        assert "Decimal" in message and f"df['{name}'].astype(float)" in message


# ---------------------------------------------------------------------------------------------
# missing values: one wording on the lazy route and in memory
# ---------------------------------------------------------------------------------------------
def _without_row(text):
    return re.sub(r", first at data row \d+", "", text)


@pytest.mark.parametrize("cell", ["", "NaN", "inf"])
def test_engine_memory_words_missing_scores_as_the_lazy_engines(tmp_path, cell):
    from veracity.sources._api import read_path, score_matrix

    path = tmp_path / "rows.csv"
    path.write_text(f"p,y\n0.2,0\n{cell},1\n0.7,1\n0.4,0\n")
    with pytest.raises(vc.VeracityError) as lazy:
        vc.audit(str(path), score="p", label="y")
    with pytest.raises(vc.VeracityError) as memory:
        score_matrix(read_path(path, ["p", "y"]), "p", path=path)
    assert "first at data row 2;" in str(memory.value)
    assert _without_row(str(memory.value)) == str(lazy.value)


@pytest.mark.parametrize(("role", "body", "kwargs"), [
    ("labels", "p,y\n0.2,0\n0.3,\n0.7,1\n", {}),
    ("sample_weight", "p,y,w\n0.2,0,1\n0.3,1,\n0.7,1,NaN\n", {"sample_weight": "w"}),
])
def test_engine_memory_words_missing_labels_and_weights_as_the_lazy_engines(tmp_path, role, body, kwargs):
    from veracity.sources._api import column, read_path

    path = tmp_path / "rows.csv"
    path.write_text(body)
    name = "y" if role == "labels" else "w"
    with pytest.raises(vc.VeracityError) as lazy:
        vc.audit(str(path), score="p", label="y", **kwargs)
    with pytest.raises(vc.VeracityError) as memory:
        column(read_path(path), name, path=path, role=role)
    assert "first at data row 2;" in str(memory.value)
    assert _without_row(str(memory.value)) == str(lazy.value)


def test_engine_memory_cli_words_missing_scores_as_duckdb(tmp_path, capsys):
    from veracity.cli import main

    path = tmp_path / "rows.csv"
    path.write_text("p,y\n0.2,0\n,1\n0.7,1\nNaN,0\n0.4,1\n")
    said = {}
    for engine in ("memory", "duckdb"):
        assert main(["audit", str(path), "--score", "p", "--label", "y", "--engine", engine]) == 2
        said[engine] = capsys.readouterr().err.strip()
    assert "column 'p' (scores) has 2 missing/NaN and 0 infinite values of 5 rows" in said["duckdb"]
    # the command line names the first such row on every engine (DuckDB: one streamed pass after the error)
    assert said["memory"] == said["duckdb"] and "first at data row 2;" in said["duckdb"]


# ---------------------------------------------------------------------------------------------
# further silent disagreements between backends
# ---------------------------------------------------------------------------------------------
def _ns_frame():
    rng = np.random.default_rng(9)
    n = 240
    p = np.round(rng.random(n), 2)
    y = (rng.random(n) < p).astype(np.int64)
    day = rng.integers(0, 2, n)
    tick = rng.integers(0, 2, n)  # keys 1 ns apart: distinct slices
    t = pd.Timestamp("2024-01-01") + pd.to_timedelta(day, unit="D") + pd.to_timedelta(tick, unit="ns")
    return pd.DataFrame({"p": p, "y": y, "t": t}), p, y, day * 2 + tick


@pytest.mark.parametrize("form", ["pandas", "polars", "pyarrow", "polars-lazy", "duckdb", "dask"])
def test_nanosecond_keys_stay_distinct_slices(form, tmp_path, threads):
    """Before: lazy polars dropped the rows of every key 1 ns after another (keys collided as
    microsecond datetimes: n 134 of 300), and in-memory frames merged them into one slice."""
    df, p, y, code = _ns_frame()
    got = vc.audit(_forms(df, tmp_path)[form](), score="p", label="y", by="t")
    assert got.n == len(df)
    assert sorted(got.groups) == ["2024-01-01 00:00:00", "2024-01-01 00:00:00.000000001",
                                  "2024-01-02 00:00:00", "2024-01-02 00:00:00.000000001"]
    for i, name in enumerate(sorted(got.groups)):
        want = vc.audit(p[code == i], y[code == i])
        assert got.groups[name].n == want.n
        assert got.groups[name].ece == pytest.approx(want.ece, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("form", ["polars-lazy", "duckdb", "dask"])
def test_subnormal_weights_on_lazy_frames(form, tmp_path, threads):
    """Before: weights below 2.2e-308 raised OverflowError (math range error) on lazy frames; the
    array form rescales them by a power of two."""
    w = W * 1e-310
    p = np.round(RNG.random(N), 2)
    want = vc.audit(p, Y, sample_weight=w)
    got = vc.audit(_forms(pd.DataFrame({"p": p, "y": Y, "w": w}), tmp_path)[form](), score="p", label="y",
                   sample_weight="w")
    assert got.ece == pytest.approx(want.ece, rel=1e-12)
    assert got.auc == pytest.approx(want.auc, rel=1e-12)


def test_an_empty_file_is_named_alike_on_every_engine(tmp_path):
    """Before: DuckDB read an empty CSV as one column "column0" ("column 'p' not found ...")."""
    from veracity.sources._api import read_path

    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(vc.VeracityError) as lazy:
        vc.audit(str(empty), score="p", label="y")
    with pytest.raises(vc.VeracityError) as memory:
        read_path(str(empty), ["p", "y"])
    assert str(lazy.value) == str(memory.value) == f"{empty} is empty; it has no header and no rows"


@pytest.mark.parametrize("form", ["pandas", "polars-lazy", "duckdb", "dask"])
def test_text_that_is_not_numbers_gets_no_decimal_hint(form, tmp_path, threads):
    df = pd.DataFrame({"p": ["a", "b"] * 5, "y": [0, 1] * 5})
    with pytest.raises(vc.VeracityError) as err:
        vc.audit(_forms(df, tmp_path)[form](), score="p", label="y")
    assert str(err.value) == ("column 'p' (scores) must be numeric, got String; convert the column to numbers; "
                              "values such as 'a' are not numbers")


def test_dask_slices_by_a_categorical_column_without_a_pandas_warning(threads):
    """Before: pandas' FutureWarning "The default of observed=False is deprecated" on every Dask audit
    by a categorical column (an error under filterwarnings=error)."""
    rng = np.random.default_rng(4)
    p = rng.random(200)
    y = (rng.random(200) < p).astype(np.int64)
    g = pd.Categorical(rng.choice(["x", "y"], 200), categories=["x", "y", "z"])
    got = vc.audit(_dask(pd.DataFrame({"p": p, "y": y, "g": g})), score="p", label="y", by="g")
    want = vc.audit(p, y, by={"g": np.asarray(g)})
    assert sorted(got.groups) == sorted(want.groups) == ["x", "y"]
    for k in want.groups:
        assert got.groups[k].ece == pytest.approx(want.groups[k].ece, rel=1e-12)


@pytest.mark.parametrize("threshold", ["a", "0.5", True])
@pytest.mark.parametrize("call", ["audit", "accuracy"])
def test_a_lazy_frame_checks_threshold_as_the_array_form(threshold, call):
    """Before: a lazy frame ran float(threshold): "a" was a raw ValueError, "0.5" and True were
    accepted (as 0.5 and 1.0) where the array form refuses them."""
    fn = getattr(vc, call)
    with pytest.raises(vc.VeracityError) as array:
        fn(np.array([0.2, 0.8] * 5), np.array([0, 1] * 5), threshold=threshold)
    frame = pl.DataFrame({"p": [0.2, 0.8] * 5, "y": [0, 1] * 5}).lazy()
    with pytest.raises(vc.VeracityError) as lazy:
        fn(frame, score="p", label="y", threshold=threshold)
    assert str(lazy.value) == str(array.value)
