"""Speed-only guard (session 39): the audit's statements are written by :func:`veracity.sql._query.write`,
the generator the calibrators' SQL uses (:func:`veracity.export._sql.dialect_generator`: SQLite's without
sqlglot's re-parse of five type names at every ``CAST``), not by ``tree.sql(dialect=…)``; the text is
sqlglot's own, character for character, in every dialect the audit writes, with hostile names, and for every
statement a live SQLite and DuckDB audit sends.
"""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

sqlglot = pytest.importorskip("sqlglot")

import veracity as vc  # noqa: E402
from veracity.sql import _query as q  # noqa: E402
from veracity.sql._connect import DIALECTS  # noqa: E402

NAMES = {"table": 'tab"le`]; DROP TABLE x; --', "score": "scöre'); --", "label": "la\"bel",
         "weight": "w`[0]", "by": "seg ✓ ;"}


def _reference(tree, dialect: str) -> str:
    return tree.sql(dialect=dialect, unsupported_level=sqlglot.ErrorLevel.RAISE)


def _statements(dialect: str) -> list[str]:
    c = q.Columns(table=NAMES["table"], score=NAMES["score"], label=NAMES["label"], weight=NAMES["weight"],
                  by=NAMES["by"], label_kind="pos", pos_value="it's'; --")
    edges = np.array([0.0, 0.25, 0.5, 1.0])
    counts, values = q.label_values_sql(NAMES["table"], NAMES["label"], dialect, 20)
    return [
        q.contract_sql(c, dialect, score_type="probability"),
        q.stats_sql(c, dialect, score_type="logit", threshold=0.3, bins=3, n=100, edges=edges,
                    strategy="quantile", grouped=True),
        q.stats_sql(c, dialect, score_type="probability", threshold=0.5, bins=40, n=100,
                    edges=np.linspace(0.0, 1.0, 41), strategy="uniform", grouped=False),
        q.auc_sql(c, dialect, n=100, bins=3, edges=edges, strategy="quantile", score_type="logit",
                  pool=(["a'b", 3, None], True), rows=True),
        q.route_sql(c, dialect),
        q.positions_sql(c, dialect, score_type="probability", positions=[0, 5, 9]),
        q.weighted_cuts_sql(c, dialect, score_type="probability", bins=30),
        q.columns_sql(NAMES["table"], dialect),
        q.type_sql(NAMES["table"], NAMES["score"], dialect),
        q.pg_types_sql(NAMES["table"], [NAMES["score"], NAMES["label"]], dialect),
        q.probe_sql(NAMES["table"], [NAMES["score"], NAMES["label"]], dialect),
        counts, values,
        q.nan_count_sql(NAMES["table"], NAMES["label"], dialect),
    ] + ([q.sqlite_declared_type_sql(("main", NAMES["table"]), NAMES["label"])] if dialect == "sqlite"
         else [])


@pytest.mark.parametrize("dialect", DIALECTS)
def test_every_statement_is_sqlglots_own_text(dialect, monkeypatch):
    fast = _statements(dialect)
    with monkeypatch.context() as m:
        m.setattr(q, "write", _reference, raising=False)  # (before session 39 the statements used tree.sql)
        plain = _statements(dialect)
    assert len(fast) == len(plain)
    for a, b in zip(fast, plain):
        assert a == b


def _checked(monkeypatch) -> list[str]:
    """Every text ``write`` gives, checked against ``tree.sql`` as it is written."""
    if not hasattr(q, "write"):
        pytest.skip("the statements are written by tree.sql itself (before session 39)")
    fast, seen = q.write, []

    def both(tree, dialect):
        text = fast(tree, dialect)
        assert text == _reference(tree, dialect)
        seen.append(text)
        return text

    monkeypatch.setattr(q, "write", both)
    return seen


def _table(con) -> None:
    rng = np.random.default_rng(39)
    s = rng.uniform(size=300)
    y = (rng.uniform(size=s.size) < s).astype(int)
    rows = [(float(a), ["no", "yes"][b], "ab"[i % 2], 0.5 + i % 3) for i, (a, b) in enumerate(zip(s, y))]
    con.execute('CREATE TABLE "t x" ("sc\'ore" DOUBLE, "la""bel" TEXT, g TEXT, w DOUBLE)')
    con.executemany('INSERT INTO "t x" VALUES (?, ?, ?, ?)', rows)


def _audits(con) -> None:
    kw = dict(table="t x", score="sc'ore", label='la"bel', pos_label="yes")
    vc.audit_sql(con, **kw)
    vc.audit_sql(con, **kw, by="g", sample_weight="w", strategy="quantile", bins=7)
    vc.audit_sql(con, **kw, strategy="quantile", bins=5)


def test_live_sqlite_audits_send_sqlglots_own_text(monkeypatch):
    seen = _checked(monkeypatch)
    con = sqlite3.connect(":memory:")
    _table(con)
    _audits(con)
    assert len(seen) >= 10


def test_live_duckdb_audits_send_sqlglots_own_text(monkeypatch):
    duckdb = pytest.importorskip("duckdb")
    seen = _checked(monkeypatch)
    con = duckdb.connect()
    _table(con)
    _audits(con)
    assert len(seen) >= 10
