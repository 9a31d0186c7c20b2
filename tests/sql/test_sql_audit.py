"""``audit_sql`` equals the in-memory ``vc.audit`` on SQLite, DuckDB and PostgreSQL (issue 27).

The oracle is the array form on the same rows, to 1e-12; every engine runs the SQL
sqlglot generated for its dialect. The counting connection proves that only the
aggregates travel: the rows fetched are bounded by bins × slices plus a constant.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import veracity as vc
from veracity.sql import audit_sql

from .conftest import CountingConnection, load, load_once

TOL = 1e-12


def assert_same(got: Any, want: Any, where: str = "") -> None:
    """Equal structure; numbers equal to 1e-12 (absolute, or relative for large ones)."""
    if isinstance(want, dict):
        assert isinstance(got, dict) and set(got) == set(want), (where, sorted(got), sorted(want))
        for k in want:
            assert_same(got[k], want[k], f"{where}.{k}")
    elif isinstance(want, (list, tuple)):
        assert len(got) == len(want), where
        for i, (a, b) in enumerate(zip(got, want)):
            assert_same(a, b, f"{where}[{i}]")
    elif isinstance(want, float) and not isinstance(want, bool):
        assert isinstance(got, (int, float)), (where, got, want)
        if math.isnan(want):
            assert math.isnan(got), (where, got)
        else:
            assert abs(got - want) <= TOL * max(1.0, abs(want)), (where, got, want)
    else:
        assert got == want, (where, got, want)


def data(n: int = 1500, seed: int = 0) -> dict[str, np.ndarray]:
    """Scores with ties, exact 0 and 1, bin edges; labels; weights; a slice column."""
    rng = np.random.default_rng(seed)
    p = np.round(rng.beta(2, 3, n), 3)
    p[:40] = np.repeat([0.0, 1.0, 0.2, 0.4, 1 / 3, 0.6, 0.8, 0.5], 5)
    y = (rng.random(n) < p * 0.9 + 0.05).astype(np.int64)
    w = rng.gamma(2.0, 1.5, n)
    seg = rng.choice(np.array(["north", "south", "east", "wést"]), n, p=[0.4, 0.3, 0.2, 0.1])
    logit = np.round(rng.normal(0, 2.5, n), 2)
    return {"p": p, "y": y, "w": w, "seg": seg, "z": logit,
            "yes": np.where(y == 1, "yes", "no").astype(object)}


DATA = data()

CASES = {
    "plain": (dict(), dict()),
    "weights_and_slices": (dict(sample_weight="w", by="seg"), dict()),
    "pos_label": (dict(label="yes", pos_label="yes", by="seg"), dict()),
    "logit": (dict(score="z", score_type="logit", threshold=0.3), dict()),
    "quantile": (dict(strategy="quantile", bins=10, by="seg"), dict()),
    "quantile_weighted": (dict(strategy="quantile", bins=8, sample_weight="w"), dict()),
    "equal_count": (dict(strategy="equal-count", bins=12), dict()),
    "auto_bins_weighted": (dict(bins="auto", sample_weight="w"), dict()),
    "slice_cap": (dict(by="seg", max_groups=3, sample_weight="w"), dict()),
}


def in_memory(cols: dict[str, np.ndarray], *, score: str = "p", label: str = "y", sample_weight: str | None = None,
              by: str | None = None, **options: Any) -> Any:
    return vc.audit(cols[score], cols[label], sample_weight=None if sample_weight is None else cols[sample_weight],
                    by=None if by is None else {by: cols[by]}, **options)


@pytest.mark.parametrize("case", list(CASES))
def test_pushdown_equals_the_in_memory_audit(engine, case):
    name, conn = engine
    cols = DATA
    load_once(name, conn, "scores", cols)
    options, _ = CASES[case]
    counting = CountingConnection(conn)
    got = audit_sql(counting, table="scores", dialect=name, **{"score": "p", "label": "y", **options})
    want = in_memory(cols, **options)
    assert_same(got.to_dict(), want.to_dict())
    assert str(got) == str(want)
    # only aggregates came back: bins x slices rows, plus a few (columns, types, AUC, edges)
    m = got.table.bins
    slices = max(1, len(got.groups))
    assert counting.rows <= m * (slices + 1) + 2 * slices + 40, counting.rows
    assert counting.rows < len(cols["p"]) / 4


def test_no_statement_returns_rows_on_a_large_table(engine):
    """8,000 rows, 4 slices: the largest result set is one row per (slice, bin)."""
    name, conn = engine
    cols = data(8_000, seed=3)
    load(name, conn, "big", {k: cols[k] for k in ("p", "y", "w", "seg")})
    counting = CountingConnection(conn)
    got = audit_sql(counting, table="big", score="p", label="y", by="seg", sample_weight="w", bins=10,
                    dialect=name)
    assert got.n == 8_000
    assert counting.largest <= 10 * 4 + 1
    assert counting.rows <= 10 * 4 + 20
    want = in_memory(cols, sample_weight="w", by="seg", bins=10)
    assert_same(got.to_dict(), want.to_dict())


def test_unweighted_auc_is_bit_identical(engine):
    name, conn = engine
    cols = data(800, seed=5)
    load(name, conn, "ties", {"p": cols["p"], "y": cols["y"]})
    got = audit_sql(conn, table="ties", score="p", label="y")
    assert got.auc == vc.auc(cols["p"], cols["y"])


def test_boolean_labels(engine):
    name, conn = engine
    cols = data(400, seed=7)
    labels = cols["y"].astype(bool) if name != "sqlite" else cols["y"]
    load(name, conn, "flags", {"p": cols["p"], "hit": labels})
    got = audit_sql(conn, table="flags", score="p", label="hit")
    assert_same(got.to_dict(), vc.audit(cols["p"], cols["y"]).to_dict())


def test_single_class_slice_has_no_auc(engine):
    name, conn = engine
    p = np.array([0.1, 0.4, 0.35, 0.8, 0.9, 0.7])
    y = np.array([0, 1, 0, 1, 1, 1])
    seg = np.array(["a", "a", "a", "b", "b", "b"])
    load(name, conn, "one_class", {"p": p, "y": y, "seg": seg})
    got = audit_sql(conn, table="one_class", score="p", label="y", by="seg", min_count=1)
    assert got.groups["b"].auc is None
    assert_same(got.to_dict(), vc.audit(p, y, by={"seg": seg}, min_count=1).to_dict())


def test_a_url_reaches_sqlite_and_duckdb_files(tmp_path):
    import sqlite3

    import duckdb

    cols = data(300, seed=11)
    want = vc.audit(cols["p"], cols["y"]).to_dict()
    lite = tmp_path / "scores.db"
    conn = sqlite3.connect(lite)
    load("sqlite", conn, "s", {"p": cols["p"], "y": cols["y"]})
    conn.close()
    assert_same(audit_sql(f"sqlite:///{lite}", table="s", score="p", label="y").to_dict(), want)
    duck = tmp_path / "scores.duckdb"
    conn = duckdb.connect(str(duck))
    load("duckdb", conn, "s", {"p": cols["p"], "y": cols["y"]})
    conn.close()
    assert_same(audit_sql(f"duckdb:///{duck}", table="s", score="p", label="y").to_dict(), want)


def test_postgres_url(pg_uri, pg_conn):
    cols = data(300, seed=13)
    load("postgres", pg_conn, "by_url", {"p": cols["p"], "y": cols["y"], "seg": cols["seg"]})
    got = audit_sql(pg_uri, table="by_url", score="p", label="y", by="seg")
    assert_same(got.to_dict(), in_memory(cols, by="seg").to_dict())


def test_schema_qualified_table(pg_conn):
    cols = data(200, seed=17)
    pg_conn.execute('CREATE SCHEMA IF NOT EXISTS "my schema"')
    load("postgres", pg_conn, "plain", {"p": cols["p"], "y": cols["y"]})
    pg_conn.execute('DROP TABLE IF EXISTS "my schema"."t"')
    pg_conn.execute('CREATE TABLE "my schema"."t" AS SELECT * FROM "plain"')
    got = audit_sql(pg_conn, table=("my schema", "t"), score="p", label="y")
    assert_same(got.to_dict(), vc.audit(cols["p"], cols["y"]).to_dict())


def test_the_frame_form_and_the_sql_form_agree_on_duckdb():
    """A second oracle: the narwhals aggregates of the lazy DuckDB frame form."""
    import duckdb

    cols = data(1000, seed=19)
    conn = duckdb.connect(":memory:")
    load("duckdb", conn, "t", {k: cols[k] for k in ("p", "y", "w", "seg")})
    frame = vc.audit(conn.table("t"), score="p", label="y", sample_weight="w", by="seg")
    got = audit_sql(conn, table="t", score="p", label="y", sample_weight="w", by="seg")
    assert_same(got.to_dict(), frame.to_dict())


def test_the_integer_path_for_huge_tables(engine, monkeypatch):
    """Above 1e8 unweighted rows the counts are summed as integers (doubles would round): forced here."""
    from veracity.sql import _query

    name, conn = engine
    load_once(name, conn, "scores", DATA)
    monkeypatch.setattr(_query, "EXACT_DOUBLE_ROWS", 0)
    got = audit_sql(conn, table="scores", score="p", label="y", by="seg", max_groups=3)
    want = in_memory(DATA, by="seg", max_groups=3)
    assert_same(got.to_dict(), want.to_dict())
    assert got.auc == vc.auc(DATA["p"], DATA["y"])


@pytest.mark.parametrize("route", ["rows", "values"])
@pytest.mark.parametrize("case", list(CASES))
def test_both_routes_equal_the_in_memory_audit(engine, case, route, monkeypatch):
    """Row-at-a-time engines run the AUC's window over the rows where most scores are distinct and over
    one aggregate per distinct score where they repeat (``_query.route_sql``); each route forced here,
    on scores with ties, 0 and 1, and bin edges."""
    from veracity.sql import _query

    name, conn = engine
    if _query.window_by_bin(name):
        pytest.skip(f"{name} partitions the AUC's window by bin: one route")
    monkeypatch.setattr(_query, "ROWS_SHARE", 0.0 if route == "rows" else 2.0)
    load_once(name, conn, "scores", DATA)
    options, _ = CASES[case]
    counting = CountingConnection(conn)
    got = audit_sql(counting, table="scores", dialect=name, **{"score": "p", "label": "y", **options})
    want = in_memory(DATA, **options)
    assert_same(got.to_dict(), want.to_dict())
    if "sample_weight" not in options and options.get("score", "p") == "p":
        assert got.auc == vc.auc(DATA["p"], DATA["y"])  # unweighted: integers, bit-identical
    m = got.table.bins
    assert counting.rows <= m * (max(1, len(got.groups)) + 1) + 2 * max(1, len(got.groups)) + 40
    taken, other = ("_nle", "_val AS") if route == "rows" else ("_val AS", "_nle")
    assert any(taken in s for s in counting.statements) and not any(other in s for s in counting.statements)


def test_the_route_follows_the_share_of_distinct_scores():
    """Continuous scores take the rows route; rounded ones (few distinct values) the per-score aggregate."""
    import sqlite3

    from veracity.sql._audit import _rows_route
    from veracity.sql._connect import open_database
    from veracity.sql._query import Columns

    rng = np.random.default_rng(11)
    conn = sqlite3.connect(":memory:")
    p = rng.random(3000)
    y = (rng.random(3000) < p).astype(np.int64)
    load("sqlite", conn, "cont", {"p": p, "y": y})
    load("sqlite", conn, "rounded", {"p": np.round(p, 2), "y": y})
    db = open_database(conn)
    assert _rows_route(db, Columns(table="cont", score="p", label="y"))
    assert not _rows_route(db, Columns(table="rounded", score="p", label="y"))
    assert audit_sql(conn, table="cont", score="p", label="y").auc == vc.auc(p, y)


def test_the_rows_route_counts_every_pair():
    """``combine_bins(rows=True)``: Σ₊ w·W₋(≤s) − Σ₋ w·W₊(≤s) + W₊W₋ is 2U (ties ½), against all pairs."""
    from veracity.sql._query import combine_bins

    rng = np.random.default_rng(5)
    s = rng.choice([0.1, 0.2, 0.3, 0.5], 60)
    y = rng.integers(0, 2, 60)
    w = rng.integers(1, 4, 60)
    pos, neg = y == 1, y == 0
    le = s[None, :] <= s[:, None]  # [i, j]: s_j <= s_i
    a = (w * pos * (le * (w * neg)[None, :]).sum(axis=1)).sum()
    b = (w * neg * (le * (w * pos)[None, :]).sum(axis=1)).sum()
    pairs = sum(int(w[i] * w[j]) * (2 if s[i] > s[j] else 1 if s[i] == s[j] else 0)
                for i in np.flatnonzero(pos) for j in np.flatnonzero(neg))
    total, wp, wn = combine_bins([(0, int(a - b), int((w * pos).sum()), int((w * neg).sum()))], rows=True)
    assert (total, wp, wn) == (pairs, int((w * pos).sum()), int((w * neg).sum()))


def test_the_rows_route_on_the_integer_path(engine, monkeypatch):
    """Above 1e8 rows the rows route sums integers too."""
    from veracity.sql import _query

    name, conn = engine
    if _query.window_by_bin(name):
        pytest.skip(f"{name} has one route")
    load_once(name, conn, "scores", DATA)
    monkeypatch.setattr(_query, "EXACT_DOUBLE_ROWS", 0)
    monkeypatch.setattr(_query, "ROWS_SHARE", 0.0)
    got = audit_sql(conn, table="scores", score="p", label="y", by="seg", max_groups=3)
    assert_same(got.to_dict(), in_memory(DATA, by="seg", max_groups=3).to_dict())
    assert got.auc == vc.auc(DATA["p"], DATA["y"])


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 60).flatmap(lambda n: st.tuples(
    st.lists(st.sampled_from([0.0, 0.05, 0.2, 1 / 3, 0.5, 0.6666, 0.8, 0.95, 1.0]), min_size=n, max_size=n),
    st.lists(st.integers(0, 1), min_size=n, max_size=n),
    # (subnormal weights such as 5e-294 are left out: SQL engines flush them to 0, an engine's
    # arithmetic, not a user's data)
    st.lists(st.floats(0.0, 5.0, allow_subnormal=False), min_size=n, max_size=n),
    st.lists(st.sampled_from(["a", "b", "c"]), min_size=n, max_size=n),
    st.booleans(), st.sampled_from(["uniform", "quantile", "equal-count"]))))
def test_any_small_table_audits_like_its_rows(case):
    """Property: on SQLite, ties, 0/1 scores, zero weights, tiny slices: the in-memory audit's numbers."""
    import sqlite3

    p, y, w, seg, weighted, strategy = case
    p, y, w, seg = np.array(p), np.array(y), np.array(w), np.array(seg, dtype=object)
    if weighted and not w.max() > 0:
        w[0] = 1.0
    conn = sqlite3.connect(":memory:")
    load("sqlite", conn, "t", {"p": p, "y": y, "w": w, "seg": seg})
    options = dict(bins=4, strategy=strategy, min_count=1)
    weight = {"sample_weight": "w"} if weighted else {}
    got = audit_sql(conn, table="t", score="p", label="y", by="seg", **weight, **options)
    want = vc.audit(p, y, sample_weight=w if weighted else None, by={"seg": seg}, **options)
    assert_same(got.to_dict(), want.to_dict())


