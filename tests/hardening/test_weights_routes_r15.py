"""Round 15 follow-up: one weight rescaling and one ``pos_label`` check on every route.

Before: the rescaling of extreme weights (``core._weights.weight_exponent``) read the largest *and*
the smallest positive weight in memory, but the SQL pushdown passed the largest alone and the file
routes' smallest weight counted zeros. Weights of 1e-170 beside ordinary ones (a zero weight
among them on the file routes) kept their scale there, the squares of the tiny weights underflowed,
and a bin made only of them got effective size 1: its interval ([0.03, 0.97]) and the MCE differed
from the in-memory audit's. The results also showed the rescaled weights: ``total_weight`` of the
weights {1e-170, 1, 187} was 7.27e+27, not 188, and each reliability row's weighted ``n`` likewise.
A ``pos_label`` of ``np.array([1])`` was read as 1 on the file and SQL routes, and ``np.array([0, 1])``
raised numpy's "truth value of an array is ambiguous" there.
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc
from veracity.core._intervals import binomial_interval
from veracity.core._validation import VeracityError

from ..sql.conftest import engine, load, pg_conn  # noqa: F401 - the live engines' fixtures

RNG = np.random.default_rng(1580)
N = 400
P = np.round(RNG.uniform(0.01, 0.99, N), 3)
Y = (RNG.uniform(size=N) < P).astype(np.int64)


def _weights(zeros: bool) -> np.ndarray:
    """Ordinary weights for scores >= 0.4, weights near 1e-170 below (bins made only of them, whose
    squares underflow unless rescaled), and, with ``zeros``, a few zero weights among the large ones."""
    rng = np.random.default_rng(7)
    w = np.where(P < 0.4, 1e-170 * rng.uniform(1.0, 2.0, N), rng.uniform(0.5, 3.0, N))
    if zeros:
        w[(P >= 0.4) & (np.arange(N) % 17 == 0)] = 0.0
    return w


def _same(got: vc.AuditResult, want: vc.AuditResult) -> None:
    """The same audit, every number to 1e-12 (relative), the weight totals included."""
    for name in ("n", "ece", "mce", "brier", "nll", "auc", "accuracy", "base_rate", "total_weight"):
        assert getattr(got, name) == pytest.approx(getattr(want, name), rel=1e-12, abs=1e-300), name
    assert [r.index for r in got.table.rows] == [r.index for r in want.table.rows]
    for a, b in zip(got.table.rows, want.table.rows):
        assert a.count == b.count
        assert a.sufficient == b.sufficient, a.index
        assert a.n == pytest.approx(b.n, rel=1e-12, abs=1e-300), a.index  # tiny bins' weights too
        for field in ("conf", "acc", "ci_low", "ci_high"):
            assert getattr(a, field) == pytest.approx(getattr(b, field), rel=1e-9, abs=1e-12), (a.index, field)
    assert set(got.groups) == set(want.groups)
    for key in want.groups:
        _same(got.groups[key], want.groups[key])


def _user_rows(w: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Per-bin sums of the caller's weights, independent of the library (equal-width bins)."""
    m = edges.size - 1
    b = np.minimum((P * m).astype(np.int64), m - 1)
    return np.bincount(b, weights=w, minlength=m)


# -- A. the routes rescale as memory does -----------------------------------------------------------------
def test_memory_sees_the_tiny_weights_bins_true_effective_size():
    """The oracle itself: a bin made only of weights near 1e-170 has its Kish size (its rows' count,
    weights within a factor 2), not the fallback 1 of an underflowed Σw²."""
    w = _weights(zeros=True)
    got = vc.audit(P, Y, sample_weight=w, min_count=1)
    low = [r for r in got.table.rows if r.hi <= 0.4]
    assert low
    for row in low:
        in_bin = (P >= row.lo) & (P < row.hi)
        v, p, y = w[in_bin] / 1e-170, P[in_bin], Y[in_bin]
        kish = v.sum() ** 2 / (v @ v)
        assert kish > 0.8 * row.count > 1
        # the Wilson interval of the size from its definition (session 43: uneven weights, at most Kish's)
        W, r, c = v.sum(), v @ y / v.sum(), v @ p / v.sum()
        size = min(s for s in (kish, r * (1 - r) * W * W / ((v * v) @ ((y - r) ** 2)),
                               c * (1 - c) * W * W / ((v * v) @ (p * (1 - p)))) if s > 0)
        assert size > 0.5 * kish
        lo, hi = binomial_interval(np.array([row.acc * size]), np.array([size]))
        assert row.ci_low == pytest.approx(float(lo[0]), rel=1e-9, abs=1e-12)
        assert row.ci_high == pytest.approx(float(hi[0]), rel=1e-9, abs=1e-12)


