"""The core checks' errors carry the rows they are about, and the command line names the first from them.

Before, ``cli._bad_rows.first_bad_row`` found which rows an error was about by matching its words ("must
sum to 1", "probabilities in [0, 1]", the parameter) and recomputing the masks itself: a reworded message
lost the row ("1 of 300 are not" with no "first at data row"). Now a :class:`VeracityError` from
``core._validation`` carries ``rows`` (0-based positions in the checked array) and ``n_rows`` (that array's
length), which the command line reads whatever the words. Also: ``veracity fit`` on a file with a role
column said "1 of 106 are not" without saying that the 106 are the rows it fits on (role == 'calib').
"""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import veracity.core._validation as validation
from veracity.cli._bad_rows import first_bad_row
from veracity.core._validation import (VeracityError, check_binary_labels, check_class_labels, check_weights,
                                       prepare_binary, prepare_multiclass, to_numpy)


def _raised(fn, *args, **kwargs) -> VeracityError:
    with pytest.raises(VeracityError) as info:
        fn(*args, **kwargs)
    return info.value


def _carries(exc: VeracityError, rows: list[int], n: int) -> None:
    assert exc.rows is not None and exc.rows.tolist() == rows and exc.n_rows == n, (exc.rows, exc.n_rows, exc)


# -- (1) the validation errors carry their rows ------------------------------------------------------------


@pytest.mark.parametrize("labels,rows", [
    ([0, 1, 2, 1, 0, 5], [2, 5]),           # two bad values: "(values such as 2, 5)."
    ([0, 1, 0.5, 1, 0, 1], [2]),            # a score among the labels: "These look like scores"
    ([1, 2, 1, 2, 2, 1], [1, 3, 4]),        # two values, not 0/1: "Map 1 to 0 and 2 to 1, or pass pos_label="
    ([0.0, 1.0, 0.0, -1.0, 1.0, 0.0], [3]),
])
def test_labels_not_0_1_carry_their_rows(labels, rows):
    exc = _raised(check_binary_labels, labels, 6)
    assert "must be binary 0/1" in exc.message
    _carries(exc, rows, 6)
    _carries(_raised(prepare_binary, np.full(6, 0.5), labels), rows, 6)  # the same through the public entry


@pytest.mark.parametrize("labels,rows,words", [
    ([0, 1, 3, 2, -1, 0], [2, 4], "must lie in 0..2"),
    ([0, 1.5, 2, 0, 2.5, 1], [1, 4], "integer class indices"),
])
def test_class_indices_out_of_range_carry_their_rows(labels, rows, words):
    exc = _raised(check_class_labels, labels, 6, 3)
    assert words in exc.message
    _carries(exc, rows, 6)
    P = np.full((6, 3), 1 / 3)
    _carries(_raised(prepare_multiclass, P, labels), rows, 6)


def test_negative_weights_carry_their_rows():
    exc = _raised(check_weights, [1.0, -1.0, 2.0, -3.0, 0.5], 5)
    assert exc.message == "sample_weight must be non-negative; 2 of 5 are negative (min=-3)"  # words unchanged
    _carries(exc, [1, 3], 5)
    _carries(_raised(prepare_binary, np.full(5, 0.5), [0, 1, 0, 1, 0], sample_weight=[1, -1, 2, -3, 0.5]), [1, 3], 5)


def test_multiclass_rows_not_summing_to_one_carry_their_rows():
    rng = np.random.default_rng(3)
    P = rng.dirichlet([1.0, 1.0, 1.0], 40)
    P[[7, 31]] = [0.5, 0.4, 0.2]  # sum to 1.1
    exc = _raised(prepare_multiclass, P, rng.integers(0, 3, 40))
    assert exc.message == "multiclass probability rows must sum to 1; 2 of 40 do not (row 7 sums to 1.1)"
    _carries(exc, [7, 31], 40)