def test_extreme_weights_are_rescaled_like_arrays(engine):
    """Weights near 1e200 (their squares would overflow) are scaled by an exact power of two first."""
    name, conn = engine
    cols = data(600, seed=23)
    big = cols["w"] * 1e200
    load(name, conn, "heavy", {"p": cols["p"], "y": cols["y"], "w": big, "seg": cols["seg"]})
    got = audit_sql(conn, table="heavy", score="p", label="y", sample_weight="w", by="seg", bins="auto")
    want = vc.audit(cols["p"], cols["y"], sample_weight=big, by={"seg": cols["seg"]}, bins="auto")
    assert_same(got.to_dict(), want.to_dict())


def test_a_slice_whose_rows_all_weigh_zero_is_left_out_everywhere():
    """Found by the property above: a slice of zero total weight divided by zero (a raw
    ZeroDivisionError in memory and in SQL); it holds no evidence and is left out of the slices."""
    import sqlite3

    p, y, w = np.array([0.0, 0.0, 0.4]), np.array([0, 0, 1]), np.array([1.0, 0.0, 2.0])
    seg = np.array(["a", "b", "a"], dtype=object)
    conn = sqlite3.connect(":memory:")
    load("sqlite", conn, "t", {"p": p, "y": y, "w": w, "seg": seg})
    got = audit_sql(conn, table="t", score="p", label="y", sample_weight="w", by="seg", bins=4, min_count=1)
    want = vc.audit(p, y, sample_weight=w, by={"seg": seg}, bins=4, min_count=1)
    assert list(want.groups) == ["a"]
    assert_same(got.to_dict(), want.to_dict())
    import duckdb

    rel = duckdb.connect().sql("SELECT * FROM (VALUES (0.0::DOUBLE, 0, 1.0::DOUBLE, 'a'), (0.0, 0, 0.0, 'b'), (0.4, 1, 2.0, 'a')) "
                               "t(p, y, w, seg)")
    assert list(vc.audit(rel, score="p", label="y", sample_weight="w", by="seg", bins=4, min_count=1).groups) == ["a"]