_SEG = np.where(np.arange(N) % 3 == 0, "a", "b").astype(object)
#: the two tables of the test below, loaded once per engine connection, each read by its three audits
_TINY = {zeros: {"p": P, "y": Y, "w": _weights(zeros), "seg": _SEG} for zeros in (False, True)}
#: (engine, id(connection), table) -> the connection (held, so that its id is not reused by another)
_LOADED_HERE: dict[tuple[str, int, str], object] = {}


def _load_once(name: str, conn, table: str, columns: dict[str, np.ndarray]) -> None:
    """:func:`load` on the first call for this connection and table only (it was loaded by each of
    the 18 tests: 6 times per engine)."""
    if _LOADED_HERE.get((name, id(conn), table)) is not conn:
        load(name, conn, table, columns)
        _LOADED_HERE[(name, id(conn), table)] = conn


@pytest.mark.parametrize("zeros", [False, True])
@pytest.mark.parametrize("options", [{}, {"strategy": "quantile"}, {"by": "seg"}])
def test_sql_rescales_tiny_weights_as_memory_does(engine, zeros, options):  # noqa: F811
    """Before: the pushdown rescaled by the largest weight alone: the tiny weights' bins got effective
    size 1 (their intervals and the MCE moved) where memory rescales them."""
    name, conn = engine
    w, seg = _weights(zeros), _SEG
    table = f"tiny_routes_{int(zeros)}"
    _load_once(name, conn, table, _TINY[zeros])
    got = vc.audit(conn, table=table, score="p", label="y", sample_weight="w", min_count=1, **options)
    by = {"by": {"seg": seg}} if "by" in options else {}
    want = vc.audit(P, Y, sample_weight=w, min_count=1, **{**options, **by})
    _same(got, want)


def _parquet(tmp_path, w: np.ndarray) -> str:
    import pandas as pd

    path = str(tmp_path / "w.parquet")
    seg = np.where(np.arange(N) % 3 == 0, "a", "b")
    pd.DataFrame({"p": P, "y": Y, "w": w, "seg": seg}).to_parquet(path)
    return path


def _lazy(kind: str, path: str):
    if kind == "file":  # a path: read where it lies (DuckDB)
        return path
    if kind == "polars":
        pl = pytest.importorskip("polars")
        return pl.scan_parquet(path)
    dd = pytest.importorskip("dask.dataframe")
    return dd.read_parquet(path)


@pytest.mark.parametrize("kind", ["file", "polars", "dask"])
@pytest.mark.parametrize("options", [{}, {"by": "seg"}])
def test_file_routes_with_a_zero_weight_rescale_as_memory_does(tmp_path, kind, options):
    """Before: the file routes' smallest weight counted the zeros, so the rule read the largest weight
    alone: the tiny weights' bins got effective size 1 (their intervals and the MCE moved)."""
    w = _weights(zeros=True)
    frame = _lazy(kind, _parquet(tmp_path, w))
    got = vc.audit(frame, score="p", label="y", sample_weight="w", min_count=1, **options)
    seg = np.where(np.arange(N) % 3 == 0, "a", "b")
    by = {"by": {"seg": seg}} if "by" in options else {}
    _same(got, vc.audit(P, Y, sample_weight=w, min_count=1, **by))


def test_file_contract_counts_hold_the_smallest_positive_weight(tmp_path):
    """The counts every file route reads the rescaling from: ``w_pos_min`` skips the zeros."""
    from veracity.core._weights import rescale_exponent
    from veracity.sources import _aggregates as agg

    w = _weights(zeros=True)
    assert w.min() == 0.0
    import narwhals as nw
    import polars as pl

    lf = nw.from_native(pl.LazyFrame({"_s": P, "_y": Y.astype(float), "_w": w}))
    counts = agg.contract_counts(lf, score_type="probability", weighted=True)
    assert counts["w_min"] == 0.0
    assert counts["w_pos_min"] == w[w > 0].min()
    assert agg.weight_scale(counts) == 2.0 ** rescale_exponent(w)


