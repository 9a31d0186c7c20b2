"""Every route prints and decides the same audit whatever the last bit of its sums (session 27).

The routes — arrays in memory, a pandas frame, a DuckDB relation, a Parquet file read by DuckDB and
``vc.audit_sql`` on SQLite — add the same rows in different orders, so their sums differ in the last
bits. Before:

* ``sufficient`` compared the effective size (Σw)²/Σw² with ``min_count`` exactly: 20 rows weighing 0.1
  computed 19.999999999999996, so a 200-row, 10-bin equal-mass table with constant weights had no
  sufficient bin (MCE n/a) where the unweighted one had ten, and weights of 0.7 marked 5 bins in memory, 0
  in a database;
* ``bins="auto"`` in memory printed the bins left after tied cuts merged as the rule's M ("M =
  ceil(N_eff^(1/3)) = 5 (N_eff = 2000)", arithmetically 13), where a database printed 13;
* a within-bin term of ±1e-17 printed "+ within-bin 0.0000" on one route, "- within-bin 0.0000" on another;
* a bin of 100 rows weighing 0.1 printed weight "10" or "10.0" as its sum came out 10 or 9.99999999999998;
* a slice whose rows all weigh 0 was dropped without a word while "(all)" counted its rows.
"""

from __future__ import annotations

import math
import sqlite3
import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest

import veracity as vc

ROUTES = ("memory", "pandas", "duckdb", "parquet", "sqlite")


def _audit(route: str, frame: pd.DataFrame, tmp_path: Any, **options: Any) -> Any:
    """``vc.audit`` of ``frame`` (columns p, y, optionally w and g) through one route."""
    weighted = "w" in frame
    cols: dict[str, Any] = dict(score="p", label="y", **({"sample_weight": "w"} if weighted else {}),
                                **({"by": "g"} if "g" in frame else {}))
    if route == "memory":
        return vc.audit(frame["p"].to_numpy(), frame["y"].to_numpy(),
                        sample_weight=frame["w"].to_numpy() if weighted else None,
                        **({"by": frame["g"]} if "g" in frame else {}), **options)  # a Series: named 'g'
    if route == "pandas":
        return vc.audit(frame, **cols, **options)
    if route == "duckdb":
        import duckdb

        con = duckdb.connect()
        con.register("frame", frame)
        return vc.audit(con.sql("SELECT * FROM frame"), **cols, **options)
    if route == "parquet":
        path = tmp_path / "rows.parquet"
        frame.to_parquet(path)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a note on the engine chosen is not what is tested here
            return vc.audit(str(path), **cols, **options)
    con = sqlite3.connect(":memory:")
    frame.to_sql("t", con, index=False)
    return vc.audit_sql(con, table="t", **cols, **options)


# -- 1. equal weights decide "sufficient" as rows do -------------------------------------------------

