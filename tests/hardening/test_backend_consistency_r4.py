"""Round 4: silent disagreements between backends found by a differential harness.

The same table fed to the array form, pandas, polars (eager and lazy), pyarrow, DuckDB
(relations and CSV files) and Dask must give the same numbers, the same slices and the same
errors. Each test below is one disagreement that was found, with the backends that differed.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import veracity as vc

pl = pytest.importorskip("polars")
pa = pytest.importorskip("pyarrow")
duckdb = pytest.importorskip("duckdb")

RNG = np.random.default_rng(20261203)
N = 90
P = RNG.random(N)
Y = (RNG.random(N) < P).astype(np.int64)


def _duckdb_relation(df: pd.DataFrame):
    con = duckdb.connect()
    con.register("_f", df)
    con.execute("CREATE TABLE t AS SELECT * FROM _f")
    return con.table("t")


def _frames(df: pd.DataFrame) -> dict[str, object]:
    """``df`` on every in-process backend (Dask where installed)."""
    out: dict[str, object] = {
        "pandas": df, "polars": pl.from_pandas(df), "polars-lazy": pl.from_pandas(df).lazy(),
        "arrow": pa.Table.from_pandas(df, preserve_index=False), "duckdb": _duckdb_relation(df),
    }
    try:
        import dask.dataframe as dd
    except ImportError:  # pragma: no cover - dask is an optional extra
        return out
    out["dask"] = dd.from_pandas(df, npartitions=2)
    return out


def _slices(result) -> dict[str, int]:
    return {k: g.n for k, g in result.groups.items()}


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # narwhals/Dask notices, not the subject here
        return fn(*args, **kwargs)


# -- 1. a missing value in a pandas nullable label column ------------------------------------------------
def test_missing_nullable_label_is_a_one_line_error_not_a_type_error():
    """Before: pandas' ``Int64`` labels with ``pd.NA`` raised ``TypeError: float() argument must be ...
    'NAType'`` from the contract's message (pandas' min of no value is ``pd.NA``, not None); every other
    backend said the labels are missing."""
    labels = pd.array(Y, dtype="Int64")
    labels[3] = pd.NA
    df = pd.DataFrame({"p": P, "y": labels})
    messages = set()
    for name, frame in _frames(df).items():
        for fn in (vc.audit, vc.ece, vc.reliability):
            with pytest.raises(vc.VeracityError, match=r"column 'y' \(labels\) has 1 missing value \(None/NaN\)") as info:
                _quiet(fn, frame, score="p", label="y")
            messages.add(str(info.value))
    assert len(messages) == 1, messages


# -- 2. pos_label="yes" on a boolean column --------------------------------------------------------------
@pytest.mark.parametrize("text", ["yes", "no", "t", "y"])
def test_pos_label_text_that_is_not_true_false_is_refused_on_a_boolean_column(text):
    """Before: every frame (and DuckDB/PostgreSQL tables) read ``pos_label="yes"`` on a boolean column as
    True, silently; the array form and the command line's memory engine refuse it."""
    df = pd.DataFrame({"p": P, "y": Y.astype(bool)})
    with pytest.raises(vc.VeracityError, match="is not among the label values"):
        vc.audit(P, Y.astype(bool), pos_label=text)
    for name, frame in _frames(df).items():
        with pytest.raises(vc.VeracityError, match=rf"^pos_label='{text}' is not among the values of column 'y'"):
            _quiet(vc.audit, frame, score="p", label="y", pos_label=text)


def test_pos_label_yes_on_a_true_false_csv_is_refused_by_every_engine(tmp_path, cli, refused):
    path = tmp_path / "s.csv"
    path.write_text("p,y\n" + "".join(f"{p},{str(bool(y)).lower()}\n" for p, y in zip(P, Y)))
    for engine in ("memory", "duckdb"):
        refused(cli(["audit", path, "--score", "p", "--label", "y", "--pos-label", "yes", "--engine", engine]),
                r"--pos-label")
        ok = cli(["audit", path, "--score", "p", "--label", "y", "--pos-label", "true", "--engine", engine,
                  "--json", "-"])
        assert ok.code == 0, ok.err


