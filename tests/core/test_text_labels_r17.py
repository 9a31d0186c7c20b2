"""Round 17: text labels '0'/'1' without pos_label are refused by the array form, as by the frame and
SQL forms (docs/honest.md: two-valued labels that are not 0/1 numbers need pos_label=). The array form
used to read them as numbers (ECE 0.22 on the rows below) while the frame form refused them."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import veracity as vc

P = np.array([0.1, 0.8, 0.3, 0.9, 0.6])
Y = [0, 1, 0, 1, 1]
TEXT = ["0", "1", "0", "1", "1"]
ADVICE = (r"labels must be 0/1 numbers or booleans, got text \(values '0', '1'\); pass pos_label= naming the "
          r"positive class, e.g. pos_label='1'")


@pytest.mark.parametrize("labels", [
    np.array(TEXT),
    TEXT,
    np.array(TEXT, dtype=object),
    pd.Series(TEXT),
    pd.Series(TEXT, dtype="string"),
], ids=["numpy-str", "list", "object", "series", "series-string"])
@pytest.mark.parametrize("call", [
    lambda y: vc.ece(P, y),
    lambda y: vc.brier(P, y),
    lambda y: vc.reliability(P, y),
    lambda y: vc.audit(P, y),
    lambda y: vc.PlattScaling().fit(P, y),
], ids=["ece", "brier", "reliability", "audit", "platt"])
def test_text_zero_one_labels_need_pos_label(labels, call):
    with pytest.raises(vc.VeracityError, match=ADVICE):
        call(labels)


def test_the_frame_form_refuses_them_too():
    with pytest.raises(vc.VeracityError, match="pass pos_label= naming the positive class"):
        vc.ece(pd.DataFrame({"p": P, "y": TEXT}), score="p", label="y")


def test_with_pos_label_text_labels_give_the_numbers_of_the_0_1_encoding():
    assert vc.ece(P, np.array(TEXT), pos_label="1") == vc.ece(P, Y)
    assert vc.ece(pd.DataFrame({"p": P, "y": TEXT}), score="p", label="y", pos_label="1") == vc.ece(P, Y)


@pytest.mark.parametrize("labels", [
    np.array(Y), np.array(Y, dtype=float), np.array(Y, dtype=bool), np.array(Y, dtype=object),
    pd.Series(Y, dtype=object), np.array([False, True, False, True, True], dtype=object),
])
def test_numbers_and_booleans_are_still_read_as_they_are(labels):
    assert vc.ece(P, labels) == pytest.approx(vc.ece(P, Y), abs=0)


def test_mixed_text_and_numbers_are_refused():
    with pytest.raises(vc.VeracityError, match="labels must be 0/1 numbers or booleans, got text"):
        vc.ece(P, np.array([0, "1", 0, 1, "1"], dtype=object))


def test_missing_labels_among_text_are_named_as_missing():
    with pytest.raises(vc.VeracityError,
                       match=r"^labels contain 1 missing value \(None/NaN\) of 5 rows; drop or fill that row first$"):
        vc.ece(P, np.array(["0", "1", None, "1", "1"], dtype=object))


def test_cli_csv_with_numeric_0_1_labels_is_unaffected(tmp_path, capsys):
    from veracity.cli import main

    for name, cells in (("plain.csv", Y), ("quoted.csv", [f'"{v}"' for v in Y])):
        path = tmp_path / name
        path.write_text("p,y\n" + "".join(f"{p},{y}\n" for p, y in zip(P, cells)))
        assert main(["audit", str(path), "--score", "p", "--label", "y", "--json"]) == 0
        out = capsys.readouterr().out
        import json

        assert json.loads(out)["metrics"]["ece"] == pytest.approx(vc.ece(P, Y), abs=1e-12)
