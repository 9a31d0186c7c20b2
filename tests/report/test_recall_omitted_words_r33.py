"""A report whose target-recall threshold cannot be fit says why and what report itself takes: it quoted
recall_threshold's advice, "... Collect more positives in the calib role, lower the target, or pass
correction=False", an option vc.report does not have (and the command line none of its own)."""

import json

import numpy as np
import pandas as pd
import pytest

import veracity as vc


@pytest.fixture
def few_positives():
    rng = np.random.default_rng(0)
    p = rng.random(200)
    y = np.zeros(200, dtype=int)
    y[:5] = 1
    return p, y


def test_python_report_names_its_own_options(few_positives):
    p, y = few_positives
    notes = vc.report(p, y, target_recall=0.95, figures=False).notes
    (note,) = [n for n in notes if n.startswith("target-recall")]
    assert note == ("target-recall threshold omitted: too few positives (5; the +1 correction needs at least 19); "
                    "lower target_recall, or pass recall_threshold= (a threshold chosen on calib rows)")
    assert "correction=False" not in note and "calib role" not in note


def test_cli_report_names_its_flag(few_positives, tmp_path, cli):
    p, y = few_positives
    path = tmp_path / "few.csv"
    pd.DataFrame({"score": p, "label": y}).to_csv(path, index=False)
    result = cli(["report", str(path), "--out", str(tmp_path / "r.html"), "--no-bootstrap", "--json", "-"])
    assert result.code == 0, result.err
    (note,) = [n for n in json.loads(result.out)["notes"] if n.startswith("target-recall")]
    assert note.endswith("needs at least 19); lower --target-recall") and "recall_threshold=" not in note