def test_the_integer_sort_key_keeps_the_order_of_the_scores(engine, monkeypatch):
    """PostgreSQL sorts the rows route by ``(k(s), s)`` (``_query._upto``): scores whose integer
    keys collide (probabilities below 2⁻⁹ a few ulps apart) or are clamped (logits beyond ±2) are
    still ordered, and tied, by the score itself: the AUC is the in-memory one, bit for bit."""
    from veracity.sql import _query

    name, conn = engine
    if _query.window_by_bin(name):
        pytest.skip(f"{name} partitions the AUC's window by bin: one route")
    monkeypatch.setattr(_query, "ROWS_SHARE", 0.0)
    rng = np.random.default_rng(27)
    tiny = 1e-5 + np.arange(40) * 2e-20  # one integer key (2**61 * 1e-5, rounded), 40 scores
    p = np.concatenate([tiny, tiny[::3], np.full(6, 1e-150), np.zeros(4), rng.random(30).round(2)])
    z = np.concatenate([[-300.0, -100.0, -40.0, -40.0, -2.0, 2.0, 3.0, 3.0, 100.0, 300.0],
                        -3.0 - np.arange(20) * 1e-13, rng.normal(0, 3, 30).round(1)])
    for scores, kind in ((p, "probability"), (z, "logit")):
        y = rng.integers(0, 2, scores.size)
        load(name, conn, "keys", {"s": scores, "y": y})
        got = audit_sql(conn, table="keys", score="s", label="y", score_type=kind, min_count=1)
        want = vc.audit(scores, y, score_type=kind, min_count=1)
        assert got.auc == vc.auc(scores, y, score_type=kind), kind
        assert_same(got.to_dict(), want.to_dict(), kind)


@pytest.mark.parametrize("score_type", ["probability", "logit"])
def test_scores_whose_square_underflows(engine, score_type):
    """Probabilities below 1.5e-154 (logits below about -354): p*p underflows, which PostgreSQL
    refuses with an error; the audit still equals the in-memory one (p² of such a row is 0 in any sum)."""
    name, conn = engine
    rng = np.random.default_rng(11)
    if score_type == "probability":
        s = np.concatenate([[1e-200, 1e-170, 2e-155, 1e-300], np.round(rng.random(196), 3)])
    else:
        s = np.concatenate([[-700.0, -600.0, -400.0, -355.0, -800.0], np.round(rng.normal(0, 3, 195), 2)])
    y = (rng.random(s.size) < 0.4).astype(np.int64)
    load(name, conn, "tiny", {"s": s, "y": y})
    got = audit_sql(conn, table="tiny", score="s", label="y", score_type=score_type, dialect=name)
    assert_same(got.to_dict(), vc.audit(s, y, score_type=score_type).to_dict())
