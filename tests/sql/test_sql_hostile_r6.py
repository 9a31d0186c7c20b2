"""Hostile inputs to the SQL audit (round 6): a password holding an unencoded '@', a SQLAlchemy engine
that cannot connect, and the label column named as the score."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

import veracity as vc
from veracity.sql import audit_sql
from veracity.sql._connect import redact

SECRET_TAIL = "Zq9tail77"


@pytest.mark.parametrize("url", [
    f"postgresql://alice:ab@{SECRET_TAIL}@127.0.0.1:1/db",
    f"mysql://alice:ab@{SECRET_TAIL}@127.0.0.1:1/db",
    f"postgresql://al@ice:x{SECRET_TAIL}@127.0.0.1:1/db",
])
def test_an_unencoded_at_sign_in_the_password_is_refused_without_showing_any_of_it(url):
    """Before: ``cannot connect to postgresql://alice:***@Zq9tail77@127.0.0.1:1/db: failed to resolve host
    'Zq9tail77@127.0.0.1'`` -- the driver splits at the first '@', and the rest of the password was shown
    twice (in the redacted URL and as the host the driver could not find)."""
    with pytest.raises(vc.VeracityError, match=r"holds an '@'; write it percent-encoded as %40") as info:
        audit_sql(url, table="t", score="p", label="y")
    assert SECRET_TAIL not in str(info.value) and "\n" not in str(info.value)


def test_redact_covers_a_password_with_at_signs():
    assert redact(f"x postgresql://a:b@c@{SECRET_TAIL}@host:1/db?o=a@b y") == "x postgresql://a:***@host:1/db?o=a@b y"
    assert redact("postgresql://a:pw@host/db?x=a@b") == "postgresql://a:***@host/db?x=a@b"  # not into the query
    assert redact("mysql://u:p@h/d and mysql://v:q@w/e") == "mysql://u:***@h/d and mysql://v:***@w/e"


def test_a_file_url_with_an_at_sign_in_its_path_still_opens(tmp_path):
    path = tmp_path / "a@b.db"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE t (p REAL, y INTEGER)")
    con.executemany("INSERT INTO t VALUES (?, ?)", [(0.2, 0), (0.7, 1), (0.6, 0), (0.9, 1)])
    con.commit()
    con.close()
    got = audit_sql(f"sqlite:///{path}", table="t", score="p", label="y", min_count=1)
    assert got.n == 4


def test_a_sqlalchemy_engine_that_cannot_connect_is_one_line():
    """Before: SQLAlchemy's OperationalError, raw, with its traceback (the engine's connect() was unguarded)."""
    sqlalchemy = pytest.importorskip("sqlalchemy")
    pytest.importorskip("psycopg")
    engine = sqlalchemy.create_engine("postgresql+psycopg://alice:hunter2@127.0.0.1:1/db")
    with pytest.raises(vc.VeracityError, match=r"^cannot connect through the postgresql engine: .*") as info:
        audit_sql(engine, table="t", score="p", label="y")
    assert "hunter2" not in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize("role", ["label", "sample_weight"])
def test_the_score_naming_the_label_or_weight_column_is_refused(engine, role):
    """Before: score= the label column audited the answers as a perfect model (ECE 0, Brier 0, AUC 1.0),
    silently (the CLI refused it; the function did not)."""
    from .conftest import load

    name, conn = engine
    rng = np.random.default_rng(0)
    p = rng.random(200)
    load(name, conn, "t_same", {"p": p, "y": (rng.random(200) < p).astype(np.int64), "w": rng.random(200) + 0.5})
    column = {"label": "y", "sample_weight": "w"}[role]
    kwargs = {"label": "y", "sample_weight": "w" if role == "sample_weight" else None}
    with pytest.raises(vc.VeracityError, match=rf"^score= names the {role} column '{column}'"):
        audit_sql(conn, table="t_same", score=column, **kwargs)
    with pytest.raises(vc.VeracityError, match=rf"^score= names the {role} column '{column}'"):
        vc.audit(conn, table="t_same", score=column, **kwargs)


def _typed_keys(kind: str, n: int, rng) -> tuple[list, str]:
    import datetime
    import uuid

    codes = rng.integers(0, 8, n)
    if kind == "date":
        return [datetime.date(2024, 1, 1) + datetime.timedelta(days=int(c)) for c in codes], "DATE"
    if kind == "timestamp":
        return [datetime.datetime(2024, 1, 1, int(c), 0, 0, 123457) for c in codes], "TIMESTAMP"
    if kind == "timestamptz":
        return [datetime.datetime(2024, 1, 1, int(c), 30, 0, 5, tzinfo=datetime.timezone.utc) for c in codes], \
            "TIMESTAMPTZ"
    return [uuid.UUID(int=int(c) * 977) for c in codes], "UUID"


@pytest.mark.parametrize("kind", ["date", "timestamp", "timestamptz", "uuid"])
def test_a_capped_by_of_dates_times_or_uuids_pools_like_the_array_form(engine, kind):
    """Before: a by= column of DATE, TIMESTAMP or UUID values with more slices than max_groups (100 by
    default: a by=day column over a few months) was refused after every sum had been computed ("a value
    of type date ... cannot be written into the query; use a column of numbers, text or booleans"): the
    pooled slice's AUC names the kept keys in its query."""
    name, conn = engine
    if name == "sqlite":
        pytest.skip("SQLite stores dates, times and UUIDs as text (the string keys are tested elsewhere)")
    rng = np.random.default_rng(11)
    n = 400
    p = np.round(rng.random(n), 2)
    y = (rng.random(n) < p).astype(int)
    keys, sql_type = _typed_keys(kind, n, rng)
    conn.execute("DROP TABLE IF EXISTS t_typed")
    conn.execute(f'CREATE TABLE t_typed (p DOUBLE PRECISION, y INTEGER, g {sql_type})')
    rows = [(float(a), int(b), c) for a, b, c in zip(p, y, keys)]
    if name == "postgres":
        with conn.cursor() as cur:
            cur.executemany("INSERT INTO t_typed VALUES (%s, %s, %s)", rows)
    else:
        conn.executemany("INSERT INTO t_typed VALUES (?, ?, ?)", rows)
    got = audit_sql(conn, table="t_typed", score="p", label="y", by="g", max_groups=3)
    want = vc.audit(p, y, by={"g": np.array(keys, dtype=object)}, max_groups=3)
    assert len(got.groups) == len(want.groups) == 3
    for g_got, g_want in zip(got.groups.values(), want.groups.values()):
        assert (g_got.n, g_got.auc) == (g_want.n, pytest.approx(g_want.auc, abs=1e-12))
        assert g_got.ece == pytest.approx(g_want.ece, abs=1e-12)


@pytest.mark.parametrize("weighted, bins", [(False, 1100), (True, 1700)])
def test_a_thousand_quantile_bins_audit_like_the_array_form(engine, weighted, bins):
    """Before: quantile bins beyond ~1,000 failed inside the database: the bin index was one flat sum of
    a test per edge, an expression tree deeper than SQLite's and DuckDB's limit of 1000 ("Expression tree
    is too large"), and the weighted edges came back as one column per edge (PostgreSQL returns at most
    1664: "target lists can have at most 1664 entries"). The array form takes up to 10,000 bins."""
    from .conftest import load

    name, conn = engine
    rng = np.random.default_rng(5)
    n = 2400
    p = rng.random(n)
    y = (rng.random(n) < p).astype(np.int64)
    w = rng.random(n) + 0.1
    load(name, conn, "t_many_bins", {"p": p, "y": y, "w": w})
    got = audit_sql(conn, table="t_many_bins", score="p", label="y", sample_weight="w" if weighted else None,
                    bins=bins, strategy="quantile", min_count=1)
    want = vc.audit(p, y, sample_weight=w if weighted else None, bins=bins, strategy="quantile", min_count=1)
    assert got.ece == pytest.approx(want.ece, abs=1e-12) and got.mce == pytest.approx(want.mce, abs=1e-12)
    assert got.auc == pytest.approx(want.auc, abs=1e-12)
    assert np.array_equal(got.table.stats.edges, want.table.stats.edges)


def test_label_none_is_refused_in_one_line():
    with pytest.raises(vc.VeracityError, match=r"^label= names a column of the table \(a string\), got None"):
        audit_sql(sqlite3.connect(":memory:"), table="t", score="p", label=None)


@pytest.mark.parametrize("role", ["score", "label", "sample_weight", "by"])
def test_an_array_where_a_column_name_goes_is_one_line(role):
    """Before: the message held the array's repr, over several lines (numpy breaks long reprs)."""
    args = {"table": "t", "score": "p", "label": "y", role: np.linspace(0.0, 1.0, 5000)}
    shown = r"got an array of shape \(5000,\); the table form names columns"  # one wording: sources' shown_arg
    with pytest.raises(vc.VeracityError, match=shown) as info:
        vc.audit(sqlite3.connect(":memory:"), **args)
    assert "\n" not in str(info.value)
