"""A pyarrow table where a column belongs, and nested labels (round 29).

* ``vc.ece(pa.table({"p": p}), y)`` (a ``RecordBatch`` too, or through ``vc.audit`` and the calibrators)
  raised a raw ``AttributeError: 'pyarrow.lib.Table' object has no attribute 'to_numpy'``: now one line
  that names the table's columns, how to take one, and the call's frame form;
* labels holding records or lists (a pyarrow struct or list array, an object array of dicts) raised a raw
  ``TypeError: unhashable type: 'dict'``, or read a list as the label value ``[1]`` ("pass pos_label=
  naming the positive class, e.g. pos_label=[1]"): now one line saying nested values are not labels.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import veracity as vc

pa = pytest.importorskip("pyarrow")

N = 200


@pytest.fixture(scope="module")
def rows():
    rng = np.random.default_rng(29)
    p = rng.uniform(0.05, 0.95, N)
    y = (rng.uniform(size=N) < p).astype(np.int64)
    return p, y


def tables(p, y):
    return [pa.table({"p": p, "y": y}), pa.RecordBatch.from_pydict({"p": p, "y": y})]


@pytest.mark.parametrize("kind", [0, 1], ids=["Table", "RecordBatch"])
@pytest.mark.parametrize("name", ["ece", "brier", "audit", "reliability"])
def test_a_table_as_scores_names_its_columns_and_the_frame_form(rows, kind, name):
    p, y = rows
    table = tables(p, y)[kind]
    fn = getattr(vc, name)
    with pytest.raises(vc.VeracityError) as info:
        fn(table, y)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"scores is a pyarrow {type(table).__name__} (columns 'p', 'y'), where a "
                              "column of scores was expected; pass one of its columns, e.g. table['p']")
    whole = "table" if kind == 0 else "pa.table(batch)"  # the frame forms read a Table, not a RecordBatch
    assert message.endswith(f"vc.{name}({whole}, score='p', label='y')")
    # the advice works: the frame form and the column give the array form's answer
    expected = fn(p, y)
    for got in (fn(pa.table(table), score="p", label="y"), fn(table["p"], y)):
        assert str(got) == str(expected)


def test_a_table_as_labels_or_weights(rows):
    p, y = rows
    table = pa.table({"p": p, "y": y})
    with pytest.raises(vc.VeracityError, match=r"^labels is a pyarrow Table \(columns 'p', 'y'\)"):
        vc.ece(p, table)
    with pytest.raises(vc.VeracityError, match=r"^sample_weight is a pyarrow Table"):
        vc.audit(p, y, sample_weight=table)


def test_a_table_given_to_a_calibrator_names_the_method(rows):
    p, y = rows
    table = pa.table({"p": p, "y": y})
    with pytest.raises(vc.VeracityError, match=r"PlattScaling\.fit\(table, score='p', label='y'\)$"):
        vc.PlattScaling().fit(table, y)
    assert str(vc.PlattScaling().fit(table, score="p", label="y")) == str(vc.PlattScaling().fit(p, y))


def test_a_table_where_the_function_has_no_frame_form(rows):
    p, y = rows
    with pytest.raises(vc.VeracityError) as info:
        vc.ConformalClassifier().fit(pa.table({"p0": 1 - p, "p1": p}), y)
    assert str(info.value) == ("probs is a pyarrow Table (columns 'p0', 'p1'), where a column of probs was "
                               "expected; pass one of its columns, e.g. table['p0']")


def _objects(values):
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


DICTS = [{"a": 1}, {"a": 0}] * (N // 2)
LISTS = [[1], [0]] * (N // 2)
NESTED = {
    "pyarrow struct": (lambda: pa.array(DICTS), "records such as {'a': 1}"),
    "object dicts": (lambda: _objects(DICTS), "records such as {'a': 1}"),
    "list of dicts": (lambda: DICTS, "records such as {'a': 1}"),
    "pandas dicts": (lambda: pd.Series(DICTS), "records such as {'a': 1}"),
    "pyarrow list": (lambda: pa.array(LISTS), "lists such as [1]"),
    "object lists": (lambda: _objects(LISTS), "lists such as [1]"),
    "object sets": (lambda: _objects([{1}, {0}] * (N // 2)), "sets such as {1}"),
}


@pytest.mark.parametrize("kind", sorted(NESTED))
@pytest.mark.parametrize("call", ["binary", "pos_label", "multiclass", "audit", "calibrator"])
def test_nested_labels_are_refused_in_one_line(rows, kind, call):
    p, _ = rows
    make, shown = NESTED[kind]
    labels = make()
    run = {"binary": lambda: vc.ece(p, labels), "pos_label": lambda: vc.brier(p, labels, pos_label=1),
           "multiclass": lambda: vc.ece(np.column_stack([1 - p, p]), labels),
           "audit": lambda: vc.audit(p, labels), "calibrator": lambda: vc.PlattScaling().fit(p, labels)}[call]
    with pytest.raises(vc.VeracityError) as info:
        run()
    assert str(info.value) == (f"labels hold nested values ({shown}) in {N} of {N} rows, first at row 0; "
                               "nested values and lists are not labels: pass one label per row (take the "
                               "field or the element first)")
    assert info.value.param == "labels"


def test_one_nested_row_among_labels_is_located(rows):
    p, y = rows
    labels = _objects(y.tolist())
    labels[7] = {"y": 1}
    with pytest.raises(vc.VeracityError, match=r"in 1 of 200 rows, first at row 7;") as info:
        vc.ece(p, labels)
    assert info.value.rows.tolist() == [7]
