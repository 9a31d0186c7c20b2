"""Seeded simulations on a store: no alerts from noise, prior vs likelihood shift, label-free estimates."""

import numpy as np
import pyarrow as pa
import pytest
from scipy.special import expit, logit

import veracity as vc
from veracity.monitoring import MonitorStore

pytest.importorskip("duckdb")

T0 = np.datetime64("2026-01-05T00:00", "s")  # a Monday


def _log_weeks(store, weeks, start_week=0, start_id=0, labelled=True):
    """weeks: list of (p, y) arrays, one per ISO week; returns the next id."""
    ids, ts, ps, ys = [], [], [], []
    rng = np.random.default_rng(start_id + 17)
    next_id = start_id
    for w, (p, y) in enumerate(weeks):
        n = p.size
        ids.append(np.arange(next_id, next_id + n))
        ts.append(T0 + np.timedelta64(7 * 86400, "s") * (start_week + w)
                  + rng.integers(0, 7 * 86400, n).astype("timedelta64[s]"))
        ps.append(p)
        ys.append(y)
        next_id += n
    ids, ts, ps, ys = map(np.concatenate, (ids, ts, ps, ys))
    store.log(pa.table({"id": ids, "ts": ts, "p": ps}), id="id", time="ts", score="p")
    if labelled:
        store.outcomes(pa.table({"id": ids, "y": ys.astype(int)}), id="id", label="y")
    return next_id, ids, ys


def _calibrated(rng, n):
    p = rng.beta(2, 3, n)
    return p, (rng.random(n) < p).astype(int)


def test_stationary_stream_alerts_in_at_most_5_percent_of_windows(tmp_path):
    # default alert_level 0.99: three tests at 0.0033 each; >= 95 % of windows quiet is the acceptance bar,
    # and even the stricter 0.95 family-wise design stays near its 5 % (checked below on the same stream)
    rng = np.random.default_rng(1)
    store = MonitorStore(tmp_path / "m.duckdb")
    _log_weeks(store, [_calibrated(rng, 150) for _ in range(600)])
    rows = store.status(freq="W", as_of="2040-01-01").rows
    judged = [r for r in rows if r.labelled >= 100]
    assert len(judged) == 600
    share = sum(bool(r.alerts) for r in judged) / len(judged)
    assert share <= 0.02, [r.alerts for r in judged if r.alerts]
    loose = store.status(freq="W", as_of="2040-01-01", alert_level=0.95).rows
    assert np.mean([bool(r.alerts) for r in loose]) <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 600)


def test_no_alert_from_noise_at_90_rows_per_window(tmp_path):
    # shuffled, identically distributed data: PSI of 90 rows is noise, and it is not judged
    rng = np.random.default_rng(2)
    store = MonitorStore(tmp_path / "m.duckdb")
    _log_weeks(store, [_calibrated(rng, 90) for _ in range(60)])
    res = store.status(freq="W", as_of="2030-01-01")
    assert all(not r.alerts for r in res.rows)
    assert {r.status for r in res.rows} == {"insufficient"}
    assert max(r.psi for r in res.rows) > 0.1  # a fixed PSI cut would have cried wolf
    assert "alerts need >= 100 labelled rows" in str(res)


def _prior_world(rng, n, prior, pi_model=0.01, sep=2.5):
    """Scores x|y ~ N(±sep/2, 1) stable; the model's p is the posterior under pi_model."""
    y = (rng.random(n) < prior).astype(int)
    x = rng.normal(np.where(y == 1, sep / 2, -sep / 2), 1.0)
    p = expit(sep * x + logit(pi_model))
    return p, y


def test_prior_shift_is_diagnosed_and_adjust_prior_restores_calibration(tmp_path):
    # seed 004: base rate 0.01 -> 0.10, class-conditional score distributions unchanged
    assert vc.adjust_prior(0.8, 0.01, 0.10) == pytest.approx(44 / 45)  # LR 396, odds 44
    assert round(vc.adjust_prior(0.8, 0.01, 0.10), 4) == 0.9778
    rng = np.random.default_rng(4)
    store = MonitorStore(tmp_path / "m.duckdb")
    before = _prior_world(rng, 30000, 0.01)
    after = _prior_world(rng, 30000, 0.10)
    _log_weeks(store, [before, after])
    ref, shifted = store.status(freq="W", as_of="2030-01-01").rows
    assert ref.alerts == () and ref.rate == pytest.approx(0.01, abs=0.002)
    assert any(a.startswith("calibration") for a in shifted.alerts)
    assert shifted.diagnosis.startswith("prior shift"), shifted.diagnosis
    old, new = shifted.details["prior_old"], shifted.details["prior_new"]
    assert shifted.fix == f"vc.adjust_prior(p, old={old:.4g}, new={new:.4g})"
    assert old == pytest.approx(0.01, abs=0.002) and new == pytest.approx(0.10, abs=0.005)
    p, y = after
    fixed = vc.adjust_prior(p, old, new)
    assert vc.ece(fixed, y) < 0.02 < vc.ece(p, y)
    assert abs(fixed.sum() - y.sum()) < 3 * np.sqrt((fixed * (1 - fixed)).sum())
    assert shifted.details["ece_after_adjust"] == pytest.approx(vc.ece(fixed, y), abs=0.005)


