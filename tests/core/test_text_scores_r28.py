"""Text where numbers belong is refused in one line on the array form, as the frame form refuses a text
column ("must be numeric, got String") (round 28).

Before: an object array (a pandas Series of dtype object) holding text such as '0.3' went through
``astype(float)``, which parses it, so ``vc.brier``, ``transform`` and every metric read '0.3' as the
number 0.3 -- while the same column in a DataFrame, a file or a numpy ``<U3`` array was refused. Numbers
held as objects (Decimal, None or pandas' NA for a missing value) keep their reading.
"""

from __future__ import annotations

from decimal import Decimal

import numpy as np
import pandas as pd
import pytest

import veracity as vc

Y = np.array([1, 0, 1, 0])
TEXT = np.array(["0.3", "0.7", "0.8", "0.2"], dtype=object)


@pytest.mark.parametrize("scores", [TEXT, pd.Series(TEXT), TEXT.astype(str), TEXT.astype(bytes).astype(object)],
                         ids=["object", "series", "unicode", "bytes"])
@pytest.mark.parametrize("call", [vc.brier, vc.ece, vc.nll, vc.auc, lambda s, y: vc.audit(s, y)],
                         ids=["brier", "ece", "nll", "auc", "audit"])
def test_text_scores_are_refused_by_the_metrics(error_line, scores, call):
    text = error_line(lambda: call(scores, Y))
    assert text.startswith("scores must be numeric, got text (such as ")
    assert text.endswith("; convert them to numbers first")


def test_the_refusal_counts_the_text_among_numbers_and_names_its_rows(error_line):
    mixed = np.array([0.3, "0.7", 0.8, b"0.2"], dtype=object)
    with pytest.raises(vc.VeracityError) as info:
        vc.brier(mixed, Y)
    assert str(info.value) == ("scores must be numeric, got text in 2 of 4 values (such as '0.7'); convert "
                               "them to numbers first")
    assert info.value.rows.tolist() == [1, 3] and info.value.n_rows == 4


def test_a_fitted_calibrator_refuses_text_scores(error_line):
    p = np.linspace(0.05, 0.95, 60)
    cal = vc.IsotonicCalibration().fit(p, (p > 0.4).astype(int))
    assert error_line(lambda: cal.transform(TEXT)).startswith("scores must be numeric, got text")
    assert error_line(lambda: vc.PlattScaling().fit(TEXT, Y)).startswith("scores must be numeric, got text")


def test_text_weights_are_refused_too(error_line):
    w = np.array(["1", "2", "1", "1"], dtype=object)
    assert error_line(lambda: vc.ece([0.3, 0.7, 0.8, 0.2], Y, sample_weight=w)).startswith(
        "sample_weight must be numeric, got text")


def test_numbers_held_as_objects_keep_their_reading():
    exact = vc.brier(np.array([0.3, 0.7, 0.8, 0.2]), Y)
    assert vc.brier(np.array([Decimal("0.3"), Decimal("0.7"), Decimal("0.8"), Decimal("0.2")], dtype=object),
                    Y) == exact
    assert vc.brier(np.array([0.3, 0.7, 0.8, 0.2], dtype=object), Y) == exact


@pytest.mark.parametrize("scores", [
    pd.Series([0.3, pd.NA, 0.8, 0.2], dtype=object),   # before: "found non-numeric or missing values (float()...)"
    pd.array([0.3, None, 0.8, 0.2], dtype="Float64"),
    np.array([0.3, None, 0.8, 0.2], dtype=object),
], ids=["object-NA", "Float64", "None"])
def test_a_missing_score_is_refused_as_missing(error_line, scores):
    assert error_line(lambda: vc.brier(scores, Y)) == (
        "scores contains 1 NaN and 0 infinite values (first at flat index 1); drop or fill those rows first")


def test_boolean_scores_stay_hard_predictions():
    """A bool array of scores reads as the hard predictions 0/1, as a boolean score column does on every frame
    route (tests/sources/test_sources_route_agreement.py); scores and labels swapped are refused by the labels'
    check, which names the order."""
    hard = np.array([True, False, False, False])
    assert vc.brier(hard, Y) == pytest.approx(0.25)
    with pytest.raises(vc.VeracityError, match="all 0/1 and the labels are not: did you swap them"):
        vc.brier(Y.astype(bool), [0.3, 0.7, 0.8, 0.2])
