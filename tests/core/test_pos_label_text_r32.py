"""A text pos_label names the same label on an array as on a frame, in SQL and on the command line.

The rule (core._validation.text_names_label): text names a true/false label as 'true'/'false' or
'1'/'0' (any case, spaces around ignored), and a number label by a decimal numeral of exactly its
value ('1', '1.0', '01', '+1', '1e0'; a float that is not a whole number also by any numeral whose
nearest double it is). Nothing else, and never by rounding a whole number.

Before: an object array of Python bools refused 'true' (a bool array and every frame took it); an
int or float array refused '1' (every frame, SQL and the command line read it as the number 1); and
frames read the text as a float, so that '9007199254740993' named the label 2**53 of a column holding
2**53 and 2**53 + 1 (the wrong class, silently) and '1_0' named 10.
"""

from __future__ import annotations

import decimal

import numpy as np
import pytest

import veracity as vc
from veracity import VeracityError
from veracity.core._validation import labels_with_pos_label

BIG = 2**53


@pytest.mark.parametrize("text", ["true", "True", "TRUE", " true ", "1", " 1"])
def test_object_array_of_bools_reads_true_as_a_bool_array_does(text):
    labels = np.array([True, False, True, True], dtype=object)
    assert labels_with_pos_label(labels, text).tolist() == [1.0, 0.0, 1.0, 1.0]
    assert labels_with_pos_label(labels.astype(bool), text).tolist() == [1.0, 0.0, 1.0, 1.0]
    assert labels_with_pos_label(labels, "false").tolist() == [0.0, 1.0, 0.0, 0.0]


@pytest.mark.parametrize("text", ["1", "1.0", " 1", "01", "1e0", "+1", "1.", "10e-1"])
@pytest.mark.parametrize("labels", [
    np.array([1, 0, 1]), np.array([1.0, 0.0, 1.0]), np.array([1, 0, 1], dtype=np.uint8),
    np.array([1, 0, 1], dtype=object), np.array([1.0, 0.0, 1.0], dtype=np.float32),
    np.array([decimal.Decimal("1"), decimal.Decimal("0.0"), decimal.Decimal("1.00")]),
], ids=["int", "float", "uint8", "object-int", "float32", "decimal"])
def test_a_numeral_names_the_number_label_of_exactly_its_value(labels, text):
    assert labels_with_pos_label(labels, text).tolist() == [1.0, 0.0, 1.0]


@pytest.mark.parametrize("text", ["0", "0.0", "-0", "+0e5", ".0"])
def test_a_numeral_names_zero(text):
    assert labels_with_pos_label(np.array([1, 0, 1]), text).tolist() == [0.0, 1.0, 0.0]


@pytest.mark.parametrize("text", ["true", "True", "yes", "1_0", "0x1", "1.5", "0.99999999999999999", "1e-400",
                                  "inf", "nan", "\u0661", "", "1 0"])
def test_other_text_is_refused_in_one_line_naming_the_labels(text, error_line):
    message = error_line(lambda: labels_with_pos_label(np.array([1, 0, 1]), text))
    assert message == f"pos_label={text!r} is not among the label values (0, 1); pass one of them"


def test_underscores_never_name_a_number():
    with pytest.raises(VeracityError, match="not among the label values"):
        labels_with_pos_label(np.array([10, 0, 10]), "1_0")
    assert labels_with_pos_label(np.array([10, 0, 10]), "10").tolist() == [1.0, 0.0, 1.0]


@pytest.mark.parametrize("dtype", [np.int64, np.uint64, object])
def test_whole_numbers_beyond_two_to_the_53_are_named_exactly(dtype):
    labels = np.array([BIG + 1, BIG, BIG + 1], dtype=dtype)
    for text in (str(BIG + 1), f"{BIG + 1}.0", f" +{BIG + 1} ", "9.007199254740993e15"):
        assert labels_with_pos_label(labels, text).tolist() == [1.0, 0.0, 1.0], text
    assert labels_with_pos_label(labels, str(BIG)).tolist() == [0.0, 1.0, 0.0]
    with pytest.raises(VeracityError, match="not among"):
        labels_with_pos_label(labels, f"{BIG}.5")  # between the two: names neither
    top = np.array([2**64 - 1, 2**64 - 2], dtype=np.uint64)
    assert labels_with_pos_label(top, "18446744073709551615").tolist() == [1.0, 0.0]