def _likelihood_world(rng, n, noise):
    """Same base rate; the features get noisier (noise > 1) so the old scores become over-confident."""
    y = (rng.random(n) < 0.3).astype(int)
    x = rng.normal(np.where(y == 1, 1.0, -1.0), noise)
    p = expit(2.0 * x + logit(0.3))  # calibrated when noise == 1
    return p, y


def test_likelihood_shift_is_diagnosed_and_recalibration_restores_ece(tmp_path):
    rng = np.random.default_rng(5)
    store = MonitorStore(tmp_path / "m.duckdb")
    weeks = [_likelihood_world(rng, 3000, 1.0), _likelihood_world(rng, 3000, 1.0),
             _likelihood_world(rng, 3000, 2.0), _likelihood_world(rng, 3000, 2.0)]
    _log_weeks(store, weeks)
    rows = store.status(freq="W", as_of="2030-01-01").rows
    assert [bool(r.alerts) for r in rows] == [False, False, True, True]
    for r in rows[2:]:
        assert r.diagnosis.startswith("likelihood/concept shift"), r.diagnosis
        assert r.slope < 0.8 and "recalibrate" in r.fix
    rec = store.recalibrate(method="platt", freq="W", as_of="2030-01-01", fit=rows[2].period)
    assert (rec.fit_period, rec.eval_period) == (rows[2].period, rows[3].period)
    ece = rec.ledger.row("ECE")
    assert ece.after < 0.02 < ece.before
    # the ledger is on week 4's rows: the calibrator never saw them
    p4, y4 = weeks[3]
    assert rec.n_eval == p4.size
    assert ece.before == pytest.approx(vc.ece(p4, y4), abs=1e-12)


def test_label_free_estimate_covers_realised_positives_on_calibrated_windows(tmp_path):
    rng = np.random.default_rng(6)
    store = MonitorStore(tmp_path / "m.duckdb")
    weeks = [_calibrated(rng, 300) for _ in range(150)]
    _, ids, ys = _log_weeks(store, weeks, labelled=False)
    pending = store.status(freq="W", as_of="2030-01-01").rows
    assert all(r.labelled == 0 and r.estimate is not None for r in pending)
    realised = [y.sum() for _, y in weeks]
    inside = [r.estimate.low <= k <= r.estimate.high for r, k in zip(pending, realised)]
    assert np.mean(inside) >= 0.90
    for r, (p, y) in zip(pending[:3], weeks[:3]):  # expected confusion by definition
        hi = p >= 0.5
        assert r.estimate.tp == pytest.approx(p[hi].sum()) and r.estimate.fp == pytest.approx((1 - p[hi]).sum())
        assert r.estimate.fn == pytest.approx(p[~hi].sum()) and r.estimate.tn == pytest.approx((1 - p[~hi]).sum())
    # outcomes arrive: the same interval now judges the realised count
    store.outcomes(pa.table({"id": ids, "y": ys}), id="id", label="y")
    labelled = store.status(freq="W", as_of="2030-01-01").rows
    before_realised = list(realised)
    for before, after in zip(pending, labelled):
        assert after.expected_positives == pytest.approx(before.estimate.positives)
        assert after.realised_positives == before_realised.pop(0)


def test_realised_vs_estimated_gap_flags_a_miscalibrated_window(tmp_path):
    rng = np.random.default_rng(7)
    store = MonitorStore(tmp_path / "m.duckdb")
    good = [_calibrated(rng, 1000) for _ in range(3)]
    p = rng.beta(2, 3, 1000)
    bad = (p, (rng.random(1000) < 0.7 * p).astype(int))  # the scores promise 30 % too many positives
    _log_weeks(store, good + [bad])
    rows = store.status(freq="W", as_of="2030-01-01").rows
    assert [any(a.startswith("calibration") for a in r.alerts) for r in rows] == [False, False, False, True]
    r = rows[3]
    assert r.realised_positives < r.details["expected_low"]
    assert r.expected_positives == pytest.approx(p.sum())


def test_sequential_alerts_rarely_fire_on_calibrated_streams(tmp_path):
    """alerts="sequential": anytime-valid at 1 - alert_level (0.99) per stream however often one looks.
    41 calibrated streams (40 slices and their union) looked at weekly for 20 weeks: at most about 1 %
    of them may ever alert (a fixed-sample test repeated at each look would alert far more often)."""
    rng = np.random.default_rng(11)
    slices, weeks, per = 40, 20, 120
    n = slices * weeks * per
    week = np.repeat(np.arange(weeks), slices * per)
    seg = np.tile(np.repeat([f"s{i:02d}" for i in range(slices)], per), weeks)
    ts = T0 + week * np.timedelta64(7 * 86400, "s") + rng.integers(0, 7 * 86400, n).astype("timedelta64[s]")
    p = rng.beta(2, 3, n)
    y = (rng.random(n) < p).astype(int)
    store = MonitorStore(tmp_path / "m.duckdb")
    store.log(pa.table({"id": np.arange(n), "ts": ts, "p": p, "seg": seg}), id="id", time="ts", score="p", by="seg")
    store.outcomes(pa.table({"id": np.arange(n), "y": y, "ts": ts}), id="id", label="y", time="ts")
    st = store.status(freq="W", as_of="2026-12-01", by="seg", alerts="sequential", max_slices=slices)
    streams = {r.slice for r in st.rows}
    assert len(streams) == slices + 1
    alerting = {r.slice for r in st.rows if r.alerts}
    assert len(alerting) <= 3, alerting  # Binomial(41, 0.01): P(> 3) < 0.001
