"""The export's faster paths write what the step-by-step forms wrote (session 36).

Three parts of ``to_sql`` ran a Python loop per entry of a step table: the merged Venn-ABERS table
(:func:`~veracity.export._plan.merged_venn_abers`, one edge and value per knot and gap), the text of an
array constant (one shortest literal per entry, repeated zeros and sentinels among them) and the check
that every constant is finite (each class's map read K times by a one-vs-rest head). They are vectorised,
or read each shared node once; the texts they write are the same, byte for byte. sqlglot parses a type's
text on every ``DataType.build``: the casts now copy a type parsed once.
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc
from veracity.export import _plan, _sql


def _merged_one_by_one(c: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> tuple[list[float], list[float]]:
    """The merged table's (edges, values), knot by knot: edge c_i with the knot's value
    p1_i / ((1 - p0_{i+1}) + p1_i), then edge next(c_i) with the next gap's p1 / ((1 - p0) + p1) where
    that gap holds a double; an edge between two equal doubles (sign included) is dropped."""
    gap = hi / (1.0 - lo + hi)
    knot = hi[:-1] / (1.0 - lo[1:] + hi[:-1])
    with np.errstate(over="ignore"):
        above = np.nextafter(c, np.inf)
    edges: list[float] = []
    values = [float(gap[0])]
    for i in range(c.size):
        steps = [(float(c[i]), float(knot[i]))]
        if np.isfinite(above[i]) and (i + 1 == c.size or above[i] < c[i + 1]):
            steps.append((float(above[i]), float(gap[i + 1])))
        for edge, value in steps:
            if not (value == values[-1] and np.signbit(value) == np.signbit(values[-1])):
                edges.append(edge)
                values.append(value)
    return edges, values


def _va_node(c: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> tuple:
    x = ("col", 0)
    p0 = ("piecewise", x, c, "right", _plan._consts(lo))
    p1 = ("piecewise", x, c, "left", _plan._consts(hi))
    return ("div", p1, ("add", ("sub", ("const", 1.0), p0), p1))


def _tables(rng: np.random.Generator, trial: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    k = int(rng.integers(1, 12))
    if trial % 3 == 0:    # knots one double apart: gaps that hold no double
        c = np.unique(0.3 + np.cumsum(rng.integers(1, 3, k)) * 5.551115123125783e-17)
    elif trial % 3 == 1:  # 0, the smallest subnormal, the largest double (its next double is inf)
        c = np.unique(np.concatenate([[0.0, 5e-324], np.sort(rng.random(k)), [np.finfo(np.float64).max]]))
    else:
        c = np.unique(np.round(rng.random(k), 1))
    # repeated step values (runs of equal doubles), 0 among them
    lo = np.sort(rng.choice([0.0, 0.1, 0.25, 0.5], size=c.size + 1))
    hi = np.maximum(lo, np.sort(rng.choice([0.0, 0.3, 0.5, 1.0], size=c.size + 1)))
    return c, lo, hi


def test_the_merged_venn_abers_table_is_the_one_by_one_table():
    rng = np.random.default_rng(36)
    merged = 0
    for trial in range(600):
        c, lo, hi = _tables(rng, trial)
        with np.errstate(over="ignore"):
            got = _plan.merged_venn_abers(_va_node(c, lo, hi))
        if got is None:  # 0/0 somewhere: p0 = 1 and p1 = 0 on a gap or knot
            with np.errstate(invalid="ignore"):
                gaps, knots = hi / (1.0 - lo + hi), hi[:-1] / (1.0 - lo[1:] + hi[:-1])
            assert np.isnan(gaps).any() or np.isnan(knots).any(), (c, lo, hi)
            continue
        merged += 1
        edges, values = _merged_one_by_one(c, lo, hi)
        assert got[2].tolist() == edges, (c, lo, hi)
        assert [p[3] for p in got[4]] == values and all(p[:3] == ("affine", 0.0, 0.0) for p in got[4])
        assert [np.signbit(p[3]) for p in got[4]] == [np.signbit(v) for v in values]
    assert merged > 400


def test_an_array_constant_writes_each_entry_as_its_own_literal():
    values = np.array([0.0, -0.0, np.inf, 0.1, 0.1, -0.25, 1e-300, 5e-324, 0.0, 1.0, 0.1, -0.0, 2.0 ** 60])
    for dialect in ("duckdb", "postgres", "spark"):
        builder = _sql._Builder(dialect, ["p"])
        literal = builder._array_text(values, "float")
        text = literal.this if dialect != "spark" else literal.this.this
        want = ",".join("inf" if v == np.inf else "-0.0" if v == 0.0 and np.signbit(v)
                        else ("-" if v < 0.0 else "") + _sql.float_literal(abs(v), "text")
                        for v in values.tolist())
        assert text.strip("[]{}") == want, dialect
    assert want.split(",")[:4] == ["0", "-0.0", "inf", "0.1"]


def test_each_cast_gets_its_own_type():
    from sqlglot import exp

    first = _sql.data_type("DOUBLE")
    assert first == exp.DataType.build("DOUBLE")
    first.set("this", exp.DataType.Type.BIGINT)  # a change to one cast's type is not the next cast's
    assert _sql.data_type("DOUBLE") == exp.DataType.build("DOUBLE")
    assert _sql.data_type("ARRAY<DOUBLE>") == exp.DataType.build("ARRAY<DOUBLE>")


def test_a_non_finite_constant_in_a_shared_node_is_refused():
    table = ("piecewise", ("col", 0), np.array([0.5]), "right", [("affine", 0.0, 0.0, 0.1),
                                                                   ("affine", 0.0, 0.0, float("inf"))])
    with pytest.raises(vc.VeracityError, match="non-finite number inf"):
        _plan._check_constants([("head", "renorm", [table, table], k) for k in range(2)])
    _plan._check_constants([("head", "renorm", [table[:4] + ([("affine", 0.0, 0.0, 0.1)] * 2,)] * 2, 0)])
