"""Speed-only guard (session 41): the faster paths of ``to_sql`` write the very text of the plain ones.

* :meth:`_Builder.in_doubles` (PostgreSQL's walk that keeps NUMERIC literals out of arithmetic) sets a node's
  argument only where the walk changed it, and gives a column reference or a cast's type back at once;
* :meth:`_Builder.guarded`'s bounds of a constant chain (two bisections over the doubles) are computed once a
  chain (:func:`_sql._chain_limits`);
* :meth:`_Builder.num` reads a float's sign and finiteness with ``math`` and a comparison, not numpy's ufuncs;
* DuckDB's and PostgreSQL's generators (:func:`_sql.dialect_generator`) write a plain DOUBLE without their
  type tests, which it passes none of.

Each plain path is the session-40 code (or sqlglot's own generator), restated here; the texts (or values)
must be equal.
"""

from __future__ import annotations

from typing import Any

import functools
import warnings

import numpy as np
import pytest

import veracity as vc
from veracity.export import _sql, to_sql
from veracity.export._ranges import first_double

from .conftest import columns, zoo_text

#: PostgreSQL texts with folded literals, step tables (NUMERIC operands cast), softmax and one-vs-rest heads
NAMES = ("platt-prior", "venn-abers-p", "histogram-s", "ovr-isotonic-P", "matrix-Z", "temperature-prior-P")


def _plain_in_doubles(self: Any, e: Any) -> tuple[Any, bool]:
    """Session 40's ``_Builder.in_doubles``: every argument set again, every node walked."""
    exp = self.exp
    kind = type(e).__name__
    if isinstance(e, exp.Literal):
        return e, not e.is_string and any(ch in e.this for ch in ".eE")
    if kind in _sql._FOLD or isinstance(e, (exp.Exp, exp.Ln)):
        keys = ("this", "expression") if kind in _sql._FOLD else ("this",)
        args = [_plain_in_doubles(self, e.args[k]) for k in keys]
        if all(d for _, d in args):
            values = [self._literal(a) for a, _ in args]
            if kind in _sql._FOLD and None not in values:
                with np.errstate(all="ignore"):
                    v = float(_sql._FOLD[kind](np.float64(values[0]), np.float64(values[1])))
                if np.isfinite(v):
                    return self.num(v), True
            at = values.index(None) if None in values else 0
            args[at] = (exp.Cast(this=args[at][0], to=_sql.data_type("DOUBLE")), False)
        for k, (a, _) in zip(keys, args):
            e.set(k, a)
        return e, False
    if isinstance(e, exp.Case):
        decimal = True
        for branch in e.args.get("ifs") or []:
            branch.set("this", _plain_in_doubles(self, branch.this)[0])
            value, d = _plain_in_doubles(self, branch.args["true"])
            branch.set("true", value)
            decimal = decimal and (d or isinstance(value, exp.Null))
        if e.args.get("default") is not None:
            value, d = _plain_in_doubles(self, e.args["default"])
            e.set("default", value)
            decimal = decimal and (d or isinstance(value, exp.Null))
        return e, decimal
    decimal = kind in _sql._KEEPS_DECIMAL
    for key, arg in list(e.args.items()):
        items = arg if isinstance(arg, list) else [arg]
        done = []
        for item in items:
            if isinstance(item, exp.Expression):
                item, d = _plain_in_doubles(self, item)
                decimal = decimal and (d or key not in ("this", "expressions"))
            done.append(item)
        e.set(key, done if isinstance(arg, list) else done[0])
    return e, decimal


def _plain_chain_limits(chain: tuple[tuple[str, float], ...]) -> tuple[float | None, float | None]:
    """Session 40's bounds of a chain, bisected on every call."""
    def value(v: float) -> Any:
        out = np.float64(v)
        for o, c in chain:
            out = out * c if o == "mul" else out / c
        return out

    with np.errstate(all="ignore"):
        return (first_double(lambda v: value(v) != 0.0), first_double(lambda v: bool(np.isinf(value(v)))))


