"""Round 5: hostile frames and sources — the same data gives the same numbers, or the same one-line
refusal, on every backend.

Each test below failed before its fix (the old behaviour is in its docstring).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import veracity as vc

pl = pytest.importorskip("polars")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
duckdb = pytest.importorskip("duckdb")

RNG = np.random.default_rng(20261203)
N = 120
P = np.round(RNG.random(N), 4)
Y = (RNG.random(N) < P).astype(np.int64)
NOISE = np.round(RNG.random(N), 4)


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # narwhals/Dask notices, not the subject here
        return fn(*args, **kwargs)


def _metrics(result) -> dict:
    return result.to_dict()["metrics"]


def _same(got: dict, want: dict) -> None:
    assert got.keys() == want.keys()
    for k in want:
        if isinstance(want[k], float) and np.isnan(want[k]):
            assert got[k] is None or np.isnan(got[k]), k  # (JSON writes NaN as null)
        else:
            assert got[k] == pytest.approx(want[k], abs=1e-12, rel=0), k


# -- 1. column names that differ only by case --------------------------------------------------------------
def test_duckdb_relation_with_names_differing_by_case_reads_the_named_column():
    """Before: a DuckDB relation with columns "Score" and "score" (a SELECT may hold both) read "Score"
    for score="score" — DuckDB's binder is case-insensitive and took the first: a silent wrong audit."""
    con = duckdb.connect()
    con.register("_f", pd.DataFrame({"a": NOISE, "b": P, "y": Y}))
    rel = con.sql('SELECT a AS "Score", b AS "score", y FROM _f')
    assert rel.columns == ["Score", "score", "y"]
    _same(_metrics(_quiet(vc.audit, rel, score="score", label="y")), _metrics(vc.audit(P, Y)))
    _same(_metrics(_quiet(vc.audit, rel, score="Score", label="y")), _metrics(vc.audit(NOISE, Y)))
    assert _quiet(vc.brier, rel, score="score", label="y") == pytest.approx(vc.brier(P, Y), abs=1e-12)


@pytest.mark.parametrize("kind", ["parquet", "csv"])
def test_file_with_names_differing_by_case_reads_the_named_column(tmp_path, kind):
    """Before: a Parquet/CSV file with columns "Score" and "score" read through DuckDB said
    "column 'score' not found; available columns: Score, score_1, y" (DuckDB renamed the second),
    while pandas, polars, pyarrow, Dask and ``--engine memory`` audited the column named."""
    df = pd.DataFrame({"Score": NOISE, "score": P, "y": Y})
    path = tmp_path / f"c.{kind}"
    df.to_parquet(path, index=False) if kind == "parquet" else df.to_csv(path, index=False)
    for score, p in (("score", P), ("Score", NOISE)):
        want = _metrics(vc.audit(p, Y))
        _same(_metrics(_quiet(vc.audit, str(path), score=score, label="y")), want)
        _same(_metrics(vc.audit(df, score=score, label="y")), want)


# -- 2. DECIMAL / NUMERIC columns ---------------------------------------------------------------------------
def _decimal_frames(tmp_path):
    """One table of DECIMAL scores (on bin edges: tenths), DECIMAL weights and DECIMAL 0/1 labels on
    every frame backend."""
    from decimal import Decimal

    p = np.round(RNG.random(N), 1)
    y = (RNG.random(N) < p).astype(np.int64)
    w = np.round(RNG.uniform(0.5, 2.0, N), 3)
    table = pa.table({
        "p": pa.array([Decimal(f"{v:.4f}") for v in p], pa.decimal128(5, 4)),
        "y": pa.array([Decimal(int(v)) for v in y], pa.decimal128(1, 0)),
        "w": pa.array([Decimal(f"{v:.3f}") for v in w], pa.decimal128(6, 3)),
    })
    pq.write_table(table, tmp_path / "d.parquet")
    frames = {
        "pyarrow": table, "pandas-object": table.to_pandas(), "pandas-arrow": table.to_pandas(types_mapper=pd.ArrowDtype),
        "polars": pl.from_arrow(table), "polars-lazy": pl.from_arrow(table).lazy(),
        "duckdb": duckdb.connect().from_arrow(table), "parquet": str(tmp_path / "d.parquet"),
    }
    try:
        import dask.dataframe as dd
    except ImportError:  # pragma: no cover - dask is an optional extra
        pass
    else:
        frames["dask"] = dd.read_parquet(str(tmp_path / "d.parquet"))
    return p, y, w, frames