# -- B. reported weight totals are in the caller's units ---------------------------------------------------
def _three(tmp_path):
    import pandas as pd

    p, y, w = np.array([0.1, 0.5, 0.9]), np.array([0, 1, 1]), np.array([1e-170, 1.0, 187.0])
    path = str(tmp_path / "three.parquet")
    pd.DataFrame({"p": p, "y": y, "w": w}).to_parquet(path)
    return p, y, w, path


def test_total_weight_is_in_the_callers_units_on_memory_and_files(tmp_path):
    """Before: 7.27e+27 (the weights times 2**85), and each row's n likewise."""
    p, y, w, path = _three(tmp_path)
    results = [vc.audit(p, y, sample_weight=w, min_count=1),
               vc.audit(path, score="p", label="y", sample_weight="w", min_count=1)]
    pl = pytest.importorskip("polars")
    results.append(vc.audit(pl.scan_parquet(path), score="p", label="y", sample_weight="w", min_count=1))
    for r in results:
        assert r.total_weight == pytest.approx(188.0, rel=1e-12)
        assert [row.n for row in r.table.rows] == pytest.approx([1e-170, 1.0, 187.0], rel=1e-12)
        assert r.to_dict()["total_weight"] == pytest.approx(188.0, rel=1e-12)
        assert "187" in str(r)


def test_reliability_rows_are_in_the_callers_units_on_memory_and_files(tmp_path):
    """vc.reliability shows each bin's weighted n as vc.audit does: before, 6.6e+26 for a bin of weight 187."""
    p, y, w, path = _three(tmp_path)
    tables = [vc.reliability(p, y, sample_weight=w, bins=3, min_count=1),
              vc.reliability(path, score="p", label="y", sample_weight="w", bins=3, min_count=1)]
    for t in tables:
        assert [row.n for row in t.rows] == pytest.approx([1e-170, 1.0, 187.0], rel=1e-12)


def test_total_weight_is_in_the_callers_units_in_the_database(engine):  # noqa: F811
    name, conn = engine
    p, y, w = np.array([0.1, 0.5, 0.9]), np.array([0, 1, 1]), np.array([1e-170, 1.0, 187.0])
    load(name, conn, "three_w", {"p": p, "y": y, "w": w})
    r = vc.audit(conn, table="three_w", score="p", label="y", sample_weight="w", min_count=1)
    assert r.total_weight == pytest.approx(188.0, rel=1e-12)
    assert [row.n for row in r.table.rows] == pytest.approx([1e-170, 1.0, 187.0], rel=1e-12)
    assert vc.audit_sql(conn, table="three_w", score="p", label="y", sample_weight="w",
                        min_count=1).total_weight == pytest.approx(188.0, rel=1e-12)


@pytest.mark.parametrize("scale", [1e-300, 1e-170, 1e200, 1e300])
def test_totals_of_extreme_weights_on_every_route_are_the_callers(tmp_path, scale):
    """Weights all tiny or all huge (rescaled by 2**k on every route): the totals, per bin and per
    slice, are the sums of the caller's weights (computed here, without the library)."""
    w = np.random.default_rng(3).uniform(0.5, 3.0, N) * scale
    seg = np.where(np.arange(N) % 3 == 0, "a", "b")
    path = _parquet(tmp_path, w)
    edges = np.linspace(0.0, 1.0, 16)
    want_rows = _user_rows(w, edges)
    duckdb = pytest.importorskip("duckdb")
    conn = duckdb.connect(":memory:")
    conn.execute("CREATE TABLE t AS SELECT * FROM read_parquet(?)", [path])
    for r in (vc.audit(P, Y, sample_weight=w, by={"seg": seg}),
              vc.audit(path, score="p", label="y", sample_weight="w", by="seg"),
              vc.audit(conn, table="t", score="p", label="y", sample_weight="w", by="seg")):
        assert r.total_weight == pytest.approx(w.sum(), rel=1e-12)
        assert [row.n for row in r.table.rows] == pytest.approx(want_rows[want_rows > 0], rel=1e-12)
        for key, g in r.groups.items():
            assert g.total_weight == pytest.approx(w[seg == key].sum(), rel=1e-12)


def test_top_label_and_classwise_totals_are_the_callers():
    rng = np.random.default_rng(4)
    P3 = rng.dirichlet([1.0, 1.0, 1.0], 300)
    y3 = rng.integers(0, 3, 300)
    w = rng.uniform(0.5, 2.0, 300) * 1e-200
    r = vc.audit(P3, y3, sample_weight=w, multiclass="classwise")
    assert r.total_weight == pytest.approx(w.sum(), rel=1e-12)
    for g in r.groups.values():
        assert g.total_weight == pytest.approx(w.sum(), rel=1e-12)


