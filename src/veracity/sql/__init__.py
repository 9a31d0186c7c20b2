"""Audits where the table is: ``audit_sql(connection_or_url, table="t", score="p", label="y")``.

The per-bin statistics, accuracy, the input contract's counts and the exact AUC are
computed inside the database (SQL generated with sqlglot for its dialect), so only
O(bins × slices) rows travel; the result is the same :class:`~veracity.AuditResult`
as every other backend's. See ``docs/sql.md``.

Importing this package registers the table form of ``vc.audit`` (``vc.audit(connection,
table=...)``) without loading the SQL code: :mod:`veracity.sql._audit` loads on the first call.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any

from ..core._frameform import register_frame_form

if TYPE_CHECKING:
    from ._audit import audit_sql


class _OnFirstCall:
    """``audit_sql`` as registered for ``vc.audit(connection, table=...)``: its signature and its
    call load :mod:`veracity.sql._audit` when first asked for (``import veracity`` stays light)."""

    @property
    def __signature__(self) -> inspect.Signature:
        from ._audit import audit_sql

        return inspect.signature(audit_sql)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        from ._audit import audit_sql

        return audit_sql(*args, **kwargs)


register_frame_form("audit_sql", _OnFirstCall())  # vc.audit(connection_or_url, table="t", score=, label=)


def __getattr__(name: str) -> Any:
    if name == "audit_sql":
        from ._audit import audit_sql

        return audit_sql
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["audit_sql"]
