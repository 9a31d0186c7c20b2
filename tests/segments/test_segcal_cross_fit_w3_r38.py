"""``vc.cross_fit`` of a ``SegmentCalibration`` (session 38, third wave).

- ``cross_fit(p, y, SegmentCalibration(features=[...]), features={...})`` handed every fold's fit the whole
  feature columns beside the fold's scores: each fit was refused as "feature 'g' has shape (400,) but there
  are 320 scores". Each fold now fits and transforms on its own rows of every feature: the out-of-fold
  probabilities are those of fitting each fold by hand, bit for bit.
- The frame form, ``cross_fit(frame, SegmentCalibration(features=[...]), score=, label=)``, read no feature
  column and was refused as "pass features={name: column} for each (got NoneType)": it reads them from the
  frame, as ``SegmentCalibration.fit(frame, ...)`` does (the same numbers as the array form).
- ``SegmentCalibration.fit(frame, ..., role=Series)`` with the Series on another index than the frame paired
  the roles by position, silently: refused, as ``cross_fit``'s frame form and the array form refuse it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest

import veracity as vc

rng = np.random.default_rng(3803)
N = 400
P = rng.uniform(0.05, 0.95, N)
G = rng.choice(["a", "b", "c"], N)
X = rng.normal(size=N)
Y = (rng.uniform(size=N) < np.clip(P + 0.15 * (G == "a"), 0, 1)).astype(int)
FRAME = pd.DataFrame({"p": P, "y": Y, "g": G, "x": X})


def _cal() -> vc.SegmentCalibration:
    return vc.SegmentCalibration(features=["g", "x"], min_count=10)


def _by_hand(fold: np.ndarray, w: np.ndarray | None = None) -> np.ndarray:
    oof = np.empty(N)
    for k in np.unique(fold):
        o = fold == k
        c = _cal().fit(P[~o], Y[~o], features={"g": G[~o], "x": X[~o]},
                       sample_weight=None if w is None else w[~o])
        oof[o] = c.transform(P[o], {"g": G[o], "x": X[o]})
    return oof


def test_cross_fit_splits_the_features_by_fold():
    got = vc.cross_fit(P, Y, _cal(), features={"g": FRAME["g"], "x": FRAME["x"]}, random_state=1)
    assert np.array_equal(got.oof, _by_hand(got.fold))
    assert got.final.corrections_ == _cal().fit(P, Y, features={"g": G, "x": X}).corrections_
    assert len(got.calibrators) == 5 and all(c.specs_ for c in got.calibrators)


def test_cross_fit_with_weights_drops_weight_zero_rows_per_fold():
    w = np.random.default_rng(1).integers(0, 3, N).astype(float)
    got = vc.cross_fit(P, Y, _cal(), features={"g": G, "x": X}, sample_weight=w, random_state=2)
    assert np.array_equal(got.oof, _by_hand(got.fold, w))


@pytest.mark.parametrize("to_frame", [lambda f: f, pl.from_pandas], ids=["pandas", "polars"])
def test_frame_form_reads_the_feature_columns(to_frame):
    arrays = vc.cross_fit(P, Y, _cal(), features={"g": G, "x": X}, random_state=1)
    framed = vc.cross_fit(to_frame(FRAME), _cal(), score="p", label="y", random_state=1)
    assert np.array_equal(framed.oof, arrays.oof)


def test_frame_form_refuses_features_beside_the_frame_and_names_a_missing_column():
    words = r"^with a frame \(score=\.\.\.\), cross_fit reads the features columns from the frame.*drop"
    with pytest.raises(vc.VeracityError, match=words):
        vc.cross_fit(FRAME, _cal(), score="p", label="y", features={"g": G, "x": X})
    with pytest.raises(vc.VeracityError, match="^column 'x' not found"):
        vc.cross_fit(FRAME.drop(columns="x"), _cal(), score="p", label="y")


def test_a_feature_of_other_rows_is_still_refused_in_one_line():
    with pytest.raises(vc.VeracityError, match="feature 'g' has shape \\(300,\\) but there are 400 scores"):
        vc.cross_fit(P, Y, _cal(), features={"g": G[:300], "x": X})


def test_segment_fit_frame_refuses_a_role_series_on_another_index():
    role = pd.Series(["calib"] * N, index=np.arange(N)[::-1])
    with pytest.raises(vc.VeracityError, match="^frame and role are pandas objects with different indexes"):
        _cal().fit(FRAME, score="p", label="y", role=role)
    fitted = _cal().fit(FRAME, score="p", label="y", role=pd.Series(["calib"] * N, index=FRAME.index))
    assert fitted.metadata["role"] == "calib"


def test_segment_fit_frame_records_the_columns_and_the_positive_class():
    frame = FRAME.assign(y=np.where(Y == 1, "churn", "stay"))
    fitted = _cal().fit(frame, score="p", label="y", pos_label="churn", metadata={"cohort": "c1"})
    by_arrays = _cal().fit(P, frame["y"].to_numpy(), features={"g": G, "x": X}, pos_label="churn")
    meta = fitted.metadata
    recorded = (meta["score_column"], meta["label_column"], meta["pos_label"], meta["cohort"])
    assert recorded == ("p", "y", "churn", "c1")
    assert by_arrays.metadata["pos_label"] == "churn" and meta["data_hash"] == by_arrays.metadata["data_hash"]
    # the caller's metadata wins, as every calibrator's frame fit reads it
    assert _cal().fit(frame, score="p", label="y", pos_label="churn",
                      metadata={"label_column": "target"}).metadata["label_column"] == "target"


def test_compare_reads_a_segment_calibrations_features_and_refuses_arrays_without_them():
    fitted = _cal().fit(FRAME, score="p", label="y")
    # round 40: the frame form reads the feature columns, the array form takes features= (it refused both)
    by_frame = vc.compare(FRAME, fitted, score="p", label="y")
    assert str(by_frame) == str(vc.compare(P, Y, fitted, features={"g": G, "x": X}))
    words = (r"^this SegmentCalibration also reads its features \['g', 'x'\] on every row; pass "
             r"features=\{name: column\} for each")
    with pytest.raises(vc.VeracityError, match=words):
        vc.compare(P, Y, fitted)
    # without features it is a calibrator of the scores alone: compared as any other
    plain = vc.SegmentCalibration().fit(P, Y)
    assert "SegmentCalibration on 400 evaluation rows" in str(vc.compare(P, Y, plain))