# -- C. a pos_label that is not one value is refused on every route ----------------------------------------
_NOT_ONE = [np.array([1]), np.array([0, 1]), [1], {1: 1}]
_ONE_LINE = r"^pos_label= must be one label value \(text, a number or a bool\), got "


@pytest.mark.parametrize("bad", _NOT_ONE, ids=["array1", "array2", "list", "dict"])
def test_pos_label_refused_alike_in_memory_and_on_files(tmp_path, bad):
    """Before: ``np.array([1])`` was read as 1 on the file routes, ``np.array([0, 1])`` raised numpy's
    ambiguous-truth-value error, a list was only "not among" the labels."""
    p, y, _, path = _three(tmp_path)
    pl = pytest.importorskip("polars")
    messages = set()
    for call in (lambda: vc.audit(p, y, pos_label=bad),
                 lambda: vc.audit(path, score="p", label="y", pos_label=bad),
                 lambda: vc.audit(pl.scan_parquet(path), score="p", label="y", pos_label=bad)):
        with pytest.raises(VeracityError, match=_ONE_LINE) as err:
            call()
        assert "\n" not in str(err.value)
        messages.add(str(err.value))
    assert len(messages) == 1


@pytest.mark.parametrize("bad", _NOT_ONE, ids=["array1", "array2", "list", "dict"])
def test_pos_label_refused_alike_in_the_database(engine, bad):  # noqa: F811
    name, conn = engine
    load(name, conn, "labels_t", {"p": np.array([0.1, 0.5, 0.9]), "y": np.array([0, 1, 1])})
    with pytest.raises(VeracityError, match=_ONE_LINE) as err:
        vc.audit(conn, table="labels_t", score="p", label="y", pos_label=bad)
    with pytest.raises(VeracityError) as mem:
        vc.audit(np.array([0.1, 0.5, 0.9]), np.array([0, 1, 1]), pos_label=bad)
    assert str(err.value) == str(mem.value)


@pytest.mark.parametrize("bad", _NOT_ONE, ids=["array1", "array2", "list", "dict"])
def test_pos_label_refused_alike_by_the_monitoring_store(tmp_path, bad):
    pa = pytest.importorskip("pyarrow")
    pytest.importorskip("duckdb")
    from veracity.monitoring import MonitorStore

    store = MonitorStore(tmp_path / "m.duckdb")
    with pytest.raises(VeracityError, match=_ONE_LINE) as err:
        store.outcomes(pa.table({"id": [1, 2, 3], "y": [0, 1, 1]}), id="id", label="y", pos_label=bad)
    with pytest.raises(VeracityError) as mem:
        vc.audit(np.array([0.1, 0.5, 0.9]), np.array([0, 1, 1]), pos_label=bad)
    assert str(err.value) == str(mem.value)


def test_a_zero_dimensional_pos_label_is_its_value_on_every_route(tmp_path, engine):  # noqa: F811
    """``np.array(1)`` (0-d) names the label 1, as in memory."""
    name, conn = engine
    p, y, _, path = _three(tmp_path)
    load(name, conn, "labels_z", {"p": p, "y": y})
    want = vc.audit(p, y, pos_label=1, min_count=1)
    for got in (vc.audit(path, score="p", label="y", pos_label=np.array(1), min_count=1),
                vc.audit(conn, table="labels_z", score="p", label="y", pos_label=np.array(1), min_count=1)):
        assert got.ece == pytest.approx(want.ece, rel=1e-12)
        assert got.base_rate == want.base_rate


def test_monitor_periods_weights_are_in_the_callers_units(tmp_path):
    """vc.monitor's weighted n per period in the caller's units, in memory and on a file (before: 7.5e+27)."""
    import pandas as pd

    rng = np.random.default_rng(0)
    p = rng.random(600)
    y = (rng.random(600) < p).astype(int)
    w = np.ones(600)
    w[:5] = 1e-170
    periods = np.repeat(["a", "b", "c"], 200)
    path = str(tmp_path / "m.parquet")
    pd.DataFrame({"p": p, "y": y, "w": w, "per": periods}).to_parquet(path)
    for m in (vc.monitor(p, y, periods, sample_weight=w, min_count=10),
              vc.monitor(path, score="p", label="y", periods="per", sample_weight="w", min_count=10)):
        assert [r["n"] for r in m.to_dict()["periods"]] == pytest.approx([195.0, 200.0, 200.0], rel=1e-12)
