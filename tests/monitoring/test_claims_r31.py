"""Round 31 claims of vc.monitor: its alert rate on calibrated weighted periods, and the reading of times."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest

import veracity as vc


def _weighted_stream(seed: int, periods: int, rows: int, shift: float, rho: float):
    """Rare-outcome scores Beta(0.5, 20) (rate about 0.024), outcomes Bernoulli(score + shift), log-normal
    weights of sigma 1.5 whose log is correlated ``rho`` with the standardised logit score."""
    rng = np.random.default_rng(seed)
    p = rng.beta(0.5, 20, periods * rows)
    y = (rng.random(p.size) < np.clip(p + shift, 0, 1)).astype(int)
    logit = np.log(p / (1 - p))
    s = (logit - logit.mean()) / logit.std()
    w = np.exp(1.5 * (rho * s + np.sqrt(1 - rho * rho) * rng.normal(size=p.size)))
    return p, y, np.repeat(np.arange(periods), rows).astype(str), w


def _alert_rate(shift: float, rho: float) -> float:
    alerts = tested = 0
    for seed in (1, 2, 3):
        p, y, keys, w = _weighted_stream(seed, 1000, 300, shift, rho)
        status = [r.status for r in vc.monitor(p, y, keys, sample_weight=w, min_count=30).rows]
        alerts += status.count("alert")
        tested += status.count("alert") + status.count("ok")
    assert tested > 2500
    return alerts / tested


@pytest.mark.parametrize("rho", [0.8, 0.0])
def test_weighted_calibrated_periods_alert_at_about_the_level(rho):
    """Each period is a test at 95 %: about one calibrated period in twenty alerts. With weights rising with
    the risk, Wilson's interval at the Kish size read the weighted rate's variance as r(1 - r) sum w^2 and
    calibrated periods alerted in 7.3 % of 3,000 (6.5-8.1 % per seed; 5.2-6.0 % with weights independent of
    the risk); the hull with the score interval keeps 4.6-5.5 %."""
    assert _alert_rate(0.0, rho) <= 0.06


def test_weighted_periods_still_alert_on_a_planted_gap():
    """Power: the rate running 0.02 above the scores (about doubled) still alerts in 15-17 % of 300-row
    periods (18-19 % before, part of it the false alarms above)."""
    assert _alert_rate(0.02, 0.8) >= 0.13


def test_equal_weights_keep_the_unweighted_interval():
    rng = np.random.default_rng(0)
    p = rng.beta(0.5, 9, 2000)
    y = (rng.random(p.size) < p).astype(int)
    keys = np.repeat(["a", "b"], 1000)
    plain = vc.monitor(p, y, keys, min_count=30)
    equal = vc.monitor(p, y, keys, sample_weight=np.full(p.size, 3.0), min_count=30)
    assert [(r.ci_low, r.ci_high, r.status) for r in plain.rows] == [
        (r.ci_low, r.ci_high, r.status) for r in equal.rows]


_PARIS = dt.timezone(dt.timedelta(hours=2))  # summer time; a fixed offset keeps the test free of tzdata
_MIXED = [dt.datetime(2026, 3, 30, 23, 30), dt.datetime(2026, 3, 30, 23, 30, tzinfo=_PARIS)]


def test_period_keys_refuse_datetimes_with_and_without_a_zone():
    """A naive datetime is read as UTC, an aware one as its instant: beside each other (two sources
    concatenated) the naive ones may be local times hours off, and the same mix as strings is refused.
    The object column was read silently (both keys 2026-03-30, the aware one 21:30 UTC)."""
    with pytest.raises(vc.VeracityError, match=r"mixes datetimes with a time zone \(row 1.*without \(row 0"):
        vc.period_keys(np.array(_MIXED, dtype=object), freq="D")
    with pytest.raises(vc.VeracityError, match="^prediction_time mixes datetimes with a time zone"):
        vc.label_maturity(_MIXED, "2026-04-05", 1)


def test_one_form_of_datetimes_is_still_read():
    aware = [dt.datetime(2026, 3, 30, 1, 30, tzinfo=_PARIS), dt.datetime(2026, 3, 30, 2, 30, tzinfo=_PARIS)]
    assert vc.period_keys(np.array(aware, dtype=object), freq="D").tolist() == ["2026-03-29", "2026-03-30"]
    naive = [dt.datetime(2026, 3, 29, 23, 30), dt.datetime(2026, 3, 30, 0, 30)]
    assert vc.period_keys(np.array(naive, dtype=object), freq="D").tolist() == ["2026-03-29", "2026-03-30"]


def test_store_refuses_a_frame_mixing_zoned_and_naive_times(tmp_path):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("duckdb")
    store = vc.MonitorStore(tmp_path / "m.duckdb").init()
    frame = pd.DataFrame({"id": ["a", "b"], "ts": pd.Series(_MIXED, dtype=object), "score": [0.1, 0.2]})
    with pytest.raises(vc.VeracityError, match=r"column 'ts' mixes datetimes with a time zone"):
        store.log(frame, id="id", time="ts", score="score")
    assert store.counts()["predictions"] == 0


def _pairs(seed: int, a: float, b: float, shift_a: float, pairs: int, rows: int = 2000):
    """Pairs of periods (a reference and one more) of Beta(a, b) scores, the second Beta(a + shift_a, b),
    with log-normal weights of sigma 1.5 whose log is correlated 0.8 with the logit score; each pair one
    monitor."""
    rng = np.random.default_rng(seed)
    for _ in range(pairs):
        p = np.r_[rng.beta(a, b, rows), rng.beta(a + shift_a, b, rows)]
        y = (rng.random(p.size) < p).astype(int)
        s = (np.log(p / (1 - p)) - np.log(a / b)) / 1.5
        w = np.exp(1.5 * (0.8 * s + 0.6 * rng.normal(size=p.size)))
        keys = np.repeat(["a", "b"], rows)
        yield vc.monitor(p, y, keys, sample_weight=w, min_count=30, reference="a").rows[1]


@pytest.mark.parametrize("a, b", [(2, 3), (0.5, 9)])
def test_weighted_stationary_periods_are_rarely_called_shifted(a, b):
    """The shift label asks PSI >= 0.1 and a chi-square test at 1 %. Read at the Kish sizes alone, weights
    rising with the score made the test reject 8-26 % of stationary pairs, and 7-19 % of 2,000-row periods
    read "moderate" or "MAJOR"; read with the design's share variances (Rao-Scott), 0-2 %."""
    called = np.mean([r.shift in ("moderate", "MAJOR") for r in _pairs(1, a, b, 0.0, 150)])
    assert called <= 0.03


