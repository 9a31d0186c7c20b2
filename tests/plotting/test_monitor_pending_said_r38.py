"""A period with no rate says why on the monitor figure (session 38): a week whose labels had not arrived
(`mature=` False for all its rows; the printout: "0 labelled, 614 pending, status pending") was a blank
slot on `vc.monitor(...).plot()`, and at the last period the slot was off the axis; a monitor whose every
period is pending drew an empty -0.05 … 0.05 "probability" axis."""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc

pytest.importorskip("matplotlib")


def _data(n: int = 4000, seed: int = 0):
    rng = np.random.default_rng(seed)
    p = rng.beta(2, 5, n)
    y = (rng.random(n) < p).astype(int)
    t = np.datetime64("2026-01-05") + rng.integers(0, 56, n).astype("timedelta64[D]")  # 8 ISO weeks
    return p, y, t


def _notes(ax) -> list[str]:
    return [t.get_text() for t in ax.texts if t.get_gid() == "no_rate"]


def test_a_pending_last_week_is_named_with_its_pending_rows() -> None:
    p, y, t = _data()
    mature = t < np.datetime64("2026-02-23")  # the last week: no label yet
    result = vc.monitor(p, y, t, freq="W", mature=mature)
    last = result.rows[-1]
    assert last.status == "pending" and last.pending > 0
    ax = result.plot().axes[0]
    assert _notes(ax) == [f"no label yet ({last.pending:,} pending)"]
    note = next(t for t in ax.texts if t.get_gid() == "no_rate")
    lo, hi = ax.get_xlim()
    assert lo < note.get_position()[0] == len(result.rows) - 1 < hi - 0.4  # on the axis, in its own slot
    # periods with a rate draw no note and keep matplotlib's own margins
    ax = vc.monitor(p, y, t, freq="W").plot().axes[0]
    assert _notes(ax) == [] and ax.get_xlim()[0] < -0.1


def test_every_period_pending_keeps_the_probability_scale() -> None:
    p, y, t = _data()
    result = vc.monitor(p, y, t, freq="W", mature=np.zeros(len(p), bool))
    ax = result.plot().axes[0]
    assert len(_notes(ax)) == len(result.rows) == 8
    low, high = ax.get_ylim()
    assert low == 0.0 and 1.0 <= high <= 1.1  # (the room above for counts added)


def test_labelled_rows_that_weigh_nothing_are_said_too() -> None:
    p, y, t = _data()
    w = np.where(t < np.datetime64("2026-01-12"), 0.0, 1.0)  # the first week weighs 0
    result = vc.monitor(p, y, t, freq="W", sample_weight=w)
    assert result.rows[0].status == "insufficient" and np.isnan(result.rows[0].base_rate)
    assert _notes(result.plot().axes[0]) == ["no rate: its labelled rows weigh 0"]