def test_a_float_label_is_named_by_its_numeral_and_a_whole_float_only_exactly():
    tenths = np.array([0.1, 0.2, 0.1])
    for text in ("0.1", "0.10", ".1", "1e-1", "0.10000000000000001"):
        assert labels_with_pos_label(tenths, text).tolist() == [1.0, 0.0, 1.0], text
    with pytest.raises(VeracityError, match="not among"):
        labels_with_pos_label(tenths, "0.15")
    whole = np.array([float(BIG), float(BIG + 2)])  # two doubles; 2**53 + 1 lies between them
    # text names no float label of 2**53 or more (round 40: a reader may have merged two labels there; every
    # route refuses it), a number names one only exactly
    for text in (str(BIG + 1), str(BIG + 2)):
        with pytest.raises(VeracityError, match="read as floating point and reach 9007199254740994"):
            labels_with_pos_label(whole, text)
    assert labels_with_pos_label(whole, float(BIG + 2)).tolist() == [0.0, 1.0]
    with pytest.raises(VeracityError, match="not among"):
        labels_with_pos_label(whole, BIG + 1)
    assert labels_with_pos_label(np.array([np.inf, 0.0]), "inf").tolist() == [1.0, 0.0]
    with pytest.raises(VeracityError, match="not among"):
        labels_with_pos_label(np.array([np.inf, 0.0]), "1e400")  # overflows to inf, names no label


def test_text_labels_are_named_by_the_same_text_first():
    mixed = np.array(["1", 1, "1"], dtype=object)
    assert labels_with_pos_label(mixed, "1").tolist() == [1.0, 0.0, 1.0]
    assert labels_with_pos_label(mixed, 1).tolist() == [0.0, 1.0, 0.0]
    assert labels_with_pos_label(mixed, "1.0").tolist() == [0.0, 1.0, 0.0]  # a numeral: the number 1
    text = np.array(["1", "0", "1"])
    assert labels_with_pos_label(text, "1").tolist() == [1.0, 0.0, 1.0]
    for other in (" 1", "1.0", "01"):  # text labels: the same text only
        with pytest.raises(VeracityError, match="not among"):
            labels_with_pos_label(text, other)


def test_the_rule_itself():
    from veracity.core._validation import text_names_label

    assert [text_names_label(t, 1) for t in ("1", " 1.0 ", "01", "1e0", "+1", "True", "1_0", "0x1")] == [
        True, True, True, True, True, False, False, False]
    assert [text_names_label(t, True) for t in ("true", "TRUE", " 1", "1.0", "yes", "")] == [
        True, True, True, False, False, False]
    assert text_names_label("1", "1") is False  # text labels are compared as text, not here
    assert text_names_label("1e99999999999999999999", 1) is False  # beyond decimal's range: no error
    assert text_names_label("1", np.int8(1)) and text_names_label("0", np.bool_(False))


def test_audit_base_rate_with_text_on_an_int_array():
    scores, labels = np.array([0.9, 0.8, 0.7, 0.2]), np.array([BIG + 1, BIG + 1, BIG + 1, BIG])
    assert vc.audit(scores, labels, pos_label=f"{BIG + 1}.0").base_rate == 0.75
    assert vc.audit(scores, np.array([1, 1, 1, 0]), pos_label="1").base_rate == 0.75


def test_mixed_labels_are_listed_in_the_order_frames_list_them(error_line):
    import pandas as pd

    labels = np.array(["yes", 0, "yes"], dtype=object)
    assert error_line(lambda: labels_with_pos_label(labels, "no")) == (
        "pos_label='no' is not among the label values (0, 'yes'); pass one of them")
    frame = pd.DataFrame({"p": [0.9, 0.2, 0.7], "y": pd.Series(labels, dtype=object)})
    assert error_line(lambda: vc.audit(frame, score="p", label="y", pos_label="no")) == (
        "pos_label='no' is not among the values of column 'y' (labels) (0, 'yes'); pass one of them")
