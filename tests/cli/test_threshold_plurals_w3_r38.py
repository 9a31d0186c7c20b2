"""Round 38 (w3): ``veracity threshold`` said "the k-th highest of n = 1 positives" and "review budget of 1
alerts"; the counts now take their number."""

from __future__ import annotations

from veracity.cli import main


def test_one_positive_and_a_budget_of_one_alert(tmp_path, write_csv, capsys):
    path = write_csv(tmp_path / "d.csv", "p,y", [(0.5, 1), (0.4, 0), (0.3, 0)])
    assert main(["threshold", path, "--score", "p", "--label", "y", "--target-recall", "0.5"]) == 0
    assert "the k-th highest of n = 1 positive, k = ceil((n+1)·R) = 1" in capsys.readouterr().out
    assert main(["threshold", path, "--score", "p", "--label", "y", "--budget", "1"]) == 0
    assert "— review budget of 1 alert\n" in capsys.readouterr().out
    assert main(["threshold", path, "--score", "p", "--label", "y", "--budget", "2"]) == 0
    assert "— review budget of 2 alerts\n" in capsys.readouterr().out
