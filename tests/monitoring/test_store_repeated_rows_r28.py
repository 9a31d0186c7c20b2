"""Session 28: a batch holding the same row twice (an upstream join that doubled a day's rows) was
stored once, silently: "2 outcomes read; 0 new, 1 already stored" — the counts did not add up to the
rows read and nothing said where the other row went. The result now counts them (``repeated``)."""

from __future__ import annotations

import pytest

pytest.importorskip("duckdb")


def test_rows_repeated_within_a_batch_are_counted_and_said(tmp_path, cli):
    preds = tmp_path / "p.csv"
    preds.write_text("id,ts,score\n1,2026-03-02 10:00:00,0.2\n1,2026-03-02 10:00:00,0.2\n"
                     "2,2026-03-02 11:00:00,0.4\n")
    labels = tmp_path / "y.csv"
    labels.write_text("id,y\n1,0\n1,0\n1,0\n")
    store = tmp_path / "m.duckdb"
    out = cli(["monitor", "log", store, preds, "--id", "id", "--time", "ts", "--score", "score"])
    assert out.code == 0, out.err
    assert "3 predictions read; 2 new, 0 already stored (no-op), 1 repeated within the file" in out.out
    out = cli(["monitor", "outcomes", store, labels, "--id", "id", "--label", "y"])
    assert out.code == 0, out.err
    assert "3 outcomes read; 1 new, 0 already stored (no-op), 2 repeated within the file" in out.out

    from veracity.monitoring import MonitorStore

    s = MonitorStore(store)
    again = s.log(preds, id="id", time="ts", score="score")  # the same file again: a no-op, still counted
    assert (again.rows, again.inserted, again.duplicates, again.repeated) == (3, 0, 2, 1)
    assert again.to_dict()["repeated"] == 1
    assert s.counts()["predictions"] == 2 and s.counts()["outcomes"] == 1