def _matrix_of_logits() -> Any:
    """Matrix scaling of logits whose rows of W sum alike (session 25's ``matrix-4``): its PostgreSQL text
    guards the products by constants that can overflow or round to 0 on rows of huge logits."""
    W = [[1.25, 0.5, -0.25, 0.0], [0.125, 1.375, 0.0, -0.5], [0.5, -0.75, 1.75, -0.5], [0.0, 0.0, 0.25, 0.75]]
    rng = np.random.default_rng(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cal = vc.MatrixScaling(score_type="logit").fit(rng.normal(0.0, 2.0, (120, 4)), np.arange(120) % 4)
    doc = cal.to_dict()
    doc["state"].update(W_=W, b_=[0.3, -0.45, 0.1, 0.7])
    return vc.load(doc)


def test_postgres_texts_equal_the_plain_walk(calibrators, monkeypatch):
    cases = [(name, *calibrators[name]) for name in NAMES]
    cases += [("matrix of logits", _matrix_of_logits(), "Z", None)]
    _sql._chain_limits.cache_clear()
    for name, cal, col, prior in cases:
        # the zoo's text is this to_sql call, written once a worker (other tests read it too)
        fast = (zoo_text(calibrators, name, "postgres") if name in calibrators
                else to_sql(cal, columns(col), dialect="postgres", prior_shift=prior))
        with monkeypatch.context() as m:
            m.setattr(_sql._Builder, "in_doubles", _plain_in_doubles)
            m.setattr(_sql, "_chain_limits", _plain_chain_limits)
            plain = to_sql(cal, columns(col), dialect="postgres", prior_shift=prior)
        assert fast == plain, name
    assert _sql._chain_limits.cache_info().currsize > 0  # guarded chains were written (and compared)


@pytest.mark.parametrize("chain", [
    (("mul", 0.07),), (("div", 3.0),), (("mul", 1e-300),), (("mul", 1e300), ("div", 7.5)),
    (("div", 5e-324),), (("mul", 2.0), ("mul", 0.5), ("div", 1e10)), (("mul", 1.0),)])
def test_chain_limits_are_the_bisections(chain):
    _sql._chain_limits.cache_clear()
    assert _sql._chain_limits(chain) == _plain_chain_limits(chain)
    assert _sql._chain_limits(chain) == _plain_chain_limits(chain)  # cached: the same


def test_num_writes_the_plain_literal():
    builder = _sql._Builder("postgres", ["p"])
    exp = builder.exp
    for v in (0.0, -0.0, 5e-324, -5e-324, 0.1, -0.1, 1.0, -1.0, 1e308, -1.7976931348623157e308, 2.0 ** -1074):
        lit = exp.Literal(this=_sql.float_literal(abs(v), "postgres"), is_string=False)
        plain = exp.Paren(this=exp.Neg(this=lit)) if np.signbit(v) and v != 0.0 else lit
        assert builder.num(v).sql(dialect="postgres") == plain.sql(dialect="postgres"), v
        assert builder.num(np.float64(v)) == plain, v


def _sqlglots_generator(dialect: str, plain: bool = False) -> Any:
    """The dialect's own sqlglot generator class, which ``Expr.sql(dialect=…)`` instantiates."""
    import sqlglot

    d = sqlglot.Dialect.get_or_raise(dialect)
    return functools.partial(d.generator_class, dialect=d)


@pytest.mark.parametrize("dialect", ["duckdb", "postgres"])
def test_duckdb_and_postgres_texts_are_sqlglots_own(calibrators, monkeypatch, dialect):
    """Plain DOUBLEs (every cast of the score), arrays of doubles and of integers (a step table's lookup), the
    cell index's casts (DuckDB's UINTEGER), a multiclass head (test_sql_generator_r39 compares more maps)."""
    for name in ("isotonic-p", "beta-s", "matrix-P"):
        cal, col, prior = calibrators[name]
        fast = zoo_text(calibrators, name, dialect)  # this to_sql call, written once a worker
        with monkeypatch.context() as m:
            m.setattr(_sql, "dialect_generator", _sqlglots_generator)
            plain = to_sql(cal, columns(col), dialect=dialect, prior_shift=prior)
        assert fast == plain, (name, dialect)
        assert "[]" in fast or name != "isotonic-p", dialect  # DOUBLE[] / DOUBLE PRECISION[] arrays
