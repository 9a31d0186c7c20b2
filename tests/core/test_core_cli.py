"""`veracity audit` end to end: CSV, Parquet, JSON keys, slices, multiclass columns."""

import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import veracity as vc
from veracity.cli import main
from veracity.datasets import demo_path, load_demo


def test_audit_bundled_demo_by_default(capsys):
    assert main(["audit", "--bins", "10"]) == 0
    out = capsys.readouterr().out
    assert "Calibration audit: 6000 rows" in out
    assert "[0.9,1.0]" in out and "ECE" in out and "AUC" in out


def test_audit_json_stdout_matches_python(capsys):
    assert main(["audit", "--json", "-", "--bins", "12", "--strategy", "quantile"]) == 0
    doc = json.loads(capsys.readouterr().out)
    d = load_demo()
    expected = vc.audit(d["score"], d["label"], bins=12, strategy="quantile")
    assert doc["n"] == 6000
    for key, value in expected.metrics.items():
        assert doc["metrics"][key] == pytest.approx(value, rel=1e-12)
    assert len(doc["table"]) == len(expected.table.rows)
    assert set(doc["table"][0]) >= {"lo", "hi", "n", "conf", "acc", "gap", "ci_low", "ci_high", "sufficient"}


def test_audit_parquet_weights_slices_and_json_file(tmp_path, capsys):
    rng = np.random.default_rng(2)
    n = 3000
    s = rng.normal(0, 2, n)
    y = (rng.random(n) < 1 / (1 + np.exp(-s / 2))).astype(np.int8)
    w = rng.uniform(0.5, 2, n)
    seg = rng.choice(["a", "<b>"], n)
    path = tmp_path / "scores.parquet"
    pq.write_table(pa.table({"z": s, "y": y, "w": w, "seg": seg}), path)
    out_json = tmp_path / "audit.json"
    code = main(["audit", str(path), "--score", "z", "--label", "y", "--score-type", "logit",
                 "--weight", "w", "--by", "seg", "--json", str(out_json)])
    assert code == 0
    text = capsys.readouterr().out
    assert "By seg:" in text and "weight" in text.splitlines()[1]  # the file name went to stderr
    doc = json.loads(out_json.read_text())
    assert set(doc["groups"]) == {"a", "<b>"}
    assert doc["by"] == "seg"
    assert doc["metrics"]["nll"] == pytest.approx(vc.nll(s, y, score_type="logit", sample_weight=w), rel=1e-12)


def test_audit_multiclass_columns(tmp_path, capsys):
    rng = np.random.default_rng(4)
    z = rng.normal(size=(500, 3))
    P = np.exp(z) / np.exp(z).sum(1, keepdims=True)
    y = rng.integers(0, 3, 500)
    path = tmp_path / "mc.csv"
    rows = "\n".join(f"{a:.17g},{b:.17g},{c:.17g},{t}" for (a, b, c), t in zip(P, y))
    path.write_text("p0,p1,p2,y\n" + rows + "\n")
    assert main(["audit", str(path), "--score", "p0,p1,p2", "--label", "y", "--json", "-"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["n_classes"] == 3
    assert doc["metrics"]["ece"] == pytest.approx(vc.ece(P, y), abs=1e-12)


def test_demo_file_is_shipped():
    assert demo_path().exists()


@pytest.mark.parametrize("command", [["audit"], ["fit", "--method", "platt"], ["report"], ["segments", "--features", "y"],
                                     ["monitor", "scan", "--time", "t"]])
def test_every_command_refuses_the_label_column_as_the_score(tmp_path, capsys, command):
    """`veracity audit data.csv --score y --label y` audited the answers as a perfect model (ECE 0,
    AUC 1) and exited 0; every command now refuses it in one line, exit 2."""
    path = tmp_path / "d.csv"
    path.write_text("p,y,t\n0.2,0,2026-01-01\n0.8,1,2026-01-02\n0.4,1,2026-01-03\n")
    argv = [command[0], *command[1:2], str(path), *command[2:]] if command[0] == "monitor" else \
        [command[0], str(path), *command[1:]]
    argv += ["--score", "y", "--label", "y"]
    if command[0] in ("fit", "report"):
        argv += ["--out", str(tmp_path / ("c.json" if command[0] == "fit" else "r.html"))]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--score names the --label column 'y'; name the score column(s) only" in err[0]
