"""``veracity compare --calibrator cal.json`` with no FILE reads the bundled demo data: a calibrator fit on
another file was measured there, silently (only a stderr line named the demo path), and its ledger printed
numbers about rows that were never its data — "PlattScaling on 3,000 evaluation rows" for a file of 200
test rows. Refused now, naming the file it was fit on; a calibrator fit on the demo data still runs on it
(r33)."""

import json

import numpy as np


def _fit_file(tmp_path, cli):
    rng = np.random.default_rng(0)
    p = rng.uniform(0.05, 0.95, 400)
    y = (rng.random(400) < p ** 1.5).astype(int)
    rows = "".join(f"{a},{b},{'calib' if i < 200 else 'test'}\n" for i, (a, b) in enumerate(zip(p, y)))
    path = tmp_path / "mine.csv"
    path.write_text("score,label,role\n" + rows)  # the demo's column names: nothing else stops it
    cal = tmp_path / "cal.json"
    r = cli(["fit", str(path), "--method", "platt", "--out", str(cal)])
    assert r.code == 0, r.err
    return path, cal


def test_no_file_with_a_calibrator_fit_elsewhere_is_refused(tmp_path, cli, refused):
    path, cal = _fit_file(tmp_path, cli)
    r = cli(["compare", "--calibrator", str(cal), "--json"])
    refused(r, r"no FILE given, so the bundled demo data would be measured, but \S*cal\.json was fit on "
               r"\S*mine\.csv; pass the file of rows to measure it on")
    ok = cli(["compare", str(path), "--calibrator", str(cal), "--n-resamples", "0", "--json"])
    assert ok.code == 0, ok.err
    assert json.loads(ok.out)["eval_rows"] == 200


def test_a_calibrator_fit_on_the_demo_data_still_runs_without_a_file(tmp_path, cli):
    cal = tmp_path / "demo_cal.json"
    assert cli(["fit", "--method", "temperature", "--out", str(cal)]).code == 0
    r = cli(["compare", "--calibrator", str(cal), "--n-resamples", "0", "--json"])
    assert r.code == 0, r.err
    assert json.loads(r.out)["eval_rows"] == 3000
