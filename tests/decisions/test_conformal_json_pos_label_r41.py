"""Round 41: `veracity conformal --pos-label 0 --json` (and CoverageReport.to_dict()) gave per_class by class
index with nothing saying that class 1 holds the rows labelled 0: the table named them (round 40), the JSON
did not. The coverage JSON now carries "pos_label" when one was given (absent otherwise, as before), as JSON
holds it (numpy scalars as Python numbers)."""

from __future__ import annotations

import json

import numpy as np

import veracity as vc
from veracity.cli import main


def _rows(seed: int = 5, n: int = 400) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    p = rng.uniform(size=n)
    return p, (rng.uniform(size=n) < p).astype(np.int64)


def test_coverage_json_names_the_pos_label_it_was_read_with():
    p, y = _rows()
    report = vc.ConformalClassifier(alpha=0.1).fit(p[:200], y[:200], pos_label=np.int64(0)).coverage(p[200:], y[200:])
    d = json.loads(json.dumps(report.to_dict()))
    assert d["pos_label"] == 0 and type(d["pos_label"]) is int
    # class 1 holds the label-0 rows: its count is theirs
    assert d["class_counts"][1] == int((y[200:] == 0).sum())
    text = np.where(y == 1, "yes", "no")
    d = vc.ConformalClassifier(alpha=0.1).fit(p[:200], text[:200], pos_label="yes").coverage(
        p[200:], text[200:]).to_dict()
    assert d["pos_label"] == "yes"
    plain = vc.ConformalClassifier(alpha=0.1).fit(p[:200], y[:200]).coverage(p[200:], y[200:]).to_dict()
    assert "pos_label" not in plain


def test_cli_conformal_json_carries_the_pos_label(tmp_path, capsys):
    p, y = _rows()
    path = tmp_path / "rows.csv"
    path.write_text("p,y,role\n" + "".join(f"{float(a)!r},{b},{'calib' if i < 200 else 'test'}\n"
                                           for i, (a, b) in enumerate(zip(p, y))))
    assert main(["conformal", str(path), "--score", "p", "--label", "y", "--pos-label", "0", "--json"]) == 0
    roles = json.loads(capsys.readouterr().out)["roles"]
    assert {role: r["pos_label"] for role, r in roles.items()} == {"calib": "0", "test": "0"}
    assert roles["test"]["class_counts"][1] == int((y[200:] == 0).sum())