# -- 3. a CSV label column mixing 1/0 and true/false -----------------------------------------------------
def test_csv_labels_mixing_1_0_and_true_false_are_booleans_on_both_engines(tmp_path):
    """Before: the memory engine (pyarrow) read ``1``/``0``/``true``/``false`` as booleans; DuckDB's sniffer
    kept the column as text and the audit asked for pos_label."""
    spelled = np.where(Y == 1, np.where(np.arange(N) % 2, "1", "true"), np.where(np.arange(N) % 2, "0", "false"))
    path = tmp_path / "mixed.csv"
    path.write_text("p,y,g\n" + "".join(f"{p},{y},{g}\n" for p, y, g in zip(P, spelled, spelled)))
    from veracity.sources._api import read_path

    memory = vc.audit(read_path(path), score="p", label="y", by="g", min_count=1)
    lazy = vc.audit(str(path), score="p", label="y", by="g", min_count=1)
    expected = vc.audit(P, Y, min_count=1)
    assert lazy.ece == pytest.approx(expected.ece, rel=1e-12) and lazy.auc == expected.auc
    assert memory.ece == pytest.approx(lazy.ece, rel=1e-12)
    assert set(lazy.groups) == set(memory.groups) == {"False", "True"}


def test_csv_mixed_spellings_then_other_text_is_refused_in_one_line(tmp_path):
    path = tmp_path / "mixed.csv"
    rows = [f"{p},{'1' if y else 'false'}" for p, y in zip(P, Y)] + ["0.5,maybe"]
    path.write_text("p,y\n" + "\n".join(rows) + "\n")
    with pytest.raises(vc.VeracityError):
        vc.audit(str(path), score="p", label="y")


