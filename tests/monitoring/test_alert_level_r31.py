"""The store's calibration alert holds its per-test level alpha_t = (1 - alert_level) / 3 at rare events.

It fired outside Σp ∓ (z_t·√V + ½), z_t at alpha_t / 2: at Σp = 2 (1000 rows of p = 0.002) a count of 7
alerted, and P(X ≥ 7) = 0.0045 > alpha_t = 0.0033; over rare windows (Σp = 1 to 5) the exact false-alarm
rate reached 0.0050. The bounds are now count_interval at 1 - alpha_t (whole numbers from Σp, Σp(1 - p) and
Σp(1 - p)(1 - 2p) of the labelled rows). Exact checks: each window's false-alarm rate by convolution over
its own scores, and the power against a planted miscalibration (outcomes at 1.5 times the scores)."""

import numpy as np
import pyarrow as pa
import pytest

from veracity.core._special import ndtri
from veracity.monitoring import MonitorStore

pytest.importorskip("duckdb")

T0 = np.datetime64("2026-01-05T00:00", "s")  # a Monday
ALPHA_T = (1 - 0.99) / 3


def _pmf(p):
    """The Poisson-binomial distribution of the number of positives (exact convolution)."""
    f = np.ones(1)
    for q in p:
        f = np.convolve(f, [1.0 - q, q])
    return f


def _outside(f, low, high):
    x = np.arange(f.size)
    return float(f[(x < low) | (x > high)].sum())


def _windows():
    rng = np.random.default_rng(31)
    out = [np.full(1000, e / 1000) for e in (0.5, 1.0, 2.0, 3.0, 5.0, 10.0)]  # rare events
    for e in (1.0, 2.0, 5.0, 20.0):  # rare, with spread-out scores
        b = rng.beta(0.3, 8, 1000)
        out.append(np.clip(b * e / b.sum(), 0, 1))
    out += [rng.beta(2, 3, 150), rng.beta(2, 3, 400), rng.beta(1, 12, 1500), np.full(100, 0.3)]
    return out


def _status(tmp_path, weeks, ys):
    store = MonitorStore(tmp_path / "m.duckdb")
    ids = np.arange(sum(p.size for p in weeks))
    ts = np.concatenate([T0 + np.timedelta64(7 * 86400, "s") * w + np.arange(p.size).astype("timedelta64[s]")
                         for w, p in enumerate(weeks)])
    store.log(pa.table({"id": ids, "ts": ts, "p": np.concatenate(weeks)}), id="id", time="ts", score="p")
    store.outcomes(pa.table({"id": ids, "y": np.concatenate(ys).astype(int)}), id="id", label="y")
    return store.status(freq="W", as_of="2040-01-01").rows


def test_seven_positives_at_two_expected_is_no_alert(tmp_path):
    # 1000 rows at p = 0.002: P(X >= 7) = 0.0045 > alpha_t, so 7 must lie inside the promise; 9 still alerts
    p = np.full(1000, 0.002)
    rows = _status(tmp_path, [p, p], [np.arange(1000) < 7, np.arange(1000) < 9])
    assert not any(a.startswith("calibration") for a in rows[0].alerts), rows[0].alerts
    assert any(a.startswith("calibration: 9 positives") for a in rows[1].alerts), rows[1].alerts
    assert rows[0].details["expected_low"] == 0 and rows[0].details["expected_high"] in (7, 8)


def test_exact_false_alarm_rate_at_most_alpha_t_and_power_kept(tmp_path):
    weeks = _windows()
    rng = np.random.default_rng(5)
    rows = _status(tmp_path, weeks, [rng.random(p.size) < p for p in weeks])
    assert len(rows) == len(weeks)
    z_t = float(ndtri(1 - ALPHA_T / 2))
    for p, r in zip(weeks, rows):
        low, high = r.details["expected_low"], r.details["expected_high"]
        assert low == np.floor(low) and high == np.floor(high)  # whole numbers
        level = _outside(_pmf(p), low, high)
        assert level <= ALPHA_T, (p.sum(), p.size, low, high, level)
        # power against outcomes at 1.5 times the scores, vs the old Σp ∓ (z_t·√V + ½)
        e, sd = p.sum(), np.sqrt((p * (1 - p)).sum())
        planted = _pmf(np.clip(1.5 * p, 0, 1))
        power, was = _outside(planted, low, high), _outside(planted, e - z_t * sd - 0.5, e + z_t * sd + 0.5)
        if e >= 50:
            assert power >= 0.9 * was, (e, p.size, power, was)
        # and against outcomes at the scores / 1.5 (too few positives): the old lopsided band was slower there
        fewer = _pmf(p / 1.5)
        if e >= 10:
            assert _outside(fewer, low, high) >= 0.9 * _outside(fewer, e - z_t * sd - 0.5, e + z_t * sd + 0.5)