def test_scores_outside_0_1_carry_their_rows():
    exc = _raised(prepare_binary, [0.1, 1.5, 0.3, -0.2, 0.9], [0, 1, 0, 1, 0])
    assert exc.message == "scores must be probabilities in [0, 1]; 2 of 5 are not (min=-0.2, max=1.5)"
    _carries(exc, [1, 3], 5)
    # (N, K): the count is of rows of the matrix (not of its entries), and so are the rows carried
    P = np.full((6, 3), 1 / 3)
    P[2] = [1.2, -0.1, -0.1]
    P[5] = [1.5, -0.25, -0.25]
    exc = _raised(prepare_multiclass, P, [0, 1, 2, 0, 1, 2])
    assert "; 2 of 6 rows are not" in exc.message
    _carries(exc, [2, 5], 6)


def test_missing_scores_and_labels_carry_their_rows():
    _carries(_raised(prepare_binary, [0.1, np.nan, 0.3, np.inf], [0, 1, 0, 1]), [1, 3], 4)
    P = np.full((5, 2), 0.5)
    P[3, 1] = np.nan
    _carries(_raised(prepare_multiclass, P, [0, 1, 0, 1, 0]), [3], 5)
    _carries(_raised(check_binary_labels, np.array([0, None, 1, 1, None], dtype=object), 5), [1, 4], 5)
    _carries(_raised(check_binary_labels, [0.0, 1.0, np.nan], 3), [2], 3)
    _carries(_raised(to_numpy, pa.array([0.2, None, 0.4, None]), "scores"), [1, 3], 4)


def test_errors_about_no_one_row_carry_none():
    exc = _raised(check_weights, [0.0, 0.0], 2)  # "sums to 0"
    assert exc.rows is None and exc.n_rows is None


def test_rows_survive_pickling():
    exc = _raised(check_weights, [1.0, -1.0, 2.0], 3)
    back = pickle.loads(pickle.dumps(exc))
    assert str(back) == str(exc) and back.param == exc.param
    _carries(back, [1], 3)


# -- (2) first_bad_row reads the rows, not the words -------------------------------------------------------


def test_first_bad_row_names_the_carried_row_whatever_the_words():
    """A message none of the old patterns knows, about rows the masks do not even mark: the carried row."""
    masks = {"labels": np.zeros(10, dtype=bool), "sample_weight": np.zeros(10, dtype=bool)}
    with pytest.raises(VeracityError) as info, first_bad_row(**masks):
        raise VeracityError("something about a few rows is off. Fix them", param="threshold", rows=[6, 2],
                            n_rows=10)
    assert info.value.message == "something about a few rows is off, first at data row 3. Fix them"
    assert info.value.rows.tolist() == [6, 2] and info.value.n_rows == 10


@pytest.mark.parametrize("masks,n_rows", [
    ({"labels": np.zeros(10, dtype=bool)}, 4),  # rows of another array (a subset): not the table's
    ({}, 10),                                   # no masks: the caller says the rows are not the table's
])
def test_first_bad_row_ignores_rows_of_another_array(masks, n_rows):
    with pytest.raises(VeracityError) as info, first_bad_row(**masks):
        raise VeracityError("labels are off", param="labels", rows=[1], n_rows=n_rows)
    assert info.value.message == "labels are off"


def _binary_file(tmp_path, row: int) -> str:
    """300 rows of 0/1 scores (whole numbers pass the command's own float range check) with a 2 at ``row``."""
    rng = np.random.default_rng(11)
    y = rng.integers(0, 2, 300)
    s = y.copy()
    s[row - 1] = 2
    path = tmp_path / "d.csv"
    pd.DataFrame({"s": s, "y": y}).to_csv(path, index=False)
    return str(path)


@pytest.fixture
def reword(monkeypatch):
    """``reword(name, words)``: the core's error builder ``name`` gives its error (rows and all) in ``words``,
    for this test only (a module imported meanwhile that binds the builder gets the real words back after)."""
    active = [True]

    def patch(name: str, words: str) -> None:
        real = getattr(validation, name)

        def reworded(*args, **kwargs):
            e = real(*args, **kwargs)
            if not active:
                return e
            return VeracityError(words, e.param, e.hint, value=e.value, rows=e.rows, n_rows=e.n_rows)

        monkeypatch.setattr(validation, name, reworded)

    yield patch
    active.clear()


def test_threshold_names_the_row_of_a_reworded_out_of_range_error(cli, refused, tmp_path, reword):
    """The core's error for scores outside [0, 1] in other words (no "probabilities in [0, 1]" that the
    command line could match): the row is still named, from the rows the error carries."""
    reword("not_probabilities", "some scores leave the unit interval")
    r = cli(["threshold", _binary_file(tmp_path, 58), "--score", "s", "--label", "y", "--cost-fn", "4"])
    refused(r, r"some scores leave the unit interval, first at data row 58\. If these are logits")


