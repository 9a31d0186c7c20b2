"""Session 30: the label-free estimates of consecutive windows that read the same were printed as one line
over the run, ``2026-01..2026-02: 1 pending: expect 0.1 positives ...``, which reads as one pending row in
two months (each held one). The run is for a withdrawn estimate (one reason from the diagnosed shift on);
windows with numbers keep a line each."""

from __future__ import annotations

import pytest

pytest.importorskip("duckdb")


def test_equal_estimates_of_two_windows_keep_a_line_each(tmp_path) -> None:
    import pyarrow as pa

    from veracity.monitoring import MonitorStore

    s = MonitorStore(tmp_path / "m.duckdb")
    s.log(pa.table({"id": ["a", "b", "c"], "ts": ["2026-01-15T10:00:00", "2026-02-15T10:00:00",
                                                  "2026-03-15T10:00:00"], "p": [0.1, 0.1, 0.4]}),
          id="id", time="ts", score="p")
    text = str(s.status(freq="M", as_of="2026-03-31", min_count=1))
    lines = [ln.strip() for ln in text.splitlines() if "pending: expect" in ln]
    assert [ln.split(":")[0] for ln in lines] == ["2026-01", "2026-02", "2026-03"]
    assert lines[0].split(": ", 1)[1] == lines[1].split(": ", 1)[1]  # the same numbers, one line each
    assert ".." not in text.split("label-free estimates")[1]
