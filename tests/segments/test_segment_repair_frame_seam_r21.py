"""vc.SegmentCalibration's frame form reads its columns through the rows seam every frame form uses.

``fit(frame, score=, label=)`` built a ``_Prepared`` of its own and ``transform(frame, score=)`` a copy of
its own (``as_frame`` + ``check_columns``): an array in ``transform``'s ``score=`` raised numpy's raw
"truth value of an array ... is ambiguous"; a DuckDB or sqlite3 connection got "cannot read columns from
DuckDBPyConnection"; an empty frame, a text, NaN or infinite score column got the array form's words
without the column's name; ``fit(frame, score="y", label="y")`` fitted on the answers as scores, and a
labels array or a ``features=`` mapping beside the frame was left unread, silently. Now ``fit`` reads
through :func:`veracity.core._frameform.rows_call` and ``transform`` through ``scores_call`` (no labels),
the feature columns as the seam's further columns: the fitted state and the probabilities stay the array
form's, bit for bit, on pandas, polars and pyarrow frames.
"""

import sqlite3

import duckdb
import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import veracity as vc

rng = np.random.default_rng(2021)
N = 1200
P = rng.uniform(0.05, 0.95, N)
REGION = np.array(["EU", "US", "ÄSIA", None], dtype=object)[np.arange(N) % 4]
AGE = np.where(np.arange(N) % 17 == 0, np.nan, rng.normal(40, 10, N))
Y = (rng.uniform(size=N) < np.clip(P + 0.15 * (REGION == "EU"), 0, 1)).astype(int)
W = rng.uniform(0.5, 2.0, N)
FRAME = pd.DataFrame({"p": P, "y": np.where(Y == 1, "yes", "no"), "w": W, "region": REGION, "age": AGE,
                      "t": ["x"] * N}, index=np.arange(N)[::-1] * 3)  # not 0..N-1: never read by position
FEATURES = ["region", "age"]


def _fresh() -> vc.SegmentCalibration:
    return vc.SegmentCalibration(features=FEATURES, depth=2, min_count=20)


FITTED = _fresh().fit(P, Y, features={"region": REGION, "age": AGE}, sample_weight=W)

FRAMES = {"pandas": lambda: FRAME, "polars": lambda: pl.from_pandas(FRAME),
          "pyarrow": lambda: pa.Table.from_pandas(FRAME, preserve_index=False)}


@pytest.mark.parametrize("kind", list(FRAMES))
def test_the_frame_form_is_the_array_form_bit_for_bit(kind):
    frame = FRAMES[kind]()
    framed = _fresh().fit(frame, score="p", label="y", sample_weight="w", pos_label="yes")
    assert [s.to_dict() for s in framed.specs_] == [s.to_dict() for s in FITTED.specs_]
    assert framed.corrections_ == FITTED.corrections_ and framed.tau2_ == FITTED.tau2_
    expected = FITTED.transform(P, features={"region": REGION, "age": AGE})
    np.testing.assert_array_equal(framed.transform(frame, score="p"), expected)
    np.testing.assert_array_equal(FITTED.transform(frame, score="p"), expected)
    np.testing.assert_array_equal(_fresh().fit_transform(frame, score="p", label="y", sample_weight="w",
                                                         pos_label="yes"), expected)


# -- transform: the seam's one-line messages -------------------------------------------------------------
def test_transform_names_a_wrong_score_argument(error_line):
    text = error_line(lambda: FITTED.transform(FRAME, score=FRAME["p"].to_numpy()))
    assert "score=" in text and "array of shape (1200,)" in text  # was numpy's raw ValueError


@pytest.mark.parametrize("method", ["transform", "fit"])
@pytest.mark.parametrize("connect", [duckdb.connect, lambda: sqlite3.connect(":memory:")])
def test_a_connection_is_told_what_to_pass(method, connect, error_line):
    con = connect()
    call = (lambda: FITTED.transform(con, score="p")) if method == "transform" else (
        lambda: _fresh().fit(con, score="p", label="y"))
    text = error_line(call)
    assert "not a database connection" in text and "cannot read columns" not in text


@pytest.mark.parametrize("method", ["transform", "fit"])
@pytest.mark.parametrize("frame, words", [
    (FRAME.iloc[:0], "the frame has no rows"),
    (FRAME.assign(p=FRAME["t"]), "column 't' (scores) must be numeric"),
    (FRAME.assign(p=np.where(np.arange(N) == 7, np.nan, P)), "column 'p' (scores) has 1 missing/NaN"),
    (FRAME.assign(p=np.where(np.arange(N) == 7, np.inf, P)), "column 'p' (scores) has 0 missing/NaN and 1"),
])
def test_bad_score_columns_are_named(method, frame, words, error_line):
    score = "t" if "'t'" in words else "p"
    frame = (frame.drop(columns="p") if score == "t" else frame).assign(y=Y[:len(frame)])
    call = (lambda: FITTED.transform(frame, score=score)) if method == "transform" else (
        lambda: _fresh().fit(frame, score=score, label="y"))
    assert words in error_line(call)


@pytest.mark.parametrize("method", ["transform", "fit"])
def test_a_missing_feature_column_is_named_with_the_columns_there(method, error_line):
    frame = FRAME.drop(columns="age")
    call = (lambda: FITTED.transform(frame, score="p")) if method == "transform" else (
        lambda: _fresh().fit(frame, score="p", label="y", pos_label="yes"))
    text = error_line(call)
    assert "'age'" in text and "available columns: p, y, w, region, t" in text


@pytest.mark.parametrize("method", ["transform", "fit"])
@pytest.mark.parametrize("make", [lambda: pl.from_pandas(FRAME).lazy(),
                                  lambda: duckdb.connect().from_df(FRAME)])
def test_lazy_frames_are_refused_never_collected(method, make, error_line):
    # as before: every lazy frame is refused (the rows must be in memory), now in the seam's words
    frame = make()
    call = (lambda: FITTED.transform(frame, score="p")) if method == "transform" else (
        lambda: _fresh().fit(frame, score="p", label="y", pos_label="yes"))
    assert "in memory" in error_line(call)


# -- fit: the labelled seam's refusals --------------------------------------------------------------------
def test_fit_refuses_the_labels_read_as_scores(error_line):
    # fitted on the answers as scores, silently (a perfect model)
    frame = FRAME.assign(y=Y)
    assert "would read the answers as scores" in error_line(lambda: _fresh().fit(frame, score="y", label="y"))


def test_fit_refuses_a_labels_array_beside_the_label_column(error_line):
    # the array was left unread: the fit used the column
    assert "takes no labels array" in error_line(
          lambda: _fresh().fit(FRAME, 1 - Y, score="p", label="y", pos_label="yes"))


@pytest.mark.parametrize("method", ["transform", "fit"])
def test_a_features_mapping_beside_a_frame_is_refused(method, error_line):
    # the mapping was left unread: the frame's columns were used
    other = {"region": REGION[::-1], "age": AGE[::-1]}
    call = (lambda: FITTED.transform(FRAME, other, score="p")) if method == "transform" else (
        lambda: _fresh().fit(FRAME, score="p", label="y", pos_label="yes", features=other))
    text = error_line(call)
    assert "drop features=" in text
