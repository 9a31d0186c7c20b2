"""PostgreSQL computes no operation on two NUMERICs: constants and step tables in doubles (session 29).

PostgreSQL reads every number literal (``0.25``, ``25e-2``) as a NUMERIC and computes an operation on two of
them in decimal, rounding to a double only where the result meets one. Since literals are the shortest
round-trip digits, ``0.3 - 0.1`` is 0.2 there, not binary64's 0.19999999999999998: a linear isotonic's
fraction pieces (knots a few subnormals apart) were 1 ulp off on 805 of 2,025 scores; a one-vs-rest row of
step maps (histogram) was summed exactly and rounded once, up to 2 ulps off on 1,337 of 4,000 rows (1,797 with
a prior shift); the constant map of a reversed beta fit (a = b = 0) took EXP of a NUMERIC, 11 of 61 maps up
to 3 ulps off. The text now holds the binary64 result of an operation on two literals, and casts any other
NUMERIC operand (a step table of literals, EXP's constant argument) to DOUBLE PRECISION, so the engine
computes in doubles as every other engine does.

The references are ``transform()`` itself (the same operations in the same order) and, where the exported
formula differs from transform's in its order (a prior shift folded into a one-vs-rest head), SQLite, whose
literals are doubles.
"""

from __future__ import annotations

import functools
import sqlite3
import warnings
from typing import Any

import numpy as np
import pytest

import veracity as vc
from veracity.export import to_sql


