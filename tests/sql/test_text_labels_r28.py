"""A label column of text reads the same in Python on every route (round 28): a table in its database
(``vc.audit(conn, table=...)``: DuckDB, sqlite3) and a frame (pandas, polars, Arrow, a DuckDB relation).

Before: the SQL route said "column 'y' (labels) holds text, not 0/1 numbers (values 'no', 'yes'); pass
pos_label= ..." and the frames "column 'y' (labels) must hold 0/1 numbers or booleans, got String; ...
or map the two classes to 0 and 1 first" (no value shown); sqlite3 refused a text column holding a missing
label as text, the frames and DuckDB as missing; and the missing labels' line named no count of rows.
"""

from __future__ import annotations

import sqlite3

import pandas as pd
import pytest

import veracity as vc

P = [0.2, 0.3, 0.6, 0.7, 0.4]


def _routes(labels: list, **options) -> dict:
    """``name -> call`` auditing the rows ``P``, ``labels`` on each route (``options``: ``pos_label=``)."""
    frame = pd.DataFrame({"p": P, "y": pd.Series(labels, dtype=object)})
    lite = sqlite3.connect(":memory:")
    frame.to_sql("t", lite, index=False)
    kw = {"score": "p", "label": "y", **options}
    routes = {
        "sqlite3": lambda: vc.audit(lite, table="t", **kw),
        "pandas": lambda: vc.audit(frame, **kw),
    }
    try:
        import duckdb
    except ImportError:
        return routes
    con = duckdb.connect()
    con.execute("CREATE TABLE t (p DOUBLE, y VARCHAR)")
    con.executemany("INSERT INTO t VALUES (?, ?)", list(zip(P, labels)))
    routes["duckdb-sql"] = lambda: vc.audit(con, table="t", **kw)
    routes["duckdb-relation"] = lambda: vc.audit(con.table("t"), **kw)
    try:
        import polars as pl
    except ImportError:
        return routes
    routes["polars"] = lambda: vc.audit(pl.DataFrame({"p": P, "y": labels}), **kw)
    return routes


def _line(call) -> tuple[type, str]:
    with pytest.raises(vc.VeracityError) as info:
        call()
    return type(info.value), str(info.value)


@pytest.mark.parametrize("labels, words", [
    (["yes", "no", "no", "yes", "no"],
     "column 'y' (labels) must hold 0/1 numbers or booleans, got text (values 'no', 'yes'); pass pos_label= "
     "naming the positive class, e.g. pos_label='yes'"),
    (["b", "a", "c", "a", "b"],
     "column 'y' (labels) must hold 0/1 numbers or booleans, got text (3 values such as 'a', 'b', 'c'); "
     "binary labels need two values and pos_label= naming the positive one"),
], ids=["two", "three"])
def test_text_labels_read_the_same_on_every_route(labels, words) -> None:
    for name, call in _routes(labels).items():
        assert _line(call) == (vc.VeracityError, words), name


@pytest.mark.parametrize("first", [False, True], ids=["later", "first-row"])
def test_a_missing_label_among_text_is_refused_first_on_every_route(first) -> None:
    labels = [None, "no", "yes", "yes", "no"] if first else ["yes", "no", None, "yes", "no"]
    words = "column 'y' (labels) has 1 missing value (None/NaN) of 5 rows; drop or fill that row first"
    for name, call in _routes(labels).items():
        kind, line = _line(call)
        assert (kind.__name__, line) == ("MissingLabels", words), name


def test_missing_labels_with_pos_label_count_the_rows_on_every_route() -> None:
    labels = ["yes", None, "no", None, "no"]
    words = "column 'y' (labels) has 2 missing values (None/NaN) of 5 rows; drop or fill those rows first"
    for name, call in _routes(labels, pos_label="yes").items():
        kind, line = _line(call)
        assert (kind.__name__, line) == ("MissingLabels", words), name


def test_missing_01_labels_count_the_rows_on_every_route() -> None:
    labels = [1.0, None, 0.0, 1.0, 0.0]
    frame = pd.DataFrame({"p": P, "y": labels})
    lite = sqlite3.connect(":memory:")
    frame.to_sql("t", lite, index=False)
    words = "column 'y' (labels) has 1 missing value (None/NaN) of 5 rows; drop or fill that row first"
    for name, call in {"sqlite3": lambda: vc.audit(lite, table="t", score="p", label="y"),
                       "pandas": lambda: vc.audit(frame, score="p", label="y")}.items():
        kind, line = _line(call)
        assert (kind.__name__, line) == ("MissingLabels", words), name
