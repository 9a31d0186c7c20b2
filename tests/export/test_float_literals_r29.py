"""Every dialect's literals are the shortest text that reads back as the calibrator's own double (session 29).

BigQuery, Snowflake and Trino wrote every number -- each entry of a step table's array among them -- with
17 significant digits (``1.0000000000000001e-01`` for 0.1), and every dialect wrote its scalar constants
so. Now a literal carries Python's shortest round-trip digits (``repr``), in exponent form where a decimal
point alone makes a DECIMAL (DuckDB, Spark, Trino, Snowflake: ``1e-1``, ``25e-2``), and a point or an
exponent everywhere (``1.0``, never the INTEGER ``1``); SQLite, whose reader is not correctly rounded,
gets the fewest digits that stay off the midpoints between two doubles.

The reference each text is checked against is the same plan written with the old 17-digit literals
(``f"{v:.16e}"``: exactly the double, by Python's correctly rounded formatting).
"""

from __future__ import annotations

import re
import sqlite3
from typing import Any

import numpy as np
import pytest

import veracity as vc
from veracity.export import _sql

from .conftest import columns, zoo_text

#: dialects that read a decimal point without an exponent as a DECIMAL / NUMBER
EXPONENT_ONLY = {"duckdb", "snowflake", "spark", "trino"}
#: a string literal holding an array's numbers (DuckDB '[..]', PostgreSQL '{..}', Spark's comma list)
_NUMBER = r"-?(?:inf|[0-9][0-9.e+-]*)"
_ARRAY_TEXT = re.compile(rf"[\[{{]?{_NUMBER}(?:,{_NUMBER})*[\]}}]?")


def _seventeen_digits(v: float, dialect: str) -> str:
    return f"{v:.16e}"


#: dialects without an engine here: their texts are parsed back (test_export_sql.py runs the zoo's texts
#: of the others on DuckDB, PostgreSQL, Spark and SQLite; the whole-and-extreme map's are parsed back on
#: every dialect)
NO_ENGINE = ("bigquery", "snowflake", "trino")
#: (text, dialect) -> its literals: the two tests below read the same 1,000-knot step tables, so a worker
#: running both reads them once
_READ: dict[tuple[str, str], list[tuple[str, bool]]] = {}


def _literals(text: str, dialect: str) -> list[tuple[str, bool]]:
    """The text's number literals in text order, each with whether it stands alone (False: an entry of a
    string the engine casts to an array)."""
    key = (text, dialect)
    if key not in _READ:
        _READ[key] = _read_literals(text, dialect)
    return list(_READ[key])


def _read_literals(text: str, dialect: str) -> list[tuple[str, bool]]:
    """The dialect's tokenizer (sqlglot's, the first step of its parser) reads the literals as written:
    the parsed tree holds some rewritten (an array subscript's 1-based index offset made 0-based), and
    parsing takes ~3 times as long (the 1,000-knot tables: ~6 s over the dialects, with the references)."""
    import sqlglot
    from sqlglot.tokens import TokenType

    out: list[tuple[str, bool]] = []
    tokens = sqlglot.Dialect.get_or_raise(dialect).tokenize("SELECT " + text)
    _TOKENS.clear()
    _TOKENS[(text, dialect)] = tokens  # the parse of this same text (_parses_as_one_expression) reads them
    for token in tokens:
        if token.token_type == TokenType.NUMBER:
            out.append((token.text, True))
        elif token.token_type == TokenType.STRING and "," in token.text and _ARRAY_TEXT.fullmatch(token.text):
            out += [(t, False) for t in token.text.strip("[]{}").split(",")]
    return out


#: (text, dialect) -> the tokens of ``"SELECT " + text``, of the text whose literals were read last
_TOKENS: dict[tuple[str, str], list[Any]] = {}


