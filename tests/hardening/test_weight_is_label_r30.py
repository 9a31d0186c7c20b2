"""``sample_weight=`` naming the label column weighs every negative row 0: the audit then reads a base
rate of 1 and an ECE of the positives alone, silently (before: accepted on every route). Refused in one
line on the frame form, the rows form, inside a database and on the command line."""

import sqlite3

import numpy as np
import pandas as pd
import pytest

import veracity as vc


@pytest.fixture
def frame() -> pd.DataFrame:
    rng = np.random.default_rng(3)
    p = rng.uniform(0.05, 0.95, 400)
    return pd.DataFrame({"p": p, "y": (rng.uniform(size=400) < p).astype(int), "w": rng.uniform(0.5, 2, 400)})


def test_the_label_read_as_weights_would_be_a_wrong_number(frame) -> None:
    """Why it is refused: with the labels as weights only the positives count."""
    weighted = vc.audit(frame["p"].to_numpy(), frame["y"].to_numpy(), sample_weight=frame["y"].to_numpy())
    assert weighted.base_rate == 1.0 and vc.audit(frame, score="p", label="y").base_rate < 0.7


@pytest.mark.parametrize("call", [
    lambda f: vc.audit(f, score="p", label="y", sample_weight="y"),
    lambda f: vc.ece(f, score="p", label="y", sample_weight="y"),
    lambda f: vc.reliability(f, score="p", label="y", sample_weight="y"),
    lambda f: vc.recall_threshold(f, score="p", label="y", sample_weight="y", target=0.9),
], ids=["audit", "ece", "reliability", "recall_threshold"])
def test_frame_forms_refuse_the_label_as_weights(frame, call, error_line) -> None:
    text = error_line(lambda: call(frame))
    assert "sample_weight= names the label= column 'y'" in text and "weigh every negative row 0" in text, text


def test_a_real_weight_column_still_works(frame) -> None:
    assert 0 < vc.audit(frame, score="p", label="y", sample_weight="w").base_rate < 1


def test_inside_a_database(frame, error_line) -> None:
    con = sqlite3.connect(":memory:")
    frame.to_sql("t", con, index=False)
    for call in (lambda: vc.audit(con, table="t", score="p", label="y", sample_weight="y"),
                 lambda: vc.audit_sql(con, table="t", score="p", label="y", sample_weight="y")):
        text = error_line(call)
        assert "sample_weight= names the label" in text and "'y'" in text, text
    assert vc.audit(con, table="t", score="p", label="y", sample_weight="w").base_rate < 1


@pytest.mark.parametrize("command", [["audit"], ["threshold", "--target-recall", "0.9"], ["fit"]])
def test_the_command_line_refuses_it(frame, tmp_path, cli, refused, command) -> None:
    path = tmp_path / "s.csv"
    frame.to_csv(path, index=False)
    extra = ["--method", "platt", "--out", str(tmp_path / "cal.json")] if command == ["fit"] else []
    result = cli([*command, str(path), "--score", "p", "--label", "y", "--sample-weight", "y", *extra])
    refused(result, r"--sample-weight names the --label column 'y'")
