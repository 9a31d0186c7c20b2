"""Hostile inputs to the SQL pushdown audit and the delayed-label tools: every number equals the
in-memory oracle's, and bad input is one line of ``vc.VeracityError``."""

from __future__ import annotations

import functools
import math
import sqlite3
import warnings

import numpy as np
import pytest

import veracity as vc

duckdb = pytest.importorskip("duckdb")

#: the module's tests in one worker under ``make test`` (``-n 2 --dist loadgroup``):
#: the NaN-keyed table is made once; spread over both workers, each made it (r43)
pytestmark = pytest.mark.xdist_group(__name__)


def _duck_table(columns: dict[str, np.ndarray]):
    """A DuckDB table ``"t; x"`` holding ``columns``, NaN kept as NaN (a pandas frame would make it NULL)."""
    conn = duckdb.connect(":memory:")
    names = list(columns)
    kinds = {"f": "DOUBLE", "i": "BIGINT"}
    decl = ", ".join(f'"{c}" {kinds.get(np.asarray(columns[c]).dtype.kind, "TEXT")}' for c in names)
    conn.execute(f'CREATE TABLE "t; x" ({decl})')
    rows = [tuple(columns[c][i].item() for c in names) for i in range(len(columns[names[0]]))]
    # one multi-row INSERT: the same values bound the same way as an executemany, which DuckDB runs one
    # statement per row (~1 ms of CPU each)
    row = f'({", ".join("?" * len(names))})'
    conn.execute(f'INSERT INTO "t; x" VALUES {", ".join([row] * len(rows))}', [v for r in rows for v in r])
    return conn


def _same_audit(got, want) -> None:
    for name in ("n", "ece", "mce", "brier", "nll", "auc", "accuracy", "total_weight"):
        a, b = getattr(got, name), getattr(want, name)
        assert (a is None) == (b is None), name
        if a is not None:
            assert a == pytest.approx(b, abs=1e-12, rel=1e-12, nan_ok=True), name


def _nan_keyed():
    rng = np.random.default_rng(7)
    n = 300
    p = np.round(rng.random(n), 2)
    y = (rng.random(n) < p).astype(np.int64)
    w = rng.random(n) + 0.1
    g = rng.choice(np.array([1.5, 2.0, np.nan]), n)
    return p, y, w, g


@functools.cache
def _nan_keyed_table():
    """:func:`_nan_keyed` as a DuckDB table, made once for the nine audits below that read it (each made its
    own connection and inserted the 300 rows one statement at a time)."""
    p, y, w, g = _nan_keyed()
    return _duck_table({"p": p, "y": y, "w": w, "g": g})


@pytest.mark.parametrize("max_groups", [None, 2, 3])
@pytest.mark.parametrize("options", [{}, {"weighted": True}, {"strategy": "quantile", "bins": 6}])
def test_a_nan_slice_key_is_one_slice_like_the_array_form(max_groups, options):
    # each NaN a driver returns is a new float, unequal to every other: the rows of the NaN slice
    # were split into one slice per bin and the last bin's overwrote the others (DuckDB, PostgreSQL)
    p, y, w, g = _nan_keyed()
    conn = _nan_keyed_table()
    opts = dict(options)
    weighted = opts.pop("weighted", False)
    got = vc.audit(conn, table="t; x", score="p", label="y", by="g", max_groups=max_groups,
                   sample_weight="w" if weighted else None, **opts)
    want = vc.audit(p, y, by={"g": g}, max_groups=max_groups, sample_weight=w if weighted else None, **opts)
    assert set(got.groups) == set(want.groups)
    assert sum(r.n for r in got.groups.values()) == p.size
    _same_audit(got, want)
    for key in want.groups:
        _same_audit(got.groups[key], want.groups[key])


def test_the_nan_slice_comes_after_the_numbers():
    p, y, _, g = _nan_keyed()
    conn = _duck_table({"p": p, "y": y, "g": g})
    got = vc.audit(conn, table="t; x", score="p", label="y", by="g")
    assert list(got.groups) == list(vc.audit(p, y, by={"g": g}).groups) == ["1.5", "2.0", "(missing)"]