def _parses_as_one_expression(text: str, dialect: str) -> None:
    """``sqlglot.parse_one("SELECT " + text, read=dialect)`` is one SELECT of at least one expression: that
    call's parse (``Dialect.parse``: the parser over the text's tokens), on the tokens :func:`_read_literals`
    took of the same string where it has just read them (the 1,000-knot tables' texts were tokenized
    twice)."""
    import sqlglot
    from sqlglot import exp

    sql = "SELECT " + text
    d = sqlglot.Dialect.get_or_raise(dialect)
    tokens = _TOKENS.pop((text, dialect), None)
    result = d.parser().parse(d.tokenize(sql) if tokens is None else tokens, sql)
    assert len(result) == 1 and result[0] is not None, dialect  # parse_one: one statement, else a Block
    tree = result[0]
    assert isinstance(tree, exp.Select) and len(tree.expressions) >= 1, dialect


def _shortest_digits(v: float) -> int:
    """Significant digits of Python's shortest round-trip form of ``v`` (the count, computed here)."""
    mant = repr(abs(v)).partition("e")[0].replace(".", "").strip("0")
    return max(len(mant), 1)


def _digits_of(text: str) -> int:
    mant = text.lstrip("-").partition("e")[0].replace(".", "").strip("0")
    return max(len(mant), 1)


def _isotonic(x: np.ndarray, y: np.ndarray) -> Any:
    doc = {"format": "veracity.calibrator", "version": 1, "kind": "isotonic",
           "params": {"score_type": "probability", "ties": "allow", "interpolation": "step"},
           "state": {"knots_x_": x.tolist(), "knots_y_": y.tolist(), "n_unique_": int(x.size),
                     "n_steps_": int(x.size), "ties_created_": 0, "n_classes_": 2},
           "metadata": {"n_rows": 100, "score_type": "probability"}}
    return vc.load(doc)


