"""Session 18: a store window's Brier score, its decomposition and its ECE come from the residual sums
(Σ(p − y), Σ_{y=1}(1 − p), Σ(p − y)²) as an in-memory audit's do, never from Σp² − 2Σpy + Σy, which
cancels to nothing (or to a few percent) for sharp forecasts. The oracles are the definitions, computed
here from the rows: Brier = mean((p − y)²), ECE = Σ_b |Σ_{i∈b}(p_i − y_i)| / N, the decomposition's
terms per bin of the residuals r = p − y (p − p̄ = (r − r̄) + (y − ȳ), exact where r is)."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pyarrow as pa
import pytest

import veracity as vc
from veracity.cli import main
from veracity.core._formulas import brier_decomposition_from_stats
from veracity.monitoring import MonitorStore

duckdb = pytest.importorskip("duckdb")

T0 = np.datetime64("2026-01-05T00:00:00", "us")  # a Monday: weeks start here
BINS = 15
REL = 1e-12


def _sharp_rows(n: int = 3000, seed: int = 0, days: int = 20):
    """Sharp, correct forecasts: p = 10^-u on negatives, 1 - 10^-u on positives, u in [6, 12]
    (Brier ~ 1e-13 and below); a slice column ``seg`` with five values."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n).astype(np.int8)
    tiny = 10.0 ** -rng.uniform(6, 12, n)
    p = np.where(y == 1, 1.0 - tiny, tiny)
    t = T0 + rng.integers(0, days * 86_400_000_000, n).astype("timedelta64[us]")
    seg = np.array(["a", "b", "c", "d", "e"])[rng.integers(0, 5, n)]
    return p, y, t, seg


def _store(tmp_path, p, y, t, seg, name="m.duckdb"):
    store = MonitorStore(tmp_path / name)
    ids = np.arange(p.size)
    store.log(pa.table({"id": ids, "ts": t, "p": p, "seg": seg}), id="id", time="ts", score="p", by="seg")
    store.outcomes(pa.table({"id": ids, "y": y, "ts": t + np.timedelta64(1, "h")}), id="id", label="y",
                   time="ts")
    return store


def _members(row, t, seg):
    """The rows of a status row's window and slice (its start <= t < its end)."""
    start, end = np.datetime64(row.start, "us"), np.datetime64(row.end, "us")
    m = (t >= start) & (t < end)
    if row.slice != "(all)":
        m &= seg == row.slice
    return m


def _ece(p, y):
    b = np.minimum((p * BINS).astype(np.intp), BINS - 1)
    r = p - y
    return sum(abs(r[b == k].sum()) for k in range(BINS)) / p.size


def _decomposition(p, y):
    """The terms by their definitions, per equal-width bin, of the residuals (accurate for sharp p)."""
    b = np.minimum((p * BINS).astype(np.intp), BINS - 1)
    n = p.size
    r = p - y.astype(np.float64)
    yf = y.astype(np.float64)
    out = dict(brier=np.mean(r * r), reliability=0.0, refinement=0.0, within_variance=0.0,
               within_covariance=0.0)
    for k in np.unique(b):
        rk, yk = r[b == k], yf[b == k]
        dev_p = (rk - rk.mean()) + (yk - yk.mean())  # p - p̄
        out["reliability"] += rk.sum() ** 2 / rk.size / n
        out["refinement"] += yk.mean() * (1 - yk.mean()) * rk.size / n
        out["within_variance"] += np.sum(dev_p * dev_p) / n
        out["within_covariance"] += np.sum(dev_p * (yk - yk.mean())) / n
    return out


def test_sharp_brier_and_ece_of_every_window_and_slice_match_their_definitions(tmp_path):
    p, y, t, seg = _sharp_rows()
    status = _store(tmp_path, p, y, t, seg).status(freq="W", by="seg", as_of="2026-03-01", min_count=10)
    checked = 0
    for row in status.rows:
        m = _members(row, t, seg)
        assert row.labelled == m.sum()
        if not m.any():
            continue
        definition = np.mean((p[m] - y[m]) ** 2)
        assert 0 < definition < 1e-12
        assert row.brier == pytest.approx(definition, rel=REL, abs=0), (row.period, row.slice)
        assert row.brier == pytest.approx(vc.brier(p[m], y[m]), rel=REL, abs=0), (row.period, row.slice)
        assert row.ece == pytest.approx(_ece(p[m], y[m]), rel=REL, abs=0), (row.period, row.slice)
        checked += 1
    assert checked == 3 * 6  # three weeks, (all) and five slices


