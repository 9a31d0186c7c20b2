"""Session 27: batch and group keys that are times read as times.

Every pandas, polars and Arrow time column holds ``datetime64[ns]``, whose ``.item()`` is a bare integer:
``vc.confidence_sequence(..., batches=dates)`` printed ``batch 1767225600000000000`` for 2026-01-01, its
``alarm_step`` was that integer, ``vc.binned_sequences`` said ``ALARM at 1767657600000000000`` and
``vc.label_plan(..., by=dates)`` named its groups so; zoned timestamps made ``to_dict()`` unfit for JSON.
"""

from __future__ import annotations

import datetime
import json

import numpy as np
import pandas as pd
import pytest

import veracity as vc


def _stream():
    rng = np.random.default_rng(0)
    p = rng.beta(2, 5, 300)
    y = (rng.random(300) < p).astype(int)
    y[150:] = 1  # from day 5 every outcome is positive: an alarm soon after
    day = np.repeat(np.arange(10), 30)
    return p, y, pd.Series(pd.Timestamp("2026-01-01") + pd.to_timedelta(day, "D"))


def _frames():
    p, y, dates = _stream()
    df = pd.DataFrame({"score": p, "y": y, "day": dates})
    out = [("pandas", df)]
    try:
        import polars as pl

        out.append(("polars", pl.from_pandas(df)))
    except ImportError:  # pragma: no cover
        pass
    return out


def test_a_sequence_over_dates_names_its_steps_and_alarm_by_date():
    p, y, dates = _stream()
    cs = vc.confidence_sequence(p, y, batches=dates)
    assert cs.alarm_at is not None
    want = (pd.Timestamp("2026-01-01") + pd.Timedelta(days=int(cs.alarm_at))).to_pydatetime()
    assert cs.alarm_step == want and isinstance(cs.alarm_step, datetime.datetime)
    text = str(cs)
    assert f"alarm: at batch {want.date().isoformat()} (" in text and "17672" not in text  # midnight: the date
    d = json.loads(json.dumps(cs.to_dict()))
    assert d["alarm_step"] == want.isoformat() and d["steps"][0]["step"] == "2026-01-01T00:00:00"
    assert cs.rows()[0]["step"] == datetime.datetime(2026, 1, 1)


@pytest.mark.parametrize("name, frame", _frames())
def test_the_frame_form_reads_a_time_column_as_times(name, frame):
    cs = vc.confidence_sequence(frame, score="score", label="y", batches="day")
    assert cs.rows()[0]["step"] == datetime.datetime(2026, 1, 1)
    assert "2026-01-01 " in str(cs) and "00:00:00" not in str(cs)  # every batch at midnight: shown as dates


def test_binned_sequences_and_label_plans_name_dates_as_dates():
    p, y, dates = _stream()
    b = vc.binned_sequences(p, y, bins=2, batches=dates.to_numpy().astype("datetime64[D]"))
    alarmed = [s for s in b.sequences if s.alarm_at is not None]
    first = str(alarmed[0].alarm_step)
    assert first.startswith("2026-01-") and f"ALARM at {first}" in str(b)
    json.dumps(b.to_dict())
    plan = vc.label_plan(np.full(300, 0.2), width=0.3, by=dates)
    days = [datetime.datetime(2026, 1, 1), datetime.datetime(2026, 1, 2)]
    assert [r["group"] for r in plan.rows][:2] == days
    assert "2026-01-01 " in str(plan) and "00:00:00" not in str(plan) and "17672" not in str(plan)  # dates
    assert json.loads(json.dumps(plan.to_dict()))["plan"][0]["group"] == "2026-01-01T00:00:00"


def test_zoned_batches_give_json_ready_results():
    p, y, _ = _stream()
    hours = pd.to_timedelta(np.repeat(np.arange(10), 30), "h")
    zoned = pd.Series(pd.Timestamp("2026-03-29 00:30", tz="Europe/Paris") + hours)
    cs = vc.confidence_sequence(p, y, batches=zoned)
    d = json.loads(json.dumps(cs.to_dict()))
    assert d["steps"][0]["step"] == "2026-03-29T00:30:00+01:00"


def test_sub_microsecond_keys_keep_numpys_value():
    p, y, _ = _stream()
    keys = np.datetime64("2026-01-01T00:00:00", "ns") + np.repeat(np.arange(10), 30).astype("timedelta64[ns]")
    cs = vc.confidence_sequence(p, y, batches=keys)
    assert cs.rows()[1]["step"] == keys[30]  # 1 ns after midnight: no datetime holds it
    json.dumps(cs.to_dict())
