"""Round 20: a table name typed with capitals that PostgreSQL folded to lower case gets a hint.

``CREATE TABLE Scores (...)`` in psql makes the table ``scores`` (an unquoted name is folded to lower
case), and ``veracity audit --sql-url ... --table Scores`` then failed with the server's bare
'relation "Scores" does not exist' — the audit quotes every name, so the user's spelling never
matches. The one-line error now says which name exists and what to pass, as it does for a column
that differs only by case; names stay matched exactly (nothing is read under another name).
"""

from __future__ import annotations

import pytest

import veracity as vc


def test_a_folded_table_name_is_named_in_the_error(pg_conn):
    pg_conn.execute('DROP TABLE IF EXISTS folded_scores')
    pg_conn.execute('CREATE TABLE Folded_Scores (p DOUBLE PRECISION, y INTEGER)')  # unquoted: folded_scores
    pg_conn.execute("INSERT INTO folded_scores VALUES (0.2, 0), (0.7, 1), (0.9, 1)")
    with pytest.raises(vc.VeracityError) as err:
        vc.audit(pg_conn, table="Folded_Scores", score="p", label="y")
    message = str(err.value)
    assert "\n" not in message
    assert 'relation "Folded_Scores" does not exist' in message
    assert "table='folded_scores'" in message
    # the schema-qualified form gets its own hint
    with pytest.raises(vc.VeracityError, match=r"table=\('public', 'folded_scores'\)"):
        vc.audit(pg_conn, table=("public", "Folded_Scores"), score="p", label="y")
    # the name it suggests audits
    assert vc.audit(pg_conn, table="folded_scores", score="p", label="y").n == 3


def test_a_missing_table_keeps_the_servers_words(pg_conn):
    with pytest.raises(vc.VeracityError) as err:
        vc.audit(pg_conn, table="No_Such_Table", score="p", label="y")
    assert 'relation "No_Such_Table" does not exist' in str(err.value)
    assert "pass table=" not in str(err.value)