@pytest.mark.parametrize("mixed", [False, True], ids=["sharp", "mixed-bins"])
def test_decomposition_of_a_store_window_matches_the_definitions_and_the_audit(tmp_path, mixed):
    p, y, t, seg = _sharp_rows(seed=1)
    if mixed:  # a few confident mistakes and middling scores: bins that hold both labels
        rng = np.random.default_rng(7)
        flip = rng.random(p.size) < 0.01
        p = np.where(flip, 1.0 - p, p)
        mid = rng.random(p.size) < 0.02
        p = np.where(mid, rng.uniform(0.2, 0.8, p.size), p)
    status = _store(tmp_path, p, y, t, seg).status(freq="W", by="seg", as_of="2026-03-01", min_count=10)
    for (period, name), stats in status.stats.items():
        row = next(r for r in status.rows if r.period == period and r.slice == name)
        m = _members(row, t, seg)
        got = brier_decomposition_from_stats(stats)
        want = _decomposition(p[m], y[m])
        audit = vc.brier_decomposition(p[m], y[m], bins=BINS)
        scale = want["brier"]  # the terms' rounding is the Brier score's: relative to it, not to a term's
        for key, value in want.items():
            assert abs(getattr(got, key) - value) <= 1e-11 * scale, (period, name, key)
            assert abs(getattr(got, key) - getattr(audit, key)) <= 1e-11 * scale, (period, name, key)
        assert got.brier == pytest.approx(want["brier"], rel=REL, abs=0)


def test_sharp_brier_with_pooled_slices_and_pending_labels(tmp_path):
    """(other) pools slices beyond max_slices; rows without a final label are left out of the sums."""
    p, y, t, seg = _sharp_rows(seed=2, n=2000)
    store = MonitorStore(tmp_path / "m.duckdb")
    ids = np.arange(p.size)
    store.log(pa.table({"id": ids, "ts": t, "p": p, "seg": seg}), id="id", time="ts", score="p", by="seg")
    labelled = np.random.default_rng(3).random(p.size) < 0.7
    store.outcomes(pa.table({"id": ids[labelled], "y": y[labelled], "ts": t[labelled]}), id="id", label="y",
                   time="ts")
    status = store.status(freq="W", by="seg", as_of="2026-03-01", max_slices=2, min_count=10)
    named = {r.slice for r in status.rows}
    assert "(other)" in named
    kept = sorted(named - {"(all)", "(other)"})
    for row in status.rows:
        if row.slice == "(other)":
            m = _members(replace(row, slice="(all)"), t, seg) & ~np.isin(seg, kept)
        else:
            m = _members(row, t, seg)
        m &= labelled
        assert row.labelled == m.sum()
        if m.any():
            definition = np.mean((p[m] - y[m]) ** 2)
            assert row.brier == pytest.approx(definition, rel=REL, abs=0), (row.period, row.slice)


def test_a_migrated_old_schema_store_reports_the_accurate_brier(tmp_path):
    """A store of schema version 1 (predictions without their outcome's copy) opens after `init` and its
    windows' Brier scores are the definition's: the sums are taken from the stored rows when read."""
    p, y, t, seg = _sharp_rows(seed=4, n=1500)
    store = _store(tmp_path, p, y, t, seg)
    con = duckdb.connect(str(store.path))
    con.execute("ALTER TABLE predictions DROP COLUMN label")
    con.execute("ALTER TABLE predictions DROP COLUMN observed")
    con.execute("UPDATE veracity_meta SET value = '1' WHERE key = 'schema_version'")
    con.close()
    store.init()
    status = store.status(freq="W", as_of="2026-03-01", min_count=10)
    for row in status.rows:
        m = _members(row, t, seg)
        assert row.brier == pytest.approx(np.mean((p[m] - y[m]) ** 2), rel=REL, abs=0), row.period


def test_cli_status_json_reports_the_accurate_brier(tmp_path, capsys):
    p, y, t, seg = _sharp_rows(seed=5, n=1200, days=6)  # one week
    store = _store(tmp_path, p, y, t, seg)
    capsys.readouterr()
    assert main(["monitor", "status", str(store.path), "--freq", "W", "--as-of", "2026-03-01", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    (row,) = [r for r in doc["periods"] if r["labelled"]]
    assert row["brier"] == pytest.approx(np.mean((p - y) ** 2), rel=REL, abs=0)
