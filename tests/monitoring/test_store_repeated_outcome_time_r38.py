"""An outcome sent twice in one file with its label and two observed times (session 38): one outcome,
known since the earlier time. The store kept whichever row DuckDB's ``any_value`` met first, so a status
as of a time between the two counted the label or left it pending depending on the rows' order, and the
ingest line called the rows "same id and values"."""

from __future__ import annotations

import pytest

pytest.importorskip("duckdb")


def test_the_earliest_observed_time_of_a_repeated_outcome_is_kept(tmp_path):
    from veracity.monitoring import MonitorStore

    store = MonitorStore(tmp_path / "m.duckdb")
    preds = tmp_path / "p.csv"
    preds.write_text("id,ts,score\n1,2026-03-02 10:00:00,0.2\n2,2026-03-02 11:00:00,0.4\n")
    store.log(preds, id="id", time="ts", score="score")
    labels = tmp_path / "y.csv"  # the later time first
    labels.write_text("id,y,seen\n1,1,2026-03-05 00:00:00\n1,1,2026-03-04 00:00:00\n"
                      "2,0,2026-03-04 00:00:00\n")
    res = store.outcomes(labels, id="id", label="y", time="seen")
    assert (res.rows, res.inserted, res.repeated) == (3, 2, 1)
    assert ("1 repeated within the file (same id and label; counted once, observed at the earliest time "
            "sent)") in str(res)
    row = store.status(freq="W", as_of="2026-03-04T12:00", min_count=1).rows[0]
    assert (row.labelled, row.pending) == (2, 0)  # was (1, 1): id 1 kept as observed on 2026-03-05
    assert row.realised_positives == 1