def _whole_and_extreme() -> Any:
    """40 knots (an array lookup where the dialect has arrays): 0, subnormals, 1e-300, 0.1, k/40, and step
    values that are whole numbers (0.0, 1.0), exactly what an integer literal would retype."""
    x = np.unique(np.concatenate([[0.0, 5e-324, 1e-300, 0.1], np.arange(1, 40) / 40.0, [1.0]]))
    y = np.where(np.arange(x.size) < x.size // 2, 0.0, 1.0)
    y[3:6] = [0.25, 0.25, 0.5]
    return _isotonic(x, np.maximum.accumulate(y))


#: (the linear 1,000-knot isotonic's texts, 1.6 MB over the dialects, take sqlglot ~8 s to parse: the step one
#: holds the same knots, subnormal ones among them)
NAMES = ("isotonic-1000-step", "venn-abers-p", "histogram-s", "platt-prior", "beta-p", "matrix-Z",
         "temperature-prior-P")


def _cases(calibrators: dict[str, Any]) -> list[tuple[str, Any, Any, Any]]:

    out = [(name, cal, columns(col), prior) for name, (cal, col, prior) in
           ((name, calibrators[name]) for name in NAMES)]
    return out + [("whole-and-extreme", _whole_and_extreme(), "p", None)]


# (dialects are looped over, not parameters: a "spark" parameter starts a Spark session for the test)
def test_every_literal_is_the_same_double_in_fewer_characters(calibrators, monkeypatch):
    for name, cal, col, prior in _cases(calibrators):
        for dialect in _sql.DIALECTS:
            # the zoo's texts are written once a worker (test_export_sql reads them too)
            text = (zoo_text(calibrators, name, dialect) if name in calibrators
                    else cal.to_sql(col, dialect=dialect, prior_shift=prior))
            with monkeypatch.context() as m:
                m.setattr(_sql, "float_literal", _seventeen_digits, raising=False)
                reference = cal.to_sql(col, dialect=dialect, prior_shift=prior)
            want = _literals(reference, dialect)
            got = _literals(text, dialect)  # read last: the parse below takes its tokens
            where = (name, dialect)
            if dialect in NO_ENGINE or name == "whole-and-extreme":
                _parses_as_one_expression(text, dialect)
            assert len(got) == len(want), where
            floats = 0
            for (g, alone), (w, _) in zip(got, want):
                assert float(g) == float(w), (where, g, w)  # the very double (inf: a chain sentinel)
                if not alone or not any(ch in w for ch in ".e"):
                    continue                                # an entry of a cast string; an integer index
                floats += 1
                assert ("e" in g) if dialect in EXPONENT_ONLY else ("." in g or "e" in g), (where, g)
                assert "+" not in g and not g.startswith("."), (where, g)
                if dialect != "sqlite":  # the shortest digits (SQLite: at most 17, checked below)
                    assert _digits_of(g) == _shortest_digits(float(g)), (where, g)
                assert len(g) <= len(w), (where, g, w)
            assert floats > 0, where
            # before: the same text (scalar constants, and BigQuery/Snowflake/Trino arrays, at 17 digits)
            assert len(text) < len(reference), (where, len(text), len(reference))


def test_array_entries_are_shortest_on_bigquery_snowflake_and_trino(calibrators):
    # before: ARRAY[..., 1.0000000000000001e-01, ...] -- every knot and step with 17 digits
    for dialect in ("bigquery", "snowflake", "trino"):
        text = zoo_text(calibrators, "isotonic-1000-step", dialect)  # its cal.to_sql("p", dialect=dialect)
        got = [g for g, _ in _literals(text, dialect) if any(c in g for c in ".e")]
        assert len(got) > 2000, dialect  # the knot and step arrays
        long = [g for g in got if _digits_of(g) > _shortest_digits(float(g))]
        assert long == [], (dialect, long[:3])


@pytest.mark.parametrize("v, dialect, text", [
    (0.1, "bigquery", "0.1"), (0.1, "trino", "1e-1"), (0.25, "snowflake", "25e-2"), (0.5, "duckdb", "5e-1"),
    (1.0, "postgres", "1.0"), (1.0, "trino", "1e0"), (0.0, "bigquery", "0.0"), (0.0, "duckdb", "0e0"),
    (1000.0, "bigquery", "1e3"), (1234.0, "sqlite", "1234.0"), (1e16, "postgres", "1e16"),
    (1e-300, "duckdb", "1e-300"), (5e-324, "sqlite", "5e-324"), (1e-4, "bigquery", "1e-4"),
    (float(np.finfo(np.float64).max), "trino", "17976931348623157e292"),
    (1.2345678901234567, "duckdb", "1.2345678901234567e0"),
    (0.65487175909209, "bigquery", "0.65487175909209"),
    (1.0, "text", "1"), (0.1, "text", "0.1"),
])
def test_float_literal_forms(v, dialect, text):
    assert _sql.float_literal(v, dialect) == text
    assert float(text) == v


def test_the_forms_read_back_as_doubles_on_duckdb_and_sqlite():
    duckdb = pytest.importorskip("duckdb")
    values = [0.0, 1.0, 0.1, 0.25, 1000.0, 1234.0, 1e16, 2.0 ** 53, 1e-300, 5e-324, 1e-4, 0.65487175909209,
              float(np.finfo(np.float64).max), float(np.nextafter(1.0, 0.0)), 1.2345678901234567]
    duck = [_sql.float_literal(v, "duckdb") for v in values]
    row = duckdb.connect().execute("SELECT " + ", ".join(f"{t}, typeof({t})" for t in duck)).fetchone()
    assert list(row[0::2]) == values and set(row[1::2]) == {"DOUBLE"}, duck
    lite = [_sql.float_literal(v, "sqlite") for v in values]
    query = "SELECT " + ", ".join(f"{t}, typeof({t})" for t in lite)
    row = sqlite3.connect(":memory:").execute(query).fetchone()
    assert list(row[0::2]) == values and set(row[1::2]) == {"real"}, lite


def test_sqlite_reads_its_literals_as_the_same_doubles():
    """SQLite 3.40's reader rounds twice (long double, then double): a shortest form near the midpoint
    of two doubles is read as the other one (0.65487175909209, ~1 in 10^5 doubles of [0, 1]). Its
    literals are the fewest digits at least 1/16 of a gap off that midpoint (outside 1e-309..1e-280,
    where it misreads some of every form)."""
    rng = np.random.default_rng(29)
    values = np.concatenate([rng.random(20_000), np.exp(rng.uniform(np.log(1e-280), np.log(1e300), 10_000)),
                             np.exp(rng.uniform(np.log(5e-324), np.log(1e-309), 2_000)), [0.65487175909209]])
    con = sqlite3.connect(":memory:")
    texts = [_sql.float_literal(float(v), "sqlite") for v in values]
    got = []
    for i in range(0, len(texts), 500):
        got += con.execute("SELECT " + ",".join(texts[i:i + 500])).fetchone()
    wrong = [(t, float(v)) for t, v, g in zip(texts, values, got) if g != v]
    assert wrong == []
    assert all(_digits_of(t) <= 17 for t in texts)
    # between 1e-309 and 1e-280 SQLite misreads some of every form: the 17 digits, as before
    unsure = _sql.float_literal(1.172934799416525e-308, "sqlite")
    assert unsure == "11729347994165252e-324" and float(unsure) == 1.172934799416525e-308
    # mostly the shortest digits all the same (a 17-digit form for each was 22-23 characters)
    shortest = sum(_digits_of(t) == _shortest_digits(float(v)) for t, v in zip(texts, values))
    assert shortest > 0.9 * len(values)


def _rows(con: Any, text: str) -> np.ndarray:
    rows = con.execute(f"SELECT {text} FROM t ORDER BY i").fetchall()
    return np.array([r[0] for r in rows], dtype=np.float64)


def test_whole_and_extreme_constants_equal_transform_on_duckdb_and_sqlite():
    """Knots at 0, 5e-324, 1e-300, 0.1 and k/40, steps of exactly 0.0 and 1.0; scores: every knot and its
    two neighbouring doubles."""
    duckdb = pytest.importorskip("duckdb")
    cal = _whole_and_extreme()
    knots = np.asarray(cal.knots_x_, dtype=np.float64)
    s = np.concatenate([knots, np.nextafter(knots, -np.inf), np.nextafter(knots, np.inf), [0.3, 0.7]])
    s = s[(s >= 0.0) & (s <= 1.0)]
    want = cal.transform(s)
    lite = sqlite3.connect(":memory:")
    lite.execute("CREATE TABLE t (i INTEGER, p REAL)")
    lite.executemany("INSERT INTO t VALUES (?, ?)", list(enumerate(s.tolist())))
    duck = duckdb.connect()
    duck.execute("CREATE TABLE t (i BIGINT, p DOUBLE)")
    duck.executemany("INSERT INTO t VALUES (?, ?)", list(enumerate(s.tolist())))
    for con, dialect in ((lite, "sqlite"), (duck, "duckdb")):
        text = cal.to_sql("p", dialect=dialect)
        np.testing.assert_array_equal(_rows(con, text), want, err_msg=dialect)


def test_whole_and_extreme_constants_equal_transform_on_postgres(postgres):
    psycopg = pytest.importorskip("psycopg")
    cal = _whole_and_extreme()
    knots = np.asarray(cal.knots_x_, dtype=np.float64)
    s = np.concatenate([knots, np.nextafter(knots, -np.inf), np.nextafter(knots, np.inf), [0.3, 0.7]])
    s = s[(s >= 0.0) & (s <= 1.0)]
    text = cal.to_sql("p", dialect="postgres")
    assert "ARRAY" in text.upper() or "::" in text or "CAST(" in text  # the array lookup, not the tree
    with psycopg.connect(postgres.get_uri(), autocommit=True) as con:
        con.execute("DROP TABLE IF EXISTS t29")
        con.execute("CREATE TABLE t29 (i BIGINT, p DOUBLE PRECISION)")
        with con.cursor() as cur:
            cur.executemany("INSERT INTO t29 VALUES (%s, %s)", list(enumerate(s.tolist())))
        rows = con.execute(f"SELECT {text} FROM t29 ORDER BY i").fetchall()
    np.testing.assert_array_equal(np.array([r[0] for r in rows], dtype=np.float64), cal.transform(s))