@pytest.mark.parametrize("weight", [0.1, 0.2, 0.3, 1 / 3, 0.7, 1.1])
@pytest.mark.parametrize("route", ROUTES)
def test_constant_weights_mark_the_bins_rows_would(route, weight, tmp_path):
    rng = np.random.default_rng(27)
    n, bins = 200, 10
    p = rng.uniform(size=n)
    frame = pd.DataFrame({"p": p, "y": (rng.uniform(size=n) < p).astype(np.int64)})
    plain = vc.audit(frame["p"].to_numpy(), frame["y"].to_numpy(), bins=bins, strategy="quantile")
    assert [r.count for r in plain.table.rows] == [n // bins] * bins  # each bin exactly min_count = 20 rows
    assert all(r.sufficient for r in plain.table.rows)
    got = _audit(route, frame.assign(w=weight), tmp_path, bins=bins, strategy="quantile")
    assert [r.sufficient for r in got.table.rows] == [True] * bins
    assert got.mce == pytest.approx(plain.mce, rel=1e-9)
    assert "insufficient" not in str(got) and "MCE n/a" not in str(got)


def test_effective_size_threshold_allows_the_sums_rounding():
    from veracity.core._binning import enough_effective

    # 20 rows of 0.1: exactly 20 effective rows, computed a hair under; a true shortfall still counts
    w = np.full(20, 0.1)
    size = w.sum() ** 2 / (w * w).sum()
    assert bool(enough_effective(size, 20, 20))
    assert not bool(enough_effective(20 * (1 - 1e-9), 20, 20))
    sizes, rows = np.array([19.0, 20.0, 0.0]), np.array([19, 20, 0])
    assert list(enough_effective(sizes, 20, rows)) == [False, True, False]
    assert bool(enough_effective(0.0, 0, 0))


def test_reliability_and_mce_with_constant_weights_equal_the_unweighted():
    rng = np.random.default_rng(3)
    p = rng.uniform(size=200)
    y = (rng.uniform(size=200) < p).astype(int)
    plain = vc.reliability(p, y, bins=10, strategy="quantile")
    for weight in (0.1, 0.3, 0.7):
        w = np.full(200, weight)
        table = vc.reliability(p, y, bins=10, strategy="quantile", sample_weight=w)
        assert [r.sufficient for r in table.rows] == [r.sufficient for r in plain.rows]
        mce = vc.mce(p, y, bins=10, strategy="quantile", sample_weight=w)
        assert mce == pytest.approx(plain.mce, rel=1e-9)


# -- 2. bins="auto": the rule's M, and the bins left -------------------------------------------------

def test_auto_bins_note_states_the_rule_and_the_bins_left(tmp_path):
    rng = np.random.default_rng(5)
    n = 2000
    p = rng.choice([0.1, 0.3, 0.5, 0.7, 0.9], size=n)
    frame = pd.DataFrame({"p": p, "y": (rng.uniform(size=n) < p).astype(np.int64)})
    rule = math.ceil(round(n ** (1 / 3), 9))  # 13, by the rule's definition
    notes, dicts = set(), []
    for route in ROUTES:
        got = _audit(route, frame, tmp_path, bins="auto", strategy="quantile")
        assert got.table.bins == 5  # five distinct scores: the tied cuts merged
        notes.add(next(line for line in str(got).splitlines() if line.startswith("bins='auto'")))
        dicts.append(got.to_dict()["auto_bins"])
    assert len(notes) == 1, notes
    (note,) = notes
    assert f"M = ceil(N_eff^(1/3)) = {rule} (N_eff = {n})" in note and "5 bins" in note
    assert all(d == dicts[0] for d in dicts)
    assert dicts[0]["bins"] == rule and dicts[0]["bins_used"] == 5


# -- 3. a within-bin term that rounds to zero: the formula's sign ------------------------------------

def test_a_zero_within_bin_term_prints_the_formulas_sign():
    # one score per bin: the within-bin term is 0, computed ±1e-17 with either sign
    values = np.round(np.linspace(0.05, 0.95, 10), 2)
    signs = set()
    for seed in range(60):
        rng = np.random.default_rng(seed)
        p = rng.choice(values, size=300)
        got = vc.audit(p, (rng.uniform(size=300) < p).astype(int), bins=10)
        d = got.decomposition
        signs.add(d.within_variance - 2 * d.within_covariance < 0)
        assert "+ within-bin 0.0000" in str(got) and "- within-bin" not in str(got)
    assert signs == {True, False}  # the noise took both signs: the test saw the case that failed


def test_the_within_bin_line_is_the_same_on_every_route(tmp_path):
    values = np.round(np.linspace(0.05, 0.95, 10), 2)
    rng = np.random.default_rng(0)
    rng.choice(values, size=300)  # the draw after which DuckDB's sums came out below zero
    rng.uniform(size=300)
    p = rng.choice(values, size=300)
    frame = pd.DataFrame({"p": p, "y": (rng.uniform(size=300) < p).astype(np.int64)})
    lines = {next(line for line in str(_audit(route, frame, tmp_path, bins=10)).splitlines()
                  if line.startswith("Brier =")) for route in ROUTES}
    assert len(lines) == 1 and lines.pop().endswith("+ within-bin 0.0000")


def test_a_real_negative_within_bin_term_keeps_its_sign():
    from veracity.core._display import added_term

    assert added_term("within-bin", -0.00012) == "- within-bin 0.0001"
    assert added_term("within-bin", -0.00004) == "+ within-bin 0.0000"
    assert added_term("within-bin", 0.0) == "+ within-bin 0.0000"


# -- 4. weights print the same whatever the sum's last bit -------------------------------------------

@pytest.mark.parametrize("route", ROUTES)
def test_weight_cells_print_the_decimal_sum(route, tmp_path):
    rng = np.random.default_rng(0)
    n = 1000
    p = rng.uniform(size=n)
    frame = pd.DataFrame({"p": p, "y": (rng.uniform(size=n) < p).astype(np.int64), "w": np.full(n, 0.1)})
    got = _audit(route, frame, tmp_path, bins=10)
    # each bin weighs count / 10 exactly: whole when the count is a multiple of 10, else one decimal
    want = [str(r.count // 10) if r.count % 10 == 0 else f"{r.count / 10:.1f}" for r in got.table.rows]
    lines = str(got.table).splitlines()[1:1 + len(want)]
    assert [line.split()[1] for line in lines] == want
    assert any(r.count % 10 == 0 for r in got.table.rows)  # a whole sum is among them (10 vs 10.0)
    assert str(got.table) == str(vc.audit(p, frame["y"].to_numpy(), sample_weight=frame["w"].to_numpy(),
                                           bins=10).table)


# -- 5. slices whose rows all weigh 0 are named, not silently dropped --------------------------------

def _weightless_slice() -> pd.DataFrame:
    rng = np.random.default_rng(11)
    n = 600
    p = rng.uniform(size=n)
    g = rng.choice(["a", "b", "c"], size=n)
    return pd.DataFrame({"p": p, "y": (rng.uniform(size=n) < p).astype(np.int64),
                         "w": np.where(g == "c", 0.0, 1.5), "g": g})


@pytest.mark.parametrize("route", ROUTES)
def test_a_slice_with_no_weight_is_named_with_its_rows(route, tmp_path):
    frame = _weightless_slice()
    rows_c = int((frame["g"] == "c").sum())
    got = _audit(route, frame, tmp_path, bins=10)
    assert set(got.groups) == {"a", "b"}
    assert got.zero_weight_groups == {"c": rows_c}
    assert got.to_dict()["zero_weight_groups"] == {"c": rows_c}
    text = str(got)
    assert f"every row weighing 0: c ({rows_c} rows)" in text
    assert text.index("(all)") < text.index("every row weighing 0")  # under the slice table
    assert f"every row weighing 0: c ({rows_c} rows)" in got._repr_html_()  # the notebook says it too


def test_every_route_prints_and_reports_the_same_slices(tmp_path):
    frame = _weightless_slice()
    results = {route: _audit(route, frame, tmp_path, bins=10) for route in ROUTES}
    texts = {route: str(r) for route, r in results.items()}
    assert all(t == texts["memory"] for t in texts.values()), texts
    slices = [r.to_dict()["zero_weight_groups"] for r in results.values()]
    assert all(s == slices[0] for s in slices)


def test_slices_that_all_weigh_something_report_none():
    frame = _weightless_slice()
    got = vc.audit(frame.assign(w=1.0), score="p", label="y", sample_weight="w", by="g", bins=10)
    assert got.to_dict()["zero_weight_groups"] == {}
    assert "every row weighing 0" not in str(got)
