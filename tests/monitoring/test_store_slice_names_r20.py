"""Session 20: slice columns whose names differ only in case (schema drift between batches).

The store keeps each ``--by`` column as a DuckDB column ``s_<name>``, and DuckDB's column names ignore
ASCII case. A batch whose slice column is ``Segment`` after batches with ``segment`` (or ``by`` naming a
column twice) failed with DuckDB's catalog error about a column ``s_Segment`` the user never named; it is
refused in one line that names the logged slice and the fix, and nothing is stored.
"""

from __future__ import annotations

import pandas as pd
import pytest

import veracity as vc
from veracity.cli import main
from veracity.monitoring import MonitorStore

pytest.importorskip("duckdb")

T0 = pd.Timestamp("2026-03-02")


def _frame(ids, **slices):
    return pd.DataFrame({"id": ids, "ts": [T0] * len(ids), "p": [0.1] * len(ids), **slices})


def test_a_slice_differing_from_a_logged_one_only_in_case_is_refused_in_one_line(tmp_path):
    store = MonitorStore(tmp_path / "m.duckdb")
    store.log(_frame([1, 2], segment=["a", "b"]), id="id", time="ts", score="p", by="segment")
    before = store.counts()
    with pytest.raises(vc.VeracityError) as err:
        store.log(_frame([3, 4], Segment=["c", "d"]), id="id", time="ts", score="p", by="Segment")
    msg = str(err.value)
    assert "'Segment'" in msg and "'segment'" in msg and "case" in msg
    assert "s_Segment" not in msg and "Catalog" not in msg and "\n" not in msg
    assert store.counts() == before and store.slices() == ["segment"]
    # the logged name still works
    store.log(_frame([3, 4], segment=["c", "d"]), id="id", time="ts", score="p", by="segment")
    assert store.counts()["predictions"] == 4


@pytest.mark.parametrize("by", [["x", "X"], ["seg", "seg"]])
def test_by_naming_one_store_column_twice_is_refused_in_one_line(tmp_path, by):
    store = MonitorStore(tmp_path / "m.duckdb")
    frame = _frame([1], **{name: ["v"] for name in dict.fromkeys(by)})
    with pytest.raises(vc.VeracityError) as err:
        store.log(frame, id="id", time="ts", score="p", by=by)
    msg = str(err.value)
    assert "Binder" not in msg and "Catalog" not in msg and "s_" not in msg and "\n" not in msg
    assert repr(by[0]) in msg
    assert store.counts()["predictions"] == 0


def test_the_cli_exits_2_on_a_slice_differing_only_in_case(tmp_path, capsys):
    path = tmp_path / "m.duckdb"
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    _frame([1], region=["EU"]).to_csv(a, index=False)
    _frame([2], Region=["US"]).to_csv(b, index=False)
    assert main(["monitor", "log", str(path), str(a), "--id", "id", "--time", "ts", "--score", "p",
                 "--by", "region"]) == 0
    capsys.readouterr()
    assert main(["monitor", "log", str(path), str(b), "--id", "id", "--time", "ts", "--score", "p",
                 "--by", "Region"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "'region'" in err and "Catalog" not in err


def test_rolling_windows_hold_their_end_and_are_named_by_their_start(tmp_path):
    """docs/monitoring.md: a rolling window holds the times after its start up to and including its end."""
    store = MonitorStore(tmp_path / "m.duckdb")
    days = pd.to_datetime(["2026-03-07", "2026-03-08", "2026-03-08", "2026-03-09", "2026-03-09", "2026-03-09"])
    store.log(pd.DataFrame({"id": range(6), "ts": days, "p": [0.1] * 6}), id="id", time="ts", score="p")
    rows = store.status(window="1d", as_of="2026-03-10", min_count=1).rows
    assert [(r.period, r.start, r.end, r.rows) for r in rows] == [
        ("2026-03-06", "2026-03-06T00:00:00", "2026-03-07T00:00:00", 1),
        ("2026-03-07", "2026-03-07T00:00:00", "2026-03-08T00:00:00", 2),
        ("2026-03-08", "2026-03-08T00:00:00", "2026-03-09T00:00:00", 3)]
    last = store.status(window="1d", as_of="2026-03-09", min_count=1).rows[-1]
    assert (last.end, last.rows) == ("2026-03-09T00:00:00", 3)  # as-of itself is in the last window
