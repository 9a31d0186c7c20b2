"""Text labels of multiclass scores: every route refuses them in the array form's words (round 24).

With several score columns the labels are the class's column index ``0..K-1``
(:func:`veracity.core._validation.check_class_labels`). The array form refuses text labels
(``"cat"``, and ``"0"`` too: which column a text names is the caller's to say) in one line that shows
the first text label and how to map them. The frame routes read such a column as binary labels and
said "must hold 0/1 numbers or booleans ... pass pos_label=", a fix the same call then refuses
("pos_label= is for binary labels"). The oracle is the array form on the same rows: every frame route
must raise its message, word for word.

Two smaller contracts beside it: a text label anywhere in an object array (a missing first label, a
column mixing numbers and text, bytes) is text to the array form too, shown by its first text value
(before: only a ``str`` in the first row was); and probability rows declared logits are refused by one
rule and one message, :func:`veracity.core._validation.refuse_probability_rows_as_logits`, on arrays
and frames alike.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import veracity as vc
from veracity.core._validation import (LOGIT_CHECK_MIN_ROWS, refuse_probability_rows_as_logits,
                                       text_class_labels)

from .conftest import same_audit

CLASSES = ["cat", "dog", "bird"]
BACKENDS = ["pandas", "polars", "polars-lazy", "pyarrow", "duckdb", "dask", "csv", "parquet", "spark"]


def _error(call):
    with pytest.raises(vc.VeracityError) as caught:
        call()
    return str(caught.value)


def _frame(backend, df, tmp_path, request):
    if backend == "pandas":
        return df
    if backend in ("polars", "polars-lazy"):
        pl = pytest.importorskip("polars")
        frame = pl.from_pandas(df)
        return frame.lazy() if backend == "polars-lazy" else frame
    if backend == "pyarrow":
        pa = pytest.importorskip("pyarrow")
        return pa.Table.from_pandas(df, preserve_index=False)
    if backend == "duckdb":
        duckdb = pytest.importorskip("duckdb")
        return duckdb.connect().from_df(df)
    if backend == "dask":
        dd = pytest.importorskip("dask.dataframe")
        return dd.from_pandas(df, npartitions=3, sort=False)
    if backend in ("csv", "parquet"):
        path = tmp_path / f"classes.{backend}"
        df.to_csv(path, index=False) if backend == "csv" else df.to_parquet(path, index=False)
        return str(path)
    spark = request.getfixturevalue("spark")
    return spark.createDataFrame(df)


@pytest.fixture
def threads():
    dask = pytest.importorskip("dask")
    with dask.config.set({"scheduler": "threads"}):
        yield


def _problem(n=40, seed=24, score_type="logit"):
    """``(scores, class indices)``: ``n`` rows of 3 logits, or of the probabilities they give."""
    rng = np.random.default_rng(seed)
    z = rng.normal(0.0, 2.0, (n, 3))
    y = rng.integers(0, 3, n)
    if score_type == "probability":
        z = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    return z, y


def _columns(s, labels):
    """Score columns named by class, as ``predict_proba`` output is often kept, and the labels ``y``."""
    return pd.DataFrame({**{c: s[:, i] for i, c in enumerate(CLASSES)}, "y": labels})


# (case, labels from class indices, score type); CSV keeps no text type for digits, so they are not text there
LABELS = [
    ("class names", lambda y: np.array(CLASSES, dtype=object)[y], "logit"),
    ("class names, probabilities", lambda y: np.array(CLASSES, dtype=object)[y], "probability"),
    ("digits as text", lambda y: np.array(["0", "1", "2"], dtype=object)[y], "logit"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", LABELS, ids=[c[0] for c in LABELS])
def test_text_labels_of_multiclass_scores_get_the_array_forms_refusal(case, backend, tmp_path, request,
                                                                      threads):
    _, make, score_type = case
    if backend == "csv" and case[0] == "digits as text":
        pytest.skip("a CSV file keeps no text type: the digits are read as the class indices")
    s, y = _problem(score_type=score_type)
    labels = make(y)
    want = _error(lambda: vc.audit(s, labels, score_type=score_type))
    assert want == str(text_class_labels(3, labels[0]))  # the first label, in row order
    frame = _frame(backend, _columns(s, labels), tmp_path, request)
    assert _error(lambda: vc.audit(frame, score=CLASSES, label="y", score_type=score_type)) == want


def test_text_labels_in_csv_digits_are_the_class_indices(tmp_path):
    # guard: CSV digits are numbers (the reader types them), so the audit is the integer labels' one
    s, y = _problem()
    path = tmp_path / "digits.csv"
    _columns(s, np.array(["0", "1", "2"], dtype=object)[y]).to_csv(path, index=False)
    same_audit(vc.audit(str(path), score=CLASSES, label="y", score_type="logit", bins=7),
               vc.audit(s, y, score_type="logit", bins=7))


FUNCTIONS = [
    ("reliability", vc.reliability), ("ece", vc.ece), ("brier", vc.brier), ("nll", vc.nll), ("auc", vc.auc),
    ("temperature fit", lambda *data, **kw: vc.TemperatureScaling(score_type="logit").fit(*data, **kw)),
]


@pytest.mark.parametrize("backend", ["pandas", "polars-lazy", "duckdb"])
@pytest.mark.parametrize("function", FUNCTIONS, ids=[f[0] for f in FUNCTIONS])
def test_every_function_of_a_frame_refuses_them_alike(function, backend, tmp_path, request):
    name, call = function
    s, y = _problem()
    labels = np.array(CLASSES, dtype=object)[y]
    kw = {} if name == "temperature fit" else {"score_type": "logit"}
    want = _error(lambda: call(s, labels, **kw))
    frame = _frame(backend, _columns(s, labels), tmp_path, request)
    assert _error(lambda: call(frame, score=CLASSES, label="y", **kw)) == want


@pytest.mark.parametrize("backend", ["pandas", "pyarrow", "dask", "parquet"])
def test_categorical_text_labels_are_text(backend, tmp_path, request, threads):
    s, y = _problem()
    labels = pd.Categorical.from_codes(y, CLASSES)
    want = _error(lambda: vc.audit(s, pd.Series(labels), score_type="logit"))
    frame = _frame(backend, _columns(s, labels), tmp_path, request)
    assert _error(lambda: vc.audit(frame, score=CLASSES, label="y", score_type="logit")) == want


def _with_missing_first(y):
    labels = np.array(CLASSES, dtype=object)[y]
    labels[:2] = None
    return labels


def test_the_array_form_finds_text_after_missing_or_numeric_labels():
    # before: only a str in the first row was text; None or a number there gave "labels must be numeric ...",
    # and bytes "must be numeric, got dtype |S4"
    s, y = _problem()
    missing_first = _with_missing_first(y)
    mixed = np.array(CLASSES, dtype=object)[y]
    mixed[0] = 0
    as_bytes = np.array([c.encode() for c in CLASSES])[y]
    for labels, first in [(missing_first, missing_first[2]), (mixed, mixed[1]), (as_bytes, as_bytes[0])]:
        want = str(text_class_labels(3, first))
        assert _error(lambda: vc.audit(s, labels, score_type="logit")) == want
        assert _error(lambda: vc.audit(s, pd.Series(labels), score_type="logit")) == want


@pytest.mark.parametrize("backend", ["pandas", "polars-lazy", "duckdb", "dask"])
@pytest.mark.parametrize("kind", ["missing first", "numbers and text"])
def test_frames_show_the_first_text_label_as_the_array_form(kind, backend, tmp_path, request, threads):
    s, y = _problem()
    if kind == "missing first":
        labels = _with_missing_first(y)
    else:
        if backend != "pandas":
            pytest.skip("a column mixing numbers and text is a pandas object column")
        labels = np.array(CLASSES, dtype=object)[y]
        labels[0] = 0
    want = _error(lambda: vc.audit(s, pd.Series(labels), score_type="logit"))
    frame = _frame(backend, _columns(s, labels), tmp_path, request)
    assert _error(lambda: vc.audit(frame, score=CLASSES, label="y", score_type="logit")) == want


@pytest.mark.parametrize("backend", ["pandas", "polars-lazy", "duckdb"])
def test_a_label_column_of_dates_is_not_class_indices(backend, tmp_path, request):
    # not text: no example to show, but the contract's words (class indices), never "pass pos_label="
    # (which the same call refuses for multiclass scores)
    s, y = _problem()
    labels = pd.Timestamp("2024-01-01") + pd.to_timedelta(y, unit="D")
    frame = _frame(backend, _columns(s, labels), tmp_path, request)
    error = _error(lambda: vc.audit(frame, score=CLASSES, label="y", score_type="logit"))
    assert error.startswith("column 'y' (labels) must hold class indices 0..2 for 3 score columns, got ")
    assert "pos_label" not in error


# -- probability rows declared logits: one rule, one message ------------------------------------------------
def test_probability_rows_as_logits_rule():
    n = LOGIT_CHECK_MIN_ROWS
    with pytest.raises(vc.VeracityError, match=f"all {n} rows are probability vectors"):
        refuse_probability_rows_as_logits(n, 0.0, 1.0, 0)
    for args in [(n - 1, 0.0, 1.0, 0), (n, -0.5, 1.0, 0), (n, 0.0, 1.5, 0), (n, 0.0, 1.0, 1)]:
        refuse_probability_rows_as_logits(*args)  # fewer rows, a value outside [0, 1], a row off 1: logits


@pytest.mark.parametrize("backend", ["pandas", "polars-lazy", "duckdb", "dask"])
def test_probability_rows_as_logits_are_refused_by_the_one_rule(backend, tmp_path, request, threads):
    s, y = _problem(n=40, score_type="probability")
    want = _error(lambda: refuse_probability_rows_as_logits(40, float(s.min()), float(s.max()), 0))
    assert _error(lambda: vc.audit(s, y, score_type="logit")) == want
    frame = _frame(backend, _columns(s, y), tmp_path, request)
    assert _error(lambda: vc.audit(frame, score=CLASSES, label="y", score_type="logit")) == want
