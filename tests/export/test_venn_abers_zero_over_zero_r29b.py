"""A Venn-ABERS quotient that is 0/0 at a knot gives no probability on every engine (session 29).

A fitted Venn-ABERS map never has one (p1 > 0 everywhere), but a loaded artifact may: p0 = p1 = [0, 0, 1, 1]
passes the schema (each nondecreasing, p0 <= p1), and at the knot 0.5 the merged probability is
p1_1 / ((1 - p0_2) + p1_1) = 0 / 0. ``transform`` computes NaN there and refuses the call. The SQL left that
quotient unmerged and computed it: PostgreSQL raised "division by zero" (the whole query failed), DuckDB gave
NaN, and on SQLite the NULL share of a one-vs-rest row became the uniform fallback, 1/3 (a silent number).
Now such a score is refused like any other score ``transform`` refuses: NULL, on every output of its row.
"""

from __future__ import annotations

import sqlite3
import warnings
from typing import Any

import numpy as np
import pytest

import veracity as vc
from veracity.export import to_sql

from .conftest import VA_BAD as _BAD
from .conftest import VA_X as _X
from .conftest import va_rows as _rows
from .conftest import va_zero_over_zero as _binary
from .conftest import va_zero_over_zero_ovr as _ovr

_COLS = ["P_0", "P_1", "P_2"]


def _run(engine: str, con: Any, text: str, rows: np.ndarray) -> tuple[np.ndarray, list]:
    names = ["p"] if rows.shape[1] == 1 else _COLS
    mark = "%s" if engine == "postgres" else "?"
    kind = "REAL" if engine == "sqlite" else "DOUBLE PRECISION"
    con.execute("DROP TABLE IF EXISTS t_r29b")
    con.execute('CREATE TABLE t_r29b ("id" BIGINT, ' + ", ".join(f'"{n}" {kind}' for n in names) + ")")
    insert = f"INSERT INTO t_r29b VALUES ({', '.join([mark] * (len(names) + 1))})"
    values = [(i, *map(float, r)) for i, r in enumerate(rows)]
    if engine == "postgres":
        with con.cursor() as cur:
            cur.executemany(insert, values)
    else:
        con.executemany(insert, values)
    body = text.split("\n", 1)[1]
    got = con.execute(f'SELECT {body} FROM t_r29b ORDER BY "id"').fetchall()
    return np.array([[np.nan if v is None else v for v in row] for row in got], dtype=np.float64), got


@pytest.fixture(params=["sqlite", "duckdb", "postgres"])
def engine(request: pytest.FixtureRequest) -> Any:
    if request.param == "sqlite":
        con = sqlite3.connect(":memory:")
        yield "sqlite", con
        con.close()
    elif request.param == "duckdb":
        duckdb = pytest.importorskip("duckdb")
        con = duckdb.connect()
        yield "duckdb", con
        con.close()
    else:
        psycopg = pytest.importorskip("psycopg")
        server = request.getfixturevalue("postgres")
        with psycopg.connect(server.get_uri(), autocommit=True) as con:
            yield "postgres", con


def _check(cal: Any, rows: np.ndarray, engine: Any, prior_shift: Any = None) -> None:
    name, con = engine
    bad = rows[:, -1 if rows.shape[1] == 1 else 1] == _BAD
    with pytest.raises(vc.VeracityError, match="invalid probabilities"):
        cal.transform(rows[:, 0] if rows.shape[1] == 1 else rows)  # transform refuses the 0/0 score
    good = rows[~bad, 0] if rows.shape[1] == 1 else rows[~bad]
    want = cal.transform(good)
    if prior_shift is not None:
        want = vc.adjust_prior(want, *prior_shift)
    want = np.asarray(want, dtype=np.float64).reshape(len(good), -1)
    cols = "p" if rows.shape[1] == 1 else _COLS
    text = to_sql(cal, cols, dialect=name, prior_shift=prior_shift)
    got, raw = _run(name, con, text, rows)
    assert all(v is None for i in np.flatnonzero(bad) for v in raw[i]), [raw[i] for i in np.flatnonzero(bad)]
    np.testing.assert_allclose(got[~bad], want, rtol=0, atol=1e-12)


def test_binary_zero_over_zero_knot_is_null(engine):
    _check(_binary(), _X[:, None], engine)


def test_binary_zero_over_zero_knot_is_null_under_a_prior_shift(engine):
    _check(_binary(), _X[:, None], engine, prior_shift=(0.3, 0.1))


def test_one_vs_rest_row_through_a_zero_over_zero_knot_is_null(engine):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # transform's own 0/0 before it refuses the row
        _check(_ovr(), _rows(), engine)


def test_one_vs_rest_zero_over_zero_under_a_prior_shift(engine):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        _check(_ovr(), _rows(), engine, prior_shift=([0.2, 0.3, 0.5], [0.4, 0.4, 0.2]))


def test_fitted_maps_write_no_such_guard():
    """The guard is written only where a 0/0 exists: a fitted map's SQL is unchanged by it."""
    rng = np.random.default_rng(3)
    p = np.round(rng.random(500), 2)
    y = (rng.random(500) < p).astype(int)
    text = to_sql(vc.VennAbers().fit(p, y), "p", dialect="sqlite")
    assert '"p" = ' not in text
