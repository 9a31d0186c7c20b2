"""Two output options naming one file are refused as two outputs, not as "overwriting an input".

``veracity export cal.json --onnx o.onnx --json o.onnx`` said "--onnx o.onnx is also --json; writing it would
overwrite an input": --json is no input, and nothing the user had was at risk; the clash is that both
outputs go to one file, the second written over the first.
"""

import pytest


@pytest.fixture
def calibrator(tmp_path, write_csv, cli):
    rows = [(round(0.05 + 0.9 * (i % 10) / 9, 3), i % 2) for i in range(60)]
    data = write_csv(tmp_path / "d.csv", "p,y", rows)
    cal = tmp_path / "cal.json"
    fitted = cli(["fit", data, "--score", "p", "--label", "y", "--method", "platt", "--out", cal, "-q"])
    assert fitted.code == 0, fitted.err
    return data, cal


def test_export_onnx_and_json(tmp_path, calibrator, cli, refused):
    _, cal = calibrator
    out = tmp_path / "o.onnx"
    result = cli(["export", cal, "--onnx", out, "--json", tmp_path / "." / "o.onnx"])
    refused(result, r"--onnx .*o\.onnx is also --json; both outputs would be written to the one file")
    assert "input" not in result.err.split("input error:", 1)[1]
    assert not out.exists()


def test_fit_out_and_json(tmp_path, calibrator, cli, refused):
    data, _ = calibrator
    out = tmp_path / "c.json"
    result = cli(["fit", data, "--score", "p", "--label", "y", "--method", "platt", "--out", out,
                  "--json", out])
    refused(result, r"--json .*c\.json is also --out; both outputs")
    assert "overwrite an input" not in result.err
    assert not out.exists()
