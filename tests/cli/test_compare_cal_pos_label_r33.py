"""``veracity compare --calibrator cal.json`` without ``--pos-label`` reads the positive label the calibrator
recorded (``veracity fit --pos-label yes``); a refusal of it says it came from the calibrator file, never
"--pos-label yes", which the user did not type (r33)."""

import numpy as np
import pytest


@pytest.fixture
def calibrator(tmp_path, cli):
    rng = np.random.default_rng(0)
    p = rng.uniform(0.05, 0.95, 300)
    y = rng.random(300) < p
    rows = "".join(f"{a},{'yes' if b else 'no'},{'calib' if i < 150 else 'test'}\n"
                   for i, (a, b) in enumerate(zip(p, y)))
    (tmp_path / "fit.csv").write_text("score,y,role\n" + rows)
    cal = tmp_path / "cal.json"
    r = cli(["fit", str(tmp_path / "fit.csv"), "--score", "score", "--label", "y", "--pos-label", "yes",
             "--method", "platt", "--out", str(cal)])
    assert r.code == 0, r.err
    return cal


@pytest.mark.parametrize(("labels", "values"), [(("Y", "N"), r"\('N', 'Y'\)"),
                                                (("true", "false"), r"\(False, True\)")])
def test_refusal_names_the_calibrator_file(tmp_path, cli, refused, calibrator, labels, values):
    rows = "".join(f"{0.1 + 0.1 * i},{labels[i % 2]},test\n" for i in range(8))
    (tmp_path / "other.csv").write_text("score,y,role\n" + rows)
    r = cli(["compare", str(tmp_path / "other.csv"), "--calibrator", str(calibrator), "--label", "y"])
    refused(r, rf"the positive label 'yes' recorded in \S*cal\.json \(no --pos-label given\) is not among "
               rf"the values of column 'y' \(labels\) {values}")
    assert "--pos-label yes" not in r.err
    assert "with --pos-label LABEL" in r.err  # how to name this file's own positive class


def test_three_values_names_the_calibrator_file(tmp_path, cli, refused, calibrator):
    (tmp_path / "three.csv").write_text("score,y,role\n0.2,a,test\n0.3,b,test\n0.4,c,test\n")
    r = cli(["compare", str(tmp_path / "three.csv"), "--calibrator", str(calibrator), "--label", "y"])
    refused(r, r"the positive label 'yes' recorded in \S*cal\.json \(no --pos-label given\) needs a binary "
               r"label set, but labels take 3 values")
    assert "--pos-label needs" not in r.err


def test_huge_float_labels_name_the_calibrator_file(tmp_path, cli, refused, calibrator):
    (tmp_path / "big.csv").write_text("score,y,role\n0.2,1e20,test\n0.3,0,test\n0.4,1e20,test\n")
    r = cli(["compare", str(tmp_path / "big.csv"), "--calibrator", str(calibrator), "--label", "y"])
    refused(r, r"the positive label 'yes' recorded in \S*cal\.json \(no --pos-label given\): the labels "
               r"were read as floating point")
    assert "--pos-label yes" not in r.err


def test_typed_pos_label_keeps_its_words(tmp_path, cli, refused, calibrator):
    rows = "".join(f"{0.1 + 0.1 * i},{('Y', 'N')[i % 2]},test\n" for i in range(8))
    (tmp_path / "other.csv").write_text("score,y,role\n" + rows)
    r = cli(["compare", str(tmp_path / "other.csv"), "--calibrator", str(calibrator), "--label", "y",
             "--pos-label", "yes"])
    refused(r, r"--pos-label yes is not among the values of column 'y' \(labels\) \('N', 'Y'\)")
    ok = cli(["compare", str(tmp_path / "other.csv"), "--calibrator", str(calibrator), "--label", "y",
              "--pos-label", "Y", "--n-resamples", "0"])
    assert ok.code == 0, ok.err
