"""The array form's refusal of missing labels counts them of the rows, as the frame and file routes do
("... (None/NaN) of N rows; drop or fill that row first"), and ``vc.split`` says it in the same words
(round 28).

Before: "labels contain 1 missing value (None/NaN); drop or fill that row first" (no row count), a copy of
that line in calibrators/_split.py (whose float NaN labels read "labels contain NaN or infinite values").
A float NaN label in the metrics and calibrators keeps its "labels contains 1 NaN ... (first at flat index
k)" line, which the monitor maps to its caller's row.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

import veracity as vc

P = np.linspace(0.1, 0.9, 5)


def _labels(gone: list[int], kind: str) -> Any:
    if kind == "float":
        return np.array([np.nan if i in gone else float(i % 2) for i in range(5)])
    if kind == "boolean":  # pandas' nullable booleans: pd.NA is a missing label
        return pd.Series([None if i in gone else bool(i % 2) for i in range(5)], dtype="boolean")
    return np.array([None if i in gone else ("a", "b")[i % 2] for i in range(5)], dtype=object)


@pytest.mark.parametrize("kind", ["text", "boolean"])
@pytest.mark.parametrize("gone, words", [
    ([2], "1 missing value (None/NaN) of 5 rows; drop or fill that row first"),
    ([0, 3], "2 missing values (None/NaN) of 5 rows; drop or fill those rows first"),
], ids=["one", "two"])
@pytest.mark.parametrize("call", [
    lambda y: vc.ece(P, y), lambda y: vc.ece(P, y, pos_label=True), lambda y: vc.split(y),
    lambda y: vc.PlattScaling().fit(P, y),
], ids=["metric", "pos_label", "split", "calibrator"])
def test_missing_labels_are_counted_of_the_rows(error_line, call, gone, words, kind):
    with pytest.raises(vc.VeracityError) as info:
        call(_labels(gone, kind))
    assert str(info.value) == f"labels contain {words}"
    assert isinstance(info.value, vc.VeracityError) and type(info.value).__name__ == "MissingLabels"
    assert info.value.rows.tolist() == gone and info.value.n_rows == 5


@pytest.mark.parametrize("gone, words", [
    ([2], "1 missing value (None/NaN) of 5 rows; drop or fill that row first"),
    ([0, 3], "2 missing values (None/NaN) of 5 rows; drop or fill those rows first"),
], ids=["one", "two"])
def test_split_counts_float_nan_labels_as_missing(gone, words):
    with pytest.raises(vc.VeracityError) as info:
        vc.split(_labels(gone, "float"))
    assert str(info.value) == f"labels contain {words}"
    assert info.value.rows.tolist() == gone and info.value.n_rows == 5


def test_split_names_infinite_labels_and_their_rows():
    with pytest.raises(vc.VeracityError) as info:
        vc.split(np.array([0.0, 1.0, np.inf, 1.0]))
    assert str(info.value) == "labels contain infinite values; drop those rows first"
    assert info.value.rows.tolist() == [2]


def test_the_cli_names_the_data_row_after_the_count():
    from veracity.cli._bad_rows import _after_count

    message = "labels contain 1 missing value (None/NaN) of 5 rows; drop or fill that row first"
    assert _after_count(message, ", first at data row 3") == (
        "labels contain 1 missing value (None/NaN) of 5 rows, first at data row 3; drop or fill that row first")
