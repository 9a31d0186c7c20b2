"""A ``pos_label`` that misses a text label only by NUL characters at the end gets the same advice on every
route (:func:`veracity.core._validation.nul_hint`).

Before, on labels 'a' and 'b\\x00', ``veracity audit f.parquet --score p --label y --pos-label b`` on the
memory engine added ". The label 'b\\x00' differs from it only by NUL characters at the end: strip them ...",
while ``--engine duckdb``, the Python frames (pandas, polars, a DuckDB relation) and SQL tables (SQLite,
DuckDB) printed the refusal without it: one refusal, advice by route.
"""

import sqlite3

import numpy as np
import pytest

import veracity as vc

duckdb = pytest.importorskip("duckdb")
pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")

P = [0.1, 0.9, 0.4, 0.6, 0.3, 0.8]
ENDS_IN_NUL = ["a", "b\x00", "a", "b\x00", "a", "b\x00"]
PLAIN = ["a", "b", "a", "b", "a", "b"]

STRIP = (". The label 'b\\x00' differs from it only by NUL characters at the end: strip them from the labels "
         "(e.g. labels.str.rstrip('\\x00')) and pass the text without them")
PASS_B = ". It differs from the label 'b' only by NUL characters at the end: pass 'b'"

IN_COLUMN = "is not among the values of column 'y' (labels)"
#: (labels, pos_label) -> the line on a column route (arrays say "the label values")
CASES = {
    "labels end in NUL": (ENDS_IN_NUL, "b",
                          f"pos_label='b' {IN_COLUMN} ('a', 'b\\x00'); pass one of them{STRIP}"),
    "pos_label ends in NUL": (PLAIN, "b\x00",
                              f"pos_label='b\\x00' {IN_COLUMN} ('a', 'b'); pass one of them{PASS_B}"),
}


def _relation(labels):
    con = duckdb.connect()
    con.register("f", pd.DataFrame({"p": P, "y": labels}))
    return con.sql("SELECT * FROM f")


def _table(con, labels, kind: str):
    con.execute(f"CREATE TABLE t (p {kind}, y VARCHAR)")
    con.executemany("INSERT INTO t VALUES (?, ?)", list(zip(P, labels, strict=True)))
    return con


ROUTES = {
    "pandas": lambda labels, pos: vc.audit(pd.DataFrame({"p": P, "y": labels}), score="p", label="y",
                                           pos_label=pos),
    "polars": lambda labels, pos: vc.audit(pl.DataFrame({"p": P, "y": labels}), score="p", label="y",
                                           pos_label=pos),
    "duckdb relation": lambda labels, pos: vc.audit(_relation(labels), score="p", label="y", pos_label=pos),
    "sqlite table": lambda labels, pos: vc.audit(_table(sqlite3.connect(":memory:"), labels, "REAL"),
                                                 table="t", score="p", label="y", pos_label=pos),
    "duckdb table": lambda labels, pos: vc.audit(_table(duckdb.connect(), labels, "DOUBLE"), table="t",
                                                 score="p", label="y", pos_label=pos),
}


@pytest.mark.parametrize("case", CASES)
def test_arrays_give_the_advice(error_line, case):
    labels, pos, line = CASES[case]
    expected = line.replace(IN_COLUMN, "is not among the label values")
    line = error_line(lambda: vc.audit(np.array(P), np.array(labels, dtype=object), pos_label=pos))
    assert line == expected


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("case", CASES)
def test_every_column_route_gives_the_same_line(error_line, route, case):
    labels, pos, line = CASES[case]
    assert error_line(lambda: ROUTES[route](labels, pos)) == line


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
@pytest.mark.parametrize("command", ["audit", "threshold"])
def test_the_command_line_gives_the_same_line_on_either_engine(tmp_path, cli, refused, engine, command):
    path = tmp_path / "f.parquet"
    pd.DataFrame({"p": P, "y": ENDS_IN_NUL}).to_parquet(path)
    engine_args = ["--engine", engine] if command == "audit" else []
    result = cli([command, path, "--score", "p", "--label", "y", "--pos-label", "b", *engine_args])
    refused(result)
    assert result.err == (f"veracity {command}: input error: --pos-label b {IN_COLUMN} ('a', 'b\\x00'); "
                          f"pass one of them{STRIP}\n")


def test_labels_with_pos_label_names_the_labels_as_told(error_line):
    """The command line names its column through ``where=`` (before: by rebuilding the array message)."""
    from veracity.core._validation import labels_with_pos_label

    column = "the values of column 'y' (labels)"
    labels = np.array(ENDS_IN_NUL, dtype=object)
    assert error_line(lambda: labels_with_pos_label(labels, "b", where=column)) \
        == f"pos_label='b' {IN_COLUMN} ('a', 'b\\x00'); pass one of them{STRIP}"
    assert error_line(lambda: labels_with_pos_label(["no", "yes"], "maybe")) \
        == "pos_label='maybe' is not among the label values ('no', 'yes'); pass one of them"


def test_the_monitor_store_gives_the_hint_too(tmp_path):
    """The store's outcomes refuse a label that differs from pos_label only by trailing NULs with the hint
    every other route gives (session 32)."""
    import pyarrow as pa

    from veracity.monitoring import MonitorStore

    store = MonitorStore(tmp_path / "m.duckdb")
    store.init()
    with pytest.raises(vc.VeracityError) as err:
        store.outcomes(pa.table({"id": [1, 2], "y": ["a", "b\x00"]}), id="id", label="y", pos_label="b")
    assert "differs from it only by NUL characters at the end" in str(err.value), str(err.value)
