"""cross_fit on a class of one row says so in cross-fitting's terms (session 20).

With 20 rows of which one is positive, the fold holding that row was fit on the other 16 and refused
as "PlattScaling needs both classes in the fit data; all 16 labels are 0. Fit on a calibration split
that holds positives and negatives": the user passed 20 rows with a positive among them, and no split.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import veracity as vc


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():  # the folds fit before the refused one warn (reversed slopes, tiny fits)
        warnings.simplefilter("ignore")
        yield


def test_one_positive_row_names_the_fold_and_the_class():
    rng = np.random.default_rng(0)
    p = rng.random(20)
    y = np.zeros(20, dtype=int)
    y[3] = 1
    pattern = r"^cross_fit cannot fit fold \d of 5: class 1 has 1 row, all in fold \d.*at least 2 rows"
    with pytest.raises(vc.VeracityError, match=pattern) as info:
        vc.cross_fit(p, y, vc.PlattScaling(), folds=5, random_state=0)
    assert "\n" not in str(info.value)
    fold = vc.calibrators.fold_index(y, n_folds=5, random_state=0)[3]
    assert f"fold {fold} of 5" in str(info.value)


def test_text_labels_and_multiclass():
    rng = np.random.default_rng(1)
    p = rng.random(12)
    y = np.array(["no"] * 11 + ["yes"])
    with pytest.raises(vc.VeracityError, match="class 'yes' has 1 row"):
        vc.cross_fit(p, y, vc.IsotonicCalibration(), folds=3, pos_label="yes")
    L = rng.normal(size=(12, 3))
    P = np.exp(L) / np.exp(L).sum(axis=1, keepdims=True)
    yy = np.array([0] * 5 + [1] * 6 + [2])
    with pytest.raises(vc.VeracityError, match="class 2 has 1 row"):
        vc.cross_fit(P, yy, vc.VectorScaling(), folds=3)
    # temperature scaling fits a split without a class: no refusal
    assert vc.cross_fit(P, yy, vc.TemperatureScaling(score_type="probability"), folds=3).oof.shape == (12, 3)


def test_other_refusals_keep_their_words():
    p = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8])
    y = np.array([0, 1, 0, 1, 0, 1, 0, 1])
    with pytest.raises(vc.VeracityError, match="^refusing to fit PlattScaling on rows whose role is 'test'"):
        vc.cross_fit(p, y, vc.PlattScaling(), folds=2, role="test")
