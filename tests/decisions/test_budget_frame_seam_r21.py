"""vc.budget_threshold's frame form reads its columns through the rows seam every other frame form uses.

It had a copy of its own (narwhals ``eager_only``, the column lookup and nothing else): a lazy frame, a
DuckDB relation, a path and a connection all got "pass an in-memory frame ... got DuckDBPyConnection"; an
empty frame, a text or NaN score column got the array form's words without the column's name; duplicate
column names raised narwhals' raw DuplicateError; and a pandas Series of weights on another index than
the frame's was paired by position, silently (another row's weight). The frame form needs no labels.
"""

import decimal
import sqlite3
import warnings

import duckdb
import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import veracity as vc

rng = np.random.default_rng(21)
N = 400
FRAME = pd.DataFrame({"p": np.round(rng.uniform(size=N), 2), "w": rng.uniform(0.5, 3.0, N),
                      "y": rng.integers(0, 2, N), "t": [f"r{i}" for i in range(N)]})


def _definition(s: np.ndarray, w: np.ndarray | None, budget: float) -> float:
    """The smallest observed score whose (weighted) count at or above it fits the budget."""
    w = np.ones_like(s) if w is None else w
    return min(t for t in np.unique(s[w > 0]) if w[s >= t].sum() <= budget * (1 + 1e-12))


# -- the same refusals as the other frame forms (precision_threshold reads through the seam) ------------
CON = duckdb.connect()


@pytest.mark.parametrize("make", [
    lambda: pl.from_pandas(FRAME).lazy(),
    lambda: CON.from_df(FRAME),
    lambda: FRAME.iloc[:0],
    lambda: pl.from_pandas(FRAME).head(0),
    lambda: FRAME.assign(p=FRAME["t"]),
    lambda: FRAME.assign(p=np.where(np.arange(N) == 7, np.nan, FRAME["p"])),
    lambda: FRAME.assign(p=np.where(np.arange(N) == 7, np.inf, FRAME["p"])),
    lambda: pl.DataFrame({"p": [[0.1], [0.2]], "y": [0, 1]}),
    lambda: pd.DataFrame([[0.1, 0.2, 1]], columns=["p", "p", "y"]),
    lambda: FRAME.assign(p=FRAME["p"] * 3 - 1),
], ids=["polars-lazy", "duckdb-relation", "empty-pandas", "empty-polars", "text-scores", "nan-score",
        "inf-score", "nested-scores", "duplicate-columns", "out-of-range"])
def test_a_hostile_frame_is_refused_as_the_other_frame_forms_refuse_it(make, error_line):
    got = error_line(lambda: vc.budget_threshold(make(), score="p", top_k=5))
    seam = error_line(lambda: vc.precision_threshold(make(), score="p", label="y"))
    assert got == seam.replace("vc.precision_threshold", "vc.budget_threshold")
    assert "vc.budget_threshold" in got or "'p'" in got or "no rows" in got  # names the function or column


def test_the_seam_says_what_the_copy_did_not(error_line):
    assert "needs the rows in memory" in error_line(
          lambda: vc.budget_threshold(pl.from_pandas(FRAME).lazy(), score="p", top_k=5))
    assert error_line(lambda: vc.budget_threshold(FRAME.iloc[:0], score="p", top_k=5)) == \
        "the frame has no rows; pass at least one row"
    assert error_line(lambda: vc.budget_threshold(FRAME, score="t", top_k=5)).startswith(
          "column 't' (scores) must be numeric, got String")
    text = error_line(lambda: vc.budget_threshold(FRAME, score="p", sample_weight="t", top_k=5))
    assert text.startswith("column 't' (sample_weight) must be numeric")
    nan = FRAME.assign(w=np.where(np.arange(N) == 3, np.nan, FRAME["w"]))
    assert error_line(lambda: vc.budget_threshold(nan, score="p", sample_weight="w", top_k=5)).startswith(
          "column 'w' (sample_weight) has 1 missing")
    negative = FRAME.assign(w=np.where(np.arange(N) == 3, -1.0, FRAME["w"]))
    text = error_line(lambda: vc.budget_threshold(negative, score="p", sample_weight="w", top_k=5))
    assert text.startswith("column 'w' (sample_weight) must be non-negative")


@pytest.mark.parametrize("con", [duckdb.connect(), sqlite3.connect(":memory:")], ids=["duckdb", "sqlite"])
def test_a_connection_is_told_to_pass_a_frame(con, error_line):
    text = error_line(lambda: vc.budget_threshold(con, score="p", top_k=5))
    assert text.startswith("vc.budget_threshold reads a frame, not a database connection")


