"""Session 28: a bare number of days (``--horizon 14``, ``horizon=14``, read as 14 days) was shown as given:
the status header said "labels final after 14" and the JSON ``"horizon": "14"`` — 14 what? It now reads
``14d``; a duration with its unit (``14d``, ``12h``) is shown as given."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("duckdb")


def test_a_bare_number_of_days_is_shown_with_its_unit(tmp_path, cli):
    preds = tmp_path / "p.csv"
    preds.write_text("id,ts,score\n1,2026-03-02 10:00:00,0.2\n2,2026-03-03 11:00:00,0.4\n")
    store = tmp_path / "m.duckdb"
    assert cli(["monitor", "log", store, preds, "--id", "id", "--time", "ts", "--score", "score"]).code == 0
    out = cli(["monitor", "status", store, "--freq", "D", "--as-of", "2026-03-20", "--horizon", "14"])
    assert out.code == 0, out.err
    assert "labels final after 14d;" in out.out
    out = cli(["monitor", "status", store, "--freq", "D", "--as-of", "2026-03-20", "--horizon", "14",
               "--json"])
    assert json.loads(out.out)["horizon"] == "14d"
    out = cli(["monitor", "status", store, "--freq", "D", "--as-of", "2026-03-20", "--horizon", "12h"])
    assert "labels final after 12h;" in out.out

    from veracity.monitoring import MonitorStore

    assert MonitorStore(store).status(freq="D", as_of="2026-03-20", horizon=2.5).horizon == "2.5d"
