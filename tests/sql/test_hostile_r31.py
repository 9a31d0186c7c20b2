"""A column name past PostgreSQL's 63 bytes (session 31).

``CREATE TABLE t ("<64 bytes>" ...)`` keeps the name's first 63 bytes, with only a NOTICE. ``audit_sql`` with
the name the user wrote was refused with both names shortened alike by the message (the first 30
characters, an ellipsis and a length), so the line gave no way to see what was wrong; it now says that
PostgreSQL cut the name and which name to pass.
"""

from __future__ import annotations

import pytest

import veracity as vc

LONG = "y" * 63


@pytest.fixture(scope="module")
def long_table(pg_conn):
    pg_conn.execute("DROP TABLE IF EXISTS t_r31_long")
    pg_conn.execute(f'CREATE TABLE t_r31_long ("{LONG}Z" DOUBLE PRECISION, label INTEGER, "é{LONG}" INTEGER)')
    pg_conn.execute("INSERT INTO t_r31_long VALUES (0.2, 0, 1), (0.8, 1, 1), (0.5, 1, 2)")
    return pg_conn


def test_a_name_cut_by_postgres_is_said(long_table, error_line):
    text = error_line(lambda: vc.audit_sql(long_table, table="t_r31_long", score=LONG + "Z", label="label"))
    assert "PostgreSQL keeps only the first 63 bytes of a name (64 here)" in text, text
    assert f"score={LONG!r}" in text, text
    # the name it points to is the column: the audit runs
    assert vc.audit_sql(long_table, table="t_r31_long", score=LONG, label="label", bins=2).n == 3


def test_a_cut_never_splits_a_character(long_table, error_line):
    cut = "é" + "y" * 61  # 2 + 61 bytes: the third-to-last byte ends the name, never half of "é"
    text = error_line(lambda: vc.audit_sql(long_table, table="t_r31_long", score=LONG, label="label",
                                           by="é" + LONG))
    assert f"by={cut!r}" in text and "(65 here)" in text, text


def test_other_missing_names_are_unchanged(long_table, error_line):
    text = error_line(lambda: vc.audit_sql(long_table, table="t_r31_long", score="nope", label="label"))
    assert "PostgreSQL keeps" not in text and "no such column" in text, text
