"""Round 42: `veracity threshold --target-precision P --sample-weight w --json` wrote the interval's effective
number of alerts under the key "alerts" (rule.precision_interval.<role>.alerts = 46.6) beside the table's own
"alerts" of the same role at the same threshold (60.2, the alerts' weight): one JSON, one key, two numbers.
Now "alerts" is the alerts' weight, as the table has it, and "effective_alerts" the size the Wilson interval
reads (the number the text prints as "on 46.6 effective alerts"); unweighted, "alerts" stays the count."""

from __future__ import annotations

import json

import numpy as np
import pytest

from veracity.cli import main


def _csv(tmp_path, weighted: bool) -> str:
    rng = np.random.default_rng(8)
    n = 600
    p = rng.beta(2, 3, n)
    y = (rng.random(n) < p).astype(int)
    w = rng.lognormal(0.0, 0.5, n)
    role = np.where(np.arange(n) % 2 == 0, "calib", "test")
    path = tmp_path / "rows.csv"
    head = "p,y,w,role\n" if weighted else "p,y,role\n"
    path.write_text(head + "".join(
        (f"{a!r},{b},{c!r},{r}\n" if weighted else f"{a!r},{b},{r}\n")
        for a, b, c, r in zip(p.tolist(), y.tolist(), w.tolist(), role.tolist())))
    return str(path)


@pytest.mark.parametrize("weighted", [False, True])
def test_precision_interval_alerts_are_the_tables_alerts(tmp_path, capsys, weighted):
    argv = ["threshold", _csv(tmp_path, weighted), "--score", "p", "--label", "y", "--target-precision", "0.7",
            "-q", "--json", "-"]
    assert main(argv + (["--sample-weight", "w"] if weighted else [])) == 0
    doc = json.loads(capsys.readouterr().out)
    for role, got in doc["rule"]["precision_interval"].items():
        table_alerts = doc["roles"][role]["table"][0]["alerts"]  # the row of the chosen threshold
        assert got["alerts"] == table_alerts
        if weighted:
            # the interval's size: an effective number, below the alerts' weight here (uneven weights)
            assert 0 < got["effective_alerts"] < got["alerts"]
        else:
            assert "effective_alerts" not in got and type(got["alerts"]) is int


def test_effective_alerts_is_the_number_the_text_prints(tmp_path, capsys):
    path = _csv(tmp_path, True)
    argv = ["threshold", path, "--score", "p", "--label", "y", "--target-precision", "0.7", "-q",
            "--sample-weight", "w"]
    assert main(argv) == 0
    line = capsys.readouterr().out.strip().splitlines()[-1]
    assert main(argv + ["--json", "-"]) == 0
    doc = json.loads(capsys.readouterr().out)
    calib = doc["rule"]["precision_interval"]["calib"]
    assert f"calib {calib['precision']:.4f} on {calib['effective_alerts']:.1f} effective alerts" in line