def test_report_names_the_row_of_a_reworded_row_sum_error(cli, refused, tmp_path, reword):
    """Before, the multiclass row was named only by rewriting "(row 40 sums to"; other words lost it."""
    reword("rows_not_summing_to_one", "a probability row is not normalised")
    rng = np.random.default_rng(1)
    P = rng.dirichlet([1.0, 1.0, 1.0], 300)
    P[40] = [0.5, 0.4, 0.2]  # data row 41 sums to 1.1
    path = tmp_path / "m.csv"
    pd.DataFrame({"p0": P[:, 0], "p1": P[:, 1], "p2": P[:, 2], "y": rng.integers(0, 3, 300)}).to_csv(path, index=False)
    r = cli(["report", path, "--score", "p0,p1,p2", "--label", "y", "--no-bootstrap", "--out", tmp_path / "r.html"])
    refused(r, r"a probability row is not normalised, first at data row 41\. Normalise the rows")


# -- veracity fit: a count of the fit rows says they are the fit rows ------------------------------------


def _role_file(tmp_path, column: str, value: float) -> tuple[str, int, int]:
    """(path, the data row of the 4th calib row, which holds ``value`` in ``column``, the number of calib rows)."""
    rng = np.random.default_rng(5)
    p = rng.uniform(0.02, 0.98, 300)
    frame = pd.DataFrame({"role": np.asarray(["train", "calib", "test"])[rng.integers(0, 3, 300)], "p": p,
                          "y": (rng.random(300) < p).astype(float), "w": rng.uniform(0.5, 2.0, 300)})
    calib = np.flatnonzero(frame.role.to_numpy() == "calib")
    frame.loc[calib[3], column] = value
    path = tmp_path / "d.csv"
    frame.to_csv(path, index=False)
    return str(path), int(calib[3]) + 1, calib.size


def _fit(cli, path: str, engine: str, tmp_path):
    return cli(["fit", path, "--score", "p", "--label", "y", "--sample-weight", "w", "--method", "platt",
                "--engine", engine, "--out", tmp_path / "c.json"])


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
@pytest.mark.parametrize("column,value,words", [
    ("y", 2.0, r"1 of {n} are not \(min=2, max=2\), first at data row {row}; map the two classes to 0 and 1 and "
               r"drop unlabelled rows \(fit on the {n} rows with role == 'calib'\)$"),
    ("w", -1.0, r"must be non-negative; 1 of {n} are negative \(min=-1\), first at data row {row} \(fit on the {n} "
                r"rows with role == 'calib'\)$"),
    ("p", 1.5, r"1 of {n} are not \(min=0\.02, max=1\.5\), first at data row {row} \(fit on the {n} rows with "
               r"role == 'calib'\)\. If these are logits"),
])
def test_fit_says_its_count_is_of_the_calib_rows(cli, refused, tmp_path, engine, column, value, words):
    path, row, n = _role_file(tmp_path, column, value)
    assert n != 300  # the count is of the calib rows, not of FILE's
    refused(_fit(cli, path, engine, tmp_path), words.format(n=n, row=row))


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_fit_missing_weight_names_the_calib_rows_on_every_engine(cli, refused, tmp_path, engine):
    """DuckDB said "of 106 rows", --engine memory "of the 106 rows with role == 'calib'": now both the latter."""
    path, row, n = _role_file(tmp_path, "w", np.nan)
    refused(_fit(cli, path, engine, tmp_path),
            rf"has 1 missing, NaN or infinite values of the {n} rows with role == 'calib', first at data row {row};")


def test_fit_without_a_role_column_is_unchanged(cli, refused, tmp_path):
    path, row, _ = _role_file(tmp_path, "y", 2.0)
    frame = pd.read_csv(path).drop(columns="role")
    frame.to_csv(path, index=False)
    r = _fit(cli, path, "memory", tmp_path)
    refused(r, rf"1 of 300 are not \(min=2, max=2\), first at data row {row}; map the two classes to 0 and 1 and "
               r"drop unlabelled rows$")
