"""`veracity threshold` and `veracity conformal` end to end, and their bad-input exits."""

import json
import re

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pytest

import veracity as vc
from veracity.cli import main
from veracity.datasets import load_demo


@pytest.fixture(scope="module")
def demo():
    return load_demo()


def _json(capsys, argv):
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_threshold_cost_rule_on_both_roles(capsys, demo):
    assert main(["threshold", "--cost-fp", "1", "--cost-fn", "9"]) == 0
    out = capsys.readouterr().out
    assert "threshold 0.1 " in out and "assumes calibrated probabilities" in out
    assert "\ncalib " in out and "\ntest " in out and "cost/1000" in out
    doc = _json(capsys, ["threshold", "--cost-fp", "1", "--cost-fn", "9", "--json", "-"])
    assert doc["threshold"] == pytest.approx(0.1)
    assert doc["fit_role"] == "calib" and doc["eval_role"] == "test"
    test = demo["role"] == "test"
    expected = vc.threshold_table(demo["score"][test], demo["label"][test], [0.1], cost_fp=1, cost_fn=9)
    assert doc["roles"]["test"]["table"][0] == pytest.approx(expected.rows[0].to_dict())


def test_threshold_target_recall_fit_on_calib_only(capsys, demo):
    doc = _json(capsys, ["threshold", "--target-recall", "0.95", "--json", "-"])
    calib = demo["role"] == "calib"
    t = vc.recall_threshold(demo["score"][calib], demo["label"][calib], target=0.95)
    assert doc["threshold"] == t
    assert doc["rule"]["k"] == int(np.ceil((doc["rule"]["n_positives"] + 1) * 0.95))
    assert doc["roles"]["calib"]["table"][0]["recall"] >= 0.95
    doc2 = _json(capsys, ["threshold", "--target-recall", "0.95", "--no-correction", "--json", "-"])
    assert doc2["threshold"] >= t and doc2["rule"]["correction"] is False


def test_threshold_budget_and_precision_and_also(capsys, demo):
    doc = _json(capsys, ["threshold", "--budget", "200", "--json", "-"])
    assert doc["roles"]["calib"]["table"][0]["alerts"] <= 200
    doc = _json(capsys, ["threshold", "--budget", "5%", "--json", "-"])
    assert doc["roles"]["calib"]["table"][0]["alerts"] <= 150
    doc = _json(capsys, ["threshold", "--target-precision", "0.6", "--also", "0.5,0.9", "--json", "-"])
    assert doc["roles"]["calib"]["table"][0]["precision"] >= 0.6
    assert [r["threshold"] for r in doc["roles"]["test"]["table"]][1:] == [0.5, 0.9]


def test_threshold_without_roles_and_custom_roles(tmp_path, capsys):
    rng = np.random.default_rng(0)
    s = rng.random(500)
    y = (rng.random(500) < s).astype(int)
    f = tmp_path / "d.csv"
    pacsv.write_csv(pa.table({"p": s, "y": y, "split": np.where(np.arange(500) % 2, "a", "b")}), f)
    assert main(["threshold", str(f), "--score", "p", "--label", "y", "--target-recall", "0.9"]) == 0
    assert "no role column" in capsys.readouterr().out
    doc = _json(capsys, ["threshold", str(f), "--score", "p", "--label", "y", "--role-col", "split",
                         "--fit-role", "a", "--eval-role", "b", "--json", "-"])
    assert set(doc["roles"]) == {"a", "b"}


