"""A confidence sequence over a pandas date column (nanoseconds, every time at midnight) shows its batches
as dates in the printout, the alarm line and the plot's axis — not ``2026-01-11 00:00:00``; batches with a
time of day keep it."""
import numpy as np
import pytest

import veracity as vc


def _sequence(times):
    rng = np.random.default_rng(0)
    n = times.size
    p = rng.uniform(0.05, 0.6, n)
    y = (rng.random(n) < p + 0.1).astype(int)
    return vc.confidence_sequence(p, y, batches=times)


def test_midnight_batches_print_and_plot_as_dates():
    pd = pytest.importorskip("pandas")
    pytest.importorskip("matplotlib")
    days = pd.date_range("2026-01-01", periods=30, freq="D").values.repeat(100)
    cs = _sequence(days)
    text = str(cs)
    assert cs.alarm_at is not None
    assert "00:00:00" not in text
    assert "2026-01-01 " in text and f"alarm: at batch {cs.alarm_step.date().isoformat()} " in text
    fig = cs.plot()
    ticks = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert ticks[0] == "2026-01-01" and not any("00:00" in t for t in ticks)
    assert not any("00:00" in t.get_text() for t in fig.axes[0].get_legend().get_texts())


def test_batches_with_a_time_of_day_keep_it():
    pd = pytest.importorskip("pandas")
    hours = pd.date_range("2026-01-01", periods=30, freq="h").values.repeat(100)
    text = str(_sequence(hours))
    assert "2026-01-01 01:00:00" in text or "2026-01-01 00:00:00" in text