def test_weighted_periods_with_a_planted_shift_are_still_called_shifted():
    """Power: scores Beta(2, 3) -> Beta(3, 3) (mean 0.4 -> 0.5, PSI about 0.2) are called shifted in 80 % of
    pairs (95 % before, when stationary pairs were called shifted too)."""
    called = np.mean([r.shift in ("moderate", "MAJOR") for r in _pairs(3, 2, 3, 1.0, 60)])
    assert called >= 0.6


def test_frame_and_array_monitors_read_the_weighted_shift_alike():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(4)
    p = rng.beta(0.5, 9, 6000)
    y = (rng.random(p.size) < p).astype(int)
    w = np.exp(1.5 * (0.8 * (np.log(p / (1 - p)) + 3) / 1.5 + 0.6 * rng.normal(size=p.size)))
    keys = np.repeat(["a", "b", "c"], 2000)
    arr = vc.monitor(p, y, keys, sample_weight=w, min_count=30)
    frame = pd.DataFrame({"p": p, "y": y, "k": keys, "w": w})
    frm = vc.monitor(frame, score="p", label="y", periods="k", sample_weight="w", min_count=30)
    assert [(r.shift, round(r.psi, 9)) for r in arr.rows] == [(r.shift, round(r.psi, 9)) for r in frm.rows]


def test_a_missing_time_beside_zoned_ones_is_named_as_missing_not_as_a_mix():
    pd = pytest.importorskip("pandas")
    times = pd.Series([pd.Timestamp("2026-01-01", tz="UTC"), pd.NaT], dtype=object)
    with pytest.raises(vc.VeracityError, match="missing") as err:
        vc.period_keys(times, freq="D")
    assert "mixes" not in str(err.value)
