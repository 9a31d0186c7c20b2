"""Missing labels are refused the same way with or without ``pos_label=`` (issue 23).

Before: ``vc.ece(p, y_with_nan, pos_label=1)`` equalled ``vc.ece(p, nan_to_num(y))`` — a
missing label read as "not the positive class", i.e. a negative — in audit, auc, brier,
threshold_table, the calibrators' and conformal fit, and ``veracity audit --pos-label``
on the memory engine.
"""

import numpy as np
import pytest

import veracity as vc
from veracity.cli import main

P = np.array([0.2, 0.7, 0.9, 0.4, 0.6, 0.1])
Y_NUM = np.array([0, 1, np.nan, 1, 1, 0])
Y_TEXT = np.array(["no", "yes", None, "yes", "yes", "no"], dtype=object)

CALLS = {
    "ece": lambda y, pl: vc.ece(P, y, pos_label=pl),
    "brier": lambda y, pl: vc.brier(P, y, pos_label=pl),
    "nll": lambda y, pl: vc.nll(P, y, pos_label=pl),
    "auc": lambda y, pl: vc.auc(P, y, pos_label=pl),
    "audit": lambda y, pl: vc.audit(P, y, pos_label=pl),
    "reliability": lambda y, pl: vc.reliability(P, y, pos_label=pl),
    "threshold_table": lambda y, pl: vc.threshold_table(P, y, [0.5], pos_label=pl),
    "platt": lambda y, pl: vc.PlattScaling().fit(P, y, pos_label=pl),
    "isotonic": lambda y, pl: vc.IsotonicCalibration().fit(P, y, pos_label=pl),
    "conformal": lambda y, pl: vc.ConformalClassifier().fit(P, y, pos_label=pl),
}


@pytest.mark.parametrize("name", sorted(CALLS))
@pytest.mark.parametrize("labels, pos_label", [(Y_NUM, 1), (Y_NUM, 1.0), (Y_TEXT, "yes")],
                         ids=["float-1", "float-1.0", "text-yes"])
def test_missing_labels_refused_with_pos_label(name, labels, pos_label):
    with pytest.raises(vc.VeracityError, match="missing") as info:
        CALLS[name](labels, pos_label)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("name", ["ece", "brier", "auc", "audit", "platt"])
def test_missing_numeric_labels_refused_without_pos_label_too(name):
    with pytest.raises(vc.VeracityError, match="NaN|missing"):
        CALLS[name](Y_NUM, None)


def test_frame_forms_refuse_missing_labels_with_pos_label():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"p": P, "y": Y_TEXT})
    with pytest.raises(vc.VeracityError, match="missing"):
        vc.ece(frame, score="p", label="y", pos_label="yes")
    with pytest.raises(vc.VeracityError, match="missing"):
        vc.audit(frame, score="p", label="y", pos_label="yes")


def test_cli_memory_engine_refuses_empty_label_cells(tmp_path, capsys):
    path = tmp_path / "x.csv"
    path.write_text("p,y\n0.2,no\n0.7,yes\n0.9,\n0.4,yes\n")
    assert main(["audit", str(path), "--score", "p", "--label", "y", "--pos-label", "yes",
                 "--engine", "memory"]) == 2
    err = capsys.readouterr().err
    assert "missing" in err and len(err.strip().splitlines()) == 1
