"""Session 28: ``MonitorStore.status(since=..., last=...)`` lists only the later periods, so that ``alerts``
counts what is new (a daily job's ``--fail-on-alert`` failed forever after the first alert); every listed
number, the reference included, is the full listing's. The store is tests/cli/test_monitor_since_r28.py's:
2026-W10 alerts (outcomes 0.3 above the scores), 2026-W11 is calibrated."""

from __future__ import annotations

from datetime import date, datetime, timezone

import numpy as np
import pytest

import veracity as vc
from veracity.monitoring import MonitorStore

pytest.importorskip("duckdb")

AS_OF = "2026-03-20"


@pytest.fixture(scope="module")
def store(alert_then_clean_store) -> MonitorStore:
    return MonitorStore(alert_then_clean_store)


def _periods(status) -> list[str]:
    return [r.period for r in status.rows]


def test_since_and_last_cut_the_rows_and_their_alerts(store) -> None:
    full = store.status(as_of=AS_OF, min_count=50)
    assert _periods(full) == ["2026-W10", "2026-W11"] and len(full.alerts) == 1
    assert (full.since, full.last, full.left_out, full.left_out_alerts) == (None, None, 0, 0)
    for since in ("2026-W11", "2026-03-09", datetime(2026, 3, 12), date(2026, 3, 9),
                  np.datetime64("2026-03-10"), datetime(2026, 3, 9, 1, tzinfo=timezone.utc)):
        cut = store.status(as_of=AS_OF, min_count=50, since=since)
        assert _periods(cut) == ["2026-W11"], since
        assert cut.alerts == () and cut.alert_rows == []
        assert (cut.left_out, cut.left_out_alerts, cut.reference) == (1, 1, "2026-W10")
        assert cut.rows[0].to_dict() == full.rows[1].to_dict()
    for since in ("2026-W10", "2026-03-08T23:59:59", "2026-03", "2026Q1", "2026-Q1", "2025-12-31"):
        cut = store.status(as_of=AS_OF, min_count=50, since=since)
        assert _periods(cut) == ["2026-W10", "2026-W11"] and len(cut.alerts) == 1, since
    assert _periods(store.status(as_of=AS_OF, min_count=50, last=2)) == ["2026-W11"]  # 2026-W12 and W11
    assert _periods(store.status(as_of=AS_OF, min_count=50, last=np.int64(3))) == ["2026-W10", "2026-W11"]
    assert _periods(store.status(as_of=AS_OF, min_count=50, last=1)) == []  # 2026-W12 holds no prediction
    assert _periods(store.status(as_of="2026-03-15T23:00", min_count=50, last=1)) == ["2026-W11"]


def test_a_named_reference_and_the_sequences_read_every_period(store) -> None:
    full = store.status(as_of=AS_OF, min_count=50, reference="2026-W10", alerts="sequential")
    cut = store.status(as_of=AS_OF, min_count=50, reference="2026-W10", alerts="sequential", since="2026-W11")
    assert cut.reference == full.reference == "2026-W10"
    assert cut.rows[0].to_dict() == full.rows[1].to_dict()  # the W11 sequence bounds include W10's labels
    assert dict(cut.sequence_alarms) == dict(full.sequence_alarms)


def test_rolling_windows_are_cut_at_their_printed_start(store) -> None:
    full = store.status(as_of="2026-03-20T06:30", window="3d", min_count=50)
    labels = _periods(full)
    assert labels[:2] == ["2026-02-27T06:30", "2026-03-02T06:30"] and len(labels) == 6
    cut = store.status(as_of="2026-03-20T06:30", window="3d", min_count=50, since=labels[3])
    assert _periods(cut) == labels[3:]
    # a time: the windows (start, end] that end after it
    cut = store.status(as_of="2026-03-20T06:30", window="3d", min_count=50, since="2026-03-08T06:31")
    assert _periods(cut) == labels[3:]
    # the last 3 windows up to the as-of time: (03-17, 03-20] holds nothing, then 03-14 and 03-11
    assert _periods(store.status(as_of="2026-03-20T06:30", window="3d", min_count=50, last=3)) == labels[4:]


def test_the_dict_gains_the_cut_only_with_it(store) -> None:
    full = store.status(as_of=AS_OF, min_count=50).to_dict()
    assert not {"since", "last", "periods_left_out", "alerts_left_out"} & set(full)
    cut = store.status(as_of=AS_OF, min_count=50, last=2).to_dict()
    assert (cut["since"], cut["last"], cut["periods_left_out"], cut["alerts_left_out"]) == \
        ("2026-W11", 2, 1, 1)
    assert "listed: the last 2 weeks up to the as-of time" in store.status(as_of=AS_OF, min_count=50,
                                                                           last=2)._repr_html_()


def test_an_empty_store_with_a_cut(tmp_path) -> None:
    empty = MonitorStore(tmp_path / "e.duckdb")
    empty.init()
    status = empty.status(as_of=AS_OF, since="2026-W11")
    assert status.rows == () and (status.since, status.left_out) == ("2026-03-09 00:00:00", 0)


@pytest.mark.parametrize("kwargs, match", [
    ({"since": "2026-03-21"}, r"since='2026-03-21' \(2026-03-21 00:00:00 UTC\) is after the as-of time"),
    ({"since": "2026-W13"}, "is after the as-of time"),
    ({"since": "soon"}, "since must be a date or time like 2026-03-02"),
    ({"since": "2026-W00"}, "since='2026-W00' names no week"),
    ({"since": "2026-00"}, "names no month"),
    ({"since": "2026-Q0"}, "names no quarter"),
    ({"last": 0}, "last must be a whole number of periods, at least 1"),
    ({"last": -1}, "last must be a whole number"),
    ({"last": 2.0}, "last must be a whole number"),
    ({"last": True}, "last must be a whole number"),
    ({"last": "2"}, "last must be a whole number"),
    ({"since": "2026-W11", "last": 1}, "pass since= or last=, not both"),
])
def test_bad_values_are_one_line_value_errors(store, error_line, kwargs, match) -> None:
    import re

    text = error_line(lambda: store.status(as_of=AS_OF, min_count=50, **kwargs))
    assert re.search(match, text), text
    with pytest.raises(ValueError):
        store.status(as_of=AS_OF, **kwargs)
    assert issubclass(vc.VeracityError, ValueError)
