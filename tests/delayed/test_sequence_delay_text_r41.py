"""Session 41: an alarm before ``shift_at`` is no detection of the shift.

In a backtest a calibrated stretch that alarms before the known shift is a false alarm (or the shift began
earlier than stated); the printout had read "detection delay -43 batches after the shift", and the notebook
view "detection delay: -43 batches". ``delay`` (the number) stays -43.
"""

from __future__ import annotations

import numpy as np

import veracity as vc


def _stream():
    rng = np.random.default_rng(0)
    day = np.repeat(np.arange(100), 50)
    p = rng.beta(2, 5, day.size)
    y = (rng.random(p.size) < p + 0.2 * (day >= 10)).astype(int)  # the gap opens on day 10
    return p, y, day


def test_an_alarm_before_the_stated_shift_is_not_read_as_a_delay():
    p, y, day = _stream()
    cs = vc.confidence_sequence(p, y, batches=day, shift_at=60)  # the shift stated 50 days late
    assert cs.alarm_at == 17 and cs.delay == -43 and cs.to_dict()["delay"] == -43
    text = str(cs)
    assert "-43" not in text and "after the shift" not in text
    assert text.splitlines()[-1].endswith("detection delay none: the alarm came 43 batches before the shift "
                                          "(a false alarm, or the shift began earlier)")
    assert cs._summary_items()["detection delay"].startswith("none: the alarm came 43 batches before")
    assert "-43" not in cs._repr_html_()


def test_an_alarm_after_the_shift_reads_as_before():
    p, y, day = _stream()
    cs = vc.confidence_sequence(p, y, batches=day, shift_at=10)
    last = str(cs).splitlines()[-1]
    assert last == "alarm: at batch 17 (0 left the bounds); detection delay 7 batches after the shift"
    rows = vc.confidence_sequence(p[:3_000], y[:3_000], shift_at=2_000)  # row by row: rows, with thousands
    assert "the alarm came 1,187 rows before the shift" in str(rows)


def test_crossed_bounds_are_marked_as_the_stores_status_marks_them():
    """A gap that moved: the running intersection's lower bound passes the upper. vc.confidence_sequence and
    vc.binned_sequences printed "[+0.0925, +0.0874]" as if a range; a store's status marks it "(crossed)"."""
    p, y, day = _stream()
    cs = vc.confidence_sequence(p, y, batches=day)
    crossed = [line for line in str(cs).splitlines() if "(crossed)" in line]
    assert crossed and all(line.split()[0] in {"57", "71", "85", "99"} for line in crossed)
    assert cs.low[57] > cs.high[57] and not cs.low[42] > cs.high[42]
    assert "[+0.0767, +0.0874]            alert" in str(cs)  # uncrossed bounds as they were, aligned
    assert "(crossed)" in cs._repr_html_()
    b = vc.binned_sequences(p, y, bins=2, batches=day)
    assert "[0, 0.5)     4,456     +0.1801  [+0.1118, +0.1057] (crossed)  ALARM at 18" in str(b)
