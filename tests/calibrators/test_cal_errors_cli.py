"""Bad input and misuse, in Python and via `veracity fit/apply/compare`; CLI happy paths."""

import json
import re

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

import veracity as vc
from veracity.cli import main
from veracity.datasets import demo_path, load_demo


# -- Python ------------------------------------------------------------------------------------
@pytest.mark.parametrize("make, scores, labels, match", [
    (lambda: vc.TemperatureScaling(), [0.3, np.nan, 1.0], [0, 1, 1], "1 NaN"),
    (lambda: vc.PlattScaling(), [0.3, np.inf, 1.0], [0, 1, 1], "infinite"),
    (lambda: vc.TemperatureScaling(), [0.3, 0.2, 1.0], [1, 1, 1], "needs both classes.*all 3 labels are 1"),
    (lambda: vc.IsotonicCalibration(), [0.3, 0.2, 0.1], [0, 0, 0], "needs both classes"),
    (lambda: vc.VectorScaling(), [0.3, 0.2, 1.0], [0, 1, 1], "multiclass calibrator but scores are 1-D"),
    (lambda: vc.MatrixScaling(), [0.3, 0.2, 1.0], [0, 1, 1], "multiclass calibrator"),
    (lambda: vc.PlattScaling(), [[1, 2, 3], [3, 2, 1]], [0, 2],
     r"If these are logits, pass PlattScaling\(score_type='logit'\)"),
    (lambda: vc.VennAbers(), [[.2, .8], [.5, .5]], [0, 0], "at least 2 classes"),
    (lambda: vc.TemperatureScaling(score_type="logit"), [[1.0, 2.0], [2.0, 1.0]], [1, 1], "at least 2 classes"),
    (lambda: vc.IsotonicCalibration(), [0.3, 1.2], [0, 1], r"probabilities in \[0, 1\]"),
    (lambda: vc.PlattScaling(), [0.3, 0.4], [0, 2], "binary 0/1"),
    (lambda: vc.PlattScaling(), [0.3, 0.4, 0.5], [0, 1], "3 rows but labels have 2"),
    (lambda: vc.PlattScaling(on_reversed="maybe"), [0.3, 0.4], [0, 1], "on_reversed must be"),
    (lambda: vc.IsotonicCalibration(ties="some"), [0.3, 0.4], [0, 1], "ties must be"),
    (lambda: vc.HistogramBinning(bins=0), [0.3, 0.4], [0, 1], "bins must be a positive whole number"),
    (lambda: vc.VectorScaling(reg_lambda=-1), [[1, 2], [2, 1]], [0, 1], "reg_lambda must be"),
])
def test_bad_input_raises_one_clear_error(make, scores, labels, match):
    with pytest.raises(vc.VeracityError, match=match):
        make().fit(np.asarray(scores, dtype=float), labels)


def test_sample_weight_checked():
    with pytest.raises(vc.VeracityError, match="sample_weight has 2 rows"):
        vc.PlattScaling().fit([0.1, 0.5, 0.9], [0, 1, 1], sample_weight=[1, 2])


# -- CLI happy paths ----------------------------------------------------------------------------
def test_fit_apply_compare_on_demo(tmp_path, capsys):
    cal = tmp_path / "cal.json"
    assert main(["fit", "--method", "temperature", "--score", "logit", "--score-type", "logit",
                 "--role-col", "role", "--fit-role", "calib", "--model-revision", "demo-1",
                 "--out", str(cal)]) == 0
    printed = capsys.readouterr()
    assert "tau* = " in printed.out  # stdout: the fitted map only
    assert "fit TemperatureScaling on 3000 rows (role 'calib')" in printed.err  # notes on stderr
    assert f"saved to {cal}" in printed.err and "saved to" not in printed.out
    doc = json.loads(cal.read_text())
    assert doc["metadata"]["model_revision"] == "demo-1" and doc["metadata"]["role"] == "calib"
    d = load_demo()
    mask = d["role"] == "calib"
    ref = vc.TemperatureScaling(score_type="logit").fit(d["logit"][mask], d["label"][mask])
    assert doc["state"]["temperature_"] == ref.temperature_

    out_pq = tmp_path / "out.parquet"
    assert main(["apply", str(cal), str(demo_path()), "--out", str(out_pq)]) == 0
    printed = capsys.readouterr()
    assert printed.out == "" and "applied TemperatureScaling to 6000 rows" in printed.err
    table = pq.read_table(out_pq)
    assert table.column_names[-1] == "calibrated" and table.num_rows == 6000
    assert np.array_equal(table.column("calibrated").to_numpy(), ref.transform(d["logit"]))

    capsys.readouterr()
    assert main(["compare", "--calibrator", str(cal), "--role-col", "role", "--eval-role", "test",
                 "--json", "-"]) == 0
    led = json.loads(capsys.readouterr().out)
    t = d["role"] == "test"
    expected = vc.compare(d["logit"][t], d["label"][t], ref).to_dict()
    assert led["certificates"] == expected["certificates"]
    assert led["after"]["ece"] == pytest.approx(expected["after"]["ece"], rel=1e-12)
    assert main(["compare", "--calibrator", str(cal), "--role-col", "role"]) == 0
    assert "stable argsort identical: held" in capsys.readouterr().out