@pytest.mark.xdist_group("dask")  # loops over Dask too: the engines' one worker
def test_decimal_columns_are_read_as_their_nearest_floats_on_every_backend(tmp_path):
    """Before: a DECIMAL(5,4) probability column (pyarrow decimal128, pandas Decimal objects, DuckDB DECIMAL,
    polars Decimal, Parquet) was refused by the frame form ("cast it to a float first", or "must be numeric,
    got Object"), while the array form, a CSV of the same numbers and the SQL route (vc.audit(con,
    table=...)) audit it. Now every frame reads each decimal as its nearest float64 — exactly: pyarrow's
    own cast is one ulp off for a third of these values, which would move a score on a bin edge."""
    p, y, w, frames = _decimal_frames(tmp_path)
    want = _metrics(vc.audit(p, y, bins=10))
    want_w = _metrics(vc.audit(p, y, sample_weight=w, bins=10))
    for name, frame in frames.items():
        _same(_metrics(_quiet(vc.audit, frame, score="p", label="y", bins=10)), want)
        _same(_metrics(_quiet(vc.audit, frame, score="p", label="y", sample_weight="w", bins=10)), want_w)
        got = _quiet(vc.reliability, frame, score="p", label="y", bins=10)
        assert [r.n for r in got.rows] == [r.n for r in vc.reliability(p, y, bins=10).rows], name


def test_decimal_frame_threshold_table_matches_the_array_form(tmp_path):
    """Before: vc.threshold_table of a pyarrow/pandas/polars frame with a DECIMAL score column was refused."""
    p, y, _, frames = _decimal_frames(tmp_path)
    want = vc.threshold_table(p, y, [0.3, 0.5]).to_dict()["table"]
    for name in ("pyarrow", "pandas-object", "pandas-arrow", "polars"):
        got = vc.threshold_table(frames[name], thresholds=[0.3, 0.5], score="p", label="y").to_dict()["table"]
        assert got == want, name


def test_exact_floats_is_the_nearest_double():
    """pyarrow's decimal128 -> float64 cast is one ulp off (0.3 DECIMAL(5,4) -> 0.30000000000000004 for some
    values); the frame form's conversion is the nearest double, as float(Decimal) is."""
    from decimal import Decimal

    from veracity.sources._source import exact_floats

    values = [Decimal(int(i)).scaleb(-4) for i in RNG.integers(0, 10**4, 5000)]
    column = pa.chunked_array([pa.array(values, pa.decimal128(5, 4))])
    assert (column.cast(pa.float64()).to_numpy() != np.array([float(v) for v in values])).any()  # the trap
    np.testing.assert_array_equal(exact_floats(column), np.array([float(v) for v in values]))


# -- 3. categorical / dictionary-encoded numbers -------------------------------------------------------------
def _every_frame(df: pd.DataFrame, tmp_path) -> dict[str, object]:
    """``df`` on every in-process backend and as a Parquet file (Dask where installed)."""
    con = duckdb.connect()
    con.register("_f", df)
    out: dict[str, object] = {
        "pandas": df, "polars": pl.from_pandas(df), "polars-lazy": pl.from_pandas(df).lazy(),
        "pyarrow": pa.Table.from_pandas(df, preserve_index=False), "duckdb": con.sql("SELECT * FROM _f"),
    }
    df.to_parquet(tmp_path / "f.parquet", index=False)
    out["parquet"] = str(tmp_path / "f.parquet")
    try:
        import dask.dataframe as dd
    except ImportError:  # pragma: no cover - dask is an optional extra
        return out
    out["dask"] = dd.from_pandas(df, npartitions=2)
    return out


