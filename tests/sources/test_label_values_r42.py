"""A ``pos_label=`` check on a lazy frame reads its label column in ONE aggregate (round 42).

``_labels.label_values`` counted the rows, missing and distinct labels in one query and then collected
the distinct values in a second (a Spark job each: an audit with ``pos_label=`` was five jobs, four
without). A binary column's values are its min and its max: they now ride in the counts' query for
numbers, booleans and text (text outside pandas and Dask, whose object columns may hold a NaN beside
text), and the second query runs only for more than two values or other types. The values listed are
the second query's, to the type (speed-only guard below: the same output as the two-query path).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import veracity as vc
from veracity.sources import _labels

BACKENDS = ["duckdb", "polars-lazy"]


def _frame(backend: str, df: pd.DataFrame):
    import narwhals as nw

    if backend == "duckdb":
        import duckdb

        con = duckdb.connect()
        con.register("t", df)
        return nw.from_native(con.sql("SELECT * FROM t"))
    import polars as pl

    return nw.from_native(pl.from_pandas(df).lazy())


def _queries(monkeypatch) -> list[int]:
    seen: list[int] = []
    real = _labels.collect

    def counted(x):
        seen.append(1)
        return real(x)

    monkeypatch.setattr(_labels, "collect", counted)
    return seen


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("labels", [np.array([0, 1, 1, 0]), np.array(["no", "yes", "yes", "no"]),
                                    np.array([True, False, True, True]), np.array([1.0, 1.0, 1.0, 1.0])],
                         ids=["ints", "text", "booleans", "one value"])
def test_a_binary_label_column_is_read_in_one_query(backend, labels, monkeypatch):
    """Before: two queries (the counts, then the distinct values)."""
    seen = _queries(monkeypatch)
    frame = _frame(backend, pd.DataFrame({"p": np.linspace(0.1, 0.9, labels.size), "y": labels}))
    n, missing, distinct, values = _labels.label_values(frame, "y")
    assert (n, missing, distinct) == (labels.size, 0, np.unique(labels).size)
    assert values == sorted(np.unique(labels).tolist())
    assert len(seen) == 1


def test_an_audit_with_pos_label_reads_the_labels_once(monkeypatch):
    """The whole ``vc.audit(..., pos_label=)`` on a DuckDB relation: the label check is one query."""
    import duckdb

    rng = np.random.default_rng(0)
    df = pd.DataFrame({"p": rng.random(300), "y": rng.choice(["churn", "stay"], 300)})
    con = duckdb.connect()
    con.register("t", df)
    seen = _queries(monkeypatch)
    got = vc.audit(con.sql("SELECT * FROM t"), score="p", label="y", pos_label="churn")
    assert len(seen) == 1
    want = vc.audit(df["p"].to_numpy(), (df["y"] == "churn").to_numpy().astype(int))
    assert got.metrics == pytest.approx(want.metrics, rel=1e-12)


#: label columns of one or two values (read by their bounds) and of three (the distinct values' query)
CASES = {
    "ints 0/1": [0, 1, 1, 0, 1],
    "one int": [7, 7, 7],
    "big ints": [2**62 + 1, 2**62, 2**62],
    "floats": [0.0, 1.0, 1.0],
    "negative zero": [-0.0, 1.0, -0.0],
    "float32": np.array([0.1, 0.9, 0.1], dtype=np.float32),
    "booleans": [True, False, False],
    "one boolean": [False, False],
    "text": ["yes", "no", "no", "yes"],
    "one text": ["x", "x"],
    "text case": ["B", "a", "a"],
    "three values": [0, 1, 2, 1],
    "three texts": ["c", "a", "b"],
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", list(CASES))
def test_the_bounds_list_what_the_distinct_values_query_lists(backend, case, monkeypatch):
    """Speed-only guard: ``label_values`` with the bounds in the counts' query gives what the two-query
    path gives, values and their types (``repr``) alike."""
    y = CASES[case]
    df = pd.DataFrame({"p": np.linspace(0.1, 0.9, len(y)), "y": y})
    got = _labels.label_values(_frame(backend, df), "y")
    # (the old code has no _by_bounds: there both calls take the two-query path)
    monkeypatch.setattr(_labels, "_by_bounds", lambda dtype, implementation: False, raising=False)
    plain = _labels.label_values(_frame(backend, df), "y")
    assert repr(got) == repr(plain)