@pytest.mark.parametrize("method", ["platt", "isotonic", "histogram", "beta", "venn-abers"])
def test_fit_every_binary_method_from_csv(method, tmp_path, capsys):
    cal = tmp_path / f"{method}.json"
    assert main(["fit", "--method", method, "--role-col", "role", "--out", str(cal)]) == 0
    assert vc.load(cal).kind == method
    out_csv = tmp_path / "out.csv"
    assert main(["apply", str(cal), str(demo_path()), "--out", str(out_csv)]) == 0
    assert "calibrated" in pacsv.read_csv(out_csv).column_names


def test_multiclass_fit_and_apply(tmp_path, capsys):
    rng = np.random.default_rng(0)
    Z = 3 * rng.normal(size=(600, 3))
    y = (Z / 3 + rng.gumbel(size=Z.shape)).argmax(1)
    roles = vc.split(y, random_state=0)
    path = tmp_path / "mc.csv"
    pacsv.write_csv(pa.table({"a": Z[:, 0], "b": Z[:, 1], "c": Z[:, 2], "y": y, "role": roles}), path)
    cal = tmp_path / "m.json"
    for method in ("vector", "matrix", "temperature"):
        assert main(["fit", str(path), "--method", method, "--score", "a,b,c", "--label", "y",
                     "--score-type", "logit", "--role-col", "role", "--out", str(cal)]) == 0
    out = tmp_path / "o.csv"
    assert main(["apply", str(cal), str(path), "--out", str(out)]) == 0
    cols = pacsv.read_csv(out).column_names
    assert cols[-3:] == ["calibrated_0", "calibrated_1", "calibrated_2"]
    assert main(["compare", str(path), "--calibrator", str(cal), "--label", "y",
                 "--role-col", "role"]) == 0
    assert "argmax identical: held" in capsys.readouterr().out


# -- CLI errors: exit 2, one line on stderr, no traceback -------------------------------------------
def _nan_file(tmp_path):
    p = tmp_path / "nan.csv"
    p.write_text("score,label,role\n0.2,0,calib\n,1,calib\n0.7,1,calib\n")
    return str(p)


def _nan_text_file(tmp_path):
    p = tmp_path / "nan_text.csv"
    p.write_text("score,label\n0.2,0\nnan,1\n0.7,1\n")
    return str(p)


def _one_class(tmp_path):
    p = tmp_path / "one.csv"
    p.write_text("score,label\n0.2,1\n0.4,1\n0.7,1\n")
    return str(p)


@pytest.mark.parametrize("argv, match", [
    (["fit", "--method", "platt", "--role-col", "role", "--fit-role", "test", "--out", "{tmp}/x.json"],
     "refusing to fit PlattScaling on rows whose role is 'test'.*--allow-role test"),
    (["fit", "--method", "platt", "--role-col", "segment", "--out", "{tmp}/x.json"],
     "no rows with role 'calib' in column 'segment'"),
    (["fit", "--method", "platt", "--role-col", "nope", "--out", "{tmp}/x.json"],
     "column 'nope' not found"),
    (["fit", "--method", "vector", "--out", "{tmp}/x.json"],
     "multiclass calibrator but scores are 1-D"),
    (["fit", "--method", "platt", "--score", "score,score",  # a class's scores read from another's column
      "--out", "{tmp}/x.json"], "--score names the column 'score' twice"),
    (["fit", "{nan}", "--method", "platt", "--out", "{tmp}/x.json"], "missing.*values"),
    (["fit", "{one}", "--method", "isotonic", "--out", "{tmp}/x.json"], "needs both classes"),
    (["fit", "{nantext}", "--method", "temperature", "--out", "{tmp}/x.json"], "1 missing.*NaN"),
    (["fit", "--method", "platt", "--out", "{tmp}/no/such/dir/x.json"], "could not write|folder .* does not exist"),
    (["fit", "--method", "magic", "--out", "x.json"], "invalid choice"),
    (["fit", "--method", "platt"], "required: --out"),
    (["apply", "{tmp}/missing.json", "{demo}", "--out", "{tmp}/o.csv"], "calibrator file not found"),
    (["compare", "--calibrator", "{demo}"], "is not a JSON calibrator artifact"),
])
def test_cli_errors_exit_2_with_one_line(argv, match, tmp_path, capsys):
    fill = {"tmp": str(tmp_path), "demo": str(demo_path()), "nan": _nan_file(tmp_path),
            "one": _one_class(tmp_path), "nantext": _nan_text_file(tmp_path)}
    argv = [a.format(**fill) for a in argv]
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse usage errors
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err
    assert re.search(match, err.splitlines()[-1]), err
    if "invalid choice" not in match and "required" not in match:
        assert len(err.splitlines()) == 1


def test_cli_compare_refuses_the_fit_role(tmp_path, capsys):
    cal = tmp_path / "c.json"
    assert main(["fit", "--method", "platt", "--role-col", "role", "--out", str(cal)]) == 0
    assert main(["compare", "--calibrator", str(cal), "--role-col", "role", "--eval-role", "calib"]) == 2
    assert "flatters it" in capsys.readouterr().err
    assert main(["apply", str(cal), str(demo_path()), "--out", str(tmp_path / "o.csv"),
                 "--column", "score"]) == 2
    assert "already exists" in capsys.readouterr().err
