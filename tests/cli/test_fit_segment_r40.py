"""``veracity fit --method segment`` (round 40): the segment repair fit on the command line.

Before, ``vc.SegmentCalibration`` could be fit only in Python: ``veracity fit`` had no method for it, so a
team without Python could find a miscalibrated segment (``veracity segments``) but not repair it. Now
``--method segment --features COL,...`` (``--base``, ``--depth``, ``--bins``) fits it on the file's calib rows
exactly as the frame form fits it in Python, and the artifact is applied, compared and exported by the other
commands, which read each feature from the file's column of that name.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

import veracity as vc

RNG = np.random.default_rng(41)
N = 4_000
REGION = RNG.choice(np.array(["north", "south", "east", "west"]), N)
AGE = RNG.uniform(18, 80, N).round(1)
P = RNG.uniform(0.02, 0.98, N)
SHIFT = np.where(REGION == "north", 0.9, 0.0) + np.where(AGE > 60, -0.7, 0.0)
Y = RNG.uniform(size=N) < 1 / (1 + np.exp(-(np.log(P / (1 - P)) + SHIFT)))
ROLE = np.where(np.arange(N) % 2 == 0, "calib", "test")
W = RNG.choice([1.0, 2.0, 0.5], N)
FRAME = pd.DataFrame({"p": P, "y": np.where(Y, "churn", "stay"), "region": REGION, "age": AGE, "role": ROLE,
                      "w": W})


@pytest.fixture(scope="module")
def csv(tmp_path_factory):
    path = tmp_path_factory.mktemp("fitseg") / "rows.csv"
    FRAME.to_csv(path, index=False)
    return path


def _state(cal):
    return json.dumps(cal.to_dict()["state"], sort_keys=True)


def test_the_cli_fit_is_the_python_frame_fit(cli, csv, tmp_path):
    out = tmp_path / "seg.json"
    result = cli(["fit", str(csv), "--score", "p", "--label", "y", "--pos-label", "churn",
                  "--sample-weight", "w", "--method", "segment", "--features", "region,age", "--bins", "4",
                  "--depth", "1",
                  "--role-col", "role", "--out", str(out)])
    assert result.code == 0, result.err
    calib = FRAME[FRAME.role == "calib"]
    want = vc.SegmentCalibration(base="platt", features=["region", "age"], bins=4, depth=1)
    want.fit(calib, score="p", label="y", pos_label="churn", sample_weight="w")
    got = vc.load(out)
    assert _state(got) == _state(want)
    assert len(got.specs_[1].cuts) == 3  # --bins 4 reached the numeric feature
    assert sum(len(c["keys"]) for c in got.corrections_) > 0
    meta = got.metadata
    recorded = (meta["score_column"], meta["label_column"], meta["pos_label"], meta["role"])
    assert recorded == ("p", "y", "churn", "calib")


def test_fit_apply_compare_export_on_the_command_line(cli, csv, tmp_path):
    out = tmp_path / "seg.json"
    assert cli(["fit", str(csv), "--score", "p", "--label", "y", "--pos-label", "churn",
                "--method", "segment", "--features", "region,age", "--base", "isotonic",
                "--out", str(out)]).code == 0
    seg = vc.load(out)
    assert seg.base_.kind == "isotonic"
    applied = tmp_path / "calibrated.parquet"
    result = cli(["apply", str(out), str(csv), "-o", str(applied)])  # the score column it recorded
    assert result.code == 0, result.err
    want = seg.transform(P, features={"region": REGION, "age": AGE})
    np.testing.assert_array_equal(pq.read_table(applied).column("calibrated").to_numpy(), want)
    compared = cli(["compare", str(csv), "--calibrator", str(out), "--label", "y", "--json", "-"])
    assert compared.code == 0, compared.err
    ledger = json.loads(compared.out)  # the rows of role 'test' (the file's role column), never fit on
    test = ROLE == "test"
    q, y = want[test], Y[test]
    assert (ledger["eval_role"], ledger["n"]) == ("test", int(test.sum()))
    nll = [row["after"] for row in ledger["rows"] if row["metric"] == "NLL"]
    assert nll == [pytest.approx(vc.nll(q, y.astype(int)), rel=1e-12)]
    sql = cli(["export", str(out), "--sql", "duckdb"])
    assert sql.code == 0 and 'CASE WHEN "region"' in sql.out


@pytest.mark.parametrize("argv, words", [
    (["--method", "segment"], r"--method segment corrects by feature columns: pass --features"),
    (["--method", "platt", "--features", "region"], r"--features sets the segment calibrator and has no "
                                                      r"effect on --method platt"),
    (["--method", "isotonic", "--depth", "1"], r"--depth sets the segment calibrator"),
    (["--method", "segment", "--features", "region", "--engine", "duckdb"],
     r"--method segment fits on rows in memory; drop --engine duckdb"),
    (["--method", "segment", "--features", "region,nope"], r"column 'nope' not found"),
    (["--method", "segment", "--features", "region", "--base", "vector"],
     r"base must name a binary calibrator"),
    (["--method", "segment", "--features", "region", "--depth", "0"], r"depth must be a positive integer"),
])
def test_mistakes_are_one_line(cli, refused, csv, tmp_path, argv, words):
    result = cli(["fit", str(csv), "--score", "p", "--label", "y", "--pos-label", "churn", *argv,
                  "--out", str(tmp_path / "x.json")])
    refused(result, words)
    assert not (tmp_path / "x.json").exists()
