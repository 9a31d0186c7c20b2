"""``veracity fit ... --out cal.onnx`` (or ``cal.sql``, ``cal.parquet``, ``cal.pkl``) wrote the JSON artifact
under that name, exit 0: onnxruntime, a SQL client or a Parquet reader then refused the file (session 44).
Such a name is refused before any work, naming what fit writes (and, for ONNX/SQL, the export command that
writes it); JSON names, YAML names (JSON is YAML) and names without a suffix are written as before."""

from __future__ import annotations

import json

import pytest


@pytest.fixture
def rows(tmp_path):
    path = tmp_path / "rows.csv"
    path.write_text("score,label\n" + "".join(f"{(i % 10 + 0.5) / 10},{i % 2}\n" for i in range(40)))
    return path


@pytest.mark.parametrize("name, then", [("cal.onnx", r"veracity export \S*cal\.json --onnx \S*cal\.onnx"),
                                        ("cal.SQL", r"veracity export \S*cal\.json --sql DIALECT")])
def test_export_formats_point_to_export(tmp_path, cli, refused, rows, name, then):
    out = tmp_path / name
    refused(cli(["fit", rows, "--score", "score", "--label", "label", "--method", "platt", "--out", out]),
            rf"--out \S*{name}: fit writes the calibrator as a JSON artifact, not \.(onnx|SQL); pass --out "
            rf"\S*cal\.json, then `{then}`")
    assert not out.exists()


@pytest.mark.parametrize("name", ["cal.parquet", "cal.csv", "cal.pkl", "cal.joblib"])
def test_data_and_pickle_names_refused(tmp_path, cli, refused, rows, name):
    out = tmp_path / name
    refused(cli(["fit", rows, "--score", "score", "--label", "label", "--method", "platt", "--out", out]),
            rf"--out \S*{name}: fit writes the calibrator as a JSON artifact \(which veracity apply, report "
            rf"and export read\), not \.\w+; pass --out \S*cal\.json")
    assert not out.exists()


@pytest.mark.parametrize("name", ["cal.json", "cal.yaml", "cal"])
def test_json_names_written(tmp_path, cli, rows, name):
    got = cli(["fit", rows, "--score", "score", "--label", "label", "--method", "platt", "--out",
               tmp_path / name])
    assert got.code == 0, got.err
    assert json.loads((tmp_path / name).read_text())["kind"] == "platt"
