"""Session 28: outcome ids that equal a logged prediction id only in another form — ``3.0`` (a pandas
float column written to CSV) for ``3``, ``007`` for ``7``, `` 8 `` with spaces — are kept as outcomes
of predictions "not logged yet", which never come: every window stays pending, no alert can ever fire, and
the only word was the routine "(N outcomes have no logged prediction yet ...)". The ingest now says which
of them match a logged id in another form (a line and a warning), and counts them (``other_form``)."""

from __future__ import annotations

import pytest

pytest.importorskip("duckdb")


def _logged(tmp_path):
    from veracity.monitoring import MonitorStore

    preds = tmp_path / "p.csv"
    preds.write_text("id,ts,score\n3,2026-03-02 10:00:00,0.2\n7,2026-03-02 10:00:00,0.3\n"
                     "8,2026-03-02 10:00:00,0.4\nA12,2026-03-02 10:00:00,0.5\n")
    s = MonitorStore(tmp_path / "m.duckdb")
    s.log(preds, id="id", time="ts", score="score")
    return s


def test_outcome_ids_in_another_form_are_named(tmp_path, cli):
    s = _logged(tmp_path)
    labels = tmp_path / "y.csv"
    labels.write_text("id,y\n3.0,1\n007,0\n99,1\nA12,1\n")
    out = cli(["monitor", "outcomes", s.path, labels, "--id", "id", "--label", "y"])
    assert out.code == 0, out.err
    assert "(3 outcomes have no logged prediction yet" in out.out
    assert "(2 of them match a logged id in another form, e.g. '007' sent, '7' logged" in out.out
    assert "outcome ids match a logged prediction id only in another form" in out.err


def test_the_python_result_counts_them_and_plain_orphans_say_nothing_more(tmp_path):
    import pyarrow as pa

    s = _logged(tmp_path)
    with pytest.warns(UserWarning, match="only in another form"):
        res = s.outcomes(pa.table({"id": ["3.0", "42"], "y": [1, 0]}), id="id", label="y")
    assert (res.unmatched, res.other_form) == (2, (1, "3.0", "3"))
    assert res.to_dict()["other_form"] == (1, "3.0", "3")
    plain = s.outcomes(pa.table({"id": ["43"], "y": [1]}), id="id", label="y")  # no warning (errors here)
    assert (plain.unmatched, plain.other_form) == (1, None) and "another form" not in str(plain)
