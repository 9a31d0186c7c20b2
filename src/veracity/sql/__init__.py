"""Audits where the table is: ``audit_sql(connection_or_url, table="t", score="p", label="y")``.

The per-bin statistics, accuracy, the input contract's counts and the exact AUC are
computed inside the database (SQL generated with sqlglot for its dialect), so only
O(bins × slices) rows travel; the result is the same :class:`~veracity.AuditResult`
as every other backend's. See ``docs/sql.md``.
"""

from ._audit import audit_sql

__all__ = ["audit_sql"]
