"""Speed-only guard (session 39): ``to_sql`` writes its trees with generators of its own (SQLite's without
sqlglot's re-parse of five type names per ``CAST``, BigQuery's without the rewrite of every cast's types);
the text is the one sqlglot's own generator for the dialect writes (``e.sql(dialect=…)``), character for
character, on every dialect.

The reference path replaces ``veracity.export._sql.dialect_generator`` by the dialect's plain sqlglot
generator class (the one ``Expr.sql(dialect=…)`` instantiates); the texts must be equal.
"""

from __future__ import annotations

import functools
from typing import Any

import veracity as vc
from veracity.export import DIALECTS, _sql, to_sql

from .conftest import columns, zoo_text

#: a sigmoid with a prior shift, step tables (Venn-ABERS' quotient), a softmax and one-vs-rest step maps
NAMES = ("platt-prior", "beta-s", "isotonic-p", "venn-abers-s", "temperature-P", "ovr-isotonic-P")
#: on SQLite also a matrix head and the long table (a tree of ~1,000 CASEs, a cast in every comparison)
SQLITE_ONLY = ("matrix-Z", "isotonic-1000-step")


def _plain(dialect: str, plain: bool = True) -> Any:
    """The dialect's own sqlglot generator class, which ``Expr.sql(dialect=…)`` instantiates."""
    import sqlglot

    d = sqlglot.Dialect.get_or_raise(dialect)
    return functools.partial(d.generator_class, dialect=d)


def _plain_text(cal: Any, col: str, prior: Any, dialect: str, monkeypatch: Any) -> str:
    with monkeypatch.context() as m:
        m.setattr(_sql, "dialect_generator", _plain, raising=False)
        return to_sql(cal, columns(col), dialect=dialect, prior_shift=prior, alias="probability")


def test_the_text_is_sqlglots_own(calibrators, monkeypatch):
    # (dialects are looped over, not parameters: a "spark" parameter starts a Spark session for the test)
    for dialect in DIALECTS:
        for name in NAMES + (SQLITE_ONLY if dialect == "sqlite" else ()):
            cal, col, prior = calibrators[name]
            # the zoo's text, written once a worker (the same to_sql call; the engine tests read it)
            fast = zoo_text(calibrators, name, dialect)
            assert fast == _plain_text(cal, col, prior, dialect, monkeypatch), (name, dialect)


def test_sqlite_casts_and_hostile_names(monkeypatch):
    """Each cast of a SQLite text (every reference of the score) is written as sqlglot writes it, with
    quoted names that need escaping."""
    cal = vc.IsotonicCalibration().fit([0.1, 0.2, 0.3, 0.6, 0.7, 0.9] * 5, [0, 0, 1, 0, 1, 1] * 5)
    for column in ("p", 'it"s', "it's", "Ünï code"):
        fast = to_sql(cal, column, dialect="sqlite")
        with monkeypatch.context() as m:
            m.setattr(_sql, "dialect_generator", _plain, raising=False)
            plain = to_sql(cal, column, dialect="sqlite")
        assert fast == plain, column
        assert "CAST(" in fast and " AS REAL)" in fast, column
