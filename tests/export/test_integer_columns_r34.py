"""Every calibrator's SQL reads an integer score column as the double ``transform()`` reads (session 34).

The SQL used the column as it is on every engine but PostgreSQL: on DuckDB a beta map negates its score
(``-x``), which fails on an unsigned column ("Overflow in negation of numeric value!": UBIGINT, UTINYINT,
UHUGEINT). Now every dialect casts the input to a double first. Each zoo calibrator runs here over integer
columns of DuckDB (unsigned, signed, HUGEINT), SQLite (INTEGER) and PostgreSQL (smallint, integer, bigint,
numeric): probabilities 0 and 1 (one-hot rows for multiclass), logits whole numbers, each output equal to
``transform()`` of the same numbers as doubles (to 1e-12, as the float columns of test_export_sql).
"""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from .conftest import K, expected, zoo_text

TOL = 1e-12
N = 300


def _data(lo: int, hi: int, big: int) -> dict[str, np.ndarray]:
    """Whole-number scores (Python ints): 0/1 probabilities (one-hot rows), logits in [lo, hi], a few as
    large as the type holds (``big``, and ``-big`` where it is signed)."""
    rng = np.random.default_rng(34)
    s = rng.integers(lo, hi + 1, N).astype(object)
    s[:4] = [lo, hi, big, -big if lo < 0 else 0]
    Z = rng.integers(lo, hi + 1, (N, K)).astype(object)
    Z[4] = [big, 0, lo, hi]
    P = np.eye(K, dtype=np.int64)[rng.integers(0, K, N)]
    return {"p": rng.integers(0, 2, N), "s": s, "P": P, "Z": Z}


#: (id of the zoo, dialect) -> its select items and blocks: ``to_sql`` of a fitted calibrator is the same
#: text on every call, and the zoo's texts take 1-4 s a dialect (the 1,000-knot tables): they were written
#: again for every column type
_ITEMS: dict[tuple[int, str], tuple[list[str], list[tuple[str, int]]]] = {}


def _items(calibrators: dict, dialect: str) -> tuple[list[str], list[tuple[str, int]]]:
    key = (id(calibrators), dialect)
    if key not in _ITEMS:
        _ITEMS[key] = _write_items(calibrators, dialect)
    items, blocks = _ITEMS[key]
    return list(items), list(blocks)


def _write_items(calibrators: dict, dialect: str) -> tuple[list[str], list[tuple[str, int]]]:
    items, blocks = [], []
    for i, (name, (_, col, _)) in enumerate(calibrators.items()):
        text = zoo_text(calibrators, name, dialect, alias=f"o{i}")  # to_sql(cal, columns(col), ..)
        width = 1 if col in ("p", "s") else K
        items.append(text if width > 1 else f'{text} AS "o{i}"')
        blocks.append((name, width))
    return items, blocks


def _rows(data: dict[str, np.ndarray]) -> list[tuple[int, ...]]:
    cols = [np.arange(N), data["p"], data["s"]] + [data[m][:, k] for m in ("P", "Z") for k in range(K)]
    return [tuple(int(v) for v in row) for row in zip(*cols)]


def _insert(table: str, data: dict[str, np.ndarray]) -> str:
    """One ``INSERT INTO table VALUES (..), (..)`` of :func:`_rows`, each number as its integer literal
    (DuckDB's and psycopg's ``executemany`` ran one statement a row: ~0.2 s of the 300 rows a test)."""
    return f"INSERT INTO {table} VALUES " + ", ".join(
        "(" + ", ".join(str(v) for v in row) + ")" for row in _rows(data))


_NAMES = ["id", "p", "s"] + [f"{m}_{k}" for m in ("P", "Z") for k in range(K)]


def _check(got: np.ndarray, calibrators: dict, blocks: list[tuple[str, int]], data: dict, engine: str) -> None:
    as_doubles = {k: v.astype(np.float64) for k, v in data.items()}
    at = 0
    for (name, width), (cal, col, prior) in zip(blocks, calibrators.values()):
        want = expected(cal, col, prior, as_doubles)
        part = got[:, at:at + width]
        at += width
        bad = np.flatnonzero((np.abs(part - want) > TOL).any(axis=1) | np.isnan(part).any(axis=1))
        assert bad.size == 0, (f"{engine}: {name} differs from transform() on {bad.size} rows; first: input "
                               f"{data[col][bad[0]]!r}, sql {part[bad[0]]!r}, transform {want[bad[0]]!r}")
    assert at == got.shape[1]


def _query(items: list[str]) -> str:
    return "SELECT " + ",\n".join(items) + ' FROM t ORDER BY "id"'


@pytest.mark.parametrize("kind, lo, hi, big", [
    ("UBIGINT", 0, 255, 2 ** 63), ("UTINYINT", 0, 255, 255), ("UHUGEINT", 0, 255, 10 ** 30),
    ("HUGEINT", -200, 200, 10 ** 30), ("BIGINT", -200, 200, 2 ** 62), ("INTEGER", -200, 200, 2 ** 31 - 1),
    ("TINYINT", -100, 100, 127)])
def test_duckdb_integer_columns(calibrators, kind, lo, hi, big):
    duckdb = pytest.importorskip("duckdb")
    data = _data(lo, hi, big)
    items, blocks = _items(calibrators, "duckdb")
    con = duckdb.connect()
    con.execute("CREATE TABLE t (" + ", ".join(f'"{c}" {"BIGINT" if c == "id" else kind}' for c in _NAMES) + ")")
    con.execute(_insert("t", data))
    assert con.execute('SELECT COUNT(*) FROM t').fetchone() == (N,)
    assert con.execute('SELECT DISTINCT typeof("s") FROM t').fetchall() == [(kind,)]
    got = np.array(con.execute(_query(items)).fetchall(), dtype=np.float64)
    _check(got, calibrators, blocks, data, f"duckdb {kind}")


def test_sqlite_integer_columns(calibrators):
    con = sqlite3.connect(":memory:")
    if con.execute("SELECT sqlite_version()").fetchone()[0] < "3.35":
        pytest.skip("SQLite < 3.35 has no math functions (exp, ln)")
    data = _data(-200, 200, 2 ** 62)
    items, blocks = _items(calibrators, "sqlite")
    con.execute("CREATE TABLE t (" + ", ".join(f'"{c}" INTEGER' for c in _NAMES) + ")")
    con.executemany(f"INSERT INTO t VALUES ({', '.join('?' * len(_NAMES))})", _rows(data))
    assert con.execute('SELECT typeof("s") FROM t LIMIT 1').fetchone() == ("integer",)
    got = np.array(con.execute(_query(items)).fetchall(), dtype=np.float64)
    _check(got, calibrators, blocks, data, "sqlite")


@pytest.mark.parametrize("kind, big", [("smallint", 32767), ("integer", 2 ** 31 - 1), ("bigint", 2 ** 62),
                                       ("numeric", 10 ** 30)])
def test_postgres_integer_columns(calibrators, postgres, kind, big):
    import psycopg

    data = _data(-200, 200, big)
    items, blocks = _items(calibrators, "postgres")
    with psycopg.connect(postgres.get_uri(), autocommit=True) as con:
        con.execute("DROP TABLE IF EXISTS t_int")
        con.execute("CREATE TABLE t_int (" + ", ".join(f'"{c}" {"bigint" if c == "id" else kind}' for c in _NAMES)
                    + ")")
        con.execute(_insert("t_int", data))
        got = np.array(con.execute(_query(items).replace(" FROM t ", " FROM t_int ")).fetchall(), dtype=np.float64)
    _check(got, calibrators, blocks, data, f"postgres {kind}")
