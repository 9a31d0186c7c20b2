"""Session 30: the r28 check of outcome ids that equal a logged id only in another form looked only one way:
an outcome ``007`` for a logged ``7`` was named, but an outcome ``7`` for a logged ``007`` (a zero-padded id
in the predictions file, an integer in the labels system), or ``9`` for a logged `` 9 ``, was counted as
an outcome whose prediction is "not logged yet" — which never comes: its window stays pending for good,
silently. Now both sides are compared in their canonical form (trimmed, no ``.0``, no leading zeros)."""

from __future__ import annotations

import pytest

pytest.importorskip("duckdb")


def test_a_padded_logged_id_is_named_when_the_outcome_drops_the_zeros(tmp_path, cli):
    from veracity.monitoring import MonitorStore

    preds = tmp_path / "p.csv"
    preds.write_text("id,ts,score\n007,2026-03-02 10:00:00,0.2\n\" 9 \",2026-03-02 10:00:00,0.3\n"
                     "0,2026-03-02 10:00:00,0.4\n1.05,2026-03-02 10:00:00,0.5\n")
    s = MonitorStore(tmp_path / "m.duckdb")
    s.log(preds, id="id", time="ts", score="score")
    labels = tmp_path / "y.csv"
    labels.write_text("id,y\n7,1\n9,0\n0,1\n1.5,1\n42,0\n")
    out = cli(["monitor", "outcomes", s.path, labels, "--id", "id", "--label", "y"])
    assert out.code == 0, out.err
    # '0' joins as it is; '1.5' is no form of '1.05' and '42' no form of anything
    assert "(4 outcomes have no logged prediction yet" in out.out
    assert "(2 of them match a logged id in another form, e.g. '7' sent, '007' logged" in out.out
    assert "outcome ids match a logged prediction id only in another form" in out.err


def test_the_python_result_counts_them(tmp_path):
    import pyarrow as pa

    from veracity.monitoring import MonitorStore

    s = MonitorStore(tmp_path / "m.duckdb")
    s.log(pa.table({"id": ["00012", "A1"], "ts": ["2026-03-02T10:00:00"] * 2, "p": [0.2, 0.3]}),
          id="id", time="ts", score="p")
    with pytest.warns(UserWarning, match="only in another form"):
        res = s.outcomes(pa.table({"id": ["12", "A01"], "y": [1, 0]}), id="id", label="y")
    assert (res.unmatched, res.other_form) == (2, (1, "12", "00012"))
