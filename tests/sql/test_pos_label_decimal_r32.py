"""pos_label text on a DECIMAL label column audited in its database: a fallback read the text with
``Decimal(text)``, which takes ``'1_0'`` (digit grouping) and ``'١٠'`` (Arabic-Indic digits) as 10, so
``vc.audit(con, table=..., pos_label='1_0')`` gave a base rate where the frame routes (polars' Decimal
column, pandas) refuse the text. Now every route reads it by one rule (``text_names_label``): only a plain
decimal numeral names a number label, exactly."""

import decimal
import sqlite3

import numpy as np
import pytest

import veracity as vc

duckdb = pytest.importorskip("duckdb")
pl = pytest.importorskip("polars")

P = [0.9, 0.8, 0.7, 0.2, 0.4, 0.6]
Y = [10, 10, 10, 0, 0, 10]  # base rate 4/6 for the label 10


def _duckdb():
    con = duckdb.connect()
    con.execute("CREATE TABLE t (p DOUBLE, y DECIMAL(10, 1))")
    con.executemany("INSERT INTO t VALUES (?, ?)", list(zip(P, Y, strict=True)))
    return con


def _sqlite():
    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE t (p REAL, y INTEGER)")
    con.executemany("INSERT INTO t VALUES (?, ?)", list(zip(P, Y, strict=True)))
    return con


def _frame():
    return pl.DataFrame({"p": P, "y": [decimal.Decimal(v) for v in Y]},
                        schema={"p": pl.Float64, "y": pl.Decimal(10, 1)})


ROUTES = {"duckdb": lambda pos: vc.audit(_duckdb(), table="t", score="p", label="y", pos_label=pos),
          "sqlite": lambda pos: vc.audit(_sqlite(), table="t", score="p", label="y", pos_label=pos),
          "polars": lambda pos: vc.audit(_frame(), score="p", label="y", pos_label=pos),
          "arrays": lambda pos: vc.audit(np.array(P), np.array(Y), pos_label=pos)}


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("text", ["1_0", "١٠", "1_0.0", "0x0a", " 1 0 "])
def test_text_that_is_not_a_plain_numeral_names_no_label(error_line, route, text):
    message = error_line(lambda: ROUTES[route](text))
    assert "is not among the" in message and "pass one of them" in message, message


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("text", ["10", " 10.0 ", "1e1", "+10", "010.00"])
def test_a_plain_numeral_names_the_label_of_its_value_on_every_route(route, text):
    assert ROUTES[route](text).base_rate == pytest.approx(4 / 6, abs=1e-12)