@pytest.mark.xdist_group("dask")  # loops over Dask too: the engines' one worker
@pytest.mark.parametrize("column", ["y", "p", "yb"])
def test_categorical_numbers_are_read_as_their_values_on_every_backend(tmp_path, column):
    """Before: 0/1 labels (or float scores, or True/False labels) held as a pandas category, an Arrow
    dictionary or a Dask category were refused ("must hold 0/1 numbers or booleans, got Categorical") on
    pandas, pyarrow and Dask, while polars, DuckDB and the Parquet file of the same frame audited them."""
    df = pd.DataFrame({"p": P, "y": Y, "yb": Y.astype(bool)})
    df[column] = pd.Categorical(df[column])
    want = _metrics(vc.audit(P, Y))
    label = "yb" if column == "yb" else "y"
    for name, frame in _every_frame(df, tmp_path).items():
        _same(_metrics(_quiet(vc.audit, frame, score="p", label=label)), want)
        assert _quiet(vc.ece, frame, score="p", label=label) == pytest.approx(vc.ece(P, Y), abs=1e-12), name


def test_a_missing_categorical_label_is_refused_not_read_as_a_neighbour():
    """An Arrow dictionary's ``to_numpy()`` hands back a neighbouring value for a missing entry (1 here):
    a missing categorical label must be refused as missing, as on every other backend."""
    labels = pa.array(np.where(np.arange(N) == 5, None, Y).tolist()).dictionary_encode()
    table = pa.table({"p": P, "y": labels})
    with pytest.raises(vc.VeracityError, match=r"column 'y' \(labels\) has 1 missing value \(None/NaN\)"):
        _quiet(vc.audit, table, score="p", label="y")


# -- 4. a column with no value at all ------------------------------------------------------------------------
@pytest.mark.xdist_group("dask")  # loops over Dask too: the engines' one worker
@pytest.mark.parametrize("role, kwargs, match", [
    ("y", {}, r"column 'y' \(labels\) has 120 missing values \(None/NaN\) of 120 rows; drop or fill those rows first"),
    ("p", {}, r"column 'p' \(scores\) has 120 missing/NaN and 0 infinite values of 120 rows"),
    ("w", {"sample_weight": "w"}, r"column 'w' \(sample_weight\) has 120 missing, NaN or infinite values of 120 rows"),
])
def test_a_column_of_nothing_but_missing_values_is_one_refusal_on_every_backend(tmp_path, role, kwargs, match):
    """Before: a column holding only missing values was refused by the type its reader guessed —
    "got String" (pandas None, polars, Dask, a CSV's empty column), "got Unknown" (Arrow's null type,
    DuckDB, Parquet) — or, typed as numbers, as missing: four messages for one table."""
    df = pd.DataFrame({"p": P, "y": Y, "w": np.ones(N)})
    df[role] = [None] * N
    frames = _every_frame(df, tmp_path)
    df.to_csv(tmp_path / "f.csv", index=False)
    frames["csv"] = str(tmp_path / "f.csv")
    messages = set()
    for name, frame in frames.items():
        with pytest.raises(vc.VeracityError, match=match) as info:
            _quiet(vc.audit, frame, score="p", label="y", **kwargs)
        messages.add(str(info.value))
    assert len(messages) == 1, messages


# -- 5. Parquet globs whose files differ ------------------------------------------------------------------
def _two_files(tmp_path, second: pd.DataFrame) -> str:
    pd.DataFrame({"p": P[:60], "y": Y[:60], "w": np.ones(60)}).to_parquet(tmp_path / "a.parquet", index=False)
    second.to_parquet(tmp_path / "b.parquet", index=False)
    return str(tmp_path / "*.parquet")


def test_parquet_glob_with_a_column_spelt_by_another_case_is_refused(tmp_path):
    """Before: a glob of a.parquet (column "p") and b.parquet (column "P") was read through DuckDB with
    b's "P" as "p" (its names are case-insensitive), exit 0, while ``--engine memory`` (pyarrow, by name)
    read b's scores as missing."""
    from veracity.sources._api import read_path

    glob = _two_files(tmp_path, pd.DataFrame({"P": P[60:], "y": Y[60:], "w": np.ones(60)}))
    for call in (lambda: vc.audit(glob, score="p", label="y"), lambda: read_path(glob, ["p", "y"])):
        with pytest.raises(vc.VeracityError, match=r"a\.parquet has a column 'p' where .*b\.parquet has 'P'") as info:
            _quiet(call)
        assert "\n" not in str(info.value)