def test_the_column_lookup_is_the_seams(error_line):
    assert error_line(lambda: vc.budget_threshold(FRAME, score="q", top_k=5)).startswith(
          "column 'q' not found; available columns: p, w, y, t")
    text = error_line(lambda: vc.budget_threshold(FRAME, score="p", sample_weight="ww", top_k=5))
    assert "(did you mean 'w'?)" in text
    assert error_line(lambda: vc.budget_threshold(FRAME, score=["p"], top_k=5)) == \
        "score= names the score column of the frame (a string); got ['p']"
    assert error_line(lambda: vc.budget_threshold(FRAME, score=FRAME["p"].to_numpy(), top_k=5)) == \
        f"score= names the score column of the frame (a string); got an array of shape ({N},)"


def test_a_weight_series_on_another_index_is_never_paired_by_position(error_line):
    """Before: the frame's scores (numpy) were paired with the Series by position: another row's weight."""
    shuffled = FRAME["w"].sample(frac=1.0, random_state=0)
    text = error_line(lambda: vc.budget_threshold(FRAME, score="p", sample_weight=shuffled, top_k=40))
    assert "different indexes" in text and text.startswith("frame and sample_weight")
    aligned = shuffled.loc[FRAME.index]  # what the user meant, by label
    got = vc.budget_threshold(FRAME, score="p", sample_weight=aligned, top_k=40)
    assert got == _definition(FRAME["p"].to_numpy(), FRAME["w"].to_numpy(), 40)


# -- the numbers are the array form's ------------------------------------------------------------------
@pytest.mark.parametrize("make", [lambda f: f, pl.from_pandas, lambda f: pa.Table.from_pandas(f)],
                         ids=["pandas", "polars", "pyarrow"])
@pytest.mark.parametrize("budget", [{"top_k": 37}, {"fraction": 0.1}, {"top_k": 123.5}])
def test_the_frame_form_equals_the_array_form_and_the_definition(make, budget):
    frame, s, w = make(FRAME), FRAME["p"].to_numpy(), FRAME["w"].to_numpy()
    for weights, by_name in ((None, None), (w, "w"), (w, w)):
        got = vc.budget_threshold(frame, score="p", sample_weight=by_name, **budget)
        assert got == vc.budget_threshold(s, sample_weight=weights, **budget)
        total = N if weights is None else w.sum()
        assert got == _definition(s, weights, budget.get("top_k", budget.get("fraction", 0) * total))


def test_score_types_and_column_types_read_as_the_array_form_reads_them():
    logits = FRAME.assign(p=np.log(FRAME["p"] + 0.01) * 3)
    for score_type in ("logit", "score"):
        assert vc.budget_threshold(logits, score="p", top_k=30, score_type=score_type) == \
            vc.budget_threshold(logits["p"].to_numpy(), top_k=30, score_type=score_type)
    values = [0.9, 0.1, 0.5, 0.7, 0.7]
    frames = [pa.table({"p": pa.array([decimal.Decimal(str(v)) for v in values])}),
              pd.DataFrame({"p": pd.Categorical(values)}), pd.DataFrame({"p": pd.Series(values, dtype=object)}),
              pl.DataFrame({"p": values}, schema={"p": pl.Float32})]
    for frame in frames:
        assert vc.budget_threshold(frame, score="p", top_k=2) == vc.budget_threshold(
            np.asarray(values, dtype=np.float64 if not isinstance(frame, pl.DataFrame) else np.float32), top_k=2)
    assert vc.budget_threshold(pl.DataFrame({"p": [True, False, False]}), score="p", top_k=1) == 1.0


def test_the_nothing_flagged_warning_is_said_at_the_callers_line():
    tied = pd.DataFrame({"p": [0.9, 0.9, 0.9, 0.1]})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = vc.budget_threshold(tied, score="p", top_k=2)
    assert got == np.nextafter(0.9, np.inf)
    assert [str(w.message) for w in caught] == [
        "3 rows tie at the top score 0.9, more than the budget 2; the threshold flags nothing"]
    assert caught[0].filename == __file__


# -- another label-free frame form, now read through the seam (segments/_repair.py) ---------------------
def test_segment_transform_names_a_wrong_score_argument_in_one_line(error_line):
    p = FRAME["p"].clip(0.05, 0.95)  # labels drawn from the scores (FRAME's "y" fits a reversing Platt map)
    rows = pd.DataFrame({"p": p, "y": (np.random.default_rng(0).uniform(size=N) < p).astype(int),
                         "g": np.arange(N) % 2})
    calibration = vc.SegmentCalibration(features=["g"]).fit(rows, score="p", label="y")
    assert "array of shape" in error_line(lambda: calibration.transform(rows, score=rows["p"].to_numpy()))