def test_nan_labels_with_pos_label_are_missing_labels():
    # DuckDB counts NaN as a third label value: the message spoke of a multiclass label set
    rng = np.random.default_rng(3)
    p = rng.random(200)
    y = (rng.random(200) < p).astype(np.float64)
    y[[4, 9]] = np.nan
    conn = _duck_table({"p": p, "y": y})
    with pytest.raises(vc.VeracityError) as got:
        vc.audit(conn, table="t; x", score="p", label="y", pos_label=1.0)
    with pytest.raises(vc.VeracityError) as want:  # the array form's reading: 2 missing labels
        vc.audit(p, y, pos_label=1.0)
    assert "2 missing values" in str(want.value) and "2 missing values" in str(got.value)
    assert "\n" not in str(got.value) and "'y'" in str(got.value)


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_an_empty_table_with_pos_label_says_it_has_no_rows(engine):
    conn = sqlite3.connect(":memory:") if engine == "sqlite" else duckdb.connect(":memory:")
    conn.execute("CREATE TABLE e (p DOUBLE, y TEXT)")
    with pytest.raises(vc.VeracityError, match="no rows"):
        vc.audit(conn, table="e", score="p", label="y", pos_label="yes")


# -- delayed labels --------------------------------------------------------------------------------
def test_ppi_refuses_fewer_than_two_labelled_rows_of_positive_weight():
    # one row of positive weight is one labelled row: the interval came out [e, e], zero wide
    rng = np.random.default_rng(0)
    g = rng.random(500)
    y, f = np.array([1, 0, 1, 0, 1]), np.array([0.9, 0.2, 0.7, 0.4, 0.6])
    with pytest.raises(vc.VeracityError, match="positive sample_weight"):
        vc.ppi_mean(y, f, g, sample_weight=[0, 0, 0, 0, 1])
    with pytest.raises(vc.VeracityError, match="at least 2"):  # the unweighted rule, for comparison
        vc.ppi_mean(y[-1:], f[-1:], g)
    r = vc.ppi_mean(y, f, g, sample_weight=[0, 0, 0, 1, 1])
    assert r.ci_high - r.ci_low > 0.1


@pytest.mark.parametrize("width", [1e-10, 1e-150])
def test_labels_needed_beyond_any_count_says_so(width):
    # the count overflowed int64 and wrapped to a negative number: the message then blamed the spread of
    # scores whose sd is 0
    f = np.full(1000, 0.5)
    z = 1.959963984540054
    assert 0.25 / (width / 2 / z) ** 2 > 2**63  # the oracle's count: beyond any integer
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(vc.VeracityError, match="needs more than .* labels but the window has only 1,000"):
            vc.labels_needed(f, width=width)
        plan = vc.label_plan(f, width=width)
    assert plan.rows[0]["labels_ppi"] is None


def test_labels_needed_is_the_formula():
    rng = np.random.default_rng(5)
    f = rng.beta(2, 5, 4000)
    z = 1.959963984540054
    want = math.ceil(np.mean(f * (1 - f)) / ((0.05 / 2 / z) ** 2 - f.var() / f.size))
    assert vc.labels_needed(f, width=0.05) == want


def test_power_tuning_must_be_a_boolean():
    # a string such as "no" once read as True (PPI++ power tuning on)
    with pytest.raises(vc.VeracityError, match=r"^power_tuning must be True or False, got 'no'$"):
        vc.ppi_mean([1, 0, 1], [0.8, 0.2, 0.6], [0.5, 0.4], power_tuning="no")
    plain = vc.ppi_mean([1, 0, 0, 1, 0, 0], [0.9, 0.2, 0.1, 0.6, 0.3, 0.2], [0.8, 0.1, 0.3, 0.2, 0.7],
                        power_tuning=np.False_)
    assert plain.lam == 1.0


def test_a_duckdb_connection_with_an_unread_result_is_one_line():
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    con.execute("CREATE TABLE t AS SELECT i / 10.0 AS p, i % 2 AS y FROM range(10) r(i)")
    relation = con.table("t")
    con.execute("SELECT * FROM range(5000)").fetchone()  # a result left half read
    with pytest.raises(vc.VeracityError, match=r"not yet read to the end.*con\.cursor\(\)") as info:
        vc.audit(relation, score="p", label="y")
    assert "\n" not in str(info.value)
    con.execute("SELECT 1").fetchall()  # the result read: the same relation audits
    assert vc.audit(relation, score="p", label="y").n == 10