def test_parquet_glob_where_a_file_lacks_the_weight_column_names_it(tmp_path):
    """Before: "could not read ... as PARQUET: DuckDB InvalidInput error; check that it is a valid parquet
    file" — both files are valid; one lacks the weight column. Now the contract names the column."""
    glob = _two_files(tmp_path, pd.DataFrame({"p": P[60:], "y": Y[60:]}))
    with pytest.raises(vc.VeracityError, match=r"column 'w' \(sample_weight\) has 60 missing"):
        _quiet(vc.audit, glob, score="p", label="y", sample_weight="w")
    _same(_metrics(_quiet(vc.audit, glob, score="p", label="y")), _metrics(vc.audit(P, Y)))


# -- 6. Spark ----------------------------------------------------------------------------------------------
def test_spark_reads_decimals_and_names_that_differ_by_case(spark, tmp_path):
    """Before, on Spark: a DECIMAL(5,4) score column was refused ("cast it to a float first"), and
    ``--engine spark`` (open_frame) of a Parquet file with columns Score and score raised Spark's
    AnalysisException [COLUMN_ALREADY_EXISTS] (a traceback), of such a CSV said "column 'score' not
    found; available columns: Score0, score1, y" (Spark renamed both)."""
    from decimal import Decimal

    from veracity.sources._api import open_frame

    p = np.round(P, 1)
    table = pa.table({"p": pa.array([Decimal(f"{v:.4f}") for v in p], pa.decimal128(5, 4)), "y": Y})
    pq.write_table(table, tmp_path / "d.parquet")
    _same(_metrics(vc.audit(spark.read.parquet(str(tmp_path / "d.parquet")), score="p", label="y", bins=10)),
          _metrics(vc.audit(p, Y, bins=10)))
    df = pd.DataFrame({"Score": NOISE, "score": P, "y": Y})
    df.to_parquet(tmp_path / "c.parquet", index=False)
    df.to_csv(tmp_path / "c.csv", index=False)
    for name in ("c.parquet", "c.csv"):
        frame = open_frame(str(tmp_path / name), "spark")
        _same(_metrics(vc.audit(frame, score="score", label="y")), _metrics(vc.audit(P, Y)))
        _same(_metrics(vc.audit(frame, score="Score", label="y")), _metrics(vc.audit(NOISE, Y)))


# -- 7. the command line's engines on the same file --------------------------------------------------------
@pytest.mark.parametrize("engine", ["memory", "duckdb", "dask"])
@pytest.mark.parametrize("kind", ["decimal", "dictionary"])
def test_cli_engines_agree_on_decimal_and_dictionary_parquet_columns(tmp_path, cli, engine, kind):
    """Before: ``--engine memory`` refused a DECIMAL score column ("must be numeric scores, found object
    values such as Decimal('0.5000')") and ``--engine dask`` a dictionary-encoded label column (Dask reads
    it as a category whose categories are not known yet: "got Categorical"), while ``--engine duckdb``
    audited both files."""
    import json
    from decimal import Decimal

    p = np.round(P, 1)
    path = tmp_path / "f.parquet"
    if kind == "decimal":
        pq.write_table(pa.table({"p": pa.array([Decimal(f"{v:.4f}") for v in p], pa.decimal128(5, 4)), "y": Y}), path)
    else:
        pd.DataFrame({"p": p, "y": pd.Categorical(Y)}).to_parquet(path, index=False)
    result = cli(["audit", str(path), "--score", "p", "--label", "y", "--engine", engine, "--json", "-"])
    assert result.code == 0, result.err
    _same(json.loads(result.out)["metrics"], _metrics(vc.audit(p, Y)))


def test_parquet_file_with_an_empty_name_beside_names_differing_by_case(tmp_path):
    """The file's names are put back by position only where DuckDB renamed one (a case clash); an empty
    name keeps DuckDB's (no lookup reaches it), never a refusal of the whole file."""
    table = pa.table({"": NOISE, "Score": NOISE, "score": P, "y": Y})
    pq.write_table(table, tmp_path / "e.parquet")
    _same(_metrics(_quiet(vc.audit, str(tmp_path / "e.parquet"), score="score", label="y")), _metrics(vc.audit(P, Y)))
    pq.write_table(table.drop_columns(["Score"]), tmp_path / "f.parquet")
    _same(_metrics(_quiet(vc.audit, str(tmp_path / "f.parquet"), score="score", label="y")), _metrics(vc.audit(P, Y)))