def test_conformal_on_demo_and_multiclass_file(tmp_path, capsys, demo):
    assert main(["conformal", "--alpha", "0.1"]) == 0
    out = capsys.readouterr().out
    assert "[calib]" in out and "[test]" in out and "marginal coverage" in out and "Beta(" in out
    rng = np.random.default_rng(1)
    P = rng.dirichlet([1, 1, 1], 600)
    y = np.minimum((np.cumsum(P, 1) < rng.random(600)[:, None]).sum(1), 2)
    f = tmp_path / "m.csv"
    pacsv.write_csv(pa.table({"p0": P[:, 0], "p1": P[:, 1], "p2": P[:, 2], "y": y,
                              "role": np.where(np.arange(600) < 300, "calib", "test")}), f)
    doc = _json(capsys, ["conformal", str(f), "--score", "p0,p1,p2", "--label", "y", "--alpha", "0.2",
                         "--mondrian", "--json", "-"])
    cp = vc.ConformalClassifier(alpha=0.2, mondrian=True).fit(P[:300], y[:300])
    assert doc["conformal"]["class_qhat"] == pytest.approx(cp.class_qhat_.tolist())
    assert doc["roles"]["test"]["marginal"] == pytest.approx(cp.coverage(P[300:], y[300:]).marginal)
    # RAPS from the command line: the same q̂ and coverage as the Python class with the same options
    doc = _json(capsys, ["conformal", str(f), "--score", "p0,p1,p2", "--label", "y", "--alpha", "0.2",
                         "--method", "raps", "--lam", "0.05", "--k-reg", "2", "--randomized",
                         "--random-state", "3", "--json", "-"])
    cp = vc.ConformalClassifier(alpha=0.2, score="raps", lam=0.05, k_reg=2, randomized=True,
                                random_state=3).fit(P[:300], y[:300])
    assert doc["conformal"]["qhat"] == pytest.approx(cp.qhat_)
    assert doc["conformal"]["lam"] == 0.05 and doc["conformal"]["k_reg"] == 2


def _write(tmp_path, **cols):
    f = tmp_path / "bad.csv"
    pacsv.write_csv(pa.table(cols), f)
    return str(f)


BAD = [
    (["threshold", "--target-recall", "1.5"], r"--target-recall must be in \(0, 1\)"),
    (["threshold", "--target-recall", "0"], r"--target-recall must be in \(0, 1\)"),
    (["threshold", "--cost-fp", "-1", "--cost-fn", "9"], "--cost-fp must be a finite non-negative"),
    (["threshold", "--cost-fn", "-9"], "--cost-fn must be a finite non-negative"),
    (["threshold", "--budget", "lots"], "--budget must be a count"),
    (["threshold", "--budget", "0"], "--budget must be a positive"),
    (["threshold", "--budget", "150%"], r"--budget 150% must be a share of the rows in \(0%, 100%\]"),
    (["threshold", "--score", "score,logit", "--score-type", "logit"], "needs one --score column"),
    (["threshold", "--fit-role", "train"], "no rows with role == 'train'"),
    (["threshold", "--role-col", "nope"], "column 'nope' not found"),
    (["conformal", "--alpha", "0"], r"--alpha must be in \(0, 1\)"),
    (["conformal", "--alpha", "1.5"], r"--alpha must be in \(0, 1\)"),
]


@pytest.mark.parametrize("argv, message", BAD)
def test_cli_bad_input_exits_2_with_one_line(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert re.search(message, err)


def test_cli_bad_files(tmp_path, capsys):
    # multiclass rows that do not sum to 1
    f = _write(tmp_path, p0=[0.5] * 20, p1=[0.6] * 20, y=[0, 1] * 10)
    assert main(["conformal", f, "--score", "p0,p1", "--label", "y"]) == 2
    err = capsys.readouterr().err
    assert "rows must sum to 1" in err and err.count("\n") == 1
    # too few calib points for alpha
    f = _write(tmp_path, p=[0.2, 0.7, 0.4, 0.9, 0.1], y=[0, 1, 0, 1, 0])
    assert main(["conformal", f, "--score", "p", "--label", "y", "--alpha", "0.1"]) == 2
    assert "too few calibration points" in capsys.readouterr().err
    # too few calib positives for the target recall
    assert main(["threshold", f, "--score", "p", "--label", "y", "--target-recall", "0.95"]) == 2
    err = capsys.readouterr().err
    assert "at least 19 positives" in err and err.count("\n") == 1
