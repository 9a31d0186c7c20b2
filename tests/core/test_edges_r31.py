"""Round 31 edges of the input checks: integer labels beyond float64's integers, and (N, K) scores outside
[0, 1] counted by row.

* Labels are compared and shown as stored. Through float64, uint64 labels 2**64 - 1 and 2**64 - 2 were one
  value (1.8446744073709552e+19): the message showed it rounded and gave no pos_label; int64 labels
  2**53 + 1 and 2**53 + 3 were shown as 9007199254740992.0 / 9007199254740996.0 and the advice named
  pos_label=9007199254740996, which is no label. A float pos_label (2.0**64) equalled both uint64 labels in
  numpy's float64 comparison: every row read positive, a silent wrong number.
* An (N, K) matrix with values outside [0, 1] was refused counting values ("15 of 300 are not") beside a
  table of 100 rows; the count is of rows, with the first such row and its column named.
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc
from veracity.core._validation import VeracityError

P = np.array([0.2, 0.7, 0.4, 0.9])
BRIER_Y0101 = (0.2 ** 2 + 0.3 ** 2 + 0.4 ** 2 + 0.1 ** 2) / 4  # labels 0, 1, 0, 1


@pytest.mark.parametrize("lo, hi, dtype", [
    (2 ** 64 - 2, 2 ** 64 - 1, np.uint64),
    (2 ** 63 + 1, 2 ** 63 + 3, np.uint64),
    (2 ** 53 + 1, 2 ** 53 + 3, np.int64),
    (-(2 ** 63), 2 ** 63 - 1, np.int64),
], ids=["uint64-top", "uint64-above-2**63", "int64-above-2**53", "int64-extremes"])
def test_two_valued_integer_labels_named_exactly(lo, hi, dtype):
    y = np.array([lo, hi, lo, hi], dtype=dtype)
    with pytest.raises(VeracityError) as info:
        vc.brier(P, y)
    exc = info.value
    assert f"values such as {lo}, {hi})" in str(exc)
    assert f"Map {lo} to 0 and {hi} to 1, or pass pos_label={hi}." in str(exc)
    assert exc.param == "pos_label" and type(exc.value) is int and exc.value == hi
    # the advice works: the value it names is the label of rows 1 and 3
    assert vc.brier(P, y, pos_label=exc.value) == pytest.approx(BRIER_Y0101, abs=1e-15)


def test_three_valued_uint64_labels_listed_exactly():
    y = np.array([2 ** 64 - 1, 2 ** 64 - 2, 2 ** 64 - 3, 2 ** 64 - 2], dtype=np.uint64)
    with pytest.raises(VeracityError, match=r"4 of 4 are not \(values such as 18446744073709551613, "
                                            r"18446744073709551614, 18446744073709551615\)\.$"):
        vc.brier(P, y)


def test_large_float_labels_hint_names_a_label():
    # 1e6 + 1 and 1e6 + 2 printed alike with %g ("Map 1e+06 to 0 and 1e+06 to 1")
    y = np.array([1e6 + 1, 1e6 + 2, 1e6 + 1, 1e6 + 2])
    with pytest.raises(VeracityError,
                       match=r"Map 1000001\.0 to 0 and 1000002\.0 to 1, or pass pos_label=1000002\."):
        vc.brier(P, y)


@pytest.mark.parametrize("labels, pos_label", [
    (np.array([2 ** 64 - 2, 2 ** 64 - 1, 2 ** 64 - 2, 2 ** 64 - 1], dtype=np.uint64), 2.0 ** 64),
    (np.array([2 ** 64 - 2, 2 ** 64 - 1, 2 ** 64 - 2, 2 ** 64 - 1], dtype=np.uint64), np.float64(2.0 ** 64)),
    (np.array([2 ** 53 + 1, 2 ** 53 + 3, 2 ** 53 + 1, 2 ** 53 + 3], dtype=np.int64), 2.0 ** 53 + 4),
    (np.array([2.0 ** 53, 2.0 ** 60, 2.0 ** 53, 2.0 ** 60]), 2 ** 53 + 1),
], ids=["uint64-float", "uint64-np-float", "int64-float", "float-int"])
def test_pos_label_matching_no_label_is_refused(labels, pos_label):
    # numpy compared these in float64, where pos_label equals a label it is not: every row (or the wrong
    # rows) read positive and a number came out
    with pytest.raises(VeracityError, match=r"is not among the label values"):
        vc.brier(P, labels, pos_label=pos_label)


def test_pos_label_exact_float_still_matches_integer_labels():
    y = np.array([2 ** 53, 2 ** 53 + 1, 2 ** 53, 2 ** 53 + 1], dtype=np.int64)
    # 2.0**53 is exactly the label 2**53 (rows 0 and 2): positives are rows 0, 2
    want = (0.8 ** 2 + 0.7 ** 2 + 0.6 ** 2 + 0.9 ** 2) / 4
    assert vc.brier(P, y, pos_label=2.0 ** 53) == pytest.approx(want, abs=1e-15)
    assert vc.brier(P, y.astype(np.uint64), pos_label=2 ** 53 + 1) == pytest.approx(BRIER_Y0101, abs=1e-15)


def _matrix_with_bad_rows() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(31)
    P3 = rng.dirichlet([1.0, 1.0, 1.0], size=100)
    for r in (7, 17, 40, 41, 90):  # two negative cells each and one above 1 (rows still sum to 1)
        P3[r] = [0.9, -0.2, 0.3] if r == 7 else [-0.1, 1.2, -0.1]
    return P3, rng.integers(0, 3, 100)


@pytest.mark.parametrize("call", [
    lambda P3, y: vc.ece(P3, y),
    lambda P3, y: vc.brier(P3, y),
    lambda P3, y: vc.audit(P3, y),
    lambda P3, y: vc.reliability(P3, y),
    lambda P3, y: vc.TemperatureScaling().fit(P3, y),
    lambda P3, y: vc.ConformalClassifier().fit(P3, y),
], ids=["ece", "brier", "audit", "reliability", "temperature-fit", "conformal-fit"])
def test_multiclass_out_of_range_counts_rows(call):
    P3, y = _matrix_with_bad_rows()  # 5 rows holding 9 cells outside [0, 1]
    with pytest.raises(VeracityError) as info:
        call(P3, y)
    exc = info.value
    assert "5 of 100 rows are not (min=-0.2, max=1.2; first at row 7, column 1: -0.2)" in str(exc), str(exc)
    assert exc.rows.tolist() == [7, 17, 40, 41, 90] and exc.n_rows == 100


def test_adjust_prior_names_its_argument_and_counts_rows():
    P3, _ = _matrix_with_bad_rows()
    with pytest.raises(VeracityError, match=r"^p must be probabilities in \[0, 1\]; 5 of 100 rows are not "):
        vc.adjust_prior(P3, [1 / 3] * 3, [0.2, 0.3, 0.5])


def test_binary_out_of_range_wording_unchanged():
    with pytest.raises(VeracityError, match=r"scores must be probabilities in \[0, 1\]; 2 of 4 are not "
                                            r"\(min=-0\.1, max=1\.5\)"):
        vc.ece([0.2, -0.1, 1.5, 0.4], [0, 1, 1, 0])
