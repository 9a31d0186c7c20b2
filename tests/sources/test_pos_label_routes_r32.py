"""One text pos_label, one label on every route: arrays, pandas, polars (eager and lazy), pyarrow, a
DuckDB relation, Dask and SQL tables read it by core._validation.text_names_label.

Before, frames and SQL read text on a number column as a float: '9007199254740993' named the label
2**53 of a column holding 2**53 and 2**53 + 1 (base rate 1/3 where it is 2/3: the other class,
silently), '1_0' named 10 and '0.99999999999999999' the label 1; the array form refused '1' on an int
array that every frame read as 1.
"""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

import veracity as vc
from veracity import VeracityError

BIG = 2**53
SCORES = [0.9, 0.2, 0.7]
TWO_THIRDS, ONE_THIRD, REFUSED = 2 / 3, 1 / 3, None

#: (labels, SQL type, pos_label, base rate: rows 1 and 3 positive 2/3, row 2 alone 1/3, None refused)
CASES = [
    ([BIG + 1, BIG, BIG + 1], "BIGINT", str(BIG + 1), TWO_THIRDS),
    ([BIG + 1, BIG, BIG + 1], "BIGINT", f"{BIG + 1}.0", TWO_THIRDS),
    ([BIG + 1, BIG, BIG + 1], "BIGINT", str(BIG), ONE_THIRD),
    ([BIG + 1, BIG, BIG + 1], "BIGINT", f"{BIG}.5", REFUSED),
    ([10, 0, 10], "INTEGER", "1_0", REFUSED),
    ([10, 0, 10], "INTEGER", "10", TWO_THIRDS),
    ([1, 0, 1], "INTEGER", " 01 ", TWO_THIRDS),
    ([1, 0, 1], "INTEGER", "1e0", TWO_THIRDS),
    ([1, 0, 1], "INTEGER", "-0", ONE_THIRD),
    ([1, 0, 1], "INTEGER", "true", REFUSED),
    ([1.0, 0.0, 1.0], "DOUBLE", "1", TWO_THIRDS),
    ([1.0, 0.0, 1.0], "DOUBLE", "0.99999999999999999", REFUSED),
    ([0.1, 0.2, 0.1], "DOUBLE", "0.1", TWO_THIRDS),
    ([True, False, True], "BOOLEAN", " TRUE ", TWO_THIRDS),
    ([True, False, True], "BOOLEAN", "0", ONE_THIRD),
    ([True, False, True], "BOOLEAN", "1.0", REFUSED),
    (["1", "0", "1"], "TEXT", "1", TWO_THIRDS),
    (["1", "0", "1"], "TEXT", "1.0", REFUSED),
]
IDS = [f"{type(c[0][0]).__name__}-{c[2]!r}" for c in CASES]


def _polars(labels):
    import polars as pl

    return pl.DataFrame({"p": SCORES, "y": labels})


def _routes():
    import duckdb
    import pandas as pd
    import pyarrow as pa

    con = duckdb.connect()

    def frame(make):
        return lambda y, pos: vc.audit(make(y), score="p", label="y", pos_label=pos)

    return {
        "array": lambda y, pos: vc.audit(np.array(SCORES), np.array(y), pos_label=pos),
        "object array": lambda y, pos: vc.audit(np.array(SCORES), np.array(y, dtype=object), pos_label=pos),
        "pandas": frame(lambda y: pd.DataFrame({"p": SCORES, "y": y})),
        "polars": frame(_polars),
        "lazy polars": frame(lambda y: _polars(y).lazy()),
        "pyarrow": frame(lambda y: pa.table({"p": SCORES, "y": y})),
        "duckdb relation": frame(lambda y: con.from_arrow(_polars(y).to_arrow())),
    }


def _sql(connect, labels, kind, pos):
    con = connect()
    con.execute(f"CREATE TABLE t (p DOUBLE, y {kind})")
    con.executemany("INSERT INTO t VALUES (?, ?)", list(zip(SCORES, labels)))
    return vc.audit_sql(con, table="t", score="p", label="y", pos_label=pos)


@pytest.mark.parametrize(("labels", "kind", "pos", "expected"), CASES, ids=IDS)
def test_every_route_names_the_same_label(labels, kind, pos, expected):
    import duckdb

    routes = {name: (lambda fn: lambda: fn(labels, pos))(fn) for name, fn in _routes().items()}
    routes["sqlite"] = lambda: _sql(lambda: sqlite3.connect(":memory:"), labels, kind, pos)
    routes["duckdb sql"] = lambda: _sql(duckdb.connect, labels, kind, pos)
    for name, run in routes.items():
        if expected is REFUSED:
            with pytest.raises(VeracityError, match=r"is not among the (label )?values") as e:
                run()
            assert "\n" not in str(e.value), name
        else:
            assert run().base_rate == pytest.approx(expected, abs=1e-12), name


@pytest.mark.parametrize("pos", [str(BIG + 1), f"{BIG}.5", "1_0"])
def test_dask_reads_the_text_as_the_other_routes(pos):
    dd = pytest.importorskip("dask.dataframe")
    import pandas as pd

    labels = [BIG + 1, BIG, BIG + 1] if pos != "1_0" else [10, 0, 10]
    frame = dd.from_pandas(pd.DataFrame({"p": SCORES, "y": labels}), npartitions=1)
    if pos == str(BIG + 1):
        assert vc.audit(frame, score="p", label="y", pos_label=pos).base_rate == pytest.approx(TWO_THIRDS)
    else:
        with pytest.raises(VeracityError, match="is not among the values of column 'y'"):
            vc.audit(frame, score="p", label="y", pos_label=pos)


def test_object_bools_in_pandas_and_numpy_read_true_alike():
    import pandas as pd

    y = pd.Series([True, False, True], dtype=object)
    frame = pd.DataFrame({"p": SCORES, "y": y})
    for pos in ("true", " 1", "False"):
        expected = ONE_THIRD if pos == "False" else TWO_THIRDS
        assert vc.audit(frame, score="p", label="y", pos_label=pos).base_rate == pytest.approx(expected)
        assert vc.audit(np.array(SCORES), y.to_numpy(), pos_label=pos).base_rate == pytest.approx(expected)
