"""Round 38 (w3): ``veracity monitor`` said "monitoring store ready (1 predictions, 1 outcomes)" of a store
holding one of each, and "FILE: 1 rows read" after a scan of one row; the counts now take their number
(``core._text.count_noun``)."""

from __future__ import annotations

from veracity.cli import main


def test_init_of_a_store_with_one_prediction_and_one_outcome(tmp_path, write_csv, capsys):
    store = str(tmp_path / "m.duckdb")
    preds = write_csv(tmp_path / "p.csv", "id,ts,p", [("q1", "2026-03-03", 0.5)])
    outcomes = write_csv(tmp_path / "y.csv", "id,y", [("q1", 1)])
    assert main(["monitor", "log", store, preds, "--id", "id", "--time", "ts", "--score", "p"]) == 0
    assert main(["monitor", "outcomes", store, outcomes, "--id", "id", "--label", "y"]) == 0
    capsys.readouterr()
    assert main(["monitor", "init", store]) == 0
    assert capsys.readouterr().out.strip().endswith("monitoring store ready (1 prediction, 1 outcome)")
    empty = str(tmp_path / "e.duckdb")
    assert main(["monitor", "init", empty]) == 0
    assert capsys.readouterr().out.strip().endswith("monitoring store ready (0 predictions, 0 outcomes)")


def test_a_scan_of_one_row_says_1_row_read(tmp_path, write_csv, capsys):
    path = write_csv(tmp_path / "s.csv", "month,p,y", [("2026-01", 0.4, 1)])
    assert main(["monitor", "scan", path, "--period", "month", "--score", "p", "--label", "y"]) == 0
    err = capsys.readouterr().err
    assert "s.csv: 1 row read" in err and "1 rows" not in err
    path = write_csv(tmp_path / "t.csv", "month,p,y", [("2026-01", 0.4, 1), ("2026-02", 0.6, 0)])
    assert main(["monitor", "scan", path, "--period", "month", "--score", "p", "--label", "y"]) == 0
    assert "t.csv: 2 rows read" in capsys.readouterr().err