# -- 4. the slice cap keeps the missing key ----------------------------------------------------------------
def test_capped_slices_keep_a_kept_missing_key_on_lazy_frames():
    """Before: with ``max_groups`` and the missing key among the largest slices, lazy frames (polars lazy,
    DuckDB, Dask) pooled its rows into "(other k values)" and dropped the missing key's slice (now "(missing)")."""
    keys = np.array(["a", "b", "c", "d", "e"], dtype=object)[np.arange(N) % 5]
    keys[: N // 3] = None  # the largest slice
    df = pd.DataFrame({"p": P, "y": Y, "seg": keys})
    expected = _slices(vc.audit(P, Y, by=keys, min_count=1, max_groups=3))
    assert "(missing)" in expected
    for name, frame in _frames(df).items():
        got = _quiet(vc.audit, frame, score="p", label="y", by="seg", min_count=1, max_groups=3)
        assert _slices(got) == expected, name


def test_capped_slices_keep_a_kept_missing_key_multiclass():
    probs = RNG.dirichlet([1.0, 1.0, 1.0], N)
    keys = np.array(["a", "b", "c", "d"], dtype=object)[np.arange(N) % 4]
    keys[: N // 3] = None
    df = pd.DataFrame({"p0": probs[:, 0], "p1": probs[:, 1], "p2": probs[:, 2], "y": np.arange(N) % 3, "seg": keys})
    expected = _slices(vc.audit(df, score=["p0", "p1", "p2"], label="y", by="seg", min_count=1, max_groups=2))
    assert "(missing)" in expected
    lazy = _slices(vc.audit(pl.from_pandas(df).lazy(), score=["p0", "p1", "p2"], label="y", by="seg", min_count=1,
                            max_groups=2))
    assert lazy == expected


def test_capped_float_slices_name_a_missing_key_as_pandas_on_dask():
    """Before: Dask (where NaN is missing, as in pandas) named a kept missing float key "nan" (pandas:
    "None"); both name it "(missing)" now."""
    pytest.importorskip("dask")
    keys = (np.arange(N) % 4).astype(float)
    keys[: N // 3] = np.nan
    df = pd.DataFrame({"p": P, "y": Y, "seg": keys})
    expected = _slices(vc.audit(df, score="p", label="y", by="seg", min_count=1, max_groups=3))
    assert "(missing)" in expected
    assert _slices(_quiet(vc.audit, _frames(df)["dask"], score="p", label="y", by="seg", min_count=1,
                          max_groups=3)) == expected


# -- 5. integer slice keys with missing values -------------------------------------------------------------
def test_nullable_integer_slice_keys_are_named_as_integers_everywhere():
    """Before: pandas / polars / pyarrow / Dask named the slices of an integer column with a missing
    value "0.0", "1.0" (the column came out of numpy as floats); DuckDB, polars lazy, SQL "0", "1"."""
    keys = pd.array(np.arange(N) % 3, dtype="Int64")
    keys[::7] = pd.NA
    df = pd.DataFrame({"p": P, "y": Y, "seg": keys})
    seen = {name: sorted(_slices(_quiet(vc.audit, frame, score="p", label="y", by="seg", min_count=1)))
            for name, frame in _frames(df).items()}
    assert all(names == ["(missing)", "0", "1", "2"] for names in seen.values()), seen  # sorted as text


# -- 6. vc.mce's min_count on lazy frames -----------------------------------------------------------------
@pytest.mark.parametrize("min_count", [None, 0, 5, 30])
def test_mce_honours_min_count_on_lazy_frames(min_count):
    """Before: a lazy frame's vc.mce took the maximum over every non-empty bin (ignoring the default
    min_count=20: a number where the array form says NaN) and refused ``min_count=``."""
    options = {} if min_count is None else {"min_count": min_count}
    expected = vc.mce(P, Y, **options)
    df = pd.DataFrame({"p": P, "y": Y})
    for name, frame in _frames(df).items():
        got = _quiet(vc.mce, frame, score="p", label="y", **options)
        if np.isnan(expected):
            assert np.isnan(got), name
        else:
            assert got == pytest.approx(expected, rel=1e-12), name


def test_mce_refuses_a_bad_min_count_on_lazy_frames_as_in_memory():
    frame = pl.DataFrame({"p": P, "y": Y}).lazy()
    for bad in (-1, 2.5, True):
        with pytest.raises(vc.VeracityError, match="min_count must be a whole number"):
            vc.mce(P, Y, min_count=bad)
        with pytest.raises(vc.VeracityError, match="min_count must be a whole number"):
            vc.mce(frame, score="p", label="y", min_count=bad)


# -- 7. a true/false CSV column with empty cells ------------------------------------------------------------
def test_csv_true_false_column_with_empty_cells_reads_as_booleans_on_both_engines(tmp_path):
    """Before: DuckDB's engine kept a true/false column with an empty cell as text (the cell's NULL was
    taken for a spelling of its own): a label column was refused as text ("got String", not "missing"),
    and a slice column of them was text where the memory engine had booleans."""
    from veracity.sources._api import read_path

    path = tmp_path / "blank.csv"
    path.write_text("p,y,g\n0.1,True,1\n0.2,,0\n0.3,False,0\n0.6,True,0\n")
    for data in (str(path), read_path(path)):
        with pytest.raises(vc.VeracityError, match=r"column 'y' \(labels\) has 1 missing value \(None/NaN\)"):
            vc.audit(data, score="p", label="y")
    path = tmp_path / "blank_slices.csv"
    path.write_text("p,y,g\n0.1,1,True\n0.2,0,\n0.3,0,False\n0.6,1,True\n")
    memory = vc.audit(read_path(path), score="p", label="y", by="g", min_count=1)
    lazy = vc.audit(str(path), score="p", label="y", by="g", min_count=1)
    assert {k: g.n for k, g in lazy.groups.items()} == {k: g.n for k, g in memory.groups.items()} == {
        "False": 1, "True": 2, "(missing)": 1}


# -- 8. several slice columns --------------------------------------------------------------------------------
def test_audit_by_several_columns_is_a_one_line_error_on_every_frame():
    """Before: ``vc.audit(frame, by=["a", "b"])`` raised each backend's own exception (AttributeError on
    pandas, TypeError on polars, a Binder error on DuckDB, KeyError on Dask)."""
    df = pd.DataFrame({"p": P, "y": Y, "a": np.arange(N) % 2, "b": np.arange(N) % 3})
    for name, frame in _frames(df).items():
        with pytest.raises(vc.VeracityError, match=r"^by= names one column of the frame"):
            _quiet(vc.audit, frame, score="p", label="y", by=["a", "b"])


# -- 9. logits whose probability lies on a bin edge --------------------------------------------------------------
def edge_logits(bins: int = 15) -> tuple[np.ndarray, np.ndarray]:
    """Logits of the probabilities k/M and their neighbours one ulp away: their logistic lies on (or a
    rounding from) a bin edge, so the last bit of the sigmoid decides the bin."""
    edges = np.arange(bins + 1) / bins
    p = np.clip(np.concatenate([edges, np.nextafter(edges, 2), np.nextafter(edges, -1)]), 1e-300, 1 - 1e-16)
    s = np.log(p / (1 - p))
    y = (np.arange(s.size) % 3 == 0).astype(np.int64)
    return s, y


def test_logits_on_bin_edges_land_in_the_array_forms_bins_on_lazy_frames():
    """Before: lazy frames (polars lazy, DuckDB, CSV/Parquet files) turned a negative logit into a probability
    as exp(s)/(1 + exp(s)), the array form (scipy's expit) as 1/(1 + exp(-s)): a last-bit difference that
    moved scores on a bin edge into the neighbouring bin (ECE 0.39 against 0.35 at 10 bins). Dask, which
    calls expit, agreed with the arrays."""
    s, y = edge_logits()
    expected = vc.audit(s, y, score_type="logit", min_count=1)
    df = pd.DataFrame({"s": s, "y": y})
    for name, frame in _frames(df).items():
        got = _quiet(vc.audit, frame, score="s", label="y", score_type="logit", min_count=1)
        assert [r.count for r in got.table.rows] == [r.count for r in expected.table.rows], name
        assert got.ece == pytest.approx(expected.ece, rel=1e-12), name
        assert got.brier == pytest.approx(expected.brier, rel=1e-12), name


# -- 10. boolean and categorical slice keys -------------------------------------------------------------------
def test_capped_boolean_slices_are_named_as_python_names_them():
    """Before: with ``max_groups`` the lazy frames named a kept boolean slice "false" (the engines' cast to
    text) where the array form and every uncapped audit say "False"."""
    keys = pd.array(np.where(np.arange(N) % 7 == 0, None, np.arange(N) % 3 == 0), dtype="boolean")
    df = pd.DataFrame({"p": P, "y": Y, "seg": keys})
    expected = _slices(vc.audit(df, score="p", label="y", by="seg", min_count=1, max_groups=2))
    assert "False" in expected
    for name, frame in _frames(df).items():
        got = _quiet(vc.audit, frame, score="p", label="y", by="seg", min_count=1, max_groups=2)
        assert _slices(got) == expected, name


@pytest.mark.parametrize("cap", [None, 2])
def test_categorical_slice_keys_on_every_backend(cap):
    """Before: a categorical ``by=`` column (pandas ``category``, polars ``Categorical``, DuckDB ``ENUM``)
    crashed the exact AUC of polars lazy, DuckDB and Dask with a TypeError / IndexError from Arrow."""
    keys = pd.Categorical(np.array(["z", "a", None], dtype=object)[np.arange(N) % 3], categories=["z", "a", "unused"])
    df = pd.DataFrame({"p": P, "y": Y, "seg": keys})
    expected = vc.audit(df, score="p", label="y", by="seg", min_count=1, max_groups=cap)
    for name, frame in _frames(df).items():
        got = _quiet(vc.audit, frame, score="p", label="y", by="seg", min_count=1, max_groups=cap)
        assert _slices(got) == _slices(expected), name
        assert {k: g.auc for k, g in got.groups.items()} == {k: g.auc for k, g in expected.groups.items()}, name


def test_nested_columns_are_refused_in_one_line(tmp_path):
    # a list or struct column as slice key, label, role or feature ended in tracebacks
    # (ValueError, TypeError "unhashable dict", "truth value of an array is ambiguous")
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    from veracity.cli import main

    n = 40
    rng = np.random.default_rng(0)
    path = tmp_path / "nested.parquet"
    pq.write_table(pa.table({"p": rng.uniform(size=n), "y": rng.integers(0, 2, n), "lst": pa.array([[1, 2]] * n),
                             "nest": pa.array([{"a": 1}] * n)}), path)
    for argv in (["audit", str(path), "--score", "p", "--label", "y", "--by", "lst"],
                 ["audit", str(path), "--score", "p", "--label", "nest"],
                 ["audit", str(path), "--score", "p", "--label", "y", "--by", "nest", "--engine", "duckdb"],
                 ["segments", str(path), "--score", "p", "--label", "y", "--features", "nest"],
                 ["conformal", str(path), "--score", "p", "--label", "y", "--role-col", "lst"],
                 ["threshold", str(path), "--score", "p", "--label", "y", "--sample-weight", "lst"]):
        assert main(argv) == 2, argv
    keys = np.empty(n, dtype=object)
    keys[:] = [[1, 2]] * n
    frame = pd.DataFrame({"p": rng.uniform(size=n), "y": rng.integers(0, 2, n), "lst": list(keys)})
    for call in (lambda: vc.audit(frame["p"].to_numpy(), frame["y"].to_numpy(), by=keys),
                 lambda: vc.audit(frame, score="p", label="y", by="lst")):
        with pytest.raises(vc.VeracityError, match="slice keys must be plain values"):
            call()


@pytest.mark.parametrize("name, sep", [("t.tsv", "\t"), ("semi.csv", ";"), ("bar.csv", "|"), ("t.tsv.gz", "\t")])
def test_memory_reads_the_delimiters_duckdb_sniffs(tmp_path, capsys, name, sep):
    # the memory reader read a .tsv with commas ("available columns: 'score\tlabel'") and refused ';' files,
    # which the DuckDB engine audits
    import gzip
    import json

    from veracity.cli import main

    text = sep.join(["score", "label"]) + "\n" + "".join(
        f"{p}{sep}{y}\n" for p, y in [(0.2, 0), (0.7, 1), (0.4, 1), (0.9, 1), (0.1, 0)])
    path = tmp_path / name
    path.write_bytes(gzip.compress(text.encode()) if name.endswith(".gz") else text.encode())
    want = vc.ece([0.2, 0.7, 0.4, 0.9, 0.1], [0, 1, 1, 1, 0])
    for engine in ("memory", "duckdb"):
        assert main(["audit", str(path), "--engine", engine, "--json"]) == 0, capsys.readouterr().err
        assert json.loads(capsys.readouterr().out)["metrics"]["ece"] == pytest.approx(want, abs=1e-15), engine


def test_a_path_the_system_refuses_is_one_line_in_python():
    from veracity.sources._api import read_table

    with pytest.raises(vc.VeracityError, match="cannot read x+.*check the path"):
        read_table("x" * 5000 + ".csv")
    with pytest.raises(vc.VeracityError, match="cannot read x+.*check the path"):
        vc.audit("x" * 5000 + ".csv", score="p", label="y")  # the lazy route (DuckDB)
