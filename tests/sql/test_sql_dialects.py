"""The audit's SQL for every dialect it is written for parses back, with every hostile name intact
(the engines that cannot run here: BigQuery, Snowflake, Trino, Spark … — issue 27)."""

from __future__ import annotations

import numpy as np
import pytest

sqlglot = pytest.importorskip("sqlglot")
from sqlglot import exp  # noqa: E402

from veracity.sql import _query as q  # noqa: E402
from veracity.sql._connect import DIALECTS  # noqa: E402

NAMES = {"table": 'tab"le`]; DROP TABLE x; --', "score": "scöre'); --", "label": "la\"bel",
         "weight": "w`[0]", "by": "seg ✓ ;"}


def statements(dialect: str) -> dict[str, str]:
    c = q.Columns(table=NAMES["table"], score=NAMES["score"], label=NAMES["label"], weight=NAMES["weight"],
                  by=NAMES["by"], label_kind="pos", pos_value="it's'; --")
    edges = np.array([0.0, 0.25, 0.5, 1.0])
    return {
        "contract": q.contract_sql(c, dialect, score_type="probability"),
        "stats": q.stats_sql(c, dialect, score_type="logit", threshold=0.3, bins=3, n=100, edges=edges,
                             strategy="quantile", grouped=True),
        "auc": q.auc_sql(c, dialect, n=100, bins=3, edges=edges, strategy="quantile", score_type="logit",
                         pool=(["a'b", 3, None], True)),
        "stats_rows": q.stats_sql(c, dialect, score_type="logit", threshold=0.3, bins=3, n=100, edges=edges,
                                  strategy="quantile", grouped=True, screen=True, rows=True),
        "auc_rows": q.auc_sql(c, dialect, n=100, bins=3, edges=edges, strategy="quantile", score_type="logit",
                              pool=(["a'b", 3, None], True), rows=True),
        "route": q.route_sql(c, dialect),
        "positions": q.positions_sql(c, dialect, score_type="probability", positions=[0, 5, 9]),
        "weighted_cuts": q.weighted_cuts_sql(c, dialect, score_type="probability", bins=4),
        "columns": q.columns_sql(NAMES["table"], dialect),
        "probe": q.probe_sql(NAMES["table"], [NAMES["score"], NAMES["label"]], dialect),
    }


@pytest.mark.parametrize("dialect", DIALECTS)
def test_every_statement_parses_back_with_the_names_intact(dialect):
    for what, sql in statements(dialect).items():
        trees = sqlglot.parse(sql, read=dialect)
        assert len(trees) == 1, (what, sql)  # one statement: nothing was appended
        tree = trees[0]
        tables = {t.name for t in tree.find_all(exp.Table)}
        assert NAMES["table"] in tables, (what, tables)
        columns = {col.name for col in tree.find_all(exp.Column)}
        user = {NAMES["score"], NAMES["label"], NAMES["weight"], NAMES["by"]} & columns
        assert user or what == "columns", (what, columns)  # (SELECT * names no column)
        assert not any("DROP" in t.name.upper() and t.name != NAMES["table"] for t in tree.find_all(exp.Table))
        assert not list(tree.find_all(exp.Drop)), what
    strings = {s.this for s in sqlglot.parse_one(statements(dialect)["stats"], read=dialect).find_all(exp.Literal)
               if s.is_string}
    assert "it's'; --" in strings


def test_an_unsupported_dialect_names_the_supported_ones():
    from veracity import VeracityError
    from veracity.sql._connect import check_dialect

    with pytest.raises(VeracityError, match=r"dialect must be one of duckdb, postgres, sqlite, bigquery"):
        check_dialect("oracle")
    assert check_dialect("postgresql") == "postgres" and check_dialect("mssql") == "tsql"
