"""Hostile names and values cannot inject SQL; bad rows give the array form's one-line errors;
a URL's password is never shown (issue 27)."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

import veracity as vc
from veracity.sql import audit_sql
from veracity.sql._connect import redact

from .conftest import load

HOSTILE = {
    "table": 'scores"; DROP TABLE keep; --',
    "score": "p'); DELETE FROM keep; --",
    "label": 'y"y`[]',
    "weight": "wéight ✓ 重み",
    "by": "seg; SELECT 1",
}


def _hostile_table(name: str, conn) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(1)
    n = 300
    p = np.round(rng.random(n), 2)
    cols = {HOSTILE["score"]: p, HOSTILE["label"]: (rng.random(n) < p).astype(np.int64),
            HOSTILE["weight"]: rng.random(n) + 0.5,
            HOSTILE["by"]: rng.choice(np.array(["it's", 'a"b', "x; DROP TABLE keep"], dtype=object), n)}
    load(name, conn, "keep", {"k": np.arange(3)})
    load(name, conn, HOSTILE["table"], cols)
    return cols


def test_names_with_quotes_semicolons_and_unicode_cannot_inject(engine):
    name, conn = engine
    cols = _hostile_table(name, conn)
    got = audit_sql(conn, table=HOSTILE["table"], score=HOSTILE["score"], label=HOSTILE["label"],
                    sample_weight=HOSTILE["weight"], by=HOSTILE["by"])
    want = vc.audit(cols[HOSTILE["score"]], cols[HOSTILE["label"]], sample_weight=cols[HOSTILE["weight"]],
                    by={HOSTILE["by"]: cols[HOSTILE["by"]]})
    assert set(got.groups) == {"it's", 'a"b', "x; DROP TABLE keep"} == set(want.groups)
    assert got.group_column == HOSTILE["by"]
    assert abs(got.ece - want.ece) < 1e-12 and abs(got.auc - want.auc) < 1e-12
    # the other table is untouched
    cur = conn.cursor()
    cur.execute('SELECT COUNT(*) FROM "keep"')
    assert cur.fetchall()[0][0] == 3


def test_hostile_pos_label_and_slice_cap_values_are_escaped(engine):
    name, conn = engine
    rng = np.random.default_rng(2)
    n = 240
    p = np.round(rng.random(n), 2)
    hit = rng.random(n) < p
    labels = np.where(hit, "it's'); DROP TABLE keep; --", "no").astype(object)
    seg = np.array([f"s{i % 7}'--" for i in range(n)], dtype=object)
    load(name, conn, "keep", {"k": np.arange(3)})
    load(name, conn, "labels", {"p": p, "lab": labels, "seg": seg})
    got = audit_sql(conn, table="labels", score="p", label="lab", pos_label="it's'); DROP TABLE keep; --",
                    by="seg", max_groups=3)
    want = vc.audit(p, labels, pos_label="it's'); DROP TABLE keep; --", by={"seg": seg}, max_groups=3)
    assert set(got.groups) == set(want.groups)
    for k in want.groups:
        assert got.groups[k].auc == pytest.approx(want.groups[k].auc, abs=1e-12)
        assert got.groups[k].n == want.groups[k].n
    cur = conn.cursor()
    cur.execute('SELECT COUNT(*) FROM "keep"')
    assert cur.fetchall()[0][0] == 3


def _duck_frame_error(columns: dict[str, np.ndarray], **options) -> str:
    """The frame form's message on a lazy DuckDB relation: the oracle for the SQL form's."""
    import duckdb

    conn = duckdb.connect(":memory:")
    load("duckdb", conn, "t", columns)
    with pytest.raises(vc.VeracityError) as info:
        vc.audit(conn.table("t"), **options)
    return str(info.value)


BAD = {
    "nan_scores": ({"p": np.array([0.2, np.nan, 0.7, 0.4]), "y": np.array([0, 1, 1, 0])}, {}),
    "out_of_range": ({"p": np.array([0.2, 1.5, 0.7, -0.1]), "y": np.array([0, 1, 1, 0])}, {}),
    "infinite_scores": ({"p": np.array([0.2, np.inf, -np.inf, 0.4]), "y": np.array([0, 1, 1, 0])}, {}),
    "huge_scores": ({"p": np.array([0.2, 1e200, 0.7, 0.4]), "y": np.array([0, 1, 1, 0])}, {}),
    "non_binary_labels": ({"p": np.array([0.2, 0.5, 0.7, 0.4]), "y": np.array([0, 2, 1, 3])}, {}),
    "negative_weights": ({"p": np.array([0.2, 0.5, 0.7, 0.4]), "y": np.array([0, 1, 1, 0]),
                          "w": np.array([1.0, -2.0, 1.0, 1.0])}, {"sample_weight": "w"}),
    "huge_weights_nan": ({"p": np.array([0.2, 0.5, 0.7, 0.4]), "y": np.array([0, 1, 1, 0]),
                          "w": np.array([1e300, np.nan, 1e300, 1.0])}, {"sample_weight": "w"}),
    "zero_weights": ({"p": np.array([0.2, 0.5, 0.7, 0.4]), "y": np.array([0, 1, 1, 0]),
                      "w": np.zeros(4)}, {"sample_weight": "w"}),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_rows_give_the_frame_forms_one_line_error(engine, case):
    name, conn = engine
    columns, options = BAD[case]
    if name == "sqlite" and case == "nan_scores":
        pytest.skip("SQLite stores NaN as NULL (tested as missing below)")
    load(name, conn, "bad", columns)
    with pytest.raises(vc.VeracityError) as info:
        audit_sql(conn, table="bad", score="p", label="y", **options)
    message = str(info.value)
    assert "\n" not in message
    assert message == _duck_frame_error(columns, score="p", label="y", **options)


def test_missing_scores_and_labels(engine):
    name, conn = engine
    load(name, conn, "gaps", {"p": np.array([0.2, 0.3, 0.7, 0.4]), "y": np.array([0.0, 1.0, 1.0, 0.0])})
    cur = conn.cursor()
    cur.execute('UPDATE "gaps" SET "p" = NULL WHERE "y" = 1')
    with pytest.raises(vc.VeracityError, match=r"column 'p' \(scores\) has 2 missing/NaN and 0 infinite"):
        audit_sql(conn, table="gaps", score="p", label="y")


def test_text_labels_ask_for_pos_label(engine):
    name, conn = engine
    load(name, conn, "words", {"p": np.array([0.2, 0.3, 0.7]), "y": np.array(["no", "yes", "yes"], dtype=object)})
    with pytest.raises(vc.VeracityError, match=r"pass pos_label= naming the positive class, e.g. pos_label='yes'"):
        audit_sql(conn, table="words", score="p", label="y")
    with pytest.raises(vc.VeracityError, match=r"pos_label='maybe' is not among the values"):
        audit_sql(conn, table="words", score="p", label="y", pos_label="maybe")


def test_sqlite_text_in_a_numeric_column_is_refused():
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE t (p REAL, y INTEGER)")
    conn.executemany("INSERT INTO t VALUES (?, ?)", [(0.2, 0), ("oops", 1), (0.7, 1)])
    with pytest.raises(vc.VeracityError, match=r"column 'p' \(scores\) holds text in 1 of 3 rows"):
        audit_sql(conn, table="t", score="p", label="y")


@pytest.mark.parametrize("kwargs, match", [
    ({"score": "nope"}, r"score='nope': the table has no such column \(columns: 'p', 'y'\)"),
    ({"label": "nope"}, r"label='nope': the table has no such column"),
    ({"by": "nope"}, r"by='nope': the table has no such column"),
    ({"table": "missing"}, r"reading the table's columns failed in sqlite connection: no such table: missing"),
    ({"table": ""}, r"table must name a column or table"),
    ({"dialect": "oracle"}, r"dialect must be one of duckdb, postgres, sqlite, .*; got 'oracle'"),
    ({"score": ["p", "q"]}, r"audit_sql audits one binary score column"),
    ({"threshold": 2.0}, r"threshold must be a probability in \[0, 1\]"),
    ({"strategy": "nope"}, r"strategy must be 'uniform', 'quantile' or 'equal-count'"),
])
def test_bad_arguments_are_one_line_errors(kwargs, match):
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE t (p REAL, y INTEGER)")
    conn.execute("INSERT INTO t VALUES (0.5, 1)")
    options = {"table": "t", "score": "p", "label": "y", **kwargs}
    with pytest.raises(vc.VeracityError, match=match):
        audit_sql(conn, **options)


def test_not_a_connection():
    with pytest.raises(vc.VeracityError, match=r"needs a database connection .* got int"):
        audit_sql(3, table="t", score="p", label="y")


def test_an_unknown_url_scheme_without_sqlalchemy_is_refused_without_its_password(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "sqlalchemy", None)  # as if not installed (the dev extra installs it)
    with pytest.raises(vc.VeracityError, match=r"cannot open 'mysql://u:\*\*\*@db/x'.*install SQLAlchemy") as info:
        audit_sql("mysql://u:hunter2@db/x", table="t", score="p", label="y")
    assert "hunter2" not in str(info.value)


def test_an_unknown_url_scheme_with_sqlalchemy_is_refused_without_its_password():
    pytest.importorskip("sqlalchemy")
    with pytest.raises(vc.VeracityError, match=r"^cannot connect to mysql\+nosuchdriver://u:\*\*\*@db/x: ") as info:
        audit_sql("mysql+nosuchdriver://u:hunter2@db/x", table="t", score="p", label="y")
    assert "hunter2" not in str(info.value) and "\n" not in str(info.value)


def test_redact():
    assert redact("postgresql://ann:s3cr%40t@host:5432/db?sslmode=require") == \
        "postgresql://ann:***@host:5432/db?sslmode=require"
    assert redact("host=h password=hunter2 user=u") == "host=h password=*** user=u"
    assert redact("failed for 'pw!x'", ("pw!x",)) == "failed for '***'"


def test_a_password_is_never_shown(pg_uri, pg_conn, tmp_path):
    """Errors from a URL with a password name the database with the password replaced."""
    secret = "Sup3r-s3cret"
    uri = pg_uri.replace("postgres:@", f"postgres:{secret}@")
    assert secret in uri
    with pytest.raises(vc.VeracityError) as info:  # a query error, after connecting
        audit_sql(uri, table="no_such_table", score="p", label="y")
    assert secret not in str(info.value) and "postgres:***@" in str(info.value)
    bad = f"postgresql://postgres:{secret}@/postgres?host={tmp_path}/nowhere"
    with pytest.raises(vc.VeracityError) as info:  # a connection error
        audit_sql(bad, table="t", score="p", label="y")
    assert secret not in str(info.value) and str(info.value).startswith("cannot connect to postgresql://postgres:***@")
    assert "\n" not in str(info.value)
