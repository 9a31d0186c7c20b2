"""The one way an identifier (a table or column name) reaches SQL text.

Every name that veracity pastes into a SQL statement — a store's slice column, a
file's column, a table — goes through :func:`quote_identifier`: the ANSI form
``"name"`` with embedded double quotes doubled, so no name can end the
identifier and continue the statement. Values never go into SQL text at all; they
are bound as parameters.

>>> quote_identifier('a", 1) || (SELECT 1) || ("b')
'"a"", 1) || (SELECT 1) || (""b"'
"""

from __future__ import annotations

from ._validation import VeracityError


def quote_identifier(name: str) -> str:
    """``name`` as a quoted SQL identifier (double quotes doubled); NUL characters refused."""
    if not isinstance(name, str) or not name:
        raise VeracityError(f"a column or table name must be a non-empty string, got {name!r}")
    if "\x00" in name:
        raise VeracityError(f"name {name!r} contains a NUL character; rename the column")
    return '"' + name.replace('"', '""') + '"'
