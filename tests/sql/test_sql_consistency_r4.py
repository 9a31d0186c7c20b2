"""Round 4: the SQL pushdown agreeing with the other backends on extreme weights and boolean labels."""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc

from .conftest import load

RNG = np.random.default_rng(4)
N = 60
P = RNG.random(N)
Y = (RNG.random(N) < P).astype(np.int64)
W = np.round(RNG.random(N), 3) + 0.1


@pytest.mark.parametrize("scale", [1e-300, 1e300, 1e-200, 1e200])
@pytest.mark.parametrize("by", [None, "seg"])
def test_weights_rescaled_as_in_memory(engine, scale, by):
    """Before: on PostgreSQL the one-pass statement summed w² of the raw weights and failed
    ("value out of range: overflow" / "underflow") where the array form rescales the weights by a
    power of two; SQLite and DuckDB gave the array form's numbers."""
    name, conn = engine
    seg = np.where(np.arange(N) % 3 == 0, "a", "b").astype(object)
    load(name, conn, "weights", {"p": P, "y": Y, "w": W * scale, "seg": seg})
    got = vc.audit(conn, table="weights", score="p", label="y", sample_weight="w", by=by, min_count=1)
    expected = vc.audit(P, Y, sample_weight=W * scale, by=None if by is None else seg, min_count=1)
    assert got.ece == pytest.approx(expected.ece, rel=1e-12, abs=1e-15)
    assert got.brier == pytest.approx(expected.brier, rel=1e-12)
    assert got.auc == pytest.approx(expected.auc, rel=1e-12)
    assert set(got.groups) == set(expected.groups)


def test_pos_label_text_on_a_boolean_column(engine):
    """Before: DuckDB and PostgreSQL read pos_label="yes" on a BOOLEAN column as True (SQLite, whose
    booleans are 0/1, and the array form refuse it); "true" still names True, as --pos-label true does."""
    name, conn = engine
    load(name, conn, "flags", {"p": P, "y": Y.astype(bool)})
    with pytest.raises(vc.VeracityError, match=r"^pos_label='yes' is not among the values of column 'y'"):
        vc.audit(conn, table="flags", score="p", label="y", pos_label="yes")
    expected = vc.audit(P, Y, min_count=1)
    got = vc.audit(conn, table="flags", score="p", label="y", pos_label=True, min_count=1)
    assert got.ece == pytest.approx(expected.ece, rel=1e-12) and got.auc == expected.auc


@pytest.mark.parametrize("role", ["score", "sample_weight"])
def test_boolean_score_or_weight_column_reads_as_0_1_as_arrays_and_frames(engine, role):
    """Before: DuckDB cast a BOOLEAN score (or weight) column to 0/1 and audited it, PostgreSQL failed with
    its own "cannot cast type boolean to double precision", and the frames refused the column. Now every
    route reads TRUE/FALSE as 1/0, as the arrays always did. (SQLite has no boolean type: its 0/1 integers
    are numbers.)"""
    name, conn = engine
    if name == "sqlite":
        pytest.skip("SQLite stores booleans as the integers 0 and 1")
    b = P > 0.5
    load(name, conn, "flagged", {"p": P, "y": Y, "b": b})
    if role == "score":
        columns = {"score": "b", "sample_weight": None}
        expected = vc.audit(b, Y, min_count=1)
    else:
        columns = {"score": "p", "sample_weight": "b"}
        expected = vc.audit(P, Y, sample_weight=b, min_count=1)
    for got in (vc.audit(pd_frame(P, Y), label="y", min_count=1, **columns),
                vc.audit(conn, table="flagged", label="y", min_count=1, **columns)):
        assert got.ece == pytest.approx(expected.ece, rel=1e-12, abs=1e-15)
        assert got.auc == pytest.approx(expected.auc, rel=1e-12)
        assert got.n == expected.n


def pd_frame(p, y):
    import pandas as pd

    return pd.DataFrame({"p": p, "y": y, "b": p > 0.5})


def test_a_table_recreated_with_other_types_audits_again_on_postgres(pg_conn):
    """Before: psycopg prepares a statement run five times on a connection; after a table was re-created
    with other column types the next audit on that connection failed with "cached plan must not change
    result type" (SQLite and DuckDB audit it)."""
    load("postgres", pg_conn, "replanned", {"p": P, "y": Y})
    for _ in range(6):
        vc.audit(pg_conn, table="replanned", score="p", label="y")
    load("postgres", pg_conn, "replanned", {"p": P, "y": Y.astype(np.float64), "extra": P})
    got = vc.audit(pg_conn, table="replanned", score="p", label="y", min_count=1)
    assert got.ece == pytest.approx(vc.audit(P, Y, min_count=1).ece, rel=1e-12)


@pytest.mark.parametrize("bins", [10, 15])
def test_logits_on_bin_edges_land_in_the_array_forms_bins(engine, bins):
    """Before: the SQL turned a negative logit into exp(s)/(1 + exp(s)), the array form (scipy's expit) into
    1/(1 + exp(-s)): scores whose probability lies on a bin edge landed in the neighbouring bin."""
    name, conn = engine
    edges = np.arange(bins + 1) / bins
    p = np.clip(np.concatenate([edges, np.nextafter(edges, 2), np.nextafter(edges, -1)]), 1e-300, 1 - 1e-16)
    s = np.concatenate([np.log(p / (1 - p)), [-2000.0, -745.0, -709.5, 709.5, 745.0, 2000.0]])
    y = (np.arange(s.size) % 3 == 0).astype(np.int64)
    load(name, conn, "edges", {"s": s, "y": y})
    got = vc.audit(conn, table="edges", score="s", label="y", score_type="logit", bins=bins, min_count=1)
    expected = vc.audit(s, y, score_type="logit", bins=bins, min_count=1)
    assert [r.count for r in got.table.rows] == [r.count for r in expected.table.rows]
    assert got.ece == pytest.approx(expected.ece, rel=1e-12)
    assert got.brier == pytest.approx(expected.brier, rel=1e-12)
    assert got.nll == pytest.approx(expected.nll, rel=1e-12)
