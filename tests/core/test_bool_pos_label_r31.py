"""Round 31: text ``pos_label`` on boolean label arrays reads as it does on a frame's boolean column.

``vc.brier(p, np.array([False, True, ...]), pos_label='true')`` was refused ("pos_label='true' is not among
the label values (False, True)") while the frame form and the SQL audit read ``'true'``/``'false'`` (and
``'1'``/``'0'``), any case, as True/False on a boolean column. The array form now agrees, for numpy bool
arrays only: an integer 0/1 array keeps refusing ``'true'``, as frames and SQL do, and ``'yes'`` names
nothing on either.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import veracity as vc
from veracity.core._validation import VeracityError

P = np.array([0.2, 0.7, 0.9, 0.4])
Y = np.array([False, True, True, False])
BRIER_TRUE = (0.2 ** 2 + 0.3 ** 2 + 0.1 ** 2 + 0.4 ** 2) / 4  # positives: rows 2 and 3
BRIER_FALSE = (0.8 ** 2 + 0.7 ** 2 + 0.9 ** 2 + 0.6 ** 2) / 4  # positives: rows 1 and 4


@pytest.mark.parametrize("pos_label, expected", [
    ("true", BRIER_TRUE), ("TRUE", BRIER_TRUE), (" True ", BRIER_TRUE), ("1", BRIER_TRUE),
    ("false", BRIER_FALSE), ("False", BRIER_FALSE), ("0", BRIER_FALSE),
])
def test_text_names_a_boolean_label_as_on_a_frame(pos_label, expected):
    frame = pd.DataFrame({"p": P, "y": Y})
    assert vc.brier(P, Y, pos_label=pos_label) == pytest.approx(expected, abs=1e-12)
    assert vc.brier(P, Y, pos_label=pos_label) == pytest.approx(
        vc.brier(frame, score="p", label="y", pos_label=pos_label), abs=1e-12)


@pytest.mark.parametrize("labels", [
    lambda y: y, lambda y: pd.Series(y), lambda y: pd.Series(y, dtype="boolean"),
], ids=["numpy", "series", "nullable-boolean"])
@pytest.mark.parametrize("pos_label", ["true", "FALSE"])
def test_audit_of_arrays_matches_the_frame(labels, pos_label):
    rng = np.random.default_rng(31)
    p = rng.uniform(0.01, 0.99, 400)
    y = rng.uniform(size=400) < p
    frame = pd.DataFrame({"p": p, "y": y})
    a = vc.audit(p, labels(y), pos_label=pos_label)
    b = vc.audit(frame, score="p", label="y", pos_label=pos_label)
    positive = y if pos_label == "true" else ~y
    assert a.brier == pytest.approx(np.mean((p - positive) ** 2), abs=1e-12)
    assert a.base_rate == pytest.approx(positive.mean(), abs=1e-12)
    for name in ("brier", "ece", "auc", "nll", "base_rate"):
        assert getattr(a, name) == pytest.approx(getattr(b, name), abs=1e-12), name
    assert a.n == b.n == 400


def test_yes_is_refused_on_booleans_as_on_a_frame():
    with pytest.raises(VeracityError) as e:
        vc.brier(P, Y, pos_label="yes")
    assert str(e.value) == ("pos_label='yes' is not among the label values (False, True); "
                            "pass 'true' or 'false' (any case), or 1 or 0")
    with pytest.raises(VeracityError, match=r"pos_label='yes' is not among the values of column 'y'"):
        vc.brier(pd.DataFrame({"p": P, "y": Y}), score="p", label="y", pos_label="yes")


def test_text_true_names_no_absent_boolean():
    # all labels False: 'true' names True, which is not there (refused, as the frame refuses it)
    with pytest.raises(VeracityError) as e:
        vc.brier(P, np.zeros(4, dtype=bool), pos_label="true")
    assert str(e.value) == ("pos_label='true' is not among the label values (False); "
                            "pass 'false' (any case) or 0")


@pytest.mark.parametrize("pos_label", ["true", "False"])
def test_integer_labels_keep_refusing_true(pos_label):
    with pytest.raises(VeracityError) as e:
        vc.brier(P, Y.astype(np.int64), pos_label=pos_label)
    assert str(e.value) == f"pos_label={pos_label!r} is not among the label values (0, 1); pass one of them"
    with pytest.raises(VeracityError, match="is not among the values of column 'y'"):
        vc.brier(pd.DataFrame({"p": P, "y": Y.astype(np.int64)}), score="p", label="y", pos_label=pos_label)


def test_text_labels_are_still_matched_exactly():
    # text labels 'true'/'false' are compared as text: 'TRUE' names none of them
    y = np.array(["false", "true", "true", "false"])
    assert vc.brier(P, y, pos_label="true") == pytest.approx(BRIER_TRUE, abs=1e-12)
    with pytest.raises(VeracityError, match="pos_label='TRUE' is not among the label values"):
        vc.brier(P, y, pos_label="TRUE")