def _ulps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance in units in the last place between two float64 arrays (0 where both are NaN)."""
    ia = np.asarray(a, dtype=np.float64).view(np.int64)
    ib = np.asarray(b, dtype=np.float64).view(np.int64)
    ia = np.where(ia < 0, np.int64(np.iinfo(np.int64).min) - ia, ia)  # ordered like the doubles
    ib = np.where(ib < 0, np.int64(np.iinfo(np.int64).min) - ib, ib)
    return np.where(np.isnan(a) & np.isnan(b), 0, np.abs(ia - ib))


def _doc(kind: str, params: dict, state: dict) -> Any:
    return vc.load({"format": "veracity.calibrator", "version": 1, "kind": kind, "params": params,
                    "state": {**state, "n_classes_": state.get("n_classes_", 2)}, "metadata": {}})


def _fraction_isotonic() -> Any:
    """Knots 0 and 1e-320 (2,024 subnormals apart): the slope 0.2/1e-320 overflows, so transform interpolates
    by the fraction ``0.1 + (x - 0)/1e-320 · (0.3 - 0.1)``; 0.3 - 0.1 is 0.19999999999999998 in binary64."""
    return _doc("isotonic", {"score_type": "probability", "ties": "allow", "interpolation": "linear"},
                {"knots_x_": [0.0, 1e-320, 0.5, 1.0], "knots_y_": [0.1, 0.3, 0.8, 0.9], "n_unique_": 4,
                 "n_steps_": 4, "ties_created_": 0})


def _constant_betas() -> list[Any]:
    """Beta maps with a = b = 0 (the fit of a reversed score: the constant base rate), one fitted."""
    rng = np.random.default_rng(0)
    cals = [_doc("beta", {"score_type": "probability"}, {"a_": 0.0, "b_": 0.0, "c_": float(c)})
            for c in rng.normal(0.0, 3.0, 60)]
    p = np.round(rng.random(4000), 3)
    y = (rng.random(4000) < p).astype(np.int64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "the score is reversed"
        reversed_fit = vc.BetaCalibration().fit(p, 1 - y)
    assert reversed_fit.a_ == 0.0 and reversed_fit.b_ == 0.0
    return cals + [reversed_fit]


def _multiclass_data() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    P = rng.dirichlet(np.ones(3), 4000)
    y = np.array([rng.choice(3, p=row) for row in P])
    return P, y, rng.dirichlet(np.ones(3), 4000)


@functools.cache  # fitted once for the five tests that read them (1.8 s a fit of the four)
def _step_maps() -> dict[str, tuple[Any, Any]]:
    """One-vs-rest maps of step tables (name -> (calibrator, prior shift or None))."""
    P, y, _ = _multiclass_data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {
            "histogram": (vc.HistogramBinning().fit(P, y), None),
            "isotonic": (vc.IsotonicCalibration().fit(P, y), None),
            "venn-abers": (vc.VennAbers(multiclass="ovr").fit(P, y), None),
            "histogram-prior": (vc.HistogramBinning().fit(P, y), ([0.2, 0.3, 0.5], [0.5, 0.3, 0.2])),
        }


_MULTI = ["P_0", "P_1", "P_2"]


@functools.cache  # the Venn-ABERS map's 0.5 MB of text takes ~2 s to write; two tests read its PostgreSQL one
def _step_text(name: str, dialect: str) -> str:
    """``to_sql`` of the step map ``name`` over ``_MULTI`` (with its prior shift) in ``dialect``."""
    cal, prior = _step_maps()[name]
    return to_sql(cal, _MULTI, dialect=dialect, prior_shift=prior)


def _literal_pairs(text: str) -> list[str]:
    """The arithmetic nodes of a PostgreSQL text whose two operands are both number literals."""
    import sqlglot
    from sqlglot import exp

    def literal(e: Any) -> bool:
        while isinstance(e, (exp.Paren, exp.Neg)):
            e = e.this
        return isinstance(e, exp.Literal) and not e.is_string

    tree = sqlglot.parse_one("SELECT " + text.split("\n", 1)[1], read="postgres")
    return [node.sql("postgres") for node in tree.find_all(exp.Add, exp.Sub, exp.Mul, exp.Div)
            if literal(node.this) and literal(node.expression)]


def test_the_postgres_text_holds_no_operation_on_two_literals():
    cases = [(_fraction_isotonic(), "p", None), (_constant_betas()[0], "p", None)]
    texts = [(cal.kind, to_sql(cal, cols, dialect="postgres", prior_shift=prior))
             for cal, cols, prior in cases]
    texts += [(_step_maps()[name][0].kind, _step_text(name, "postgres")) for name in _step_maps()]
    for kind, text in texts:
        assert _literal_pairs(text) == [], (kind, _literal_pairs(text)[:3])
    # the fraction piece holds transform's binary64 differences, in every dialect
    for dialect in ("postgres", "duckdb", "sqlite", "spark", "bigquery", "snowflake", "trino"):
        text = to_sql(_fraction_isotonic(), "p", dialect=dialect)
        assert "19999999999999998" in text, dialect  # 0.3 - 0.1
        assert not any(f"{a} - {b}" in text for a, b in (("0.3", "0.1"), ("3e-1", "1e-1"))), dialect


@pytest.fixture(scope="module")
def pg(postgres):
    import psycopg

    with psycopg.connect(postgres.get_uri(), autocommit=True) as con:
        yield con


def _run_pg(con: Any, texts: list[str], rows: np.ndarray, table: str) -> np.ndarray:
    """The outputs of ``texts`` (one SELECT) over ``rows`` (N x C: columns p, or P_0..P_2)."""
    names = ["p"] if rows.shape[1] == 1 else _MULTI
    con.execute(f"DROP TABLE IF EXISTS {table}")
    declared = ", ".join(f'"{n}" double precision' for n in names)
    con.execute(f'CREATE TABLE {table} ("id" bigint, {declared})')
    with con.cursor().copy(f"COPY {table} FROM STDIN") as copy:
        for i, row in enumerate(rows):
            copy.write_row((i, *map(float, row)))
    body = ", ".join(t.split("\n", 1)[1] for t in texts)
    return np.array(con.execute(f'SELECT {body} FROM {table} ORDER BY "id"').fetchall(), dtype=np.float64)


def _run_sqlite(texts: list[str], rows: np.ndarray) -> np.ndarray:
    con = sqlite3.connect(":memory:")
    con.execute('CREATE TABLE t ("id" INTEGER, ' + ", ".join(f'"{n}" REAL' for n in _MULTI) + ")")
    con.executemany("INSERT INTO t VALUES (?, ?, ?, ?)", [(i, *map(float, r)) for i, r in enumerate(rows)])
    body = ", ".join(t.split("\n", 1)[1] for t in texts)
    return np.array(con.execute(f'SELECT {body} FROM t ORDER BY "id"').fetchall(), dtype=np.float64)


def test_postgres_fraction_pieces_are_transforms_doubles(pg):
    """Every double in [0, 1e-320] (the fraction piece) and some ordinary scores: 0 ulps (805 were 1 off)."""
    cal = _fraction_isotonic()
    x = np.concatenate([np.arange(0, 2025) * 5e-324, np.linspace(0.0, 1.0, 101)])
    got = _run_pg(pg, [to_sql(cal, "p", dialect="postgres")], x[:, None], "t_r29_frac")[:, 0]
    off = _ulps(got, cal.transform(x))
    assert int(off.max()) == 0, (np.count_nonzero(off), x[np.flatnonzero(off)[:3]])


def test_postgres_constant_beta_maps_are_transforms_doubles(pg):
    """sigmoid(c) of a = b = 0 (EXP of a NUMERIC was computed in decimal: 11 of 61 maps 1-3 ulps off)."""
    cals = _constant_betas()
    texts = [to_sql(cal, "p", dialect="postgres") for cal in cals]
    got = _run_pg(pg, texts, np.array([[0.5]]), "t_r29_beta")[0]
    off = _ulps(got, np.array([cal.transform(np.array([0.5]))[0] for cal in cals]))
    assert int(off.max()) == 0, (np.count_nonzero(off), off.max())


@pytest.mark.parametrize("name", ["histogram", "isotonic", "venn-abers", "histogram-prior"])
def test_postgres_one_vs_rest_step_maps_compute_in_doubles(name, pg):
    """A one-vs-rest row of step tables: PostgreSQL's shares are the doubles SQLite computes (literals are
    doubles there) and, without a prior shift, transform()'s own (the histogram's were up to 2 ulps off)."""
    cal, prior = _step_maps()[name]
    _, _, rows = _multiclass_data()
    rows[:20] = np.round(rows[:20], 2)
    rows[:20] /= rows[:20].sum(axis=1, keepdims=True)
    got = _run_pg(pg, [_step_text(name, "postgres")], rows, "t_r29_ovr")
    reference = _run_sqlite([_step_text(name, "sqlite")], rows)
    assert int(_ulps(got, reference).max()) == 0, name
    if prior is None:
        assert int(_ulps(got, cal.transform(rows)).max()) == 0, name
