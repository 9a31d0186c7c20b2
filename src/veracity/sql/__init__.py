"""Audits where the table is: ``audit_sql(connection_or_url, table="t", score="p", label="y")``.

The per-bin statistics, accuracy, the input contract's counts and the exact AUC are
computed inside the database (SQL generated with sqlglot for its dialect), so only
O(bins × slices) rows travel; the result is the same :class:`~veracity.AuditResult`
as every other backend's. See ``docs/sql.md``.
"""

from ..core._frameform import register_frame_form
from ._audit import audit_sql

register_frame_form("audit_sql", audit_sql)  # vc.audit(connection_or_url, table="t", score=, label=)

__all__ = ["audit_sql"]
